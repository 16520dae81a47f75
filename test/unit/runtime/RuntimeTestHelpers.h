// Shared fixtures of the runtime tests: small programs and host tensors.
#pragma once

#include "runtime/executor/Module.h"
#include "test/unit/runtime/PteTestUtil.h"
#include "test/unit/runtime/TestKernels.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

namespace ptec::rt::test {

/// A float32 tensor over a vector the test owns.
struct HostTensor {
  std::vector<float> data;
  std::vector<int64_t> sizes;
  Tensor t;
  HostTensor(std::vector<int64_t> shape, std::vector<float> values)
      : data(std::move(values)), sizes(std::move(shape)) {
    REQUIRE(t.init(ScalarType::Float, Span<const int64_t>(sizes.data(), sizes.size())) == Error::Ok);
    t.setData(data.data(), data.size() * sizeof(float));
  }
};

inline std::vector<float> floatsOf(const EValue *v) {
  const Tensor &t = v->toTensor();
  return std::vector<float>(t.dataAs<const float>(), t.dataAs<const float>() + t.numel());
}

/// forward(x, y) = x + y on [2, 2] float32; all three tensors planned.
inline fb::ProgramT addProgram(const std::string &name = "forward") {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, name));
  int x = b.plannedTensor({2, 2}, 1, 0);
  int y = b.plannedTensor({2, 2}, 1, 16);
  int alpha = b.intValue(1);
  int out = b.plannedTensor({2, 2}, 1, 32);
  int add = b.op("aten::add", "out");
  b.kernelCall(add, {x, y, alpha, out, out});
  b.plan().inputs = {x, y};
  b.plan().outputs = {out};
  emptyConstantSegment(p);
  return p;
}

inline ModuleOptions testOptions() {
  ModuleOptions o;
  o.kernels = testResolver();
  return o;
}

/// Load bytes as a Module with the test kernels; REQUIREs success.
std::unique_ptr<Module> loadModule(const std::vector<uint8_t> &bytes);

/// Runs the loaded `method` of `m` on one float32 input, `values` of shape
/// `sizes`; the values of its first output. The test stops on an error.
std::vector<float> runWithInput(Module &m, const char *method, std::vector<int64_t> sizes,
                                std::vector<float> values);

/// Load bytes and method `name`; returns the error and fills `detail`.
Error loadMethodError(const std::vector<uint8_t> &bytes, const char *name, std::string &detail);

} // namespace ptec::rt::test
