// Comparison with an expected array within atol + rtol * |expected|
// (tooling/Compare.h).
#include "tooling/Compare.h"

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
