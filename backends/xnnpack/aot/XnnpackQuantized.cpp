//===- XnnpackQuantized.cpp - PT2E int8 graphs to XNNPACK int8 ------------===//
//
// A PT2E-quantized program (convert_pt2e) computes in float32 between
// quantize / dequantize pairs: x -> q -> dq -> conv(dq(w_int8)) -> relu ->
// q -> dq -> ... The XNNPACK backend takes the q / dq ops too, and lowers a
// float op to XNNPACK's int8 node when every activation it reads is a
// dequantize and its only user is a quantize (through a relu / clamp the
// node applies): the op then reads and writes qint8 values with the
// quantizes' scale and zero point, the q / dq ops themselves become nothing,
// and the weights go in as int8 (qcint8 per output channel, or qint8 per
// tensor) with an int32 bias round(b / (input scale * weight scale)), the
// way ExecuTorch's XNNPACK partitioner writes the same graph. Where the
// region's float32 edges meet a quantize or a dequantize, an XNNConvert
// changes the element type; any op that does not match stays float32 and
// reads its int8 operands through an XNNConvert too.
//
//===----------------------------------------------------------------------===//

#include "backends/xnnpack/aot/XnnpackLowering.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace ptec::aot::xnnpack {

namespace fb = fb_xnnpack;

namespace {

constexpr llvm::StringLiteral kQuantize = "quantized_decomposed::quantize_per_tensor";
constexpr llvm::StringLiteral kDequantize = "quantized_decomposed::dequantize_per_tensor";
constexpr llvm::StringLiteral kDequantizeChannel = "quantized_decomposed::dequantize_per_channel";

/// One quantize / dequantize op, decoded.
struct Qdq {
  bool quantize = false, perChannel = false;
  Value input, result, scales, zeroPoints;
  double scale = 1;
  int64_t zeroPoint = 0, qmin = 0, qmax = 0, axis = 0;
};

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

const char *fitsInt8Activation(const Qdq &q) {
  if (q.qmin != -128 || q.qmax != 127)
    return "only int8 activations with the full [-128, 127] range are lowered";
  if (q.zeroPoint < -128 || q.zeroPoint > 127)
    return "the zero point is outside int8";
  return nullptr;
}

/// A constant's raw bytes (little-endian host).
LogicalResult rawConstant(func::FuncOp region, Value v, std::vector<uint8_t> &bytes) {
  auto arg = llvm::dyn_cast<BlockArgument>(v);
  if (!arg)
    return failure();
  auto attr =
      region.getArgAttrOfType<ElementsAttr>(arg.getArgNumber(), lowering::kWeightValueAttr);
  return success(attr && succeeded(exir::getElementsBytes(region, attr, bytes)));
}

/// A float32 / float64 / integer constant as doubles.
LogicalResult constantNumbers(func::FuncOp region, Value v, std::vector<double> &out) {
  std::vector<uint8_t> bytes;
  RankedTensorType t = ranked(v);
  if (!t || failed(rawConstant(region, v, bytes)))
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

/// A weight's int8 data, its scales (one per channel of `axis`, or one),
/// and its dims.
struct Int8Weight {
  std::vector<int8_t> data;
  std::vector<float> scales;
  bool perChannel = false;
  int64_t axis = 0;
  lowering::Dims dims;
  bool transposed = false;
};

FailureOr<Int8Weight> readWeight(func::FuncOp region, Value v) {
  Int8Weight w;
  std::optional<Qdq> q = decode(weightDequantize(v, &w.transposed));
  if (!q || q->quantize)
    return failure();
  std::vector<uint8_t> bytes;
  if (failed(rawConstant(region, q->input, bytes)))
    return failure();
  w.dims = lowering::shapeOf(q->input);
  if (bytes.size() != lowering::numel(w.dims))
    return failure();
  w.data.assign(bytes.begin(), bytes.end());
  w.perChannel = q->perChannel;
  w.axis = q->axis;
  if (q->perChannel) {
    std::vector<double> s, zp;
    if (failed(constantNumbers(region, q->scales, s)) ||
        (q->zeroPoints && failed(constantNumbers(region, q->zeroPoints, zp))) ||
        w.axis < 0 || size_t(w.axis) >= w.dims.size() || s.size() != w.dims[w.axis])
      return failure();
    for (double z : zp)
      if (z != 0)
        return failure(); // XNNPACK's int8 filters are symmetric
    for (double x : s)
      w.scales.push_back(float(x));
  } else {
    if (q->zeroPoint != 0)
      return failure();
    w.scales = {float(q->scale)};
  }
  return w;
}

} // namespace

namespace {

/// `anyAxis`: the dequantize itself, whose users decide (a linear's [N, K]
/// weight is scaled along N = axis 0 and read through a transpose).
bool weightDequantizeOk(Value v, const IsConstant &isConstant, bool anyAxis) {
  bool transposed = false;
  std::optional<Qdq> q = decode(weightDequantize(v, &transposed));
  if (!q || q->quantize || !isInt8(q->input) || !isConstant(q->input) || !isF32(q->result))
    return false;
  if (q->qmin < -128 || q->qmax > 127)
    return false;
  if (!q->perChannel)
    return q->zeroPoint == 0;
  const int64_t rank = ranked(q->input).getRank();
  // The output channels: a convolution's [O, I, KH, KW] dim 0, a linear's
  // [N, K] dim 0 (read transposed) or an mm's [K, N] dim 1.
  const bool axisOk = rank == 4 ? q->axis == 0
                      : rank == 2 ? (anyAxis || q->axis == (transposed ? 0 : 1))
                                  : false;
  return axisOk && isConstant(q->scales) && (!q->zeroPoints || isConstant(q->zeroPoints));
}

} // namespace

bool isQuantizedWeight(Value v, const IsConstant &isConstant) {
  return weightDequantizeOk(v, isConstant, false);
}

std::optional<OpPlan> planQuantizedOp(Operation *operation, const IsConstant &isConstant,
                                      std::string *why, bool *handled) {
  auto op = llvm::dyn_cast<exir::AtenOp>(operation);
  *handled = false;
  if (!op)
    return std::nullopt;
  auto no = [&](const char *text) -> std::optional<OpPlan> {
    if (why)
      *why = text;
    return std::nullopt;
  };
  const llvm::StringRef name = op.getOpName();
  OpPlan p;
  if (name == "aten::permute_copy") {
    bool transposed = false;
    if (weightDequantize(op->getResult(0), &transposed) == nullptr || !transposed ||
        !isQuantizedWeight(op->getResult(0), isConstant))
      return std::nullopt; // not a weight's transpose: the float rules decide
    *handled = true;
    p.form = OpPlan::Form::QuantizedWeight;
    p.input = op->getOperand(0);
    return p;
  }
  if (!name.starts_with("quantized_decomposed::"))
    return std::nullopt;
  *handled = true;
  std::optional<Qdq> q = decode(op);
  if (!q)
    return no("a quantize / dequantize form the XNNPACK backend does not lower (per-tensor "
              "quantize and dequantize with number parameters, per-channel dequantize of "
              "weights)");
  p.input = q->input;
  if (q->quantize) {
    if (!isF32(q->input) || !isInt8(q->result))
      return no("only float32 to int8 quantization is lowered");
    if (isConstant(q->input))
      return no("the quantize of a constant (PT2E folds weights to int8 constants)");
    if (const char *bad = fitsInt8Activation(*q))
      return no(bad);
    p.form = OpPlan::Form::Quantize;
    return p;
  }
  if (!isInt8(q->input) || !isF32(q->result))
    return no("only int8 to float32 dequantization is lowered");
  if (isConstant(q->input)) {
    if (!weightDequantizeOk(q->result, isConstant, true))
      return no("a dequantized constant that is not a symmetric int8 weight (per tensor, or "
                "per output channel)");
    p.form = OpPlan::Form::QuantizedWeight;
    return p;
  }
  if (q->perChannel)
    return no("a per-channel dequantize of an activation");
  if (const char *bad = fitsInt8Activation(*q))
    return no(bad);
  p.form = OpPlan::Form::Dequantize;
  return p;
}

std::optional<llvm::SmallVector<Operation *, 4>>
keepQuantizedWeights(llvm::ArrayRef<Operation *> ops) {
  // Groups grow along data flow, so a weight's dequantize (which reads only
  // constants) can land in another group than the convolution or linear
  // that reads it, when an op between them stays portable. The reader then
  // gets a float tensor XNNPACK cannot pack: the whole group stays portable.
  // A weight dequantize no member reads leaves the group (nothing in it
  // depends on the weight, so no cycle forms).
  llvm::SmallPtrSet<Operation *, 16> in(ops.begin(), ops.end());
  IsConstant constant = [](Value v) { return bool(constantWeightOf(v)); };
  std::string why;
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation *op : ops) {
      if (!in.contains(op))
        continue;
      std::optional<OpPlan> p = planOp(op, constant, &why);
      if (!p)
        continue;
      if (p->form == OpPlan::Form::QuantizedWeight &&
          llvm::none_of(op->getUsers(), [&](Operation *u) { return in.contains(u); })) {
        in.erase(op);
        changed = true;
      } else if ((p->form == OpPlan::Form::Conv || p->form == OpPlan::Form::Linear) &&
                 !constant(p->weight)) {
        bool transposed = false;
        Operation *d = weightDequantize(p->weight, &transposed);
        if (!in.contains(p->weight.getDefiningOp()) || !d || !in.contains(d))
          return std::nullopt;
      }
    }
  }
  llvm::SmallVector<Operation *, 4> kept;
  for (Operation *op : ops)
    if (in.contains(op))
      kept.push_back(op);
  return kept;
}

namespace lowering {

uint32_t Lowering::defineQ(Value v, Layout l, float scale, int32_t zeroPoint) {
  Dims d = shapeOf(v);
  const uint32_t id = w_.addQuantizedValue(l == kNhwc ? toNhwc(d) : d,
                                           fb::XNNDatatype::xnn_datatype_qint8, scale, zeroPoint);
  QEntry &e = qvalues_[v];
  e.id[l] = id, e.scale = scale, e.zeroPoint = zeroPoint;
  return id;
}

FailureOr<uint32_t> Lowering::getQ(Value v, Layout l) {
  auto it = qvalues_.find(v);
  if (it == qvalues_.end()) {
    (void)fail(region_, "internal error: an int8 value is used before it is lowered");
    return failure();
  }
  const QEntry e = it->second;
  if (e.id[l] != kNone)
    return e.id[l];
  const uint32_t from = e.id[l == kNhwc ? kAsIs : kNhwc];
  const uint32_t to = defineQ(v, l, e.scale, e.zeroPoint);
  addLayoutMove(shapeOf(v), from, to, l);
  return to;
}

FailureOr<uint32_t> Lowering::floatOf(Value v, Layout l) {
  auto it = qvalues_.find(v);
  if (it == qvalues_.end())
    return fail(region_, "internal error: a float copy of a value that is not int8");
  const QEntry e = it->second; // copied: define() below may grow the maps
  const Layout src = e.id[l] != kNone ? l : (l == kNhwc ? kAsIs : kNhwc);
  const uint32_t out = define(v, src);
  w_.addUnary(Kind::XNNConvert, e.id[src], out);
  return src == l ? FailureOr<uint32_t>(out) : get(v, l);
}

FailureOr<FloatData> Lowering::dequantizedData(Value v) {
  FailureOr<Int8Weight> w = readWeight(region_, v);
  if (failed(w)) {
    (void)fail(region_, "a weight is neither a constant nor a dequantized int8 constant");
    return failure();
  }
  // The float32 weight the dequantize computes, transposed as the IR reads it.
  const Dims &d = w->dims;
  if ((w->perChannel && w->scales.size() != d[w->axis]) || (!w->perChannel && w->scales.empty()) ||
      (w->transposed && d.size() != 2)) {
    (void)fail(region_, "internal error: an int8 weight's scales do not fit its shape");
    return failure();
  }
  uint64_t inner = 1;
  for (size_t i = w->perChannel ? size_t(w->axis) + 1 : d.size(); i < d.size(); ++i)
    inner *= d[i];
  std::vector<float> f(w->data.size());
  for (uint64_t i = 0; i < f.size(); ++i) {
    const float s = w->perChannel ? w->scales[(i / inner) % d[w->axis]] : w->scales[0];
    f[i] = float(w->data[i]) * s;
  }
  if (w->transposed) {
    std::vector<float> t(f.size());
    for (uint64_t r = 0; r < d[0]; ++r)
      for (uint64_t c = 0; c < d[1]; ++c)
        t[c * d[0] + r] = f[r * d[1] + c];
    f = std::move(t);
  }
  auto data = std::make_shared<const std::vector<float>>(std::move(f));
  data_[v] = data;
  return FloatData(std::move(data));
}

FailureOr<uint32_t> Lowering::quantizedInput(BlockArgument arg) {
  std::optional<Qdq> first;
  for (Operation *user : arg.getUsers()) {
    std::optional<Qdq> q = decode(user);
    if (!q || q->quantize || q->perChannel ||
        (first && (first->scale != q->scale || first->zeroPoint != q->zeroPoint))) {
      (void)fail(region_, "an int8 region input that is not only dequantized (per tensor, with "
                          "one scale and zero point)");
      return failure();
    }
    first = q;
  }
  if (!first || !isInt8(arg))
    return fail(region_, "an integer region input the XNNPACK backend cannot take");
  return defineQ(arg, kAsIs, float(first->scale), int32_t(first->zeroPoint));
}

FailureOr<bool> Lowering::lowerQuantized(Operation *op, const OpPlan &p) {
  switch (p.form) {
  case Form::QuantizedWeight: {
    // Read by the convolution or linear that uses it; a float copy only if
    // it also leaves the region.
    Value r = op->getResult(0);
    for (Operation *user : r.getUsers())
      if (user == region_.getBody().front().getTerminator()) {
        FailureOr<FloatData> f = dequantizedData(r);
        if (failed(f))
          return failure();
        const uint32_t id = constantValue(shapeOf(r), (*f)->data());
        values_[r].id[kAsIs] = id;
        break;
      }
    return true;
  }
  case Form::Quantize: {
    Value r = op->getResult(0);
    if (isQuantized(r))
      return true; // an int8 node wrote it
    std::optional<Qdq> q = decode(op);
    const Layout l = onlyNhwc(q->input) ? kNhwc : kAsIs;
    FailureOr<uint32_t> in = get(q->input, l);
    if (failed(in))
      return failure();
    const uint32_t out = defineQ(r, l, float(q->scale), int32_t(q->zeroPoint));
    w_.addUnary(Kind::XNNConvert, *in, out, {}, debugHandle(op));
    return true;
  }
  case Form::Dequantize: {
    std::optional<Qdq> q = decode(op);
    auto it = qvalues_.find(q->input);
    if (it == qvalues_.end()) {
      (void)fail(op, "internal error: the dequantized value is not int8 here");
      return failure();
    }
    if (it->second.scale != float(q->scale) || it->second.zeroPoint != q->zeroPoint) {
      (void)fail(op, "the dequantize's scale or zero point differs from its quantize's");
      return failure();
    }
    const QEntry e = it->second; // copied: the insert may rehash
    qvalues_[q->result] = e;
    return true;
  }
  default:
    return lowerQuantizedCompute(op, p);
  }
}

/// Per-channel scales in named data, as upstream 1.5.1 writes them (after
/// the data they scale, so constant indices follow upstream's order).
ptec::xnnpack::QuantParams Lowering::perChannelParams(const std::vector<float> &scales,
                                                      int32_t channelDim) {
  ptec::xnnpack::QuantParams q;
  q.perChannel = true;
  q.scales = scales;
  q.channelDim = channelDim;
  q.scaleConstantIndex = namedConstant(
      std::string(reinterpret_cast<const char *>(scales.data()), scales.size() * sizeof(float)),
      "scale_");
  return q;
}

FailureOr<uint32_t> Lowering::quantizedFilter(Value weight, bool depthwise, bool linear,
                                              std::vector<float> *scales) {
  FailureOr<Int8Weight> w = readWeight(region_, weight);
  if (failed(w)) {
    (void)fail(region_, "internal error: an int8 weight does not read back");
    return failure();
  }
  const Dims &d = w->dims;
  std::vector<int8_t> filter(w->data.size());
  Dims dims;
  int32_t channelDim = 0;
  if (linear) {
    // XNNPACK's [N, K]: the linear's weight as stored, or an mm's [K, N]
    // transposed.
    if (w->transposed) {
      filter = w->data;
      dims = d;
    } else {
      const uint64_t k = d[0], n = d[1];
      for (uint64_t r = 0; r < n; ++r)
        for (uint64_t c = 0; c < k; ++c)
          filter[r * k + c] = w->data[c * n + r];
      dims = {n, k};
    }
  } else {
    // OHWI for a convolution, 1HWO for a depthwise one (channel dim 3).
    const uint64_t cout = d[0], cpg = d[1], kh = d[2], kw = d[3];
    for (uint64_t o = 0; o < cout; ++o)
      for (uint64_t i = 0; i < cpg; ++i)
        for (uint64_t y = 0; y < kh; ++y)
          for (uint64_t x = 0; x < kw; ++x) {
            const int8_t v = w->data[((o * cpg + i) * kh + y) * kw + x];
            if (depthwise)
              filter[(y * kw + x) * cout + o] = v;
            else
              filter[((o * kh + y) * kw + x) * cpg + i] = v;
          }
    dims = depthwise ? Dims{1, kh, kw, cout} : Dims{cout, kh, kw, cpg};
    channelDim = depthwise ? 3 : 0;
  }
  *scales = w->scales;
  const uint32_t index =
      namedConstant(std::string(reinterpret_cast<const char *>(filter.data()), filter.size()));
  if (w->perChannel)
    return w_.addQuantizedValue(dims, fb::XNNDatatype::xnn_datatype_qcint8,
                                perChannelParams(w->scales, channelDim), index);
  return w_.addQuantizedValue(dims, fb::XNNDatatype::xnn_datatype_qint8, w->scales[0], 0, index);
}

FailureOr<uint32_t> Lowering::quantizedBias(Value bias, float inputScale,
                                            const std::vector<float> &weightScales,
                                            bool perChannel, uint64_t n) {
  if (!bias)
    return kNone;
  FailureOr<FloatData> b = constantData(bias, n);
  if (failed(b) || weightScales.size() < (perChannel ? n : 1))
    return failure();
  // int32 in units of input scale * weight scale (zero point 0), rounded to
  // nearest even as torch.round, in float32 as upstream computes it.
  std::vector<float> scale(n);
  std::vector<int32_t> q(n);
  for (uint64_t c = 0; c < n; ++c) {
    scale[c] = inputScale * weightScales[perChannel ? c : 0];
    q[c] = int32_t(std::nearbyint((**b)[c] / scale[c]));
  }
  const uint32_t index = namedConstant(
      std::string(reinterpret_cast<const char *>(q.data()), q.size() * sizeof(int32_t)));
  if (perChannel)
    return w_.addQuantizedValue({n}, fb::XNNDatatype::xnn_datatype_qcint32,
                                perChannelParams(scale, 0), index);
  return w_.addQuantizedValue({n}, fb::XNNDatatype::xnn_datatype_qint32, scale[0], 0, index);
}

FailureOr<bool> Lowering::lowerQuantizedCompute(Operation *op, const OpPlan &p) {
  // Which nodes XNNPACK runs in int8 here, and whether they keep their
  // input's parameters (XNNPACK requires it of max pooling, reshapes and
  // clamps).
  bool clampable = false, sameParams = false;
  switch (p.form) {
  case Form::Conv:
  case Form::Linear:
    clampable = true;
    break;
  case Form::Binary:
    clampable = true;
    if (p.node != Kind::XNNAdd && p.node != Kind::XNNSubtract && p.node != Kind::XNNMultiply)
      return false;
    if (p.scalarOther || !p.other || isConstant(p.other))
      return false;
    break;
  case Form::Pool:
    clampable = sameParams = true;
    if (p.node != Kind::XNNMaxPooling2d)
      return false;
    break;
  case Form::GlobalPool:
    break;
  case Form::Reshape:
    sameParams = true;
    break;
  case Form::Unary:
    sameParams = true;
    if (!p.isClamp())
      return false;
    break;
  default:
    return false;
  }
  if (foldedInto_.count(op))
    return false;
  // The quantize that takes the result, through a clamp the node applies.
  Value r = op->getResult(0);
  auto soleUser = [](Value v) -> Operation * {
    return v.hasOneUse() ? *v.getUsers().begin() : nullptr;
  };
  auto planOf = [&](Operation *o) -> const OpPlan * {
    auto it = o ? plans_.find(o) : plans_.end();
    return it == plans_.end() ? nullptr : &it->second;
  };
  Operation *clampOp = nullptr, *qOp = soleUser(r);
  if (clampable && planOf(qOp) && planOf(qOp)->isClamp()) {
    clampOp = qOp;
    qOp = soleUser(clampOp->getResult(0));
  }
  if (!planOf(qOp) || planOf(qOp)->form != Form::Quantize)
    return false;
  SmallVector<Value, 2> acts{p.input};
  if (p.form == Form::Binary)
    acts.push_back(p.other);
  for (Value a : acts)
    if (!isQuantized(a))
      return false;
  if ((p.form == Form::Conv || p.form == Form::Linear) &&
      (!isQuantizedWeight(p.weight, [this](Value v) { return isConstant(v); }) ||
       (p.bias && !isConstant(p.bias))))
    return false;
  std::optional<Qdq> q = decode(qOp);
  const float outScale = float(q->scale);
  const int32_t outZp = int32_t(q->zeroPoint);
  const QEntry in = qvalues_.lookup(p.input); // copies (isQuantized above)
  if (sameParams && (in.scale != outScale || in.zeroPoint != outZp))
    return false;
  Value qr = qOp->getResult(0);
  const OutputClamp clamp = clampOp ? plans_.lookup(clampOp).clamp : OutputClamp();
  const uint32_t debug = debugHandle(op);

  switch (p.form) {
  case Form::Conv:
  case Form::Linear: {
    const bool linear = p.form == Form::Linear;
    FailureOr<uint32_t> x = getQ(p.input, linear ? kAsIs : kNhwc);
    std::vector<float> wScales;
    FailureOr<uint32_t> filter =
        quantizedFilter(p.weight, p.node == Kind::XNNDepthwiseConv2d, linear, &wScales);
    if (failed(x) || failed(filter))
      return failure();
    const uint64_t n = shapeOf(r)[1]; // output channels (NCHW) or features
    FailureOr<uint32_t> bias = quantizedBias(p.bias, in.scale, wScales, wScales.size() > 1, n);
    if (failed(bias)) {
      (void)fail(op, "the bias is not a float32 constant of the output channels");
      return failure();
    }
    const uint32_t y = defineQ(qr, linear ? kAsIs : kNhwc, outScale, outZp);
    if (linear)
      w_.addFullyConnected(*x, *filter, *bias, y, 0, clamp, debug);
    else
      w_.addConv(p.node, p.conv, *x, *filter, *bias, y, clamp, debug);
    break;
  }
  case Form::Binary: {
    const bool nhwc = shapeOf(r).size() == 4 && shapeOf(p.input).size() == 4 &&
                      shapeOf(p.other).size() == 4 &&
                      (onlyNhwcQ(p.input) || onlyNhwcQ(p.other));
    const Layout l = nhwc ? kNhwc : kAsIs;
    FailureOr<uint32_t> a = getQ(p.input, l), b = getQ(p.other, l);
    if (failed(a) || failed(b))
      return failure();
    w_.addBinary(p.node, *a, *b, defineQ(qr, l, outScale, outZp), clamp, debug);
    break;
  }
  case Form::Pool: {
    FailureOr<uint32_t> x = getQ(p.input, kNhwc);
    if (failed(x))
      return failure();
    w_.addPooling(p.node, p.pool, *x, defineQ(qr, kNhwc, outScale, outZp), clamp, debug);
    break;
  }
  case Form::GlobalPool: {
    FailureOr<uint32_t> x = getQ(p.input, kNhwc);
    if (failed(x))
      return failure();
    const Dims d = shapeOf(p.input);
    const uint32_t pooled = w_.addQuantizedValue({d[0], 1, 1, d[1]},
                                                 fb::XNNDatatype::xnn_datatype_qint8, outScale,
                                                 outZp);
    w_.addUnary(Kind::XNNGlobalAvgPooling2d, *x, pooled, {}, debug);
    if (shapeOf(r).size() == 4) {
      QEntry &e = qvalues_[qr]; // [N,C,1,1] as NHWC [N,1,1,C]
      e.id[kNhwc] = pooled, e.scale = outScale, e.zeroPoint = outZp;
    } else {
      w_.addReshape(pooled, defineQ(qr, kAsIs, outScale, outZp));
    }
    break;
  }
  case Form::Reshape: {
    FailureOr<uint32_t> x = getQ(p.input, kAsIs);
    if (failed(x))
      return failure();
    w_.addReshape(*x, defineQ(qr, kAsIs, outScale, outZp), debug);
    break;
  }
  default: { // a clamp alone
    const Layout l = onlyNhwcQ(p.input) ? kNhwc : kAsIs;
    FailureOr<uint32_t> x = getQ(p.input, l);
    if (failed(x))
      return failure();
    w_.addUnary(Kind::XNNClamp, *x, defineQ(qr, l, outScale, outZp), p.clamp, debug);
    break;
  }
  }
  // The quantize (and clamp) are this node's; the IR's float result is
  // never materialized.
  absorbed_.insert(qOp);
  if (clampOp)
    absorbed_.insert(clampOp);
  return true;
}

} // namespace lowering

} // namespace ptec::aot::xnnpack
