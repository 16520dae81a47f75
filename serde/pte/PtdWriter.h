// The .ptd writer: named tensors kept outside a program (aot-compile
// --external-weights), in the FlatTensor layout that ExecuTorch's
// runtime reads: a flatbuffer with a 40-byte "FH01" header spliced in at
// byte 8, then the segments. docs/external-weights.md has the layout.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ptec::pte {

struct PtdEntry {
  std::vector<uint8_t> bytes;
  // Layout, recorded as the entry's TensorLayout when scalarType >= 0.
  int8_t scalarType = -1;
  std::vector<int32_t> sizes;
};

// Key -> entry; written in key order (deterministic). Entries with equal
// bytes share one segment. Every segment starts at a multiple of
// `alignment` (a power of two) from the segment base, itself aligned so.
std::vector<uint8_t> serializePtd(const std::map<std::string, PtdEntry> &entries,
                                  uint64_t alignment = 16);

} // namespace ptec::pte
