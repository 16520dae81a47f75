//===- XnnpackLowering.cpp - one region to an XNNPACK delegate blob -------===//
//
// Walks the region's ops in order and writes XNNPACK nodes through
// GraphWriter. Each IR value may exist in two layouts: as the IR has it
// (NCHW for 4-d tensors) and NHWC, which convolutions and pooling need; a
// StaticTranspose is added the first time a value is wanted in the layout it
// lacks (a reshape when both orders coincide, i.e. C == 1 or H*W == 1), so a
// chain of NHWC nodes converts once on the way in and once on the way out.
// Constants are converted here instead (their bytes are baked), batch norm
// folds into the convolution before it, and a relu / hardtanh / clamp that
// is the only user of a convolution, linear, pooling or arithmetic result
// becomes that node's output clamp.
//
//===----------------------------------------------------------------------===//

#include "backends/xnnpack/aot/XnnpackLowering.h"

#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

#include <array>
#include <map>

#include <cmath>
#include <cstring>

using namespace mlir;

namespace ptec::aot::xnnpack {

namespace fb = fb_xnnpack;
using Kind = fb::XNodeUnion;
using Form = OpPlan::Form;
using ptec::xnnpack::GraphWriter;
using ptec::xnnpack::OutputClamp;
using Dims = std::vector<uint64_t>;

namespace lowering {

FailureOr<FloatData> Lowering::constantData(Value v, uint64_t expected) {
  FloatData data;
  if (auto it = data_.find(v); it != data_.end()) {
    data = it->second;
  } else if (!isConstant(v)) { // a weight read through a dequantize
    FailureOr<FloatData> dq = dequantizedData(v);
    if (failed(dq))
      return failure();
    data = *dq;
  } else {
    auto arg = llvm::cast<BlockArgument>(v);
    auto attr = region_.getArgAttrOfType<ElementsAttr>(arg.getArgNumber(), kWeightValueAttr);
    std::vector<uint8_t> bytes;
    if (!attr || failed(exir::getElementsBytes(region_, attr, bytes))) {
      (void)fail(region_, "constant argument " + std::to_string(arg.getArgNumber()) +
                              " has no readable weight data");
      return failure();
    }
    const uint64_t n = numel(shapeOf(v));
    if (bytes.size() != n * 4) {
      (void)fail(region_, "a constant argument has " + std::to_string(bytes.size()) +
                              " bytes, its type needs " + std::to_string(n * 4));
      return failure();
    }
    auto f = std::make_shared<std::vector<float>>(n);
    std::memcpy(f->data(), bytes.data(), bytes.size()); // little-endian host
    data = std::move(f);
    data_[v] = data;
  }
  if (expected != ~uint64_t(0) && data->size() != expected) {
    (void)fail(region_, "a constant has " + std::to_string(data->size()) +
                            " elements where " + std::to_string(expected) + " are needed");
    return failure();
  }
  return data;
}

/// A constant as a graph value: in layout `l`, expanded to `rank` dims
/// (leading 1s) when it broadcasts against a higher-rank operand.
FailureOr<uint32_t> Lowering::constantIn(Value v, Layout l, unsigned rank) {
  FailureOr<FloatData> data = constantData(v, numel(shapeOf(v)));
  if (failed(data))
    return failure();
  Dims d = shapeOf(v);
  if (d.empty())
    d = {1};
  while (d.size() < rank)
    d.insert(d.begin(), 1);
  if (l == kNhwc && d.size() == 4)
    return constantValue(toNhwc(d), nchwToNhwc(**data, d).data());
  return constantValue(d, (*data)->data());
}

FailureOr<uint32_t> Lowering::get(Value v, Layout l) {
  if (isConstant(v)) {
    // Baked once per layout.
    if (auto it = values_.find(v); it != values_.end() && it->second.id[l] != kNone)
      return it->second.id[l];
    FailureOr<uint32_t> id = constantIn(v, l, 0);
    if (failed(id))
      return failure();
    values_[v].id[l] = *id;
    return *id;
  }
  auto it = values_.find(v);
  if (it == values_.end() && isQuantized(v))
    return floatOf(v, l);
  if (it == values_.end()) {
    (void)fail(region_, "internal error: a value is used before it is lowered");
    return failure();
  }
  if (it->second.id[l] != kNone)
    return it->second.id[l];
  const uint32_t from = it->second.id[l == kNhwc ? kAsIs : kNhwc];
  const uint32_t to = define(v, l);
  addLayoutMove(shapeOf(v), from, to, l);
  return to;
}

void Lowering::addLayoutMove(const Dims &d, uint32_t from, uint32_t to, Layout l) {
  // NCHW and NHWC are the same bytes when C == 1 or H*W == 1.
  if (d[1] == 1 || d[2] * d[3] == 1)
    w_.addReshape(from, to);
  else
    w_.addTranspose(from, to, l == kNhwc ? std::vector<uint32_t>{0, 2, 3, 1}
                                          : std::vector<uint32_t>{0, 3, 1, 2});
}

OutputClamp Lowering::absorbClamp(Value r) {
  if (!r.hasOneUse())
    return {};
  Operation *user = *r.getUsers().begin();
  auto it = plans_.find(user);
  if (it == plans_.end() || !it->second.isClamp() || user->getParentOp() != region_)
    return {};
  absorbed_.insert(user);
  const Entry produced = values_[r]; // copied: the next insert may rehash
  values_[user->getResult(0)] = produced;
  return it->second.clamp;
}

/// Per-channel scale s and shift t of an eval-mode batch norm over `c`
/// channels: y = x * s + t, s = gamma / sqrt(var + eps), t = beta - mean * s.
LogicalResult Lowering::batchNormAffine(const OpPlan &bn, uint64_t c, std::vector<double> &s,
                                        std::vector<double> &t) {
  FailureOr<FloatData> mean = constantData(bn.mean, c), var = constantData(bn.var, c);
  if (failed(mean) || failed(var))
    return failure();
  FloatData gamma, beta; // absent: 1 and 0
  if (bn.weight) {
    FailureOr<FloatData> g = constantData(bn.weight, c);
    if (failed(g))
      return failure();
    gamma = *g;
  }
  if (bn.bias) {
    FailureOr<FloatData> b = constantData(bn.bias, c);
    if (failed(b))
      return failure();
    beta = *b;
  }
  s.assign(c, 1.0);
  t.assign(c, 0.0);
  for (uint64_t k = 0; k < c; ++k) {
    s[k] = (gamma ? double((*gamma)[k]) : 1.0) / std::sqrt(double((**var)[k]) + bn.eps);
    t[k] = (beta ? double((*beta)[k]) : 0.0) - double((**mean)[k]) * s[k];
  }
  return success();
}

LogicalResult Lowering::lowerConv(Operation *op, const OpPlan &p) {
  FailureOr<uint32_t> in = get(p.input, kNhwc);
  const Dims wd = shapeOf(p.weight); // [Cout, Cin/g, KH, KW]
  if (failed(in))
    return failure();
  if (wd.size() != 4)
    return fail(op, "internal error: a convolution weight of rank " + std::to_string(wd.size()));
  const uint64_t cout = wd[0], cpg = wd[1], kh = wd[2], kw = wd[3];
  FailureOr<FloatData> wData = constantData(p.weight, numel(wd));
  if (failed(wData))
    return failure();
  std::vector<float> bias(cout, 0.0f);
  if (p.bias) {
    FailureOr<FloatData> b = constantData(p.bias, cout);
    if (failed(b))
      return failure();
    bias = **b;
  }
  std::vector<float> scale(cout, 1.0f);
  Value result = op->getResult(0);
  // A batch norm that only reads this convolution folds into it:
  // w' = w * s, b' = b * s + t.
  if (auto f = foldedInto_.find(op); f != foldedInto_.end()) {
    Operation *bnOp = f->second;
    auto bn = plans_.find(bnOp);
    if (bn == plans_.end())
      return fail(op, "internal error: the folded batch norm has no plan");
    const OpPlan bnPlan = bn->second; // copied: nothing below holds into plans_
    std::vector<double> s, t;
    if (failed(batchNormAffine(bnPlan, cout, s, t)))
      return failure();
    for (uint64_t o = 0; o < cout; ++o) {
      scale[o] = float(s[o]);
      bias[o] = float(double(bias[o]) * s[o] + t[o]);
    }
    result = bnOp->getResult(0);
  }
  // XNNPACK's filter layouts: OHWI for a convolution, 1HWO for depthwise.
  const bool depthwise = p.node == Kind::XNNDepthwiseConv2d;
  const std::vector<float> &w = **wData;
  std::vector<float> filter(cout * cpg * kh * kw);
  for (uint64_t o = 0; o < cout; ++o)
    for (uint64_t i = 0; i < cpg; ++i)
      for (uint64_t y = 0; y < kh; ++y)
        for (uint64_t x = 0; x < kw; ++x) {
          const float v = w[((o * cpg + i) * kh + y) * kw + x] * scale[o];
          if (depthwise)
            filter[(y * kw + x) * cout + o] = v;
          else
            filter[((o * kh + y) * kw + x) * cpg + i] = v;
        }
  const uint32_t fId = constantValue(depthwise ? Dims{1, kh, kw, cout} : Dims{cout, kh, kw, cpg},
                                           filter.data());
  const uint32_t bId = constantValue({cout}, bias.data());
  const uint32_t out = define(result, kNhwc);
  const OutputClamp clamp = absorbClamp(result);
  w_.addConv(p.node, p.conv, *in, fId, bId, out, clamp, debugHandle(op));
  return success();
}

LogicalResult Lowering::lowerBatchNorm(Operation *op, const OpPlan &p) {
  // Alone (no convolution to fold into): y = x * s + t per channel, as a
  // 1x1 depthwise convolution.
  FailureOr<uint32_t> in = get(p.input, kNhwc);
  const Dims x = shapeOf(p.input);
  if (failed(in))
    return failure();
  if (x.size() != 4)
    return fail(op, "internal error: a batch norm input of rank " + std::to_string(x.size()));
  const uint64_t c = x[1];
  std::vector<double> sd, td;
  if (failed(batchNormAffine(p, c, sd, td)))
    return failure();
  std::vector<float> s(sd.begin(), sd.end()), t(td.begin(), td.end());
  ptec::xnnpack::ConvParams q;
  q.groups = uint32_t(c);
  const uint32_t fId = constantValue({1, 1, 1, c}, s.data());
  const uint32_t bId = constantValue({c}, t.data());
  Value result = op->getResult(0);
  const uint32_t out = define(result, kNhwc);
  w_.addConv(Kind::XNNDepthwiseConv2d, q, *in, fId, bId, out, absorbClamp(result),
             debugHandle(op));
  return success();
}

LogicalResult Lowering::lowerLinear(Operation *op, const OpPlan &p) {
  FailureOr<uint32_t> in = get(p.input, kAsIs);
  const Dims wd = shapeOf(p.weight); // [K, N]
  if (failed(in))
    return failure();
  if (wd.size() != 2)
    return fail(op, "internal error: a linear weight of rank " + std::to_string(wd.size()));
  const uint64_t k = wd[0], n = wd[1];
  FailureOr<FloatData> wT = constantData(p.weight, k * n);
  if (failed(wT))
    return failure();
  std::vector<float> filter(n * k); // XNNPACK's [N, K]
  for (uint64_t r = 0; r < n; ++r)
    for (uint64_t c = 0; c < k; ++c)
      filter[r * k + c] = (**wT)[c * n + r];
  const uint32_t fId = constantValue({n, k}, filter.data());
  uint32_t bId = kNone;
  if (p.bias) {
    FailureOr<FloatData> b = constantData(p.bias, n);
    if (failed(b))
      return failure();
    bId = constantValue({n}, (*b)->data());
  }
  Value result = op->getResult(0);
  const uint32_t out = define(result, kAsIs);
  w_.addFullyConnected(*in, fId, bId, out, 0, absorbClamp(result), debugHandle(op));
  return success();
}

LogicalResult Lowering::lowerBinary(Operation *op, const OpPlan &p) {
  Value result = op->getResult(0);
  const unsigned rank = unsigned(shapeOf(result).size());
  // NHWC when an operand only exists in NHWC and the other can follow (a
  // 4-d value, or a constant that is expanded and converted here).
  auto canFollow = [&](Value v) {
    return !v || isConstant(v) || shapeOf(v).size() == 4;
  };
  Layout l = kAsIs;
  if (rank == 4 && (onlyNhwc(p.input) || (p.other && onlyNhwc(p.other))) &&
      canFollow(p.input) && canFollow(p.other))
    l = kNhwc;
  auto operand = [&](Value v) -> FailureOr<uint32_t> {
    if (isConstant(v))
      return constantIn(v, l, l == kNhwc ? 4 : 0);
    return get(v, l);
  };
  FailureOr<uint32_t> a = operand(p.input);
  FailureOr<uint32_t> b = p.scalarOther ? FailureOr<uint32_t>(constantValue({1}, &p.scalar))
                                        : operand(p.other);
  if (failed(a) || failed(b))
    return failure();
  const uint32_t out = define(result, l);
  const bool clamps = p.node != Kind::XNNMaximum && p.node != Kind::XNNMinimum;
  w_.addBinary(p.node, *a, *b, out, clamps ? absorbClamp(result) : OutputClamp(),
               debugHandle(op));
  return success();
}

LogicalResult Lowering::lowerOp(Operation *op, const OpPlan &p) {
  switch (p.form) {
  case Form::Conv: return lowerConv(op, p);
  case Form::BatchNorm: return lowerBatchNorm(op, p);
  case Form::Linear: return lowerLinear(op, p);
  case Form::Binary: return lowerBinary(op, p);
  case Form::Concat: return lowerConcat(op, p);
  case Form::Slice: return lowerSlice(op, p);
  case Form::Transpose: return lowerTranspose(op, p);
  case Form::BatchMatMul: return lowerBatchMatMul(op, p);
  case Form::Pool: {
    FailureOr<uint32_t> in = get(p.input, kNhwc);
    if (failed(in))
      return failure();
    Value r = op->getResult(0);
    const uint32_t out = define(r, kNhwc);
    w_.addPooling(p.node, p.pool, *in, out, absorbClamp(r), debugHandle(op));
    return success();
  }
  case Form::GlobalPool: {
    FailureOr<uint32_t> in = get(p.input, kNhwc);
    if (failed(in))
      return failure();
    Value r = op->getResult(0);
    const Dims x = shapeOf(p.input);
    const uint32_t pooled = w_.addValue({x[0], 1, 1, x[1]});
    w_.addGlobalAvgPool(*in, pooled, debugHandle(op));
    if (shapeOf(r).size() == 4) {
      values_[r].id[kNhwc] = pooled; // [N,C,1,1] as NHWC [N,1,1,C]
    } else {
      w_.addReshape(pooled, define(r, kAsIs)); // [N, C]: same bytes
    }
    return success();
  }
  case Form::Unary: {
    const Layout l = onlyNhwc(p.input) ? kNhwc : kAsIs;
    FailureOr<uint32_t> in = get(p.input, l);
    if (failed(in))
      return failure();
    const uint32_t out = define(op->getResult(0), l);
    if (p.node == Kind::XNNLeakyReLU)
      w_.addLeakyRelu(*in, out, p.alpha, debugHandle(op));
    else if (p.node == Kind::XNNELU)
      w_.addElu(*in, out, p.alpha, debugHandle(op));
    else
      w_.addUnary(p.node, *in, out, p.node == Kind::XNNClamp ? p.clamp : OutputClamp(),
                  debugHandle(op));
    return success();
  }
  case Form::Softmax:
  case Form::Reshape: {
    FailureOr<uint32_t> in = get(p.input, kAsIs);
    if (failed(in))
      return failure();
    const uint32_t out = define(op->getResult(0), kAsIs);
    if (p.form == Form::Reshape)
      w_.addReshape(*in, out, debugHandle(op));
    else
      w_.addUnary(Kind::XNNSoftmax, *in, out, {}, debugHandle(op));
    return success();
  }
  case Form::Quantize:
  case Form::Dequantize:
  case Form::QuantizedWeight:
    break; // lowerQuantized takes these
  case Form::Pad: {
    FailureOr<uint32_t> in = get(p.input, kAsIs);
    if (failed(in))
      return failure();
    w_.addPad(*in, define(op->getResult(0), kAsIs), p.padPre, p.padPost, p.padValue,
              debugHandle(op));
    return success();
  }
  }
  return fail(op, "internal error: unknown lowering form");
}

/// Results leave in the IR's layout, each in its own external value: a node
/// result becomes that value; anything else (an input or constant passed
/// through, a value yielded twice) gets a copy.
LogicalResult Lowering::finishOutputs() {
  Operation *ret = region_.getBody().front().getTerminator();
  const uint32_t numArgs = runtimeInputs_;
  for (auto [r, v] : llvm::enumerate(ret->getOperands())) {
    // An int8 result leaves as int8 (a quantize at the region's edge).
    const bool asInt8 =
        isQuantized(v) && !llvm::cast<RankedTensorType>(v.getType()).getElementType().isF32();
    FailureOr<uint32_t> id = asInt8 ? getQ(v, kAsIs) : get(v, kAsIs);
    if (failed(id))
      return failure();
    const uint32_t ext = numArgs + uint32_t(r);
    if (!w_.isExternal(*id) && !w_.isConstant(*id)) {
      w_.setExternal(*id, ext, ptec::xnnpack::kFlagExternalOutput);
      continue;
    }
    const QEntry q = asInt8 ? qvalues_.lookup(v) : QEntry();
    const uint32_t copy =
        asInt8 ? w_.addQuantizedValue(shapeOf(v), fb::XNNDatatype::xnn_datatype_qint8, q.scale,
                                      q.zeroPoint)
               : w_.addValue(shapeOf(v));
    w_.addReshape(*id, copy);
    w_.setExternal(copy, ext, ptec::xnnpack::kFlagExternalOutput);
  }
  return success();
}

uint32_t Lowering::constantValue(const Dims &dims, const float *data) {
  std::string bytes(reinterpret_cast<const char *>(data), numel(dims) * sizeof(float));
  return w_.addValue(dims, namedConstant(std::move(bytes)));
}

uint32_t Lowering::namedConstant(std::string bytes, const char *prefix) {
  std::array<uint8_t, 32> digest = llvm::SHA256::hash(
      llvm::ArrayRef(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  std::string key = prefix + llvm::toHex(digest, /*LowerCase=*/true);
  uint32_t index = w_.addNamedConstant(key, bytes.size());
  named.emplace(std::move(key), std::move(bytes));
  return index;
}

FailureOr<std::string> Lowering::run(uint64_t *workspaceBytes) {
  Block &body = region_.getBody().front();
  IsConstant constant = [this](Value v) { return constantAttr(v); };
  for (Operation &op : body.without_terminator()) {
    std::string why;
    std::optional<OpPlan> p = planOp(&op, constant, &why);
    if (!p)
      return fail(&op, "cannot lower this op: " + why);
    plans_[&op] = *p;
  }
  // Batch norms that only read a convolution of this region fold into it.
  for (auto &[op, p] : plans_) {
    if (p.form != Form::BatchNorm)
      continue;
    Operation *conv = p.input.getDefiningOp();
    auto it = conv ? plans_.find(conv) : plans_.end();
    if (it != plans_.end() && it->second.form == Form::Conv && p.input.hasOneUse() &&
        !foldedInto_.count(conv)) {
      foldedInto_[conv] = op;
      absorbed_.insert(op);
    }
  }
  // Region inputs: delegate arguments in the IR's layout. Constants are
  // baked (named data) and not passed at run time: the call's arguments are
  // the other inputs, in order, then the results.
  for (BlockArgument arg : body.getArguments()) {
    if (isConstant(arg)) {
      baked.push_back(arg.getArgNumber());
      continue;
    }
    if (!llvm::isa<RankedTensorType>(arg.getType()))
      return fail(region_, "a region argument is not a ranked tensor");
    FailureOr<uint32_t> qin = llvm::cast<RankedTensorType>(arg.getType()).getElementType().isF32()
                                  ? FailureOr<uint32_t>(kNone)
                                  : quantizedInput(arg);
    if (failed(qin))
      return failure();
    const uint32_t id = *qin != kNone ? *qin : define(arg, kAsIs);
    w_.setExternal(id, runtimeInputs_++, ptec::xnnpack::kFlagExternalInput);
  }
  for (Operation &op : body.without_terminator()) {
    if (absorbed_.count(&op))
      continue;
    auto planned = plans_.find(&op);
    if (planned == plans_.end())
      return fail(&op, "internal error: an op of the region has no plan");
    // A copy: the lowering functions hold it while they insert into maps.
    const OpPlan plan = planned->second;
    FailureOr<bool> int8 = lowerQuantized(&op, plan);
    if (failed(int8))
      return failure();
    if (*int8)
      continue;
    if (failed(lowerOp(&op, plan)))
      return failure();
  }
  if (failed(finishOutputs()))
    return failure();
  const uint32_t externs = runtimeInputs_ + region_.getNumResults();
  std::string blob = w_.finish(externs);
  // Check our own output with the runtime's reader, and size the workspace.
  ptec::xnnpack::BlobView view;
  ptec::xnnpack::GraphPlan plan;
  std::string why;
  if (ptec::xnnpack::parseBlob(blob.data(), blob.size(), &view, &why) != rt::Error::Ok ||
      ptec::xnnpack::planGraph(view.graph, &plan, &why) != rt::Error::Ok)
    return fail(region_, "internal error: the blob does not read back: " + why);
  *workspaceBytes = plan.workspaceBytes;
  return blob;
}

} // namespace lowering

FailureOr<std::string> lowerRegion(func::FuncOp region, uint64_t *workspaceBytes,
                                   std::map<std::string, std::string> *namedData,
                                   std::vector<unsigned> *bakedArgs) {
  lowering::Lowering l(region);
  FailureOr<std::string> blob = l.run(workspaceBytes);
  if (succeeded(blob) && namedData)
    *namedData = std::move(l.named);
  if (succeeded(blob) && bakedArgs)
    *bakedArgs = std::move(l.baked);
  return blob;
}

} // namespace ptec::aot::xnnpack
