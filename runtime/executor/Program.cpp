#include "runtime/executor/Program.h"

#include "runtime/executor/ErrorDetail.h"
#include "runtime/executor/FlatTensorData.h"
#include "runtime/executor/PteContainer.h"
#include "serde/pte/program_generated.h"
#include "serde/pte/FlatbufferGet.h"

#include <cstddef>
#include <cstdio>
#include <cstring>

namespace ptec::rt {
namespace fb = executorch_flatbuffer;

namespace {

using OffsetVec = flatbuffers::Vector<uint64_t>;

/// How error messages name a segment's parts.
struct SegmentWords {
  const char *offsets; // the table of offsets ("constant_segment")
  const char *item;    // one entry ("constant")
  const char *segment; // the bytes ("constant segment")
};

/// The `nbytes` bytes at entry `idx` of `offsets` into `segment`, checked.
Result<const uint8_t *> sliceAt(Span<const uint8_t> segment, const OffsetVec *offsets,
                                uint32_t idx, size_t nbytes, const SegmentWords &words,
                                std::string *detail) {
  if (idx >= offsets->size())
    return failWith(detail, Error::InvalidProgram,
                    "data_buffer_idx %u out of range (%s has %u offsets)", idx, words.offsets,
                    offsets->size());
  uint64_t off = pte::get8(offsets, idx);
  if (off > segment.size() || nbytes > segment.size() - off)
    return failWith(detail, Error::InvalidProgram,
                    "%s %u: [%llu, +%zu) runs past the %s (%zu bytes)", words.item, idx,
                    (unsigned long long)off, nbytes, words.segment, segment.size());
  return segment.data() + off;
}

} // namespace

Error Program::checkFile(Span<const uint8_t> file, ContainerInfo &info, std::string *detail) {
  // The rules pte-inspect applies (one implementation): whatever it calls an
  // error of the container the loader refuses, before reading a byte of it.
  std::vector<ContainerFinding> findings;
  checkContainer(file.data(), file.size(), info, findings);
  if (const ContainerFinding *f = firstRefusal(findings))
    return failWith(detail, Error::InvalidProgram, "%s", f->message.c_str());
  return Error::Ok;
}

Result<std::unique_ptr<Program>> Program::load(const DataLoader &loader,
                                               Verification verification,
                                               std::string *detail) {
  Span<const uint8_t> file(loader.data(), loader.size());
  std::unique_ptr<Program> p(new Program());
  p->loader_ = &loader;
  PTEC_TRY(checkFile(file, p->container_, detail));
  p->hasHeader_ = p->container_.hasHeader;
  if (p->hasHeader_) {
    p->header_.length = p->container_.headerLength;
    p->header_.programSize = p->container_.programSize;
    p->header_.segmentBaseOffset = p->container_.segmentBaseOffset;
    p->header_.segmentDataSize = p->container_.segmentDataSize;
  }
  uint64_t programSize = p->container_.programSize;
  p->programBytes_ = Span<const uint8_t>(file.data(), static_cast<size_t>(programSize));

  if (reinterpret_cast<uintptr_t>(file.data()) % alignof(std::max_align_t) != 0)
    return failWith(detail, Error::InvalidArgument,
                    "program buffer is not aligned to %zu bytes", alignof(std::max_align_t));
  const uint8_t *buf = p->programBytes_.data();
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
  for (size_t i = 0; i < n; ++i) {
    const fb::DataSegment *s = segs->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (s == nullptr)
      return failWith(detail, Error::InvalidProgram, "segments[%zu] is null", i);
    uint64_t off = s->offset(), size = s->size();
    if (size == 0)
      continue;
    // Like upstream, a segment is only an error when something reads it (the
    // constant segment below, delegates and mutable data at method load).
    std::string why = segmentProblem(container_, i, off, size);
    if (!why.empty()) {
      segmentProblems_[i] = why;
      continue;
    }
    const uint64_t base = container_.segmentBaseOffset;
    auto view = loader_->load(base + off, size);
    if (!view.ok()) {
      segmentProblems_[i] = "segments[" + std::to_string(i) + "] cannot be read";
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
  return sliceAt(constantSegment_, offsets, idx, nbytes,
                 {"constant_segment", "constant", "constant segment"}, detail);
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
  return sliceAt(mutableSegment_, offsets, idx, nbytes,
                 {"mutable data segment", "mutable data", "mutable segment"}, detail);
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

std::string Program::externalLayoutProblem(const char *key, const fb::Tensor &t) const {
  if (external_ == nullptr || key == nullptr)
    return "";
  // namedData() serves the program's own named_data first: no layout there.
  if (const auto *nd = flat_->named_data())
    for (const fb::NamedData *d : *nd)
      if (d != nullptr && d->key() != nullptr && std::strcmp(d->key()->c_str(), key) == 0)
        return "";
  auto stored = external_->layout(key);
  if (!stored.ok())
    return "";
  return FlatTensorData::layoutMismatch(key, stored.get(), FlatTensorData::programLayout(t));
}

} // namespace ptec::rt
