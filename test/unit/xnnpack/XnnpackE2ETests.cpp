// XnnpackBackend through rt::Module on programs aot-compile wrote (CMake
// builds them): test/models/two_methods (prefill + decode, the same two
// Linear layers) shares packed weights between the methods of one program
// and never between programs; ten_calls lowered once and called ten times
// inits once with shared handles, ten times without.
#include "backends/xnnpack/runtime/XnnpackBackend.h"
#include "runtime/executor/Module.h"
#include "test/unit/runtime/ModuleTestUtil.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

using namespace ptec;
using rt::Error;
using rt::test::checkMethodOutput;
using rt::test::loadMethod;
using rt::test::readBytes;
using xnnpack::XnnpackBackend;

namespace {

constexpr uint64_t kLinearsPerMethod = 2; // proj and out

XnnpackBackend &backend() {
  xnnpack::registerXnnpackBackend();
  XnnpackBackend &b = xnnpack::xnnpackBackend();
  b.stats().reset();
  return b;
}

std::unique_ptr<rt::Module> loadModule(const std::vector<uint8_t> &bytes) {
  return rt::test::loadModuleWith(bytes, rt::test::portableOptions());
}

void runTwoMethods(rt::Module &m, const char *which = nullptr) {
  for (std::string method : {"prefill", "decode"})
    if (!which || method == which)
      checkMethodOutput(m, method, PTEC_TWO_METHODS_DIR, method + "_");
}

} // namespace

TEST_CASE("xnnpack e2e: prefill and decode of one program pack each weight once",
          "[xnnpack][e2e]") {
  XnnpackBackend &b = backend();
  const auto bytes = readBytes(PTEC_XNNPACK_TWO_METHODS_PTE);
  {
    auto m = loadModule(bytes);
    loadMethod(*m, "prefill");
    CHECK(b.stats().packs.load() == kLinearsPerMethod);
    loadMethod(*m, "decode");
    // decode (batch 1) finds prefill's (batch 4) packed weights.
    CHECK(b.stats().packs.load() == kLinearsPerMethod);
    CHECK(b.stats().cacheHits.load() == kLinearsPerMethod);
    CHECK(b.cache().size() == kLinearsPerMethod);
    runTwoMethods(*m);
    REQUIRE(m->unloadMethod("prefill") == Error::Ok);
    CHECK(b.stats().packedLive.load() == kLinearsPerMethod); // decode keeps them
    runTwoMethods(*m, "decode");
    loadMethod(*m, "prefill");
    CHECK(b.stats().packs.load() == kLinearsPerMethod); // no repacking
    runTwoMethods(*m);
  }
  CHECK(b.cache().size() == 0);
  CHECK(b.stats().packedLive.load() == 0);
  CHECK(b.stats().handlesLive.load() == 0);
}

TEST_CASE("xnnpack e2e: two programs from identical bytes pack their own",
          "[xnnpack][e2e]") {
  XnnpackBackend &b = backend();
  const auto bytes = readBytes(PTEC_XNNPACK_TWO_METHODS_PTE);
  const bool firstGoesFirst = GENERATE(true, false);
  auto first = loadModule(bytes), second = loadModule(bytes);
  for (rt::Module *m : {first.get(), second.get()}) {
    loadMethod(*m, "prefill");
    loadMethod(*m, "decode");
  }
  CHECK(b.stats().packs.load() == 2 * kLinearsPerMethod);
  CHECK(b.cache().size() == 2 * kLinearsPerMethod);
  (firstGoesFirst ? first : second).reset();
  CHECK(b.cache().size() == kLinearsPerMethod);
  runTwoMethods(*(firstGoesFirst ? second : first));
  (firstGoesFirst ? second : first).reset();
  CHECK(b.cache().size() == 0);
  CHECK(b.stats().packedLive.load() == 0);
}

TEST_CASE("xnnpack e2e: without the cache each method packs its own", "[xnnpack][e2e]") {
  XnnpackBackend &b = backend();
  REQUIRE(b.setWeightCache(false) == Error::Ok);
  {
    auto m = loadModule(readBytes(PTEC_XNNPACK_TWO_METHODS_PTE));
    loadMethod(*m, "prefill");
    loadMethod(*m, "decode");
    CHECK(b.stats().packs.load() == 2 * kLinearsPerMethod);
    CHECK(b.cache().size() == 0);
    runTwoMethods(*m);
  }
  REQUIRE(b.setWeightCache(true) == Error::Ok);
}

TEST_CASE("xnnpack e2e: ten calls of one lowered module init once when shared",
          "[xnnpack][e2e]") {
  XnnpackBackend &b = backend();
  const bool shared = GENERATE(true, false);
  auto m = loadModule(readBytes(shared ? PTEC_XNNPACK_TEN_CALLS_PTE
                                      : PTEC_XNNPACK_TEN_CALLS_UNSHARED_PTE));
  loadMethod(*m, "forward");
  CHECK(b.stats().inits.load() == (shared ? 1u : 10u));
  checkMethodOutput(*m, "forward", PTEC_TEN_CALLS_DIR);
  CHECK(b.stats().executes.load() == 10);
}
