//===- LegalizeReduceNorms.cpp - normalizations and norms -----------------===//
//
// legalize-to-core-aten rewrites of the normalizations the training IR keeps
// (group_norm -> the native_group_norm kernel; instance_norm -> group norm
// with one group per channel, or eval batch norm on running statistics;
// rms_norm; renorm; weight norm) and of the norms (linalg_vector_norm and
// every norm.* overload, linalg_norm, linalg_matrix_norm). Semantics follow
// torch/_refs/linalg and torch/_decomp; the SVD-based matrix norms are
// refused.
//
//===----------------------------------------------------------------------===//

#include "passes/LegalizeReduce.h"

#include <cmath>
#include <limits>

namespace ptec::legalize::reduce {
namespace {

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//

/// native_group_norm's first result: the kernel normalizes each group of
/// C/group channels over its HxW elements.
Value nativeGroupNorm(Emit &e, Value x, Value w, Value b, int64_t groups, double eps) {
  if (e.failed)
    return {};
  ArrayRef<int64_t> s = shapeOf(x);
  int64_t hw = 1;
  for (int64_t d : s.drop_front(2))
    hw *= d;
  Legalizer &L = e.L;
  SmallVector<Value> r = e.all("aten::native_group_norm", {x, w, b},
                               {L.i64("N", s[0]), L.i64("C", s[1]), L.i64("HxW", hw),
                                L.i64("group", groups), L.f64("eps", eps)});
  return r.empty() ? Value() : r.front();
}

double epsArg(Legalizer &L, double dflt) {
  std::optional<double> v = scalarArg(L.op, "eps");
  return v ? *v : dflt;
}

LogicalResult groupNorm(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("input");
  if (rankOf(x) < 2)
    return L.refuse("needs an input with at least 2 dims (N, C, ...)");
  int64_t groups = intArg(L.op, "num_groups", 1);
  return e.done({nativeGroupNorm(e, x, L.operand("weight"), L.operand("bias"), groups,
                                 epsArg(L, 1e-5))});
}

/// Instance norm normalizes each (sample, channel) over its spatial dims:
/// group norm with one group per channel. With use_input_stats=False the
/// running statistics normalize, as batch norm in eval mode does.
LogicalResult instanceNorm(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("input");
  if (rankOf(x) < 2)
    return L.refuse("needs an input with at least 2 dims (N, C, ...)");
  Value rm = L.operand("running_mean"), rv = L.operand("running_var");
  double eps = epsArg(L, 1e-5);
  if (boolArg(L.op, "use_input_stats", true)) {
    if (rm || rv)
      return L.refuse("with use_input_stats and running statistics is not supported: it "
                      "updates the running statistics (training mode); export the model in "
                      "eval mode (model.eval())");
    return e.done({nativeGroupNorm(e, x, L.operand("weight"), L.operand("bias"),
                                   shapeOf(x)[1], eps)});
  }
  if (!rm || !rv)
    return L.refuse("without use_input_stats needs running_mean and running_var");
  FailureOr<exir::AtenOp> bn =
      L.evalBatchNorm(x, rm, rv, L.f64("momentum", scalarArg(L.op, "momentum").value_or(0.1)),
                      L.f64("eps", eps));
  if (failed(bn))
    return failure();
  return L.replace({(*bn)->getResult(0)});
}

/// rms_norm / _fused_rms_norm (torch/_decomp): x * rsqrt(mean(x^2) + eps)
/// over the normalized (trailing) dims, computed in float32 for reduced
/// precision inputs; eps defaults to the computation dtype's epsilon.
LogicalResult rmsNorm(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("input"), w = L.operand("weight");
  std::optional<SmallVector<int64_t>> normalized = intsArg(L.op, "normalized_shape");
  if (!normalized || normalized->empty() ||
      static_cast<int64_t>(normalized->size()) > rankOf(x))
    return L.refuse("needs a normalized_shape of trailing dims of the input");
  Type in = dtypeOf(x);
  if (!isFloatType(in))
    return L.refuse("needs a floating-point input");
  Type ct = in.isF64() ? in : Float32Type::get(L.b.getContext());
  std::optional<double> eps = scalarArg(L.op, "eps");
  double epsVal = eps ? *eps
                      : (ct.isF64() ? std::numeric_limits<double>::epsilon()
                                    : static_cast<double>(std::numeric_limits<float>::epsilon()));
  SmallVector<int64_t> dims;
  for (int64_t i = rankOf(x) - normalized->size(); i < rankOf(x); ++i)
    dims.push_back(i);
  Value xc = e.cast(x, ct);
  Value rstd = e.unary("aten::rsqrt", e.addS(e.mean(e.mul(xc, xc), dims, true), epsVal));
  Value y = e.mul(xc, rstd);
  if (w)
    y = e.mul(y, w);
  y = e.cast(y, in);
  if (L.op->getNumResults() == 2)
    return e.done({y, rstd});
  return e.done({y});
}

/// renorm (torch/_refs): each slice along `dim` whose p-norm exceeds
/// maxnorm is scaled to maxnorm / (norm + 1e-7).
LogicalResult renorm(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self");
  int64_t dim = wrapDim(intArg(L.op, "dim", 0), rankOf(x));
  double p = scalarArg(L.op, "p").value_or(2), maxnorm = scalarArg(L.op, "maxnorm").value_or(0);
  SmallVector<int64_t> others;
  for (int64_t i = 0; i < rankOf(x); ++i)
    if (i != dim)
      others.push_back(i);
  Type t = dtypeOf(x);
  Value norm = vectorNorm(e, x, p, others, true, {});
  Value over = e.cmpS("aten::gt.Scalar", norm, maxnorm);
  Value denom = e.addS(norm, 1e-7);
  Value factor = e.div(e.scalar(maxnorm, t), denom);
  return e.done({e.mul(x, e.where(over, factor, e.scalar(1.0, t)))});
}

/// The 2-norm (or pow-norm) of `v` over every dim but `dim`, kept as 1s;
/// dim -1 means every dim (norm_except_dim, weight norm).
Value normExceptDim(Emit &e, Value v, double pow, int64_t dim, bool keepAll, Type dtype) {
  if (e.failed)
    return {};
  if (dim == -1)
    return vectorNorm(e, v, pow, allDims(rankOf(v)), keepAll, dtype);
  int64_t d = wrapDim(dim, rankOf(v));
  SmallVector<int64_t> others;
  for (int64_t i = 0; i < rankOf(v); ++i)
    if (i != d)
      others.push_back(i);
  if (others.empty()) // a vector: the norm of each single element
    return e.cast(e.unary("aten::abs", v), dtype ? dtype : dtypeOf(v));
  return vectorNorm(e, v, pow, others, true, dtype);
}

LogicalResult normExceptDimRule(Legalizer &L) {
  Emit e(L);
  return e.done({normExceptDim(e, L.operand("v"), intArg(L.op, "pow", 2),
                               intArg(L.op, "dim", 0), false, {})});
}

/// _weight_norm(v, g, dim) = v * (g / ||v||) with the norm over every dim
/// but `dim`; _weight_norm_interface also returns that norm.
LogicalResult weightNorm(Legalizer &L) {
  Emit e(L);
  Value v = L.operand("v"), g = L.operand("g");
  int64_t dim = intArg(L.op, "dim", 0);
  bool interface = L.op->getNumResults() == 2;
  Type gt = dtypeOf(g);
  Type normType = interface && (gt.isF16() || gt.isBF16())
                      ? Float32Type::get(L.b.getContext())
                      : (interface ? gt : Type());
  Value norm = normExceptDim(e, v, 2, dim, true, normType);
  Value w = e.mul(v, e.div(g, e.cast(norm, gt)));
  if (interface)
    return e.done({w, norm});
  return e.done({w});
}

//===----------------------------------------------------------------------===//
// Norms
//===----------------------------------------------------------------------===//

LogicalResult vectorNormRule(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self");
  double ord = scalarArg(L.op, "ord").value_or(2.0);
  return e.done({vectorNorm(e, x, ord, reductionDims(L.op, "dim", rankOf(x)),
                            boolArg(L.op, "keepdim", false), dtypeArg(L.op, "dtype"))});
}

/// dist(a, b, p): the vector p-norm of the broadcast a - b over every dim.
LogicalResult distRule(Legalizer &L) {
  Emit e(L);
  Value d = e.sub(L.operand("self"), L.operand("other"));
  double p = scalarArg(L.op, "p").value_or(2.0);
  return e.done({vectorNorm(e, d, p, allDims(rankOf(d)), false, {})});
}

/// norm.Scalar / norm.ScalarOpt_dim[_dtype] / norm.ScalarOpt_dtype and
/// frobenius_norm.dim: vector norms (p None is 2), as torch/_refs's norm.
LogicalResult normOverload(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self");
  double p = L.op.getOpName() == "aten::frobenius_norm.dim"
                 ? 2.0
                 : scalarArg(L.op, "p").value_or(2.0);
  return e.done({vectorNorm(e, x, p, reductionDims(L.op, "dim", rankOf(x)),
                            boolArg(L.op, "keepdim", false), dtypeArg(L.op, "dtype"))});
}

/// linalg.matrix_norm (torch/_refs/linalg): 'fro' is the 2-norm of the
/// entries; 1/-1 (inf/-inf) the max/min over columns (rows) of the absolute
/// sums. 'nuc' and 2/-2 need singular values: refused.
Value matrixNorm(Emit &e, Value x, std::optional<double> ord, std::optional<std::string> str,
                 ArrayRef<int64_t> dimsIn, bool keepdim, Type dtype) {
  if (e.failed)
    return {};
  if (dimsIn.size() != 2)
    return e.fail("needs exactly two dims for a matrix norm");
  int64_t dim0 = wrapDim(dimsIn[0], rankOf(x)), dim1 = wrapDim(dimsIn[1], rankOf(x));
  if (dim0 == dim1 || rankOf(x) < 2)
    return e.fail("needs two different dims of a tensor with at least 2 dims");
  if (str) {
    if (*str == "fro") {
      SmallVector<int64_t> dims = {std::min(dim0, dim1), std::max(dim0, dim1)};
      return vectorNorm(e, x, 2, dims, keepdim, dtype);
    }
    if (*str == "nuc")
      return e.fail("with ord 'nuc' is not supported: the nuclear norm needs singular values "
                    "(an SVD), and there is no kernel for it in ExecuTorch's portable library");
    return e.fail("with ord '" + *str + "' is not valid: matrix norms take 'fro' or 'nuc'");
  }
  double o = ord.value_or(2);
  double a = std::abs(o);
  if (a == 2)
    return e.fail("with ord " + numStr(o) + " is not supported: the spectral norm needs singular "
                  "values (an SVD), and there is no kernel for it in ExecuTorch's portable "
                  "library");
  if (a != 1 && !std::isinf(a))
    return e.fail("with ord " + numStr(o) + " is not valid: matrix norms take 'fro', 'nuc', "
                  "inf, -inf, 1, -1, 2 or -2");
  if (std::isinf(a))
    std::swap(dim0, dim1);
  if (!keepdim && dim0 < dim1)
    --dim1;
  Value sums = vectorNorm(e, x, 1, {dim0}, keepdim, dtype);
  return o > 0 ? e.amax(sums, {dim1}, keepdim) : e.amin(sums, {dim1}, keepdim);
}

LogicalResult matrixNormRule(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self");
  std::optional<SmallVector<int64_t>> dims = intsArg(L.op, "dim");
  bool isStr = L.op.getOpName().ends_with("str_ord");
  return e.done({matrixNorm(e, x, isStr ? std::nullopt : scalarArg(L.op, "ord"),
                            isStr ? strArg(L.op, "ord") : std::nullopt,
                            dims.value_or(SmallVector<int64_t>{-2, -1}),
                            boolArg(L.op, "keepdim", false), dtypeArg(L.op, "dtype"))});
}

/// linalg.norm: a matrix norm when `ord` is given and two dims are meant
/// (or the input is 2-D without dims), else the vector 2-norm.
LogicalResult linalgNorm(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self");
  bool keepdim = boolArg(L.op, "keepdim", false);
  Type dtype = dtypeArg(L.op, "dtype");
  std::optional<SmallVector<int64_t>> dims = intsArg(L.op, "dim");
  bool isStr = L.op.getOpName() == "aten::linalg_norm.ord_str";
  std::optional<std::string> str = isStr ? strArg(L.op, "ord") : std::nullopt;
  std::optional<double> ord = isStr ? std::nullopt : scalarArg(L.op, "ord");
  bool hasOrd = str || ord;
  if (dims && dims->size() != 1 && dims->size() != 2)
    return L.refuse("needs 1 or 2 dims");
  if (!dims && hasOrd && rankOf(x) != 1 && rankOf(x) != 2)
    return L.refuse("with an ord and no dims needs a 1-D or 2-D input");
  if (hasOrd && ((dims && dims->size() == 2) || (!dims && rankOf(x) == 2)))
    return e.done({matrixNorm(e, x, ord, str, dims.value_or(SmallVector<int64_t>{0, 1}),
                              keepdim, dtype)});
  if (str)
    return L.refuse("with ord '" + *str + "' needs a matrix (two dims)");
  return e.done({vectorNorm(e, x, ord.value_or(2.0), reductionDims(L.op, "dim", rankOf(x)),
                            keepdim, dtype)});
}

} // namespace

void addNormRules(LegalizeTable &t) {
  addLegalizations(t, {"aten::group_norm"}, groupNorm);
  addLegalizations(t, {"aten::instance_norm"}, instanceNorm);
  // Rules that read no size from static types (elementwise ops, reductions
  // over dim lists, 0-dim constants) are right on run-time shapes too.
  addLegalizations(t, {"aten::rms_norm", "aten::_fused_rms_norm"}, rmsNorm, Dynamic::Handled);
  addLegalizations(t, {"aten::renorm"}, renorm, Dynamic::Handled);
  addLegalizations(t, {"aten::norm_except_dim"}, normExceptDimRule);
  addLegalizations(t, {"aten::_weight_norm", "aten::_weight_norm_interface"}, weightNorm);
  addLegalizations(t, {"aten::linalg_vector_norm"}, vectorNormRule, Dynamic::Handled);
  addLegalizations(t, {"aten::dist"}, distRule, Dynamic::Handled);
  addLegalizations(t,
                   {"aten::norm.Scalar", "aten::norm.ScalarOpt_dim",
                    "aten::norm.ScalarOpt_dim_dtype", "aten::norm.ScalarOpt_dtype",
                    "aten::frobenius_norm.dim"},
                   normOverload, Dynamic::Handled);
  addLegalizations(t, {"aten::linalg_matrix_norm", "aten::linalg_matrix_norm.str_ord"},
                   matrixNormRule, Dynamic::Handled);
  addLegalizations(t, {"aten::linalg_norm", "aten::linalg_norm.ord_str"}, linalgNorm,
                   Dynamic::Handled);
}

} // namespace ptec::legalize::reduce
