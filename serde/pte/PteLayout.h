// What the .pte writer's two halves share: the segment layout PteWriter.cpp
// computes (offsets of constants, mutable data, delegate blobs and named
// data) and the packer (PtePacker.cpp) that writes the Program table with
// those offsets. Private to serde/pte.
#pragma once

#include "serde/pte/PteWriter.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ptec::pte {
namespace fb = executorch_flatbuffer;

// Where every delegate blob ended up.
struct BlobPlacement {
  fb::DataLocation location = fb::DataLocation::INLINE;
  uint32_t index = 0;
  bool used = false;
};

// Segment-related Program fields, computed by the writer.
struct Layout {
  std::vector<std::pair<uint64_t, uint64_t>> segments; // {offset, size}
  std::vector<uint64_t> constantOffsets;
  std::vector<uint64_t> mutableOffsets;
  uint32_t mutableSegment = 0;
  bool hasMutable = false;
  std::vector<uint32_t> inlineBlobs; // blob ids kept in backend_delegate_data
  std::vector<BlobPlacement> blobs;  // by blob id
  std::vector<std::pair<const std::string *, uint32_t>> named; // key, segment
  // The segment data as pieces of the builder's own bytes, each at its
  // offset from the segment base; zeros between them. The bytes are copied
  // once, into the finished file (weights are most of a large program).
  struct Piece {
    uint64_t at;
    const uint8_t *data;
    size_t size;
  };
  std::vector<Piece> pieces;
  uint64_t segmentDataSize = 0;
};

/// Packs `p` (with the side data of `side` placed as `layout` says) as the
/// root Program of `fbb`, in upstream's field order. On bad input sets
/// `error` to the field path ("execution_plan[0]...: is null") and the
/// returned offset must not be used.
flatbuffers::Offset<fb::Program> packProgram(flatbuffers::FlatBufferBuilder &fbb,
                                             const Layout &layout, const fb::ProgramT &p,
                                             const ProgramBuilder &side, std::string &error);

} // namespace ptec::pte
