// Tensors with a non-contiguous dim order (channels-last) load; a kernel that
// cannot compute a layout fails at method load naming the operator and the
// value; planned inputs are converted from the caller's layout.
#include "test/unit/runtime/RuntimeTestHelpers.h"

#include <catch2/catch.hpp>

using namespace ptec::rt;
using namespace ptec::rt::test;
using Catch::Matchers::Contains;

namespace {

const std::vector<uint8_t> kChannelsLast = {0, 2, 3, 1};

/// forward(x, y) = x + y on [1, 2, 2, 2] float32, x and y planned with the
/// given dim orders, out with `outOrder`.
fb::ProgramT addProgram4d(std::vector<uint8_t> xOrder, std::vector<uint8_t> yOrder,
                          std::vector<uint8_t> outOrder) {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  int x = b.plannedTensor({1, 2, 2, 2}, 1, 0);
  int y = b.plannedTensor({1, 2, 2, 2}, 1, 32);
  int alpha = b.intValue(1);
  int out = b.plannedTensor({1, 2, 2, 2}, 1, 64);
  b.tensorAt(x).dim_order = xOrder;
  b.tensorAt(y).dim_order = yOrder;
  b.tensorAt(out).dim_order = outOrder;
  b.kernelCall(b.op("aten::add", "out"), {x, y, alpha, out, out});
  b.plan().inputs = {x, y};
  b.plan().outputs = {out};
  emptyConstantSegment(p);
  return p;
}

} // namespace

TEST_CASE("channels-last tensors load and run", "[runtime][dim_order]") {
  fb::ProgramT p = addProgram4d(kChannelsLast, kChannelsLast, kChannelsLast);
  auto m = loadModule(serialize(p, {{}}));
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  const EValue *in0 = m->method("forward")->input(0);
  REQUIRE(in0->toTensor().isChannelsLast());
  CHECK(in0->toTensor().stride(1) == 1);
  // Contiguous host tensors: setInput converts them into the NHWC arenas.
  HostTensor hx({1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  HostTensor hy({1, 2, 2, 2}, {10, 10, 10, 10, 20, 20, 20, 20});
  REQUIRE(m->setInput("forward", 0, hx.t) == Error::Ok);
  REQUIRE(m->setInput("forward", 1, hy.t) == Error::Ok);
  // In memory x is now (h, w, c): 0, 4, 1, 5, 2, 6, 3, 7.
  const float *px = in0->toTensor().dataAs<const float>();
  CHECK(std::vector<float>(px, px + 8) == std::vector<float>{0, 4, 1, 5, 2, 6, 3, 7});
  REQUIRE(m->execute("forward") == Error::Ok);
  const Tensor &out = m->output("forward", 0)->toTensor();
  REQUIRE(out.isChannelsLast());
  std::vector<float> logical;
  for (int64_t i = 0; i < out.numel(); ++i)
    logical.push_back(out.dataAs<const float>()[out.offsetOf(i)]);
  CHECK(logical == std::vector<float>{10, 11, 12, 13, 24, 25, 26, 27});
}

TEST_CASE("a layout the kernel cannot compute fails at load", "[runtime][dim_order]") {
  std::string detail;
  SECTION("mixed orders for a same-dim-order kernel") {
    fb::ProgramT p = addProgram4d(kChannelsLast, {0, 1, 2, 3}, kChannelsLast);
    REQUIRE(loadMethodError(serialize(p, {{}}), "forward", detail) == Error::NotSupported);
    REQUIRE_THAT(detail, Contains("instruction 0 (aten::add.out): value 1 has dim_order "
                                  "[0, 1, 2, 3] but value 0 has [0, 2, 3, 1]; this kernel "
                                  "needs all tensors contiguous or all channels-last"));
  }
  SECTION("an order that is neither contiguous nor channels-last") {
    fb::ProgramT p = addProgram4d({1, 0, 2, 3}, {1, 0, 2, 3}, {1, 0, 2, 3});
    REQUIRE(loadMethodError(serialize(p, {{}}), "forward", detail) == Error::NotSupported);
    REQUIRE_THAT(detail, Contains("instruction 0 (aten::add.out): value 0 has dim_order "
                                  "[1, 0, 2, 3]; this kernel handles contiguous or "
                                  "channels-last tensors only"));
  }
  SECTION("a contiguous-only kernel") {
    fb::ProgramT p;
    PlanBuilder b(addPlan(p, "forward"));
    int x = b.plannedTensor({1, 1, 2, 2}, 1, 0);
    b.tensorAt(x).dim_order = kChannelsLast;
    b.kernelCall(b.op("test::inc", ""), {x});
    b.plan().inputs = {x};
    b.plan().outputs = {x};
    emptyConstantSegment(p);
    REQUIRE(loadMethodError(serialize(p, {{}}), "forward", detail) == Error::NotSupported);
    REQUIRE_THAT(detail, Contains("instruction 0 (test::inc): value 0 has dim_order "
                                  "[0, 2, 3, 1]; this kernel handles only contiguous tensors"));
  }
}

TEST_CASE("a borrowed input must match the program's dim order", "[runtime][dim_order]") {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  int x = b.tensor({1, 2, 1, 2}); // not planned: the method borrows the pointer
  b.tensorAt(x).dim_order = kChannelsLast;
  int y = b.plannedTensor({1, 2, 1, 2}, 1, 0);
  b.tensorAt(y).dim_order = kChannelsLast;
  int out = b.plannedTensor({1, 2, 1, 2}, 1, 16);
  b.tensorAt(out).dim_order = kChannelsLast;
  b.kernelCall(b.op("aten::add", "out"), {x, y, b.intValue(1), out, out});
  b.plan().inputs = {x, y};
  b.plan().outputs = {out};
  emptyConstantSegment(p);
  auto m = loadModule(serialize(p, {{}}));
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  HostTensor hx({1, 2, 1, 2}, {1, 2, 3, 4});
  REQUIRE(m->setInput("forward", 0, hx.t) == Error::InvalidArgument);
  REQUIRE_THAT(m->errorDetail(), Contains("input 0: dim_order [0, 1, 2, 3] differs from the "
                                          "program's [0, 2, 3, 1]"));
  // The same bytes declared channels-last are accepted as they are.
  const uint8_t cl[] = {0, 2, 3, 1};
  REQUIRE(hx.t.init(ScalarType::Float, {hx.sizes.data(), 4}, {cl, 4}) == Error::Ok);
  REQUIRE(m->setInput("forward", 0, hx.t) == Error::Ok);
}

TEST_CASE("a MoveCall may not change a value's dim order", "[runtime][dim_order]") {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  int x = b.plannedTensor({1, 2, 1, 2}, 1, 0);
  b.tensorAt(x).dim_order = kChannelsLast;
  int y = b.plannedTensor({1, 2, 1, 2}, 1, 16);
  b.move(x, y);
  b.kernelCall(b.op("test::inc", ""), {y}); // contiguous only: y must stay contiguous
  b.plan().inputs = {x};
  b.plan().outputs = {y};
  emptyConstantSegment(p);
  std::string detail;
  REQUIRE(loadMethodError(serialize(p, {{}}), "forward", detail) == Error::NotSupported);
  REQUIRE_THAT(detail, Contains("instruction 0: MoveCall from value 0 (dim_order [0, 2, 3, 1]) "
                                "to value 1 (dim_order [0, 1, 2, 3])"));
}
