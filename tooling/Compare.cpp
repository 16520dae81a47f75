// Element-wise comparison with a tolerance (pte-run --expected); see Compare.h.
#include "tooling/Compare.h"

#include "tooling/ValueFormat.h"

#include <algorithm>
#include <cmath>

namespace ptec::tooling {
using namespace ptec::rt;

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

bool compareWithExpected(const EValue &v, const NpyArray &want, Tolerance tol,
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
  result.elements = t.numel();
  for (int64_t k = 0; k < t.numel(); ++k) {
    double a = 0, e = 0, diff = 0;
    if (!elementAsDouble(t, k, a) || !elementAsDouble(w, k, e)) {
      problem = "has a dtype pte-run cannot compare";
      return false;
    }
    bool close = closeEnough(a, e, tol, diff);
    result.maxAbs = std::max(result.maxAbs, diff);
    if (e != 0)
      result.maxRel = std::max(result.maxRel, diff / std::fabs(e));
    if (!close) {
      if (result.firstBad < 0)
        result.firstBad = k;
      ++result.bad;
    }
  }
  return true;
}

} // namespace ptec::tooling
