//===- ShapeRulesCompositeElementwise.cpp - composite pointwise ops -------===//
//
// Rules of the composite pointwise operators that legalize-to-core-aten
// rewrites (passes/LegalizeElementwise.cpp; schemas in
// schema/aten/composite_elementwise.txt). Many are another name of an
// operator that already has a rule (divide is div, greater is gt, __and__ is
// bitwise_and): those take that rule, which reads the same argument names.
// The others are pointwise: the broadcast shape of their tensor operands and
// PyTorch's promoted dtype, or the default float for integer inputs of
// floating functions (xlogy, sinc, exp2), or bool (isposinf), or float64
// (float_power).
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ShapeRulesSupport.h"

using namespace mlir;

namespace ptec::exir::rules {
namespace {

enum class Kind { Promote, Float, Bool, Double };

/// Operands `names` (tensors or wrapped numbers): their broadcast shape and
/// the dtype `kind` gives for their promoted one.
LogicalResult pointwise(RuleContext &c, ArrayRef<StringRef> names, Kind kind) {
  SmallVector<ArrayRef<int64_t>> shapes;
  SmallVector<StringRef> shapeNames;
  ResultType rt;
  for (StringRef n : names) {
    if (RankedTensorType t = c.type(n)) {
      shapes.push_back(t.getShape());
      shapeNames.push_back(n);
      rt.add(t);
    } else if (std::optional<ScalarArg> s = c.scalar(n)) {
      rt.add(*s, c.context());
    } else {
      return c.fail("argument '" + n + "' is missing");
    }
  }
  Shape shape;
  if (failed(c.broadcast(shapes, shapeNames, shape)))
    return failure();
  Type dtype = rt.get();
  switch (kind) {
  case Kind::Promote:
    break;
  case Kind::Float:
    if (dtype && isIntegral(dtype, /*includeBool=*/true))
      dtype = c.defaultFloat();
    break;
  case Kind::Bool:
    dtype = c.boolType();
    break;
  case Kind::Double:
    if (dtype && isComplex(dtype))
      return c.fail("float_power of complex tensors is not supported");
    dtype = mlir::Float64Type::get(c.context());
    break;
  }
  return c.succeed(shape, dtype);
}

template <Kind K>
LogicalResult unary(RuleContext &c) {
  return pointwise(c, {"self"}, K);
}

template <Kind K>
LogicalResult binary(RuleContext &c) {
  return pointwise(c, {"self", "other"}, K);
}

LogicalResult floatPower(RuleContext &c) {
  return pointwise(c, {"self", "exponent"}, Kind::Double);
}

LogicalResult heaviside(RuleContext &c) {
  RankedTensorType a, v;
  if (failed(c.require("self", a)) || failed(c.require("values", v)) ||
      failed(c.sameDtype("self", a, "values", v)))
    return failure();
  return pointwise(c, {"self", "values"}, Kind::Promote);
}

/// logaddexp, logaddexp2: the promoted dtype must be floating.
LogicalResult floatingBinary(RuleContext &c) {
  if (failed(pointwise(c, {"self", "other"}, Kind::Promote)))
    return failure();
  Type d = c.results.back().dtype;
  if (d && !isFloating(d))
    return c.fail(c.getOp().getOpName() + " needs floating operands, got " + dtypeName(d));
  return success();
}

/// _cast_Byte, ...: the input's shape in the named dtype.
template <int Code>
LogicalResult castTo(RuleContext &c) {
  RankedTensorType t;
  if (failed(c.require("self", t)))
    return failure();
  static constexpr const char *names[] = {"uint8",  "int8",  "float64", "float32",
                                          "float16", "int32", "int64",   "int16"};
  return c.succeed(t.getShape(), dtypeNamed(c.context(), names[Code]));
}

LogicalResult logSigmoidForward(RuleContext &c, RankedTensorType t) {
  c.produce(Spec::like(t));
  return c.succeed(Spec::like(t)); // the CPU buffer: exp(-|x|)
}

/// Registers `names` under the rule of `existing`, which reads the same
/// argument names (the rule table is filled by then).
void sameRuleAs(RuleTable &t, std::initializer_list<const char *> names, StringRef existing) {
  auto it = t.find(("aten::" + existing).str());
  if (it == t.end())
    llvm::report_fatal_error("shape rule of aten::" + existing + " is not registered yet");
  addRules(t, names, it->second);
}

} // namespace

void addCompositeElementwiseRules(RuleTable &t) {
  // Other names of operators with rules.
  sameRuleAs(t, {"__and__.Tensor", "__and__.Scalar", "__or__.Tensor", "__or__.Scalar",
                 "__xor__.Tensor", "__xor__.Scalar", "__lshift__.Tensor", "__lshift__.Scalar",
                 "__rshift__.Tensor", "__rshift__.Scalar", "bitwise_left_shift.Scalar_Tensor",
                 "bitwise_right_shift.Scalar_Tensor"},
             "bitwise_and.Tensor");
  sameRuleAs(t, {"divide.Tensor", "divide.Scalar", "divide.Tensor_mode", "divide.Scalar_mode",
                 "true_divide.Tensor", "true_divide.Scalar"},
             "div.Tensor");
  sameRuleAs(t, {"multiply.Tensor", "multiply.Scalar"}, "mul.Tensor");
  sameRuleAs(t, {"subtract.Tensor", "subtract.Scalar"}, "sub.Tensor");
  sameRuleAs(t, {"greater.Tensor", "greater.Scalar", "greater_equal.Tensor",
                 "greater_equal.Scalar", "less.Tensor", "less.Scalar", "less_equal.Tensor",
                 "less_equal.Scalar", "not_equal.Tensor", "not_equal.Scalar"},
             "gt.Tensor");
  sameRuleAs(t, {"arctan2"}, "atan2");
  sameRuleAs(t, {"clip.Tensor"}, "clamp.Tensor");
  sameRuleAs(t, {"new_empty_strided"}, "new_empty");
  sameRuleAs(t, {"randint_like", "randint_like.low_dtype"}, "rand_like");
  sameRuleAs(t, {"empty_permuted"}, "empty.memory_format");
  // Unary ops that keep the dtype.
  addRules(t, {"celu", "selu", "softshrink", "hardshrink", "log_sigmoid", "rrelu", "nan_to_num",
               "frac", "fix", "sgn", "positive", "absolute", "negative", "special_round",
               "conj_physical", "real", "resolve_conj", "resolve_neg"},
           sameAsSelf);
  addRules(t, {"log_sigmoid_forward"}, onSelf<logSigmoidForward>);
  // Floating functions: integers give the default float.
  addRules(t, {"deg2rad", "rad2deg", "sinc", "erfc", "exp2", "arccos", "arcsin", "arctan",
               "arccosh", "arcsinh", "arctanh", "special_erfc", "special_exp2",
               "special_expit", "special_erf", "special_expm1", "special_log1p",
               "special_logit", "special_ndtr", "special_sinc", "special_entr", "angle"},
           unary<Kind::Float>);
  addRules(t, {"isposinf", "isneginf", "isreal"}, unary<Kind::Bool>);
  addRules(t, {"xlogy.Tensor", "xlogy.Scalar_Self", "xlogy.Scalar_Other", "special_xlogy",
               "special_xlogy.self_scalar", "special_xlogy.other_scalar", "special_xlog1py",
               "special_xlog1py.self_scalar", "special_xlog1py.other_scalar", "ldexp.Tensor"},
           binary<Kind::Float>);
  addRules(t, {"logaddexp", "logaddexp2"}, floatingBinary);
  addRules(t, {"fmax", "fmin"}, binary<Kind::Promote>);
  addRules(t, {"heaviside"}, heaviside);
  addRules(t, {"float_power.Tensor_Tensor", "float_power.Scalar", "float_power.Tensor_Scalar"},
           floatPower);
  addRules(t, {"tanh_backward", "sigmoid_backward"}, [](RuleContext &c) {
    return pointwise(c, {"grad_output", "output"}, Kind::Promote);
  });
  addRules(t, {"silu_backward", "logit_backward"}, [](RuleContext &c) {
    return pointwise(c, {"grad_output", "self"}, Kind::Promote);
  });
  // Registered to be refused by name (no kernel, no accurate decomposition).
  addRules(t, {"lgamma", "digamma", "polygamma", "mvlgamma", "erfinv", "i0", "special_i0e",
               "special_i1", "special_i1e", "special_log_ndtr", "special_erfcx"},
           unary<Kind::Float>);
  addRules(t, {"copysign.Tensor", "copysign.Scalar", "igamma", "igammac"}, binary<Kind::Float>);
  addRules(t, {"hypot", "nextafter"}, binary<Kind::Promote>);
  addRules(t, {"signbit"}, unary<Kind::Bool>);
  addRules(t, {"_cast_Byte"}, castTo<0>);
  addRules(t, {"_cast_Char"}, castTo<1>);
  addRules(t, {"_cast_Double"}, castTo<2>);
  addRules(t, {"_cast_Float"}, castTo<3>);
  addRules(t, {"_cast_Half"}, castTo<4>);
  addRules(t, {"_cast_Int"}, castTo<5>);
  addRules(t, {"_cast_Long"}, castTo<6>);
  addRules(t, {"_cast_Short"}, castTo<7>);
}

} // namespace ptec::exir::rules
