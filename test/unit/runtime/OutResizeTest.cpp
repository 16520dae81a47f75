// Out arguments are resized under the program's rules, as upstream's
// runtime resizes them (resize_tensor): a tensor's rank never changes, a
// STATIC one only takes the shape it was declared with, a DYNAMIC_BOUND one
// any shape with at most its declared element count. And the kernels that
// never resize their outs upstream (split_copy.Tensor_out, unbind_copy.int_out)
// check them here too. Each case runs a small program on the portable kernels
// at a call size below the input's bound, where the rules differ from a
// plain capacity check.
#include "test/unit/runtime/ModuleTestUtil.h"
#include "test/unit/runtime/RuntimeTestHelpers.h"

#include <catch2/catch.hpp>

#include <numeric>

using namespace ptec::rt;
using namespace ptec::rt::test;
using Catch::Matchers::Contains;

namespace {

std::vector<int64_t> shapeOf(const EValue *v) {
  const Tensor &t = v->toTensor();
  return std::vector<int64_t>(t.sizes().begin(), t.sizes().end());
}

/// forward(x: f32[2, <=8]) -> x + x, written into an out declared `outSizes`
/// with `outDyn`.
fb::ProgramT addProgram(std::vector<int32_t> outSizes, fb::TensorShapeDynamism outDyn) {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  int x = b.plannedTensor({2, 8}, 1, 0);
  int out = b.plannedTensor(outSizes, 1, 128);
  b.tensorAt(x).shape_dynamism = fb::TensorShapeDynamism::DYNAMIC_BOUND;
  b.tensorAt(out).shape_dynamism = outDyn;
  int alpha = b.intValue(1);
  b.kernelCall(b.op("aten::add", "out"), {x, x, alpha, out, out});
  b.plan().inputs = {x};
  b.plan().outputs = {out};
  emptyConstantSegment(p);
  return p;
}

/// Runs `p` with x of shape [2, n] (values 0, 1, ...); returns execute's error.
Error runAt(fb::ProgramT &p, int64_t n, std::unique_ptr<Module> &m, std::string *detail) {
  m = loadModuleWith(serialize(p, {{}}), portableOptions());
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  Method *method = m->method("forward");
  std::vector<float> data(static_cast<size_t>(2 * n));
  std::iota(data.begin(), data.end(), 0.0f);
  HostTensor hx({2, n}, data);
  REQUIRE(method->setInput(0, hx.t) == Error::Ok);
  Error e = method->execute();
  *detail = method->errorDetail();
  return e;
}

} // namespace

TEST_CASE("a STATIC out takes only its declared shape", "[runtime][resize]") {
  fb::ProgramT p = addProgram({2, 8}, fb::TensorShapeDynamism::STATIC);
  std::unique_ptr<Module> m;
  std::string why;
  REQUIRE(runAt(p, 8, m, &why) == Error::Ok);
  CHECK(shapeOf(m->output("forward", 0)) == std::vector<int64_t>{2, 8});
  // Smaller than declared: upstream refuses ("Attempted to resize a static
  // tensor"), although the bytes would fit.
  REQUIRE(runAt(p, 4, m, &why) == Error::InvalidArgument);
  CHECK_THAT(why, Contains("instruction 0 (aten::add.out) failed"));
  CHECK_THAT(why, Contains("cannot resize out [2, 8] to [2, 4]: the tensor is STATIC"));
}

TEST_CASE("a DYNAMIC_BOUND out is bounded by its element count, not per dimension",
          "[runtime][resize]") {
  // Declared [4, 4]: 16 elements. [2, 8] fits the count (upstream's rule),
  // though its dimension 1 is above 4.
  fb::ProgramT p = addProgram({4, 4}, fb::TensorShapeDynamism::DYNAMIC_BOUND);
  std::unique_ptr<Module> m;
  std::string why;
  REQUIRE(runAt(p, 8, m, &why) == Error::Ok);
  CHECK(shapeOf(m->output("forward", 0)) == std::vector<int64_t>{2, 8});
  REQUIRE(runAt(p, 3, m, &why) == Error::Ok);
  CHECK(shapeOf(m->output("forward", 0)) == std::vector<int64_t>{2, 3});
  CHECK(floatsOf(m->output("forward", 0)) == std::vector<float>{0, 2, 4, 6, 8, 10});

  // Declared [2, 3]: 6 elements (its planned bytes hold no more).
  fb::ProgramT small = addProgram({2, 3}, fb::TensorShapeDynamism::DYNAMIC_BOUND);
  REQUIRE(runAt(small, 3, m, &why) == Error::Ok);
  REQUIRE(runAt(small, 4, m, &why) == Error::InvalidArgument);
  CHECK_THAT(why, Contains("cannot resize out to [2, 4]"));
}

TEST_CASE("a program's tensor never changes rank", "[runtime][resize]") {
  // [16] and [2, 8, 1] hold the 16 elements of [2, 8], in either dynamism.
  for (auto dyn : {fb::TensorShapeDynamism::STATIC, fb::TensorShapeDynamism::DYNAMIC_BOUND}) {
    for (std::vector<int32_t> sizes : {std::vector<int32_t>{16}, std::vector<int32_t>{2, 8, 1}}) {
      INFO("out rank " << sizes.size() << ", dynamism " << int(dyn));
      fb::ProgramT p = addProgram(sizes, dyn);
      std::unique_ptr<Module> m;
      std::string why;
      REQUIRE(runAt(p, 8, m, &why) == Error::InvalidArgument);
      CHECK_THAT(why, Contains("the rank of a program's tensor cannot change"));
    }
  }
}

TEST_CASE("a tensor built outside a program resizes within its capacity", "[runtime][resize]") {
  std::vector<float> buf(8);
  Tensor t;
  const int64_t dims[] = {2, 4};
  REQUIRE(t.init(ScalarType::Float, Span<const int64_t>(dims, 2)) == Error::Ok);
  t.setData(buf.data(), buf.size() * sizeof(float));
  CHECK(t.dynamism() == ShapeDynamism::Free);
  CHECK(t.resize({8}) == Error::Ok);
  CHECK(t.resize({1, 2, 4}) == Error::Ok);
  CHECK(t.resize({3, 3}) == Error::InvalidArgument); // 36 bytes > 32
  t.setDynamism(ShapeDynamism::Bounded); // bound: 8 elements, rank 3
  CHECK(t.numelBound() == 8);
  CHECK(t.resize({1, 8}) == Error::InvalidArgument); // rank 3 stays
  CHECK(t.resize({2, 1, 3}) == Error::Ok);
  t.setData(buf.data(), 64); // more memory than the bound: the bound still holds
  const int64_t big[] = {3, 1, 3};
  CHECK(std::string(t.resizeProblem(Span<const int64_t>(big, 3))) ==
        "the tensor is DYNAMIC_BOUND and the shape has more elements than its bound");
  t.setDynamism(ShapeDynamism::Static);
  CHECK(t.resize({2, 1, 3}) == Error::Ok); // its own shape
  CHECK(t.resize({1, 2, 3}) == Error::InvalidArgument);
  // Rank 0 always "resizes" to rank 0, whatever the dynamism.
  Tensor s;
  REQUIRE(s.init(ScalarType::Float, Span<const int64_t>()) == Error::Ok);
  s.setData(buf.data(), sizeof(float));
  s.setDynamism(ShapeDynamism::Static);
  CHECK(s.resize(Span<const int64_t>()) == Error::Ok);
}

namespace {

/// forward(x: f32[2, <=8]) -> two pieces of x by `op`: "split" along dim 1
/// with split_size 4 (outs declared [2, 4]), "unbind" along dim 0 (outs
/// declared [8]), "split_with_sizes" [1, 1] along dim 0 (outs declared
/// [1, 8]); every tensor DYNAMIC_BOUND.
fb::ProgramT splitProgram(const std::string &op) {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  int x = b.plannedTensor({2, 8}, 1, 0);
  const bool unbind = op == "unbind";
  std::vector<int32_t> piece = unbind                ? std::vector<int32_t>{8}
                               : op == "split" ? std::vector<int32_t>{2, 4}
                                               : std::vector<int32_t>{1, 8};
  int o0 = b.plannedTensor(piece, 1, 128), o1 = b.plannedTensor(piece, 1, 256);
  for (int v : {x, o0, o1})
    b.tensorAt(v).shape_dynamism = fb::TensorShapeDynamism::DYNAMIC_BOUND;
  int outs = b.tensorList({o0, o1});
  if (op == "split")
    b.kernelCall(b.op("aten::split_copy", "Tensor_out"),
                 {x, b.intValue(4), b.intValue(1), outs, outs});
  else if (op == "unbind")
    b.kernelCall(b.op("aten::unbind_copy", "int_out"), {x, b.intValue(0), outs, outs});
  else
    b.kernelCall(b.op("aten::split_with_sizes_copy", "out"),
                 {x, b.intList({b.intValue(1), b.intValue(1)}), b.intValue(0), outs, outs});
  b.plan().inputs = {x};
  b.plan().outputs = {o0, o1};
  emptyConstantSegment(p);
  return p;
}

} // namespace

TEST_CASE("split_copy.Tensor_out and unbind_copy.int_out never resize their outs",
          "[runtime][resize]") {
  std::unique_ptr<Module> m;
  std::string why;
  // At the bound the outs already have their pieces' shapes.
  fb::ProgramT split = splitProgram("split");
  REQUIRE(runAt(split, 8, m, &why) == Error::Ok);
  CHECK(floatsOf(m->output("forward", 1)) == std::vector<float>{4, 5, 6, 7, 12, 13, 14, 15});
  // Below it, upstream's kernel fails its out check, and so does this one.
  REQUIRE(runAt(split, 7, m, &why) == Error::InvalidArgument);
  CHECK_THAT(why, Contains("split_copy: out[1] (never resized by this kernel) has shape "
                           "[2, 4], expected [2, 3]"));
  fb::ProgramT unbind = splitProgram("unbind");
  REQUIRE(runAt(unbind, 8, m, &why) == Error::Ok);
  REQUIRE(runAt(unbind, 5, m, &why) == Error::InvalidArgument);
  CHECK_THAT(why, Contains("unbind_copy: out[0] (never resized by this kernel) has shape "
                           "[8], expected [5]"));
  // split_with_sizes_copy resizes its outs, as upstream's does.
  fb::ProgramT sizes = splitProgram("split_with_sizes");
  REQUIRE(runAt(sizes, 5, m, &why) == Error::Ok);
  CHECK(shapeOf(m->output("forward", 1)) == std::vector<int64_t>{1, 5});
  CHECK(floatsOf(m->output("forward", 1)) == std::vector<float>{5, 6, 7, 8, 9});
}
