//===- XnnQuantLimits.h - int8 parameters XNNPACK takes ---------*- C++ -*-===//
//
// What XNNPACK (Debian 12's 2022 snapshot, which XnnpackBackend links, and
// upstream ExecuTorch's pin, which its runtime links) accepts for an int8
// operator, as plain checks both halves ask: the ahead-of-time lowering
// before it writes an int8 node (an op that fails stays on the portable
// kernels), and the runtime half before it creates the operator (a blob
// from elsewhere gets a refusal naming the node instead of an abort).
//
// Facts behind the rules (measured on the installed library by creating
// and running each operator; upstream's partitioner validates the same
// scale and zero-point properties in validate_quant_scales /
// validate_quant_zeropoints):
//   - every scale (activation, weight, per channel) is finite, positive and
//     a normal float32: a subnormal or zero one is xnn_status_invalid_parameter;
//   - a convolution or fully connected operator's requantization scale,
//     input scale * weight scale / output scale computed in float32, is
//     below 256 (else xnn_status_unsupported_parameter); with one weight
//     scale (qs8) it is also at least 2^-32, or the parameter setup asserts
//     (SIGABRT in Debian's build, which keeps asserts);
//   - the output range, after a fused clamp, is not empty (min < max);
//   - the int32 bias, round(b / (input scale * weight scale)), fits int32
//     together with the accumulated products, which the quantized kernels
//     add to it in int32 (an overflow wraps: silently wrong results).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ptec::xnnpack {

/// Smallest requantization scale of a per-tensor (qs8) convolution or fully
/// connected operator; largest (exclusive) of every one.
inline constexpr float kMinRequantScale = 0x1.0p-32f;
inline constexpr float kMaxRequantScale = 256.0f;

/// Empty when `scale` is a positive normal float32; else why not, naming
/// `what` ("the input scale", "weight scale 3").
std::string scaleProblem(double scale, const std::string &what);

/// The requantization scale XNNPACK computes (in float32).
inline float requantScale(float inScale, float weightScale, float outScale) {
  return inScale * weightScale / outScale;
}

/// Empty when a convolution / fully connected operator with these scales is
/// created by XNNPACK (one weight scale: qs8; several: qc8, one per output
/// channel); else why not.
std::string requantProblem(float inScale, const std::vector<float> &weightScales,
                           float outScale);

/// Empty when every int32 bias of an int8 convolution / linear with
/// `depth` products per output (input channels per group x kernel size) fits:
/// |round(b[c] / (inScale * weightScale[c]))| plus the largest sum of
/// products stays within int32; else why not. One weight scale applies to
/// every channel.
std::string biasProblem(const std::vector<float> &bias, float inScale,
                        const std::vector<float> &weightScales, uint64_t depth);

/// Empty when a quantized output range [lo, hi] is not empty.
std::string rangeProblem(int32_t lo, int32_t hi);

} // namespace ptec::xnnpack
