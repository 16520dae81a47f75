#include "runtime/executor/PteContainer.h"

#include "serde/pte/program_generated.h"

#include <algorithm>
#include <cstring>

namespace ptec::rt {
namespace fb = executorch_flatbuffer;

namespace {

// Upstream's loader always reads the first 64 bytes before anything else.
constexpr uint64_t kMinFileSize = 64;
constexpr uint32_t kMinHeaderLength = 24;  // magic + length + program_size + base
constexpr uint32_t kFullHeaderLength = 32; // + segment_data_size (ExecuTorch >= 1.0)

uint64_t readLE(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

std::string num(uint64_t v) { return std::to_string(v); }

std::string printable(const uint8_t *p, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i)
    s += (p[i] >= 32 && p[i] < 127) ? static_cast<char>(p[i]) : '.';
  return s;
}

std::string hexBytes(const uint8_t *p, size_t n) {
  static const char kHex[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += kHex[p[i] >> 4];
    s += kHex[p[i] & 15];
  }
  return s;
}

void add(std::vector<ContainerFinding> &out, bool error, bool refuses, const char *rule,
         const std::string &where, std::string message) {
  ContainerFinding f;
  f.error = error;
  f.refuses = refuses;
  f.rule = rule;
  f.where = where;
  f.message = std::move(message);
  out.push_back(std::move(f));
}

} // namespace

bool checkContainer(const uint8_t *data, size_t size, ContainerInfo &info,
                    std::vector<ContainerFinding> &out) {
  info = ContainerInfo();
  info.fileSize = size;
  info.programSize = size;
  if (size < kMinFileSize) {
    add(out, true, true, "file.size", "file",
        "file is " + num(size) + " bytes; a .pte program has at least " + num(kMinFileSize) +
            " (the ExecuTorch loader reads the first " + num(kMinFileSize) + ")");
    return false;
  }
  if (std::memcmp(data + 8, "eh00", 4) == 0) {
    info.hasHeader = true;
    info.headerLength = static_cast<uint32_t>(readLE(data + 12, 4));
    if (info.headerLength < kMinHeaderLength) {
      add(out, true, true, "header.length", "header",
          "extended header length " + num(info.headerLength) +
              " at offset 12 is below the minimum " + num(kMinHeaderLength));
      return false;
    }
    const uint64_t psize = readLE(data + 16, 8);
    const uint64_t base = readLE(data + 24, 8);
    info.segmentBaseOffset = base;
    if (info.headerLength >= kFullHeaderLength)
      info.segmentDataSize = readLE(data + 32, 8);
    else
      add(out, false, false, "header.legacy-length", "header",
          "extended header length " + num(info.headerLength) +
              ": the 24-byte header of ExecuTorch < 1.0 (no segment_data_size)");
    const uint64_t dsize = info.segmentDataSize;
    // Upstream checks the file size only when segment_data_size is known
    // (> 0) or the header claims no segments; a 24-byte header with segments
    // is bounded segment by segment.
    if (dsize > 0 || base == 0) {
      if (base > UINT64_MAX - dsize) {
        add(out, true, true, "header.file-size", "header",
            "extended header segment_base_offset " + num(base) +
                " (offset 24) + segment_data_size " + num(dsize) + " (offset 32) overflows");
      } else {
        uint64_t expected = base == 0 ? psize : base + dsize;
        if (expected > size)
          add(out, true, true, "header.file-size", "header",
              "extended header says the file is at least " + num(expected) +
                  (base == 0 ? " bytes (program_size at offset 16)"
                             : " bytes (segment_base_offset " + num(base) +
                                   " + segment_data_size " + num(dsize) + ")") +
                  " but it is " + num(size) +
                  ": truncated, the data runs past the end of the file");
      }
    }
    if (psize < 8 || psize > size) {
      add(out, true, true, "header.program-size", "header",
          "extended header program_size " + num(psize) + " at offset 16 is outside [8, file size " +
              num(size) + "]");
      return false;
    }
    // Segment data inside the program would be read from the flatbuffer's
    // own bytes: every writer puts it after program_size.
    if (base != 0 && base < psize)
      add(out, true, true, "header.segment-base", "header",
          "extended header segment_base_offset " + num(base) +
              " at offset 24 lies inside the program (program_size " + num(psize) +
              " at offset 16): segments would overlap the flatbuffer");
    info.programSize = psize;
  }
  if (std::memcmp(data + 4, "ET12", 4) != 0) {
    std::string id = printable(data + 4, 4);
    if (data[4] == 'E' && data[5] == 'T')
      add(out, true, true, "file.identifier", "file",
          "file identifier '" + id +
              "' at offset 4: incompatible format version (expected 'ET12')");
    else
      add(out, true, true, "file.identifier", "file",
          "bad magic at offset 4: expected file identifier 'ET12', found '" + id + "' (0x" +
              hexBytes(data + 4, 4) + ")");
    return false;
  }
  const uint64_t root = readLE(data, 4);
  if (root < 8 || info.programSize < 12 || root > info.programSize - 4) {
    add(out, true, true, "flatbuffer.root", "root",
        "root table offset " + num(root) + " at byte 0 is outside the program [8, " +
            num(info.programSize >= 4 ? info.programSize - 4 : 0) + "]");
    return false;
  }
  return true;
}

const ContainerFinding *firstRefusal(const std::vector<ContainerFinding> &findings) {
  for (const ContainerFinding &f : findings)
    if (f.refuses)
      return &f;
  return nullptr;
}

std::string segmentProblem(const ContainerInfo &info, uint64_t index, uint64_t offset,
                           uint64_t size, std::string *rule) {
  if (size == 0)
    return "";
  const std::string seg = "segments[" + num(index) + "]";
  if (!info.hasHeader || info.segmentBaseOffset == 0) {
    if (rule)
      *rule = "segment.no-header";
    return seg + " has " + num(size) +
           " bytes but the file has no segment data (no extended header or "
           "segment_base_offset 0)";
  }
  // Segments are read from the file: a 24-byte header has no
  // segment_data_size, so the file's end is the bound.
  const uint64_t base = info.segmentBaseOffset;
  if (offset > UINT64_MAX - base || size > UINT64_MAX - base - offset ||
      base + offset + size > info.fileSize) {
    if (rule)
      *rule = "segment.bounds";
    return seg + " [" + num(offset) + ", +" + num(size) + ") at segment_base_offset " +
           num(base) + " runs past the end of the file (" + num(info.fileSize) + " bytes)";
  }
  return "";
}

void checkSegments(const ContainerInfo &info, const fb::Program *program,
                   std::vector<ContainerFinding> &out) {
  const auto *segs = program->segments();
  const uint32_t n = segs ? segs->size() : 0;
  uint64_t end = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const fb::DataSegment *s = segs->Get(i);
    const uint64_t off = s->offset(), size = s->size();
    if (size == 0)
      continue;
    end = std::max(end, off > UINT64_MAX - size ? UINT64_MAX : off + size);
    std::string rule;
    std::string why = segmentProblem(info, i, off, size, &rule);
    if (!why.empty())
      add(out, true, false, rule.c_str(), "segments[" + num(i) + "]", why);
  }
  if (!info.hasHeader)
    return;
  // Writer rules: the loader does not read these fields for anything else.
  if (info.headerLength >= kFullHeaderLength && info.segmentDataSize != end)
    add(out, true, false, "header.data-size", "header",
        "extended header segment_data_size " + num(info.segmentDataSize) +
            " (offset 32), but the last segment ends at " + num(end));
  if (end == 0)
    add(out, false, false, "header.without-segments", "header",
        "an extended header in a file without segment data");
}

} // namespace ptec::rt
