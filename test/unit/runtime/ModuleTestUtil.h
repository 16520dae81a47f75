// Programs as an rt::Module in the tests: read a .pte, load it and its
// methods (the runtime's detail shown when that fails), and run a method on
// a fixture's stored .npy input against its expected .npy output. Shared by the
// runtime, delegation and backend end-to-end tests; header only, so a test
// links only what it calls (portableOptions() needs the portable kernels).
#pragma once

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

namespace ptec::rt::test {

/// The bytes of file `path`; the test stops when it cannot be read.
inline std::vector<uint8_t> readBytes(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE(f.good());
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f),
                              std::istreambuf_iterator<char>());
}

/// Module options whose kernels are the portable library's.
inline ModuleOptions portableOptions() {
  ModuleOptions o;
  o.kernels = KernelResolver(&findKernel);
  return o;
}

/// `bytes` as a Module under `options`; the test stops, showing the
/// loader's detail, when it does not load.
inline std::unique_ptr<Module> loadModuleWith(const std::vector<uint8_t> &bytes,
                                              const ModuleOptions &options) {
  std::string detail;
  auto m = Module::fromBytes(bytes.data(), bytes.size(), options, &detail);
  INFO(detail);
  REQUIRE(m.ok());
  return std::move(m.get());
}

/// Loads method `name` of `m`; the test stops, showing the module's
/// detail, when it does not load.
inline void loadMethod(Module &m, const char *name) {
  Error e = m.loadMethod(name);
  INFO(m.errorDetail());
  REQUIRE(e == Error::Ok);
}

/// Runs `method` of `m` on the input a test/models fixture stores in `dir`
/// (<prefix>input_0.npy); its first output must be the float tensor stored
/// as <prefix>expected_0.npy, every element within 1e-5 + 1e-4 |want|.
inline void checkMethodOutput(Module &m, const std::string &method, const std::string &dir,
                              const std::string &prefix = "") {
  std::string detail;
  auto input = readNpy((dir + "/" + prefix + "input_0.npy").c_str(), &detail);
  auto expected = readNpy((dir + "/" + prefix + "expected_0.npy").c_str(), &detail);
  INFO(detail);
  REQUIRE(input.ok());
  REQUIRE(expected.ok());
  Tensor x;
  REQUIRE(x.init(input->dtype, Span<const int64_t>(input->shape.data(), input->shape.size())) ==
          Error::Ok);
  x.setData(input->data.data(), input->data.size());
  REQUIRE(m.setInput(method.c_str(), 0, x) == Error::Ok);
  Error e = m.execute(method.c_str());
  INFO(m.errorDetail());
  REQUIRE(e == Error::Ok);
  const EValue *out = m.output(method.c_str(), 0);
  REQUIRE(out != nullptr);
  REQUIRE(out->isTensor());
  const Tensor &y = out->toTensor();
  REQUIRE(y.dtype() == ScalarType::Float);
  REQUIRE(static_cast<size_t>(y.numel()) * sizeof(float) == expected->data.size());
  std::vector<float> want(static_cast<size_t>(y.numel()));
  std::memcpy(want.data(), expected->data.data(), expected->data.size());
  const float *got = y.dataAs<const float>();
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (!(std::fabs(double(got[i]) - want[i]) <= 1e-5 + 1e-4 * std::fabs(double(want[i]))))
      ++bad;
  INFO(method << ": " << bad << " of " << want.size() << " elements outside tolerance");
  CHECK(bad == 0);
}

} // namespace ptec::rt::test
