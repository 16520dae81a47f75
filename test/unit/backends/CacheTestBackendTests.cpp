// PtecCacheTestBackend through the Backend interface: MemoryAllocator
// instances stand in for the runtime allocators of loaded programs; init is
// acquire and destroy is release (part B of the upstream-behaviours brief).
#include "backends/cachetest/runtime/CacheTestBackend.h"
#include "runtime/backend/cache/ContextBlobHeader.h"
#include "test/unit/backends/TestSupport.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <thread>
#include <vector>

using namespace ptec;
using cachetest::CacheTestBackend;
using cachetest::InitStep;
using rt::Error;

namespace {

constexpr uint32_t kIn = 3, kOut = 2;
const std::vector<float> kW = {1, 2, 3, -1, 0.5f, 4}; // [2, 3]
const std::vector<float> kB = {0.25f, -2};

/// A loaded program's memory: its runtime allocator over a heap buffer that
/// "unloading" poisons and frees (ASan turns any later use into a report).
struct Program {
  static constexpr size_t kBytes = 1 << 16;
  std::unique_ptr<uint8_t[]> memory{new uint8_t[kBytes]};
  rt::MemoryAllocator allocator{memory.get(), kBytes};

  void unload() {
    std::memset(memory.get(), 0xFF, kBytes); // NaNs for anyone still reading
    memory.reset();
  }
  bool owns(const void *p) const {
    auto *b = static_cast<const uint8_t *>(p);
    return memory && b >= memory.get() && b < memory.get() + kBytes;
  }
};

rt::Result<void *> load(CacheTestBackend &backend, Program &program,
                        const std::vector<uint8_t> &blob) {
  rt::BackendInitContext ctx;
  ctx.runtimeAllocator = &program.allocator;
  ctx.methodName = "forward";
  return backend.init(ctx, {blob.data(), blob.size()}, {});
}

/// load's handle; the test stops when the load fails.
void *loaded(CacheTestBackend &backend, Program &program, const std::vector<uint8_t> &blob) {
  auto h = load(backend, program, blob);
  REQUIRE(h.ok());
  return h.get();
}

/// load's handle, or null when the load failed (no assertion: for threads).
void *tryLoad(CacheTestBackend &backend, Program &program, const std::vector<uint8_t> &blob) {
  auto h = load(backend, program, blob);
  return h.ok() ? h.get() : nullptr;
}

std::vector<float> reference(const std::vector<float> &x, const std::vector<float> &w,
                             const std::vector<float> &b, uint32_t in) {
  const size_t n = b.size(), m = x.size() / in;
  std::vector<float> y(m * n);
  for (size_t r = 0; r < m; ++r)
    for (size_t j = 0; j < n; ++j) {
      float acc = b[j];
      for (size_t i = 0; i < in; ++i)
        acc += x[r * in + i] * w[j * in + i];
      y[r * n + j] = acc;
    }
  return y;
}

/// Runs y = x @ W^T + b for x of shape [rows, in]; returns y or fails.
std::vector<float> run(CacheTestBackend &backend, void *handle,
                       std::vector<float> x, uint32_t in = kIn, uint32_t out = kOut) {
  const int64_t rows = static_cast<int64_t>(x.size() / in);
  std::vector<float> y(static_cast<size_t>(rows) * out, -99.0f);
  rt::Tensor tx, ty;
  const int64_t xs[2] = {rows, in}, ys[2] = {rows, out};
  REQUIRE(tx.init(rt::ScalarType::Float, rt::Span<const int64_t>(xs, 2)) == Error::Ok);
  REQUIRE(ty.init(rt::ScalarType::Float, rt::Span<const int64_t>(ys, 2)) == Error::Ok);
  tx.setData(x.data(), x.size() * sizeof(float));
  ty.setData(y.data(), y.size() * sizeof(float));
  rt::EValue ex = rt::EValue::fromTensor(&tx), ey = rt::EValue::fromTensor(&ty);
  rt::EValue *args[2] = {&ex, &ey};
  rt::BackendExecuteContext ectx;
  REQUIRE(backend.execute(ectx, handle, rt::Span<rt::EValue *>(args, 2)) == Error::Ok);
  return y;
}

const std::vector<float> kX = {1, 2, 3, -0.5f, 0, 2};

/// A backend and one program's memory, for the tests of one program.
struct OneProgram {
  CacheTestBackend backend;
  Program p;
};

void requireBalanced(CacheTestBackend &backend) {
  auto &h = backend.hooks();
  REQUIRE(backend.cache().size() == 0);
  REQUIRE(h.constructed.load() == h.destructions.load());
  REQUIRE(backend.groups().size() == 0);
  REQUIRE(backend.groups().created() == backend.groups().destroyed());
}

} // namespace

TEST_CASE("cachetest: blob builder writes the signature header", "[cachetest]") {
  auto blob = cachetest::makeCacheTestBlob(42, kW, kB, kIn);
  REQUIRE(blob.size() == rt::cache::kContextBlobHeaderSize + 16 + 4 * (6 + 2));
  auto h = rt::cache::parseContextBlobHeader(blob.data(), blob.size());
  REQUIRE(h.ok());
  CHECK(h->signature == 42);
  CHECK(h->payloadSize == blob.size() - rt::cache::kContextBlobHeaderSize);
  CHECK(cachetest::makeCacheTestBlob(42, kW, kB, 4).empty());
  CHECK(cachetest::makeCacheTestBlob(42, kW, {}, kIn).empty());
}

TEST_CASE_METHOD(OneProgram, "cachetest: computes x @ W^T + b from the packed weights",
                 "[cachetest]") {
  auto blob = cachetest::makeCacheTestBlob(1, kW, kB, kIn);
  void *h = loaded(backend, p, blob);
  const auto *ctx = CacheTestBackend::contextOf(h);
  REQUIRE(ctx != nullptr);
  // W^T was precomputed: [K, N].
  CHECK(ctx->weightT[0] == 1);
  CHECK(ctx->weightT[1] == -1);
  CHECK(ctx->weightT[2 * kOut + 1] == 4);
  // The blob can go away: the context holds copies.
  std::fill(blob.begin(), blob.end(), 0);
  const auto y = run(backend, h, kX);
  CHECK(y == reference(kX, kW, kB, kIn));
  CHECK(y[0] == Approx(14.25f));
  backend.destroy(h);
  requireBalanced(backend);
}

TEST_CASE_METHOD(OneProgram, "cachetest: two methods of one program share one context",
                 "[cachetest]") {
  const auto blob = cachetest::makeCacheTestBlob(7, kW, kB, kIn);
  void *prefill = loaded(backend, p, blob);
  void *decode = loaded(backend, p, blob);
  CHECK(prefill == decode);
  CHECK(backend.hooks().builds == 1);
  CHECK(backend.hooks().hits == 1);
  CHECK(backend.cache().useCount({7, &p.allocator}) == 2);
  backend.destroy(prefill);
  backend.destroy(decode);
  CHECK(backend.hooks().releases == 2);
  CHECK(backend.hooks().destructions == 1);
  requireBalanced(backend);
}

TEST_CASE_METHOD(OneProgram, "cachetest: a hit allocates nothing", "[cachetest]") {
  const auto blob = cachetest::makeCacheTestBlob(7, kW, kB, kIn);
  void *first = loaded(backend, p, blob);
  const size_t usedBefore = p.allocator.used();
  const size_t heapBefore = test::threadHeapAllocations();
  auto second = load(backend, p, blob);
  const size_t heapAfter = test::threadHeapAllocations();
  CHECK(heapAfter == heapBefore);
  CHECK(p.allocator.used() == usedBefore);
  REQUIRE(second.ok());
  backend.destroy(first);
  backend.destroy(second.get());
}

TEST_CASE("cachetest: two programs from identical bytes, both destruction orders",
          "[cachetest]") {
  const bool aFirst = GENERATE(true, false);
  CacheTestBackend backend;
  const auto blob = cachetest::makeCacheTestBlob(99, kW, kB, kIn);
  const auto expected = reference(kX, kW, kB, kIn);
  Program a, b;
  void *ha = loaded(backend, a, blob);
  void *ha2 = loaded(backend, a, blob);
  void *hb = loaded(backend, b, blob);
  CHECK(ha != hb);
  CHECK(backend.hooks().builds == 2);
  const auto *ca = CacheTestBackend::contextOf(ha);
  const auto *cb = CacheTestBackend::contextOf(hb);
  CHECK(a.owns(ca->group->workspace()));
  CHECK(b.owns(cb->group->workspace()));

  Program &gone = aFirst ? a : b;
  Program &stays = aFirst ? b : a;
  void *stayHandle = aFirst ? hb : ha;
  if (aFirst) {
    backend.destroy(ha);
    backend.destroy(ha2);
  } else {
    backend.destroy(hb);
  }
  gone.unload();
  CHECK(backend.cache().size() == 1);
  CHECK(backend.hooks().destructions == 1);
  // The survivor neither shares memory with nor depends on the unloaded one.
  CHECK(run(backend, stayHandle, kX) == expected);
  CHECK(run(backend, stayHandle, kX) == expected);
  if (aFirst) {
    backend.destroy(hb);
  } else {
    backend.destroy(ha);
    CHECK(run(backend, ha2, kX) == expected);
    backend.destroy(ha2);
  }
  stays.unload();
  requireBalanced(backend);
}

TEST_CASE_METHOD(OneProgram,
                 "cachetest: unload and reload one method while the other keeps running",
                 "[cachetest]") {
  const auto blob = cachetest::makeCacheTestBlob(3, kW, kB, kIn);
  const auto expected = reference(kX, kW, kB, kIn);
  void *prefill = loaded(backend, p, blob);
  void *decode = loaded(backend, p, blob);
  for (int cycle = 0; cycle < 5; ++cycle) {
    backend.destroy(prefill);
    CHECK(backend.cache().useCount({3, &p.allocator}) == 1);
    CHECK(run(backend, decode, kX) == expected);
    prefill = loaded(backend, p, blob);
    CHECK(prefill == decode);
    CHECK(run(backend, prefill, kX) == expected);
    CHECK(run(backend, decode, kX) == expected);
  }
  CHECK(backend.hooks().builds == 1);
  CHECK(backend.hooks().hits == 6);
  // When both go, the next load builds afresh.
  backend.destroy(prefill);
  backend.destroy(decode);
  CHECK(backend.cache().size() == 0);
  void *again = loaded(backend, p, blob);
  CHECK(backend.hooks().builds == 2);
  CHECK(run(backend, again, kX) == expected);
  backend.destroy(again);
  requireBalanced(backend);
}

TEST_CASE("cachetest: allocator isolation and reference counts", "[cachetest]") {
  CacheTestBackend backend;
  Program a, b;
  const auto blob1 = cachetest::makeCacheTestBlob(1, kW, kB, kIn);
  const std::vector<float> w2 = {0, 1, 0, 1, 0, 0};
  const auto blob2 = cachetest::makeCacheTestBlob(2, w2, kB, kIn);

  std::vector<void *> handles;
  for (int i = 0; i < 3; ++i)
    handles.push_back(loaded(backend, a, blob1));
  void *hb = loaded(backend, b, blob1);
  void *h2 = loaded(backend, a, blob2);
  CHECK(backend.cache().size() == 3);
  CHECK(backend.cache().useCount({1, &a.allocator}) == 3);
  CHECK(backend.cache().useCount({1, &b.allocator}) == 1);
  CHECK(backend.cache().useCount({2, &a.allocator}) == 1);
  CHECK(hb != handles[0]);
  CHECK(h2 != handles[0]);
  CHECK(run(backend, h2, kX) == reference(kX, w2, kB, kIn));
  CHECK(run(backend, hb, kX) == reference(kX, kW, kB, kIn));
  // Same program, same workspace size: one group for both of a's contexts.
  CHECK(CacheTestBackend::contextOf(h2)->group.group() ==
        CacheTestBackend::contextOf(handles[0])->group.group());
  CHECK(CacheTestBackend::contextOf(hb)->group.group() !=
        CacheTestBackend::contextOf(handles[0])->group.group());

  for (size_t i = 0; i < handles.size(); ++i) {
    CHECK(backend.hooks().destructions == 0);
    backend.destroy(handles[i]);
    CHECK(backend.cache().useCount({1, &a.allocator}) == 2 - i);
  }
  CHECK(!backend.cache().contains({1, &a.allocator}));
  CHECK(backend.hooks().destructions == 1);
  backend.destroy(hb);
  backend.destroy(h2);
  requireBalanced(backend);
}

TEST_CASE("cachetest: concurrent initialization racing on one key",
          "[cachetest][race]") {
  constexpr int kThreads = 16;
  constexpr int kRounds = 200;
  CacheTestBackend backend;
  const auto blob1 = cachetest::makeCacheTestBlob(11, kW, kB, kIn);
  const auto blob2 = cachetest::makeCacheTestBlob(12, kW, kB, kIn);
  const auto expected = reference(kX, kW, kB, kIn);
  for (int round = 0; round < kRounds; ++round) {
    Program p;
    test::Barrier start(kThreads);
    std::vector<void *> handles(kThreads, nullptr);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        start.arriveAndWait();
        handles[t] = tryLoad(backend, p, t % 2 ? blob1 : blob2);
      });
    }
    for (auto &th : threads)
      th.join();
    auto &hk = backend.hooks();
    // Exactly one live context per key, and builds minus destroys == live.
    REQUIRE(backend.cache().size() == 2);
    REQUIRE(hk.constructed - hk.destructions == backend.cache().size());
    REQUIRE(backend.cache().useCount({11, &p.allocator}) == kThreads / 2);
    REQUIRE(backend.cache().useCount({12, &p.allocator}) == kThreads / 2);
    for (int t = 0; t < kThreads; ++t) {
      REQUIRE(handles[t] != nullptr);
      REQUIRE(handles[t] == handles[t % 2]);
    }
    // Execute concurrently on the shared contexts (and shared workspace).
    threads.clear();
    std::atomic<int> wrong{0};
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        std::vector<float> x = kX, y(4);
        rt::Tensor tx, ty;
        const int64_t xs[2] = {2, kIn}, ys[2] = {2, kOut};
        (void)tx.init(rt::ScalarType::Float, rt::Span<const int64_t>(xs, 2));
        (void)ty.init(rt::ScalarType::Float, rt::Span<const int64_t>(ys, 2));
        tx.setData(x.data(), x.size() * 4);
        ty.setData(y.data(), y.size() * 4);
        rt::EValue ex = rt::EValue::fromTensor(&tx), ey = rt::EValue::fromTensor(&ty);
        rt::EValue *args[2] = {&ex, &ey};
        rt::BackendExecuteContext ectx;
        if (backend.execute(ectx, handles[t], rt::Span<rt::EValue *>(args, 2)) !=
                Error::Ok ||
            y != expected)
          wrong.fetch_add(1);
        backend.destroy(handles[t]);
      });
    for (auto &th : threads)
      th.join();
    REQUIRE(wrong == 0);
    REQUIRE(backend.cache().size() == 0);
  }
  CHECK(backend.hooks().builds == 2 * kRounds);
  CHECK(backend.hooks().hits == (kThreads - 2) * kRounds);
  requireBalanced(backend);
}

TEST_CASE("cachetest: group isolation and owner lifetime", "[cachetest][group]") {
  CacheTestBackend backend;
  Program a, b;
  const auto small1 = cachetest::makeCacheTestBlob(1, kW, kB, kIn, 64);
  const auto small2 = cachetest::makeCacheTestBlob(2, kW, kB, kIn, 64);
  const auto large = cachetest::makeCacheTestBlob(3, kW, kB, kIn, 256);
  const auto expected = reference(kX, kW, kB, kIn);
  void *owner = loaded(backend, a, small1);     // creates group (a, 64)
  void *member = loaded(backend, a, small2);    // joins it
  void *largeA = loaded(backend, a, large);     // group (a, 256)
  void *otherProg = loaded(backend, b, small1); // group (b, 64)
  auto groupOf = [](void *h) { return CacheTestBackend::contextOf(h)->group.group(); };
  CHECK(groupOf(owner) == groupOf(member));
  CHECK(groupOf(owner) != groupOf(largeA));
  CHECK(groupOf(owner) != groupOf(otherProg));
  CHECK(backend.groups().size() == 3);
  CHECK(backend.groups().memberCount({&a.allocator, 64}) == 2);
  CHECK(a.owns(groupOf(owner)->workspace()));
  CHECK(b.owns(groupOf(otherProg)->workspace()));

  // The creator goes; the group and its workspace stay for the other member.
  backend.destroy(owner);
  CHECK(backend.groups().contains({&a.allocator, 64}));
  CHECK(backend.groups().memberCount({&a.allocator, 64}) == 1);
  CHECK(run(backend, member, kX) == expected);
  backend.destroy(member);
  CHECK(!backend.groups().contains({&a.allocator, 64}));
  CHECK(backend.groups().contains({&a.allocator, 256}));
  CHECK(run(backend, largeA, kX) == expected);
  backend.destroy(largeA);
  backend.destroy(otherProg);
  requireBalanced(backend);
}

TEST_CASE("cachetest: initialization inside a group is serialized",
          "[cachetest][group][race]") {
  constexpr int kThreads = 8;
  CacheTestBackend backend;
  backend.hooks().buildDelayMicros = 2000;
  Program a, b;
  std::vector<std::vector<uint8_t>> blobs;
  for (int t = 0; t < kThreads; ++t)
    blobs.push_back(cachetest::makeCacheTestBlob(100 + t, kW, kB, kIn));

  SECTION("one group: one build at a time") {
    test::Barrier start(kThreads);
    std::vector<void *> handles(kThreads, nullptr);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        start.arriveAndWait();
        handles[t] = tryLoad(backend, a, blobs[t]); // distinct keys, one group
      });
    for (auto &th : threads)
      th.join();
    CHECK(backend.hooks().builds == kThreads);
    CHECK(backend.hooks().maxBuildsInFlight == 1);
    CHECK(backend.groups().size() == 1);
    CHECK(backend.groups().memberCount({&a.allocator, 4 * kOut}) == kThreads);
    for (void *h : handles) {
      REQUIRE(h != nullptr);
      backend.destroy(h);
    }
  }
  SECTION("two programs get separate groups and contexts") {
    test::Barrier start(2);
    void *ha = nullptr, *hb = nullptr;
    std::thread ta([&] {
      start.arriveAndWait();
      ha = tryLoad(backend, a, blobs[0]);
    });
    std::thread tb([&] {
      start.arriveAndWait();
      hb = tryLoad(backend, b, blobs[0]);
    });
    ta.join();
    tb.join();
    REQUIRE(ha != nullptr);
    REQUIRE(hb != nullptr);
    CHECK(ha != hb);
    CHECK(backend.groups().size() == 2);
    backend.destroy(ha);
    backend.destroy(hb);
  }
  requireBalanced(backend);
}

TEST_CASE("cachetest: a failure at every init step leaks nothing", "[cachetest][fail]") {
  const InitStep step =
      GENERATE(InitStep::Parse, InitStep::Allocate, InitStep::Build, InitStep::Publish);
  const bool groupBusy = GENERATE(false, true);
  CacheTestBackend backend;
  Program p;
  const auto blob = cachetest::makeCacheTestBlob(5, kW, kB, kIn);
  const auto neighbour = cachetest::makeCacheTestBlob(6, kW, kB, kIn);
  void *other = nullptr;
  if (groupBusy) // another context already lives in the same group
    other = loaded(backend, p, neighbour);
  auto &hk = backend.hooks();
  hk.failAt = step;
  auto failed = load(backend, p, blob);
  REQUIRE(!failed.ok());
  CHECK(hk.injectedFailures == 1);
  CHECK(!backend.cache().contains({5, &p.allocator}));
  CHECK(hk.constructed - hk.destructions == (groupBusy ? 1u : 0u));
  CHECK(backend.groups().size() == (groupBusy ? 1u : 0u));
  if (groupBusy)
    CHECK(backend.groups().memberCount({&p.allocator, 4 * kOut}) == 1);

  // A retry works and everything balances afterwards.
  hk.failAt = InitStep::None;
  void *retry = loaded(backend, p, blob);
  CHECK(run(backend, retry, kX) == reference(kX, kW, kB, kIn));
  backend.destroy(retry);
  if (other != nullptr)
    backend.destroy(other);
  requireBalanced(backend);
}

TEST_CASE_METHOD(OneProgram, "cachetest: malformed blobs and bad arguments are errors",
                 "[cachetest][fail]") {
  auto blob = cachetest::makeCacheTestBlob(5, kW, kB, kIn);

  SECTION("header problems") {
    auto bad = blob;
    bad[0] = 'X';
    CHECK(load(backend, p, bad).error() == Error::InvalidArgument);
    bad = blob;
    bad[4] = 9;
    CHECK(load(backend, p, bad).error() == Error::DelegateInvalidCompatibility);
    bad = blob;
    bad.pop_back();
    CHECK(load(backend, p, bad).error() == Error::InvalidArgument);
  }
  SECTION("payload problems") {
    auto bad = blob;
    bad[rt::cache::kContextBlobHeaderSize] = 3; // N no longer matches the size
    CHECK(load(backend, p, bad).error() == Error::InvalidArgument);
    bad = blob;
    bad[rt::cache::kContextBlobHeaderSize + 8] = 4; // workspace < 4*N
    CHECK(load(backend, p, bad).error() == Error::InvalidArgument);
    bad = blob;
    bad[rt::cache::kContextBlobHeaderSize + 4] = 0; // K = 0
    CHECK(load(backend, p, bad).error() == Error::InvalidArgument);
    auto huge = cachetest::makeCacheTestBlob(5, kW, kB, kIn);
    for (int i = 0; i < 4; ++i) // N = K = 0xFFFFFFFF: sizes must not wrap
      huge[rt::cache::kContextBlobHeaderSize + i] =
          huge[rt::cache::kContextBlobHeaderSize + 4 + i] = 0xFF;
    CHECK(load(backend, p, huge).error() == Error::InvalidArgument);
  }
  SECTION("no runtime allocator, or one too small for the workspace") {
    rt::BackendInitContext ctx;
    CHECK(backend.init(ctx, {blob.data(), blob.size()}, {}).error() ==
          Error::InvalidArgument);
    uint8_t tinyMem[4];
    rt::MemoryAllocator tiny(tinyMem, sizeof tinyMem);
    ctx.runtimeAllocator = &tiny;
    CHECK(backend.init(ctx, {blob.data(), blob.size()}, {}).error() ==
          Error::MemoryAllocationFailed);
  }
  SECTION("bad execute arguments") {
    void *h = loaded(backend, p, blob);
    rt::BackendExecuteContext ectx;
    std::vector<float> x(4), y(2);
    rt::Tensor tx, ty;
    const int64_t xs[1] = {4}, ys[1] = {2};
    (void)tx.init(rt::ScalarType::Float, rt::Span<const int64_t>(xs, 1));
    (void)ty.init(rt::ScalarType::Float, rt::Span<const int64_t>(ys, 1));
    tx.setData(x.data(), 16);
    ty.setData(y.data(), 8);
    rt::EValue ex = rt::EValue::fromTensor(&tx), ey = rt::EValue::fromTensor(&ty);
    rt::EValue *args[2] = {&ex, &ey};
    CHECK(backend.execute(ectx, h, rt::Span<rt::EValue *>(args, 2)) ==
          Error::InvalidArgument); // K is 3, not 4
    CHECK(backend.execute(ectx, h, rt::Span<rt::EValue *>(args, 1)) ==
          Error::InvalidArgument);
    CHECK(backend.execute(ectx, nullptr, rt::Span<rt::EValue *>(args, 2)) ==
          Error::DelegateInvalidHandle);
    backend.destroy(h);
    backend.destroy(nullptr); // ignored
  }
  requireBalanced(backend);
}

TEST_CASE_METHOD(OneProgram,
                 "cachetest: the compiled argument forms [x, wT, y] and [bias, x, wT, y]",
                 "[cachetest]") {
  // What the ahead-of-time half (backends/cachetest/aot) emits: the region's
  // captured values (weights included) then the output. The weight
  // arguments are only shape-checked; the context's copies are used.
  auto blob = cachetest::makeCacheTestBlob(5, kW, kB, kIn);
  void *h = loaded(backend, p, blob);
  std::vector<float> x = kX, y(4, -99.0f), wT(kIn * kOut, 0.0f), b(kOut, 0.0f);
  rt::Tensor tx, ty, tw, tb;
  const int64_t xs[2] = {2, kIn}, ys[2] = {2, kOut}, ws[2] = {kIn, kOut}, bs[1] = {kOut};
  REQUIRE(tx.init(rt::ScalarType::Float, rt::Span<const int64_t>(xs, 2)) == Error::Ok);
  REQUIRE(ty.init(rt::ScalarType::Float, rt::Span<const int64_t>(ys, 2)) == Error::Ok);
  REQUIRE(tw.init(rt::ScalarType::Float, rt::Span<const int64_t>(ws, 2)) == Error::Ok);
  REQUIRE(tb.init(rt::ScalarType::Float, rt::Span<const int64_t>(bs, 1)) == Error::Ok);
  tx.setData(x.data(), x.size() * 4);
  ty.setData(y.data(), y.size() * 4);
  tw.setData(wT.data(), wT.size() * 4); // zeros: ignored
  tb.setData(b.data(), b.size() * 4);
  rt::EValue ex = rt::EValue::fromTensor(&tx), ey = rt::EValue::fromTensor(&ty),
             ew = rt::EValue::fromTensor(&tw), eb = rt::EValue::fromTensor(&tb);
  rt::BackendExecuteContext ectx;
  const auto want = reference(kX, kW, kB, kIn);
  rt::EValue *addmm[4] = {&eb, &ex, &ew, &ey};
  REQUIRE(backend.execute(ectx, h, rt::Span<rt::EValue *>(addmm, 4)) == Error::Ok);
  CHECK(y == want);
  std::fill(y.begin(), y.end(), -99.0f);
  rt::EValue *mm[3] = {&ex, &ew, &ey};
  REQUIRE(backend.execute(ectx, h, rt::Span<rt::EValue *>(mm, 3)) == Error::Ok);
  CHECK(y == want);
  // Weight arguments of the wrong shape are refused.
  rt::EValue *swapped[4] = {&ew, &ex, &eb, &ey};
  CHECK(backend.execute(ectx, h, rt::Span<rt::EValue *>(swapped, 4)) ==
        Error::InvalidArgument);
  rt::EValue *five[5] = {&eb, &ex, &ew, &ey, &ey};
  CHECK(backend.execute(ectx, h, rt::Span<rt::EValue *>(five, 5)) ==
        Error::InvalidArgument);
  backend.destroy(h);
  requireBalanced(backend);
}

#ifdef PTEC_HAVE_BACKEND_REGISTRY
TEST_CASE("cachetest: registration is idempotent", "[cachetest]") {
  cachetest::registerCacheTestBackend();
  rt::Backend *first = rt::findBackend(cachetest::kCacheTestBackendId);
  cachetest::registerCacheTestBackend();
  CHECK(first != nullptr);
  CHECK(rt::findBackend(cachetest::kCacheTestBackendId) == first);
}
#endif
