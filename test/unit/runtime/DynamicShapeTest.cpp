// Bounded dynamic shapes end to end: DYNAMIC_BOUND inputs within their
// bounds, sym_size / executorch_prim scalar ops writing Int values that a
// view_copy's IntList reads at call time, outputs at their current shape, and
// the refusal of inputs above their bounds. Uses the portable kernels (and
// the prim ops findKernel also finds).
#include "test/unit/runtime/ModuleTestUtil.h"
#include "test/unit/runtime/RuntimeTestHelpers.h"

#include <catch2/catch.hpp>

#include <numeric>

using namespace ptec::rt;
using namespace ptec::rt::test;
using Catch::Matchers::Contains;

namespace {

std::unique_ptr<Module> loadPortable(const std::vector<uint8_t> &bytes) {
  return loadModuleWith(bytes, portableOptions());
}

/// Loads the forward method of `m`; the test stops when it does not load.
Method *loadForward(Module &m) {
  REQUIRE(m.loadMethod("forward") == Error::Ok);
  return m.method("forward");
}

std::vector<int64_t> shapeOf(const EValue *v) {
  const Tensor &t = v->toTensor();
  return std::vector<int64_t>(t.sizes().begin(), t.sizes().end());
}

/// forward(x: f32[2, <=32]) -> (view_copy(x + x, [2, s // 2, 2]), s, s > 10)
/// with s = x.size(1): the shape of the view comes from sym_size and
/// floordiv, whose results the IntList refers to.
struct DynamicViewProgram {
  fb::ProgramT p;
  int x, y, out, s, half, big;
  DynamicViewProgram() {
    PlanBuilder b(addPlan(p, "forward"));
    x = b.plannedTensor({2, 32}, 1, 0);
    y = b.plannedTensor({2, 32}, 1, 256);
    out = b.plannedTensor({2, 16, 2}, 1, 512);
    for (int v : {x, y, out})
      b.tensorAt(v).shape_dynamism = fb::TensorShapeDynamism::DYNAMIC_BOUND;
    int alpha = b.intValue(1);
    b.kernelCall(b.op("aten::add", "out"), {x, x, alpha, y, y});
    int one = b.intValue(-1); // dim -1: the last dimension
    s = b.intValue(0);        // placeholder sym_size overwrites
    b.kernelCall(b.op("aten::sym_size", "int"), {x, one, s});
    int two = b.intValue(2);
    half = b.intValue(0);
    b.kernelCall(b.op("executorch_prim::floordiv", "Scalar"), {s, two, half});
    int ten = b.intValue(10);
    big = b.boolValue(false);
    b.kernelCall(b.op("executorch_prim::gt", "Scalar"), {s, ten, big});
    int d0 = b.intValue(2), d2 = b.intValue(2);
    int size = b.intList({d0, half, d2});
    b.kernelCall(b.op("aten::view_copy", "out"), {y, size, out, out});
    b.plan().inputs = {x};
    b.plan().outputs = {out, s, big};
    emptyConstantSegment(p);
  }
};

} // namespace

TEST_CASE("sym_size feeds a view's IntList at call time under a DYNAMIC_BOUND input",
          "[runtime][dynamic]") {
  DynamicViewProgram prog;
  auto m = loadPortable(serialize(prog.p, {{}}));
  Method *method = loadForward(*m);

  for (int64_t n : {8, 6, 32, 22}) {
    INFO("x is [2, " << n << "]");
    std::vector<float> data(static_cast<size_t>(2 * n));
    std::iota(data.begin(), data.end(), 0.0f);
    HostTensor hx({2, n}, data);
    REQUIRE(method->setInput(0, hx.t) == Error::Ok);
    REQUIRE(method->execute() == Error::Ok);
    REQUIRE(method->output(1)->isInt());
    CHECK(method->output(1)->toInt() == n);
    REQUIRE(method->output(2)->isBool());
    CHECK(method->output(2)->toBool() == (n > 10));
    // The output has the view's current shape, not its bound [2, 16, 2].
    CHECK(shapeOf(method->output(0)) == std::vector<int64_t>{2, n / 2, 2});
    std::vector<float> want(data.size());
    for (size_t k = 0; k < want.size(); ++k)
      want[k] = 2.0f * data[k];
    CHECK(floatsOf(method->output(0)) == want);
    // The intermediate x + x was resized to the input's shape too.
    CHECK(shapeOf(method->value(prog.y)) == std::vector<int64_t>{2, n});
  }
}

TEST_CASE("a DYNAMIC_BOUND input above its bound is refused, naming the dimension",
          "[runtime][dynamic]") {
  DynamicViewProgram prog;
  auto m = loadPortable(serialize(prog.p, {{}}));
  Method *method = loadForward(*m);

  std::vector<float> data(2 * 33, 1.0f);
  HostTensor over({2, 33}, data);
  REQUIRE(method->setInput(0, over.t) == Error::InvalidArgument);
  CHECK_THAT(method->errorDetail(), Contains("input 0: dimension 1 is 33, above its bound 32"));

  HostTensor over0({3, 4}, std::vector<float>(12, 1.0f));
  REQUIRE(method->setInput(0, over0.t) == Error::InvalidArgument);
  CHECK_THAT(method->errorDetail(), Contains("input 0: dimension 0 is 3, above its bound 2"));

  // Fewer elements but another rank: refused too, naming both ranks.
  HostTensor flat({8}, std::vector<float>(8, 1.0f));
  REQUIRE(method->setInput(0, flat.t) == Error::InvalidArgument);
  CHECK_THAT(method->errorDetail(),
             Contains("input 0: shape [8] has rank 1, the method expects rank 2"));
  HostTensor deeper({1, 2, 2}, std::vector<float>(4, 1.0f));
  REQUIRE(method->setInput(0, deeper.t) == Error::InvalidArgument);
  CHECK_THAT(method->errorDetail(), Contains("has rank 3, the method expects rank 2"));

  // Nothing was set: execute still reports the missing input.
  REQUIRE(method->execute() == Error::InvalidArgument);
  CHECK_THAT(method->errorDetail(), Contains("input 0 has not been set"));

  // Exactly the bound, and an empty dimension, are accepted.
  HostTensor full({2, 32}, std::vector<float>(64, 1.0f));
  REQUIRE(method->setInput(0, full.t) == Error::Ok);
  REQUIRE(method->execute() == Error::Ok);
  CHECK(shapeOf(method->output(0)) == std::vector<int64_t>{2, 16, 2});
  HostTensor empty({2, 0}, {});
  REQUIRE(method->setInput(0, empty.t) == Error::Ok);
  REQUIRE(method->execute() == Error::Ok);
  CHECK(method->output(1)->toInt() == 0);
  CHECK(shapeOf(method->output(0)) == std::vector<int64_t>{2, 0, 2});
}

TEST_CASE("a STATIC input still takes only its declared shape", "[runtime][dynamic]") {
  DynamicViewProgram prog;
  prog.p.execution_plan[0]->values[prog.x]->val.AsTensor()->shape_dynamism =
      fb::TensorShapeDynamism::STATIC;
  auto m = loadPortable(serialize(prog.p, {{}}));
  Method *method = loadForward(*m);
  HostTensor smaller({2, 8}, std::vector<float>(16, 1.0f));
  REQUIRE(method->setInput(0, smaller.t) == Error::InvalidArgument);
  CHECK_THAT(method->errorDetail(), Contains("input 0: shape [2, 8], the method expects [2, 32]"));
  std::vector<float> data(64);
  std::iota(data.begin(), data.end(), 0.0f);
  HostTensor exact({2, 32}, data);
  REQUIRE(method->setInput(0, exact.t) == Error::Ok);
  REQUIRE(method->execute() == Error::Ok);
  CHECK(method->output(1)->toInt() == 32);
  CHECK(shapeOf(method->output(0)) == std::vector<int64_t>{2, 16, 2});
  CHECK(floatsOf(method->output(0))[63] == 126.0f);
}

TEST_CASE("prim ops are resolved and their arity is checked at load", "[runtime][dynamic]") {
  SECTION("a sym_size call with a missing return slot") {
    fb::ProgramT p;
    PlanBuilder b(addPlan(p, "forward"));
    int x = b.plannedTensor({2, 4}, 1, 0);
    int dim = b.intValue(0);
    b.kernelCall(b.op("aten::sym_size", "int"), {x, dim});
    b.plan().inputs = {x};
    b.plan().outputs = {dim};
    emptyConstantSegment(p);
    auto m = loadPortable(serialize(p, {{}}));
    REQUIRE(m->loadMethod("forward") == Error::InvalidProgram);
    CHECK_THAT(m->errorDetail(),
               Contains("(aten::sym_size.int): KernelCall has 2 args, the kernel takes exactly 3"));
  }
  SECTION("a binary prim op with an extra argument") {
    fb::ProgramT p;
    PlanBuilder b(addPlan(p, "forward"));
    int a = b.intValue(3), c = b.intValue(4), r = b.intValue(0);
    b.kernelCall(b.op("executorch_prim::add", "Scalar"), {a, c, r, r});
    b.plan().outputs = {r};
    emptyConstantSegment(p);
    auto m = loadPortable(serialize(p, {{}}));
    REQUIRE(m->loadMethod("forward") == Error::InvalidProgram);
    CHECK_THAT(m->errorDetail(),
               Contains("(executorch_prim::add.Scalar): KernelCall has 4 args, the kernel takes "
                        "exactly 3"));
  }
  SECTION("a scalar-only program runs") {
    fb::ProgramT p;
    PlanBuilder b(addPlan(p, "forward"));
    int a = b.intValue(-7), c = b.intValue(2), q = b.intValue(0), r = b.intValue(0),
        f = b.doubleValue(0);
    b.kernelCall(b.op("executorch_prim::floordiv", "Scalar"), {a, c, q});
    b.kernelCall(b.op("executorch_prim::mod", "Scalar"), {a, c, r});
    b.kernelCall(b.op("executorch_prim::truediv", "Scalar"), {a, c, f});
    b.plan().outputs = {q, r, f};
    emptyConstantSegment(p);
    auto m = loadPortable(serialize(p, {{}}));
    REQUIRE(m->loadMethod("forward") == Error::Ok);
    REQUIRE(m->execute("forward") == Error::Ok);
    CHECK(m->output("forward", 0)->toInt() == -4);
    CHECK(m->output("forward", 1)->toInt() == 1);
    REQUIRE(m->output("forward", 2)->isDouble());
    CHECK(m->output("forward", 2)->toDouble() == -3.5);
  }
}
