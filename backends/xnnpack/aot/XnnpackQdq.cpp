//===- XnnpackQdq.cpp - quantize / dequantize ops and int8 constants ------===//
//
// Decoding of PT2E's quantized_decomposed ops and reading of the int8
// weights they dequantize, shared by the capability checks and the int8
// lowering (XnnpackQuantized.cpp, XnnpackQuantChecks.cpp).
//
//===----------------------------------------------------------------------===//

#include "backends/xnnpack/aot/XnnpackQdq.h"

#include "backends/xnnpack/format/XnnQuantLimits.h"

#include "mlir/IR/Diagnostics.h"

#include <cstring>

using namespace mlir;

namespace ptec::aot::xnnpack::qdq {

namespace {

constexpr llvm::StringLiteral kQuantize = "quantized_decomposed::quantize_per_tensor";
constexpr llvm::StringLiteral kDequantize = "quantized_decomposed::dequantize_per_tensor";
constexpr llvm::StringLiteral kDequantizeChannel = "quantized_decomposed::dequantize_per_channel";

std::optional<double> numberOf(Attribute a) {
  if (auto i = llvm::dyn_cast_or_null<IntegerAttr>(a))
    return double(i.getValue().getSExtValue());
  if (auto f = llvm::dyn_cast_or_null<FloatAttr>(a))
    return f.getValueAsDouble();
  return std::nullopt;
}

Value segment(exir::AtenOp op, unsigned i) {
  OperandRange r = op.getArgOperands(i);
  return r.empty() ? Value() : r.front();
}

} // namespace

std::optional<Qdq> decode(Operation *operation) {
  auto op = llvm::dyn_cast_or_null<exir::AtenOp>(operation);
  if (!op || op->getNumResults() != 1)
    return std::nullopt;
  const llvm::StringRef name = op.getOpName();
  Qdq q;
  q.quantize = name == kQuantize;
  q.perChannel = name == kDequantizeChannel;
  if (!q.quantize && !q.perChannel && name != kDequantize)
    return std::nullopt; // also the .tensor forms (scale as a tensor operand)
  q.input = segment(op, 0);
  q.result = op->getResult(0);
  std::optional<double> lo = numberOf(op.getArgAttr("quant_min"));
  std::optional<double> hi = numberOf(op.getArgAttr("quant_max"));
  if (!q.input || !lo || !hi)
    return std::nullopt;
  q.qmin = int64_t(*lo), q.qmax = int64_t(*hi);
  if (q.perChannel) {
    q.scales = segment(op, 1);
    q.zeroPoints = segment(op, 2);
    std::optional<double> axis = numberOf(op.getArgAttr("axis"));
    if (!q.scales || !axis)
      return std::nullopt;
    q.axis = int64_t(*axis);
    return q;
  }
  std::optional<double> scale = numberOf(op.getArgAttr("scale"));
  std::optional<double> zp = numberOf(op.getArgAttr("zero_point"));
  if (!scale || !zp || !(*scale > 0))
    return std::nullopt;
  q.scale = *scale, q.zeroPoint = int64_t(*zp);
  return q;
}

RankedTensorType ranked(Value v) {
  auto t = llvm::dyn_cast_or_null<RankedTensorType>(v ? v.getType() : Type());
  return t && t.hasStaticShape() ? t : nullptr;
}

bool isInt8(Value v) {
  RankedTensorType t = ranked(v);
  return t && t.getElementType().isInteger(8) && !t.getElementType().isUnsignedInteger();
}

bool isF32(Value v) {
  RankedTensorType t = ranked(v);
  return t && t.getElementType().isF32();
}

/// The dequantize under a weight (through a [1, 0] transpose); null if none.
Operation *weightDequantize(Value v, bool *transposed) {
  Operation *d = v ? v.getDefiningOp() : nullptr;
  *transposed = false;
  if (auto p = llvm::dyn_cast_or_null<exir::AtenOp>(d); p && p.getOpName() == "aten::permute_copy") {
    auto dims = llvm::dyn_cast_or_null<DenseI64ArrayAttr>(p.getArgAttr("dims"));
    if (!dims || dims.asArrayRef() != llvm::ArrayRef<int64_t>{1, 0})
      return nullptr;
    *transposed = true;
    d = p->getOperand(0).getDefiningOp();
  }
  return d;
}

std::string fitsInt8Activation(const Qdq &q) {
  if (q.qmin != -128 || q.qmax != 127)
    return "only int8 activations with the full [-128, 127] range are lowered";
  if (q.zeroPoint < -128 || q.zeroPoint > 127)
    return "the zero point is outside int8";
  return ptec::xnnpack::scaleProblem(q.scale, "the scale");
}

LogicalResult constantBytes(const IsConstant &isConstant, Value v, std::vector<uint8_t> &bytes) {
  ElementsAttr attr = v ? isConstant(v) : ElementsAttr();
  Operation *at = attr && v.getParentRegion() ? v.getParentRegion()->getParentOp() : nullptr;
  if (!at)
    return failure();
  // A capability check asks before anything is wrong: an unreadable
  // constant is a refusal there, not an error (the lowering reports its own).
  ScopedDiagnosticHandler quiet(at->getContext(), [](Diagnostic &) { return success(); });
  return exir::getElementsBytes(at, attr, bytes);
}

/// A float32 / float64 / integer constant as doubles.
LogicalResult constantNumbers(const IsConstant &isConstant, Value v, std::vector<double> &out) {
  std::vector<uint8_t> bytes;
  RankedTensorType t = ranked(v);
  if (!t || !t.getElementType().isIntOrFloat() || failed(constantBytes(isConstant, v, bytes)))
    return failure();
  const uint64_t n = uint64_t(t.getNumElements());
  Type e = t.getElementType();
  const unsigned width = e.getIntOrFloatBitWidth();
  if (bytes.size() != n * (width / 8))
    return failure();
  out.resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t *p = bytes.data() + i * (width / 8);
    if (e.isF32()) {
      float f;
      std::memcpy(&f, p, 4);
      out[i] = f;
    } else if (e.isF64()) {
      std::memcpy(&out[i], p, 8);
    } else if (e.isInteger(64)) {
      int64_t x;
      std::memcpy(&x, p, 8);
      out[i] = double(x);
    } else if (e.isInteger(32)) {
      int32_t x;
      std::memcpy(&x, p, 4);
      out[i] = double(x);
    } else if (e.isInteger(8)) {
      out[i] = double(int8_t(*p));
    } else {
      return failure();
    }
  }
  return success();
}

FailureOr<Int8Weight> readWeight(const IsConstant &isConstant, Value v, std::string *why,
                                bool withData) {
  auto no = [&](const std::string &text) -> FailureOr<Int8Weight> {
    if (why)
      *why = text;
    return failure();
  };
  Int8Weight w;
  std::optional<Qdq> q = decode(weightDequantize(v, &w.transposed));
  if (!q || q->quantize)
    return no("the weight is not read through a dequantize");
  if (!isInt8(q->input) || !isConstant(q->input))
    return no("the dequantized weight is not an int8 constant");
  if (q->qmin < -128 || q->qmax > 127 || q->qmin > q->qmax)
    return no("the weight's quant range is not within int8");
  w.dims = shapeOf(q->input);
  if (withData) {
    std::vector<uint8_t> bytes;
    if (failed(constantBytes(isConstant, q->input, bytes)))
      return no("the int8 weight's data cannot be read");
    if (bytes.size() != numel(w.dims))
      return no("the int8 weight's data does not fill its shape");
    w.data.assign(bytes.begin(), bytes.end());
  }
  w.perChannel = q->perChannel;
  w.axis = q->axis;
  if (q->perChannel) {
    std::vector<double> s, zp;
    if (w.axis < 0 || size_t(w.axis) >= w.dims.size())
      return no("the per-channel axis is not a dim of the weight");
    if (!isConstant(q->scales) || failed(constantNumbers(isConstant, q->scales, s)) ||
        s.size() != w.dims[w.axis])
      return no("the per-channel scales are not a constant with one scale per channel");
    if (q->zeroPoints && (!isConstant(q->zeroPoints) ||
                          failed(constantNumbers(isConstant, q->zeroPoints, zp))))
      return no("the per-channel zero points are not a constant");
    for (size_t c = 0; c < zp.size(); ++c)
      if (zp[c] != 0)
        return no("weight zero point " + std::to_string(c) +
                  " is not 0 (XNNPACK's int8 weights are symmetric)");
    for (size_t c = 0; c < s.size(); ++c) {
      if (std::string bad = ptec::xnnpack::scaleProblem(s[c], "weight scale " + std::to_string(c));
          !bad.empty())
        return no(bad);
      w.scales.push_back(float(s[c]));
    }
  } else {
    if (q->zeroPoint != 0)
      return no("the weight's zero point is not 0 (XNNPACK's int8 weights are symmetric)");
    if (std::string bad = ptec::xnnpack::scaleProblem(q->scale, "the weight scale"); !bad.empty())
      return no(bad);
    w.scales = {float(q->scale)};
  }
  return w;
}

} // namespace ptec::aot::xnnpack::qdq
