// The .ptd writer: named tensors kept outside a program (aot-compile
// --external-weights), in the FlatTensor layout that ExecuTorch's
// runtime reads: a flatbuffer with a 40-byte "FH01" header spliced in at
// byte 8, then the segments. docs/external-weights.md has the layout.
#pragma once

#include "serde/pte/FileChunks.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ptec::pte {

struct PtdEntry {
  // The entry's bytes: owned, or lent (`lent`, `lentSize`) by a caller whose
  // storage outlives serializing and writing (the emitter lends MLIR's
  // weight blobs, so an external weight is not copied on the way out).
  std::vector<uint8_t> bytes;
  const uint8_t *lent = nullptr;
  size_t lentSize = 0;
  const uint8_t *data() const { return lent ? lent : bytes.data(); }
  size_t size() const { return lent ? lentSize : bytes.size(); }
  // Layout, recorded as the entry's TensorLayout when scalarType >= 0.
  int8_t scalarType = -1;
  std::vector<int32_t> sizes;
};

// Key -> entry; written in key order (deterministic). Entries with equal
// bytes share one segment. Every segment starts at a multiple of
// `alignment` (a power of two) from the segment base, itself aligned so.
std::vector<uint8_t> serializePtd(const std::map<std::string, PtdEntry> &entries,
                                  uint64_t alignment = 16);

// The same bytes as pieces: `head` (header, flatbuffer, padding) and then
// each segment's bytes where the entry holds them, with zero padding.
struct PtdLayout {
  std::vector<uint8_t> head;
  std::vector<FileChunk> chunks; // point into head and the entries
  uint64_t size = 0;
  // chunks[0] points into head's buffer, which a move keeps and a copy not.
  PtdLayout() = default;
  PtdLayout(PtdLayout &&) = default;
  PtdLayout &operator=(PtdLayout &&) = default;
  PtdLayout(const PtdLayout &) = delete;
  PtdLayout &operator=(const PtdLayout &) = delete;
};
PtdLayout layoutPtd(const std::map<std::string, PtdEntry> &entries, uint64_t alignment = 16);

// serializePtd's bytes written to `path` atomically without building them in
// memory: the weights go from the entries straight to the file.
bool writePtdFile(const std::map<std::string, PtdEntry> &entries, const std::string &path,
                  std::string *err, uint64_t alignment = 16);
// The same, staged in `out` (written when `out` commits).
bool stagePtdFile(const std::map<std::string, PtdEntry> &entries, const std::string &path,
                  OutputFiles &out, std::string *err, uint64_t alignment = 16);

} // namespace ptec::pte
