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
#include "backends/xnnpack/aot/XnnpackQdq.h"
#include "backends/xnnpack/format/XnnQuantLimits.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;

namespace ptec::aot::xnnpack {

namespace fb = fb_xnnpack;

using namespace qdq;

namespace {

/// Why the dequantize (or its [1, 0] transpose) `v` is not a weight an int8
/// convolution or linear takes; empty when it is. `anyAxis`: the dequantize
/// itself, whose users decide (a linear's [N, K] weight is scaled along
/// N = axis 0 and read through a transpose).
std::string weightDequantizeProblem(Value v, const IsConstant &isConstant, bool anyAxis) {
  bool transposed = false;
  std::optional<Qdq> q = decode(weightDequantize(v, &transposed));
  if (!q || q->quantize || !isInt8(q->input) || !isConstant(q->input) || !isF32(q->result))
    return "not the dequantize of an int8 constant";
  if (q->perChannel) {
    const int64_t rank = ranked(q->input).getRank();
    // The output channels: a convolution's [O, I, KH, KW] dim 0, a linear's
    // [N, K] dim 0 (read transposed) or an mm's [K, N] dim 1.
    const bool axisOk = rank == 4   ? q->axis == 0
                        : rank == 2 ? (anyAxis || q->axis == (transposed ? 0 : 1))
                                    : false;
    if (!axisOk)
      return "the per-channel axis is not the output channels";
  }
  std::string why;
  if (failed(readWeight(isConstant, v, &why, /*withData=*/false)))
    return why;
  return {};
}

/// Empty when dequantize `q` (of an activation) reads its int8 value with
/// the parameters the delegate gives that value: its quantize's, or, for an
/// int8 input, those of every other dequantize of it. XNNPACK's int8 values
/// carry one scale and zero point; a dequantize with others (legal: it
/// reinterprets the bytes) stays on the portable kernels.
std::string sameParamsProblem(const Qdq &q) {
  auto differs = [&](const Qdq &o) {
    return float(o.scale) != float(q.scale) || o.zeroPoint != q.zeroPoint;
  };
  if (std::optional<Qdq> producer = decode(q.input.getDefiningOp());
      producer && producer->quantize)
    return differs(*producer) ? "its scale or zero point differs from its quantize's" : "";
  for (Operation *user : q.input.getUsers())
    if (std::optional<Qdq> o = decode(user); o && !o->quantize && !o->perChannel && differs(*o))
      return "another dequantize reads the same int8 value with other parameters";
  return {};
}

} // namespace

bool isQuantizedWeight(Value v, const IsConstant &isConstant) {
  return weightDequantizeProblem(v, isConstant, false).empty();
}

std::optional<OpPlan> planQuantizedOp(Operation *operation, const IsConstant &isConstant,
                                      std::string *why, bool *handled) {
  auto op = llvm::dyn_cast<exir::AtenOp>(operation);
  *handled = false;
  if (!op)
    return std::nullopt;
  auto no = [&](const std::string &text) -> std::optional<OpPlan> {
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
    if (std::string bad = fitsInt8Activation(*q); !bad.empty())
      return no(bad);
    p.form = OpPlan::Form::Quantize;
    return p;
  }
  if (!isInt8(q->input) || !isF32(q->result))
    return no("only int8 to float32 dequantization is lowered");
  if (isConstant(q->input)) {
    if (std::string bad = weightDequantizeProblem(q->result, isConstant, true); !bad.empty())
      return no("a dequantized constant that is not an int8 weight XNNPACK takes (symmetric, "
                "per tensor or per output channel, normal scales): " + bad);
    p.form = OpPlan::Form::QuantizedWeight;
    return p;
  }
  if (q->perChannel)
    return no("a per-channel dequantize of an activation");
  if (std::string bad = fitsInt8Activation(*q); !bad.empty())
    return no(bad);
  if (std::string bad = sameParamsProblem(*q); !bad.empty())
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
  const IsConstant constant = moduleConstant;
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
  FailureOr<Int8Weight> w = readWeight([this](Value c) { return constantAttr(c); }, v);
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
  std::string why;
  FailureOr<Int8Weight> w = readWeight([this](Value c) { return constantAttr(c); }, weight, &why);
  if (failed(w)) {
    (void)fail(region_, "internal error: an int8 weight does not read back: " + why);
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
    const double r = std::nearbyint(double((**b)[c] / scale[c]));
    if (!(std::fabs(r) <= double(std::numeric_limits<int32_t>::max())))
      return failure(); // int8ComputeProblem refuses such biases first
    q[c] = int32_t(r);
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
  // Parameters XNNPACK would refuse: float32 here (the capability check
  // keeps such ops out of the delegate; this covers any that reach it).
  if (int8ComputeProblem(op, p, [this](Value v) { return constantAttr(v); }))
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
      (!isQuantizedWeight(p.weight, [this](Value v) { return constantAttr(v); }) ||
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
    w_.addGlobalAvgPool(*x, pooled, debug);
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
