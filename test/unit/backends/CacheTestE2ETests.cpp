// The prefill/decode pattern end to end: test/models/two_methods' prefill.pt2
// and decode.pt2 (same Linear weights, same fqns) compiled by aot-compile
// with --backend cachetest into ONE program (CMake builds it), run through
// Module. Each method delegates its two linears (proj, out), so a program
// holds two distinct weight sets: methods of one Module share those two
// contexts, two Modules loaded from identical bytes each build their own.
#include "backends/cachetest/runtime/CacheTestBackend.h"
#include "runtime/backend/cache/ContextBlobHeader.h"
#include "runtime/executor/Module.h"
#include "test/unit/runtime/ModuleTestUtil.h"
#ifdef PTEC_HAVE_CACHETEST_AOT
#include "backends/cachetest/aot/CacheTestAot.h"
#endif

#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace ptec;
using cachetest::CacheTestBackend;
using rt::Error;
using rt::test::checkMethodOutput;
using rt::test::loadMethod;
using rt::test::readBytes;

namespace {

constexpr size_t kLinearsPerMethod = 2; // proj and out: two weight sets

CacheTestBackend &backend() {
  cachetest::registerCacheTestBackend();
  auto *b = static_cast<CacheTestBackend *>(rt::findBackend(cachetest::kCacheTestBackendId));
  REQUIRE(b != nullptr);
  return *b;
}

std::vector<uint8_t> programBytes() { return readBytes(PTEC_CACHETEST_PTE); }

std::unique_ptr<rt::Module> loadModule(const std::vector<uint8_t> &bytes) {
  return rt::test::loadModuleWith(bytes, rt::test::portableOptions());
}

/// Runs `method` on its stored input and compares with PyTorch's output.
void runAndCompare(rt::Module &m, const std::string &method) {
  checkMethodOutput(m, method, PTEC_TWO_METHODS_DIR, method + "_");
}

/// Every context released and destroyed, no group left.
void requireNothingLive(CacheTestBackend &b) {
  CHECK(b.cache().size() == 0);
  CHECK(b.groups().size() == 0);
  CHECK(b.hooks().constructed.load() == b.hooks().destructions.load());
}

} // namespace

TEST_CASE("cachetest e2e: prefill and decode of one program share contexts",
          "[cachetest][e2e]") {
  CacheTestBackend &b = backend();
  b.hooks().reset();
  auto bytes = programBytes();
  {
    auto m = loadModule(bytes);
    loadMethod(*m, "prefill");
    CHECK(b.hooks().builds.load() == kLinearsPerMethod);
    CHECK(b.hooks().hits.load() == 0);
    loadMethod(*m, "decode");
    // decode's delegates find prefill's contexts: one build per weight set.
    CHECK(b.hooks().builds.load() == kLinearsPerMethod);
    CHECK(b.hooks().hits.load() == kLinearsPerMethod);
    CHECK(b.cache().size() == kLinearsPerMethod);
    runAndCompare(*m, "prefill");
    runAndCompare(*m, "decode");

    SECTION("unload prefill while decode keeps running, then reload it") {
      REQUIRE(m->unloadMethod("prefill") == Error::Ok);
      CHECK(b.hooks().releases.load() == kLinearsPerMethod);
      CHECK(b.hooks().destructions.load() == 0); // decode still uses them
      CHECK(b.cache().size() == kLinearsPerMethod);
      runAndCompare(*m, "decode");
      loadMethod(*m, "prefill");
      CHECK(b.hooks().builds.load() == kLinearsPerMethod); // no rebuild
      CHECK(b.hooks().hits.load() == 2 * kLinearsPerMethod);
      runAndCompare(*m, "prefill");
      runAndCompare(*m, "decode");
    }
    SECTION("unload both methods: the contexts go with the last user") {
      REQUIRE(m->unloadMethod("decode") == Error::Ok);
      CHECK(b.hooks().destructions.load() == 0);
      runAndCompare(*m, "prefill");
      REQUIRE(m->unloadMethod("prefill") == Error::Ok);
      CHECK(b.hooks().destructions.load() == kLinearsPerMethod);
      requireNothingLive(b);
      // Loading again builds afresh.
      loadMethod(*m, "decode");
      CHECK(b.hooks().builds.load() == 2 * kLinearsPerMethod);
      runAndCompare(*m, "decode");
    }
  }
  requireNothingLive(b);
  CHECK(b.hooks().releases.load() == b.hooks().builds.load() + b.hooks().hits.load());
}

TEST_CASE("cachetest e2e: two programs from identical bytes never share",
          "[cachetest][e2e]") {
  CacheTestBackend &b = backend();
  b.hooks().reset();
  auto bytes = programBytes();
  const bool firstGoesFirst = GENERATE(true, false);
  auto first = loadModule(bytes);
  auto second = loadModule(bytes);
  REQUIRE(first->runtimeAllocator() != second->runtimeAllocator());
  for (rt::Module *m : {first.get(), second.get()}) {
    loadMethod(*m, "prefill");
    loadMethod(*m, "decode");
  }
  // Same signatures, different runtime allocators: a set of contexts each.
  CHECK(b.hooks().builds.load() == 2 * kLinearsPerMethod);
  CHECK(b.hooks().hits.load() == 2 * kLinearsPerMethod);
  CHECK(b.cache().size() == 2 * kLinearsPerMethod);
  // Groups are keyed by (runtime allocator, workspace bytes); proj and out
  // have different output widths, so two groups per program.
  CHECK(b.groups().size() == 2 * kLinearsPerMethod);

  std::unique_ptr<rt::Module> &gone = firstGoesFirst ? first : second;
  std::unique_ptr<rt::Module> &kept = firstGoesFirst ? second : first;
  gone.reset();
  CHECK(b.hooks().destructions.load() == kLinearsPerMethod);
  CHECK(b.cache().size() == kLinearsPerMethod);
  // The survivor's contexts and workspace were never the other's.
  runAndCompare(*kept, "prefill");
  runAndCompare(*kept, "decode");
  kept.reset();
  requireNothingLive(b);
}

TEST_CASE("cachetest e2e: every delegate carries the context header",
          "[cachetest][e2e]") {
  // Each of the four delegates' blobs starts with the signature header
  // (identical blobs may be stored once, so at least one per weight set).
  auto bytes = programBytes();
  const char magic[4] = {'P', 'T', 'C', 'X'};
  size_t found = 0;
  for (size_t i = 0; i + 4 <= bytes.size(); ++i)
    if (std::memcmp(bytes.data() + i, magic, 4) == 0)
      ++found;
  CHECK(found >= kLinearsPerMethod);
}

#ifdef PTEC_HAVE_CACHETEST_AOT
TEST_CASE("cachetest aot: blob equals the runtime's makeCacheTestBlob",
          "[cachetest][aot]") {
  const std::vector<float> w = {1, 2, 3, -1, 0.5f, 4}; // [2, 3]
  const std::vector<float> bias = {0.25f, -2};
  std::string aot = aot::cachetest::makeCacheTestAotBlob(w, bias, 3);
  REQUIRE(aot.size() > rt::cache::kContextBlobHeaderSize);
  const uint8_t *payload =
      reinterpret_cast<const uint8_t *>(aot.data()) + rt::cache::kContextBlobHeaderSize;
  const uint64_t sig =
      rt::cache::fnv1a64(payload, aot.size() - rt::cache::kContextBlobHeaderSize);
  std::vector<uint8_t> rt = cachetest::makeCacheTestBlob(sig, w, bias, 3);
  REQUIRE(rt.size() == aot.size());
  CHECK(std::memcmp(rt.data(), aot.data(), rt.size()) == 0);
  // The signature follows the weights: other bytes or shapes, other context.
  std::vector<float> w2 = w;
  w2[5] = 4.5f;
  CHECK(aot::cachetest::makeCacheTestAotBlob(w2, bias, 3).substr(8, 8) != aot.substr(8, 8));
  CHECK(aot::cachetest::makeCacheTestAotBlob(w, bias, 3) == aot);
  CHECK(aot::cachetest::makeCacheTestAotBlob(w, {1}, 3).empty());
}
#endif
