// XnnpackBackend through rt::Module on programs aot-compile wrote (CMake
// builds them): test/models/two_methods (prefill + decode, the same two
// Linear layers) shares packed weights between the methods of one program
// and never between programs; ten_calls lowered once and called ten times
// inits once with shared handles, ten times without.
#include "backends/xnnpack/runtime/XnnpackBackend.h"
#include "runtime/executor/Module.h"
#include "runtime/executor/Npy.h"
#include "runtime/kernels/KernelRegistry.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

using namespace ptec;
using rt::Error;
using xnnpack::XnnpackBackend;

namespace {

constexpr uint64_t kLinearsPerMethod = 2; // proj and out

XnnpackBackend &backend() {
  xnnpack::registerXnnpackBackend();
  XnnpackBackend &b = xnnpack::xnnpackBackend();
  b.stats().reset();
  return b;
}

std::vector<uint8_t> readFile(const char *path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE(f.good());
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

std::unique_ptr<rt::Module> loadModule(const std::vector<uint8_t> &bytes) {
  rt::ModuleOptions o;
  o.kernels = rt::KernelResolver(&rt::findKernel);
  std::string detail;
  auto m = rt::Module::fromBytes(bytes.data(), bytes.size(), o, &detail);
  INFO(detail);
  REQUIRE(m.ok());
  return std::move(m.get());
}

void loadMethod(rt::Module &m, const char *name) {
  Error e = m.loadMethod(name);
  INFO(m.errorDetail());
  REQUIRE(e == Error::Ok);
}

/// Runs `method` on the model's stored input; compares with PyTorch's output.
void runAndCompare(rt::Module &m, const std::string &dir, const std::string &method,
                   const std::string &in, const std::string &want) {
  std::string detail;
  auto input = rt::readNpy((dir + "/" + in).c_str(), &detail);
  auto expected = rt::readNpy((dir + "/" + want).c_str(), &detail);
  INFO(detail);
  REQUIRE(input.ok());
  REQUIRE(expected.ok());
  rt::Tensor x;
  REQUIRE(x.init(input->dtype, rt::Span<const int64_t>(input->shape.data(), input->shape.size())) ==
          Error::Ok);
  x.setData(input->data.data(), input->data.size());
  REQUIRE(m.setInput(method.c_str(), 0, x) == Error::Ok);
  Error e = m.execute(method.c_str());
  INFO(m.errorDetail());
  REQUIRE(e == Error::Ok);
  const rt::Tensor &y = m.output(method.c_str(), 0)->toTensor();
  REQUIRE(size_t(y.numel()) * 4 == expected->data.size());
  std::vector<float> ref(size_t(y.numel()));
  std::memcpy(ref.data(), expected->data.data(), expected->data.size());
  size_t bad = 0;
  for (size_t i = 0; i < ref.size(); ++i)
    if (!(std::fabs(double(y.dataAs<const float>()[i]) - ref[i]) <= 1e-5 + 1e-4 * std::fabs(ref[i])))
      ++bad;
  CHECK(bad == 0);
}

void runTwoMethods(rt::Module &m, const char *which = nullptr) {
  for (std::string method : {"prefill", "decode"})
    if (!which || method == which)
      runAndCompare(m, PTEC_TWO_METHODS_DIR, method, method + "_input_0.npy",
                    method + "_expected_0.npy");
}

} // namespace

TEST_CASE("xnnpack e2e: prefill and decode of one program pack each weight once",
          "[xnnpack][e2e]") {
  XnnpackBackend &b = backend();
  const auto bytes = readFile(PTEC_XNNPACK_TWO_METHODS_PTE);
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
  const auto bytes = readFile(PTEC_XNNPACK_TWO_METHODS_PTE);
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
    auto m = loadModule(readFile(PTEC_XNNPACK_TWO_METHODS_PTE));
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
  auto m = loadModule(readFile(shared ? PTEC_XNNPACK_TEN_CALLS_PTE
                                      : PTEC_XNNPACK_TEN_CALLS_UNSHARED_PTE));
  loadMethod(*m, "forward");
  CHECK(b.stats().inits.load() == (shared ? 1u : 10u));
  runAndCompare(*m, PTEC_TEN_CALLS_DIR, "forward", "input_0.npy", "expected_0.npy");
  CHECK(b.stats().executes.load() == 10);
}
