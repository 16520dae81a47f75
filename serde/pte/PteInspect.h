// pte-inspect's library: opens any .pte (ours or upstream's) with
// overflow-safe container checks and the flatbuffers verifier, then renders a
// human summary or a full JSON dump (flatc --json --strict-json style, plus
// the extended header and segment table). Bad files give an error naming the
// field or byte offset; nothing here trusts the file.
#pragma once

#include "serde/pte/program_generated.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ptec::pte {

struct ExtendedHeaderInfo {
  bool present = false;
  uint32_t length = 0;
  uint64_t programSize = 0;
  uint64_t segmentBaseOffset = 0;
  uint64_t segmentDataSize = 0;
};

// A checked view of a .pte in memory; does not own the bytes.
struct PteView {
  const uint8_t *data = nullptr;
  size_t size = 0;        // whole file
  size_t programSize = 0; // the flatbuffer region [0, programSize)
  ExtendedHeaderInfo header;
  const executorch_flatbuffer::Program *program = nullptr;
};

// Checks header, identifier and bounds, runs the verifier and the
// cross-reference checks (segment and delegate-data indices). On failure
// returns false and *err says what is wrong and where.
bool openPte(const uint8_t *data, size_t size, PteView *view, std::string *err);

// The human summary: methods, inputs/outputs, operators, delegates and which
// calls share them, planned memory, segments, constants.
std::string summarizePte(const PteView &view, const std::string &fileName = "");

struct JsonOptions {
  bool elideBytes = false; // byte vectors become "<N bytes, fnv1a64 ...>"
};

// The whole flatbuffer as strict JSON, with "extended_header" and
// "segment_table" keys added.
bool dumpPteJson(const PteView &view, const JsonOptions &opts, std::string *out,
                 std::string *err);

// "float32", "int64", ... for a scalar type (its enum name otherwise).
std::string dtypeName(executorch_flatbuffer::ScalarType t);
// One value of a plan as text: "%12 Tensor float32[4, 16] planned mem 1 @ 64",
// "%3 Int 2", ...; out-of-range indices say so.
std::string describeValue(const executorch_flatbuffer::ExecutionPlan *plan, int64_t idx);

// The schema text embedded at build time (serde/pte/program.fbs).
const std::string &embeddedProgramSchema();

// The whole of the regular file `path` (serde/io/InputFile.h: a directory,
// FIFO or device is refused by name). False with *err set.
bool readFileBytes(const std::string &path, std::vector<uint8_t> *out,
                   std::string *err);

// The whole tool over argv-free inputs, for the thin main and for tests:
// returns the exit code (0 ok, 2 bad file) and fills *out / *err.
int inspectPteFile(const std::string &path, bool json, const JsonOptions &opts,
                   std::string *out, std::string *err);

} // namespace ptec::pte
