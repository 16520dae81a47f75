//===- XnnQuant.h - quantized values of XnnpackBackend blobs ----*- C++ -*-===//
//
// Upstream's PT2E + XNNPACKQuantizer flow writes int8 graphs: values are
// XNNQuantizedTensorValue tables (an XNNTensorValue plus per-tensor or
// per-channel quantization), with int8 activations and weights and int32
// biases. This file reads those into ValueInfo (datatype, element size,
// scale / zero point or per-channel scales) and holds the arithmetic both
// halves agree on: the byte size of each datatype and XNNPACK's quantize
// formula (round to nearest even of x / scale + zero point, clamped).
// No dependency on the XNNPACK library.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "backends/xnnpack/format/XnnFormat.h"

#include <cmath>
#include <cstdint>
#include <string>

namespace ptec::xnnpack {

/// Bytes per element of a datatype this runtime reads (fp32, qint8, qcint8,
/// qdint8, qint32, qcint32), 0 for the others.
uint32_t datatypeBytes(fb_xnnpack::XNNDatatype dtype);

/// True for the quantized datatypes (qint8, qcint8, qint32, qcint32).
bool isQuantizedDatatype(fb_xnnpack::XNNDatatype dtype);

/// Fills `info`'s datatype, element size and quantization from a quantized
/// value (dims, ids and flags are read by the caller); qdint8 with
/// PerTokenDynamicQuant is a dynamically quantized value (rows quantized
/// per call, ValueInfo::dynamicQuant). NotSupported for a datatype or
/// quantization kind this runtime does not run (uint8, int4, blockwise), InvalidArgument for inconsistent
/// parameters (scale not a positive normal float, per-channel scales that do
/// not match the channel dim, an int8 zero point outside [-128, 127]).
rt::Error readQuantizedValue(const fb_xnnpack::XNNQuantizedTensorValue *q, ValueInfo *info,
                             std::string *why);

/// XNNPACK's float -> int8 quantization: round-to-nearest-even of
/// x / scale + zeroPoint, clamped to [lo, hi].
inline int8_t quantizeS8(float x, float scale, int32_t zeroPoint, int32_t lo = -128,
                         int32_t hi = 127) {
  float q = x / scale + static_cast<float>(zeroPoint);
  q = std::fmin(std::fmax(q, static_cast<float>(lo)), static_cast<float>(hi));
  return static_cast<int8_t>(std::lrintf(q));
}

/// The int8 bounds of a float clamp [lo, hi] on a value quantized with
/// (scale, zeroPoint); infinities give the full int8 range.
void quantizedBounds(float lo, float hi, float scale, int32_t zeroPoint, int8_t *qlo,
                     int8_t *qhi);

} // namespace ptec::xnnpack
