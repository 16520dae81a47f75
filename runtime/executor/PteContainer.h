// The .pte container rules (spec section 2.2: the 64-byte minimum, the 24- or
// 32-byte extended header, the file size, the identifier, the root offset,
// where segments lie) in one implementation. The runtime's Program::load
// refuses what they refuse, and pte-inspect (its summary and --check) reports
// the same findings with the same rule ids, so a file the inspector flags
// cannot load and run with data read from the wrong bytes.
// Plain C++17, no exceptions: it is part of the runtime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace executorch_flatbuffer {
struct Program;
}

namespace ptec::rt {

/// One rule a file breaks.
struct ContainerFinding {
  bool error = true;     ///< false: a warning
  bool refuses = false;  ///< Program::load refuses the file for it
  std::string rule;      ///< pte-inspect --check's rule id, e.g. "header.segment-base"
  std::string where;     ///< "file", "header", "root", "segments[2]"
  std::string message;   ///< the field, its offset and the values at fault
};

/// What the container says about the file's layout.
struct ContainerInfo {
  uint64_t fileSize = 0;
  bool hasHeader = false;
  uint32_t headerLength = 0;     ///< 32 today; 24 in files of ExecuTorch < 1.0
  uint64_t programSize = 0;      ///< the flatbuffer is [0, programSize)
  uint64_t segmentBaseOffset = 0;
  uint64_t segmentDataSize = 0;  ///< 0 when the header has no such field
};

/// The file-level rules, in upstream's order: size, extended header,
/// identifier, root offset (not the flatbuffers verifier: callers run it with
/// their own limits). Appends every finding; returns false when a finding
/// leaves nothing to read further (then `out.back()` refuses).
bool checkContainer(const uint8_t *data, size_t size, ContainerInfo &info,
                    std::vector<ContainerFinding> &out);

/// The first finding of `findings` that refuses the file, or null.
const ContainerFinding *firstRefusal(const std::vector<ContainerFinding> &findings);

/// Why segment `index`, [offset, +size) after segment_base_offset, cannot be
/// read from the file ("" when it can; an empty segment always can). `rule`
/// receives "segment.no-header" or "segment.bounds".
std::string segmentProblem(const ContainerInfo &info, uint64_t index, uint64_t offset,
                           uint64_t size, std::string *rule = nullptr);

/// Every segment of a verified program against the container: each one that
/// cannot be read (segment.*, errors the loader reports when something reads
/// that segment), and the writer rules of the segment table as a whole
/// (header.data-size, header.without-segments).
void checkSegments(const ContainerInfo &info, const executorch_flatbuffer::Program *program,
                   std::vector<ContainerFinding> &out);

} // namespace ptec::rt
