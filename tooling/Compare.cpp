// Element-wise comparison with a tolerance (pte-run --expected); see Compare.h.
#include "tooling/Compare.h"

#include "tooling/ValueFormat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ptec::tooling {
using namespace ptec::rt;

Tolerance defaultTolerance(ScalarType dtype) {
  // torch/testing/_comparison.py, _DTYPE_PRECISIONS (torch 2.x): quantized
  // dtypes take float32's, since assert_close compares them dequantized.
  switch (dtype) {
  case ScalarType::Half: return {1e-3, 1e-5};
  case ScalarType::BFloat16: return {1.6e-2, 1e-5};
  case ScalarType::Float:
  case ScalarType::QInt8:
  case ScalarType::QUInt8:
  case ScalarType::QInt32: return {1.3e-6, 1e-5};
  case ScalarType::Double: return {1e-7, 1e-7};
  default: return {0, 0};
  }
}

Tolerance resolveTolerance(const ToleranceRequest &req, ScalarType actual, ScalarType expected) {
  Tolerance a = defaultTolerance(actual), e = defaultTolerance(expected);
  return {req.rtol.value_or(std::max(a.rtol, e.rtol)), req.atol.value_or(std::max(a.atol, e.atol))};
}

bool closeEnough(double a, double e, Tolerance tol, double &diff) {
  if ((std::isnan(a) && std::isnan(e)) || (std::isinf(a) && a == e)) {
    diff = 0;
    return true;
  }
  // One NaN, or an infinity against anything else: never close (rtol times
  // an infinite expected value would otherwise accept every value).
  if (std::isnan(a) || std::isnan(e) || std::isinf(a) || std::isinf(e)) {
    diff = INFINITY;
    return false;
  }
  diff = std::fabs(a - e);
  return diff <= tol.atol + tol.rtol * std::fabs(e);
}

double roundUpTwoDigits(double x) {
  if (!(x > 0) || std::isinf(x))
    return x;
  int exp10 = static_cast<int>(std::floor(std::log10(x))) - 1;
  double digits = std::ceil(x / std::pow(10.0, exp10)); // 10..100
  // Read back from its decimal text, so that 2.2e-09 is the double nearest
  // 2.2e-09 (digits * 10^k would carry the product's rounding into the text);
  // the division and the power round too: never return less than asked.
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0fe%d", digits, exp10);
  double r = std::strtod(buf, nullptr);
  while (r < x)
    r = std::nextafter(r, INFINITY);
  return r;
}

namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", v);
  return buf;
}

/// Row-major index `k` of `shape` as one index per dimension.
std::vector<int64_t> unflatten(int64_t k, const std::vector<int64_t> &shape) {
  std::vector<int64_t> index(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] > 0) {
      index[d] = k % shape[d];
      k /= shape[d];
    }
  }
  return index;
}

} // namespace

std::string Comparison::vacuousAdvice() const {
  if (!vacuous())
    return "";
  std::string s = "every expected value is within atol " + num(tol.atol) + " of 0 (max |expected| " +
                  num(maxAbsExpected) + "), so any output that small passes, all zeros too: ";
  if (maxAbsExpected == 0)
    return s + "this check proves only that the output is near 0; --atol 0 asks for exact zeros";
  // An atol three orders below the values leaves the check to rtol.
  return s + "this check proves nothing; give --atol " + num(maxAbsExpected / 1000) +
         " (below the expected values, so rtol decides) or inputs whose outputs are not "
         "all near 0";
}

std::string Comparison::toleranceSource() const {
  if (rtolGiven && atolGiven)
    return "as given";
  if (!rtolGiven && !atolGiven)
    return dtypes + " defaults";
  return std::string(rtolGiven ? "rtol given, atol " : "atol given, rtol ") + dtypes +
         " default";
}

bool compareWithExpected(const EValue &v, const NpyArray &want, ToleranceRequest req,
                         Comparison &result, std::string &problem) {
  result = Comparison{};
  if (!v.isTensor()) {
    problem = "is not a tensor";
    return false;
  }
  const Tensor &t = v.toTensor();
  Span<const int64_t> wantShape(want.shape.data(), want.shape.size());
  if (t.numel() != want.numel() ||
      !std::equal(want.shape.begin(), want.shape.end(), t.sizes().begin(), t.sizes().end())) {
    problem = "has shape " + shapeString(t.sizes()) + ", expected " + shapeString(wantShape);
    return false;
  }
  Tensor w;
  if (w.init(want.dtype, wantShape) != Error::Ok) {
    problem = ": the expected shape " + shapeString(wantShape) +
              " cannot be a tensor of this runtime";
    return false;
  }
  w.setData(const_cast<uint8_t *>(want.data.data()), want.data.size());
  const Tolerance tol = resolveTolerance(req, t.dtype(), want.dtype);
  result.tol = tol;
  result.rtolGiven = req.rtol.has_value();
  result.atolGiven = req.atol.has_value();
  result.dtypes = toString(t.dtype());
  result.float64 = t.dtype() == ScalarType::Double || want.dtype == ScalarType::Double;
  if (want.dtype != t.dtype())
    result.dtypes += std::string(" vs ") + toString(want.dtype);
  result.elements = t.numel();
  double needAtol = 0, needRtol = 0; // exact values; rounded up at the end
  for (int64_t k = 0; k < t.numel(); ++k) {
    double a = 0, e = 0, diff = 0;
    if (!elementAsDouble(t, k, a) || !elementAsDouble(w, k, e)) {
      problem = "has a dtype pte-run cannot compare";
      return false;
    }
    bool close = closeEnough(a, e, tol, diff);
    result.maxAbs = std::max(result.maxAbs, diff);
    if (std::isfinite(e))
      result.maxAbsExpected = std::max(result.maxAbsExpected, std::fabs(e));
    if (e != 0)
      result.maxRel = std::max(result.maxRel, diff / std::fabs(e));
    if (std::isinf(diff)) { // NaN or infinity against something else
      needAtol = needRtol = INFINITY;
    } else {
      needAtol = std::max(needAtol, diff - tol.rtol * std::fabs(e));
      if (diff > tol.atol)
        needRtol = std::max(needRtol, e != 0 ? (diff - tol.atol) / std::fabs(e) : INFINITY);
    }
    if (close)
      continue;
    if (result.firstBad < 0)
      result.firstBad = k;
    ++result.bad;
    if (result.badShown.size() < Comparison::kShownBad)
      result.badShown.push_back({unflatten(k, want.shape), e, a, diff,
                                 e != 0 ? diff / std::fabs(e) : INFINITY});
  }
  // The tightest tolerances that pass (below the ones used when it passed).
  result.passingAtol = roundUpTwoDigits(std::max(0.0, needAtol));
  result.passingRtol = roundUpTwoDigits(needRtol);
  return true;
}

} // namespace ptec::tooling
