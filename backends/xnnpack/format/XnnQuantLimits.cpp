//===- XnnQuantLimits.cpp - int8 parameters XNNPACK takes -----------------===//

#include "backends/xnnpack/format/XnnQuantLimits.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace ptec::xnnpack {

namespace {

std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.7g", x);
  return buf;
}

} // namespace

std::string scaleProblem(double scale, const std::string &what) {
  const float f = float(scale);
  if (std::isnan(scale) || !(scale > 0))
    return what + " " + number(scale) + " is not positive";
  if (!std::isfinite(f))
    return what + " " + number(scale) + " is not finite in float32";
  if (!std::isnormal(f))
    return what + " " + number(scale) + " is below float32's normal range (XNNPACK takes "
                                        "normal scales only)";
  return {};
}

std::string requantProblem(float inScale, const std::vector<float> &weightScales,
                           float outScale) {
  const bool perTensor = weightScales.size() == 1;
  for (size_t c = 0; c < weightScales.size(); ++c) {
    const float r = requantScale(inScale, weightScales[c], outScale);
    const std::string where =
        perTensor ? std::string() : " (output channel " + std::to_string(c) + ")";
    if (!(r < kMaxRequantScale))
      return "requantization scale " + number(r) + where +
             " (input scale x weight scale / output scale) is not below 256";
    if (perTensor && !(r >= kMinRequantScale))
      return "requantization scale " + number(r) +
             " (input scale x weight scale / output scale) is below 2^-32";
  }
  return {};
}

std::string biasProblem(const std::vector<float> &bias, float inScale,
                        const std::vector<float> &weightScales, uint64_t depth) {
  // (x - zx) * w per product: |x - zx| <= 255, |w| <= 128.
  const double products = double(depth) * 255.0 * 128.0;
  const double limit = double(std::numeric_limits<int32_t>::max());
  for (size_t c = 0; c < bias.size(); ++c) {
    const float s = inScale * weightScales[weightScales.size() == 1 ? 0 : c];
    const double q = std::nearbyint(double(bias[c] / s));
    if (!std::isfinite(q) || std::fabs(q) + products > limit)
      return "bias " + number(bias[c]) + " of output channel " + std::to_string(c) +
             " is " + number(q) + " in units of input scale x weight scale, which with " +
             std::to_string(depth) + " products per output overflows int32";
  }
  return {};
}

std::string rangeProblem(int32_t lo, int32_t hi) {
  if (lo < hi)
    return {};
  return "the quantized output range [" + std::to_string(lo) + ", " + std::to_string(hi) +
         "] is empty (a clamp that leaves one value)";
}

} // namespace ptec::xnnpack
