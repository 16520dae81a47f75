//===- XnnQuantizedLoops.h - own int8 loops of XnnpackBackend --*- C++ -*-===//
//
// The int8 steps this XNNPACK (2022) has no operator for, as plain loops
// (XnnQuantized.h says which run here and why). Requantization everywhere
// is XNNPACK's reference formula (quantizeS8 in ../format/XnnQuant.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "backends/xnnpack/runtime/XnnQuantized.h"

namespace ptec::xnnpack {

/// out[i] = in[i] from the input's to the output's parameters, clamped to
/// [q.lo, q.hi]; `in` may be `out`.
void requantizeInPlace(const QuantStep &q, const int8_t *in, int8_t *out, size_t n);
/// Average pooling over the valid (unpadded) part of each window, NHWC.
void avgPool(const QuantStep &q, const Step &s, const int8_t *in, int8_t *out);
/// Mean over the s.width pixels of each of s.batch images, per channel.
void globalAvgPool(const QuantStep &q, const Step &s, const int8_t *in, int8_t *out);
/// The box at q.offsets of sizes q.sizes out of input dims s.shape0.
void sliceBytes(const QuantStep &q, const Step &s, const uint8_t *in, uint8_t *out);
/// y = quantize(deq(a) op deq(b)) with numpy broadcasting (add, subtract,
/// multiply by s.kind).
void binaryLoop(const QuantStep &q, const Step &s, const int8_t *a, const int8_t *b,
                int8_t *y);
/// XNNPACK's per-row parameters of dynamic quantization: the multiplier its
/// convert kernel applies, the dequantize scale and the zero point.
void dynamicParams(float lo, float hi, float *multiplier, float *scale, int32_t *zeroPoint);
/// Dynamic quantization of q.rows rows of q.depth floats; each row's scale
/// and zero point follow the elements (8 bytes per row).
void quantizeRows(const QuantStep &q, const float *in, int8_t *out);
/// Fully connected on dynamically quantized rows: int32 accumulation, then
/// float(acc) * row scale * weight scale + bias, clamped to [q.flo, q.fhi].
void dynamicFullyConnected(const QuantStep &q, const int8_t *in, float *out);

} // namespace ptec::xnnpack
