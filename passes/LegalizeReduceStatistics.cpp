//===- LegalizeReduceStatistics.cpp - statistics, scans, diff -------------===//
//
// legalize-to-core-aten rewrites of the statistics and scans the training IR
// keeps: std/var/std_mean/var_mean overloads (var.correction and
// var_mean.correction have kernels), logsumexp, nansum, nanmean,
// count_nonzero, all, aminmax, cumprod / logcumsumexp / cummax / cummin (no
// kernels: a masked lower-triangular reduction, or a log-step scan on long
// dims), diff, trace, trapezoid integration, cov and corrcoef. Semantics
// follow torch/_refs and torch/_decomp; each rule says where it departs.
//
//===----------------------------------------------------------------------===//

#include "passes/LegalizeReduce.h"

#include <cmath>
#include <limits>

namespace ptec::legalize::reduce {
namespace {

//===----------------------------------------------------------------------===//
// Variance and standard deviation
//===----------------------------------------------------------------------===//

/// The correction of std/var overloads: `correction` (None: 1) or the
/// `unbiased` flag (default true).
double correctionOf(Legalizer &L) {
  if (L.op->getAttr("correction") || L.op.getSchema()->findArgument("correction") >= 0)
    return scalarArg(L.op, "correction").value_or(1.0);
  return boolArg(L.op, "unbiased", true) ? 1.0 : 0.0;
}

NamedAttribute correctionAttr(Legalizer &L, double c) {
  if (c == std::trunc(c))
    return L.i64("correction", static_cast<int64_t>(c));
  return L.f64("correction", c);
}

/// var / std / std_mean / var_mean in every overload: the var.correction
/// and var_mean.correction kernels, then sqrt for the std forms.
LogicalResult varStd(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self");
  StringRef name = L.op.getOpName();
  bool isStd = name.starts_with("aten::std");
  bool withMean = name.contains("_mean");
  SmallVector<NamedAttribute> attrs = {L.ints("dim", reductionDims(L.op, "dim", rankOf(x))),
                                       correctionAttr(L, correctionOf(L)),
                                       L.boolean("keepdim", boolArg(L.op, "keepdim", false))};
  if (!withMean) {
    Value v = e.op("aten::var.correction", {x}, attrs);
    return e.done({isStd ? e.unary("aten::sqrt", v) : v});
  }
  SmallVector<Value> vm = e.all("aten::var_mean.correction", {x}, attrs);
  if (e.failed)
    return failure();
  return e.done({isStd ? e.unary("aten::sqrt", vm[0]) : vm[0], vm[1]});
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

LogicalResult logsumexpRule(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self");
  return e.done({logsumexp(e, x, reductionDims(L.op, "dim", rankOf(x)),
                           boolArg(L.op, "keepdim", false))});
}

/// `x` with NaNs replaced by 0 (integers have none).
Value zeroNans(Emit &e, Value x) {
  if (!isFloatType(dtypeOf(x)))
    return x;
  return e.op("aten::masked_fill.Scalar", {x, e.unary("aten::isnan", x)},
              {e.L.f64("value", 0.0)});
}

LogicalResult nansum(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self");
  return e.done({e.sum(zeroNans(e, x), reductionDims(L.op, "dim", rankOf(x)),
                       boolArg(L.op, "keepdim", false), dtypeArg(L.op, "dtype"))});
}

/// nanmean = nansum / the count of non-NaN elements (torch/_refs).
LogicalResult nanmean(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self");
  SmallVector<int64_t> dims = reductionDims(L.op, "dim", rankOf(x));
  bool keepdim = boolArg(L.op, "keepdim", false);
  Value count = e.sum(e.unary("aten::logical_not", e.unary("aten::isnan", x)), dims, keepdim);
  Value s = e.sum(zeroNans(e, x), dims, keepdim, dtypeArg(L.op, "dtype"));
  return e.done({e.div(s, count)});
}

LogicalResult countNonzero(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self");
  Type i64 = L.b.getI64Type();
  return e.done({e.sum(e.cast(e.cmpS("aten::ne.Scalar", x, 0), i64),
                       reductionDims(L.op, "dim", rankOf(x)), false)});
}

/// all(x) = not any(not x); uint8 inputs give uint8, as in PyTorch.
LogicalResult all(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self");
  Value r = e.unary("aten::logical_not",
                    e.anyDims(e.unary("aten::logical_not", x),
                              reductionDims(L.op, "dim", rankOf(x)),
                              boolArg(L.op, "keepdim", false)));
  return e.done({e.cast(r, L.resultType().getElementType())});
}

LogicalResult aminmax(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self");
  SmallVector<int64_t> dims = reductionDims(L.op, "dim", rankOf(x));
  bool keepdim = boolArg(L.op, "keepdim", false);
  return e.done({e.amin(x, dims, keepdim), e.amax(x, dims, keepdim)});
}

//===----------------------------------------------------------------------===//
// Scans
//===----------------------------------------------------------------------===//

/// The scans run along the last dim; more than this many elements in the
/// lower-triangular expansion ([..., n, n]) take the log-step scan instead.
constexpr int64_t kTriangleLimit = int64_t(1) << 22;

/// [..., n(i), n(j)] holding x[..., j] where j <= i and `fill` elsewhere:
/// a reduction over the last dim then gives the inclusive scan at i.
Value lowerTriangle(Emit &e, Value x, double fill) {
  if (e.failed)
    return {};
  Legalizer &L = e.L;
  int64_t n = shapeOf(x).back();
  SmallVector<int64_t> shape(shapeOf(x));
  shape.push_back(n);
  Value rows = e.expand(e.unsqueeze(x, rankOf(x) - 1), shape);
  Value i = e.op("aten::arange", {}, {L.i64("end", n), L.dtype("dtype", L.b.getI64Type())});
  Value mask = e.op("aten::ge.Tensor", {e.view(i, {n, 1}), e.view(i, {1, n})});
  return e.where(mask, rows, e.scalar(fill, dtypeOf(x)));
}

/// The log-step (Hillis-Steele) inclusive scan along the last dim:
/// y[i] = combine(y[i - s], y[i]) for s = 1, 2, 4, ...
template <typename Combine>
Value logStepScan(Emit &e, Value x, Combine combine) {
  int64_t n = shapeOf(x).back(), d = rankOf(x) - 1;
  Value y = x;
  for (int64_t s = 1; s < n && !e.failed; s *= 2) {
    Value head = e.slice(y, d, 0, s);
    Value later = e.slice(y, d, s, n);
    Value tail = combine(e.slice(y, d, 0, n - s), later);
    y = e.cat({head, tail}, d);
  }
  return y;
}

bool useTriangle(Value x) {
  int64_t n = shapeOf(x).back();
  return tensorType(x).getNumElements() <= kTriangleLimit / std::max<int64_t>(n, 1);
}

/// cumprod: no kernel. exp(cumsum(log x)) would be wrong for zeros and
/// negatives; the product of the masked triangle multiplies the same
/// elements in the same order as PyTorch's sequential scan (the ones
/// masked in are exact), a log-step scan of products on long dims.
LogicalResult cumprod(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self");
  Type rt = L.resultType().getElementType();
  x = e.cast(x, rt);
  if (rankOf(x) == 0)
    return e.done({x.getDefiningOp() ? x : e.op("aten::clone", {x})});
  int64_t dim = wrapDim(intArg(L.op, "dim", 0), rankOf(x));
  Value xl = e.moveToEnd(x, dim);
  Value y;
  if (useTriangle(xl))
    y = e.op("aten::prod.dim_int", {lowerTriangle(e, xl, 1.0)},
             {L.i64("dim", -1), L.boolean("keepdim", false)});
  else
    y = logStepScan(e, xl, [&](Value before, Value at) { return e.mul(at, before); });
  return e.done({e.moveFromEnd(y, dim)});
}

/// log(exp(a) + exp(b)) without overflow: the larger one factored out (an
/// infinite one taken as 0, so that inf - inf makes no NaN).
Value logAddExp(Emit &e, Value a, Value b) {
  Value m = e.op("aten::maximum", {a, b});
  m = e.op("aten::masked_fill.Scalar", {m, e.unary("aten::isinf", m)}, {e.L.f64("value", 0.0)});
  Value expB = e.unary("aten::exp", e.sub(b, m));
  Value s = e.add(e.unary("aten::exp", e.sub(a, m)), expB);
  return e.add(e.unary("aten::log", s), m);
}

LogicalResult logcumsumexp(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self");
  if (rankOf(x) == 0)
    return e.done({e.op("aten::clone", {x})});
  int64_t dim = wrapDim(intArg(L.op, "dim", 0), rankOf(x));
  Value xl = e.moveToEnd(x, dim);
  Value y;
  if (useTriangle(xl))
    y = logsumexp(e, lowerTriangle(e, xl, -std::numeric_limits<double>::infinity()),
                  {rankOf(xl)}, false);
  else
    y = logStepScan(e, xl, [&](Value before, Value at) { return logAddExp(e, before, at); });
  return e.done({e.moveFromEnd(y, dim)});
}

/// cummax/cummin: a log-step scan of (value, index) pairs. The later element
/// wins ties and NaNs win over numbers, which is PyTorch's sequential rule
/// (`isnan(x) || (!isnan(out) && x >= out)`), and that rule is associative.
LogicalResult cumExtreme(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self");
  bool isMax = L.op.getOpName() == "aten::cummax";
  Type i64 = L.b.getI64Type();
  if (rankOf(x) == 0)
    return e.done({e.op("aten::clone", {x}), e.full({}, 0, i64)});
  int64_t dim = wrapDim(intArg(L.op, "dim", 0), rankOf(x));
  Value v = e.moveToEnd(x, dim);
  int64_t n = shapeOf(v).back(), d = rankOf(v) - 1;
  Value idx = e.expand(e.op("aten::arange", {}, {L.i64("end", n), L.dtype("dtype", i64)}),
                       shapeOf(v));
  bool isFloat = isFloatType(dtypeOf(v));
  for (int64_t s = 1; s < n && !e.failed; s *= 2) {
    Value ev = e.slice(v, d, 0, n - s), lv = e.slice(v, d, s, n);
    Value ei = e.slice(idx, d, 0, n - s), li = e.slice(idx, d, s, n);
    Value later = e.op(isMax ? "aten::ge.Tensor" : "aten::le.Tensor", {lv, ev});
    if (isFloat)
      later = e.op("aten::logical_or",
                   {e.unary("aten::isnan", lv),
                    e.op("aten::logical_and",
                         {e.unary("aten::logical_not", e.unary("aten::isnan", ev)), later})});
    v = e.cat({e.slice(v, d, 0, s), e.where(later, lv, ev)}, d);
    idx = e.cat({e.slice(idx, d, 0, s), e.where(later, li, ei)}, d);
  }
  return e.done({e.moveFromEnd(v, dim), e.moveFromEnd(idx, dim)});
}

//===----------------------------------------------------------------------===//
// Differences and integration
//===----------------------------------------------------------------------===//

/// diff: the n-th forward difference along dim after prepending/appending
/// (logical_xor for bool, as in PyTorch).
LogicalResult diff(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self");
  int64_t dim = wrapDim(intArg(L.op, "dim", -1), rankOf(x));
  int64_t n = intArg(L.op, "n", 1);
  Type rt = L.resultType().getElementType();
  SmallVector<Value> parts;
  for (Value p : {L.operand("prepend"), x, L.operand("append")})
    if (p)
      parts.push_back(e.cast(p, rt));
  Value y = e.cat(parts, dim);
  bool isBool = isBoolType(rt);
  for (int64_t k = 0; k < n && !e.failed; ++k) {
    int64_t size = shapeOf(y)[dim];
    Value hi = e.slice(y, dim, std::min<int64_t>(1, size), size);
    Value lo = e.slice(y, dim, 0, std::max<int64_t>(size - 1, 0));
    y = isBool ? e.op("aten::logical_xor", {hi, lo}) : e.sub(hi, lo);
  }
  return e.done({y});
}

LogicalResult trace(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self");
  return e.done({e.sum(e.op("aten::diagonal_copy", {x}, {L.i64("offset", 0), L.i64("dim1", 0),
                                                        L.i64("dim2", 1)}),
                       {0}, false)});
}

/// The sample points of trapezoid(y, x) viewed against y: a 1-D x along
/// dim, a lower-rank x with leading 1s (PyTorch's Integration.cpp).
Value samplePoints(Emit &e, Value x, Value y, int64_t dim) {
  if (e.failed)
    return {};
  SmallVector<int64_t> shape(rankOf(y), 1);
  if (rankOf(x) == 1) {
    shape[dim] = shapeOf(x)[0];
    return e.view(x, shape);
  }
  if (rankOf(x) < rankOf(y)) {
    ArrayRef<int64_t> s = shapeOf(x);
    std::copy(s.begin(), s.end(), shape.end() - s.size());
    return e.view(x, shape);
  }
  return x;
}

LogicalResult trapezoid(Legalizer &L) {
  Emit e(L);
  Value y = L.operand("y"), x = L.operand("x");
  int64_t dim = wrapDim(intArg(L.op, "dim", -1), rankOf(y));
  int64_t n = shapeOf(y)[dim];
  bool cumulative = L.op.getOpName().contains("cumulative");
  Type rt = L.resultType().getElementType();
  if (n == 0 && !cumulative)
    return e.done({e.full(L.resultType().getShape(), 0, rt)});
  if (!x && !cumulative) {
    // (sum(y) - (y[0] + y[-1]) / 2) * dx
    double dx = scalarArg(L.op, "dx").value_or(1.0);
    Value last = e.select(y, dim, n - 1);
    Value ends = e.add(e.select(y, dim, 0), last);
    Value halfEnds = e.mulF(ends, 0.5);
    Value r = e.sub(e.sum(y, {dim}, false), halfEnds);
    return e.done({e.cast(e.mulF(r, dx), rt)});
  }
  Value right = e.slice(y, dim, std::min<int64_t>(1, n), n);
  Value pairs = e.add(e.slice(y, dim, 0, std::max<int64_t>(n - 1, 0)), right);
  Value areas;
  if (x) {
    Value xv = samplePoints(e, x, y, dim);
    int64_t m = shapeOf(xv)[dim];
    Value left = e.slice(xv, dim, 0, std::max<int64_t>(m - 1, 0));
    Value dx = e.sub(e.slice(xv, dim, std::min<int64_t>(1, m), m), left);
    areas = e.mul(dx, pairs);
    if (!cumulative)
      return e.done({e.cast(e.divF(e.sum(areas, {dim}, false), 2.0), rt)});
    areas = e.divF(areas, 2.0);
  } else {
    areas = e.mulF(pairs, scalarArg(L.op, "dx").value_or(1.0) / 2.0);
  }
  return e.done({e.cast(e.op("aten::cumsum", {areas}, {L.i64("dim", dim)}), rt)});
}

//===----------------------------------------------------------------------===//
// Covariance
//===----------------------------------------------------------------------===//

/// torch.cov without weights: centred rows times their transpose over
/// (N - correction); squeezed for one variable.
Value covariance(Emit &e, Value x, int64_t correction) {
  if (e.failed)
    return {};
  Type f32 = Float32Type::get(x.getContext());
  if (!isFloatType(dtypeOf(x)))
    x = e.cast(x, f32);
  if (rankOf(x) == 1)
    x = e.view(x, {1, shapeOf(x)[0]});
  int64_t n = shapeOf(x)[1];
  Value centred = e.sub(x, e.mean(x, {1}, true));
  Value c = e.mm(centred, e.permute(centred, {1, 0}));
  double factor = std::max<int64_t>(n - correction, 0);
  c = e.div(c, e.scalar(factor, dtypeOf(c)));
  return shapeOf(c)[0] == 1 ? e.view(c, {}) : c;
}

LogicalResult cov(Legalizer &L) {
  Emit e(L);
  if (L.operand("fweights") || L.operand("aweights"))
    return L.refuse("with fweights or aweights is not supported yet");
  return e.done({covariance(e, L.operand("self"), intArg(L.op, "correction", 1))});
}

LogicalResult corrcoef(Legalizer &L) {
  Emit e(L);
  Value c = covariance(e, L.operand("self"), 1);
  if (e.failed)
    return failure();
  if (rankOf(c) == 0)
    return e.done({e.div(c, c)});
  int64_t n = shapeOf(c)[0];
  Value sd = e.unary("aten::sqrt", e.op("aten::diagonal_copy", {c}));
  Value sdRow = e.view(sd, {1, n});
  c = e.div(e.div(c, e.view(sd, {n, 1})), sdRow);
  return e.done({e.op("aten::clamp", {c}, {L.f64("min", -1.0), L.f64("max", 1.0)})});
}


//===----------------------------------------------------------------------===//
// Quantiles
//===----------------------------------------------------------------------===//

/// quantile / nanquantile (ATen's Sorting.cpp): the slice sorted (topk with
/// k = n, ascending; NaNs sorted last as +inf and their result restored to
/// NaN afterwards), ranks q * (count - 1), the values at floor/ceil of the
/// ranks gathered and interpolated as `interpolation` says.
LogicalResult quantile(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self"), qTensor = L.operand("q");
  bool ignoreNan = L.op.getOpName().starts_with("aten::nanquantile");
  std::string mode = strArg(L.op, "interpolation").value_or("linear");
  if (mode != "linear" && mode != "lower" && mode != "higher" && mode != "midpoint" &&
      mode != "nearest")
    return L.refuse("with interpolation '" + mode + "' is not valid");
  Type t = dtypeOf(x), i64 = L.b.getI64Type();
  Attribute dimAttr = L.op->getAttr("dim");
  bool hasDim = dimAttr && !llvm::isa<exir::NoneAttr>(dimAttr);
  Value v;
  if (!hasDim || rankOf(x) == 0)
    v = e.view(x, {tensorType(x).getNumElements()});
  else
    v = e.moveToEnd(x, wrapDim(intArg(L.op, "dim", 0), rankOf(x)));
  if (e.failed)
    return failure();
  int64_t n = shapeOf(v).back();
  if (n == 0)
    return L.refuse("of an empty tensor is not valid (PyTorch refuses it)");
  if (qTensor && rankOf(qTensor) > 1)
    return L.refuse("needs a 0-dim or 1-dim q");
  SmallVector<int64_t> rows(shapeOf(v).drop_back());
  int64_t nq = qTensor && rankOf(qTensor) == 1 ? shapeOf(qTensor)[0] : 1;
  Value nan = e.unary("aten::isnan", v);
  Value filled = e.op("aten::masked_fill.Scalar", {v, nan}, {L.f64("value", INFINITY)});
  SmallVector<Value> sorted = e.all("aten::topk", {filled},
                                    {L.i64("k", n), L.i64("dim", -1), L.boolean("largest", false),
                                     L.boolean("sorted", true)});
  if (e.failed)
    return failure();
  Value nanCount = e.sum(e.cast(nan, t), {rankOf(v) - 1}, true);
  Value count = ignoreNan ? e.rsubS(nanCount, static_cast<double>(n)) : e.scalar(n, t);
  Value q = qTensor ? e.view(e.cast(qTensor, t), {nq}) : e.full({1}, *scalarArg(L.op, "q"), t);
  SmallVector<int64_t> rankShape(rows);
  rankShape.push_back(nq);
  Value ranks = e.expand(e.mul(q, e.subS(count, 1)), rankShape);
  ranks = e.clampMin(ranks, 0.0);
  if (mode == "lower")
    ranks = e.unary("aten::floor", ranks);
  else if (mode == "higher")
    ranks = e.unary("aten::ceil", ranks);
  else if (mode == "nearest")
    ranks = e.unary("aten::round", ranks);
  Value lo = e.unary("aten::floor", ranks);
  Value r = e.op("aten::gather", {sorted[0], e.cast(lo, i64)}, {L.i64("dim", -1)});
  if (mode == "linear" || mode == "midpoint") {
    Value hi = e.op("aten::gather", {sorted[0], e.cast(e.unary("aten::ceil", ranks), i64)},
                    {L.i64("dim", -1)});
    // torch.lerp: a + w (b - a) below w = 0.5, b - (b - a)(1 - w) from there.
    Value w = mode == "midpoint" ? e.full(rankShape, 0.5, t) : e.sub(ranks, lo);
    Value d = e.sub(hi, r);
    Value below = e.add(r, e.mul(w, d)), above = e.sub(hi, e.mul(d, e.rsubS(w, 1.0)));
    r = e.where(e.cmpS("aten::lt.Scalar", e.unary("aten::abs", w), 0.5), below, above);
  }
  // NaN where PyTorch's sort would have picked a NaN: any NaN (quantile) or
  // only NaNs (nanquantile).
  Value toNan = ignoreNan ? e.cmpS("aten::eq.Scalar", count, 0)
                          : e.cmpS("aten::gt.Scalar", nanCount, 0);
  r = e.op("aten::masked_fill.Scalar", {r, toNan}, {L.f64("value", NAN)});
  // [rows..., Q] -> [Q, rows...] -> the declared shape (keepdim 1s, no Q for
  // a 0-dim q).
  if (qTensor && rankOf(qTensor) == 1 && !rows.empty()) {
    SmallVector<int64_t> perm = {static_cast<int64_t>(rows.size())};
    for (int64_t i = 0, m = rows.size(); i < m; ++i)
      perm.push_back(i);
    r = e.permute(r, perm);
  }
  return e.done({e.view(r, L.resultType().getShape())});
}

} // namespace

void addStatisticsRules(LegalizeTable &t) {
  addLegalizations(t,
                   {"aten::var", "aten::std", "aten::std.dim", "aten::std.correction",
                    "aten::var_mean", "aten::var_mean.dim", "aten::std_mean",
                    "aten::std_mean.dim", "aten::std_mean.correction"},
                   varStd, Dynamic::Handled);
  addLegalizations(t, {"aten::logsumexp", "aten::special_logsumexp"}, logsumexpRule, Dynamic::Handled);
  addLegalizations(t, {"aten::nansum"}, nansum, Dynamic::Handled);
  addLegalizations(t, {"aten::nanmean"}, nanmean, Dynamic::Handled);
  addLegalizations(t, {"aten::count_nonzero", "aten::count_nonzero.dim_IntList"}, countNonzero, Dynamic::Handled);
  addLegalizations(t, {"aten::all", "aten::all.dim", "aten::all.dims"}, all, Dynamic::Handled);
  addLegalizations(t, {"aten::aminmax"}, aminmax, Dynamic::Handled);
  addLegalizations(t, {"aten::cumprod"}, cumprod);
  addLegalizations(t, {"aten::logcumsumexp"}, logcumsumexp);
  addLegalizations(t, {"aten::cummax", "aten::cummin"}, cumExtreme);
  addLegalizations(t, {"aten::diff"}, diff);
  addLegalizations(t, {"aten::trace"}, trace);
  addLegalizations(t,
                   {"aten::trapezoid.x", "aten::trapezoid.dx", "aten::trapz.x", "aten::trapz.dx",
                    "aten::cumulative_trapezoid.x", "aten::cumulative_trapezoid.dx"},
                   trapezoid);
  addLegalizations(t, {"aten::cov"}, cov);
  addLegalizations(t, {"aten::corrcoef"}, corrcoef);
  addLegalizations(t,
                   {"aten::quantile", "aten::quantile.scalar", "aten::nanquantile",
                    "aten::nanquantile.scalar"},
                   quantile);
}

} // namespace ptec::legalize::reduce
