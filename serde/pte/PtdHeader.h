// The header of a .ptd file (ExecuTorch's FlatTensor named data), read and
// checked field by field: what serde/pte/PtdWriter writes and what a reader
// may rely on. Header-only and dependency-free, so that the runtime's reader
// (runtime/executor/FlatTensorData) and pte-inspect --check can apply the
// same rules. Layout: docs/external-weights.md, "The file".
//
//   bytes 0..3   flatbuffer root offset      bytes 4..7  identifier "FT01"
//   bytes 8..    "FH01", uint32 length (>= 40), uint64 flatbuffer_offset,
//                uint64 flatbuffer_size, uint64 segment_base_offset,
//                uint64 segment_data_size
//
// The flatbuffer (header inserted) spans [0, flatbuffer_offset +
// flatbuffer_size); the segments [segment_base_offset, + segment_data_size).
#ifndef PTEC_SERDE_PTE_PTDHEADER_H
#define PTEC_SERDE_PTE_PTDHEADER_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace ptec::pte {

struct PtdHeader {
  static constexpr size_t kAt = 8;             ///< after the root offset and identifier
  static constexpr uint32_t kMinLength = 40;   ///< "FH01", length, 4 x uint64
  uint64_t length = 0;
  uint64_t flatbufferOffset = 0;
  uint64_t flatbufferSize = 0;
  uint64_t segmentBaseOffset = 0;
  uint64_t segmentDataSize = 0;
};

namespace detail {
inline uint64_t ptdReadLE(const uint8_t *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}
} // namespace detail

/// Reads the header of the `n` bytes at `p` into *h and checks every field
/// against the file: "" when it is sound, else why not (naming the field
/// and its value). The identifier is not checked here.
inline std::string checkPtdHeader(const uint8_t *p, size_t n, PtdHeader *h) {
  using detail::ptdReadLE;
  const uint64_t size = n;
  if (size < PtdHeader::kAt + PtdHeader::kMinLength)
    return "not a .ptd file: " + std::to_string(n) + " bytes is too short";
  const uint8_t *at = p + PtdHeader::kAt;
  if (std::memcmp(at, "FH01", 4) != 0)
    return "the .ptd header magic at byte 8 is not FH01";
  h->length = ptdReadLE(at + 4, 4);
  h->flatbufferOffset = ptdReadLE(at + 8, 8);
  h->flatbufferSize = ptdReadLE(at + 16, 8);
  h->segmentBaseOffset = ptdReadLE(at + 24, 8);
  h->segmentDataSize = ptdReadLE(at + 32, 8);
  auto num = [](uint64_t v) { return std::to_string(v); };
  if (h->length < PtdHeader::kMinLength)
    return "header length " + num(h->length) + " < 40";
  if (h->length > size - PtdHeader::kAt)
    return "header length " + num(h->length) + " runs past the file (" + num(size) + " bytes)";
  // The header sits in the flatbuffer's first flatbuffer_offset bytes
  // after byte 8 (padded): it must fit there.
  if (h->flatbufferOffset < h->length)
    return "flatbuffer_offset " + num(h->flatbufferOffset) + " is smaller than the header (" +
           num(h->length) + " bytes)";
  if (h->flatbufferOffset > size || h->flatbufferSize > size - h->flatbufferOffset)
    return "the flatbuffer [0, flatbuffer_offset " + num(h->flatbufferOffset) +
           " + flatbuffer_size " + num(h->flatbufferSize) + ") runs past the file (" +
           num(size) + " bytes)";
  if (h->segmentBaseOffset > size || h->segmentDataSize > size - h->segmentBaseOffset)
    return "segment data [" + num(h->segmentBaseOffset) + ", +" + num(h->segmentDataSize) +
           ") runs past the file (" + num(size) + " bytes)";
  const uint64_t flatbufferEnd = h->flatbufferOffset + h->flatbufferSize;
  if (h->segmentBaseOffset != 0 && flatbufferEnd > h->segmentBaseOffset)
    return "the flatbuffer (up to byte " + num(flatbufferEnd) +
           ") runs into the segment data at segment_base_offset " + num(h->segmentBaseOffset);
  return "";
}

} // namespace ptec::pte

#endif // PTEC_SERDE_PTE_PTDHEADER_H
