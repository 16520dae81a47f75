// Loading a plan's delegates: every entry (blob, compile specs, scratch
// memory, backend) is validated first, then each backend is initialised once,
// so a bad entry fails before any backend's init() runs.
#include "runtime/executor/MethodLoader.h"

namespace ptec::rt {

namespace {
/// The program's named data as backends see it at init.
class ProgramNamedData final : public NamedDataMap {
public:
  explicit ProgramNamedData(const Program &p) : program_(p) {}
  Result<Span<const uint8_t>> get(const char *key) const override {
    return program_.namedData(key);
  }

private:
  const Program &program_;
};
} // namespace

Error Method::Loader::loadDelegates() {
  const auto *dels = plan_.delegates();
  const size_t n = dels->size();
  m_.delegates_ = alloc<Delegate>(n);
  if (m_.delegates_ == nullptr)
    return outOfMemory("delegates");
  m_.numDelegates_ = n;

  struct Prepared {
    ProcessedBlob blob;
    Span<const CompileSpec> specs;
    Span<const Span<uint8_t>> scratch;
  };
  std::vector<Prepared> prepared(n);
  std::string sub;
  // First validate every entry, so a bad entry fails before any init() runs.
  for (size_t d = 0; d < n; ++d) {
    const fb::BackendDelegate *bd = dels->Get(static_cast<flatbuffers::uoffset_t>(d));
    if (bd == nullptr)
      return fail(Error::InvalidProgram, "delegate %zu is null", d);
    if (bd->id() == nullptr)
      return fail(Error::InvalidProgram, "delegate %zu: id is missing", d);
    const char *id = bd->id()->c_str();
    auto blob = m_.program_->delegateData(bd->processed(), &sub);
    if (!blob.ok())
      return fail(blob.error(), "delegate %zu (%s): %s", d, id, sub.c_str());
    prepared[d].blob = blob.get();

    const auto *specs = bd->compile_specs();
    size_t ns = specs ? specs->size() : 0;
    CompileSpec *cs = alloc<CompileSpec>(ns);
    if (cs == nullptr)
      return outOfMemory("compile specs");
    for (size_t k = 0; k < ns; ++k) {
      const fb::CompileSpec *s = specs->Get(static_cast<flatbuffers::uoffset_t>(k));
      if (s == nullptr || s->key() == nullptr || s->value() == nullptr)
        return fail(Error::InvalidProgram, "delegate %zu (%s): compile_specs[%zu] key or value "
                    "is missing", d, id, k);
      cs[k] = CompileSpec{s->key()->c_str(), s->value()->data(), s->value()->size()};
    }
    prepared[d].specs = Span<const CompileSpec>(cs, ns);

    const auto *scratch = bd->scratch();
    size_t nscr = scratch ? scratch->size() : 0;
    Span<uint8_t> *spans = alloc<Span<uint8_t>>(nscr);
    if (spans == nullptr)
      return outOfMemory("scratch");
    for (size_t k = 0; k < nscr; ++k) {
      const fb::DelegateScratch *s = scratch->Get(static_cast<flatbuffers::uoffset_t>(k));
      if (s == nullptr || s->allocation() == nullptr)
        return fail(Error::InvalidProgram, "delegate %zu (%s): scratch[%zu].allocation is missing",
                    d, id, k);
      uint32_t memId = s->allocation()->memory_id();
      if (memId == 0 || memId - 1 >= arenaSizes_.size())
        return fail(Error::InvalidProgram,
                    "delegate %zu (%s): scratch[%zu] memory_id %u out of range (%zu planned "
                    "arenas; id 0 is reserved)",
                    d, id, k, memId, arenaSizes_.size());
      uint64_t off = (uint64_t(s->allocation()->memory_offset_high()) << 32) |
                     s->allocation()->memory_offset_low();
      uint64_t size = s->size(), arenaSize = arenaSizes_[memId - 1];
      if (off > arenaSize || size > arenaSize - off)
        return fail(Error::InvalidProgram,
                    "delegate %zu (%s): scratch[%zu] offset %llu + %llu bytes runs past arena %u "
                    "(%llu bytes)",
                    d, id, k, (unsigned long long)off, (unsigned long long)size, memId,
                    (unsigned long long)arenaSize);
      uint8_t *base = m_.memory_->plannedBuffers()[memId - 1].data() + off;
      uint32_t align = s->alignment();
      if (align != 0 && ((align & (align - 1)) != 0 ||
                         reinterpret_cast<uintptr_t>(base) % align != 0))
        return fail(Error::InvalidProgram,
                    "delegate %zu (%s): scratch[%zu] alignment %u is not a power of two that "
                    "the planned offset satisfies",
                    d, id, k, align);
      spans[k] = Span<uint8_t>(base, static_cast<size_t>(size));
    }
    prepared[d].scratch = Span<const Span<uint8_t>>(spans, nscr);

    Backend *backend = findBackend(id);
    if (backend == nullptr)
      return fail(Error::NotFound, "delegate %zu: backend '%s' is not registered", d, id);
    if (!backend->isAvailable())
      return fail(Error::NotFound, "delegate %zu: backend '%s' is not available", d, id);
    m_.delegates_[d].id = id;
    m_.delegates_[d].backend = backend;
  }

  // Then init once per entry; on failure the ones already initialised are
  // destroyed (destroyDelegates).
  const ProgramNamedData namedData(*m_.program_);
  for (size_t d = 0; d < n; ++d) {
    Delegate &del = m_.delegates_[d];
    BackendInitContext ctx;
    ctx.runtimeAllocator = m_.memory_->runtimeAllocator();
    ctx.methodName = m_.name_;
    ctx.scratchBuffers = prepared[d].scratch;
    if (!prepared[d].scratch.empty())
      ctx.scratch = prepared[d].scratch[0];
    ctx.namedData = &namedData;
    char why[512] = "";
    ctx.errorMessage = why;
    ctx.errorMessageSize = sizeof why;
    Result<void *> h = del.backend->init(ctx, prepared[d].blob, prepared[d].specs);
    if (!h.ok()) {
      Error e = h.error();
      m_.destroyDelegates();
      why[sizeof why - 1] = '\0';
      return fail(e, "delegate %zu: backend '%s' init failed (%s)%s%s", d, del.id, toString(e),
                  why[0] ? ": " : "", why);
    }
    del.handle = h.get();
    del.initialized = true;
    recordBackendInit(del.id);
  }
  return Error::Ok;
}

} // namespace ptec::rt
