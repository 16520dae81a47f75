//===- XnnpackBackend.h - the runtime half of XnnpackBackend ----*- C++ -*-===//
//
// Runs ExecuTorch XNNPACK delegate blobs (../format/XnnFormat.h) on the
// XNNPACK library installed on the machine (Debian 12: a 2022 snapshot).
//
// Why the operator API and not XNNPACK's subgraph API: the 2022 subgraph
// runtime fixes every shape when it is created, owns its intermediate
// buffers and has no weights cache, so `prefill` and `decode` (same weights,
// different batch) would each pack every weight, and the workspace could not
// come from compiler-planned scratch. The operator API packs weights when an
// operator is created and takes batch and spatial sizes at setup, so:
//   - init   checks the graph, plans the workspace, creates one XNNPACK
//            operator per node (packing weights: the expensive part) and
//            resolves constants (blob constant data or the program's named
//            data);
//   - execute binds the call's own tensors, stages inputs that XNNPACK
//            reads (it may read 16 bytes past an input), sets every
//            operator up with this call's pointers and runs it;
//   - destroy frees the handle and releases its packed weights.
// Node kinds the 2022 library lacks run as our own steps inside the same
// delegate: StaticTranspose (NCHW <-> NHWC), StaticReshape and Copy as copy
// loops, and concatenate, slice, batch matmul, attention, tanh, gelu, exp,
// log, sin, cos and rsqrt as the loops of XnnOwnKernels.h. Which kind runs
// where is one table, ../format/XnnCapability.h, that the ahead-of-time
// partitioner asks too; kinds it marks unsupported fail init, naming the
// node. A 0-d value is computed as [1]. float16 values are computed in
// float32 and rounded to float16 after each node (ValueInfo::half in
// ../format/XnnFormat.h); int8 nodes are XnnQuantized.h's steps.
//
// Dynamic shapes: upstream writes the upper bound of dynamic dims. A call
// whose inputs are smaller (same rank, no dim above the bound) carries its
// sizes through the graph (XnnShapes.h), re-sets every step's setup sizes
// (int8 steps too: XnnQuantizedShapes.cpp) and resizes the outputs; the workspace, planned at the bound, stays big
// enough. execute's errors say why through BackendExecuteContext's message.
//
// Packed weights are contexts of the cache in runtime/backend/cache: each
// convolution / fully-connected operator is keyed by a hash of its kind,
// parameters and weight bytes, plus the runtime allocator of the loading
// program. Methods of one program that use the same weights (prefill and
// decode) share one packed copy; two programs loaded from identical bytes
// do not. A shared operator is set up and run under its own mutex.
//
// The handle keeps no per-call state but the current shapes: execute reads
// every argument on each call, writes only its outputs, and uses the workspace (the delegate's
// planned scratch when the program declares it, else a buffer the handle
// owns) under the handle's mutex, so calls never share it concurrently.
// The compiler may therefore share one handle across call sites.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/backend/BackendInterface.h"
#include "runtime/backend/cache/ContextCache.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

struct pthreadpool;

namespace ptec::xnnpack {

constexpr const char *kXnnpackBackendId = "XnnpackBackend";

/// The largest thread count setThreads, PTEC_XNNPACK_THREADS and pte-run's
/// --xnnpack-threads take.
constexpr size_t kMaxXnnpackThreads = 1024;

/// A thread count as PTEC_XNNPACK_THREADS gives it: decimal digits only,
/// 0..kMaxXnnpackThreads (0: one per core); false with the reason in `why`
/// otherwise (signs, spaces, fractions, NaN and overflow included).
bool parseThreadCount(const char *text, size_t *threads, std::string *why);

/// Counters for tests and benchmarks.
struct XnnpackStats {
  std::atomic<uint64_t> inits{0};        ///< successful init() calls
  std::atomic<uint64_t> packs{0};        ///< weight-bearing operators created (packing)
  std::atomic<uint64_t> cacheHits{0};    ///< packed operators found in the cache
  std::atomic<uint64_t> lostRaces{0};    ///< packed, but another init published first
  std::atomic<uint64_t> packedLive{0};   ///< packed operators alive now
  std::atomic<uint64_t> weightBytesPacked{0}; ///< weight bytes packed so far
  std::atomic<uint64_t> handlesLive{0};  ///< handles alive now
  std::atomic<uint64_t> executes{0};
  void reset();
};

/// A packed, weight-bearing XNNPACK operator; the context the cache holds.
struct PackedOperator;

class XnnpackBackend final : public rt::Backend {
public:
  XnnpackBackend();
  ~XnnpackBackend() override;
  XnnpackBackend(const XnnpackBackend &) = delete;
  XnnpackBackend &operator=(const XnnpackBackend &) = delete;

  /// False when XNNPACK cannot initialize on this CPU.
  bool isAvailable() const override;
  rt::Result<void *> init(rt::BackendInitContext &ctx, rt::ProcessedBlob processed,
                          rt::Span<const rt::CompileSpec> specs) override;
  rt::Error execute(rt::BackendExecuteContext &ctx, void *handle,
                    rt::Span<rt::EValue *> args) override;
  void destroy(void *handle) override;

  /// Threads of the pool XNNPACK runs on: 1 by default (a shared or
  /// loaded machine pays dearly for workers it cannot schedule;
  /// docs/xnnpack-backend.md, "Threads"), 0 means one per core. Takes
  /// effect for inits after the call; InvalidState while any handle is
  /// alive (they hold the current pool); InvalidArgument above
  /// kMaxXnnpackThreads. A successful call clears a configuration error.
  static constexpr size_t kDefaultThreads = 1;
  rt::Error setThreads(size_t threads);
  /// A configuration the backend was given and could not take (a bad
  /// PTEC_XNNPACK_THREADS): every init then fails with this message, so a
  /// program never runs with a setting other than the one asked for.
  void setConfigError(std::string why);
  /// The pool's thread count (what 0 resolves to, before the pool exists).
  size_t threads() const;
  /// Packed-weight sharing through the context cache (default on). Off:
  /// every handle packs its own weights (the baseline benchmarks compare
  /// against). InvalidState while any handle is alive.
  rt::Error setWeightCache(bool enabled);
  bool weightCache() const { return cacheEnabled_; }

  XnnpackStats &stats() { return stats_; }
  const rt::cache::ContextCache<PackedOperator> &cache() const { return cache_; }
  /// Bytes of workspace a handle uses, and whether it is planned scratch.
  static uint64_t workspaceBytes(const void *handle);
  static bool usesPlannedScratch(const void *handle);

  // For the handle's implementation (XnnDelegate.cpp).
  pthreadpool *pool() const { return pool_; }
  rt::cache::ContextCache<PackedOperator> &packedCache() { return cache_; }

private:
  rt::Error ensurePool();

  mutable std::mutex configMutex_;
  size_t threads_ = kDefaultThreads;
  std::string configError_;
  bool cacheEnabled_ = true;
  pthreadpool *pool_ = nullptr;
  XnnpackStats stats_;
  rt::cache::ContextCache<PackedOperator> cache_;
};

/// Registers one process-wide instance under kXnnpackBackendId. Idempotent.
/// PTEC_XNNPACK_THREADS, when set, sizes its pool (parseThreadCount: 0..1024,
/// 0 one per core; anything else makes every init fail, naming the
/// variable); PTEC_XNNPACK_WEIGHT_CACHE=0 turns packed-weight sharing off.
void registerXnnpackBackend();
/// The registered instance (registers it first when needed).
XnnpackBackend &xnnpackBackend();

} // namespace ptec::xnnpack
