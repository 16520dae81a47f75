// The context cache component on its own: keys, reference counts, removal
// before destruction, try-emplace publication under a real race, resource
// groups, the signature header and the scope guard.
#include "runtime/backend/cache/ContextBlobHeader.h"
#include "runtime/backend/cache/ContextCache.h"
#include "runtime/backend/cache/ResourceGroup.h"
#include "runtime/backend/cache/ScopeGuard.h"
#include "test/unit/backends/TestSupport.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>
#include <vector>

using namespace ptec::rt;
using namespace ptec::rt::cache;

namespace {

struct Counters {
  std::atomic<int> built{0};
  std::atomic<int> destroyed{0};
  std::atomic<int> destroyedWhileCached{0};
};

struct ToyContext {
  ToyContext(Counters *c, ContextCache<ToyContext> *cache, ContextKey key, int v)
      : counters(c), cache(cache), key(key), value(v) {
    counters->built.fetch_add(1);
  }
  ~ToyContext() {
    // The entry must already be gone when the destructor runs.
    if (cache != nullptr && cache->contains(key))
      counters->destroyedWhileCached.fetch_add(1);
    counters->destroyed.fetch_add(1);
  }
  Counters *counters;
  ContextCache<ToyContext> *cache;
  ContextKey key;
  int value;
};

int alloc1, alloc2; // stand-ins for two programs' allocators (identity only)

/// A cache of toy contexts and the counts of their lives.
struct ToyCache {
  Counters c;
  ContextCache<ToyContext> cache;

  /// The build function of the context of `key` holding `value`.
  auto builder(ContextKey key, int value) {
    return [this, key, value]() -> Result<ToyContext *> {
      return new (std::nothrow) ToyContext(&c, &cache, key, value);
    };
  }
};

} // namespace

TEST_CASE_METHOD(ToyCache, "cache: a hit shares the context and takes a reference", "[cache]") {
  const ContextKey key{0x1234, &alloc1};
  auto build = builder(key, 7);
  AcquireOutcome how;
  auto e1 = cache.acquire(key, build, &how);
  REQUIRE(e1.ok());
  CHECK(how == AcquireOutcome::Built);
  auto e2 = cache.acquire(key, build, &how);
  REQUIRE(e2.ok());
  CHECK(how == AcquireOutcome::Hit);
  CHECK(e1.get() == e2.get());
  CHECK(ContextCache<ToyContext>::context(e1.get()).value == 7);
  CHECK(e1.get()->key() == key);
  CHECK(c.built == 1);
  CHECK(cache.useCount(key) == 2);
  CHECK(cache.size() == 1);

  CHECK(cache.release(e1.get()) == Error::Ok);
  CHECK(cache.useCount(key) == 1);
  CHECK(c.destroyed == 0);
  CHECK(cache.release(e2.get()) == Error::Ok);
  CHECK(!cache.contains(key));
  CHECK(cache.useCount(key) == 0);
  CHECK(c.destroyed == 1);
  CHECK(c.destroyedWhileCached == 0); // removed first, then destroyed
  CHECK(cache.release(e2.get()) == Error::NotFound);
  CHECK(cache.release(nullptr) == Error::NotFound);
}

TEST_CASE_METHOD(ToyCache, "cache: a hit allocates nothing", "[cache]") {
  const ContextKey key{1, &alloc1};
  auto build = builder(key, 1);
  auto first = cache.acquire(key, build);
  REQUIRE(first.ok());
  const size_t before = ptec::test::threadHeapAllocations();
  auto hit = cache.acquire(key, build);
  const size_t after = ptec::test::threadHeapAllocations();
  REQUIRE(hit.ok());
  CHECK(after == before);
  CHECK(cache.release(hit.get()) == Error::Ok);
  CHECK(cache.release(first.get()) == Error::Ok);
}

TEST_CASE_METHOD(ToyCache, "cache: the key is (signature, allocator)", "[cache]") {
  auto acquire = [&](ContextKey key) {
    auto e = cache.acquire(key, builder(key, 0));
    REQUIRE(e.ok());
    return e.get();
  };
  CacheEntry *a = acquire({5, &alloc1});
  CacheEntry *b = acquire({5, &alloc2}); // same bytes, other program
  CacheEntry *d = acquire({6, &alloc1}); // other blob, same program
  CHECK(a != b);
  CHECK(a != d);
  CHECK(cache.size() == 3);
  CHECK(c.built == 3);
  CHECK(cache.release(a) == Error::Ok);
  CHECK(cache.contains({5, &alloc2}));
  CHECK(!cache.contains({5, &alloc1}));
  CHECK(cache.release(b) == Error::Ok);
  CHECK(cache.release(d) == Error::Ok);
  CHECK(c.destroyed == 3);
}

TEST_CASE_METHOD(ToyCache, "cache: failed builds and vetoed publications leave nothing",
                 "[cache]") {
  const ContextKey key{9, &alloc1};
  auto failing = cache.acquire(key, []() -> Result<ToyContext *> {
    return Error::MemoryAllocationFailed;
  });
  CHECK(failing.error() == Error::MemoryAllocationFailed);
  CHECK(cache.size() == 0);

  auto vetoed = cache.acquire(key, builder(key, 0), [] { return Error::Internal; });
  CHECK(vetoed.error() == Error::Internal);
  CHECK(cache.size() == 0);
  CHECK(c.built == 1);
  CHECK(c.destroyed == 1);

  OwnedContext empty;
  CHECK(cache.publish(key, empty).error() == Error::InvalidArgument);
}

TEST_CASE("cache: racing initializers, first published wins", "[cache][race]") {
  constexpr int kThreads = 16;
  constexpr int kRounds = 200;
  for (int round = 0; round < kRounds; ++round) {
    Counters c;
    ContextCache<ToyContext> cache;
    const ContextKey key{0xabcdef, &alloc1};
    ptec::test::Barrier allMissed(kThreads);
    std::vector<CacheEntry *> got(kThreads, nullptr);
    std::vector<AcquireOutcome> how(kThreads, AcquireOutcome::Hit);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        auto e = cache.acquire(
            key,
            [&]() -> Result<ToyContext *> {
              // Nobody publishes before everybody has missed: every thread
              // builds a candidate and all of them race to publish.
              allMissed.arriveAndWait();
              return new (std::nothrow) ToyContext(&c, &cache, key, t);
            },
            &how[t]);
        got[t] = e.ok() ? e.get() : nullptr;
      });
    }
    for (auto &th : threads)
      th.join();
    int winners = 0, losers = 0;
    for (int t = 0; t < kThreads; ++t) {
      REQUIRE(got[t] == got[0]);
      winners += how[t] == AcquireOutcome::Built;
      losers += how[t] == AcquireOutcome::LostRace;
    }
    REQUIRE(winners == 1);
    REQUIRE(losers == kThreads - 1);
    REQUIRE(c.built == kThreads);
    REQUIRE(c.destroyed == kThreads - 1); // every loser destroyed its own
    REQUIRE(c.built - c.destroyed == static_cast<int>(cache.size()));
    REQUIRE(cache.useCount(key) == kThreads);
    // (Losers' candidates died while the winner was cached; from here on
    // only the winner can be destroyed, and only once it is unlinked.)
    const int lostWhileCached = c.destroyedWhileCached;
    for (int t = 0; t < kThreads; ++t)
      REQUIRE(cache.release(got[t]) == Error::Ok);
    REQUIRE(cache.size() == 0);
    REQUIRE(c.destroyed == kThreads);
    REQUIRE(c.destroyedWhileCached == lostWhileCached);
  }
}

TEST_CASE_METHOD(ToyCache, "cache: concurrent acquire and release on several keys",
                 "[cache][race]") {
  constexpr int kThreads = 16;
  std::atomic<int> badReleases{0}; // counted: Catch's CHECK is not thread-safe
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const ContextKey key{static_cast<uint64_t>(i % 3), t % 2 ? &alloc1 : &alloc2};
        auto e = cache.acquire(key, builder(key, i));
        if (e.ok() && cache.release(e.get()) != Error::Ok)
          ++badReleases;
      }
    });
  }
  for (auto &th : threads)
    th.join();
  CHECK(badReleases == 0);
  CHECK(cache.size() == 0);
  CHECK(c.built == c.destroyed);
}

TEST_CASE("cache: contexts left cached are destroyed with the cache", "[cache]") {
  Counters c;
  {
    ContextCache<ToyContext> cache;
    auto e = cache.acquire({1, &alloc1}, [&]() -> Result<ToyContext *> {
      return new (std::nothrow) ToyContext(&c, nullptr, {1, &alloc1}, 0);
    });
    REQUIRE(e.ok());
  }
  CHECK(c.destroyed == 1);
}

TEST_CASE("groups: keyed by (allocator, size); owner lives until the last member",
          "[cache][group]") {
  alignas(64) static uint8_t memA[4096], memB[4096];
  MemoryAllocator a(memA, sizeof memA), b(memB, sizeof memB);
  ResourceGroupRegistry groups;

  auto m1 = groups.join(&a, 256);
  REQUIRE(m1.ok());
  GroupMembership first = std::move(m1.get());
  ResourceGroup *g = first.group();
  CHECK(g->workspaceBytes() == 256);
  CHECK(g->workspace() >= memA);
  CHECK(g->workspace() + 256 <= memA + sizeof memA);

  auto m2 = groups.join(&a, 256);
  REQUIRE(m2.ok());
  GroupMembership second = std::move(m2.get());
  CHECK(second.group() == g);
  CHECK(groups.memberCount({&a, 256}) == 2);

  auto other = groups.join(&b, 256);  // other program
  auto bigger = groups.join(&a, 512); // other size
  REQUIRE(other.ok());
  REQUIRE(bigger.ok());
  CHECK(other->group() != g);
  CHECK(bigger->group() != g);
  CHECK(other->group()->workspace() >= memB);
  CHECK(groups.size() == 3);

  GroupMembership dup = second.duplicate();
  CHECK(groups.memberCount({&a, 256}) == 3);
  first.reset(); // the member that created it leaves: the group stays
  CHECK(groups.contains({&a, 256}));
  CHECK(groups.memberCount({&a, 256}) == 2);
  dup.reset();
  second.reset();
  CHECK(!groups.contains({&a, 256}));
  CHECK(groups.created() == 3);
  CHECK(groups.destroyed() == 1);

  CHECK(groups.join(nullptr, 8).error() == Error::InvalidArgument);
  MemoryAllocator tiny(memB, 16);
  CHECK(groups.join(&tiny, 64).error() == Error::MemoryAllocationFailed);
  CHECK(!groups.contains({&tiny, 64}));
}

TEST_CASE("header: write, parse and refuse", "[cache][header]") {
  CHECK(fnv1a64("", 0) == 0xcbf29ce484222325ull);
  CHECK(fnv1a64("a", 1) == 0xaf63dc4c8601ec8cull);

  uint8_t blob[kContextBlobHeaderSize + 5] = {};
  writeContextBlobHeader(0x0102030405060708ull, 5, blob);
  CHECK(blob[0] == 'P');
  CHECK(blob[3] == 'X');
  CHECK(blob[4] == 1);
  CHECK(blob[8] == 0x08); // little-endian signature
  CHECK(blob[15] == 0x01);
  auto h = parseContextBlobHeader(blob, sizeof blob);
  REQUIRE(h.ok());
  CHECK(h->signature == 0x0102030405060708ull);
  CHECK(h->payloadSize == 5);
  CHECK(h->payload == blob + kContextBlobHeaderSize);

  CHECK(parseContextBlobHeader(blob, sizeof blob - 1).error() == Error::InvalidArgument);
  CHECK(parseContextBlobHeader(blob, 10).error() == Error::InvalidArgument);
  CHECK(parseContextBlobHeader(nullptr, 0).error() == Error::InvalidArgument);
  blob[4] = 2;
  CHECK(parseContextBlobHeader(blob, sizeof blob).error() ==
        Error::DelegateInvalidCompatibility);
  blob[4] = 1;
  blob[0] = 'Q';
  CHECK(parseContextBlobHeader(blob, sizeof blob).error() == Error::InvalidArgument);
  // A huge payload size must not wrap around.
  writeContextBlobHeader(1, ~0ull, blob);
  CHECK(parseContextBlobHeader(blob, sizeof blob).error() == Error::InvalidArgument);
}

TEST_CASE("scope guard: runs unless dismissed", "[cache]") {
  int runs = 0;
  {
    auto g = makeScopeGuard([&] { ++runs; });
  }
  CHECK(runs == 1);
  {
    auto g = makeScopeGuard([&] { ++runs; });
    g.dismiss();
  }
  CHECK(runs == 1);
}
