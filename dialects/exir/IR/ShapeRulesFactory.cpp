//===- ShapeRulesFactory.cpp - factories, conversions, copies, asserts ----===//
//
// Factories produce the size they are given, with the given dtype or the
// default one (float32; int64 for integer aranges, the fill value's kind for
// full); `_like` and `new_` forms default to their input's dtype. Conversions
// keep the shape and change the dtype. Ops that return numbers (item, size,
// the executorch_prim scalar ops) must not be declared as tensors.
// _assert_tensor_metadata is checked against its operand.
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ShapeRulesSupport.h"

#include <cmath>

using namespace mlir;

namespace ptec::exir::rules {
namespace {

LogicalResult sizeArg(RuleContext &c, StringRef name, Shape &out) {
  out = c.getInts(name);
  for (int64_t d : out)
    if (d < 0)
      return c.fail("'" + name + "' " + describeShape(out) + " has a negative size");
  return success();
}

/// The dtype argument, else `dflt`; unknown when the (out-variant) schema
/// has no dtype argument: the out tensor says it.
Type dtypeOr(RuleContext &c, Type dflt) {
  if (!c.has("dtype"))
    return {};
  Type d = c.dtype("dtype");
  return d ? d : dflt;
}

LogicalResult sized(RuleContext &c) {
  Shape size;
  if (failed(sizeArg(c, "size", size)))
    return failure();
  if (c.has("stride") && c.getInts("stride").size() != size.size())
    return c.fail("'size' and 'stride' must have the same length");
  return c.succeed(size, dtypeOr(c, c.defaultFloat()));
}

LogicalResult full(RuleContext &c) {
  Shape size;
  if (failed(sizeArg(c, "size", size)))
    return failure();
  std::optional<ScalarArg> v = c.scalar("fill_value");
  Type inferred = !v ? Type()
                  : v->isBool() ? c.boolType()
                  : v->isFloat() ? c.defaultFloat()
                                 : c.i64();
  return c.succeed(size, dtypeOr(c, inferred));
}

LogicalResult like(RuleContext &c, RankedTensorType t) {
  return c.succeed(t.getShape(), dtypeOr(c, t.getElementType()));
}

LogicalResult newSized(RuleContext &c, RankedTensorType t) {
  Shape size;
  if (failed(sizeArg(c, "size", size)))
    return failure();
  return c.succeed(size, dtypeOr(c, t.getElementType()));
}

LogicalResult arange(RuleContext &c) {
  ScalarArg zero, one;
  one.i = 1;
  std::optional<ScalarArg> start = c.has("start") ? c.scalar("start") : zero;
  std::optional<ScalarArg> end = c.scalar("end");
  std::optional<ScalarArg> step = c.has("step") ? c.scalar("step") : one;
  if (!start || !end || !step)
    return c.fail("arange needs numeric start, end and step");
  bool anyFloat = start->isFloat() || end->isFloat() || step->isFloat();
  Type dtype = dtypeOr(c, anyFloat ? c.defaultFloat() : c.i64());
  double s = start->value(), e = end->value(), st = step->value();
  if (st == 0)
    return c.fail("arange step must not be zero");
  if ((st > 0 && e < s) || (st < 0 && e > s))
    return c.fail("arange bounds [" + num(s) + ", " + num(e) +
                  ") are inconsistent with the step " + num(st));
  int64_t n;
  if (dtype ? dtype.isInteger(64) : !anyFloat) {
    // int64 results count with the bounds truncated to integers.
    std::optional<int64_t> is = toInt64(s), ie = toInt64(e), ist = toInt64(st);
    if (!is || !ie || !ist)
      return c.fail("arange bounds do not fit an int64 result");
    if (*ist == 0)
      return c.fail("arange step truncates to zero for an int64 result");
    int64_t sgn = (*ist > 0) - (*ist < 0);
    n = addSat(subSat(*ie, *is), *ist - sgn) / *ist;
  } else {
    std::optional<int64_t> count = toInt64(std::ceil((e - s) / st));
    if (!count)
      return c.fail("arange of [" + num(s) + ", " + num(e) + ") by " + num(st) +
                    " has no finite length");
    n = *count;
  }
  return c.succeed({std::max<int64_t>(n, 0)}, dtype);
}

/// A factory of `rank` dims, each as large as integer argument `name` (a
/// count, called `what` in the message), of dtype `dflt` by default.
LogicalResult counted(RuleContext &c, StringRef name, StringRef what, size_t rank,
                      Type dflt) {
  int64_t n = c.getInt(name);
  if (n < 0)
    return c.fail(what + " must not be negative, got " + llvm::Twine(n));
  return c.succeed(Shape(rank, n), dtypeOr(c, dflt));
}

LogicalResult linspace(RuleContext &c) {
  return counted(c, "steps", "the number of steps", 1, c.defaultFloat());
}

LogicalResult eye(RuleContext &c) { return counted(c, "n", "n", 2, c.defaultFloat()); }

LogicalResult scalarTensor(RuleContext &c) {
  return c.succeed({}, dtypeOr(c, c.defaultFloat()));
}

LogicalResult randperm(RuleContext &c) { return counted(c, "n", "n", 1, c.i64()); }

LogicalResult randint(RuleContext &c) {
  Shape size;
  if (failed(sizeArg(c, "size", size)))
    return failure();
  int64_t low = c.has("low") ? c.getInt("low") : 0, high = c.getInt("high");
  if (low >= high)
    return c.fail("randint needs low < high, got [" + llvm::Twine(low) + ", " +
                  llvm::Twine(high) + ")");
  return c.succeed(size, dtypeOr(c, c.i64()));
}

LogicalResult bernoulli(RuleContext &c, RankedTensorType t) {
  if (std::optional<double> p = c.optFloat("p"); p && (*p < 0 || *p > 1))
    return c.fail("p must be in [0, 1], got " + num(*p));
  return c.succeed(Spec::like(t));
}

LogicalResult fill(RuleContext &c) {
  RankedTensorType t, value = c.type("value");
  if (failed(c.require("self", t)))
    return failure();
  if (value && value.getRank() != 0)
    return c.fail("'value' must be a 0-dim tensor, got " + describe(value));
  return c.succeed(Spec::like(t));
}

LogicalResult resize(RuleContext &c, RankedTensorType t) {
  Shape size;
  if (failed(sizeArg(c, "size", size)))
    return failure();
  return c.succeed(size, t.getElementType());
}

LogicalResult convert(RuleContext &c, RankedTensorType t) {
  Type dtype = t.getElementType();
  if (RankedTensorType other = c.type("other"))
    dtype = other.getElementType();
  else
    dtype = dtypeOr(c, dtype); // unknown for _to_copy.out: its out tensor says
  return c.succeed(t.getShape(), dtype);
}

/// copy(self, src): src is expanded to self's shape and cast to its dtype.
LogicalResult copy(RuleContext &c) {
  RankedTensorType self, src;
  if (failed(c.require("self", self)) || failed(c.require("src", src)))
    return failure();
  Shape b;
  if (failed(c.broadcast({src.getShape(), self.getShape()}, {"src", "self"}, b)))
    return failure();
  if (ArrayRef<int64_t>(b) != self.getShape())
    return c.fail("'src' " + describe(src) + " does not broadcast to 'self' " +
                  describe(self));
  return c.succeed(Spec::like(self));
}

/// quantized_decomposed: scale/zero_point parameters of a per-tensor op are
/// one element; per-channel ones have one entry per channel of `axis`.
LogicalResult quantParams(RuleContext &c, RankedTensorType in) {
  int64_t qmin = c.getInt("quant_min"), qmax = c.getInt("quant_max");
  if (qmin > qmax)
    return c.fail("quant_min (" + llvm::Twine(qmin) + ") is larger than quant_max (" +
                  llvm::Twine(qmax) + ")");
  if (!c.has("axis")) {
    for (StringRef n : {"scale", "zero_point"})
      if (RankedTensorType t = c.type(n); t && numel(t.getShape()) != 1)
        return c.fail("'" + n + "' must have one element, got " + describe(t));
    return success();
  }
  int64_t axis;
  if (failed(c.dimArg("axis", in.getRank(), axis)))
    return failure();
  int64_t channels = in.getRank() ? in.getDimSize(axis) : 1;
  for (StringRef n : {"scales", "zero_points"})
    if (RankedTensorType t = c.type(n);
        t && (t.getRank() != 1 || t.getDimSize(0) != channels))
      return c.fail("'" + n + "' " + describe(t) + " must have one entry per channel (" +
                    llvm::Twine(channels) + ")");
  return success();
}

LogicalResult quantize(RuleContext &c) {
  RankedTensorType in;
  if (failed(c.require("input", in)) || failed(quantParams(c, in)))
    return failure();
  if (!isFloating(in.getElementType()))
    return c.fail("quantize needs a floating 'input', got " + describe(in));
  return c.succeed(in.getShape(), c.dtype("dtype"));
}

LogicalResult dequantize(RuleContext &c) {
  RankedTensorType in;
  if (failed(c.require("input", in)) || failed(quantParams(c, in)))
    return failure();
  if (Type d = c.dtype("dtype"); d && d != in.getElementType())
    return c.fail("'input' " + describe(in) + " must have the quantized dtype " +
                  dtypeName(d));
  Type out = c.dtype("out_dtype");
  return c.succeed(in.getShape(), out ? out : c.defaultFloat());
}

/// A dim order must be a permutation of 0..rank-1.
LogicalResult dimOrder(RuleContext &c, int64_t rank) {
  std::optional<Shape> order = c.optInts("dim_order");
  if (!order)
    return success();
  SmallVector<bool> seen(rank, false);
  bool ok = static_cast<int64_t>(order->size()) == rank;
  for (int64_t d : *order) {
    if (!ok || d < 0 || d >= rank || seen[d]) {
      ok = false;
      break;
    }
    seen[d] = true;
  }
  if (!ok)
    return c.fail("dim_order " + describeShape(*order) + " is not a permutation of 0.." +
                  llvm::Twine(rank - 1));
  return success();
}

LogicalResult toDimOrderCopy(RuleContext &c, RankedTensorType t) {
  if (failed(dimOrder(c, t.getRank())))
    return failure();
  bool clone = c.getOp().getOpName().contains("_clone_dim_order");
  return c.succeed(t.getShape(), clone ? t.getElementType() : dtypeOr(c, t.getElementType()));
}

LogicalResult emptyDimOrder(RuleContext &c) {
  Shape size;
  if (failed(sizeArg(c, "size", size)) || failed(dimOrder(c, size.size())))
    return failure();
  return c.succeed(size, dtypeOr(c, c.defaultFloat()));
}

/// Ops that return numbers or nothing: tensor arguments are still checked.
LogicalResult returnsNumber(RuleContext &c) {
  if (RankedTensorType t = c.type("self"); t && c.has("dim")) {
    int64_t dim;
    if (failed(c.dimArg("dim", t.getRank(), dim)))
      return failure();
  }
  return c.succeed(Spec::scalarValue());
}

LogicalResult returnsNothing(RuleContext &) { return success(); }

LogicalResult functionalAssert(RuleContext &c) {
  c.produce(Spec::anyRank({})); // the dependency token
  return success();
}

LogicalResult assertMetadata(RuleContext &c) {
  RankedTensorType t;
  if (failed(c.require("a", t)))
    return failure();
  if (std::optional<Shape> size = c.optInts("size");
      size && ArrayRef<int64_t>(*size) != t.getShape())
    return c.fail("the tensor is " + describe(t) + ", but the program asserts size " +
                  describeShape(*size));
  if (Type d = c.dtype("dtype"); d && d != t.getElementType())
    return c.fail("the tensor is " + describe(t) + ", but the program asserts dtype " +
                  dtypeName(d));
  return success();
}

} // namespace

void addFactoryRules(RuleTable &t) {
  addRules(t, {"zeros", "ones", "empty.memory_format", "empty_strided", "rand",
               "rand.generator", "randn", "randn.generator"},
           sized);
  addRules(t, {"full"}, full);
  addRules(t, {"zeros_like", "ones_like", "empty_like", "full_like", "rand_like",
               "randn_like"},
           onSelf<like>);
  addRules(t, {"new_zeros", "new_ones", "new_empty", "new_full"}, onSelf<newSized>);
  addRules(t, {"arange", "arange.start", "arange.start_step"}, arange);
  addRules(t, {"linspace"}, linspace);
  addRules(t, {"eye"}, eye);
  addRules(t, {"scalar_tensor"}, scalarTensor);
  addRules(t, {"randperm"}, randperm);
  addRules(t, {"randint", "randint.low"}, randint);
  addRules(t, {"bernoulli", "bernoulli.p"}, onSelf<bernoulli>);
  addRules(t, {"fill.Scalar", "fill.Tensor", "zero"}, fill);
  addRules(t, {"resize_"}, onSelf<resize>);
  addRules(t, {"_to_copy", "to.dtype", "to.dtype_layout", "to.device", "to.other",
               "type_as"},
           onSelf<convert>);
  addRules(t, {"copy"}, copy);
  // One memory space: a device copy is a plain copy.
  addRules(t, {"et_copy::_h2d_copy", "et_copy::_d2h_copy"}, sameAsSelf);
  addRules(t, {"quantized_decomposed::quantize_per_tensor",
               "quantized_decomposed::quantize_per_tensor.tensor",
               "quantized_decomposed::quantize_per_channel"},
           quantize);
  addRules(t, {"quantized_decomposed::dequantize_per_tensor",
               "quantized_decomposed::dequantize_per_tensor.tensor",
               "quantized_decomposed::dequantize_per_channel"},
           dequantize);
  addRules(t, {"dim_order_ops::_to_dim_order_copy", "dim_order_ops::_clone_dim_order"},
           onSelf<toDimOrderCopy>);
  addRules(t, {"dim_order_ops::_empty_dim_order"}, emptyDimOrder);
  addRules(t, {"_local_scalar_dense", "item", "sym_size.int", "sym_stride.int",
               "sym_numel", "sym_storage_offset", "size.int", "stride.int", "numel",
               "dim", "allclose", "equal", "__getitem__.t",
               "executorch_prim::add.Scalar", "executorch_prim::sub.Scalar",
               "executorch_prim::mul.Scalar", "executorch_prim::floordiv.Scalar",
               "executorch_prim::truediv.Scalar", "executorch_prim::sym_float.Scalar",
               "executorch_prim::gt.Scalar", "executorch_prim::lt.Scalar",
               "executorch_prim::ge.Scalar", "executorch_prim::le.Scalar",
               "executorch_prim::eq.Scalar", "executorch_prim::mod.Scalar",
               "executorch_prim::neg.Scalar"},
           returnsNumber);
  addRules(t, {"_assert_async", "_assert_async.msg", "_assert_scalar",
               "sym_constrain_range", "sym_constrain_range_for_size",
               "_foreach_add_.Scalar"},
           returnsNothing);
  addRules(t, {"_functional_assert_async.msg"}, functionalAssert);
  addRules(t, {"_assert_tensor_metadata"}, assertMetadata);
}

} // namespace ptec::exir::rules
