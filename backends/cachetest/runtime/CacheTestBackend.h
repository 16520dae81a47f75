// PtecCacheTestBackend: a test backend with a deliberately expensive context,
// cached through runtime/backend/cache. It computes y = x @ W^T + b.
//
// Blob: the context signature header (ContextBlobHeader.h) followed by the
// payload, all little-endian:
//   uint32 outFeatures N, uint32 inFeatures K, uint32 workspaceBytes,
//   uint32 reserved (0), float32 W[N*K] (row-major, [N, K]), float32 b[N].
// workspaceBytes (>= 4*N) sizes the shared workspace of the context's
// resource group, keyed by (runtime allocator, workspaceBytes).
//
// init = acquire (builds the context at most once per (signature, runtime
// allocator)); destroy = release. The context copies W, precomputes W^T and
// copies b; execute uses W^T and stages each output row in the group's
// workspace. Arguments: [x, y], x float [M, K] or [K], y float [M, N] or [N];
// or, as the ahead-of-time half (../aot) compiles linears, [x, wT, y] (mm)
// and [bias, x, wT, y] (addmm), wT [K, N], bias [N]: those weight arguments
// are only shape-checked, the context's copies are what execute reads.
// Hooks count builds, hits, releases and destructions, and inject a failure
// at any init step.
#pragma once

#include "runtime/backend/BackendInterface.h"
#include "runtime/backend/cache/ContextCache.h"
#include "runtime/backend/cache/ResourceGroup.h"

#include <atomic>
#include <cstdint>
#include <vector>

namespace ptec::cachetest {

constexpr const char *kCacheTestBackendId = "PtecCacheTestBackend";

/// The steps of a context build, in order; a hook can fail any of them.
enum class InitStep : uint8_t {
  None,     ///< no injected failure
  Parse,    ///< reading the header and payload
  Allocate, ///< joining the group and allocating the context
  Build,    ///< copying and transforming the weights
  Publish,  ///< inserting the finished context into the cache
};

struct CacheTestHooks {
  std::atomic<uint64_t> builds{0};       ///< contexts fully built
  std::atomic<uint64_t> hits{0};         ///< inits served by a cached context
  std::atomic<uint64_t> lostRaces{0};    ///< built, but another was published first
  std::atomic<uint64_t> releases{0};     ///< destroy() calls
  std::atomic<uint64_t> constructed{0};  ///< context objects created (also partial)
  std::atomic<uint64_t> destructions{0}; ///< context destructors run
  std::atomic<uint64_t> injectedFailures{0};
  std::atomic<InitStep> failAt{InitStep::None};
  /// Builds running right now, and the most ever seen at once (builds in one
  /// group are serialized, so tests on one group expect 1).
  std::atomic<int> buildsInFlight{0};
  std::atomic<int> maxBuildsInFlight{0};
  /// Stretches the build step (tests widen race windows with it).
  std::atomic<uint32_t> buildDelayMicros{0};
  void reset();
};

/// The cached context: heap copies of the weights plus a group membership.
struct CacheTestContext {
  explicit CacheTestContext(CacheTestHooks *hooks);
  ~CacheTestContext();
  CacheTestContext(const CacheTestContext &) = delete;
  CacheTestContext &operator=(const CacheTestContext &) = delete;

  CacheTestHooks *hooks;
  uint32_t outFeatures = 0;
  uint32_t inFeatures = 0;
  float *weight = nullptr;  ///< packed copy of W, [N, K]
  float *weightT = nullptr; ///< W^T, [K, N], what execute reads
  float *bias = nullptr;    ///< [N]
  rt::cache::GroupMembership group;
};

class CacheTestBackend final : public rt::Backend {
public:
  CacheTestBackend() = default;
  ~CacheTestBackend() override = default;

  rt::Result<void *> init(rt::BackendInitContext &ctx,
                          rt::ProcessedBlob processed,
                          rt::Span<const rt::CompileSpec> specs) override;
  rt::Error execute(rt::BackendExecuteContext &ctx, void *handle,
                    rt::Span<rt::EValue *> args) override;
  void destroy(void *handle) override;

  CacheTestHooks &hooks() { return hooks_; }
  /// Cache and groups, for tests and diagnostics.
  const rt::cache::ContextCache<CacheTestContext> &cache() const { return cache_; }
  const rt::cache::ResourceGroupRegistry &groups() const { return groups_; }
  /// The context behind a handle returned by init (nullptr for null).
  static const CacheTestContext *contextOf(const void *handle);

private:
  CacheTestHooks hooks_;
  // Declared before the cache: cached contexts leave their groups when the
  // cache is destroyed, so the registry must still exist then.
  rt::cache::ResourceGroupRegistry groups_;
  rt::cache::ContextCache<CacheTestContext> cache_;
};

/// Blob for (signature, W [N, K] row-major, b [N]). workspaceBytes 0 picks
/// 4*N. Returns an empty vector when the sizes do not match.
std::vector<uint8_t> makeCacheTestBlob(uint64_t signature,
                                       const std::vector<float> &weight,
                                       const std::vector<float> &bias,
                                       uint32_t inFeatures,
                                       uint32_t workspaceBytes = 0);

/// Registers one process-wide instance under kCacheTestBackendId.
/// Idempotent.
void registerCacheTestBackend();

} // namespace ptec::cachetest
