// Clean failures of the kernels added for upstream's full portable set: each
// bad input is refused with InvalidArgument (or NotSupported) and a message
// naming the problem, never a crash or a silent wrong answer.
#include "runtime/kernels/KernelRegistry.h"
#include "test/unit/kernels/KernelTestUtil.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

using namespace ptec;
using namespace ptec::test;

namespace {

/// Runs `name` and checks it fails with `want` and a message containing `part`.
void expectFailure(const char *name, std::vector<EValue *> args, const char *part,
                   Error want = Error::InvalidArgument) {
  const rt::KernelEntry *k = rt::findKernel(name);
  REQUIRE(k != nullptr);
  REQUIRE(static_cast<size_t>(k->numArgs) == args.size());
  rt::KernelContext ctx;
  Error e = k->fn(ctx, {args.data(), args.size()});
  INFO(name << ": " << ctx.message());
  CHECK(e == want);
  CHECK(std::string(ctx.message()).find(part) != std::string::npos);
}

} // namespace

TEST_CASE("bitwise and shift kernels refuse floating operands", "[kernels][errors]") {
  Boxer b;
  EValue *o = b.t(b.tensor(ScalarType::Float, {2}));
  expectFailure("aten::bitwise_and.Tensor_out", {b.f32({2}, {1, 2}), b.i64({2}, {1, 2}), o, o},
                "integral or bool");
  expectFailure("aten::bitwise_left_shift.Tensor_Scalar_out", {b.f32({2}, {1, 2}), b.i(1), o, o},
                "integral or bool");
  EValue *oi = b.t(b.tensor(ScalarType::Long, {2}));
  expectFailure("aten::bitwise_or.Scalar_out", {b.i64({2}, {1, 2}), b.d(1.5), oi, oi},
                "integer or bool Scalar");
}

TEST_CASE("integer floor_divide, fmod and remainder by zero fail", "[kernels][errors]") {
  Boxer b;
  EValue *o = b.t(b.tensor(ScalarType::Long, {2}));
  for (const char *k : {"aten::floor_divide.out", "aten::fmod.Tensor_out",
                        "aten::remainder.Tensor_out"})
    expectFailure(k, {b.i64({2}, {4, 5}), b.i64({2}, {2, 0}), o, o}, "division by zero");
  expectFailure("aten::remainder.Scalar_out", {b.i64({2}, {4, 5}), b.i(0), o, o},
                "division by zero");
  expectFailure("aten::fmod.Tensor_out",
                {b.t(b.tensor(ScalarType::Bool, {2})), b.t(b.tensor(ScalarType::Bool, {2})), o, o},
                "bool");
}

TEST_CASE("quantize / dequantize check dtypes and ranges", "[kernels][errors]") {
  Boxer b;
  EValue *x = b.f32({3}, {0.5f, -1, 2});
  EValue *q8 = b.t(b.tensor(ScalarType::Char, {3}));
  const char *q = "quantized_decomposed::quantize_per_tensor.out";
  expectFailure(q, {x, b.d(0.1), b.i(0), b.i(0), b.i(255), b.i(0 /*uint8*/), q8, q8},
                "differs from dtype");
  expectFailure(q, {x, b.d(0.1), b.i(0), b.i(10), b.i(-10), b.i(1), q8, q8}, "not a range");
  expectFailure(q, {x, b.d(0.1), b.i(0), b.i(-128), b.i(300), b.i(1), q8, q8}, "not a range");
  expectFailure(q, {x, b.d(0.0), b.i(0), b.i(-128), b.i(127), b.i(1), q8, q8}, "scale");
  expectFailure(q, {b.i64({3}, {1, 2, 3}), b.d(0.1), b.i(0), b.i(-128), b.i(127), b.i(1), q8, q8},
                "floating");
  EValue *f = b.t(b.tensor(ScalarType::Float, {3}));
  expectFailure("quantized_decomposed::dequantize_per_tensor.out",
                {q8, b.d(0.1), b.i(0), b.i(0), b.i(255), b.i(0 /*uint8*/), b.none(), f, f},
                "differs from dtype");
  EValue *h = b.t(b.tensor(ScalarType::Half, {3}));
  expectFailure("quantized_decomposed::dequantize_per_tensor.out",
                {q8, b.d(0.1), b.i(0), b.i(-128), b.i(127), b.i(1), b.none(), h, h}, "float32");
  EValue *w = b.f32({2, 2}, {1, 2, 3, 4});
  EValue *o22 = b.t(b.tensor(ScalarType::Char, {2, 2}));
  expectFailure("quantized_decomposed::quantize_per_channel.out",
                {w, b.f32({3}, {1, 1, 1}), b.i64({3}, {0, 0, 0}), b.i(0), b.i(-128), b.i(127),
                 b.i(1), o22, o22},
                "scales must be");
}

TEST_CASE("quantize refuses a NaN, infinite, zero or subnormal scale", "[kernels][errors]") {
  // `!(scale != 0)` let NaN through (NaN != 0 is true): every element then
  // quantized to quant_min, exit 0. Zero as a float32 (1e-50) is as
  // unusable; a subnormal one (1e-40) saturates (below).
  Boxer b;
  EValue *x = b.f32({3}, {0.5f, -1, 2});
  EValue *q8 = b.t(b.tensor(ScalarType::Char, {3}));
  const double nan = std::nan(""), inf = HUGE_VAL;
  for (double s : {nan, -nan, inf, 0.0, 1e-50}) {
    INFO("scale " << s);
    expectFailure("quantized_decomposed::quantize_per_tensor.out",
                  {x, b.d(s), b.i(0), b.i(-128), b.i(127), b.i(1), q8, q8},
                  "zero, NaN or infinite");
    expectFailure("quantized_decomposed::quantize_per_tensor.Tensor_out",
                  {x, b.f32({1}, {float(s)}), b.i64({1}, {0}), b.i(-128), b.i(127), b.i(1), q8,
                   q8},
                  "zero, NaN or infinite");
  }
  EValue *w = b.f32({2, 2}, {1, 2, 3, 4});
  EValue *o22 = b.t(b.tensor(ScalarType::Char, {2, 2}));
  for (float s : {std::nanf(""), INFINITY, 0.0f}) {
    INFO("channel scale " << s);
    expectFailure("quantized_decomposed::quantize_per_channel.out",
                  {w, b.f32({2}, {0.5f, s}), b.i64({2}, {0, 0}), b.i(0), b.i(-128), b.i(127),
                   b.i(1), o22, o22},
                  "scale 1 is");
    EValue *f22 = b.t(b.tensor(ScalarType::Float, {2, 2}));
    expectFailure("quantized_decomposed::dequantize_per_channel.out",
                  {o22, b.f32({2}, {s, 0.5f}), b.none(), b.i(0), b.i(-128), b.i(127), b.i(1),
                   b.none(), f22, f22},
                  "scale 0 is");
  }
  // A small but usable scale still quantizes: 0.5 / 2^-20 saturates at 127.
  const rt::KernelEntry *k = rt::findKernel("quantized_decomposed::quantize_per_tensor.out");
  REQUIRE(k != nullptr);
  std::vector<EValue *> args{x, b.d(std::ldexp(1.0, -20)), b.i(0), b.i(-128), b.i(127), b.i(1),
                             q8, q8};
  rt::KernelContext ctx;
  REQUIRE(k->fn(ctx, {args.data(), args.size()}) == Error::Ok);
  const int8_t *q = q8->toTensor().dataAs<const int8_t>();
  CHECK((q[0] == 127 && q[1] == -128 && q[2] == 127));
  // So does a subnormal one, whose float32 reciprocal is infinite (PyTorch's too).
  args[1] = b.d(1e-40);
  for (int i = 0; i < 3; ++i)
    const_cast<int8_t *>(q)[i] = 0;
  REQUIRE(k->fn(ctx, {args.data(), args.size()}) == Error::Ok);
  CHECK((q[0] == 127 && q[1] == -128 && q[2] == 127));
}

TEST_CASE("data-sized outputs fail cleanly beyond their capacity", "[kernels][errors]") {
  Boxer b;
  // nonzero of 3 nonzero elements needs 3 x 1 int64, capacity is one.
  EValue *small = b.t(b.tensor(ScalarType::Long, {1, 1}, 8));
  expectFailure("aten::nonzero.out", {b.f32({3}, {1, 2, 3}), small, small}, "cannot resize");
  EValue *o = b.t(b.tensor(ScalarType::Float, {1}, 4));
  EValue *m = b.t(b.tensor(ScalarType::Bool, {3}));
  for (int i = 0; i < 3; ++i)
    m->toTensor().dataAs<bool>()[i] = true;
  expectFailure("aten::masked_select.out", {b.f32({3}, {1, 2, 3}), m, o, o}, "cannot resize");
  EValue *o3 = b.t(b.tensor(ScalarType::Float, {3}));
  expectFailure("aten::masked_scatter.out", {b.f32({3}, {1, 2, 3}), m, b.f32({2}, {7, 8}), o3, o3},
                "more elements than source");
  EValue *oi = b.t(b.tensor(ScalarType::Long, {4}));
  expectFailure("aten::repeat_interleave.Tensor_out", {b.i64({2}, {1, -1}), b.none(), oi, oi},
                ">= 0");
  expectFailure("aten::repeat_interleave.Tensor_out", {b.i64({2}, {1, 2}), b.i(4), oi, oi},
                "output_size");
}

TEST_CASE("view-like copies range-check their geometry", "[kernels][errors]") {
  Boxer b;
  EValue *x = b.f32({2, 3}, {1, 2, 3, 4, 5, 6});
  EValue *o = b.t(b.tensor(ScalarType::Float, {6}));
  expectFailure("aten::as_strided_copy.out",
                {x, b.intList({3, 3}), b.intList({3, 1}), b.none(), o, o}, "reaches element");
  expectFailure("aten::unfold_copy.out", {x, b.i(1), b.i(4), b.i(1), o, o}, "exceeds dim size");
  expectFailure("aten::narrow_copy.out", {x, b.i(1), b.i(2), b.i(2), o, o}, "exceeds size");
  expectFailure("aten::diagonal_copy.out", {x, b.i(0), b.i(1), b.i(-1), o, o}, "must differ");
  expectFailure("aten::flip.out", {x, b.intList({0, -2}), o, o}, "more than once");
  expectFailure("aten::repeat.out", {x, b.intList({2}), o, o}, "at least the rank");
  EValue *p = b.f32({1, 3, 2, 2}, std::vector<float>(12, 1));
  expectFailure("aten::pixel_shuffle.out", {p, b.i(2), o, o}, "divisible");
  expectFailure("aten::reflection_pad1d.out", {x, b.intList({3, 0}), o, o}, "must be in");
  expectFailure("aten::replication_pad2d.out", {x, b.intList({1, 1}), o, o}, "4 values");
}

TEST_CASE("reductions and normalisations refuse what PyTorch refuses", "[kernels][errors]") {
  Boxer b;
  EValue *o = b.t(b.tensor(ScalarType::Long, {2}));
  expectFailure("aten::var.out",
                {b.i64({2, 2}, {1, 2, 3, 4}), b.intList({1}), b.b(true), b.b(false), o, o},
                "floating");
  EValue *of = b.t(b.tensor(ScalarType::Float, {}));
  expectFailure("aten::max.unary_out", {b.t(b.tensor(ScalarType::Float, {0})), of, of}, "empty");
  EValue *x = b.f32({2, 3}, {1, 2, 3, 4, 5, 6});
  EValue *o2 = b.t(b.tensor(ScalarType::Float, {2, 3}));
  expectFailure("aten::glu.out", {x, b.i(1), o2, o2}, "even size");
  EValue *vals = b.t(b.tensor(ScalarType::Float, {2, 3}));
  EValue *idx = b.t(b.tensor(ScalarType::Long, {2, 3}));
  expectFailure("aten::topk.values",
                {x, b.i(4), b.i(1), b.b(true), b.b(true), vals, idx, b.tensorList({vals, idx})},
                "out of range");
  EValue *st = b.t(b.tensor(ScalarType::Float, {2}));
  expectFailure("aten::native_group_norm.out",
                {x, b.none(), b.none(), b.i(2), b.i(3), b.i(1), b.i(2), b.d(1e-5), o2, st, st,
                 b.tensorList({o2, st, st})},
                "must divide");
  expectFailure("aten::_native_batch_norm_legit.no_stats_out",
                {x, b.none(), b.none(), b.b(false), b.d(0.1), b.d(1e-5), o2, st, st,
                 b.tensorList({o2, st, st})},
                "evaluation mode");
  expectFailure("aten::native_dropout.out",
                {b.i64({2}, {1, 2}), b.d(0.5), b.b(true), o, b.t(b.tensor(ScalarType::Bool, {2})),
                 b.tensorList({o, o})},
                "floating");
}

TEST_CASE("resampling and backward kernels check their modes", "[kernels][errors]") {
  Boxer b;
  EValue *in = b.f32({1, 1, 2, 2}, {1, 2, 3, 4});
  EValue *grid = b.f32({1, 1, 1, 2}, {0, 0});
  EValue *o = b.t(b.tensor(ScalarType::Float, {1, 1, 1, 1}));
  expectFailure("aten::grid_sampler_2d.out", {in, grid, b.i(3), b.i(0), b.b(false), o, o},
                "unknown");
  EValue *ou = b.t(b.tensor(ScalarType::Float, {1, 1, 4, 4}));
  expectFailure("aten::upsample_nearest2d.vec_out",
                {in, b.intList({4, 4}), b.add(EValue::fromDoubleList({})), ou, ou}, "exactly one");
  EValue *oul = b.t(b.tensor(ScalarType::Long, {1, 1, 2, 2}));
  expectFailure("aten::upsample_bilinear2d.vec_out",
                {b.i64({1, 1, 1, 1}, {1}), b.intList({2, 2}), b.b(false), b.none(), oul, oul},
                "floating");
  EValue *w = b.f32({1, 1, 1, 1}, {1});
  EValue *g0 = b.t(b.tensor(ScalarType::Float, {1, 1, 2, 2}));
  EValue *g1 = b.t(b.tensor(ScalarType::Float, {1, 1, 1, 1}));
  EValue *g2 = b.t(b.tensor(ScalarType::Float, {1}));
  uint8_t mask[3] = {1, 1, 1};
  EValue *m = b.add(EValue::fromBoolList({mask, 3}));
  expectFailure("aten::convolution_backward.out",
                {in, in, w, b.none(), b.intList({1, 1}), b.intList({0, 0}), b.intList({1, 1}),
                 b.b(true), b.intList({0, 0}), b.i(1), m, g0, g1, g2, b.tensorList({g0, g1, g2})},
                "transposed", Error::NotSupported);
  expectFailure("aten::convolution_backward.out",
                {g1, in, w, b.none(), b.intList({1, 1}), b.intList({0, 0}), b.intList({1, 1}),
                 b.b(false), b.intList({0, 0}), b.i(1), m, g0, g1, g2, b.tensorList({g0, g1, g2})},
                "grad_output has shape");
  EValue *pg = b.f32({1, 1, 1, 1}, {1});
  EValue *pidx = b.i64({1, 1, 1, 1}, {7});
  expectFailure("aten::max_pool2d_with_indices_backward.grad_input",
                {pg, in, b.intList({2, 2}), b.intList({2, 2}), b.intList({0, 0}),
                 b.intList({1, 1}), b.b(false), pidx, g0, g0},
                "out of range");
}
