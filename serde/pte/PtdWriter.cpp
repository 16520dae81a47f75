#include "serde/pte/PtdWriter.h"

#include "serde/pte/ContentIndex.h"
#include "serde/pte/flat_tensor_generated.h"

#include <cstring>

namespace ptec::pte {
namespace ft = ptec_flat_tensor;

namespace {
constexpr size_t kHeaderAt = 8;        // after the root offset and identifier
constexpr uint32_t kHeaderLength = 40; // "FH01", length, 4 x uint64

uint64_t alignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

void putLE(std::vector<uint8_t> &buf, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    buf[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
} // namespace

PtdLayout layoutPtd(const std::map<std::string, PtdEntry> &entries, uint64_t alignment) {
  // Segments: one per distinct byte string, in first-key order.
  std::vector<std::pair<uint64_t, uint64_t>> segments; // offset, size
  std::vector<const PtdEntry *> segmentEntry;
  ContentIndex byContent;
  std::vector<uint32_t> indexOfEntry;
  uint64_t dataSize = 0;
  for (const auto &[key, e] : entries) {
    uint32_t next = uint32_t(segments.size());
    uint32_t index = byContent.intern(e.data(), e.size(), next);
    if (index == next) {
      dataSize = alignUp(dataSize, alignment);
      segments.emplace_back(dataSize, e.size());
      segmentEntry.push_back(&e);
      dataSize += e.size();
    }
    indexOfEntry.push_back(index);
  }

  flatbuffers::FlatBufferBuilder fbb(4096);
  std::vector<flatbuffers::Offset<ft::DataSegment>> segs;
  for (auto [offset, size] : segments)
    segs.push_back(ft::CreateDataSegment(fbb, offset, size));
  std::vector<flatbuffers::Offset<ft::NamedData>> named;
  size_t k = 0;
  for (const auto &[key, e] : entries) {
    flatbuffers::Offset<ft::TensorLayout> layout;
    if (e.scalarType >= 0) {
      std::vector<uint8_t> dimOrder(e.sizes.size());
      for (size_t d = 0; d < dimOrder.size(); ++d)
        dimOrder[d] = static_cast<uint8_t>(d);
      layout = ft::CreateTensorLayout(fbb, e.scalarType, fbb.CreateVector(e.sizes),
                                      fbb.CreateVector(dimOrder));
    }
    named.push_back(
        ft::CreateNamedData(fbb, fbb.CreateString(key), indexOfEntry[k++], layout));
  }
  auto root = ft::CreateFlatTensor(fbb, /*version=*/0, fbb.CreateVector(segs),
                                   fbb.CreateVector(named));
  fbb.Finish(root, ft::FlatTensorIdentifier());
  const uint8_t *fbData = fbb.GetBufferPointer();
  size_t fbSize = fbb.GetSize();

  // The header goes in at byte 8, padded to the alignment; the root offset
  // moves past it. flatbuffer_offset is the padded header length (as
  // ExecuTorch writes it) and flatbuffer_size the unpadded flatbuffer's.
  uint64_t paddedHeader = alignUp(kHeaderLength, alignment);
  uint64_t paddedFlatbuffer = alignUp(fbSize, alignment);
  uint64_t base = alignUp(paddedHeader + paddedFlatbuffer, alignment);
  PtdLayout out;
  std::vector<uint8_t> &head = out.head;
  head.reserve(base);
  head.assign(fbData, fbData + kHeaderAt);
  head.resize(kHeaderAt + paddedHeader, 0);
  head.insert(head.end(), fbData + kHeaderAt, fbData + fbSize);
  putLE(head, 0, flatbuffers::ReadScalar<uint32_t>(fbData) + paddedHeader, 4);
  std::memcpy(head.data() + kHeaderAt, "FH01", 4);
  putLE(head, kHeaderAt + 4, kHeaderLength, 4);
  putLE(head, kHeaderAt + 8, paddedHeader, 8);
  putLE(head, kHeaderAt + 16, fbSize, 8);
  putLE(head, kHeaderAt + 24, base, 8);
  putLE(head, kHeaderAt + 32, dataSize, 8);
  head.resize(base, 0);
  out.chunks.push_back({head.data(), head.size()});
  uint64_t at = 0; // within the segment data
  for (size_t s = 0; s < segments.size(); ++s) {
    if (segments[s].first > at)
      out.chunks.push_back({nullptr, static_cast<size_t>(segments[s].first - at)});
    if (segments[s].second > 0)
      out.chunks.push_back({segmentEntry[s]->data(), static_cast<size_t>(segments[s].second)});
    at = segments[s].first + segments[s].second;
  }
  out.size = base + dataSize;
  return out;
}

std::vector<uint8_t> serializePtd(const std::map<std::string, PtdEntry> &entries,
                                  uint64_t alignment) {
  PtdLayout layout = layoutPtd(entries, alignment);
  std::vector<uint8_t> out;
  out.reserve(layout.size);
  for (const FileChunk &c : layout.chunks) {
    if (c.data)
      out.insert(out.end(), c.data, c.data + c.size);
    else
      out.resize(out.size() + c.size, 0);
  }
  return out;
}

bool writePtdFile(const std::map<std::string, PtdEntry> &entries, const std::string &path,
                  std::string *err, uint64_t alignment) {
  OutputFiles out;
  return stagePtdFile(entries, path, out, err, alignment) && out.commit(err);
}

bool stagePtdFile(const std::map<std::string, PtdEntry> &entries, const std::string &path,
                  OutputFiles &out, std::string *err, uint64_t alignment) {
  PtdLayout layout = layoutPtd(entries, alignment);
  return out.stage(path, layout.chunks, err);
}

} // namespace ptec::pte
