// Comparison with an expected array within atol + rtol * |expected|
// (tooling/Compare.h).
#include "tooling/Compare.h"

#include "runtime/core/Half.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

using namespace ptec::rt;
using namespace ptec::tooling;

namespace {

NpyArray floats(std::vector<int64_t> shape, const std::vector<float> &v) {
  NpyArray a;
  a.dtype = ScalarType::Float;
  a.shape = std::move(shape);
  a.data.resize(v.size() * sizeof(float));
  std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}

/// A tensor over `v` (kept alive by the caller).
Tensor tensorOf(std::vector<float> &v, std::vector<int64_t> &shape) {
  Tensor t;
  REQUIRE(t.init(ScalarType::Float, Span<const int64_t>(shape.data(), shape.size())) ==
          Error::Ok);
  t.setData(v.data(), v.size() * sizeof(float));
  return t;
}

} // namespace

TEST_CASE("closeEnough: atol, rtol, NaN and infinities", "[tooling]") {
  double diff = 0;
  REQUIRE(closeEnough(1.0, 1.0, {0, 0}, diff));
  REQUIRE(diff == 0);
  REQUIRE(closeEnough(1.05, 1.0, {0, 0.1}, diff));
  REQUIRE_FALSE(closeEnough(1.2, 1.0, {0, 0.1}, diff));
  REQUIRE(diff == Approx(0.2));
  REQUIRE(closeEnough(100.5, 100.0, {0.01, 0}, diff)); // 0.5 <= 0.01 * 100
  REQUIRE_FALSE(closeEnough(100.5, 100.0, {0.001, 0.1}, diff));
  REQUIRE(closeEnough(NAN, NAN, {0, 0}, diff));
  REQUIRE_FALSE(closeEnough(NAN, 1.0, {1, 1}, diff));
  REQUIRE(std::isinf(diff));
  REQUIRE(closeEnough(INFINITY, INFINITY, {0, 0}, diff));
  REQUIRE_FALSE(closeEnough(INFINITY, -INFINITY, {1, 1}, diff));
  REQUIRE_FALSE(closeEnough(5.0, INFINITY, {1, 1}, diff));
  REQUIRE(std::isinf(diff));
}

TEST_CASE("compareWithExpected counts elements outside the tolerance", "[tooling]") {
  std::vector<float> got = {1, 2, 3, 4.5f};
  std::vector<int64_t> shape = {2, 2};
  Tensor t = tensorOf(got, shape);
  EValue v = EValue::fromTensor(&t);
  Comparison c;
  std::string problem;

  REQUIRE(compareWithExpected(v, floats({2, 2}, {1, 2, 3, 4.5f}), {1e-5, 1e-6}, c, problem));
  REQUIRE(c.ok());
  REQUIRE(c.elements == 4);
  REQUIRE(c.maxAbs == 0);
  REQUIRE(c.firstBad == -1);

  REQUIRE(compareWithExpected(v, floats({2, 2}, {1, 2.5f, 3, 4}), {0, 0.1}, c, problem));
  REQUIRE_FALSE(c.ok());
  REQUIRE(c.bad == 2);
  REQUIRE(c.firstBad == 1);
  REQUIRE(c.maxAbs == Approx(0.5));
  REQUIRE(c.maxRel == Approx(0.2)); // 0.5 / 2.5

  // A looser tolerance takes them.
  REQUIRE(compareWithExpected(v, floats({2, 2}, {1, 2.5f, 3, 4}), {0.2, 0}, c, problem));
  REQUIRE(c.ok());
}

TEST_CASE("compareWithExpected refuses what cannot be compared", "[tooling]") {
  std::vector<float> got = {1, 2, 3, 4};
  std::vector<int64_t> shape = {2, 2};
  Tensor t = tensorOf(got, shape);
  Comparison c;
  std::string problem;
  REQUIRE_FALSE(compareWithExpected(EValue::fromTensor(&t), floats({4}, {1, 2, 3, 4}),
                                    {0, 0}, c, problem));
  REQUIRE(problem == "has shape [2, 2], expected [4]");
  REQUIRE_FALSE(compareWithExpected(EValue::fromInt(3), floats({1}, {3}), {0, 0}, c, problem));
  REQUIRE(problem == "is not a tensor");
}

TEST_CASE("default tolerances follow torch.testing.assert_close per dtype", "[tooling]") {
  auto is = [](Tolerance t, double rtol, double atol) { return t.rtol == rtol && t.atol == atol; };
  CHECK(is(defaultTolerance(ScalarType::Float), 1.3e-6, 1e-5));
  CHECK(is(defaultTolerance(ScalarType::Half), 1e-3, 1e-5));
  CHECK(is(defaultTolerance(ScalarType::BFloat16), 1.6e-2, 1e-5));
  CHECK(is(defaultTolerance(ScalarType::Double), 1e-7, 1e-7));
  for (ScalarType exact : {ScalarType::Long, ScalarType::Int, ScalarType::Short,
                           ScalarType::Char, ScalarType::Byte, ScalarType::Bool})
    CHECK(is(defaultTolerance(exact), 0, 0));
  // Two dtypes: the looser default of the two (assert_close's rule); a
  // value given is kept.
  CHECK(is(resolveTolerance({}, ScalarType::Float, ScalarType::Double), 1.3e-6, 1e-5));
  CHECK(is(resolveTolerance({}, ScalarType::BFloat16, ScalarType::Float), 1.6e-2, 1e-5));
  CHECK(is(resolveTolerance({std::nullopt, 0.5}, ScalarType::Long, ScalarType::Long), 0, 0.5));
  CHECK(is(resolveTolerance({0.25, std::nullopt}, ScalarType::Float, ScalarType::Float), 0.25,
           1e-5));
}

TEST_CASE("the defaults take float32 reordering and refuse a wrong value", "[tooling]") {
  // GPT-2 on XNNPACK: errors of a few 1e-6 from summation order. The old
  // defaults (rtol 1e-5, atol 1e-6) refused them on small values.
  std::vector<float> got = {0.1f + 3.8e-6f, 31.0f + 3.8e-6f, -0.5f};
  std::vector<int64_t> shape = {3};
  Tensor t = tensorOf(got, shape);
  EValue v = EValue::fromTensor(&t);
  Comparison c;
  std::string problem;
  REQUIRE(compareWithExpected(v, floats({3}, {0.1f, 31.0f, -0.5f}), {}, c, problem));
  CHECK(c.ok());
  CHECK_FALSE(c.rtolGiven);
  CHECK(c.toleranceSource() == "float32 defaults");
  REQUIRE(compareWithExpected(v, floats({3}, {0.1f, 31.0f, -0.5f}), {1e-5, 1e-6}, c, problem));
  CHECK_FALSE(c.ok());
  CHECK(c.toleranceSource() == "as given");
  // A wrong value is still wrong.
  REQUIRE(compareWithExpected(v, floats({3}, {0.1f, 31.0f, -0.4f}), {}, c, problem));
  CHECK_FALSE(c.ok());
}

TEST_CASE("integers are compared exactly by default", "[tooling]") {
  std::vector<int64_t> got = {3, 4}, shape = {2};
  Tensor t;
  REQUIRE(t.init(ScalarType::Long, Span<const int64_t>(shape.data(), shape.size())) == Error::Ok);
  t.setData(got.data(), got.size() * sizeof(int64_t));
  NpyArray want;
  want.dtype = ScalarType::Long;
  want.shape = {2};
  std::vector<int64_t> w = {3, 5};
  want.data.resize(sizeof(int64_t) * 2);
  std::memcpy(want.data.data(), w.data(), want.data.size());
  Comparison c;
  std::string problem;
  REQUIRE(compareWithExpected(EValue::fromTensor(&t), want, {}, c, problem));
  CHECK(c.bad == 1);
  CHECK(c.tol.atol == 0);
  CHECK_FALSE(c.vacuous()); // atol 0: nothing passes by being small
}

TEST_CASE("a check whose expected values are all within atol proves nothing", "[tooling]") {
  // efficientnet with random weights: outputs of about 1e-14.
  std::vector<float> got = {0, 0, 0, 0};
  std::vector<int64_t> shape = {2, 2};
  Tensor t = tensorOf(got, shape);
  EValue v = EValue::fromTensor(&t);
  Comparison c;
  std::string problem;
  NpyArray tiny = floats({2, 2}, {1e-14f, -3e-14f, 2e-14f, 5e-15f});
  REQUIRE(compareWithExpected(v, tiny, {}, c, problem));
  CHECK(c.ok()); // all zeros pass ...
  CHECK(c.vacuous());
  CHECK(c.maxAbsExpected == Approx(3e-14));
  CHECK_THAT(c.vacuousAdvice(), Catch::Contains("proves nothing"));
  CHECK_THAT(c.vacuousAdvice(), Catch::Contains("--atol 3e-17"));
  // ... and the advice works: with that atol, zeros fail.
  REQUIRE(compareWithExpected(v, tiny, {std::nullopt, 3e-17}, c, problem));
  CHECK_FALSE(c.ok());
  CHECK_FALSE(c.vacuous());
  CHECK(c.vacuousAdvice().empty());
  // Ordinary values are not vacuous.
  REQUIRE(compareWithExpected(v, floats({2, 2}, {0, 0, 0, 1}), {}, c, problem));
  CHECK_FALSE(c.vacuous());
}

TEST_CASE("a mismatch names the first bad elements and the tolerances that pass",
          "[tooling]") {
  std::vector<float> got = {1, 2, 3, 4, 5, 6};
  std::vector<int64_t> shape = {2, 3};
  Tensor t = tensorOf(got, shape);
  EValue v = EValue::fromTensor(&t);
  NpyArray want = floats({2, 3}, {1, 2.5f, 3, 4, 5, 6.25f});
  Comparison c;
  std::string problem;
  REQUIRE(compareWithExpected(v, want, {0, 0.1}, c, problem));
  REQUIRE(c.bad == 2);
  REQUIRE(c.badShown.size() == 2);
  CHECK(c.badShown[0].index == std::vector<int64_t>{0, 1});
  CHECK(c.badShown[0].expected == 2.5);
  CHECK(c.badShown[0].actual == 2);
  CHECK(c.badShown[0].absErr == Approx(0.5));
  CHECK(c.badShown[0].relErr == Approx(0.2));
  CHECK(c.badShown[1].index == std::vector<int64_t>{1, 2});
  // atol 0.5 at rtol 0; rtol (0.5 - 0.1) / 2.5 = 0.16 at atol 0.1.
  CHECK(c.passingAtol == Approx(0.5));
  CHECK(c.passingRtol == Approx(0.16));
  REQUIRE(compareWithExpected(v, want, {0, c.passingAtol}, c, problem));
  CHECK(c.ok());
  REQUIRE(compareWithExpected(v, want, {0, 0.1}, c, problem));
  REQUIRE(compareWithExpected(v, want, {c.passingRtol, 0.1}, c, problem));
  CHECK(c.ok());
  REQUIRE(compareWithExpected(v, want, {0.15, 0.1}, c, problem));
  CHECK_FALSE(c.ok());
  // At most kShownBad shown, all counted.
  std::vector<float> many(12, 1.0f);
  std::vector<int64_t> shape12 = {12};
  Tensor t12 = tensorOf(many, shape12);
  REQUIRE(compareWithExpected(EValue::fromTensor(&t12), floats({12}, std::vector<float>(12, 2)),
                              {}, c, problem));
  CHECK(c.bad == 12);
  CHECK(c.badShown.size() == Comparison::kShownBad);
}

TEST_CASE("no tolerance passes a NaN, and no rtol an expected zero", "[tooling]") {
  std::vector<float> got = {NAN, 1};
  std::vector<int64_t> shape = {2};
  Tensor t = tensorOf(got, shape);
  Comparison c;
  std::string problem;
  REQUIRE(compareWithExpected(EValue::fromTensor(&t), floats({2}, {1, 1}), {}, c, problem));
  CHECK(std::isinf(c.passingAtol));
  CHECK(std::isinf(c.passingRtol));
  std::vector<float> off = {0.5f, 1};
  Tensor t2 = tensorOf(off, shape);
  REQUIRE(compareWithExpected(EValue::fromTensor(&t2), floats({2}, {0, 1}), {}, c, problem));
  CHECK(c.passingAtol == Approx(0.5));
  CHECK(std::isinf(c.passingRtol));
}

TEST_CASE("suggested tolerances are rounded up to two digits", "[tooling]") {
  CHECK(roundUpTwoDigits(0) == 0);
  CHECK(roundUpTwoDigits(2.19594586958749e-09) == 2.2e-09);
  CHECK(roundUpTwoDigits(0.5) == 0.5);
  CHECK(roundUpTwoDigits(0.16) == 0.16);
  CHECK(roundUpTwoDigits(3.7512e-6) == 3.8e-6);
  CHECK(std::isinf(roundUpTwoDigits(INFINITY)));
  for (double x : {1.234567e-20, 9.99e5, 0.1 + 0.2, 7.0})
    CHECK(roundUpTwoDigits(x) >= x);
}

TEST_CASE("float16 and bfloat16 elements are compared", "[tooling]") {
  std::vector<uint16_t> half = {floatToHalf(1.5f), floatToHalf(-2.0f)};
  std::vector<int64_t> shape = {2};
  Tensor t;
  REQUIRE(t.init(ScalarType::Half, Span<const int64_t>(shape.data(), shape.size())) == Error::Ok);
  t.setData(half.data(), half.size() * sizeof(uint16_t));
  Comparison c;
  std::string problem;
  // A float32 reference of a float16 output: float16's looser default.
  REQUIRE(compareWithExpected(EValue::fromTensor(&t), floats({2}, {1.5005f, -2}), {}, c,
                              problem));
  CHECK(c.ok());
  CHECK(c.tol.rtol == 1e-3);
  CHECK(c.dtypes == "float16 vs float32");
  std::vector<uint16_t> bf = {0x3fc0 /* 1.5 */, 0xc000 /* -2 */};
  t.setData(bf.data(), bf.size() * sizeof(uint16_t));
  Tensor b;
  REQUIRE(b.init(ScalarType::BFloat16, Span<const int64_t>(shape.data(), shape.size())) ==
          Error::Ok);
  b.setData(bf.data(), bf.size() * sizeof(uint16_t));
  REQUIRE(compareWithExpected(EValue::fromTensor(&b), floats({2}, {1.51f, -2}), {}, c, problem));
  CHECK(c.ok());
  CHECK(c.tol.rtol == 1.6e-2);
}
