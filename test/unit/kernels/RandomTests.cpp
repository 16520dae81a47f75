// The random kernels (rand, randn, native_dropout): conformance cases can
// only check their shapes, so their distributions are checked here with
// bounds loose enough never to fail by chance (tens of standard errors).
#include "runtime/core/Half.h"
#include "runtime/kernels/KernelRegistry.h"
#include "test/unit/kernels/KernelTestUtil.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

using namespace ptec;
using namespace ptec::test;

namespace {

constexpr int64_t kN = 20000;

} // namespace

TEST_CASE("rand fills [0, 1) uniformly", "[kernels][random]") {
  for (ScalarType dt : {ScalarType::Float, ScalarType::Double, ScalarType::Half}) {
    Boxer b;
    rt::KernelContext ctx;
    rt::Tensor *t = b.tensor(dt, {kN});
    EValue *out = b.t(t);
    REQUIRE(call(ctx, "aten::rand.out", {b.intList({kN}), out, out}) == Error::Ok);
    double sum = 0, lo = 1, hi = 0;
    for (int64_t i = 0; i < kN; ++i) {
      double v = dt == ScalarType::Float    ? t->dataAs<float>()[i]
                 : dt == ScalarType::Double ? t->dataAs<double>()[i]
                                            : rt::halfToFloat(t->dataAs<uint16_t>()[i]);
      REQUIRE(v >= 0.0);
      REQUIRE(v < 1.0);
      sum += v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    CHECK(std::fabs(sum / kN - 0.5) < 0.02); // standard error 0.002
    CHECK(lo < 0.01);
    CHECK(hi > 0.99);
  }
}

TEST_CASE("randn draws a standard normal", "[kernels][random]") {
  Boxer b;
  rt::KernelContext ctx;
  rt::Tensor *t = b.tensor(ScalarType::Float, {kN});
  EValue *out = b.t(t);
  REQUIRE(call(ctx, "aten::randn.out", {b.intList({kN}), out, out}) == Error::Ok);
  double sum = 0, sq = 0;
  for (int64_t i = 0; i < kN; ++i) {
    sum += t->dataAs<float>()[i];
    sq += double(t->dataAs<float>()[i]) * t->dataAs<float>()[i];
  }
  double mean = sum / kN, var = sq / kN - mean * mean;
  CHECK(std::fabs(mean) < 0.05);      // standard error 0.007
  CHECK(std::fabs(var - 1.0) < 0.1); // standard error 0.01
  // Two calls draw different values.
  float first = t->dataAs<float>()[0];
  REQUIRE(call(ctx, "aten::randn.out", {b.intList({kN}), out, out}) == Error::Ok);
  CHECK(t->dataAs<float>()[0] != first);
}

TEST_CASE("native_dropout keeps 1 - p of the elements, scaled by 1 / (1 - p)",
          "[kernels][random]") {
  Boxer b;
  rt::KernelContext ctx;
  std::vector<float> ones(kN, 1.0f);
  EValue *in = b.f32({kN}, ones);
  rt::Tensor *o = b.tensor(ScalarType::Float, {kN});
  rt::Tensor *m = b.tensor(ScalarType::Bool, {kN});
  EValue *out = b.t(o), *mask = b.t(m);
  EValue *ret = b.tensorList({out, mask});
  REQUIRE(call(ctx, "aten::native_dropout.out", {in, b.d(0.25), b.b(true), out, mask, ret}) ==
          Error::Ok);
  int64_t kept = 0;
  for (int64_t i = 0; i < kN; ++i) {
    bool k = m->dataAs<bool>()[i];
    kept += k;
    REQUIRE(o->dataAs<float>()[i] == (k ? 1.0f / 0.75f : 0.0f));
  }
  CHECK(std::fabs(double(kept) / kN - 0.75) < 0.03); // standard error 0.003
  rt::KernelContext bad;
  CHECK(call(bad, "aten::native_dropout.out", {in, b.d(1.5), b.b(true), out, mask, ret}) ==
        Error::InvalidArgument);
  CHECK(std::string(bad.message()).find("between 0 and 1") != std::string::npos);
}
