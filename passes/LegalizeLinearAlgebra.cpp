//===- LegalizeLinearAlgebra.cpp - matmul, linear, attention --------------===//
//
// legalize-to-core-aten rewrites for the linear-algebra family: matmul of any
// rank (through reshapes that stay symbolic on dynamic shapes), linear,
// scaled dot-product attention and softmax (convolutions are in
// LegalizeNN.cpp). Separate from the
// driver because these share the reshape/matmul helpers and nothing else.
//
//===----------------------------------------------------------------------===//

#include "passes/LegalizeReduce.h"

#include <cmath>
#include <limits>

namespace ptec::legalize {

FailureOr<Value> Legalizer::matmul(Value a, Value m, RankedTensorType rt) {
  RankedTensorType at = tensorType(a), mt = tensorType(m);
  if (at.getRank() == 2 && mt.getRank() == 2)
    return make("aten::mm", rt, {{a}, {m}});
  if (at.getRank() >= 3 && mt.getRank() == 2) {
    // Fold the leading dims of `a` into rows: [.., K] x [K, N].
    int64_t r = at.getRank();
    int64_t rows = at.getNumElements() / at.getShape().back();
    FailureOr<Value> a2 = reshape(a, {foldDims(a, 0, r - 1), {Value(), {}, at.getShape().back()}});
    if (failed(a2))
      return failure();
    FailureOr<Value> p = make("aten::mm", withShape(rt, {rows, mt.getShape()[1]}),
                              {{*a2}, {m}});
    if (failed(p))
      return failure();
    SmallVector<DimProduct> outDims = dimsOf(a, 0, r - 1);
    outDims.push_back(foldDims(m, 1, 2));
    return reshape(*p, outDims);
  }
  if (at.getRank() >= 3 && at.getRank() == mt.getRank()) {
    // Same batch dims: fold them into one and use bmm.
    int64_t r = at.getRank();
    if (at.getShape().drop_back(2) != mt.getShape().drop_back(2))
      return emitError(loc, "matmul with broadcast batch dimensions is not supported");
    int64_t batch = 1;
    for (int64_t d : at.getShape().drop_back(2))
      batch *= d;
    int64_t M = at.getShape()[r - 2], K = at.getShape()[r - 1],
            N = mt.getShape()[r - 1];
    FailureOr<Value> a3 =
        reshape(a, {foldDims(a, 0, r - 2), foldDims(a, r - 2, r - 1), foldDims(a, r - 1, r)});
    FailureOr<Value> m3 =
        failed(a3) ? FailureOr<Value>()
                   : reshape(m, {foldDims(m, 0, r - 2), foldDims(m, r - 2, r - 1),
                                 foldDims(m, r - 1, r)});
    if (failed(a3) || failed(m3))
      return failure();
    FailureOr<Value> p = make("aten::bmm", withShape(rt, {batch, M, N}), {{*a3}, {*m3}});
    if (failed(p))
      return failure();
    SmallVector<DimProduct> outDims = dimsOf(a, 0, r - 1);
    outDims.push_back(foldDims(m, r - 1, r));
    return reshape(*p, outDims);
  }
  return emitError(loc, "matmul of ranks ")
         << at.getRank() << " and " << mt.getRank() << " is not supported";
}

FailureOr<Value> Legalizer::reshape(Value v, ArrayRef<DimProduct> dims) {
  SmallVector<int64_t> shape;
  for (const DimProduct &d : dims) {
    int64_t n = d.scale;
    for (int64_t k : d.dims)
      n *= tensorType(d.src).getDimSize(k);
    shape.push_back(n);
  }
  if (!dynamic)
    return view(v, shape);
  SmallVector<Value> syms;
  SmallVector<Attribute> binds;
  Type i64 = b.getI64Type();
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d.dims.empty())
      continue;
    Value n;
    for (int64_t k : d.dims) {
      Value s = b.create<exir::SymSizeOp>(loc, i64, d.src, b.getI64IntegerAttr(k));
      n = n ? b.create<exir::SymOp>(loc, i64, b.getStringAttr("mul"), ValueRange{n, s})
                  .getResult()
            : s;
    }
    if (d.scale != 1) {
      Value c = b.create<exir::SymConstOp>(loc, i64, b.getI64IntegerAttr(d.scale));
      n = b.create<exir::SymOp>(loc, i64, b.getStringAttr("mul"), ValueRange{n, c});
    }
    syms.push_back(n);
    binds.push_back(b.getStringAttr("size[" + std::to_string(i) + "]"));
  }
  FailureOr<Value> r = make("aten::view_copy", withShape(tensorType(v), shape), {{v}},
                            {ints("size", shape)});
  if (failed(r) || syms.empty())
    return r;
  Operation *viewOp = r->getDefiningOp();
  SmallVector<Value> operands(viewOp->getOperands());
  operands.append(syms.begin(), syms.end());
  viewOp->setOperands(operands);
  viewOp->setAttr(exir::kSymArgsAttrName, b.getArrayAttr(binds));
  return r;
}

LogicalResult Legalizer::linear() {
  Value input = operandOf(op, "input"), weight = operandOf(op, "weight"),
        bias = operandOf(op, "bias");
  RankedTensorType rt = tensorType(op->getResult(0));
  FailureOr<Value> wt = transposeLast2(weight);
  if (failed(wt))
    return failure();
  RankedTensorType it = tensorType(input);
  int64_t r = it.getRank();
  int64_t K = it.getShape().back(), N = rt.getShape().back();
  int64_t rows = it.getNumElements() / std::max<int64_t>(K, 1);
  FailureOr<Value> in2 = reshape(input, {foldDims(input, 0, r - 1), {Value(), {}, K}});
  if (failed(in2))
    return failure();
  RankedTensorType t2 = withShape(rt, {rows, N});
  FailureOr<Value> y = bias ? make("aten::addmm", t2, {{bias}, {*in2}, {*wt}})
                            : make("aten::mm", t2, {{*in2}, {*wt}});
  if (failed(y))
    return failure();
  SmallVector<DimProduct> outDims = dimsOf(input, 0, r - 1);
  outDims.push_back({Value(), {}, N});
  return replaceWith(reshape(*y, outDims));
}

LogicalResult Legalizer::matmulOp() {
  Value a = operandOf(op, "self"), m = operandOf(op, "other");
  RankedTensorType at = tensorType(a), mt = tensorType(m);
  int64_t ra = at.getRank(), rm = mt.getRank();
  // matmul() folds dims that may be run-time sizes; it takes matrix x
  // matrix, batched x matrix and batched x batched with equal batch dims.
  bool folded = (ra == 2 && rm == 2) || (ra >= 3 && rm == 2) ||
                (ra >= 3 && ra == rm && at.getShape().drop_back(2) == mt.getShape().drop_back(2));
  if (!folded && at.hasStaticShape() && mt.hasStaticShape()) {
    // Vectors and broadcast batch dims on static shapes: torch.matmul's
    // every case (dot, mv, vector x matrix, expanded bmm), as Emit builds it.
    reduce::Emit e(*this);
    return e.done({e.matmul(a, m)});
  }
  return replaceWith(matmul(a, m, tensorType(op->getResult(0))));
}

/// scaled_dot_product_attention as PyTorch's math backend computes it:
/// softmax(q·kᵀ·scale + mask) · v, where a boolean mask (False: hidden) and
/// is_causal (key j visible to query i iff j <= i) hide scores with -inf,
/// a float mask is added, rows with every key hidden give 0 (not NaN), and
/// enable_gqa repeats each key/value head for its group of query heads. On
/// static shapes the math lives in LegalizeReduceProducts.cpp
/// (reduce::attention), which also broadcasts batch dims; run-time shapes
/// take the path below, whose reshapes read sizes at run time.
LogicalResult Legalizer::sdpa() {
  if (auto p = op->getAttrOfType<FloatAttr>("dropout_p"); p && p.getValueAsDouble() != 0)
    return emitError(loc, "scaled_dot_product_attention with dropout is not supported");
  Value q = operandOf(op, "query"), k = operandOf(op, "key"),
        v = operandOf(op, "value"), mask = operandOf(op, "attn_mask");
  std::optional<double> scaleArg;
  if (auto s = op->getAttrOfType<FloatAttr>("scale"))
    scaleArg = s.getValueAsDouble();
  if (!dynamic) {
    FailureOr<reduce::AttentionResult> r =
        reduce::attention(*this, q, k, v, mask, boolArg(op, "is_causal", false), scaleArg,
                          boolArg(op, "enable_gqa", false), false);
    if (failed(r))
      return failure();
    return replace({r->output});
  }
  RankedTensorType qt = tensorType(q), kt = tensorType(k);
  RankedTensorType rt = tensorType(op->getResult(0));
  double scale = scaleArg ? *scaleArg : 1.0 / std::sqrt(static_cast<double>(qt.getShape().back()));
  FailureOr<Value> kT = transposeLast2(k);
  if (failed(kT))
    return failure();
  SmallVector<int64_t> sShape(qt.getShape());
  sShape.back() = kt.getShape()[kt.getRank() - 2];
  RankedTensorType st = withShape(qt, sShape);
  FailureOr<Value> scores = matmul(q, *kT, st);
  if (failed(scores))
    return failure();
  scores = make("aten::mul.Scalar", st, {{*scores}}, {f64("other", scale)});
  if (failed(scores))
    return failure();
  // A boolean mask says which keys to attend to (False: -inf); a float mask
  // is added. is_causal: key j is visible to query i iff j <= i (the lower
  // triangle of [L, S], top-left aligned), computed from the scores' own
  // run-time shape.
  RankedTensorType boolScores = st.clone(b.getI1Type());
  auto hide = [&](Value visible) -> LogicalResult {
    RankedTensorType vt = tensorType(visible);
    auto hidden = make("aten::logical_not", withShape(vt, vt.getShape()).clone(b.getI1Type()),
                       {{visible}});
    if (failed(hidden))
      return failure();
    scores = make("aten::masked_fill.Scalar", st, {{*scores}, {*hidden}},
                  {f64("value", -std::numeric_limits<double>::infinity())});
    return failure(failed(scores));
  };
  if (mask && getElementTypeOrSelf(mask.getType()).isInteger(1)) {
    if (failed(hide(mask)))
      return failure();
  } else if (mask) {
    if (failed(scores = make("aten::add.Tensor", st, {{*scores}, {mask}})))
      return failure();
  }
  if (boolArg(op, "is_causal", false)) {
    auto ones = make("aten::full_like", st, {{*scores}}, {f64("fill_value", 1.0)});
    auto lower = failed(ones) ? ones : make("aten::tril", st, {{*ones}}, {i64("diagonal", 0)});
    if (failed(lower) || failed(hide(*lower)))
      return failure();
  }
  FailureOr<Value> probs =
      make("aten::_softmax", st, {{*scores}},
           {i64("dim", -1), attr("half_to_float", b.getBoolAttr(false))});
  if (failed(probs))
    return failure();
  if (mask) {
    // Rows whose every key is hidden: 0, as PyTorch's _safe_softmax gives.
    SmallVector<int64_t> rowShape(sShape);
    rowShape.back() = 1;
    auto live = make("aten::ne.Scalar", boolScores, {{*scores}},
                     {f64("other", -std::numeric_limits<double>::infinity())});
    if (succeeded(live))
      live = make("aten::any.dim", withShape(boolScores, rowShape), {{*live}},
                  {i64("dim", -1), attr("keepdim", b.getBoolAttr(true))});
    auto zero = failed(live) ? live
                             : make("aten::full", RankedTensorType::get({}, st.getElementType()),
                                    {}, {ints("size", {}), f64("fill_value", 0.0),
                                         dtype("dtype", st.getElementType())});
    if (failed(zero) ||
        failed(probs = make("aten::where.self", st, {{*live}, {*probs}, {*zero}})))
      return failure();
  }
  return replaceWith(matmul(*probs, v, rt));
}

LogicalResult Legalizer::softmax(StringRef target) {
  // With `dtype`, PyTorch converts the input first and computes in that dtype.
  Value self = operandOf(op, "self");
  Type want = getElementTypeOrSelf(op->getResult(0).getType());
  if (tensorType(self).getElementType() != want) {
    FailureOr<Value> converted =
        make("aten::_to_copy", withShape(tensorType(self), tensorType(self).getShape()).clone(want),
             {{self}}, {attr("dtype", TypeAttr::get(want))});
    if (failed(converted))
      return failure();
    self = *converted;
  }
  return replaceWith(make(target, op->getResult(0).getType(),
                          {{self}},
                          {i64("dim", intArg(op, "dim", -1)),
                           attr("half_to_float", b.getBoolAttr(false))}));
}

void addLinearAlgebraLegalizations(LegalizeTable &t) {
  addLegalizations(t, {"aten::linear"}, [](Legalizer &L) { return L.linear(); },
                   Dynamic::Handled);
  addLegalizations(t, {"aten::matmul"}, [](Legalizer &L) { return L.matmulOp(); },
                   Dynamic::Handled);
  addLegalizations(t, {"aten::scaled_dot_product_attention"},
                   [](Legalizer &L) { return L.sdpa(); }, Dynamic::Handled);
  addLegalizations(t, {"aten::softmax.int"},
                   [](Legalizer &L) { return L.softmax("aten::_softmax"); }, Dynamic::Handled);
  addLegalizations(t, {"aten::log_softmax.int"},
                   [](Legalizer &L) { return L.softmax("aten::_log_softmax"); },
                   Dynamic::Handled);
}

} // namespace ptec::legalize
