//===- LegalizeReduceLosses.cpp - loss functions --------------------------===//
//
// legalize-to-core-aten rewrites of the losses a model exported with its
// loss keeps: the pointwise ones (mse, l1, smooth l1, huber, binary cross
// entropy with and without logits, kl_div, soft margin, margin ranking,
// hinge embedding, cosine embedding, poisson nll, triplet margin), the
// class-index ones (nll_loss in all its forms: a gather at the target
// class; cross_entropy with indices or probabilities and label smoothing;
// multi_margin_loss), each followed by its 'none'/'mean'/'sum' reduction.
// Formulas are ATen's Loss.cpp and torch/_decomp's.
//
//===----------------------------------------------------------------------===//

#include "passes/LegalizeReduce.h"

#include <cmath>

namespace ptec::legalize::reduce {
namespace {

int64_t reductionArg(Legalizer &L) { return intArg(L.op, "reduction", 1); }

/// A pointwise loss, reduced and converted to the declared dtype.
LogicalResult finish(Emit &e, Value loss) {
  Value r = applyReduction(e, loss, reductionArg(e.L));
  return e.done({e.cast(r, e.L.resultType().getElementType())});
}

LogicalResult mseLoss(Legalizer &L) {
  Emit e(L);
  Value d = e.sub(L.operand("self"), L.operand("target"));
  return finish(e, e.mul(d, d));
}

LogicalResult l1Loss(Legalizer &L) {
  Emit e(L);
  return finish(e, e.unary("aten::abs", e.sub(L.operand("self"), L.operand("target"))));
}

/// smooth_l1: 0.5 z^2 / beta below beta, z - 0.5 beta above (beta 0: l1);
/// huber: 0.5 z^2 below delta, delta (z - 0.5 delta) above.
LogicalResult smoothLoss(Legalizer &L) {
  Emit e(L);
  bool huber = L.op.getOpName() == "aten::huber_loss";
  double t = scalarArg(L.op, huber ? "delta" : "beta").value_or(1.0);
  Value z = e.unary("aten::abs", e.sub(L.operand("self"), L.operand("target")));
  if (!huber && t == 0)
    return finish(e, z);
  Value small = e.mulF(e.mul(z, z), 0.5);
  Value large = e.subS(z, 0.5 * t);
  if (huber)
    large = e.mulF(large, t);
  else
    small = e.divF(small, t);
  return finish(e, e.where(e.cmpS("aten::lt.Scalar", z, t), small, large));
}

/// binary_cross_entropy: -(t log(x) + (1 - t) log(1 - x)), each log
/// clamped at -100 (torch/_decomp).
LogicalResult bce(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self"), t = L.operand("target"), w = L.operand("weight");
  auto clampedLog = [&](Value v) { return e.clampMin(v, -100.0); };
  Value logX = clampedLog(e.unary("aten::log", x));
  Value log1mX = clampedLog(e.unary("aten::log1p", e.unary("aten::neg", x)));
  Value tLogX = e.mul(t, logX);
  Value loss = e.sub(e.mul(e.subS(t, 1.0), log1mX), tLogX);
  if (w)
    loss = e.mul(loss, w);
  return finish(e, loss);
}

/// log(sigmoid(x)) without overflow: min(x, 0) - log1p(exp(-|x|)).
Value logSigmoid(Emit &e, Value x) {
  Value tail = e.unary("aten::log1p", e.unary("aten::exp", e.unary("aten::neg",
                                                                   e.unary("aten::abs", x))));
  return e.sub(e.clampMax(x, 0.0), tail);
}

/// binary_cross_entropy_with_logits: (1 - t) x - w_p log(sigmoid(x)), where
/// w_p = (pos_weight - 1) t + 1 (ATen's Loss.cpp).
LogicalResult bceWithLogits(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self"), t = L.operand("target"), w = L.operand("weight"),
        pw = L.operand("pos_weight");
  Value ls = logSigmoid(e, x);
  if (pw)
    ls = e.mul(ls, e.addS(e.mul(e.subS(pw, 1.0), t), 1.0));
  Value loss = e.sub(e.mul(e.rsubS(t, 1.0), x), ls);
  if (w)
    loss = e.mul(loss, w);
  return finish(e, loss);
}

/// kl_div: t (log t - x), with 0 where t is 0 (xlogy); log_target:
/// exp(t) (t - x). 'batchmean' is F.kl_div's sum / batch, outside the op.
LogicalResult klDiv(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self"), t = L.operand("target");
  Value loss;
  if (boolArg(L.op, "log_target", false)) {
    Value diff = e.sub(t, x);
    loss = e.mul(e.unary("aten::exp", t), diff);
  } else {
    Value product = e.mul(t, e.unary("aten::log", t));
    Value zero = e.scalar(0, dtypeOf(t));
    Value tlogt = e.where(e.cmpS("aten::eq.Scalar", t, 0), zero, product);
    loss = e.sub(tlogt, e.mul(t, x));
  }
  return finish(e, loss);
}

LogicalResult softMarginLoss(Legalizer &L) {
  Emit e(L);
  Value prod = e.mul(e.unary("aten::neg", L.operand("self")), L.operand("target"));
  return finish(e, e.unary("aten::log1p", e.unary("aten::exp", prod)));
}

LogicalResult marginRankingLoss(Legalizer &L) {
  Emit e(L);
  Value d = e.sub(L.operand("input1"), L.operand("input2"));
  Value v = e.addS(e.mul(e.unary("aten::neg", L.operand("target")), d),
                   scalarArg(L.op, "margin").value_or(0.0));
  return finish(e, e.clampMin(v, 0.0));
}

LogicalResult hingeEmbeddingLoss(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self"), t = L.operand("target");
  double margin = scalarArg(L.op, "margin").value_or(1.0);
  Value zero = e.scalar(0, dtypeOf(x));
  Value marginPart = e.clampMin(e.rsubS(x, margin), 0.0);
  Value outMargin = e.where(e.cmpS("aten::ne.Scalar", t, 1), marginPart, zero);
  Value outSelf = e.where(e.cmpS("aten::ne.Scalar", t, -1), x, zero);
  return finish(e, e.add(outMargin, outSelf));
}

LogicalResult cosineEmbeddingLoss(Legalizer &L) {
  Emit e(L);
  Value a = L.operand("input1"), b = L.operand("input2"), t = L.operand("target");
  double margin = scalarArg(L.op, "margin").value_or(0.0);
  int64_t d = rankOf(t);
  const double eps = 1e-12;
  Value prod = e.sum(e.mul(a, b), {d}, false);
  Value m1 = e.addS(e.sum(e.mul(a, a), {d}, false), eps);
  Value m2 = e.addS(e.sum(e.mul(b, b), {d}, false), eps);
  Value cos = e.div(prod, e.unary("aten::sqrt", e.mul(m1, m2)));
  Value zero = e.scalar(0, dtypeOf(cos));
  Value oneMinusCos = e.rsubS(cos, 1.0);
  Value pos = e.where(e.cmpS("aten::eq.Scalar", t, 1), oneMinusCos, zero);
  Value overMargin = e.clampMin(e.subS(cos, margin), 0.0);
  Value neg = e.where(e.cmpS("aten::eq.Scalar", t, -1), overMargin, zero);
  return finish(e, e.add(pos, neg));
}

LogicalResult poissonNllLoss(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("input"), t = L.operand("target");
  Value loss;
  if (boolArg(L.op, "log_input", true)) {
    Value tx = e.mul(t, x);
    loss = e.sub(e.unary("aten::exp", x), tx);
  } else {
    double eps = scalarArg(L.op, "eps").value_or(1e-8);
    loss = e.sub(x, e.mul(t, e.unary("aten::log", e.addS(x, eps))));
  }
  if (boolArg(L.op, "full", false)) {
    // Stirling's approximation of log(t!), where t > 1.
    Value halfLog2PiT = e.mulF(e.unary("aten::log", e.mulF(t, 2 * M_PI)), 0.5);
    Value stirling = e.add(e.sub(e.mul(t, e.unary("aten::log", t)), t), halfLog2PiT);
    stirling = e.op("aten::masked_fill.Scalar", {stirling, e.cmpS("aten::le.Scalar", t, 1)},
                    {L.f64("value", 0.0)});
    loss = e.add(loss, stirling);
  }
  return finish(e, loss);
}

LogicalResult tripletMarginLoss(Legalizer &L) {
  Emit e(L);
  Value a = L.operand("anchor"), p = L.operand("positive"), n = L.operand("negative");
  double norm = scalarArg(L.op, "p").value_or(2.0), eps = scalarArg(L.op, "eps").value_or(1e-6);
  auto dist = [&](Value x, Value y) {
    Value d = e.addS(e.sub(x, y), eps);
    if (e.failed)
      return Value();
    return vectorNorm(e, d, norm, {rankOf(d) - 1}, false, {});
  };
  Value dp = dist(a, p), dn = dist(a, n);
  if (boolArg(L.op, "swap", false))
    dn = e.op("aten::minimum", {dn, dist(p, n)});
  Value v = e.addS(e.sub(dp, dn), scalarArg(L.op, "margin").value_or(1.0));
  return finish(e, e.clampMin(v, 0.0));
}

//===----------------------------------------------------------------------===//
// Class-index losses
//===----------------------------------------------------------------------===//

/// nll_loss in every form (torch/_decomp's nll_loss_forward): minus the
/// (weighted) input at the target class, 0 where the target is
/// ignore_index; 'mean' divides by the sum of the counted weights.
/// Returns (loss, total_weight).
std::pair<Value, Value> nllLoss(Emit &e, Value x, Value target, Value weight,
                                int64_t reduction, int64_t ignoreIndex) {
  Legalizer &L = e.L;
  int64_t classDim = rankOf(x) < 2 ? 0 : 1;
  Value w;
  if (weight) {
    SmallVector<int64_t> shape(rankOf(x), 1);
    shape[classDim] = shapeOf(x)[classDim];
    w = e.view(weight, shape);
    x = e.mul(x, w);
  }
  Value kept = e.cmpS("aten::ne.Scalar", target, ignoreIndex);
  Value safe = e.where(kept, target, e.scalar(0, dtypeOf(target)));
  Value index = e.cast(e.unsqueeze(safe, classDim), L.b.getI64Type());
  Type t = dtypeOf(x);
  Value zero = e.scalar(0, t);
  Value picked = e.squeeze(e.op("aten::gather", {x, index}, {L.i64("dim", classDim)}), {classDim});
  Value loss = e.where(kept, e.unary("aten::neg", picked), zero);
  if (reduction == 0 && rankOf(x) > 1)
    return {loss, e.scalar(0, t)};
  Value total;
  if (w) {
    Value wsum = e.squeeze(e.op("aten::gather", {e.expand(w, shapeOf(x)), index},
                                {L.i64("dim", classDim)}),
                           {classDim});
    total = e.sum(e.where(kept, wsum, zero), {}, false);
  } else {
    total = e.cast(e.sum(e.cast(kept, L.b.getI64Type()), {}, false), t);
  }
  if (reduction == 2)
    loss = e.sum(loss, {}, false);
  else if (reduction == 1)
    loss = e.div(e.sum(loss, {}, false), total);
  return {loss, total};
}

LogicalResult nllLossRule(Legalizer &L) {
  Emit e(L);
  auto [loss, total] = nllLoss(e, L.operand("self"), L.operand("target"), L.operand("weight"),
                               reductionArg(L), intArg(L.op, "ignore_index", -100));
  if (L.op->getNumResults() == 2)
    return e.done({loss, total});
  return e.done({loss});
}

/// cross_entropy (ATen's LossNLL.cpp): log_softmax over the class dim, then
/// nll_loss for class indices (plus the label-smoothing term), or the
/// weighted sum against probabilities.
LogicalResult crossEntropy(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self"), target = L.operand("target"), weight = L.operand("weight");
  int64_t reduction = reductionArg(L);
  double smoothing = scalarArg(L.op, "label_smoothing").value_or(0.0);
  int64_t classDim = rankOf(x) < 2 ? 0 : 1;
  int64_t classes = shapeOf(x)[classDim];
  Value logp = e.op("aten::_log_softmax", {x},
                    {L.i64("dim", classDim), L.boolean("half_to_float", false)});
  Value w;
  if (weight) {
    SmallVector<int64_t> shape(rankOf(x), 1);
    shape[classDim] = classes;
    w = e.view(weight, shape);
  }
  if (shapeOf(target) == shapeOf(x)) { // class probabilities
    Value t = target;
    if (smoothing > 0)
      t = e.addS(e.mulF(t, 1 - smoothing), smoothing / classes);
    Value prod = e.mul(logp, t);
    if (w)
      prod = e.mul(prod, w);
    if (reduction == 0)
      return e.done({e.unary("aten::neg", e.sum(prod, {classDim}, false))});
    Value total = e.unary("aten::neg", e.sum(prod, {}, false));
    if (reduction == 2)
      return e.done({total});
    int64_t rows = tensorType(x).getNumElements() / std::max<int64_t>(classes, 1);
    return e.done({e.divF(total, static_cast<double>(rows))});
  }
  int64_t ignore = intArg(L.op, "ignore_index", -100);
  Value nll = nllLoss(e, logp, target, weight, reduction, ignore).first;
  if (smoothing <= 0)
    return e.done({nll});
  Value ignored = e.cmpS("aten::eq.Scalar", target, ignore);
  Value smooth = e.unary("aten::neg", e.sum(w ? e.mul(logp, w) : logp, {classDim}, false));
  smooth = e.op("aten::masked_fill.Scalar", {smooth, ignored}, {L.f64("value", 0.0)});
  Value ret = smooth;
  if (reduction == 2) {
    ret = e.sum(smooth, {}, false);
  } else if (reduction == 1) {
    Value kept = e.unary("aten::logical_not", ignored);
    Value denom;
    if (weight) {
      Value safe = e.where(kept, target, e.scalar(0, dtypeOf(target)));
      Value tw = e.op("aten::index_select", {weight, e.view(e.cast(safe, L.b.getI64Type()),
                                                            {tensorType(target).getNumElements()})},
                      {L.i64("dim", 0)});
      Value zero = e.scalar(0, dtypeOf(tw));
      denom = e.sum(e.where(e.view(kept, {tensorType(target).getNumElements()}), tw, zero), {},
                    false);
    } else {
      denom = e.sum(kept, {}, false);
    }
    ret = e.div(e.sum(smooth, {}, false), denom);
  }
  Value smoothed = e.mulF(ret, smoothing / classes);
  return e.done({e.add(e.mulF(nll, 1 - smoothing), smoothed)});
}

/// multi_margin_loss (torch/_decomp): sum over i != y of
/// max(0, margin - x[y] + x[i])^p (times weight[y]) / C.
LogicalResult multiMarginLoss(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self"), target = L.operand("target"), weight = L.operand("weight");
  double p = scalarArg(L.op, "p").value_or(1.0), margin = scalarArg(L.op, "margin").value_or(1.0);
  if (p != 1 && p != 2)
    return L.refuse("with p = " + numStr(p) + " is not valid: p is 1 or 2");
  if (rankOf(x) < 2)
    x = e.view(x, {1, rankOf(x) ? shapeOf(x)[0] : 1});
  int64_t c = shapeOf(x)[1];
  Value t = e.view(e.cast(target, L.b.getI64Type()), {shapeOf(x)[0], 1});
  Value u = e.op("aten::gather", {x, t}, {L.i64("dim", 1)});
  Value z = e.clampMin(e.addS(e.sub(x, u), margin), 0.0);
  if (p == 2)
    z = e.mul(z, z);
  int64_t n = shapeOf(x)[0];
  if (weight)
    z = e.mul(z, e.view(e.op("aten::index_select", {weight, e.view(t, {n})}, {L.i64("dim", 0)}),
                        {n, 1}));
  Value idx = e.op("aten::arange", {}, {L.i64("end", c), L.dtype("dtype", L.b.getI64Type())});
  Value zero = e.scalar(0, dtypeOf(x));
  z = e.where(e.op("aten::ne.Tensor", {idx, t}), z, zero);
  int64_t reduction = reductionArg(L);
  Value r;
  if (reduction == 1)
    r = e.mean(z, {}, false);
  else if (reduction == 2)
    r = e.divF(e.sum(z, {}, false), static_cast<double>(c));
  else
    r = e.view(e.mean(z, {1}, false), L.resultType().getShape());
  return e.done({r});
}

/// multilabel_margin_loss (ATen's MultiLabelMarginCriterion): each row's
/// targets are its entries before the first -1; the loss sums
/// max(0, 1 - x[t] + x[j]) over those targets t (duplicates counted) and the
/// classes j that are not targets, over C. As masks: valid[k] (no -1 up to k),
/// is_target[j] (some valid k names j), and an [N, C, C] sum.
LogicalResult multilabelMarginLoss(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self"), target = L.operand("target");
  Type t = dtypeOf(x), i64 = L.b.getI64Type();
  int64_t c = rankOf(x) ? shapeOf(x).back() : 1;
  int64_t n = tensorType(x).getNumElements() / std::max<int64_t>(c, 1);
  Value x2 = e.view(x, {n, c});
  Value t2 = e.view(e.cast(target, i64), {n, c});
  Value ends = e.op("aten::cumsum", {e.cast(e.cmpS("aten::lt.Scalar", t2, 0), i64)},
                    {L.i64("dim", 1)});
  Value valid = e.cmpS("aten::eq.Scalar", ends, 0);                 // [n, k]
  Value classes = e.op("aten::arange", {}, {L.i64("end", c), L.dtype("dtype", i64)});
  Value names = e.op("aten::logical_and",                            // [n, k, j]
                     {e.op("aten::eq.Tensor", {e.unsqueeze(t2, 2), classes}),
                      e.unsqueeze(valid, 2)});
  Value isTarget = e.op("aten::any.dim", {names}, {L.i64("dim", 1), L.boolean("keepdim", false)});
  Value safe = e.where(valid, t2, e.scalar(0, i64));
  Value xt = e.op("aten::gather", {x2, safe}, {L.i64("dim", 1)});   // [n, k]
  Value others = e.unsqueeze(x2, 1);
  Value z = e.clampMin(e.add(e.rsubS(e.unsqueeze(xt, 2), 1.0), others), 0.0);
  Value counted = e.op("aten::logical_and",
                       {e.unsqueeze(valid, 2),
                        e.unsqueeze(e.unary("aten::logical_not", isTarget), 1)});
  Value perRow = e.divF(e.sum(e.where(counted, z, e.scalar(0, t)), {1, 2}, false),
                        static_cast<double>(c));                    // [n]
  int64_t reduction = reductionArg(L);
  Value loss = reduction == 0 ? e.view(perRow, L.resultType().getShape())
                              : applyReduction(e, perRow, reduction);
  if (L.op->getNumResults() == 2)
    return e.done({loss, e.view(e.cast(isTarget, t), shapeOf(x))});
  return e.done({loss});
}

} // namespace

void addLossRules(LegalizeTable &t) {
  addLegalizations(t, {"aten::mse_loss"}, mseLoss, Dynamic::Handled);
  addLegalizations(t, {"aten::l1_loss"}, l1Loss, Dynamic::Handled);
  addLegalizations(t, {"aten::smooth_l1_loss", "aten::huber_loss"}, smoothLoss, Dynamic::Handled);
  addLegalizations(t, {"aten::binary_cross_entropy"}, bce, Dynamic::Handled);
  addLegalizations(t, {"aten::binary_cross_entropy_with_logits"}, bceWithLogits, Dynamic::Handled);
  addLegalizations(t, {"aten::kl_div"}, klDiv, Dynamic::Handled);
  addLegalizations(t, {"aten::soft_margin_loss"}, softMarginLoss, Dynamic::Handled);
  addLegalizations(t, {"aten::margin_ranking_loss"}, marginRankingLoss, Dynamic::Handled);
  addLegalizations(t, {"aten::hinge_embedding_loss"}, hingeEmbeddingLoss, Dynamic::Handled);
  addLegalizations(t, {"aten::cosine_embedding_loss"}, cosineEmbeddingLoss, Dynamic::Handled);
  addLegalizations(t, {"aten::poisson_nll_loss"}, poissonNllLoss, Dynamic::Handled);
  addLegalizations(t, {"aten::triplet_margin_loss"}, tripletMarginLoss, Dynamic::Handled);
  addLegalizations(t,
                   {"aten::nll_loss", "aten::nll_loss2d", "aten::nll_loss_nd",
                    "aten::nll_loss_forward", "aten::nll_loss2d_forward"},
                   nllLossRule);
  addLegalizations(t, {"aten::cross_entropy_loss"}, crossEntropy);
  addLegalizations(t, {"aten::multi_margin_loss"}, multiMarginLoss);
  addLegalizations(t, {"aten::multilabel_margin_loss", "aten::multilabel_margin_loss_forward"},
                   multilabelMarginLoss);
}

} // namespace ptec::legalize::reduce
