//===- ShapeRulesReduction.cpp - reductions, scans and sorts --------------===//
//
// A reduction removes its dims (or keeps them as 1 with keepdim); an absent
// or empty dim list means every dim. Dims must be in range and distinct.
// Sums and products of integers are int64, means and variances need
// floating inputs, arg-reductions give int64 indices.
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ShapeRulesSupport.h"

using namespace mlir;

namespace ptec::exir::rules {
namespace {

/// `shape` reduced over `dims` (already wrapped; empty = all).
Shape reduced(ArrayRef<int64_t> shape, ArrayRef<int64_t> dims, bool keepdim) {
  Shape out;
  for (int64_t i = 0, e = shape.size(); i < e; ++i) {
    bool reduce = dims.empty() || llvm::is_contained(dims, i);
    if (!reduce)
      out.push_back(shape[i]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

/// Tensor `self` reduced over the `dim` argument (an int, an int list, or
/// None: every dim) with the keepdim flag.
struct Reduction {
  RankedTensorType self;
  Shape dims;  // wrapped; empty: every dim
  Shape shape; // of the result
};

/// The reductions below take their Reduction; reduction<rule> computes it.
using ReductionFn = LogicalResult (*)(RuleContext &, const Reduction &);

template <ReductionFn Rule>
LogicalResult reduction(RuleContext &c) {
  Reduction r;
  if (failed(c.require("self", r.self)))
    return failure();
  if (c.has("dim") && !c.isNone("dim") &&
      failed(c.dimListArg("dim", r.self.getRank(), r.dims)))
    return failure();
  r.shape = reduced(r.self.getShape(), r.dims, c.getBool("keepdim"));
  return Rule(c, r);
}

/// sum, prod, cumsum: an explicit dtype, else int64 for integral inputs.
Type accumulateDtype(RuleContext &c, Type self) {
  if (Type d = c.dtype("dtype"))
    return d;
  return isIntegral(self, /*includeBool=*/true) ? c.i64() : self;
}

LogicalResult sum(RuleContext &c, const Reduction &r) {
  return c.succeed(r.shape, accumulateDtype(c, r.self.getElementType()));
}

LogicalResult mean(RuleContext &c, const Reduction &r) {
  Type e = c.dtype("dtype") ? c.dtype("dtype") : r.self.getElementType();
  if (!isFloating(e) && !isComplex(e))
    return c.fail("mean needs a floating or complex dtype, got " + dtypeName(e));
  return c.succeed(r.shape, e);
}

/// max/min and their arg- and .dim forms: the extreme values (self's
/// dtype), their int64 indices, or both. An empty dim has no extreme.
LogicalResult extremum(RuleContext &c, const Reduction &r, bool values, bool indices) {
  for (int64_t i = 0, e = r.self.getRank(); i < e; ++i)
    if ((r.dims.empty() || llvm::is_contained(r.dims, i)) && r.self.getDimSize(i) == 0)
      return c.fail("cannot reduce over dim " + llvm::Twine(i) + " of size 0");
  if (values)
    c.produce(r.shape, r.self.getElementType());
  if (indices)
    c.produce(r.shape, c.i64());
  return success();
}

LogicalResult sameDtypeReduction(RuleContext &c, const Reduction &r) {
  return extremum(c, r, true, false);
}
LogicalResult argReduction(RuleContext &c, const Reduction &r) {
  return extremum(c, r, false, true);
}
LogicalResult valuesAndIndices(RuleContext &c, const Reduction &r) {
  return extremum(c, r, true, true);
}

/// any/all give bool, except for uint8 inputs (kept for compatibility).
LogicalResult anyAll(RuleContext &c, const Reduction &r) {
  Type e = r.self.getElementType();
  return c.succeed(r.shape, e.isUnsignedInteger(8) ? e : c.boolType());
}

LogicalResult varStd(RuleContext &c, const Reduction &r) {
  Type e = r.self.getElementType();
  if (!isFloating(e) && !isComplex(e))
    return c.fail("var and std need a floating or complex tensor, got " + dtypeName(e));
  c.produce(r.shape, toRealType(e));
  if (c.getOp().getOpName().contains("_mean"))
    c.produce(r.shape, e);
  return success();
}

LogicalResult logsumexp(RuleContext &c, const Reduction &r) {
  Type e = r.self.getElementType();
  return c.succeed(r.shape, isIntegral(e, true) ? c.defaultFloat() : e);
}

LogicalResult norm(RuleContext &c, const Reduction &r) {
  Type e = c.dtype("dtype") ? c.dtype("dtype") : r.self.getElementType();
  if (!isFloating(e) && !isComplex(e))
    return c.fail("norm needs a floating or complex tensor, got " + dtypeName(e));
  return c.succeed(r.shape, toRealType(e));
}

LogicalResult scan(RuleContext &c, RankedTensorType t) {
  int64_t dim;
  if (failed(c.dimArg("dim", t.getRank(), dim)))
    return failure();
  return c.succeed(t.getShape(), accumulateDtype(c, t.getElementType()));
}

LogicalResult topk(RuleContext &c, RankedTensorType t) {
  int64_t dim;
  if (failed(c.dimArg("dim", t.getRank(), dim)))
    return failure();
  Shape shape(t.getShape());
  int64_t size = t.getRank() ? shape[dim] : 1;
  int64_t k = c.getInt("k");
  if (k < 0 || k > size)
    return c.fail("k = " + llvm::Twine(k) + " is out of range for dim " +
                  llvm::Twine(dim) + " of size " + llvm::Twine(size));
  if (t.getRank())
    shape[dim] = k;
  c.produce(shape, t.getElementType());
  return c.succeed(shape, c.i64());
}

LogicalResult sort(RuleContext &c, RankedTensorType t) {
  int64_t dim;
  if (failed(c.dimArg("dim", t.getRank(), dim)))
    return failure();
  if (!c.getOp().getOpName().contains("argsort"))
    c.produce(Spec::like(t));
  return c.succeed(t.getShape(), c.i64());
}

LogicalResult bucketize(RuleContext &c) {
  RankedTensorType b;
  if (failed(c.require("boundaries", b)) || failed(c.requireRank("boundaries", b, 1, 1)))
    return failure();
  RankedTensorType self = c.type("self");
  Type e = c.getBool("out_int32") ? IntegerType::get(c.context(), 32) : c.i64();
  return c.succeed(self ? self.getShape() : ArrayRef<int64_t>{}, e);
}

/// searchsorted.Tensor: a 1-dim sorted_sequence, or one with self's leading
/// dims; self's shape, int32 with `out_int32`, else int64.
LogicalResult searchsorted(RuleContext &c) {
  RankedTensorType seq, self;
  if (failed(c.require("sorted_sequence", seq)) || failed(c.require("self", self)) ||
      failed(c.requireRank("sorted_sequence", seq, 1, kMaxTensorRank)))
    return failure();
  if (seq.getRank() > 1 &&
      (self.getRank() != seq.getRank() ||
       seq.getShape().drop_back() != self.getShape().drop_back()))
    return c.fail("'sorted_sequence' " + describe(seq) + " must be 1-dim or share the leading "
                  "dims of 'self' " + describe(self));
  Type e = c.getBool("out_int32") ? IntegerType::get(c.context(), 32) : c.i64();
  return c.succeed(self.getShape(), e);
}

} // namespace

void addReductionRules(RuleTable &t) {
  addRules(t, {"sum", "sum.dim_IntList", "prod", "prod.dim_int"}, reduction<sum>);
  addRules(t, {"mean", "mean.dim"}, reduction<mean>);
  addRules(t, {"amax", "amin", "max", "min"}, reduction<sameDtypeReduction>);
  addRules(t, {"argmax", "argmin"}, reduction<argReduction>);
  addRules(t, {"max.dim", "min.dim"}, reduction<valuesAndIndices>);
  addRules(t, {"any", "any.dim", "any.dims", "all", "all.dim", "all.dims"}, reduction<anyAll>);
  addRules(t, {"var", "var.dim", "var.correction", "std", "std.dim", "std.correction",
               "var_mean", "var_mean.dim", "var_mean.correction",
               "std_mean.correction"},
           reduction<varStd>);
  addRules(t, {"logsumexp"}, reduction<logsumexp>);
  addRules(t, {"norm.ScalarOpt_dim", "linalg_vector_norm"}, reduction<norm>);
  addRules(t, {"cumsum", "cumprod"}, onSelf<scan>);
  addRules(t, {"topk"}, onSelf<topk>);
  addRules(t, {"sort", "sort.stable", "argsort", "argsort.stable"}, onSelf<sort>);
  addRules(t, {"bucketize.Tensor", "bucketize.Scalar"}, bucketize);
  addRules(t, {"searchsorted.Tensor"}, searchsorted);
}

} // namespace ptec::exir::rules
