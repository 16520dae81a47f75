//===- XnnpackQdq.h - quantize / dequantize ops and int8 constants -*- C++ -*-===//
//
// Internal to the aot half: PT2E's quantized_decomposed ops decoded, and the
// int8 weights they dequantize read with every parameter checked against
// what XNNPACK takes (format/XnnQuantLimits.h). IsConstant gives the data:
// the module's weights for capability checks, the region's baked arguments
// for the lowering.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "backends/xnnpack/aot/XnnpackAot.h"

#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/IR/BuiltinTypes.h"

#include <optional>
#include <string>
#include <vector>

namespace ptec::aot::xnnpack::qdq {

/// One quantize / dequantize op, decoded.
struct Qdq {
  bool quantize = false, perChannel = false;
  mlir::Value input, result, scales, zeroPoints;
  double scale = 1;
  int64_t zeroPoint = 0, qmin = 0, qmax = 0, axis = 0;
};

/// quantize_per_tensor, dequantize_per_tensor (number parameters) or
/// dequantize_per_channel; nullopt for anything else.
std::optional<Qdq> decode(mlir::Operation *op);

/// Static ranked tensor type of `v`, or null.
mlir::RankedTensorType ranked(mlir::Value v);
bool isInt8(mlir::Value v);
bool isF32(mlir::Value v);

/// The dequantize under a weight (through a [1, 0] transpose); null if none.
mlir::Operation *weightDequantize(mlir::Value v, bool *transposed);

/// Empty when a per-tensor quantize / dequantize of an activation has
/// parameters the int8 lowering and XNNPACK take (full int8 range, int8
/// zero point, a positive normal float32 scale); else why not.
std::string fitsInt8Activation(const Qdq &q);

/// A constant's raw bytes (little-endian host); failure (no diagnostic)
/// when `v` is not a constant or its data cannot be read.
mlir::LogicalResult constantBytes(const IsConstant &isConstant, mlir::Value v,
                                  std::vector<uint8_t> &bytes);

/// A float32 / float64 / integer constant as doubles.
mlir::LogicalResult constantNumbers(const IsConstant &isConstant, mlir::Value v,
                                    std::vector<double> &out);

inline std::vector<uint64_t> shapeOf(mlir::Value v) {
  std::vector<uint64_t> d;
  for (int64_t s : llvm::cast<mlir::RankedTensorType>(v.getType()).getShape())
    d.push_back(uint64_t(s));
  return d;
}

inline uint64_t numel(const std::vector<uint64_t> &d) {
  uint64_t n = 1;
  for (uint64_t x : d)
    n *= x;
  return n;
}

/// A weight's int8 data, its scales (one per channel of `axis`, or one),
/// and its dims.
struct Int8Weight {
  std::vector<int8_t> data;
  std::vector<float> scales;
  bool perChannel = false;
  int64_t axis = 0;
  std::vector<uint64_t> dims;
  bool transposed = false;
};

/// The int8 weight `v` reads through a dequantize (and a [1, 0] transpose),
/// with symmetric (zero point 0), positive normal float32 scales, one per
/// channel of its axis or one; failure with the reason in `why` otherwise.
/// Without `withData` only the parameters are read (`data` stays empty).
mlir::FailureOr<Int8Weight> readWeight(const IsConstant &isConstant, mlir::Value v,
                                       std::string *why = nullptr, bool withData = true);

} // namespace ptec::aot::xnnpack::qdq
