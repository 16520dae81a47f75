#include "backends/cachetest/runtime/CacheTestBackend.h"

#include "runtime/backend/cache/ContextBlobHeader.h"
#include "runtime/backend/cache/ScopeGuard.h"

#include <cstring>
#include <chrono>
#include <mutex>
#include <thread>
#include <new>

namespace ptec::cachetest {

using rt::Error;
using rt::Result;
using namespace rt::cache;

namespace {

constexpr size_t kPayloadPrefix = 16; // N, K, workspaceBytes, reserved

struct Payload {
  uint32_t outFeatures = 0;
  uint32_t inFeatures = 0;
  uint32_t workspaceBytes = 0;
  const uint8_t *weight = nullptr; // N*K floats, unaligned
  const uint8_t *bias = nullptr;   // N floats, unaligned
};

uint32_t loadU32(const uint8_t *p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

float loadF32(const uint8_t *p) {
  uint32_t bits = loadU32(p);
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

Result<Payload> parsePayload(const ContextBlobHeader &h) {
  if (h.payloadSize < kPayloadPrefix)
    return Error::InvalidArgument;
  Payload p;
  p.outFeatures = loadU32(h.payload);
  p.inFeatures = loadU32(h.payload + 4);
  p.workspaceBytes = loadU32(h.payload + 8);
  if (p.outFeatures == 0 || p.inFeatures == 0 || loadU32(h.payload + 12) != 0)
    return Error::InvalidArgument;
  // 32-bit dimensions: the products fit in 64 bits.
  uint64_t n = p.outFeatures, k = p.inFeatures;
  uint64_t floats = n * k + n;
  if (floats > (h.payloadSize - kPayloadPrefix) / 4 ||
      kPayloadPrefix + floats * 4 != h.payloadSize)
    return Error::InvalidArgument;
  if (static_cast<uint64_t>(p.workspaceBytes) < 4 * n)
    return Error::InvalidArgument;
  p.weight = h.payload + kPayloadPrefix;
  p.bias = p.weight + n * k * 4;
  return p;
}

bool inject(CacheTestHooks &hooks, InitStep step) {
  if (hooks.failAt.load() != step)
    return false;
  hooks.injectedFailures.fetch_add(1);
  return true;
}

} // namespace

void CacheTestHooks::reset() {
  builds = 0;
  hits = 0;
  lostRaces = 0;
  releases = 0;
  constructed = 0;
  destructions = 0;
  injectedFailures = 0;
  failAt = InitStep::None;
  buildsInFlight = 0;
  maxBuildsInFlight = 0;
  buildDelayMicros = 0;
}

CacheTestContext::CacheTestContext(CacheTestHooks *h) : hooks(h) {
  if (hooks)
    hooks->constructed.fetch_add(1);
}

CacheTestContext::~CacheTestContext() {
  delete[] weight;
  delete[] weightT;
  delete[] bias;
  group.reset();
  if (hooks)
    hooks->destructions.fetch_add(1);
}

const CacheTestContext *CacheTestBackend::contextOf(const void *handle) {
  if (handle == nullptr)
    return nullptr;
  return &ContextCache<CacheTestContext>::context(
      static_cast<const CacheEntry *>(handle));
}

Result<void *> CacheTestBackend::init(rt::BackendInitContext &ctx,
                                      rt::ProcessedBlob processed,
                                      rt::Span<const rt::CompileSpec> specs) {
  (void)specs;
  if (ctx.runtimeAllocator == nullptr)
    return Error::InvalidArgument;

  // Step 1: parse.
  if (inject(hooks_, InitStep::Parse))
    return Error::InvalidArgument;
  Result<ContextBlobHeader> header =
      parseContextBlobHeader(processed.data, processed.size);
  if (!header.ok())
    return header.error();
  Result<Payload> parsed = parsePayload(header.get());
  if (!parsed.ok())
    return parsed.error();
  const Payload &payload = parsed.get();
  const ContextKey key{header->signature, ctx.runtimeAllocator};

  // A hit takes a reference and allocates nothing.
  if (CacheEntry *hit = cache_.lookup(key)) {
    hooks_.hits.fetch_add(1);
    return static_cast<void *>(hit);
  }

  // Step 2: allocate. Join the group first; its init mutex serializes the
  // rest of the build among the group's members. `initRef` keeps the group
  // (and so the locked mutex) alive until this function returns, whatever
  // happens to the candidate.
  Result<GroupMembership> joined =
      groups_.join(ctx.runtimeAllocator, payload.workspaceBytes);
  if (!joined.ok())
    return joined.error();
  GroupMembership initRef = std::move(joined.get());
  std::lock_guard<std::mutex> groupInit(initRef->initMutex());

  // Another member of the group may have published this key meanwhile.
  if (CacheEntry *hit = cache_.lookup(key)) {
    hooks_.hits.fetch_add(1);
    return static_cast<void *>(hit);
  }

  CacheTestContext *context = new (std::nothrow) CacheTestContext(&hooks_);
  if (context == nullptr)
    return Error::MemoryAllocationFailed;
  // Every error return below destroys the partly built context (and with it
  // its own group membership).
  auto guard = makeScopeGuard([&] { delete context; });
  context->group = initRef.duplicate();
  const uint32_t n = payload.outFeatures, k = payload.inFeatures;
  const size_t nk = static_cast<size_t>(n) * k;
  context->outFeatures = n;
  context->inFeatures = k;
  context->weight = new (std::nothrow) float[nk];
  context->weightT = new (std::nothrow) float[nk];
  context->bias = new (std::nothrow) float[n];
  if (!context->weight || !context->weightT || !context->bias)
    return Error::MemoryAllocationFailed;
  if (inject(hooks_, InitStep::Allocate))
    return Error::MemoryAllocationFailed;

  // Step 3: build (the expensive part: copy and transpose the weights).
  const int inFlight = hooks_.buildsInFlight.fetch_add(1) + 1;
  auto buildDone = makeScopeGuard([&] { hooks_.buildsInFlight.fetch_sub(1); });
  for (int seen = hooks_.maxBuildsInFlight.load();
       inFlight > seen &&
       !hooks_.maxBuildsInFlight.compare_exchange_weak(seen, inFlight);) {
  }
  if (uint32_t us = hooks_.buildDelayMicros.load())
    std::this_thread::sleep_for(std::chrono::microseconds(us));
  if (inject(hooks_, InitStep::Build))
    return Error::Internal;
  for (size_t i = 0; i < nk; ++i)
    context->weight[i] = loadF32(payload.weight + 4 * i);
  for (uint32_t r = 0; r < n; ++r)
    for (uint32_t c = 0; c < k; ++c)
      context->weightT[static_cast<size_t>(c) * n + r] =
          context->weight[static_cast<size_t>(r) * k + c];
  for (uint32_t r = 0; r < n; ++r)
    context->bias[r] = loadF32(payload.bias + 4 * r);
  hooks_.builds.fetch_add(1);

  // Step 4: publish (try-emplace).
  if (inject(hooks_, InitStep::Publish))
    return Error::Internal;
  OwnedContext candidate = OwnedContext::adopt(context);
  guard.dismiss(); // `candidate` owns the context now
  bool won = false;
  Result<CacheEntry *> entry = cache_.publish(key, candidate, &won);
  if (!entry.ok())
    return entry.error(); // `candidate` destroys the context
  if (!won)
    hooks_.lostRaces.fetch_add(1); // `candidate` destroys our copy
  return static_cast<void *>(entry.get());
}

Error CacheTestBackend::execute(rt::BackendExecuteContext &ctx, void *handle,
                                rt::Span<rt::EValue *> args) {
  (void)ctx;
  const CacheTestContext *c = contextOf(handle);
  if (c == nullptr)
    return Error::DelegateInvalidHandle;
  // [x, y]; [x, wT, y] (mm); [bias, x, wT, y] (addmm). The weight arguments
  // are what the compiled region captured; the context's copies are used,
  // the arguments' shapes only checked.
  const size_t nargs = args.size();
  if (nargs < 2 || nargs > 4)
    return Error::InvalidArgument;
  for (size_t i = 0; i < nargs; ++i)
    if (args[i] == nullptr || !args[i]->isTensor())
      return Error::InvalidArgument;
  const size_t xIndex = nargs == 4 ? 1 : 0;
  const rt::Tensor &x = args[xIndex]->toTensor();
  rt::Tensor &y = args[nargs - 1]->toTensor();
  const int64_t n = c->outFeatures, k = c->inFeatures;
  if (x.dtype() != rt::ScalarType::Float || y.dtype() != rt::ScalarType::Float)
    return Error::InvalidArgument;
  if (nargs >= 3) {
    const rt::Tensor &wT = args[xIndex + 1]->toTensor();
    if (wT.dim() != 2 || wT.size(0) != k || wT.size(1) != n)
      return Error::InvalidArgument;
  }
  if (nargs == 4) {
    const rt::Tensor &b = args[0]->toTensor();
    if (b.dim() != 1 || b.size(0) != n)
      return Error::InvalidArgument;
  }
  if ((x.dim() != 1 && x.dim() != 2) || x.size(x.dim() - 1) != k)
    return Error::InvalidArgument;
  const int64_t m = x.dim() == 2 ? x.size(0) : 1;
  if (x.data() == nullptr || y.mutableData() == nullptr)
    return Error::InvalidArgument;
  const int64_t outSizes[2] = {m, n};
  PTEC_TRY(x.dim() == 2 ? y.resize(rt::Span<const int64_t>(outSizes, 2))
                        : y.resize(rt::Span<const int64_t>(outSizes + 1, 1)));

  const float *xs = x.dataAs<const float>();
  float *ys = y.dataAs<float>();
  ResourceGroup *group = c->group.group();
  // The workspace is shared by the group's members: one user at a time.
  std::lock_guard<std::mutex> use(group->useMutex());
  float *acc = reinterpret_cast<float *>(group->workspace());
  for (int64_t row = 0; row < m; ++row) {
    for (int64_t j = 0; j < n; ++j)
      acc[j] = c->bias[j];
    for (int64_t i = 0; i < k; ++i) {
      const float xv = xs[row * k + i];
      const float *wt = c->weightT + i * n;
      for (int64_t j = 0; j < n; ++j)
        acc[j] += xv * wt[j];
    }
    std::memcpy(ys + row * n, acc, static_cast<size_t>(n) * sizeof(float));
  }
  return Error::Ok;
}

void CacheTestBackend::destroy(void *handle) {
  if (handle == nullptr)
    return;
  hooks_.releases.fetch_add(1);
  (void)cache_.release(static_cast<CacheEntry *>(handle));
}

} // namespace ptec::cachetest
