// The .pte writer: ProgramBuilder's side data (constants, mutable data,
// delegate blobs, named data), the segment layout, and the finished file
// (flatbuffer, extended header, segments). The Program table itself is
// packed in PtePacker.cpp.
#include "serde/pte/PteWriter.h"
#include "serde/pte/PteLayout.h"

#include "serde/io/MappedFile.h"
#include "serde/pte/ContentIndex.h"

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace ptec::pte {

namespace {

uint64_t alignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
bool isPow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

void putLE(std::vector<uint8_t> &buf, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    buf[at + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * i));
}

bool checkCallerLeftSegmentsEmpty(const fb::ProgramT &p, std::string *err) {
  const char *field = nullptr;
  if (!p.segments.empty())
    field = "segments";
  else if (p.constant_segment)
    field = "constant_segment";
  else if (!p.mutable_data_segments.empty())
    field = "mutable_data_segments";
  else if (!p.backend_delegate_data.empty())
    field = "backend_delegate_data";
  else if (!p.constant_buffer.empty())
    field = "constant_buffer";
  else if (!p.named_data.empty())
    field = "named_data";
  if (!field)
    return true;
  if (err)
    *err = std::string("Program.") + field +
           " must be left empty: the writer derives it (use addConstant, "
           "addMutableData, addDelegateBlob)";
  return false;
}

// Appends a segment at the next aligned offset of the segment data.
uint32_t appendSegment(Layout &l, const uint8_t *d, size_t n, uint64_t align) {
  uint64_t at = 0;
  if (!l.segments.empty())
    at = alignUp(l.segments.back().first + l.segments.back().second, align);
  l.pieces.push_back({at, d, n});
  l.segmentDataSize = at + n;
  l.segments.emplace_back(at, n);
  return static_cast<uint32_t>(l.segments.size() - 1);
}

Layout computeLayout(const ProgramBuilder &b, const WriteOptions &o) {
  Layout l;
  // Segment 0: the constants, 16-byte padded between entries, not after
  // the last; offsets[0] is the empty placeholder.
  uint64_t end = 0;
  for (size_t i = 0; i < b.constants().size(); ++i) {
    if (i > 0)
      end = alignUp(end, o.constantTensorAlignment);
    auto [data, size] = b.constantBytes(i);
    l.constantOffsets.push_back(end);
    l.pieces.push_back({end, data, size});
    end += size;
  }
  l.segments.emplace_back(0, end);
  l.segmentDataSize = end;

  // The mutable-data segment, only when there is data; no padding.
  if (b.mutableData().size() > 1) {
    // One segment, its entries back to back (no padding).
    uint64_t at = alignUp(l.segmentDataSize, o.segmentAlignment), size = 0;
    for (const auto &m : b.mutableData()) {
      l.mutableOffsets.push_back(size);
      l.pieces.push_back({at + size, m.data(), m.size()});
      size += m.size();
    }
    l.hasMutable = true;
    l.segments.emplace_back(at, size);
    l.segmentDataSize = at + size;
    l.mutableSegment = static_cast<uint32_t>(l.segments.size() - 1);
  }

  // Delegate blobs that some delegate references, in first-added order:
  // non-empty ones become segments, the rest stay inline (compacted).
  l.blobs.resize(b.delegateBlobs().size());
  for (const auto &plan : b.program.execution_plan)
    if (plan)
      for (const auto &d : plan->delegates)
        if (d && d->processed && d->processed->location == fb::DataLocation::INLINE &&
            d->processed->index < l.blobs.size())
          l.blobs[d->processed->index].used = true;
  for (size_t id = 0; id < l.blobs.size(); ++id) {
    if (!l.blobs[id].used)
      continue;
    const auto &blob = b.delegateBlobs()[id];
    if (o.extractDelegateSegments && !blob.empty()) {
      l.blobs[id].location = fb::DataLocation::SEGMENT;
      l.blobs[id].index =
          appendSegment(l, blob.data(), blob.size(), o.segmentAlignment);
    } else {
      l.blobs[id].location = fb::DataLocation::INLINE;
      l.blobs[id].index = static_cast<uint32_t>(l.inlineBlobs.size());
      l.inlineBlobs.push_back(static_cast<uint32_t>(id));
    }
  }
  // Named data (delegate constants by key): one segment each, in key order.
  for (const auto &[key, bytes] : b.namedData())
    l.named.push_back(
        {&key, appendSegment(l, bytes.data(), bytes.size(), o.segmentAlignment)});
  return l;
}

} // namespace

uint32_t ProgramBuilder::addConstant(const uint8_t *d, size_t n) {
  // Copies: the owned overload (shares the lookup of borrowed entries).
  return addConstant(std::vector<uint8_t>(d, d + n));
}

uint32_t ProgramBuilder::addConstant(std::vector<uint8_t> &&bytes) {
  return internConstant(bytes.data(), bytes.size(), &bytes);
}

uint32_t ProgramBuilder::addConstantView(const uint8_t *d, size_t n) {
  return internConstant(d, n, nullptr);
}

uint32_t ProgramBuilder::internConstant(const uint8_t *d, size_t n, std::vector<uint8_t> *owned) {
  const uint32_t next = static_cast<uint32_t>(constants_.size());
  // An owned vector's heap buffer stays where it is when the vector moves.
  uint32_t id = constantIndex_.intern(d, n, next);
  if (id != next)
    return id;
  if (owned) {
    constants_.push_back(std::move(*owned));
  } else {
    constants_.emplace_back();
    borrowed_.resize(constants_.size(), {nullptr, 0});
    borrowed_.back() = {d, n};
  }
  return next;
}

uint32_t ProgramBuilder::addMutableData(const uint8_t *d, size_t n) {
  mutable_.emplace_back(d, d + n);
  return static_cast<uint32_t>(mutable_.size() - 1);
}

bool ProgramBuilder::addNamedData(const std::string &key, const uint8_t *d, size_t n) {
  auto [it, inserted] = named_.try_emplace(key, d, d + n);
  return inserted || (it->second.size() == n && std::equal(d, d + n, it->second.begin()));
}

uint32_t ProgramBuilder::addDelegateBlob(const uint8_t *d, size_t n) {
  const uint32_t next = static_cast<uint32_t>(blobs_.size());
  std::vector<uint8_t> copy(d, d + n);
  uint32_t id = blobIndex_.intern(copy.data(), copy.size(), next);
  if (id == next)
    blobs_.push_back(std::move(copy));
  return id;
}

namespace {
// The file image of a program in two parts: `out` holds every byte up to the
// segment base (flatbuffer, extended header, padding; the whole file when
// there is no segment data) and `layout.pieces` the segment data, each at
// `base` + its offset, zeros between.
bool buildImage(const ProgramBuilder &b, const WriteOptions &o, std::vector<uint8_t> *out,
                Layout &layout, uint64_t &base, std::string *err) {
  out->clear();
  if (!isPow2(o.segmentAlignment) || !isPow2(o.constantTensorAlignment)) {
    if (err)
      *err = "WriteOptions: segmentAlignment and constantTensorAlignment must "
             "be powers of two";
    return false;
  }
  if (!checkCallerLeftSegmentsEmpty(b.program, err))
    return false;
  layout = computeLayout(b, o);
  base = 0;

  flatbuffers::FlatBufferBuilder fbb(1 << 16);
  std::string packError;
  auto root = packProgram(fbb, layout, b.program, b, packError);
  if (!packError.empty()) {
    if (err)
      *err = "Program." + packError;
    return false;
  }
  fbb.Finish(root, fb::ProgramIdentifier());
  const uint8_t *fbData = fbb.GetBufferPointer();
  size_t fbSize = fbb.GetSize();
  // Self-check: what we hand out always passes the verifier.
  flatbuffers::Verifier verifier(fbData, fbSize, 64, 1u << 30);
  if (!fb::VerifyProgramBuffer(verifier)) {
    if (err)
      *err = "internal: the written program does not pass the flatbuffers "
             "verifier";
    return false;
  }

  if (layout.segmentDataSize == 0) {
    out->assign(fbData, fbData + fbSize);
    return true;
  }
  // Splice the extended header in at byte 8 and move the root offset past it.
  uint64_t programSize = fbSize + kExtendedHeaderSize;
  base = alignUp(programSize, o.segmentAlignment);
  out->reserve(base);
  out->assign(fbData, fbData + kExtendedHeaderOffset);
  out->resize(kExtendedHeaderOffset + kExtendedHeaderSize, 0);
  out->insert(out->end(), fbData + kExtendedHeaderOffset, fbData + fbSize);
  uint32_t root32 = flatbuffers::ReadScalar<uint32_t>(fbData);
  putLE(*out, 0, root32 + kExtendedHeaderSize, 4);
  std::memcpy(out->data() + 8, kExtendedHeaderMagic, 4);
  putLE(*out, 12, kExtendedHeaderSize, 4);
  putLE(*out, 16, programSize, 8);
  putLE(*out, 24, base, 8);
  putLE(*out, 32, layout.segmentDataSize, 8);
  out->resize(base, 0);
  return true;
}
} // namespace

bool trySerializeProgram(const ProgramBuilder &b, const WriteOptions &o,
                         std::vector<uint8_t> *out, std::string *err) {
  Layout layout;
  uint64_t base = 0;
  if (!buildImage(b, o, out, layout, base, err))
    return false;
  if (layout.segmentDataSize == 0)
    return true;
  out->resize(base + layout.segmentDataSize, 0);
  for (const Layout::Piece &piece : layout.pieces)
    if (piece.size > 0)
      std::memcpy(out->data() + base + piece.at, piece.data, piece.size);
  return true;
}

bool writeProgramFile(const ProgramBuilder &b, const WriteOptions &o, const std::string &path,
                      std::string *err) {
  OutputFiles out;
  return stageProgramFile(b, o, path, out, err) && out.commit(err);
}

bool stageProgramFile(const ProgramBuilder &b, const WriteOptions &o, const std::string &path,
                      OutputFiles &out, std::string *err) {
  std::vector<uint8_t> head;
  Layout layout;
  uint64_t base = 0;
  if (!buildImage(b, o, &head, layout, base, err))
    return false;
  std::vector<FileChunk> chunks{{head.data(), head.size()}};
  uint64_t at = 0; // in the segment data
  for (const Layout::Piece &piece : layout.pieces) {
    if (piece.size == 0)
      continue;
    if (piece.at > at)
      chunks.push_back({nullptr, static_cast<size_t>(piece.at - at)});
    chunks.push_back({piece.data, piece.size});
    at = piece.at + piece.size;
  }
  if (layout.segmentDataSize > at)
    chunks.push_back({nullptr, static_cast<size_t>(layout.segmentDataSize - at)});
  return out.stage(path, chunks, err);
}

std::vector<uint8_t> serializeProgram(ProgramBuilder &b, const WriteOptions &o) {
  std::vector<uint8_t> out;
  std::string err;
  if (!trySerializeProgram(b, o, &out, &err))
    out.clear();
  return out;
}

} // namespace ptec::pte
