//===- ShapeRulesElementwise.cpp - pointwise operators --------------------===//
//
// Unary, binary and ternary pointwise ops, activations and softmax: the
// result has the broadcast shape of the tensor operands and the dtype of
// PyTorch's type promotion (or bool for comparisons, or the default float
// for integer inputs of floating functions such as sin or true division).
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ShapeRulesSupport.h"

using namespace mlir;

namespace ptec::exir::rules {
namespace {

/// One operand of a pointwise op: a tensor or a wrapped Python number.
struct Operand {
  StringRef name;
  RankedTensorType tensor;
  std::optional<ScalarArg> scalar;
};

LogicalResult getOperands(RuleContext &c, ArrayRef<StringRef> names,
                          SmallVectorImpl<Operand> &out) {
  for (StringRef n : names) {
    Operand o{n, c.type(n), std::nullopt};
    if (!o.tensor)
      o.scalar = c.scalar(n);
    if (!o.tensor && !o.scalar)
      return c.fail("argument '" + n + "' is missing");
    out.push_back(o);
  }
  return success();
}

/// Broadcast shape of the tensor operands and their promoted dtype.
LogicalResult combine(RuleContext &c, ArrayRef<Operand> ops, Shape &shape,
                      Type &dtype) {
  SmallVector<ArrayRef<int64_t>> shapes;
  SmallVector<StringRef> names;
  ResultType rt;
  for (const Operand &o : ops) {
    if (o.tensor) {
      shapes.push_back(o.tensor.getShape());
      names.push_back(o.name);
      rt.add(o.tensor);
    } else {
      rt.add(*o.scalar, c.context());
    }
  }
  dtype = rt.get();
  return c.broadcast(shapes, names, shape);
}

/// The promoted dtype of `ops`, without their shapes.
Type promotedDtype(RuleContext &c, ArrayRef<Operand> ops) {
  ResultType rt;
  for (const Operand &o : ops) {
    if (o.tensor)
      rt.add(o.tensor);
    else
      rt.add(*o.scalar, c.context());
  }
  return rt.get();
}

enum class Result { Promote, Float, Bool };

/// Integral (and bool) results of floating functions are the default float.
Type floatResult(RuleContext &c, Type t) {
  return t && isIntegral(t, /*includeBool=*/true) ? c.defaultFloat() : t;
}

LogicalResult pointwise(RuleContext &c, ArrayRef<StringRef> names, Result kind,
                        Type *promoted = nullptr) {
  SmallVector<Operand> ops;
  Shape shape;
  Type dtype;
  if (failed(getOperands(c, names, ops)) || failed(combine(c, ops, shape, dtype)))
    return failure();
  if (promoted)
    *promoted = dtype;
  if (kind == Result::Bool)
    dtype = c.boolType();
  else if (kind == Result::Float)
    dtype = floatResult(c, dtype);
  return c.succeed(shape, dtype);
}

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

LogicalResult unaryFloat(RuleContext &c) {
  return pointwise(c, {"self"}, Result::Float);
}

LogicalResult unaryBool(RuleContext &c) {
  return pointwise(c, {"self"}, Result::Bool);
}

LogicalResult bitwiseNot(RuleContext &c, RankedTensorType t) {
  if (!isIntegral(t.getElementType(), /*includeBool=*/true))
    return c.fail("bitwise_not needs an integer or bool tensor, got " +
                  dtypeName(t.getElementType()));
  return c.succeed(Spec::like(t));
}

/// square is pow(self, 2): bool becomes int64.
LogicalResult square(RuleContext &c, RankedTensorType t) {
  return c.succeed(t.getShape(), isBool(t.getElementType()) ? c.i64() : t.getElementType());
}

LogicalResult gelu(RuleContext &c) {
  std::optional<std::string> a = c.str("approximate");
  if (a && *a != "none" && *a != "tanh")
    return c.fail("approximate must be 'none' or 'tanh', got '" + *a + "'");
  return sameAsSelf(c);
}

LogicalResult glu(RuleContext &c, RankedTensorType t, int64_t dim) {
  Shape shape(t.getShape());
  if (shape[dim] % 2 != 0)
    return c.fail("glu halves dim " + llvm::Twine(dim) + ", whose size " +
                  llvm::Twine(shape[dim]) + " is odd");
  shape[dim] /= 2;
  return c.succeed(shape, t.getElementType());
}

LogicalResult prelu(RuleContext &c) {
  RankedTensorType t, w;
  if (failed(c.require("self", t)) || failed(c.require("weight", w)) ||
      failed(c.requireRank("weight", w, 0, 1)))
    return failure();
  int64_t channels = t.getRank() >= 2 ? t.getDimSize(1) : 1;
  int64_t n = numel(w.getShape());
  if (n != 1 && n != channels)
    return c.fail("'weight' has " + llvm::Twine(n) +
                  " elements; expected 1 or the number of channels (" +
                  llvm::Twine(channels) + ")");
  return c.succeed(Spec::like(t));
}

LogicalResult dropout(RuleContext &c) {
  RankedTensorType t;
  if (failed(c.require(c.has("input") ? "input" : "self", t)))
    return failure();
  double p = c.getFloat("p");
  if (p < 0 || p > 1)
    return c.fail("dropout probability must be between 0 and 1, got " + num(p));
  c.produce(Spec::like(t));
  if (c.getOp().getOpName().contains("native_dropout"))
    c.produce(t.getShape(), c.boolType());
  return success();
}

LogicalResult tril(RuleContext &c, RankedTensorType t) {
  if (failed(c.requireRank("self", t, 2, kMaxTensorRank)))
    return failure();
  return c.succeed(Spec::like(t));
}

LogicalResult softmax(RuleContext &c, RankedTensorType t) {
  int64_t dim;
  if (failed(c.dimArg("dim", t.getRank(), dim)))
    return failure();
  Type e = t.getElementType();
  if (c.has("half_to_float") && c.getBool("half_to_float")) {
    if (!e.isF16())
      return c.fail("half_to_float needs a float16 input, got " + dtypeName(e));
    e = c.f32();
  }
  if (Type d = c.dtype("dtype"))
    e = d;
  return c.succeed(t.getShape(), e);
}

LogicalResult softmaxBackward(RuleContext &c) {
  RankedTensorType g, o;
  int64_t dim;
  if (failed(c.require("grad_output", g)) || failed(c.require("output", o)) ||
      failed(c.dimArg("dim", g.getRank(), dim)))
    return failure();
  if (g.getShape() != o.getShape())
    return c.fail("'grad_output' " + describe(g) + " and 'output' " + describe(o) +
                  " must have the same shape");
  return c.succeed(g.getShape(), c.dtype("input_dtype") ? c.dtype("input_dtype")
                                                        : g.getElementType());
}

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

/// add/sub/rsub: alpha may not be a float for integral results, nor a bool
/// for non-bool ones.
LogicalResult checkAlpha(RuleContext &c, Type result) {
  std::optional<ScalarArg> alpha = c.scalar("alpha");
  if (!alpha || !result)
    return success();
  if (alpha->isFloat() && isIntegral(result, /*includeBool=*/true))
    return c.fail("alpha must not be a floating point number for integral "
                  "operands (result dtype " + dtypeName(result) + ")");
  if (alpha->isBool() && !isBool(result))
    return c.fail("a bool alpha needs bool operands");
  return success();
}

LogicalResult add(RuleContext &c) {
  if (failed(pointwise(c, {"self", "other"}, Result::Promote)))
    return failure();
  return checkAlpha(c, c.results.back().dtype);
}

/// sub and rsub refuse bool operands (PyTorch points to logical_not / xor).
LogicalResult sub(RuleContext &c) {
  for (StringRef n : {"self", "other"}) {
    RankedTensorType t = c.type(n);
    std::optional<ScalarArg> s = t ? std::nullopt : c.scalar(n);
    if ((t && isBool(t.getElementType())) || (s && s->isBool()))
      return c.fail("subtraction with a bool operand is not supported; use "
                    "logical_not or logical_xor");
  }
  return add(c);
}

LogicalResult promote2(RuleContext &c) {
  return pointwise(c, {"self", "other"}, Result::Promote);
}

LogicalResult compare2(RuleContext &c) {
  return pointwise(c, {"self", "other"}, Result::Bool);
}

LogicalResult div(RuleContext &c) {
  std::optional<std::string> mode = c.str("rounding_mode");
  if (mode && *mode != "trunc" && *mode != "floor")
    return c.fail("rounding_mode must be None, 'trunc' or 'floor', got '" + *mode + "'");
  // True division of integers gives the default float; rounded division
  // keeps the promoted dtype.
  return pointwise(c, {"self", "other"}, mode ? Result::Promote : Result::Float);
}

LogicalResult atan2(RuleContext &c) {
  return pointwise(c, {"self", "other"}, Result::Float);
}

LogicalResult bitwise(RuleContext &c) {
  Type promoted;
  if (failed(pointwise(c, {"self", "other"}, Result::Promote, &promoted)))
    return failure();
  if (promoted && !isIntegral(promoted, /*includeBool=*/true))
    return c.fail("bitwise operators need integer or bool operands, got " +
                  dtypeName(promoted));
  return success();
}

LogicalResult pow(RuleContext &c) {
  StringRef base = "self", exp = "exponent";
  if (failed(pointwise(c, {base, exp}, Result::Promote)))
    return failure();
  RankedTensorType t = c.type(base);
  std::optional<ScalarArg> e = c.type(exp) ? std::nullopt : c.scalar(exp);
  if (t && e && !e->isFloat() && !e->isBool() && e->i < 0 &&
      isIntegral(t.getElementType(), /*includeBool=*/true))
    return c.fail("integers to negative integer powers are not allowed");
  return success();
}

LogicalResult isclose(RuleContext &c) {
  RankedTensorType a, b;
  if (failed(c.require("self", a)) || failed(c.require("other", b)) ||
      failed(c.sameDtype("self", a, "other", b)))
    return failure();
  if (c.getFloat("rtol") < 0 || c.getFloat("atol") < 0)
    return c.fail("rtol and atol must not be negative");
  return pointwise(c, {"self", "other"}, Result::Bool);
}

LogicalResult backward2(RuleContext &c) {
  return pointwise(c, {"grad_output", "self"}, Result::Promote);
}

//===----------------------------------------------------------------------===//
// Ternary and clamps
//===----------------------------------------------------------------------===//

LogicalResult where(RuleContext &c) {
  RankedTensorType cond;
  if (failed(c.require("condition", cond)))
    return failure();
  Type e = cond.getElementType();
  if (!isBool(e) && !(isIntegral(e, false) && e.isUnsignedInteger(8)))
    return c.fail("'condition' must be a bool tensor, got " + dtypeName(e));
  SmallVector<Operand> ops;
  Shape shape;
  Type unused;
  if (failed(getOperands(c, {"condition", "self", "other"}, ops)) ||
      failed(combine(c, ops, shape, unused)))
    return failure();
  return c.succeed(shape, promotedDtype(c, ArrayRef<Operand>(ops).drop_front()));
}

/// where(condition): the indices of the nonzero elements, one 1-D int64
/// tensor per dim; their length depends on the values.
LogicalResult whereIndices(RuleContext &c) {
  RankedTensorType cond;
  if (failed(c.require("condition", cond)))
    return failure();
  for (int64_t i = 0; i < std::max<int64_t>(cond.getRank(), 1); ++i)
    c.produce({kDataDependent}, c.i64());
  return success();
}

LogicalResult clampScalars(RuleContext &c, RankedTensorType t) {
  SmallVector<StringRef> names = {"self"};
  for (StringRef n : {"min", "max"})
    if (c.has(n) && !c.isNone(n))
      names.push_back(n);
  if (names.size() == 1)
    return c.fail("at least one of 'min' and 'max' must not be None");
  if (isComplex(t.getElementType()))
    return c.fail("clamp does not support complex tensors");
  if (isFloating(t.getElementType())) // floating is the highest category
    return c.succeed(Spec::like(t));
  return pointwise(c, names, Result::Promote);
}

LogicalResult clampTensors(RuleContext &c) {
  SmallVector<StringRef> names = {"self"};
  for (StringRef n : {"min", "max"})
    if (c.type(n))
      names.push_back(n);
  if (names.size() == 1)
    return c.fail("at least one of 'min' and 'max' must not be None");
  return pointwise(c, names, Result::Promote);
}

LogicalResult clampMinMaxTensor(RuleContext &c) {
  StringRef other = c.has("min") ? "min" : "max";
  return pointwise(c, {"self", other}, Result::Promote);
}

LogicalResult addcmul(RuleContext &c) {
  if (failed(pointwise(c, {"self", "tensor1", "tensor2"}, Result::Promote)))
    return failure();
  RankedTensorType a = c.type("tensor1"), b = c.type("tensor2");
  if (c.getOp().getOpName().contains("addcdiv") && a && b &&
      isIntegral(a.getElementType(), true) && isIntegral(b.getElementType(), true))
    return c.fail("integer division with addcdiv is not supported");
  return success();
}

LogicalResult lerp(RuleContext &c) {
  RankedTensorType self, end, weight = c.type("weight");
  if (failed(c.require("self", self)) || failed(c.require("end", end)) ||
      failed(c.sameDtype("self", self, "end", end)) ||
      (weight && failed(c.sameDtype("self", self, "weight", weight))))
    return failure();
  return pointwise(c, weight ? ArrayRef<StringRef>{"self", "end", "weight"}
                             : ArrayRef<StringRef>{"self", "end"},
                   Result::Promote);
}

LogicalResult maskedFill(RuleContext &c) {
  RankedTensorType self, mask, value = c.type("value");
  if (failed(c.require("self", self)) || failed(c.require("mask", mask)))
    return failure();
  if (!isBool(mask.getElementType()))
    return c.fail("'mask' must be a bool tensor, got " + dtypeName(mask.getElementType()));
  if (value && value.getRank() != 0)
    return c.fail("'value' must be a 0-dim tensor, got " + describe(value));
  Shape shape;
  if (failed(c.broadcast({self.getShape(), mask.getShape()}, {"self", "mask"}, shape)))
    return failure();
  return c.succeed(shape, self.getElementType());
}

} // namespace

void addElementwiseRules(RuleTable &t) {
  addRules(t, {"abs", "neg", "sign", "ceil", "floor", "round", "round.decimals",
               "trunc", "relu", "relu6", "hardtanh", "leaky_relu", "elu",
               "softplus", "threshold", "_conj_physical", "silu", "mish",
               "hardswish", "hardsigmoid"},
           sameAsSelf);
  addRules(t, {"acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh",
               "erf", "exp", "expm1", "log", "log10", "log1p", "log2", "rsqrt",
               "sigmoid", "sin", "sinh", "sqrt", "tan", "tanh", "reciprocal",
               "logit"},
           unaryFloat);
  addRules(t, {"logical_not", "isinf", "isnan", "isfinite"}, unaryBool);
  addRules(t, {"bitwise_not"}, onSelf<bitwiseNot>);
  addRules(t, {"square"}, onSelf<square>);
  addRules(t, {"gelu"}, gelu);
  addRules(t, {"glu"}, onSelfAndDim<glu>);
  addRules(t, {"prelu"}, prelu);
  addRules(t, {"_prelu_kernel"}, [](RuleContext &c) {
    return pointwise(c, {"self", "weight"}, Result::Promote);
  });
  addRules(t, {"dropout", "dropout_", "feature_dropout", "alpha_dropout",
               "feature_alpha_dropout", "native_dropout"},
           dropout);
  addRules(t, {"native_dropout_backward"}, [](RuleContext &c) {
    if (failed(pointwise(c, {"grad_output", "mask"}, Result::Promote)))
      return failure();
    c.results.back().dtype = c.type("grad_output").getElementType();
    return success();
  });
  addRules(t, {"tril", "triu"}, onSelf<tril>);
  addRules(t, {"_softmax", "_log_softmax", "softmax.int", "log_softmax.int"}, onSelf<softmax>);
  addRules(t, {"_softmax_backward_data", "_log_softmax_backward_data"},
           softmaxBackward);

  addRules(t, {"add.Tensor", "add.Scalar"}, add);
  addRules(t, {"sub.Tensor", "sub.Scalar", "rsub.Tensor", "rsub.Scalar"}, sub);
  addRules(t, {"mul.Tensor", "mul.Scalar", "floor_divide", "floor_divide.Scalar",
               "remainder.Scalar", "remainder.Tensor", "remainder.Scalar_Tensor",
               "fmod.Scalar", "fmod.Tensor", "maximum", "minimum", "max.other",
               "min.other"},
           promote2);
  addRules(t, {"div.Tensor", "div.Scalar", "div.Tensor_mode", "div.Scalar_mode"}, div);
  addRules(t, {"atan2"}, atan2);
  addRules(t, {"bitwise_and.Tensor", "bitwise_and.Scalar", "bitwise_and.Scalar_Tensor",
               "bitwise_or.Tensor", "bitwise_or.Scalar", "bitwise_or.Scalar_Tensor",
               "bitwise_xor.Tensor", "bitwise_xor.Scalar", "bitwise_xor.Scalar_Tensor",
               "bitwise_left_shift.Tensor", "bitwise_right_shift.Tensor",
               "bitwise_left_shift.Tensor_Scalar", "bitwise_right_shift.Tensor_Scalar"},
           bitwise);
  addRules(t, {"pow.Tensor_Tensor", "pow.Tensor_Scalar", "pow.Scalar"}, pow);
  addRules(t, {"eq.Scalar", "eq.Tensor", "ne.Scalar", "ne.Tensor", "ge.Scalar",
               "ge.Tensor", "gt.Scalar", "gt.Tensor", "le.Scalar", "le.Tensor",
               "lt.Scalar", "lt.Tensor", "logical_and", "logical_or", "logical_xor"},
           compare2);
  addRules(t, {"isclose"}, isclose);
  addRules(t, {"gelu_backward", "threshold_backward"}, backward2);

  addRules(t, {"where.self", "where.ScalarSelf", "where.ScalarOther", "where.Scalar"},
           where);
  addRules(t, {"where"}, whereIndices);
  addRules(t, {"clamp", "clip", "clamp_min", "clamp_max"}, onSelf<clampScalars>);
  addRules(t, {"clamp.Tensor"}, clampTensors);
  addRules(t, {"clamp_min.Tensor", "clamp_max.Tensor"}, clampMinMaxTensor);
  addRules(t, {"addcmul", "addcdiv"}, addcmul);
  addRules(t, {"lerp.Scalar", "lerp.Tensor"}, lerp);
  addRules(t, {"masked_fill.Scalar", "masked_fill.Tensor"}, maskedFill);
}

} // namespace ptec::exir::rules
