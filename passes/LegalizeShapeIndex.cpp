//===- LegalizeShapeIndex.cpp - indexing, scatters, bags, counts ----------===//
//
// legalize-to-core-aten rewrites of composite indexing ops (torch's
// decompositions are the reference):
//  - take (index of the flattened tensor), take_along_dim (gather after
//    broadcasting), _unsafe_index / _unsafe_index_put (index / index_put),
//    _unsafe_masked_index (clamped index + masked_fill) and
//    _unsafe_masked_index_put_accumulate (masked values, index_put with
//    accumulate);
//  - index_add (index_put with accumulate=True at position `dim` of the
//    index list; both the portable kernel and upstream's accumulate),
//    index_fill (index_put of a 0-dim value);
//  - scatter_reduce.two: sum and mean with scatter_add (mean divides by the
//    count of contributions, floor division for integers as PyTorch);
//    prod, amax and amin with a dense formulation (a one-hot comparison of
//    the index with every position of the dim, the reduction over it),
//    refused where it would exceed kDenseLimit elements; scatter.reduce and
//    scatter.value_reduce ('add', 'multiply') as its 'sum' and 'prod' with
//    include_self;
//  - embedding_bag (sum, mean, max; offsets, per_sample_weights,
//    include_last_offset, padding_idx): each index's bag from the offsets,
//    index_put with accumulate for sum and mean, a dense max;
//  - argwhere / nonzero_numpy refused by
//    name (their length is data-dependent).
//
//===----------------------------------------------------------------------===//

#include "passes/LegalizeShape.h"

#include <cmath>

namespace ptec::legalize {
namespace {
using namespace shape;

/// The largest intermediate (elements) a dense formulation may build.
constexpr int64_t kDenseLimit = int64_t(1) << 24;

Type i64Of(Legalizer &L) { return L.b.getI64Type(); }

/// index_put(self, [None] * dim + [index], values, accumulate).
FailureOr<Value> putAlong(Legalizer &L, Value self, int64_t dim, Value index, Value values,
                          bool accumulate) {
  SmallVector<bool> present(dim + 1, false);
  present.back() = true;
  return L.make("aten::index_put", {{self}, {index}, {values}},
                {L.attr("indices", L.b.getDenseBoolArrayAttr(present)),
                 L.boolean("accumulate", accumulate)});
}

/// `idx` with negative entries counted from the end of a dim of `size`
/// (PyTorch's gather-based ops accept them; upstream's gather kernel does not).
FailureOr<Value> wrapNegative(Legalizer &L, Value idx, int64_t size) {
  FailureOr<Value> neg = L.make("aten::lt.Scalar", {{idx}}, {L.i64("other", 0)});
  FailureOr<Value> up = L.make("aten::add.Scalar", {{idx}}, {L.i64("other", size), L.i64("alpha", 1)});
  if (failed(neg) || failed(up))
    return failure();
  return L.make("aten::where.self", {{*neg}, {*up}, {idx}});
}

LogicalResult take(Legalizer &L) {
  Value x = L.operand("self");
  FailureOr<Value> flat = L.view(x, {tensorType(x).getNumElements()});
  if (failed(flat))
    return failure();
  return L.replaceWith(L.make("aten::index.Tensor", {{*flat}, {L.operand("index")}},
                              {L.attr("indices", L.b.getDenseBoolArrayAttr({true}))}));
}

/// take_along_dim(self, indices, dim): gather after broadcasting self and
/// indices in every dim but `dim`; without dim, over the flattened tensors.
LogicalResult takeAlongDim(Legalizer &L) {
  Value x = L.operand("self"), idx = L.operand("indices");
  RankedTensorType xt = tensorType(x), it = tensorType(idx);
  Attribute d = L.op->getAttr("dim");
  if (!d || llvm::isa<exir::NoneAttr>(d)) {
    FailureOr<Value> fx = L.view(x, {xt.getNumElements()});
    FailureOr<Value> fi = L.view(idx, {it.getNumElements()});
    if (succeeded(fi))
      fi = wrapNegative(L, *fi, xt.getNumElements());
    if (failed(fx) || failed(fi))
      return failure();
    return L.replaceWith(L.make("aten::gather", {{*fx}, {*fi}}, {L.i64("dim", 0)}));
  }
  int64_t dim = wrapDim(llvm::cast<IntegerAttr>(d).getInt(), xt.getRank());
  ArrayRef<int64_t> out = L.resultType().getShape();
  SmallVector<int64_t> xs(out), is(out);
  if (!xs.empty())
    xs[dim] = xt.getDimSize(dim);
  FailureOr<Value> bx = expand(L, x, xs);
  FailureOr<Value> bi = wrapNegative(L, idx, xt.getDimSize(dim));
  if (succeeded(bi))
    bi = expand(L, *bi, is);
  if (failed(bx) || failed(bi))
    return failure();
  return L.replaceWith(L.make("aten::gather", {{*bx}, {*bi}}, {L.i64("dim", dim)}));
}

/// index_add(self, dim, index, source, alpha): self[..., index, ...] +=
/// alpha * source, duplicates accumulating in index order.
/// A 0-dim operand as a 1-dim one of its one element (index ops on 0-dim
/// tensors index their only element).
FailureOr<Value> atLeast1d(Legalizer &L, Value v) {
  if (tensorType(v).getRank() > 0)
    return v;
  return L.view(v, {1});
}

LogicalResult indexAdd(Legalizer &L) {
  Value x = L.operand("self"), idx = L.operand("index"), src = L.operand("source");
  RankedTensorType t = tensorType(x);
  if (t.getRank() == 0) {
    FailureOr<Value> x1 = atLeast1d(L, x), i1 = atLeast1d(L, idx), s1 = atLeast1d(L, src);
    if (failed(x1) || failed(i1) || failed(s1))
      return failure();
    x = *x1;
    idx = *i1;
    src = *s1;
  }
  if (tensorType(idx).getRank() != 1)
    return L.refuse("with a 0-dim index is not supported");
  int64_t dim = wrapDim(intArg(L.op, "dim", 0), tensorType(x).getRank());
  Attribute alpha = L.op->getAttr("alpha");
  bool one = !alpha || (llvm::isa<IntegerAttr>(alpha) && !llvm::isa<BoolAttr>(alpha) &&
                        llvm::cast<IntegerAttr>(alpha).getInt() == 1) ||
             (llvm::isa<FloatAttr>(alpha) && llvm::cast<FloatAttr>(alpha).getValueAsDouble() == 1.0);
  Value v = src;
  if (!one) {
    FailureOr<Value> m = L.make("aten::mul.Scalar", {{src}}, {L.attr("other", alpha)});
    if (failed(m))
      return failure();
    if (tensorType(*m).getElementType() != t.getElementType())
      return L.refuse("with a floating alpha on an integer tensor is not supported");
    v = *m;
  }
  FailureOr<Value> r = putAlong(L, x, dim, idx, v, /*accumulate=*/true);
  if (succeeded(r) && t.getRank() == 0)
    r = L.view(*r, {});
  return L.replaceWith(r);
}

/// index_fill(self, dim, index, value): index_put of the 0-dim value.
LogicalResult indexFill(Legalizer &L) {
  Value x = L.operand("self"), idx = L.operand("index");
  RankedTensorType t = tensorType(x);
  if (t.getRank() == 0) {
    FailureOr<Value> x1 = atLeast1d(L, x);
    if (failed(x1))
      return failure();
    x = *x1;
  }
  int64_t dim = wrapDim(intArg(L.op, "dim", 0), tensorType(x).getRank());
  Type et = t.getElementType();
  FailureOr<Value> v;
  if (Value vt = L.operand("value")) {
    v = cast(L, vt, et);
  } else {
    Attribute a = L.op->getAttr("value");
    double d = 0;
    if (auto b = llvm::dyn_cast_or_null<BoolAttr>(a))
      d = b.getValue();
    else if (auto i = llvm::dyn_cast_or_null<IntegerAttr>(a))
      d = static_cast<double>(i.getInt());
    else if (auto f = llvm::dyn_cast_or_null<FloatAttr>(a))
      d = f.getValueAsDouble();
    // An integer value on an integer tensor keeps all its bits.
    bool exact = llvm::isa_and_nonnull<IntegerAttr>(a) && !llvm::isa<BoolAttr>(a) &&
                 llvm::isa<IntegerType>(et) && !et.isInteger(1);
    v = full(L, {}, exact ? a : scalarFor(L, et, d), et);
  }
  if (failed(v))
    return failure();
  FailureOr<Value> i = atLeast1d(L, idx);
  if (failed(i))
    return failure();
  FailureOr<Value> r = putAlong(L, x, dim, *i, *v, /*accumulate=*/false);
  if (succeeded(r) && t.getRank() == 0)
    r = L.view(*r, {});
  return L.replaceWith(r);
}

/// The present index tensors of a Tensor?[] argument and its presence mask.
std::pair<SmallVector<Value>, SmallVector<bool>> indexList(Legalizer &L, StringRef name) {
  const schema::FunctionSchema *s = L.op.getSchema();
  int arg = s->findArgument(name);
  SmallVector<Value> present(L.op.getArgOperands(arg));
  SmallVector<bool> mask;
  if (auto m = L.op->getAttrOfType<DenseBoolArrayAttr>(name))
    mask.assign(m.asArrayRef().begin(), m.asArrayRef().end());
  else
    mask.assign(present.size(), true);
  return {present, mask};
}

/// Each present index clamped to [lo(size), size - 1] of the dim it indexes.
FailureOr<SmallVector<Value>> clampIndices(Legalizer &L, RankedTensorType t,
                                           ArrayRef<Value> present, ArrayRef<bool> mask,
                                           bool negativeToo) {
  SmallVector<Value> out;
  size_t k = 0;
  for (auto [d, has] : llvm::enumerate(mask)) {
    if (!has)
      continue;
    if (static_cast<int64_t>(d) >= t.getRank() || k >= present.size())
      return L.refuse("indexes more dims than the tensor has");
    int64_t size = t.getDimSize(d);
    FailureOr<Value> c = L.make("aten::clamp", {{present[k++]}},
                                {L.i64("min", negativeToo ? -size : 0), L.i64("max", size - 1)});
    if (failed(c))
      return failure();
    out.push_back(*c);
  }
  return out;
}

LogicalResult maskedIndex(Legalizer &L) {
  Value x = L.operand("self"), mask = L.operand("mask");
  auto [present, has] = indexList(L, "indices");
  FailureOr<SmallVector<Value>> idx = clampIndices(L, tensorType(x), present, has, false);
  if (failed(idx))
    return failure();
  FailureOr<Value> g = L.make("aten::index.Tensor", {{x}, Operands(idx->begin(), idx->end())},
                              {L.attr("indices", L.b.getDenseBoolArrayAttr(has))});
  FailureOr<Value> off = L.make("aten::logical_not", {{mask}});
  if (failed(g) || failed(off))
    return failure();
  return L.replaceWith(L.make("aten::masked_fill.Scalar", {{*g}, {*off}},
                              {L.attr("value", L.op->getAttr("fill"))}));
}

LogicalResult maskedIndexPutAccumulate(Legalizer &L) {
  Value x = L.operand("self"), mask = L.operand("mask"), values = L.operand("values");
  RankedTensorType t = tensorType(x);
  auto [present, has] = indexList(L, "indices");
  FailureOr<SmallVector<Value>> idx = clampIndices(L, t, present, has, true);
  FailureOr<Value> off = L.make("aten::logical_not", {{mask}});
  if (failed(idx) || failed(off))
    return failure();
  FailureOr<Value> v = L.make("aten::masked_fill.Scalar", {{values}, {*off}},
                              {L.attr("value", scalarFor(L, t.getElementType(), 0))});
  if (failed(v))
    return failure();
  return L.replaceWith(L.make("aten::index_put", {{x}, Operands(idx->begin(), idx->end()), {*v}},
                              {L.attr("indices", L.b.getDenseBoolArrayAttr(has)),
                               L.boolean("accumulate", true)}));
}

//===----------------------------------------------------------------------===//
// scatter_reduce
//===----------------------------------------------------------------------===//

/// sum / mean: scatter_add onto self (or onto self with the scattered
/// positions zeroed when include_self is false); mean divides by 1 + the
/// number of contributions (or that number alone), PyTorch's count.
FailureOr<Value> scatterSumMean(Legalizer &L, Value x, int64_t dim, Value idx, Value src,
                                bool mean, bool includeSelf) {
  Type et = tensorType(x).getElementType();
  auto zeroed = [&](Value base) -> FailureOr<Value> {
    if (includeSelf)
      return base;
    return L.make("aten::scatter.value", {{base}, {idx}},
                  {L.i64("dim", dim), L.attr("value", scalarFor(L, et, 0))});
  };
  FailureOr<Value> base = zeroed(x);
  if (failed(base))
    return failure();
  FailureOr<Value> sum = L.make("aten::scatter_add", {{*base}, {idx}, {src}}, {L.i64("dim", dim)});
  if (failed(sum) || !mean)
    return sum;
  FailureOr<Value> ones = L.make("aten::full_like", {{src}}, {L.attr("fill_value", scalarFor(L, et, 1))});
  FailureOr<Value> cbase = L.make("aten::full_like", {{x}}, {L.attr("fill_value", scalarFor(L, et, 1))});
  if (succeeded(cbase))
    cbase = zeroed(*cbase);
  if (failed(ones) || failed(cbase))
    return failure();
  FailureOr<Value> count =
      L.make("aten::scatter_add", {{*cbase}, {idx}, {*ones}}, {L.i64("dim", dim)});
  if (failed(count))
    return failure();
  if (llvm::isa<IntegerType>(et))
    return L.make("aten::div.Tensor_mode", {{*sum}, {*count}},
                  {L.attr("rounding_mode", L.b.getStringAttr("floor"))});
  return binary(L, "aten::div.Tensor", *sum, *count);
}

/// prod / amax / amin: over the region of self the index covers (self
/// sliced to the index's sizes outside `dim`), compare every index entry
/// with every position p of dim (a one-hot [.., index dim, p, ..] mask),
/// reduce the source over the index dim with the reduction's identity where
/// the mask is false, combine with self where some entry hit p, and write
/// the region back.
FailureOr<Value> scatterDense(Legalizer &L, Value x, int64_t dim, Value idx, Value src,
                              StringRef reduce, bool includeSelf) {
  RankedTensorType st = tensorType(x), it = tensorType(idx), vt = tensorType(src);
  Type et = st.getElementType();
  int64_t rank = st.getRank();
  int64_t dense = it.getNumElements() * st.getDimSize(dim);
  if (dense > kDenseLimit)
    return L.refuse("with reduce='" + reduce + "' over " + Twine(dense) +
                    " index-position pairs is not supported: no scatter kernel reduces with '" +
                    reduce + "', and its dense formulation is limited to " + Twine(kDenseLimit) +
                    " elements");
  // The source entries the index reads, and self's region it writes.
  Value xs = src;
  for (int64_t m = 0; m < rank; ++m)
    if (vt.getDimSize(m) > it.getDimSize(m)) {
      FailureOr<Value> s = slice(L, xs, m, 0, it.getDimSize(m));
      if (failed(s))
        return failure();
      xs = *s;
    }
  struct Level {
    Value parent;
    int64_t dim, end;
  };
  SmallVector<Level> chain;
  Value region = x;
  for (int64_t m = 0; m < rank; ++m)
    if (m != dim && st.getDimSize(m) > it.getDimSize(m)) {
      chain.push_back({region, m, it.getDimSize(m)});
      FailureOr<Value> s = slice(L, region, m, 0, it.getDimSize(m));
      if (failed(s))
        return failure();
      region = *s;
    }
  FailureOr<Value> ui = unsqueeze(L, idx, dim + 1);
  FailureOr<Value> pos = arangeAt(L, st.getDimSize(dim), dim + 1, rank + 1);
  FailureOr<Value> us = unsqueeze(L, xs, dim + 1);
  if (failed(ui) || failed(pos) || failed(us))
    return failure();
  FailureOr<Value> hitMask = binary(L, "aten::eq.Tensor", *ui, *pos);
  if (failed(hitMask))
    return failure();
  Attribute identity = reduce == "prod"   ? scalarFor(L, et, 1)
                       : reduce == "amax" ? lowestOf(L, et)
                                          : highestOf(L, et);
  FailureOr<Value> vals = whereScalar(L, *hitMask, *us, identity);
  if (failed(vals))
    return failure();
  FailureOr<Value> red;
  if (reduce == "prod") {
    red = L.make("aten::prod.dim_int", {{*vals}},
                 {L.i64("dim", dim), L.boolean("keepdim", false), L.dtype("dtype", et)});
  } else {
    red = L.make(reduce == "amax" ? "aten::amax" : "aten::amin", {{*vals}},
                 {L.ints("dim", {dim}), L.boolean("keepdim", false)});
  }
  FailureOr<Value> hit = L.make("aten::any.dim", {{*hitMask}}, {L.i64("dim", dim)});
  if (failed(red) || failed(hit))
    return failure();
  FailureOr<Value> combined = *red;
  if (includeSelf)
    combined = binary(L,
                      reduce == "prod"   ? "aten::mul.Tensor"
                      : reduce == "amax" ? "aten::maximum"
                                         : "aten::minimum",
                      region, *red);
  if (failed(combined))
    return failure();
  FailureOr<Value> updated = L.make("aten::where.self", {{*hit}, {*combined}, {region}});
  for (const Level &lv : llvm::reverse(chain)) {
    if (failed(updated))
      return failure();
    updated = L.make("aten::slice_scatter", {{lv.parent}, {*updated}},
                     {L.i64("dim", lv.dim), L.i64("start", 0), L.i64("end", lv.end), L.i64("step", 1)});
  }
  return updated;
}

/// scatter_reduce(x, dim, idx, src, r, include_self), replacing the op.
LogicalResult scatterReduceWith(Legalizer &L, Value x, Value idx, Value src, StringRef r,
                                bool includeSelf) {
  RankedTensorType t = tensorType(x);
  if (t.getRank() == 0) { // one element: the 1-dim case of one
    FailureOr<Value> x1 = atLeast1d(L, x), i1 = atLeast1d(L, idx), s1 = atLeast1d(L, src);
    if (failed(x1) || failed(i1) || failed(s1))
      return failure();
    x = *x1;
    idx = *i1;
    src = *s1;
    t = tensorType(x);
  }
  if (tensorType(idx).getRank() != t.getRank() || tensorType(src).getRank() != t.getRank())
    return L.refuse("with an index or source of another rank than self is not supported");
  if (t.getElementType().isInteger(1))
    return L.refuse("on bool tensors is not supported");
  int64_t dim = wrapDim(intArg(L.op, "dim", 0), t.getRank());
  if (tensorType(idx).getNumElements() == 0)
    return L.replace({x});
  FailureOr<Value> out;
  if (r == "sum" || r == "mean")
    out = scatterSumMean(L, x, dim, idx, src, r == "mean", includeSelf);
  else if (r == "prod" || r == "amax" || r == "amin")
    out = scatterDense(L, x, dim, idx, src, r, includeSelf);
  else
    return L.refuse("with reduce='" + r + "' is not supported: not a reduction of scatter_reduce");
  if (succeeded(out) && L.resultType().getRank() == 0)
    out = L.view(*out, {});
  return L.replaceWith(out);
}

LogicalResult scatterReduce(Legalizer &L) {
  auto reduce = L.op->getAttrOfType<StringAttr>("reduce");
  if (!reduce)
    return L.refuse("needs its reduce mode");
  return scatterReduceWith(L, L.operand("self"), L.operand("index"), L.operand("src"),
                           reduce.getValue(), boolArg(L.op, "include_self", true));
}

/// scatter.reduce / scatter.value_reduce (Tensor.scatter(..., reduce=)):
/// scatter_reduce with include_self, 'add' as 'sum' and 'multiply' as
/// 'prod' (PyTorch's own mapping); a value is a source of the index's shape
/// filled with it in self's dtype.
LogicalResult scatterOldReduce(Legalizer &L) {
  auto reduce = L.op->getAttrOfType<StringAttr>("reduce");
  if (!reduce || (reduce.getValue() != "add" && reduce.getValue() != "multiply"))
    return L.refuse("needs reduce 'add' or 'multiply'");
  StringRef r = reduce.getValue() == "add" ? "sum" : "prod";
  Value x = L.operand("self"), idx = L.operand("index"), src = L.operand("src");
  if (!src) {
    Type et = tensorType(x).getElementType();
    Attribute value = L.op->getAttr("value");
    if (!value)
      return L.refuse("needs its value");
    if (auto f = llvm::dyn_cast<FloatAttr>(value); f && !llvm::isa<FloatType>(et))
      value = scalarFor(L, et, std::trunc(f.getValueAsDouble())); // as PyTorch casts it
    FailureOr<Value> filled = full(L, tensorType(idx).getShape(), value, et);
    if (failed(filled))
      return failure();
    src = *filled;
  }
  return scatterReduceWith(L, x, idx, src, r, /*includeSelf=*/true);
}

/// masked_scatter (core, with a kernel) whose self or mask is smaller than
/// their broadcast: the kernels want both of the result's shape.
LogicalResult maskedScatter(Legalizer &L) {
  Value x = L.operand("self"), mask = L.operand("mask");
  ArrayRef<int64_t> shape = L.resultType().getShape();
  if (L.dynamic || (tensorType(x).getShape() == shape && tensorType(mask).getShape() == shape))
    return success();
  FailureOr<Value> bx = expand(L, x, shape), bm = expand(L, mask, shape);
  if (failed(bx) || failed(bm))
    return failure();
  return L.replaceWith(L.make("aten::masked_scatter", {{*bx}, {*bm}, {L.operand("source")}}));
}

/// embedding_renorm(weight, indices, max_norm, p) (what nn.Embedding's
/// max_norm writes into its weight before each lookup): each row an index
/// names is scaled by max_norm / (norm + 1e-7) where its p-norm exceeds
/// max_norm (PyTorch's formula); a row named twice gets the same value twice.
LogicalResult embeddingRenorm(Legalizer &L) {
  Value w = L.operand("self"), idx = L.operand("indices");
  RankedTensorType wt = tensorType(w);
  double maxNorm = 0, p = 2;
  if (auto a = L.op->getAttrOfType<FloatAttr>("max_norm"))
    maxNorm = a.getValueAsDouble();
  if (auto a = L.op->getAttrOfType<FloatAttr>("norm_type"))
    p = a.getValueAsDouble();
  if (wt.getRank() != 2 || !llvm::isa<FloatType>(wt.getElementType()))
    return L.refuse("needs a 2-dim floating weight");
  if (!(p > 0))
    return L.refuse("with norm_type " + std::to_string(p) + " is not supported: only positive "
                    "p-norms (inf included)");
  FailureOr<Value> flat = L.view(idx, {tensorType(idx).getNumElements()});
  FailureOr<Value> rows = failed(flat) ? flat
                                       : L.make("aten::index_select", {{w}, {*flat}},
                                                {L.i64("dim", 0)});
  FailureOr<Value> mag = failed(rows) ? rows : L.make("aten::abs", {{*rows}});
  if (failed(mag))
    return failure();
  FailureOr<Value> norm;
  if (std::isinf(p)) {
    norm = L.make("aten::amax", {{*mag}}, {L.ints("dim", {1}), L.boolean("keepdim", true)});
  } else {
    FailureOr<Value> pw = p == 1 ? *mag : L.make("aten::pow.Tensor_Scalar", {{*mag}}, {L.f64("exponent", p)});
    FailureOr<Value> sum = failed(pw) ? pw
                                      : L.make("aten::sum.dim_IntList", {{*pw}},
                                               {L.ints("dim", {1}), L.boolean("keepdim", true)});
    norm = failed(sum) || p == 1 ? sum
                                 : L.make("aten::pow.Tensor_Scalar", {{*sum}},
                                          {L.f64("exponent", 1.0 / p)});
  }
  if (failed(norm))
    return failure();
  FailureOr<Value> over = L.make("aten::gt.Scalar", {{*norm}}, {L.f64("other", maxNorm)});
  FailureOr<Value> denom = L.make("aten::add.Scalar", {{*norm}}, {L.f64("other", 1e-7), L.i64("alpha", 1)});
  FailureOr<Value> scale = failed(denom) ? denom
                                         : L.make("aten::reciprocal", {{*denom}});
  if (succeeded(scale))
    scale = L.make("aten::mul.Scalar", {{*scale}}, {L.f64("other", maxNorm)});
  if (failed(over) || failed(scale))
    return failure();
  FailureOr<Value> scaled = binary(L, "aten::mul.Tensor", *rows, *scale);
  FailureOr<Value> newRows = failed(scaled) ? scaled
                                            : L.make("aten::where.self", {{*over}, {*scaled}, {*rows}});
  if (failed(newRows))
    return failure();
  return L.replaceWith(putAlong(L, w, 0, *flat, *newRows, /*accumulate=*/false));
}

//===----------------------------------------------------------------------===//
// embedding_bag
//===----------------------------------------------------------------------===//

/// embedding_bag(weight, indices, offsets, ..., mode, ..., per_sample_weights,
/// include_last_offset, padding_idx): bag b sums (mode 0), averages (1) or
/// takes the max (2) of the rows weight[indices[p]] for offsets[b] <= p <
/// offsets[b + 1]; entries equal to padding_idx are left out; an empty bag
/// gives zeros. Only the first result (the bags) may be read.
LogicalResult embeddingBag(Legalizer &L) {
  exir::AtenOp op = L.op;
  for (unsigned i = 1; i < op->getNumResults(); ++i)
    if (resultUsed(L, i))
      return L.refuse("with its offset2bag, bag_size or max_indices results read is not "
                      "supported: only the bags are computed");
  Value w = L.operand("weight"), ind = L.operand("indices"), off = L.operand("offsets");
  Value psw = L.operand("per_sample_weights");
  RankedTensorType wt = tensorType(w), it = tensorType(ind), ot = tensorType(off);
  if (!wt || wt.getRank() != 2 || !it || it.getRank() != 1 || !ot || ot.getRank() != 1)
    return L.refuse("needs a 2-dim weight and 1-dim indices and offsets");
  int64_t mode = intArg(op, "mode", 0);
  bool last = boolArg(op, "include_last_offset", false);
  // embedding_bag.padding_idx wraps a negative padding_idx into the rows;
  // _embedding_bag gets it wrapped already, -1 for none.
  std::optional<int64_t> padding;
  if (auto p = op->getAttrOfType<IntegerAttr>("padding_idx")) {
    int64_t v = p.getInt();
    if (v < 0 && op.getOpName() == "aten::embedding_bag.padding_idx")
      v += wt ? wt.getDimSize(0) : 0;
    if (v >= 0)
      padding = v;
  }
  if (mode < 0 || mode > 2)
    return L.refuse("with mode " + Twine(mode) + " is not supported: not sum, mean or max");
  if (psw && mode != 0)
    return L.refuse("with per_sample_weights in a mode other than sum is not supported");
  int64_t n = it.getDimSize(0), bags = ot.getDimSize(0) - (last ? 1 : 0), D = wt.getDimSize(1);
  Type et = wt.getElementType(), i64 = i64Of(L);
  if (bags <= 0 || n == 0)
    return L.refuse("with no bags or no indices is not supported");
  if (mode == 2 && bags * n * D > kDenseLimit)
    return L.refuse("in max mode over " + Twine(bags * n * D) + " elements is not supported: "
                    "its dense formulation is limited to " + Twine(kDenseLimit));
  // The bag of each position: how many bag starts are at or before it, - 1.
  FailureOr<Value> offs = cast(L, off, i64);
  FailureOr<Value> starts = offs;
  if (succeeded(offs) && last)
    starts = slice(L, *offs, 0, 0, bags);
  FailureOr<Value> pos = arange(L, n);
  if (failed(starts) || failed(pos))
    return failure();
  FailureOr<Value> row = L.view(*starts, {1, bags});
  FailureOr<Value> col = L.view(*pos, {n, 1});
  if (failed(row) || failed(col))
    return failure();
  FailureOr<Value> le = binary(L, "aten::le.Tensor", *row, *col);
  FailureOr<Value> cnt = failed(le) ? le
                                    : L.make("aten::sum.dim_IntList", {{*le}},
                                             {L.ints("dim", {1}), L.dtype("dtype", i64)});
  FailureOr<Value> bag = failed(cnt) ? cnt
                                     : L.make("aten::sub.Scalar", {{*cnt}},
                                              {L.i64("other", 1), L.i64("alpha", 1)});
  if (failed(bag))
    return failure();
  FailureOr<Value> valid = L.make("aten::ge.Scalar", {{*bag}}, {L.i64("other", 0)});
  if (succeeded(valid) && last) { // positions past the last offset belong to no bag
    FailureOr<Value> end = slice(L, *offs, 0, bags, bags + 1);
    FailureOr<Value> in = failed(end) ? end : binary(L, "aten::lt.Tensor", *pos, *end);
    valid = failed(in) ? in : binary(L, "aten::logical_and", *valid, *in);
  }
  if (succeeded(valid) && padding) {
    FailureOr<Value> np = L.make("aten::ne.Scalar", {{ind}}, {L.i64("other", *padding)});
    valid = failed(np) ? np : binary(L, "aten::logical_and", *valid, *np);
  }
  FailureOr<Value> rows = L.make("aten::embedding", {{w}, {ind}});
  if (failed(valid) || failed(rows))
    return failure();
  FailureOr<Value> valid2 = L.view(*valid, {n, 1});
  if (failed(valid2))
    return failure();
  if (mode == 2) {
    FailureOr<Value> bagRow = L.view(*bag, {1, n});
    FailureOr<Value> ids = arangeAt(L, bags, 0, 2);
    FailureOr<Value> validRow = L.view(*valid, {1, n});
    if (failed(bagRow) || failed(ids) || failed(validRow))
      return failure();
    FailureOr<Value> member = binary(L, "aten::eq.Tensor", *bagRow, *ids);
    if (succeeded(member))
      member = binary(L, "aten::logical_and", *member, *validRow); // [bags, n]
    FailureOr<Value> m3 = failed(member) ? member : L.view(*member, {bags, n, 1});
    FailureOr<Value> r3 = L.view(*rows, {1, n, D});
    if (failed(m3) || failed(r3))
      return failure();
    FailureOr<Value> vals = whereScalar(L, *m3, *r3, lowestOf(L, et));
    FailureOr<Value> mx = failed(vals) ? vals
                                       : L.make("aten::amax", {{*vals}},
                                                {L.ints("dim", {1}), L.boolean("keepdim", false)});
    FailureOr<Value> any = L.make("aten::any.dim", {{*m3}}, {L.i64("dim", 1)}); // [bags, 1]
    if (failed(mx) || failed(any))
      return failure();
    FailureOr<Value> out = whereScalar(L, *any, *mx, scalarFor(L, et, 0));
    if (failed(out))
      return failure();
    return replaceFirst(L, *out);
  }
  FailureOr<Value> contrib = *rows;
  if (psw) {
    FailureOr<Value> p2 = L.view(psw, {n, 1});
    contrib = failed(p2) ? p2 : binary(L, "aten::mul.Tensor", *rows, *p2);
  }
  if (succeeded(contrib))
    contrib = whereScalar(L, *valid2, *contrib, scalarFor(L, et, 0));
  FailureOr<Value> clampedBag =
      L.make("aten::clamp", {{*bag}}, {L.i64("min", 0), L.i64("max", bags - 1)});
  FailureOr<Value> zeros = full(L, {bags, D}, scalarFor(L, et, 0), et);
  if (failed(contrib) || failed(clampedBag) || failed(zeros))
    return failure();
  FailureOr<Value> sum = putAlong(L, *zeros, 0, *clampedBag, *contrib, /*accumulate=*/true);
  if (failed(sum))
    return failure();
  if (mode == 0)
    return replaceFirst(L, *sum);
  // mean: the sum over the bag's entry count (an empty bag's sum is 0; 0/1).
  FailureOr<Value> ones = cast(L, *valid, et);
  FailureOr<Value> zc = full(L, {bags}, scalarFor(L, et, 0), et);
  if (failed(ones) || failed(zc))
    return failure();
  FailureOr<Value> count = putAlong(L, *zc, 0, *clampedBag, *ones, /*accumulate=*/true);
  if (succeeded(count))
    count = L.make("aten::clamp", {{*count}}, {L.f64("min", 1.0), L.none("max")});
  if (succeeded(count))
    count = L.view(*count, {bags, 1});
  if (failed(count))
    return failure();
  FailureOr<Value> mean = binary(L, "aten::div.Tensor", *sum, *count);
  if (failed(mean))
    return failure();
  return replaceFirst(L, *mean);
}

/// put(self, index, source, accumulate): index_put on the flattened self at
/// the flattened index (negative entries counted from the end), viewed back.
LogicalResult put(Legalizer &L) {
  Value x = L.operand("self"), idx = L.operand("index"), src = L.operand("source");
  RankedTensorType xt = tensorType(x);
  int64_t n = xt.getNumElements();
  FailureOr<Value> flat = L.view(x, {n});
  FailureOr<Value> flatIdx = L.view(idx, {tensorType(idx).getNumElements()});
  FailureOr<Value> flatSrc = L.view(src, {tensorType(src).getNumElements()});
  if (failed(flat) || failed(flatIdx) || failed(flatSrc))
    return failure();
  FailureOr<Value> wrapped = wrapNegative(L, *flatIdx, n);
  if (failed(wrapped))
    return failure();
  FailureOr<Value> out =
      putAlong(L, *flat, 0, *wrapped, *flatSrc, boolArg(L.op, "accumulate", false));
  if (failed(out))
    return failure();
  return L.replaceWith(L.view(*out, xt.getShape()));
}

/// index_reduce(self, dim, index, source, reduce, include_self):
/// scatter_reduce with the 1-dim index viewed along `dim` and expanded to
/// source's shape (PyTorch's reductions: prod, mean, amax, amin; mean counts
/// self when included, as scatter_reduce does).
LogicalResult indexReduce(Legalizer &L) {
  Value x = L.operand("self"), idx = L.operand("index"), src = L.operand("source");
  auto reduce = L.op->getAttrOfType<StringAttr>("reduce");
  if (!reduce)
    return L.refuse("needs its reduce mode");
  RankedTensorType xt = tensorType(x), st = tensorType(src);
  if (xt.getRank() == 0 || st.getRank() != xt.getRank())
    return L.refuse("on a 0-dim tensor or with a source of another rank is not supported");
  int64_t dim = wrapDim(intArg(L.op, "dim", 0), xt.getRank());
  SmallVector<int64_t> along(st.getRank(), 1);
  along[dim] = st.getDimSize(dim);
  FailureOr<Value> iv = L.view(idx, along);
  if (failed(iv))
    return failure();
  FailureOr<Value> wrapped = wrapNegative(L, *iv, xt.getDimSize(dim));
  if (failed(wrapped))
    return failure();
  FailureOr<Value> expanded = expand(L, *wrapped, st.getShape());
  if (failed(expanded))
    return failure();
  return scatterReduceWith(L, x, *expanded, src, reduce.getValue(),
                           boolArg(L.op, "include_self", true));
}

} // namespace

void addShapeIndexLegalizations(LegalizeTable &t) {
  addLegalizations(t, {"aten::take"}, take);
  addLegalizations(t, {"aten::take_along_dim"}, takeAlongDim);
  addLegalizations(t, {"aten::index_add"}, indexAdd);
  addLegalizations(t, {"aten::index_fill.int_Scalar", "aten::index_fill.int_Tensor"}, indexFill);
  addLegalizations(t, {"aten::scatter_reduce.two"}, scatterReduce);
  addLegalizations(t, {"aten::put"}, put);
  addLegalizations(t, {"aten::index_reduce"}, indexReduce);
  addLegalizations(t, {"aten::scatter.reduce", "aten::scatter.value_reduce"}, scatterOldReduce);
  addRefusals(t, {"aten::_index_put_impl_"},
              "an internal in-place form of index_put that torch.export does not write; "
              "use x.index_put(indices, values) or x[indices] = values");
  addLegalizations(t, {"aten::masked_scatter"}, maskedScatter, Dynamic::Handled);
  addLegalizations(t, {"aten::embedding_renorm"}, embeddingRenorm);
  addLegalizations(t, {"aten::_unsafe_index.Tensor"},
                   [](Legalizer &L) { return L.rename("aten::index.Tensor"); }, Dynamic::Handled);
  addLegalizations(t, {"aten::_unsafe_index_put"},
                   [](Legalizer &L) { return L.rename("aten::index_put"); }, Dynamic::Handled);
  addLegalizations(t, {"aten::_unsafe_masked_index"}, maskedIndex);
  addLegalizations(t, {"aten::_unsafe_masked_index_put_accumulate"}, maskedIndexPutAccumulate);
  addLegalizations(t, {"aten::embedding_bag", "aten::embedding_bag.padding_idx",
                       "aten::_embedding_bag"},
                   embeddingBag);
}

} // namespace ptec::legalize
