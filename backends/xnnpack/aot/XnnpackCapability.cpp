//===- XnnpackCapability.cpp - which ops go to XNNPACK, and how -----------===//
//
// planOp decides, for one core ATen op, whether XnnpackBackend can run
// it and with which node; refusals say why in one line. The same plan drives
// preprocess (XnnpackLowering.cpp), so what is accepted is what is lowered.
//
//===----------------------------------------------------------------------===//

#include "backends/xnnpack/aot/XnnpackAot.h"
#include "backends/xnnpack/format/XnnCapability.h"

#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cmath>

using namespace mlir;

namespace ptec::aot::xnnpack {

namespace fb = fb_xnnpack;
using Kind = fb::XNodeUnion;
using Form = OpPlan::Form;

namespace {

constexpr int64_t kMaxRank = 6; // XNN_MAX_TENSOR_DIMS

/// Ops this XNNPACK cannot run at all, with the reason.
const char *missingOp(llvm::StringRef name) {
  static const std::pair<const char *, const char *> table[] = {
      {"aten::native_layer_norm", "this XNNPACK (Debian 12, 2022) has no layer norm operator"},
      {"aten::expand_copy", "this XNNPACK (Debian 12, 2022) has no broadcast-copy operator"},
      {"aten::_log_softmax", "this XNNPACK (Debian 12, 2022) has no log softmax operator"},
      {"aten::upsample_bilinear2d", "bilinear upsampling is not lowered to XNNPACK by ptec"},
  };
  for (const auto &[op, why] : table)
    if (name == op || name.starts_with(std::string(op) + "."))
      return why;
  return nullptr;
}

/// Static float32 tensor of at most 6 dims, or null.
RankedTensorType f32(Value v) {
  auto t = llvm::dyn_cast_or_null<RankedTensorType>(v ? v.getType() : Type());
  if (!t || !t.hasStaticShape() || !t.getElementType().isF32() || t.getRank() > kMaxRank)
    return nullptr;
  for (int64_t d : t.getShape())
    if (d == 0)
      return nullptr;
  return t;
}

std::optional<double> number(Attribute a) {
  if (auto i = llvm::dyn_cast_or_null<IntegerAttr>(a))
    return static_cast<double>(i.getValue().getSExtValue());
  if (auto f = llvm::dyn_cast_or_null<FloatAttr>(a))
    return f.getValueAsDouble();
  return std::nullopt;
}

bool isNone(Attribute a) { return !a || llvm::isa<exir::NoneAttr>(a); }

SmallVector<int64_t> ints(exir::AtenOp op, StringRef name) {
  if (auto a = llvm::dyn_cast_or_null<DenseI64ArrayAttr>(op.getArgAttr(name)))
    return SmallVector<int64_t>(a.asArrayRef());
  if (auto i = llvm::dyn_cast_or_null<IntegerAttr>(op.getArgAttr(name)))
    return {i.getValue().getSExtValue()};
  return {};
}

/// A 2-element window parameter ([a] means [a, a]); empty list -> `dflt`.
bool pair(SmallVector<int64_t> v, std::array<int64_t, 2> dflt, std::array<int64_t, 2> &out) {
  if (v.empty())
    out = dflt;
  else if (v.size() == 1)
    out = {v[0], v[0]};
  else if (v.size() == 2)
    out = {v[0], v[1]};
  else
    return false;
  return out[0] >= 0 && out[1] >= 0 && out[0] < (1 << 20) && out[1] < (1 << 20);
}

Value operandOf(exir::AtenOp op, unsigned arg) {
  OperandRange r = op.getArgOperands(arg);
  return r.empty() ? Value() : r.front();
}

struct Checker {
  exir::AtenOp op;
  const IsConstant &isConstant;
  std::string *why;

  std::nullopt_t no(const std::string &text) const {
    if (why)
      *why = text;
    return std::nullopt;
  }
  /// Every tensor operand and the first result static float32.
  bool tensorsF32(unsigned results = 1) const {
    for (Value v : op->getOperands())
      if (!f32(v))
        return false;
    for (unsigned i = 0; i < results && i < op->getNumResults(); ++i)
      if (!f32(op->getResult(i)))
        return false;
    return true;
  }
  bool unusedResultsFrom(unsigned first) const {
    for (unsigned i = first; i < op->getNumResults(); ++i)
      if (!op->getResult(i).use_empty())
        return false;
    return true;
  }
};

std::optional<OpPlan> planConv(const Checker &c) {
  exir::AtenOp op = c.op;
  OpPlan p = OpPlan::of(Form::Conv);
  p.input = operandOf(op, 0), p.weight = operandOf(op, 1), p.bias = operandOf(op, 2);
  RankedTensorType x = f32(p.input), w = f32(p.weight), y = f32(op->getResult(0));
  if (!x || !w || !y || x.getRank() != 4 || w.getRank() != 4)
    return c.no("only 2-d convolutions of static float32 NCHW tensors are lowered");
  if (auto t = llvm::dyn_cast_or_null<BoolAttr>(op.getArgAttr("transposed")); t && t.getValue())
    return c.no("transposed convolution is not lowered to XNNPACK by ptec");
  if (!c.isConstant(p.weight) && !isQuantizedWeight(p.weight, c.isConstant))
    return c.no("the convolution weight is not a constant (XNNPACK packs weights at load)");
  if (p.bias && (!f32(p.bias) || !c.isConstant(p.bias)))
    return c.no("the convolution bias is not a float32 constant");
  std::array<int64_t, 2> stride, pad, dil;
  if (!pair(ints(op, "stride"), {1, 1}, stride) || !pair(ints(op, "padding"), {0, 0}, pad) ||
      !pair(ints(op, "dilation"), {1, 1}, dil) || stride[0] == 0 || stride[1] == 0 ||
      dil[0] == 0 || dil[1] == 0)
    return c.no("stride, padding or dilation is not a valid 2-d window");
  const int64_t groups = std::max<int64_t>(1, number(op.getArgAttr("groups")).value_or(1));
  const int64_t cin = x.getDimSize(1), cout = w.getDimSize(0);
  if (cin % groups != 0 || cout % groups != 0 || w.getDimSize(1) != cin / groups)
    return c.no("the weight shape does not match the groups");
  auto &q = p.conv;
  q.padTop = q.padBottom = uint32_t(pad[0]);
  q.padLeft = q.padRight = uint32_t(pad[1]);
  q.kernelH = uint32_t(w.getDimSize(2)), q.kernelW = uint32_t(w.getDimSize(3));
  q.strideH = uint32_t(stride[0]), q.strideW = uint32_t(stride[1]);
  q.dilationH = uint32_t(dil[0]), q.dilationW = uint32_t(dil[1]);
  const bool depthwise = groups > 1 && groups == cin;
  p.node = depthwise ? Kind::XNNDepthwiseConv2d : Kind::XNNConv2d;
  q.groups = uint32_t(groups);
  q.groupInputChannels = depthwise ? 1 : uint32_t(cin / groups);
  q.groupOutputChannels = uint32_t(cout / groups);
  return p;
}

std::optional<OpPlan> planPool(const Checker &c, bool maxPool) {
  exir::AtenOp op = c.op;
  OpPlan p = OpPlan::of(Form::Pool, maxPool ? Kind::XNNMaxPooling2d : Kind::XNNAvgPooling2d,
                        operandOf(op, 0));
  RankedTensorType x = f32(p.input), y = f32(op->getResult(0));
  if (!x || !y || x.getRank() != 4)
    return c.no("only 2-d pooling of static float32 NCHW tensors is lowered");
  if (maxPool && !c.unusedResultsFrom(1))
    return c.no("the max pooling indices are used (XNNPACK does not return them)");
  std::array<int64_t, 2> k, stride, pad, dil = {1, 1};
  if (!pair(ints(op, "kernel_size"), {0, 0}, k) || k[0] == 0 || k[1] == 0 ||
      !pair(ints(op, "stride"), k, stride) || stride[0] == 0 || stride[1] == 0 ||
      !pair(ints(op, "padding"), {0, 0}, pad) ||
      (maxPool && !pair(ints(op, "dilation"), {1, 1}, dil)) || dil[0] == 0 || dil[1] == 0)
    return c.no("kernel, stride, padding or dilation is not a valid 2-d window");
  if (k[0] * k[1] == 1)
    return c.no("a 1x1 pooling window (XNNPACK refuses it)");
  if (!maxPool) {
    if (!isNone(op.getArgAttr("divisor_override")))
      return c.no("average pooling with divisor_override");
    auto include = llvm::dyn_cast_or_null<BoolAttr>(op.getArgAttr("count_include_pad"));
    if ((pad[0] || pad[1]) && (!include || include.getValue()))
      return c.no("average pooling that counts padding (XNNPACK averages valid pixels only)");
  }
  // The output XNNPACK computes (floor mode) must be the op's: ceil_mode
  // is accepted only when it changes nothing.
  for (int d = 0; d < 2; ++d) {
    const int64_t eff = (k[d] - 1) * dil[d] + 1, in = x.getDimSize(2 + d) + 2 * pad[d];
    if (in < eff || (in - eff) / stride[d] + 1 != y.getDimSize(2 + d))
      return c.no("the output size is not XNNPACK's (ceil_mode that adds a row or column)");
  }
  auto &q = p.pool;
  q.padTop = q.padBottom = uint32_t(pad[0]);
  q.padLeft = q.padRight = uint32_t(pad[1]);
  q.poolH = uint32_t(k[0]), q.poolW = uint32_t(k[1]);
  q.strideH = uint32_t(stride[0]), q.strideW = uint32_t(stride[1]);
  q.dilationH = uint32_t(dil[0]), q.dilationW = uint32_t(dil[1]);
  return p;
}

std::optional<OpPlan> planLinear(const Checker &c, bool addmm) {
  exir::AtenOp op = c.op;
  OpPlan p = OpPlan::of(Form::Linear, Kind::XNNFullyConnected);
  p.bias = addmm ? operandOf(op, 0) : Value();
  p.input = operandOf(op, addmm ? 1 : 0);
  p.weight = operandOf(op, addmm ? 2 : 1);
  RankedTensorType x = f32(p.input), w = f32(p.weight), y = f32(op->getResult(0));
  if (!x || !w || !y || x.getRank() != 2 || w.getRank() != 2)
    return c.no("only 2-d float32 matrix products are lowered");
  if (!c.isConstant(p.weight) && !isQuantizedWeight(p.weight, c.isConstant))
    return c.no("the right operand is not a constant (this XNNPACK multiplies by packed "
                "weights only)");
  if (addmm) {
    RankedTensorType b = f32(p.bias);
    if (!b || b.getRank() != 1 || b.getDimSize(0) != w.getDimSize(1) || !c.isConstant(p.bias))
      return c.no("the addmm bias is not a constant [N] vector");
    if (!isScalarOne(op.getArgAttr("alpha")) || !isScalarOne(op.getArgAttr("beta")))
      return c.no("addmm with alpha or beta other than 1");
  }
  return p;
}

std::optional<OpPlan> planBinary(const Checker &c, Kind node, bool scalar) {
  exir::AtenOp op = c.op;
  OpPlan p = OpPlan::of(Form::Binary, node, op->getOperand(0));
  if (!c.tensorsF32())
    return c.no("operands and result must be static float32 tensors of at most 6 dims");
  if (!isScalarOne(op.getArgAttr("alpha")))
    return c.no("alpha other than 1");
  if (op.getArgAttr("rounding_mode") && !isNone(op.getArgAttr("rounding_mode")))
    return c.no("division with a rounding mode");
  if (scalar) {
    std::optional<double> v = number(op.getArgAttr("other"));
    if (!v)
      return c.no("the scalar operand is not a number");
    p.scalarOther = true;
    p.scalar = static_cast<float>(*v);
  } else {
    p.other = op->getOperand(1);
  }
  return p;
}

std::optional<OpPlan> planUnary(const Checker &c, Kind node, float lo, float hi) {
  OpPlan p = OpPlan::of(Form::Unary, node, c.op->getOperand(0));
  p.clamp.lo = lo, p.clamp.hi = hi;
  if (c.op->getNumOperands() != 1 || !c.tensorsF32())
    return c.no("the operand and result must be static float32 tensors of at most 6 dims");
  return p;
}


/// `d` as a dim of a rank-`rank` tensor (negative counts from the end), or -1.
int64_t normDim(int64_t d, int64_t rank) {
  d = d < 0 ? d + rank : d;
  return d >= 0 && d < rank ? d : -1;
}

std::optional<OpPlan> planConcat(const Checker &c) {
  exir::AtenOp op = c.op;
  OpPlan p = OpPlan::of(Form::Concat);
  RankedTensorType y = f32(op->getResult(0));
  if (!y)
    return c.no("the result must be a static float32 tensor of at most 6 dims");
  for (Value v : op->getOperands()) {
    RankedTensorType t = f32(v);
    // A 1-d empty tensor is legal in aten::cat (it is skipped); XNNPACK has no
    // empty values, so such a cat stays portable (f32 refuses 0 dims).
    if (!t || t.getRank() != y.getRank())
      return c.no("every input must be a non-empty static float32 tensor of the result's rank");
    p.inputs.push_back(v);
  }
  if (p.inputs.size() < 2)
    return c.no("a cat of fewer than two tensors");
  p.axis = normDim(int64_t(number(op.getArgAttr("dim")).value_or(0)), y.getRank());
  if (p.axis < 0)
    return c.no("the cat dim is out of range");
  p.input = p.inputs.front();
  p.node = p.inputs.size() == 2   ? Kind::XNNConcatenate2
           : p.inputs.size() == 3 ? Kind::XNNConcatenate3
           : p.inputs.size() == 4 ? Kind::XNNConcatenate4
                                  : Kind::XNNConcatenate5;
  return p;
}

std::optional<OpPlan> planSlice(const Checker &c) {
  exir::AtenOp op = c.op;
  OpPlan p = OpPlan::of(Form::Slice, Kind::XNNStaticSlice, operandOf(op, 0));
  RankedTensorType x = f32(p.input), y = f32(op->getResult(0));
  if (!x || !y || x.getRank() != y.getRank() || op->getNumOperands() != 1)
    return c.no("the operand and result must be non-empty static float32 tensors of at most "
                "6 dims");
  if (number(op.getArgAttr("step")).value_or(1) != 1)
    return c.no("a slice with a step other than 1 (XNNPACK slices contiguous ranges)");
  const int64_t dim = normDim(int64_t(number(op.getArgAttr("dim")).value_or(0)), x.getRank());
  if (dim < 0)
    return c.no("the slice dim is out of range");
  // ATen clamps start into [0, size]; the result type already has the size.
  const int64_t n = x.getDimSize(dim);
  int64_t start = isNone(op.getArgAttr("start"))
                      ? 0
                      : int64_t(number(op.getArgAttr("start")).value_or(0));
  start = start < 0 ? std::max<int64_t>(start + n, 0) : std::min(start, n);
  if (start + y.getDimSize(dim) > n)
    return c.no("the slice does not fit its input");
  p.offsets.assign(x.getRank(), 0);
  p.offsets[dim] = uint32_t(start);
  return p;
}

std::optional<OpPlan> planTranspose(const Checker &c, bool permute) {
  exir::AtenOp op = c.op;
  OpPlan p = OpPlan::of(Form::Transpose, Kind::XNNStaticTranspose, operandOf(op, 0));
  RankedTensorType x = f32(p.input), y = f32(op->getResult(0));
  if (!x || !y || op->getNumOperands() != 1)
    return c.no("the operand and result must be non-empty static float32 tensors of at most "
                "6 dims");
  const int64_t rank = x.getRank();
  std::vector<uint32_t> perm(rank);
  for (int64_t i = 0; i < rank; ++i)
    perm[i] = uint32_t(i);
  if (permute) {
    SmallVector<int64_t> dims = ints(op, "dims");
    if (int64_t(dims.size()) != rank)
      return c.no("the permutation does not fit the input's dims");
    std::vector<bool> seen(rank, false);
    for (int64_t i = 0; i < rank; ++i) {
      const int64_t d = normDim(dims[i], rank);
      if (d < 0 || seen[d])
        return c.no("not a permutation of the input's dims");
      seen[d] = true;
      perm[i] = uint32_t(d);
    }
  } else {
    const int64_t a = normDim(int64_t(number(op.getArgAttr("dim0")).value_or(0)), rank),
                  b = normDim(int64_t(number(op.getArgAttr("dim1")).value_or(0)), rank);
    if (a < 0 || b < 0)
      return c.no("the transposed dims are out of range");
    std::swap(perm[a], perm[b]);
  }
  p.perm = std::move(perm);
  return p;
}

std::optional<OpPlan> planBatchMatMul(const Checker &c) {
  exir::AtenOp op = c.op;
  OpPlan p = OpPlan::of(Form::BatchMatMul, Kind::XNNBatchMatrixMultiply, operandOf(op, 0));
  p.other = operandOf(op, 1);
  RankedTensorType a = f32(p.input), b = f32(p.other), y = f32(op->getResult(0));
  if (!a || !b || !y || a.getRank() != 3 || b.getRank() != 3)
    return c.no("only bmm of non-empty static float32 [B, M, K] x [B, K, N] tensors is lowered");
  return p;
}

} // namespace

namespace {
std::optional<OpPlan> planOpUnchecked(Operation *operation, const IsConstant &isConstant,
                                      std::string *why);
} // namespace

// Every float plan then asks the table the runtime half asks too
// (format/XnnCapability.h): where its node runs, its largest rank, and
// whether a 0-d operand or result is taken (the runtime computes it as [1]).
std::optional<OpPlan> planOp(Operation *operation, const IsConstant &isConstant,
                             std::string *why) {
  std::optional<OpPlan> p = planOpUnchecked(operation, isConstant, why);
  if (!p || p->form == Form::Quantize || p->form == Form::Dequantize ||
      p->form == Form::QuantizedWeight)
    return p; // int8 plans: XnnpackQuantized.cpp checks them
  const ptec::xnnpack::NodeCapability &cap = ptec::xnnpack::nodeCapability(p->node);
  auto refuse = [&](const std::string &text) -> std::optional<OpPlan> {
    if (why)
      *why = text;
    return std::nullopt;
  };
  if (cap.runsOn == ptec::xnnpack::RunsOn::Unsupported)
    return refuse(ptec::xnnpack::nodeKindName(p->node) + ": " + cap.why);
  auto check = [&](Value v) {
    auto t = llvm::dyn_cast<RankedTensorType>(v.getType());
    return !t || !t.getElementType().isF32() ||
           ptec::xnnpack::capabilityTakes(cap, fb::XNNDatatype::xnn_datatype_fp32,
                                          size_t(t.getRank()));
  };
  for (Value v : operation->getOperands())
    if (!check(v))
      return refuse("a rank " +
                    std::to_string(llvm::cast<RankedTensorType>(v.getType()).getRank()) +
                    " operand, which " + ptec::xnnpack::nodeKindName(p->node) +
                    " does not take");
  for (Value v : operation->getResults())
    if (!check(v))
      return refuse("a rank " +
                    std::to_string(llvm::cast<RankedTensorType>(v.getType()).getRank()) +
                    " result, which " + ptec::xnnpack::nodeKindName(p->node) +
                    " does not take");
  return p;
}

namespace {

std::optional<OpPlan> planOpUnchecked(Operation *operation, const IsConstant &isConstant,
                                      std::string *why) {
  auto op = llvm::dyn_cast<exir::AtenOp>(operation);
  Checker c{op, isConstant, why};
  if (!op)
    return c.no("not an ATen operator");
  const llvm::StringRef name = op.getOpName();
  bool quantized = false; // int8: quantize, dequantize, a weight's transpose
  std::optional<OpPlan> q = planQuantizedOp(op, isConstant, why, &quantized);
  if (quantized)
    return q;
  if (name == "aten::expand_copy") {
    // matmul's decomposition expands each operand to the shape it already
    // has: a copy the lowering writes no node for (an identity permutation),
    // which keeps the bmm in the delegate of its neighbours. Real
    // broadcasts stay portable (upstream does not delegate expand either).
    RankedTensorType x = f32(operandOf(op, 0)), y = f32(op->getResult(0));
    if (x && y && op->getNumOperands() == 1 && x.getShape() == y.getShape()) {
      OpPlan p = OpPlan::of(Form::Transpose, Kind::XNNStaticTranspose, operandOf(op, 0));
      for (int64_t i = 0; i < x.getRank(); ++i)
        p.perm.push_back(uint32_t(i));
      return p;
    }
  }
  if (const char *missing = missingOp(name))
    return c.no(missing);
  if (name.split('.').first.ends_with("_"))
    return c.no("an in-place operator");
  const float inf = INFINITY;
  if (name == "aten::convolution")
    return planConv(c);
  if (name == "aten::max_pool2d_with_indices")
    return planPool(c, true);
  if (name == "aten::avg_pool2d")
    return planPool(c, false);
  if (name == "aten::addmm" || name == "aten::mm")
    return planLinear(c, name == "aten::addmm");
  if (name == "aten::_native_batch_norm_legit_no_training") {
    OpPlan p = OpPlan::of(Form::BatchNorm, Kind::XNNDepthwiseConv2d, operandOf(op, 0));
    p.weight = operandOf(op, 1), p.bias = operandOf(op, 2);
    p.mean = operandOf(op, 3), p.var = operandOf(op, 4);
    p.eps = number(op.getArgAttr("eps")).value_or(1e-5);
    RankedTensorType x = f32(p.input);
    if (!x || x.getRank() != 4 || !f32(op->getResult(0)))
      return c.no("only batch norm of static float32 NCHW tensors is lowered");
    if (!c.unusedResultsFrom(1))
      return c.no("the saved mean or invstd results are used");
    for (Value v : {p.weight, p.bias, p.mean, p.var}) {
      if (!v)
        continue;
      RankedTensorType t = f32(v);
      if (!t || t.getRank() != 1 || t.getDimSize(0) != x.getDimSize(1) || !isConstant(v))
        return c.no("batch norm statistics and affine parameters must be constant [C] vectors");
    }
    if (!p.mean || !p.var)
      return c.no("batch norm without running statistics");
    return p;
  }
  if (name == "aten::mean.dim" || name == "aten::_adaptive_avg_pool2d") {
    OpPlan p = OpPlan::of(Form::GlobalPool, Kind::XNNGlobalAvgPooling2d, op->getOperand(0));
    RankedTensorType x = f32(p.input);
    if (!x || x.getRank() != 4 || !f32(op->getResult(0)))
      return c.no("only a mean over H and W of a static float32 NCHW tensor is lowered");
    if (name == "aten::_adaptive_avg_pool2d") {
      SmallVector<int64_t> size = ints(op, "output_size");
      if (size.size() != 2 || size[0] != 1 || size[1] != 1)
        return c.no("adaptive pooling to a size other than 1x1");
      return p;
    }
    if (!isNone(op.getArgAttr("dtype")))
      return c.no("mean with a dtype");
    SmallVector<int64_t> dims = ints(op, "dim");
    for (int64_t &d : dims)
      d = d < 0 ? d + 4 : d;
    llvm::sort(dims);
    if (dims != SmallVector<int64_t>{2, 3})
      return c.no("a mean over dims other than H and W");
    return p;
  }
  struct BinaryOp {
    const char *name;
    Kind node;
    bool scalar;
  };
  static const BinaryOp binaries[] = {
      {"aten::add.Tensor", Kind::XNNAdd, false},      {"aten::sub.Tensor", Kind::XNNSubtract, false},
      {"aten::mul.Tensor", Kind::XNNMultiply, false}, {"aten::div.Tensor", Kind::XNNDiv, false},
      {"aten::maximum", Kind::XNNMaximum, false},     {"aten::minimum", Kind::XNNMinimum, false},
      {"aten::add.Scalar", Kind::XNNAdd, true},       {"aten::sub.Scalar", Kind::XNNSubtract, true},
      {"aten::mul.Scalar", Kind::XNNMultiply, true},  {"aten::div.Scalar", Kind::XNNDiv, true},
  };
  for (const BinaryOp &b : binaries)
    if (name == b.name)
      return planBinary(c, b.node, b.scalar);
  if (name == "aten::relu")
    return planUnary(c, Kind::XNNClamp, 0.0f, inf);
  if (name == "aten::hardtanh" || name == "aten::clamp") {
    const bool ht = name == "aten::hardtanh";
    Attribute lo = op.getArgAttr(ht ? "min_val" : "min"), hi = op.getArgAttr(ht ? "max_val" : "max");
    std::optional<double> l = isNone(lo) ? std::optional<double>(-inf) : number(lo);
    std::optional<double> h = isNone(hi) ? std::optional<double>(inf) : number(hi);
    if (ht && !lo)
      l = -1.0;
    if (ht && !hi)
      h = 1.0;
    if (!l || !h || *l > *h)
      return c.no("clamp bounds are not numbers with min <= max");
    return planUnary(c, Kind::XNNClamp, float(*l), float(*h));
  }
  static const std::pair<const char *, Kind> unaries[] = {
      {"aten::sigmoid", Kind::XNNSigmoid},  {"aten::abs", Kind::XNNAbs},
      {"aten::neg", Kind::XNNNegate},       {"aten::sqrt", Kind::XNNSquareRoot},
      {"aten::ceil", Kind::XNNCeiling},     {"aten::floor", Kind::XNNFloor},
      {"aten::hardswish", Kind::XNNHardswish},
      // The runtime's own kernels (upstream's XNNPACK has them as operators).
      {"aten::tanh", Kind::XNNTanh},        {"aten::exp", Kind::XNNExp},
      {"aten::log", Kind::XNNLog},          {"aten::sin", Kind::XNNSin},
      {"aten::cos", Kind::XNNCos},          {"aten::rsqrt", Kind::XNNReciprocalSquareRoot},
  };
  for (const auto &[n, kind] : unaries)
    if (name == n)
      return planUnary(c, kind, -inf, inf);
  if (name == "aten::gelu") {
    // XNNGelu is the erf form; upstream refuses approximate='tanh' as well.
    auto approx = llvm::dyn_cast_or_null<StringAttr>(op.getArgAttr("approximate"));
    if (approx && approx.getValue() != "none")
      return c.no("gelu with approximate='" + approx.getValue().str() +
                  "' (XNNPACK's gelu is the erf form)");
    return planUnary(c, Kind::XNNGelu, -inf, inf);
  }
  if (name == "aten::cat")
    return planConcat(c);
  if (name == "aten::slice_copy.Tensor")
    return planSlice(c);
  if (name == "aten::permute_copy" || name == "aten::transpose_copy.int")
    return planTranspose(c, name == "aten::permute_copy");
  if (name == "aten::bmm")
    return planBatchMatMul(c);
  if (name == "aten::leaky_relu") {
    std::optional<OpPlan> p = planUnary(c, Kind::XNNLeakyReLU, -inf, inf);
    if (p)
      p->alpha = float(number(op.getArgAttr("negative_slope")).value_or(0.01));
    return p;
  }
  if (name == "aten::elu") {
    if (number(op.getArgAttr("scale")).value_or(1) != 1 ||
        number(op.getArgAttr("input_scale")).value_or(1) != 1)
      return c.no("elu with scale or input_scale other than 1");
    std::optional<OpPlan> p = planUnary(c, Kind::XNNELU, -inf, inf);
    if (p)
      p->alpha = float(number(op.getArgAttr("alpha")).value_or(1));
    return p;
  }
  if (name == "aten::_softmax") {
    std::optional<OpPlan> p = planUnary(c, Kind::XNNSoftmax, -inf, inf);
    if (!p)
      return p;
    p->form = Form::Softmax;
    const int64_t rank = f32(p->input).getRank();
    int64_t dim = int64_t(number(op.getArgAttr("dim")).value_or(-1));
    if (rank == 0 || (dim < 0 ? dim + rank : dim) != rank - 1)
      return c.no("softmax over a dim other than the last (XNNPACK reduces the innermost)");
    if (auto h = llvm::dyn_cast_or_null<BoolAttr>(op.getArgAttr("half_to_float")); h && h.getValue())
      return c.no("softmax with half_to_float");
    return p;
  }
  if (name == "aten::view_copy" || name == "aten::squeeze_copy.dim" ||
      name == "aten::squeeze_copy.dims" || name == "aten::squeeze_copy" ||
      name == "aten::unsqueeze_copy" || name == "aten::clone" || name == "aten::alias_copy") {
    if (name == "aten::clone") {
      auto fmt = llvm::dyn_cast_or_null<StringAttr>(op.getArgAttr("memory_format"));
      if (fmt && fmt.getValue() != "contiguous_format" && fmt.getValue() != "preserve_format")
        return c.no("a clone to another memory format");
    }
    std::optional<OpPlan> p = planUnary(c, Kind::XNNStaticReshape, -inf, inf);
    if (p)
      p->form = Form::Reshape;
    return p;
  }
  if (name == "aten::constant_pad_nd") {
    std::optional<OpPlan> p = planUnary(c, Kind::XNNStaticConstantPad, -inf, inf);
    if (!p)
      return p;
    p->form = Form::Pad;
    const int64_t rank = f32(p->input).getRank();
    SmallVector<int64_t> pad = ints(op, "pad");
    if (pad.size() % 2 != 0 || int64_t(pad.size()) > 2 * rank || rank == 0)
      return c.no("the padding list does not fit the input's dims");
    p->padPre.assign(rank, 0);
    p->padPost.assign(rank, 0);
    for (size_t i = 0; i < pad.size(); i += 2) {
      if (pad[i] < 0 || pad[i + 1] < 0)
        return c.no("negative padding (cropping)");
      const int64_t d = rank - 1 - int64_t(i / 2); // pairs start at the last dim
      p->padPre[d] = uint32_t(pad[i]);
      p->padPost[d] = uint32_t(pad[i + 1]);
    }
    p->padValue = float(number(op.getArgAttr("value")).value_or(0));
    return p;
  }
  return c.no("not an operator the XNNPACK backend lowers");
}

} // namespace

ElementsAttr moduleConstant(Value v) { return constantWeightOf(v).value; }

std::optional<std::string> refuseOp(Operation *op) {
  std::string why;
  std::optional<OpPlan> p = planOp(op, moduleConstant, &why);
  if (!p)
    return why;
  // An op the lowering would compute in int8, with parameters XNNPACK
  // would refuse at delegate init (or assert on): the portable kernels run it.
  if (std::optional<std::string> bad = int8ComputeProblem(op, *p, moduleConstant))
    return "int8 parameters XNNPACK does not take: " + *bad;
  return std::nullopt;
}

} // namespace ptec::aot::xnnpack
