//===- LegalizeNormalization.cpp - batch norm and layer norm --------------===//
//
// legalize-to-core-aten rewrites for normalization: batch norm in eval mode
// (the core op) and in training mode (decomposed, with the running-statistics
// updates), the _native_batch_norm_legit forms, native_batch_norm in eval
// mode, and layer norm.
//
//===----------------------------------------------------------------------===//

#include "passes/Legalizer.h"

namespace ptec::legalize {

/// Batch norm in training mode: normalize with the batch's statistics over
/// every dimension but 1 and, when running statistics are given, return
/// their updates (what `_native_batch_norm_legit_functional` means):
///   running_mean' = (1 - momentum) * running_mean + momentum * mean
///   running_var'  = (1 - momentum) * running_var  + momentum * var * n / (n - 1)
/// Results: output, save_mean, save_invstd (per channel), then the updates.
/// Eval-mode batch norm with running statistics, as the core op (the op's
/// own weight and bias; results shaped like the op's first result).
FailureOr<exir::AtenOp> Legalizer::evalBatchNorm(Value input, Value mean, Value var,
                                                 NamedAttribute momentum, NamedAttribute eps) {
  RankedTensorType rt = tensorType(op->getResult(0));
  RankedTensorType empty = withShape(rt, {0});
  auto w = operandOf(op, "weight"), bi = operandOf(op, "bias");
  return buildAten(b, loc, "aten::_native_batch_norm_legit_no_training", {rt, empty, empty},
                   {{input}, w ? Operands{w} : Operands{}, bi ? Operands{bi} : Operands{},
                    {mean}, {var}},
                   {momentum, eps});
}

FailureOr<SmallVector<Value>> Legalizer::batchNormTraining(Value input, Value w, Value bi,
                                                          Value rm, Value rv,
                                                          double momentum, double eps) {
  RankedTensorType xt = tensorType(input);
  if (!xt || xt.getRank() < 2 || !xt.hasStaticShape() || dynamic)
  {
    emitError(loc, "batch norm in training mode needs a static input of rank >= 2");
    return failure();
  }
  int64_t c = xt.getDimSize(1), count = xt.getNumElements() / std::max<int64_t>(c, 1);
  if (count < 2 && rv) {
    emitError(loc, "batch norm in training mode over one value per channel: "
                   "the unbiased variance is undefined (PyTorch refuses it too)");
    return failure();
  }
  SmallVector<int64_t> dims, statShape(xt.getRank(), 1);
  for (int64_t d = 0; d < xt.getRank(); ++d)
    if (d != 1)
      dims.push_back(d);
  statShape[1] = c;
  RankedTensorType st = withShape(xt, statShape), ct = withShape(xt, {c});
  auto mean = make("aten::mean.dim", st, {{input}},
                   {ints("dim", dims), attr("keepdim", b.getBoolAttr(true))});
  if (failed(mean))
    return failure();
  auto var = make("aten::var.correction", st, {{input}},
                  {ints("dim", dims), i64("correction", 0), attr("keepdim", b.getBoolAttr(true))});
  if (failed(var))
    return failure();
  auto veps = make("aten::add.Scalar", st, {{*var}}, {f64("other", eps)});
  if (failed(veps))
    return failure();
  auto rstd = make("aten::rsqrt", st, {{*veps}});
  if (failed(rstd))
    return failure();
  auto centered = make("aten::sub.Tensor", xt, {{input}, {*mean}});
  if (failed(centered))
    return failure();
  FailureOr<Value> y = make("aten::mul.Tensor", xt, {{*centered}, {*rstd}});
  if (failed(y))
    return failure();
  if (w) {
    auto wv = view(w, statShape);
    if (failed(wv) || failed(y = make("aten::mul.Tensor", xt, {{*y}, {*wv}})))
      return failure();
  }
  if (bi) {
    auto bv = view(bi, statShape);
    if (failed(bv) || failed(y = make("aten::add.Tensor", xt, {{*y}, {*bv}})))
      return failure();
  }
  auto saveMean = view(*mean, {c}), saveRstd = view(*rstd, {c});
  if (failed(saveMean) || failed(saveRstd))
    return failure();
  SmallVector<Value> results = {*y, *saveMean, *saveRstd};
  if (rm && rv) {
    auto update = [&](Value running, Value stat, double scale) -> FailureOr<Value> {
      auto kept = make("aten::mul.Scalar", ct, {{running}}, {f64("other", 1.0 - momentum)});
      auto added = make("aten::mul.Scalar", ct, {{stat}}, {f64("other", momentum * scale)});
      if (failed(kept) || failed(added))
        return failure();
      return make("aten::add.Tensor", ct, {{*kept}, {*added}});
    };
    auto varC = view(*var, {c});
    if (failed(varC))
      return failure();
    auto newMean = update(rm, *saveMean, 1.0);
    auto newVar = update(rv, *varC, static_cast<double>(count) / static_cast<double>(count - 1));
    if (failed(newMean) || failed(newVar))
      return failure();
    results.push_back(*newMean);
    results.push_back(*newVar);
  }
  return results;
}

/// `_native_batch_norm_legit_functional` and `_native_batch_norm_legit.no_stats`:
/// training mode decomposes; eval mode keeps the running statistics unchanged.
LogicalResult Legalizer::batchNormLegit() {
  double momentum = 0.1, eps = 1e-5;
  if (auto m = op->getAttrOfType<FloatAttr>("momentum"))
    momentum = m.getValueAsDouble();
  if (auto e = op->getAttrOfType<FloatAttr>("eps"))
    eps = e.getValueAsDouble();
  Value input = operandOf(op, "input"), rm = operandOf(op, "running_mean"),
        rv = operandOf(op, "running_var");
  if (!boolArg(op, "training", false)) {
    if (!rm || !rv)
      return emitError(loc, "batch norm in eval mode without running statistics");
    FailureOr<exir::AtenOp> bn =
        evalBatchNorm(input, rm, rv, f64("momentum", momentum), f64("eps", eps));
    if (failed(bn))
      return failure();
    for (unsigned i = 1; i < 3; ++i)
      if (!op->getResult(i).use_empty())
        return emitError(loc, "batch norm in eval mode: its saved statistics are used");
    SmallVector<Value> results = {(*bn)->getResult(0), (*bn)->getResult(1), (*bn)->getResult(2)};
    if (op->getNumResults() == 5)
      results.append({rm, rv});
    return replace(results);
  }
  auto r = batchNormTraining(input, operandOf(op, "weight"), operandOf(op, "bias"), rm, rv,
                             momentum, eps);
  if (failed(r))
    return failure();
  if (r->size() != op->getNumResults())
    return emitError(loc, "batch norm: unexpected number of results");
  return replace(*r);
}

LogicalResult Legalizer::batchNorm() {
  if (boolArg(op, "training", false)) {
    if (operandOf(op, "running_mean") || operandOf(op, "running_var"))
      return emitError(loc, "internal: batch_norm in training mode with running "
                            "statistics must be functionalized first");
    double eps = 1e-5;
    if (auto e = op->getAttrOfType<FloatAttr>("eps"))
      eps = e.getValueAsDouble();
    auto r = batchNormTraining(operandOf(op, "input"), operandOf(op, "weight"),
                               operandOf(op, "bias"), {}, {}, 0.1, eps);
    if (failed(r))
      return failure();
    return replace({r->front()});
  }
  Value mean = operandOf(op, "running_mean"), var = operandOf(op, "running_var");
  if (!mean || !var)
    return emitError(loc, "batch_norm without running statistics is not supported");
  FailureOr<exir::AtenOp> bn = evalBatchNorm(
      operandOf(op, "input"), mean, var,
      op->getAttr("momentum") ? attr("momentum", op->getAttr("momentum")) : f64("momentum", 0.1),
      op->getAttr("eps") ? attr("eps", op->getAttr("eps")) : f64("eps", 1e-5));
  if (failed(bn))
    return failure();
  return replace({(*bn)->getResult(0)});
}

LogicalResult Legalizer::layerNorm() {
  RankedTensorType rt = tensorType(op->getResult(0));
  auto shape = op->getAttrOfType<DenseI64ArrayAttr>("normalized_shape");
  if (!shape)
    return emitError(loc, "layer_norm needs normalized_shape");
  SmallVector<int64_t> statShape(rt.getShape());
  for (size_t i = 0; i < shape.size(); ++i)
    statShape[statShape.size() - 1 - i] = 1;
  RankedTensorType st = withShape(rt, statShape);
  auto w = operandOf(op, "weight"), bi = operandOf(op, "bias");
  FailureOr<exir::AtenOp> ln = buildAten(
      b, loc, "aten::native_layer_norm", {rt, st, st},
      {{operandOf(op, "input")}, w ? Operands{w} : Operands{},
       bi ? Operands{bi} : Operands{}},
      {attr("normalized_shape", shape),
       op->getAttr("eps") ? attr("eps", op->getAttr("eps")) : f64("eps", 1e-5)});
  if (failed(ln))
    return failure();
  return replace({(*ln)->getResult(0)});
}

/// native_batch_norm in eval mode: the core op with the running statistics
/// (training mode, which also updates them, is refused: torch.export writes
/// it as _native_batch_norm_legit_functional, which is decomposed above).
LogicalResult nativeBatchNorm(Legalizer &L) {
  exir::AtenOp op = L.op;
  if (boolArg(op, "training", false))
    return L.refuse("in training mode is not supported: export the model in eval mode "
                    "(model.eval()), where batch norm uses its running statistics");
  Value rm = operandOf(op, "running_mean"), rv = operandOf(op, "running_var");
  if (!rm || !rv)
    return L.refuse("in eval mode without running statistics is not supported");
  for (unsigned i = 1; i < 3; ++i)
    if (!op->getResult(i).use_empty())
      return L.refuse("in eval mode with its saved statistics used is not supported: "
                      "PyTorch leaves them empty there");
  Value w = operandOf(op, "weight"), bi = operandOf(op, "bias");
  FailureOr<exir::AtenOp> bn = buildAten(
      L.b, L.loc, "aten::_native_batch_norm_legit_no_training",
      SmallVector<Type>(op->getResultTypes()),
      {{operandOf(op, "input")}, w ? Operands{w} : Operands{}, bi ? Operands{bi} : Operands{},
       {rm}, {rv}},
      {L.attr("momentum", op->getAttr("momentum")), L.attr("eps", op->getAttr("eps"))});
  if (failed(bn))
    return failure();
  return L.replace(SmallVector<Value>((*bn)->getResults()));
}

void addNormalizationLegalizations(LegalizeTable &t) {
  addLegalizations(t, {"aten::native_batch_norm"}, nativeBatchNorm, Dynamic::Handled);
  addLegalizations(t, {"aten::batch_norm"}, [](Legalizer &L) { return L.batchNorm(); });
  addLegalizations(t,
                   {"aten::_native_batch_norm_legit_functional",
                    "aten::_native_batch_norm_legit.no_stats"},
                   [](Legalizer &L) { return L.batchNormLegit(); }, Dynamic::Handled);
  addLegalizations(t, {"aten::layer_norm"}, [](Legalizer &L) { return L.layerNorm(); },
                   Dynamic::Handled);
  addRefusals(t, {"aten::_batch_norm_with_update"},
              "training-mode batch norm, which updates the running statistics in place; "
              "export the model in eval mode (model.eval()) so batch norm uses its running "
              "statistics");
}

} // namespace ptec::legalize
