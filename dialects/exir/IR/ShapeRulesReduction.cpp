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

/// Requires tensor `self` and computes its shape reduced over the `dim`
/// argument (an int, an int list, or None: every dim) with the keepdim flag.
LogicalResult reduceSelf(RuleContext &c, RankedTensorType &t, Shape &out,
                         Shape *dimsOut = nullptr) {
  if (failed(c.require("self", t)))
    return failure();
  Shape dims;
  if (c.has("dim") && !c.isNone("dim") && failed(c.dimListArg("dim", t.getRank(), dims)))
    return failure();
  out = reduced(t.getShape(), dims, c.getBool("keepdim"));
  if (dimsOut)
    *dimsOut = dims;
  return success();
}

/// sum, prod, cumsum: an explicit dtype, else int64 for integral inputs.
Type accumulateDtype(RuleContext &c, Type self) {
  if (Type d = c.dtype("dtype"))
    return d;
  return isIntegral(self, /*includeBool=*/true) ? c.i64() : self;
}

LogicalResult sum(RuleContext &c) {
  RankedTensorType t;
  Shape shape;
  if (failed(reduceSelf(c, t, shape)))
    return failure();
  c.produce(shape, accumulateDtype(c, t.getElementType()));
  return success();
}

LogicalResult mean(RuleContext &c) {
  RankedTensorType t;
  Shape shape;
  if (failed(reduceSelf(c, t, shape)))
    return failure();
  Type e = c.dtype("dtype") ? c.dtype("dtype") : t.getElementType();
  if (!isFloating(e) && !isComplex(e))
    return c.fail("mean needs a floating or complex dtype, got " + dtypeName(e));
  c.produce(shape, e);
  return success();
}

/// max/min and their arg- and .dim forms: the extreme values (self's
/// dtype), their int64 indices, or both. An empty dim has no extreme.
LogicalResult extremum(RuleContext &c, bool values, bool indices) {
  RankedTensorType t;
  Shape shape, dims;
  if (failed(reduceSelf(c, t, shape, &dims)))
    return failure();
  for (int64_t i = 0, e = t.getRank(); i < e; ++i)
    if ((dims.empty() || llvm::is_contained(dims, i)) && t.getDimSize(i) == 0)
      return c.fail("cannot reduce over dim " + llvm::Twine(i) + " of size 0");
  if (values)
    c.produce(shape, t.getElementType());
  if (indices)
    c.produce(shape, c.i64());
  return success();
}

LogicalResult sameDtypeReduction(RuleContext &c) { return extremum(c, true, false); }
LogicalResult argReduction(RuleContext &c) { return extremum(c, false, true); }
LogicalResult valuesAndIndices(RuleContext &c) { return extremum(c, true, true); }

/// any/all give bool, except for uint8 inputs (kept for compatibility).
LogicalResult anyAll(RuleContext &c) {
  RankedTensorType t;
  Shape shape;
  if (failed(reduceSelf(c, t, shape)))
    return failure();
  Type e = t.getElementType();
  c.produce(shape, e.isUnsignedInteger(8) ? e : c.boolType());
  return success();
}

LogicalResult varStd(RuleContext &c) {
  RankedTensorType t;
  Shape shape;
  if (failed(reduceSelf(c, t, shape)))
    return failure();
  Type e = t.getElementType();
  if (!isFloating(e) && !isComplex(e))
    return c.fail("var and std need a floating or complex tensor, got " + dtypeName(e));
  c.produce(shape, toRealType(e));
  if (c.getOp().getOpName().contains("_mean"))
    c.produce(shape, e);
  return success();
}

LogicalResult logsumexp(RuleContext &c) {
  RankedTensorType t;
  Shape shape;
  if (failed(reduceSelf(c, t, shape)))
    return failure();
  Type e = t.getElementType();
  c.produce(shape, isIntegral(e, true) ? c.defaultFloat() : e);
  return success();
}

LogicalResult norm(RuleContext &c) {
  RankedTensorType t;
  Shape shape;
  if (failed(reduceSelf(c, t, shape)))
    return failure();
  Type e = c.dtype("dtype") ? c.dtype("dtype") : t.getElementType();
  if (!isFloating(e) && !isComplex(e))
    return c.fail("norm needs a floating or complex tensor, got " + dtypeName(e));
  c.produce(shape, toRealType(e));
  return success();
}

LogicalResult scan(RuleContext &c) {
  RankedTensorType t;
  int64_t dim;
  if (failed(c.require("self", t)) || failed(c.dimArg("dim", t.getRank(), dim)))
    return failure();
  c.produce(t.getShape(), accumulateDtype(c, t.getElementType()));
  return success();
}

LogicalResult topk(RuleContext &c) {
  RankedTensorType t;
  int64_t dim;
  if (failed(c.require("self", t)) || failed(c.dimArg("dim", t.getRank(), dim)))
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
  c.produce(shape, c.i64());
  return success();
}

LogicalResult sort(RuleContext &c) {
  RankedTensorType t;
  int64_t dim;
  if (failed(c.require("self", t)) || failed(c.dimArg("dim", t.getRank(), dim)))
    return failure();
  if (!c.getOp().getOpName().contains("argsort"))
    c.produce(Spec::like(t));
  c.produce(t.getShape(), c.i64());
  return success();
}

LogicalResult bucketize(RuleContext &c) {
  RankedTensorType b;
  if (failed(c.require("boundaries", b)) || failed(c.requireRank("boundaries", b, 1, 1)))
    return failure();
  RankedTensorType self = c.type("self");
  Type e = c.getBool("out_int32") ? IntegerType::get(c.context(), 32) : c.i64();
  c.produce(self ? self.getShape() : ArrayRef<int64_t>{}, e);
  return success();
}

} // namespace

void addReductionRules(RuleTable &t) {
  addRules(t, {"sum", "sum.dim_IntList", "prod", "prod.dim_int"}, sum);
  addRules(t, {"mean", "mean.dim"}, mean);
  addRules(t, {"amax", "amin", "max", "min"}, sameDtypeReduction);
  addRules(t, {"argmax", "argmin"}, argReduction);
  addRules(t, {"max.dim", "min.dim"}, valuesAndIndices);
  addRules(t, {"any", "any.dim", "any.dims", "all", "all.dim", "all.dims"}, anyAll);
  addRules(t, {"var", "var.dim", "var.correction", "std", "std.dim", "std.correction",
               "var_mean", "var_mean.dim", "var_mean.correction",
               "std_mean.correction"},
           varStd);
  addRules(t, {"logsumexp"}, logsumexp);
  addRules(t, {"norm.ScalarOpt_dim", "linalg_vector_norm"}, norm);
  addRules(t, {"cumsum", "cumprod"}, scan);
  addRules(t, {"topk"}, topk);
  addRules(t, {"sort", "sort.stable", "argsort", "argsort.stable"}, sort);
  addRules(t, {"bucketize.Tensor", "bucketize.Scalar"}, bucketize);
}

} // namespace ptec::exir::rules
