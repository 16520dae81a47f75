#include "runtime/executor/Program.h"

#include "runtime/executor/ErrorDetail.h"
#include "serde/pte/program_generated.h"
#include "serde/pte/FlatbufferGet.h"

#include <cstddef>
#include <cstdio>
#include <cstring>

namespace ptec::rt {
namespace fb = executorch_flatbuffer;

namespace {

constexpr size_t kMinHeaderLength = 24;  // magic + length + program_size + base
constexpr size_t kFullHeaderLength = 32; // + segment_data_size (ExecuTorch >= 1.0)
constexpr size_t kHeaderOffset = 8;
// Upstream's loader always reads the first 64 bytes before anything else.
constexpr size_t kMinFileSize = 64;

uint32_t readU32(const uint8_t *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint64_t readU64(const uint8_t *p) {
  return uint64_t(readU32(p)) | uint64_t(readU32(p + 4)) << 32;
}

using OffsetVec = flatbuffers::Vector<uint64_t>;

} // namespace

Error Program::parseExtendedHeader(Span<const uint8_t> file, ExtendedHeader &out,
                                   bool &present, std::string *detail) {
  // Spec section 2.2 reader rules, in upstream's order. Files of ExecuTorch
  // < 1.0 have a 24-byte header without segment_data_size.
  present = false;
  out = ExtendedHeader();
  if (file.size() < kHeaderOffset + 8 || std::memcmp(file.data() + kHeaderOffset, "eh00", 4) != 0)
    return Error::Ok;
  present = true;
  uint32_t length = readU32(file.data() + kHeaderOffset + 4);
  out.length = length;
  if (length < kMinHeaderLength)
    return failWith(detail, Error::InvalidProgram,
                    "extended header: length %u is below the minimum of %zu", length,
                    kMinHeaderLength);
  if (file.size() < kHeaderOffset + kMinHeaderLength)
    return failWith(detail, Error::InvalidProgram,
                    "extended header: file has %zu bytes, header needs %zu", file.size(),
                    kHeaderOffset + kMinHeaderLength);
  const uint8_t *h = file.data() + kHeaderOffset;
  out.programSize = readU64(h + 8);
  out.segmentBaseOffset = readU64(h + 16);
  out.segmentDataSize = 0; // unknown for a 24-byte header
  if (length >= kFullHeaderLength) {
    if (file.size() < kHeaderOffset + kFullHeaderLength)
      return failWith(detail, Error::InvalidProgram,
                      "extended header: file has %zu bytes, header needs %zu", file.size(),
                      kHeaderOffset + kFullHeaderLength);
    out.segmentDataSize = readU64(h + 24);
  }
  const uint64_t fileSize = file.size();
  // The file-size check runs only when segment_data_size is known (> 0) or
  // the header claims no segments at all; a 24-byte header with segments is
  // bounded segment by segment when each is read.
  if (out.segmentDataSize > 0 || out.segmentBaseOffset == 0) {
    if (out.segmentDataSize > UINT64_MAX - out.segmentBaseOffset)
      return failWith(detail, Error::InvalidProgram,
                      "extended header: segment_base_offset %llu + segment_data_size %llu "
                      "overflows",
                      (unsigned long long)out.segmentBaseOffset,
                      (unsigned long long)out.segmentDataSize);
    uint64_t expected = out.segmentBaseOffset == 0 ? out.programSize
                                                   : out.segmentBaseOffset + out.segmentDataSize;
    if (expected > fileSize)
      return failWith(detail, Error::InvalidProgram,
                      "extended header: the file should have at least %llu bytes "
                      "(segment_base_offset %llu + segment_data_size %llu, or program_size "
                      "%llu) but has %llu: segments run past the end of the file",
                      (unsigned long long)expected, (unsigned long long)out.segmentBaseOffset,
                      (unsigned long long)out.segmentDataSize,
                      (unsigned long long)out.programSize, (unsigned long long)fileSize);
  }
  // Loading [0, program_size) needs that many bytes, at least the 8 of the
  // root offset and identifier.
  if (out.programSize < 8 || out.programSize > fileSize)
    return failWith(detail, Error::InvalidProgram,
                    "extended header: program_size %llu outside the file (%llu bytes)",
                    (unsigned long long)out.programSize, (unsigned long long)fileSize);
  return Error::Ok;
}

Result<std::unique_ptr<Program>> Program::load(const DataLoader &loader,
                                               Verification verification,
                                               std::string *detail) {
  Span<const uint8_t> file(loader.data(), loader.size());
  if (file.size() < kMinFileSize)
    return failWith(detail, Error::InvalidProgram,
                    "file is %zu bytes; a .pte program has at least %zu (the loader reads the "
                    "first %zu)",
                    file.size(), kMinFileSize, kMinFileSize);

  std::unique_ptr<Program> p(new Program());
  p->loader_ = &loader;
  PTEC_TRY(parseExtendedHeader(file, p->header_, p->hasHeader_, detail));
  uint64_t programSize = p->hasHeader_ ? p->header_.programSize : file.size();
  p->programBytes_ = Span<const uint8_t>(file.data(), static_cast<size_t>(programSize));

  if (reinterpret_cast<uintptr_t>(file.data()) % alignof(std::max_align_t) != 0)
    return failWith(detail, Error::InvalidArgument,
                    "program buffer is not aligned to %zu bytes", alignof(std::max_align_t));
  const uint8_t *buf = p->programBytes_.data();
  if (std::memcmp(buf + 4, fb::ProgramIdentifier(), 4) != 0) {
    char id[5] = {};
    for (int i = 0; i < 4; ++i) {
      char c = static_cast<char>(buf[4 + i]);
      id[i] = (c >= 32 && c < 127) ? c : '?';
    }
    if (buf[4] == 'E' && buf[5] == 'T')
      return failWith(detail, Error::InvalidProgram,
                      "file identifier '%s': incompatible program version (expected 'ET12')", id);
    return failWith(detail, Error::InvalidProgram,
                    "file identifier '%s' is not 'ET12': not a .pte program", id);
  }
  uint32_t root = readU32(buf);
  if (programSize < 12 || root < 8 || root > programSize - 4)
    return failWith(detail, Error::InvalidProgram,
                    "root table offset %u outside the program buffer (%llu bytes)", root,
                    (unsigned long long)programSize);
  if (verification == Verification::Full) {
    if (programSize > FLATBUFFERS_MAX_BUFFER_SIZE)
      return failWith(detail, Error::InvalidProgram, "program buffer too large to verify");
    flatbuffers::Verifier::Options opts;
    opts.max_tables = 1u << 28;
    opts.max_depth = 64;
    flatbuffers::Verifier v(buf, static_cast<size_t>(programSize), opts);
    if (!fb::VerifyProgramBuffer(v))
      return failWith(detail, Error::InvalidProgram,
                      "flatbuffer verification failed: the program table is malformed "
                      "(offset or vector out of bounds)");
  }
  p->flat_ = fb::GetProgram(buf);
  if (p->flat_->execution_plan() == nullptr)
    return failWith(detail, Error::InvalidProgram, "program: execution_plan is missing");
  PTEC_TRY(p->loadSegments(detail));
  return p;
}

Error Program::loadSegments(std::string *detail) {
  const auto *segs = flat_->segments();
  size_t n = segs ? segs->size() : 0;
  segments_.assign(n, Span<const uint8_t>());
  segmentProblems_.assign(n, std::string());
  const uint64_t fileSize = loader_->size();
  for (size_t i = 0; i < n; ++i) {
    const fb::DataSegment *s = segs->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (s == nullptr)
      return failWith(detail, Error::InvalidProgram, "segments[%zu] is null", i);
    uint64_t off = s->offset(), size = s->size();
    if (size == 0)
      continue;
    // Like upstream, a segment is only an error when something reads it (the
    // constant segment below, delegates and mutable data at method load).
    char buf[256];
    if (!hasHeader_ || header_.segmentBaseOffset == 0) {
      std::snprintf(buf, sizeof buf,
                    "segments[%zu] has %llu bytes but the file has no segment data "
                    "(no extended header or segment_base_offset 0)",
                    i, (unsigned long long)size);
      segmentProblems_[i] = buf;
      continue;
    }
    // Segments are read from the file: a 24-byte header has no
    // segment_data_size, so the file's end is the bound.
    uint64_t base = header_.segmentBaseOffset;
    if (off > UINT64_MAX - base || size > UINT64_MAX - base - off ||
        base + off + size > fileSize) {
      std::snprintf(buf, sizeof buf,
                    "segments[%zu] [%llu, +%llu) at segment_base_offset %llu runs past the end "
                    "of the file (%llu bytes)",
                    i, (unsigned long long)off, (unsigned long long)size,
                    (unsigned long long)base, (unsigned long long)fileSize);
      segmentProblems_[i] = buf;
      continue;
    }
    auto view = loader_->load(base + off, size);
    if (!view.ok()) {
      std::snprintf(buf, sizeof buf, "segments[%zu] cannot be read", i);
      segmentProblems_[i] = buf;
      continue;
    }
    segments_[i] = view.get();
  }

  // Constant segment (offsets[0] is the empty placeholder).
  const fb::SubsegmentOffsets *cs = flat_->constant_segment();
  if (cs != nullptr && cs->offsets() != nullptr && cs->offsets()->size() > 0) {
    if (cs->offsets()->size() > 1) {
      if (flat_->constant_buffer() != nullptr && flat_->constant_buffer()->size() > 0)
        return failWith(detail, Error::InvalidProgram,
                        "constant_segment and the deprecated constant_buffer are both set");
      if (cs->segment_index() >= n)
        return failWith(detail, Error::InvalidProgram,
                        "constant_segment.segment_index %u out of range (%zu segments)",
                        cs->segment_index(), n);
      if (!segmentProblems_[cs->segment_index()].empty())
        return failWith(detail, Error::InvalidProgram, "constant segment: %s",
                        segmentProblems_[cs->segment_index()].c_str());
      constantSegment_ = segments_[cs->segment_index()];
    }
    constantOffsets_ = cs->offsets();
  }

  const auto *ms = flat_->mutable_data_segments();
  if (ms != nullptr && ms->size() > 0) {
    const fb::SubsegmentOffsets *m = ms->Get(0);
    if (m == nullptr || m->offsets() == nullptr)
      return failWith(detail, Error::InvalidProgram, "mutable_data_segments[0].offsets is missing");
    if (m->segment_index() >= n)
      return failWith(detail, Error::InvalidProgram,
                      "mutable_data_segments[0].segment_index %u out of range (%zu segments)",
                      m->segment_index(), n);
    hasMutableSegment_ = true;
    mutableSegmentIndex_ = m->segment_index();
    mutableSegment_ = segments_[m->segment_index()];
    mutableOffsets_ = m->offsets();
  }

  if (const auto *nd = flat_->named_data()) {
    for (flatbuffers::uoffset_t i = 0; i < nd->size(); ++i) {
      const fb::NamedData *d = nd->Get(i);
      if (d == nullptr || d->key() == nullptr)
        return failWith(detail, Error::InvalidProgram, "named_data[%u].key is missing", i);
      if (d->segment_index() >= n)
        return failWith(detail, Error::InvalidProgram,
                        "named_data[%u] '%s': segment_index %u out of range (%zu segments)", i,
                        d->key()->c_str(), d->segment_index(), n);
    }
  }
  return Error::Ok;
}

size_t Program::numMethods() const { return flat_->execution_plan()->size(); }

std::vector<std::string> Program::methodNames() const {
  std::vector<std::string> names;
  for (const fb::ExecutionPlan *p : *flat_->execution_plan())
    if (p != nullptr && p->name() != nullptr)
      names.emplace_back(p->name()->c_str(), p->name()->size());
  return names;
}

Result<const fb::ExecutionPlan *> Program::plan(const char *name) const {
  if (name == nullptr)
    return Error::InvalidArgument;
  for (const fb::ExecutionPlan *p : *flat_->execution_plan())
    if (p != nullptr && p->name() != nullptr && std::strcmp(p->name()->c_str(), name) == 0)
      return p;
  return Error::NotFound;
}

Result<Span<const uint8_t>> Program::segment(size_t index, std::string *detail) const {
  if (index >= segments_.size())
    return failWith(detail, Error::NotFound, "segment %zu out of range (%zu segments)", index,
                    segments_.size());
  if (!segmentProblems_[index].empty())
    return failWith(detail, Error::InvalidProgram, "%s", segmentProblems_[index].c_str());
  return segments_[index];
}

Result<const uint8_t *> Program::constantData(uint32_t idx, size_t nbytes,
                                              std::string *detail) const {
  const auto *offsets = static_cast<const OffsetVec *>(constantOffsets_);
  if (offsets == nullptr) {
    // Deprecated inline constant_buffer path (upstream files of old writers).
    const auto *cb = flat_->constant_buffer();
    if (cb == nullptr || idx >= cb->size())
      return failWith(detail, Error::InvalidProgram,
                      "data_buffer_idx %u out of range (no constant segment, %u inline buffers)",
                      idx, cb ? cb->size() : 0u);
    const fb::Buffer *b = cb->Get(idx);
    if (b == nullptr || b->storage() == nullptr || b->storage()->size() < nbytes)
      return failWith(detail, Error::InvalidProgram,
                      "constant_buffer[%u] holds fewer than the tensor's %zu bytes", idx, nbytes);
    return b->storage()->data();
  }
  if (idx >= offsets->size())
    return failWith(detail, Error::InvalidProgram,
                    "data_buffer_idx %u out of range (constant_segment has %u offsets)", idx,
                    offsets->size());
  uint64_t off = pte::get8(offsets, idx);
  if (off > constantSegment_.size() || nbytes > constantSegment_.size() - off)
    return failWith(detail, Error::InvalidProgram,
                    "constant %u: [%llu, +%zu) runs past the constant segment (%zu bytes)", idx,
                    (unsigned long long)off, nbytes, constantSegment_.size());
  return constantSegment_.data() + off;
}

Result<const uint8_t *> Program::mutableData(uint32_t idx, size_t nbytes,
                                             std::string *detail) const {
  if (!hasMutableSegment_)
    return failWith(detail, Error::InvalidProgram,
                    "planned tensor has data_buffer_idx %u but the program has no "
                    "mutable_data_segments",
                    idx);
  if (!segmentProblems_[mutableSegmentIndex_].empty())
    return failWith(detail, Error::InvalidProgram, "mutable data segment: %s",
                    segmentProblems_[mutableSegmentIndex_].c_str());
  const auto *offsets = static_cast<const OffsetVec *>(mutableOffsets_);
  if (idx >= offsets->size())
    return failWith(detail, Error::InvalidProgram,
                    "data_buffer_idx %u out of range (mutable data segment has %u offsets)", idx,
                    offsets->size());
  uint64_t off = pte::get8(offsets, idx);
  if (off > mutableSegment_.size() || nbytes > mutableSegment_.size() - off)
    return failWith(detail, Error::InvalidProgram,
                    "mutable data %u: [%llu, +%zu) runs past the mutable segment (%zu bytes)",
                    idx, (unsigned long long)off, nbytes, mutableSegment_.size());
  return mutableSegment_.data() + off;
}

Result<ProcessedBlob> Program::delegateData(const fb::BackendDelegateDataReference *ref,
                                            std::string *detail) const {
  if (ref == nullptr)
    return failWith(detail, Error::InvalidProgram, "processed is missing");
  ProcessedBlob blob;
  switch (ref->location()) {
  case fb::DataLocation::INLINE: {
    const auto *inl = flat_->backend_delegate_data();
    uint32_t n = inl ? inl->size() : 0;
    if (ref->index() >= n)
      return failWith(detail, Error::InvalidProgram,
                      "processed INLINE index %u out of range (%u inline blobs)", ref->index(), n);
    const fb::BackendDelegateInlineData *d = inl->Get(ref->index());
    if (d == nullptr || d->data() == nullptr)
      return failWith(detail, Error::InvalidProgram, "backend_delegate_data[%u].data is missing",
                      ref->index());
    blob.data = d->data()->data();
    blob.size = d->data()->size();
    return blob;
  }
  case fb::DataLocation::SEGMENT: {
    if (ref->index() >= segments_.size())
      return failWith(detail, Error::InvalidProgram,
                      "processed SEGMENT index %u out of range (%zu segments)", ref->index(),
                      segments_.size());
    if (!segmentProblems_[ref->index()].empty())
      return failWith(detail, Error::InvalidProgram, "processed: %s",
                      segmentProblems_[ref->index()].c_str());
    blob.data = segments_[ref->index()].data();
    blob.size = segments_[ref->index()].size();
    return blob;
  }
  }
  return failWith(detail, Error::InvalidProgram, "processed.location %d is not INLINE or SEGMENT",
                  static_cast<int>(ref->location()));
}

Result<Span<const uint8_t>> Program::namedData(const char *key) const {
  const auto *nd = flat_->named_data();
  if (key == nullptr)
    return Error::NotFound;
  if (nd == nullptr)
    return external_ ? external_->get(key) : Result<Span<const uint8_t>>(Error::NotFound);
  for (const fb::NamedData *d : *nd)
    if (d != nullptr && d->key() != nullptr && std::strcmp(d->key()->c_str(), key) == 0) {
      if (!segmentProblems_[d->segment_index()].empty())
        return Error::InvalidProgram;
      return segments_[d->segment_index()];
    }
  return external_ ? external_->get(key) : Result<Span<const uint8_t>>(Error::NotFound);
}

} // namespace ptec::rt
