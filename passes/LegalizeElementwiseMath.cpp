//===- LegalizeElementwiseMath.cpp - pointwise math into core ops ---------===//
//
// legalize-to-core-aten decompositions of the composite pointwise math that
// torch.export keeps (square, mish, softplus, logaddexp, xlogy, nan_to_num,
// lerp, addcmul, isclose, where with numbers, ...) into pointwise core ops
// with portable kernels. Each follows PyTorch's own decomposition
// (torch/_refs, torch/_decomp) or, where its CPU kernel computes otherwise,
// the kernel: the same operation order, NaN and infinity behaviour and
// result dtype. Operands are first converted to the result dtype, as
// PyTorch's type promotion does; float16/bfloat16 math runs in float32 and
// is rounded once at the end, as PyTorch's CPU kernels do.
//
//===----------------------------------------------------------------------===//

#include "passes/LegalizeElementwise.h"

#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <limits>
#include <optional>

namespace ptec::legalize::elementwise {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// A Scalar argument's value (bool, int or float attribute).
std::optional<double> scalarArg(Legalizer &L, StringRef name) {
  Attribute a = L.op->getAttr(name);
  if (auto b = llvm::dyn_cast_or_null<BoolAttr>(a))
    return b.getValue() ? 1.0 : 0.0;
  if (auto i = llvm::dyn_cast_or_null<IntegerAttr>(a))
    return static_cast<double>(i.getInt());
  if (auto f = llvm::dyn_cast_or_null<FloatAttr>(a))
    return f.getValueAsDouble();
  return std::nullopt;
}

double scalarArg(Legalizer &L, StringRef name, double dflt) {
  return scalarArg(L, name).value_or(dflt);
}

/// Operand `name` of the op: a tensor converted to `dtype`, or the number
/// the op takes in its place (the `Scalar self` / `Scalar other` overloads)
/// as a 0-dim tensor of `dtype`.
Value operandAs(Chain &c, StringRef name, Type dtype) {
  if (Value v = c.L.operand(name))
    return c.cast(v, dtype);
  Attribute a = c.L.op->getAttr(name);
  if (!a || llvm::isa<exir::NoneAttr>(a)) {
    c.L.op.emitError("internal: '") << c.L.op.getOpName() << "' has no argument '" << name
                                    << "'";
    return {};
  }
  return c.constant(a, dtype);
}

Type resultDtype(Legalizer &L) { return L.resultType().getElementType(); }

/// `v` as PyTorch compares it with a tensor of float type `t`: converted to
/// `t` first (a Scalar does not promote a tensor's dtype). Kernels may
/// compare in double; 0.1 and 0.1f then differ.
double inDtype(double v, Type t) {
  auto ft = llvm::dyn_cast<FloatType>(t);
  if (!ft || ft.isF64())
    return v;
  llvm::APFloat f(v);
  bool lost = false;
  f.convert(ft.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return f.convertToDouble();
}

LogicalResult needsFloat(Legalizer &L, Type t) {
  if (isFloatType(t))
    return success();
  return L.refuse("is only defined for floating-point tensors here");
}

/// softplus(x) with `beta` and `threshold`: x where beta*x > threshold, else
/// log1p(exp(beta*x)) / beta (PyTorch's CPU kernel).
Value softplusOf(Chain &c, Value x, double beta, double threshold) {
  Value bx = beta == 1.0 ? x : c.withScalar("aten::mul.Scalar", x, beta);
  Value sp = c.unary("aten::log1p", c.unary("aten::exp", bx));
  if (beta != 1.0)
    sp = c.withScalar("aten::div.Scalar", sp, beta);
  return c.where(c.withScalar("aten::gt.Scalar", bx, inDtype(threshold, elementType(x))), x, sp);
}

// ---- Activations.

LogicalResult square(Legalizer &L) {
  Chain c(L);
  Value x = c.cast(L.operand("self"), resultDtype(L)); // bool squares as int64
  return c.finish(c.binary("aten::mul.Tensor", x, x));
}

LogicalResult softplus(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L);
  if (failed(needsFloat(L, dt)))
    return failure();
  Value x = c.cast(L.operand("self"), c.opmath(dt));
  return c.finish(c.cast(softplusOf(c, x, scalarArg(L, "beta", 1), scalarArg(L, "threshold", 20)),
                         dt));
}

/// mish(x) = x * tanh(softplus(x)).
LogicalResult mish(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L);
  if (failed(needsFloat(L, dt)))
    return failure();
  Value x = c.cast(L.operand("self"), c.opmath(dt));
  Value t = c.unary("aten::tanh", softplusOf(c, x, 1, 20));
  return c.finish(c.cast(c.binary("aten::mul.Tensor", x, t), dt));
}

/// celu and selu are elu with PyTorch's constants (at::celu, at::selu).
LogicalResult eluForm(Legalizer &L) {
  Chain c(L);
  double alpha, scale = 1, inputScale = 1;
  if (L.op.getOpName() == "aten::selu") {
    alpha = 1.6732632423543772848170429916717;
    scale = 1.0507009873554804934193349852946;
  } else {
    alpha = scalarArg(L, "alpha", 1);
    if (alpha == 0)
      return L.refuse("with alpha 0 is not defined (PyTorch raises ZeroDivisionError)");
    inputScale = 1.0 / alpha;
  }
  return c.finish(c.op("aten::elu", {{L.operand("self")}},
                       {L.f64("alpha", alpha), L.f64("scale", scale),
                        L.f64("input_scale", inputScale)}));
}

/// softshrink(x, l) = x - clamp(x, -l, l): x - l above l, x + l below -l,
/// 0 between, NaN for NaN.
LogicalResult softshrink(Legalizer &L) {
  Chain c(L);
  Value x = L.operand("self");
  double l = inDtype(scalarArg(L, "lambd", 0.5), elementType(x));
  if (l == 0) // x - 0 is x, NaN and -0.0 included (and XNNPACK refuses clamp(x, 0, 0))
    return L.replace({x});
  Value k = c.op("aten::clamp", {{x}}, {L.f64("min", -l), L.f64("max", l)});
  return c.finish(c.binary("aten::sub.Tensor", x, k));
}

/// hardshrink(x, l): 0 where |x| <= l, else x.
LogicalResult hardshrink(Legalizer &L) {
  Chain c(L);
  Value x = L.operand("self");
  Value small = c.withScalar("aten::le.Scalar", c.unary("aten::abs", x),
                             inDtype(scalarArg(L, "lambd", 0.5), elementType(x)));
  return c.finish(c.op("aten::masked_fill.Scalar", {{x}, {small}}, {L.i64("value", 0)}));
}

/// threshold(x, t, v): v where x <= t, else x. PyTorch converts t and v to
/// x's dtype first (integers truncate).
LogicalResult threshold(Legalizer &L) {
  Chain c(L);
  Value x = L.operand("self");
  double t = scalarArg(L, "threshold", 0);
  Attribute th = L.b.getF64FloatAttr(inDtype(t, elementType(x)));
  if (isIntegerOrBool(elementType(x)))
    th = L.b.getI64IntegerAttr(static_cast<int64_t>(std::trunc(t)));
  Value below = c.op("aten::le.Scalar", {{x}}, {L.attr("other", th)});
  return c.finish(
      c.op("aten::masked_fill.Scalar", {{x}, {below}}, {L.attr("value", L.op->getAttr("value"))}));
}

/// log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|)); log_sigmoid_forward also
/// returns exp(-|x|) (its CPU buffer).
LogicalResult logSigmoid(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L);
  if (failed(needsFloat(L, dt)))
    return failure();
  Value x = c.cast(L.operand("self"), c.opmath(dt));
  Value z = c.unary("aten::exp", c.unary("aten::neg", c.unary("aten::abs", x)));
  Value m = c.op("aten::clamp", {{x}}, {L.none("min"), L.f64("max", 0)});
  Value out = c.cast(c.binary("aten::sub.Tensor", m, c.unary("aten::log1p", z)), dt);
  if (L.op->getNumResults() == 1)
    return c.finish(out);
  z = c.cast(z, dt);
  if (!out || !z)
    return failure();
  return L.replace({out, z});
}

/// rrelu in eval mode is leaky_relu with the mean slope (at::rrelu).
LogicalResult rrelu(Legalizer &L) {
  if (boolArg(L.op, "training", false))
    return L.refuse("in training mode is random (a random slope per element); export the "
                    "model in eval mode (model.eval()), where rrelu is leaky_relu");
  Chain c(L);
  double slope = (scalarArg(L, "lower", 0.125) + scalarArg(L, "upper", 1.0 / 3.0)) / 2;
  return c.finish(
      c.op("aten::leaky_relu", {{L.operand("self")}}, {L.f64("negative_slope", slope)}));
}

/// prelu(x, w): x where x > 0, else w * x; w has one element or one per
/// channel (dim 1), viewed to broadcast there.
LogicalResult prelu(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L);
  Value x = c.cast(L.operand("self"), dt), w = c.cast(L.operand("weight"), dt);
  if (!x || !w)
    return failure();
  RankedTensorType xt = tensorType(x), wt = tensorType(w);
  SmallVector<int64_t> shape;
  if (wt.getNumElements() != 1) {
    shape.push_back(wt.getNumElements());
    shape.append(std::max<int64_t>(xt.getRank() - 2, 0), 1);
  }
  FailureOr<Value> wv = L.view(w, shape);
  if (failed(wv))
    return failure();
  Value neg = c.binary("aten::mul.Tensor", x, *wv);
  return c.finish(c.where(c.withScalar("aten::gt.Scalar", x, 0), x, neg));
}

LogicalResult preluKernel(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L);
  Value x = c.cast(L.operand("self"), dt), w = c.cast(L.operand("weight"), dt);
  Value wx = c.binary("aten::mul.Tensor", w, x);
  Value positive = c.withScalar("aten::gt.Scalar", x, 0);
  return c.finish(c.where(positive, x, wx));
}

// ---- Binary math.

/// logaddexp(a, b) = max + log1p(exp(min - max)) (logaddexp2: exp2 and a
/// factor 1/ln 2), and a itself where a is infinite and a == b.
LogicalResult logaddexp(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L);
  if (failed(needsFloat(L, dt)))
    return failure();
  Type ct = c.opmath(dt);
  Value a = c.cast(L.operand("self"), ct), b = c.cast(L.operand("other"), ct);
  Value ge = c.binary("aten::ge.Tensor", a, b);
  Value mx = c.where(ge, a, b), mn = c.where(ge, b, a);
  Value d = c.binary("aten::sub.Tensor", mn, mx);
  Value r;
  if (L.op.getOpName() == "aten::logaddexp2") {
    Value e = c.op("aten::pow.Scalar", {{d}}, {L.f64("self", 2.0)});
    r = c.withScalar("aten::mul.Scalar", c.unary("aten::log1p", e), 1.0 / std::log(2.0));
  } else {
    r = c.unary("aten::log1p", c.unary("aten::exp", d));
  }
  r = c.binary("aten::add.Tensor", mx, r);
  Value equal = c.binary("aten::eq.Tensor", a, b);
  Value same = c.binary("aten::logical_and", c.unary("aten::isinf", a), equal);
  return c.finish(c.cast(c.where(same, a, r), dt));
}

/// xlogy(a, b) = a * log(b), 0 where a == 0, NaN where b is NaN (xlog1py:
/// log1p). Either side may be a number (the Scalar overloads).
LogicalResult xlogy(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L);
  if (failed(needsFloat(L, dt)))
    return failure();
  Type ct = c.opmath(dt);
  Value a = operandAs(c, "self", ct), b = operandAs(c, "other", ct);
  StringRef log = L.op.getOpName().contains("xlog1py") ? "aten::log1p" : "aten::log";
  Value r = c.binary("aten::mul.Tensor", a, c.unary(log, b));
  r = c.op("aten::masked_fill.Scalar", {{r}, {c.withScalar("aten::eq.Scalar", a, 0)}},
           {L.i64("value", 0)});
  r = c.op("aten::masked_fill.Scalar", {{r}, {c.unary("aten::isnan", b)}},
           {L.f64("value", std::numeric_limits<double>::quiet_NaN())});
  return c.finish(c.cast(r, dt));
}

/// heaviside(x, v): v where x == 0, else 1 where x > 0 and 0 elsewhere
/// (NaN included).
LogicalResult heaviside(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L);
  Value x = L.operand("self");
  Value step = c.cast(c.withScalar("aten::gt.Scalar", x, 0), dt);
  Value values = c.cast(L.operand("values"), dt);
  return c.finish(c.where(c.withScalar("aten::eq.Scalar", x, 0), values, step));
}

/// float_power: pow in float64.
LogicalResult floatPower(Legalizer &L) {
  Chain c(L);
  Type f64 = L.b.getF64Type();
  StringRef name = L.op.getOpName();
  if (name == "aten::float_power.Tensor_Scalar")
    return c.finish(c.op("aten::pow.Tensor_Scalar", {{c.cast(L.operand("self"), f64)}},
                         {L.f64("exponent", scalarArg(L, "exponent", 1))}));
  if (name == "aten::float_power.Scalar")
    return c.finish(c.op("aten::pow.Scalar", {{c.cast(L.operand("exponent"), f64)}},
                         {L.f64("self", scalarArg(L, "self", 1))}));
  Value exponent = c.cast(L.operand("exponent"), f64);
  return c.finish(c.binary("aten::pow.Tensor_Tensor", c.cast(L.operand("self"), f64), exponent));
}

/// fmax / fmin: maximum / minimum, except that a NaN loses to a number.
LogicalResult fmaxFmin(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L);
  Value a = c.cast(L.operand("self"), dt), b = c.cast(L.operand("other"), dt);
  StringRef core = L.op.getOpName() == "aten::fmax" ? "aten::maximum" : "aten::minimum";
  Value m = c.binary(core, a, b);
  if (!isFloatType(dt))
    return c.finish(m);
  m = c.where(c.unary("aten::isnan", a), b, m);
  return c.finish(c.where(c.unary("aten::isnan", b), a, m));
}

/// ldexp(x, e) = x * 2^e, as at::ldexp computes it.
LogicalResult ldexp(Legalizer &L) {
  Chain c(L);
  Value p = c.op("aten::pow.Scalar", {{L.operand("other")}}, {L.f64("self", 2.0)});
  return c.finish(c.cast(c.binary("aten::mul.Tensor", L.operand("self"), p), resultDtype(L)));
}

// ---- Ternary math.

/// lerp(s, e, w) = s + w * (e - s) where |w| < 0.5, else e - (e - s) * (1 - w)
/// (PyTorch's kernel, exact at both ends).
LogicalResult lerp(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L);
  if (failed(needsFloat(L, dt)))
    return failure();
  Type ct = c.opmath(dt);
  Value s = c.cast(L.operand("self"), ct), e = c.cast(L.operand("end"), ct);
  Value diff = c.binary("aten::sub.Tensor", e, s);
  if (std::optional<double> w = scalarArg(L, "weight")) {
    Value r = std::abs(*w) < 0.5
                  ? c.binary("aten::add.Tensor", s, c.withScalar("aten::mul.Scalar", diff, *w))
                  : c.binary("aten::sub.Tensor", e,
                             c.withScalar("aten::mul.Scalar", diff, 1.0 - *w));
    return c.finish(c.cast(r, dt));
  }
  Value w = c.cast(L.operand("weight"), ct);
  Value small = c.withScalar("aten::lt.Scalar", c.unary("aten::abs", w), 0.5);
  Value lo = c.binary("aten::add.Tensor", s, c.binary("aten::mul.Tensor", w, diff));
  Value hi = c.binary("aten::sub.Tensor", e,
                      c.binary("aten::mul.Tensor", diff,
                               c.op("aten::rsub.Scalar", {{w}}, {L.f64("other", 1.0)})));
  return c.finish(c.cast(c.where(small, lo, hi), dt));
}

/// addcmul(s, t1, t2, value) = s + value * t1 * t2; addcdiv: s + value * t1 / t2.
LogicalResult addcmulDiv(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L), ct = c.opmath(dt);
  Value s = c.cast(L.operand("self"), ct), t1 = c.cast(L.operand("tensor1"), ct),
        t2 = c.cast(L.operand("tensor2"), ct);
  if (scalarArg(L, "value", 1) != 1)
    t1 = c.op("aten::mul.Scalar", {{t1}}, {L.attr("other", L.op->getAttr("value"))});
  bool div = L.op.getOpName() == "aten::addcdiv";
  Value p = c.binary(div ? "aten::div.Tensor" : "aten::mul.Tensor", t1, t2);
  return c.finish(c.cast(c.binary("aten::add.Tensor", s, p), dt));
}

/// isclose(a, b, rtol, atol, equal_nan) as at::isclose: a == b, or (NaN ==
/// NaN with equal_nan), or |a - b| finite and <= atol + |rtol * b|.
LogicalResult isclose(Legalizer &L) {
  Chain c(L);
  Value a = L.operand("self"), b = L.operand("other");
  if (!a || !b)
    return failure();
  Type t = elementType(a);
  double rtol = L.op->getAttrOfType<FloatAttr>("rtol")
                    ? L.op->getAttrOfType<FloatAttr>("rtol").getValueAsDouble()
                    : 1e-05;
  double atol = L.op->getAttrOfType<FloatAttr>("atol")
                    ? L.op->getAttrOfType<FloatAttr>("atol").getValueAsDouble()
                    : 1e-08;
  Value close = c.binary("aten::eq.Tensor", a, b);
  if (boolArg(L.op, "equal_nan", false) && isFloatType(t)) {
    Value nanB = c.unary("aten::isnan", b);
    Value bothNan = c.binary("aten::logical_and", c.unary("aten::isnan", a), nanB);
    close = c.binary("aten::logical_or", close, bothNan);
  }
  if (rtol == 0 && atol == 0)
    return c.finish(close);
  if (t.isInteger(1)) { // bool computes its error in the default float
    a = c.cast(a, L.b.getF32Type());
    b = c.cast(b, L.b.getF32Type());
  }
  Value allowed = c.withScalar(
      "aten::add.Scalar",
      c.unary("aten::abs", c.withScalar("aten::mul.Scalar", b, rtol)), atol);
  Value actual = c.unary("aten::abs", c.binary("aten::sub.Tensor", a, b));
  Value within = c.binary("aten::le.Tensor", actual, allowed);
  if (isFloatType(elementType(actual)))
    within = c.binary("aten::logical_and", within,
                      c.withScalar("aten::lt.Scalar", actual, kInf));
  return c.finish(c.binary("aten::logical_or", close, within));
}

// ---- Selection.

/// where with a number on either side or both (where.ScalarSelf /
/// ScalarOther / Scalar): the numbers as 0-dim tensors of the result dtype.
LogicalResult whereScalar(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L);
  Value other = operandAs(c, "other", dt);
  return c.finish(c.where(L.operand("condition"), operandAs(c, "self", dt), other));
}

/// masked_fill.Tensor(self, mask, value): value (0-dim) where mask, else self.
LogicalResult maskedFillTensor(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L);
  Value self = c.cast(L.operand("self"), dt);
  return c.finish(c.where(L.operand("mask"), c.cast(L.operand("value"), dt), self));
}

/// masked_fill.Scalar whose mask broadcasts `self` to a larger shape (its
/// kernel fills `self`'s shape only): where with the value as a 0-dim tensor.
LogicalResult maskedFillScalar(Legalizer &L) {
  Value self = L.operand("self");
  if (tensorType(self).getShape() == L.resultType().getShape())
    return success(); // the kernel's case
  Chain c(L);
  Type dt = resultDtype(L);
  self = c.cast(self, dt);
  return c.finish(c.where(L.operand("mask"), operandAs(c, "value", dt), self));
}

/// floor_divide(t, number) is div(t, number, rounding_mode='floor').
LogicalResult floorDivideScalar(Legalizer &L) {
  Chain c(L);
  return c.finish(c.op("aten::div.Scalar_mode", {{L.operand("self")}},
                       {L.attr("other", L.op->getAttr("other")),
                        L.attr("rounding_mode", L.b.getStringAttr("floor"))}));
}

// ---- Unary math.

/// The largest finite value of float type `t`.
double largest(Type t) {
  return llvm::APFloat::getLargest(llvm::cast<FloatType>(t).getFloatSemantics())
      .convertToDouble();
}

/// nan_to_num(x, nan, posinf, neginf): integers and bool unchanged; NaN,
/// +inf and -inf replaced (by 0 and the dtype's largest and lowest finite
/// values unless given).
LogicalResult nanToNum(Legalizer &L) {
  Chain c(L);
  Value x = L.operand("self");
  Type dt = elementType(x);
  if (!isFloatType(dt))
    return L.replace({x});
  auto given = [&](StringRef n, double dflt) {
    auto f = L.op->getAttrOfType<FloatAttr>(n);
    return f ? f.getValueAsDouble() : dflt;
  };
  Value r = c.op("aten::masked_fill.Scalar", {{x}, {c.unary("aten::isnan", x)}},
                 {L.f64("value", given("nan", 0))});
  r = c.op("aten::masked_fill.Scalar", {{r}, {c.withScalar("aten::eq.Scalar", x, kInf)}},
           {L.f64("value", given("posinf", largest(dt)))});
  r = c.op("aten::masked_fill.Scalar", {{r}, {c.withScalar("aten::eq.Scalar", x, -kInf)}},
           {L.f64("value", given("neginf", -largest(dt)))});
  return c.finish(r);
}

LogicalResult frac(Legalizer &L) {
  Chain c(L);
  Value x = L.operand("self");
  if (failed(needsFloat(L, elementType(x))))
    return failure();
  return c.finish(c.binary("aten::sub.Tensor", x, c.unary("aten::trunc", x)));
}

/// deg2rad / rad2deg: integers are converted to the default float first.
LogicalResult angle(Legalizer &L) {
  Chain c(L);
  double k = L.op.getOpName() == "aten::deg2rad"
                 ? 0.017453292519943295769236907684886127134428718885417
                 : 57.295779513082320876798154814105170332405472466564;
  return c.finish(c.withScalar("aten::mul.Scalar", c.cast(L.operand("self"), resultDtype(L)), k));
}

/// sinc(x) = sin(pi x) / (pi x), 1 at 0.
LogicalResult sinc(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L);
  Value x = c.cast(L.operand("self"), c.opmath(dt));
  Value px = c.withScalar("aten::mul.Scalar", x, M_PI);
  Value r = c.binary("aten::div.Tensor", c.unary("aten::sin", px), px);
  r = c.op("aten::masked_fill.Scalar", {{r}, {c.withScalar("aten::eq.Scalar", x, 0)}},
           {L.i64("value", 1)});
  return c.finish(c.cast(r, dt));
}

/// isposinf / isneginf / isfinite / isreal on real tensors.
LogicalResult predicate(Legalizer &L) {
  Chain c(L);
  Value x = L.operand("self");
  StringRef name = L.op.getOpName();
  Type i1 = L.b.getI1Type();
  bool floating = isFloatType(elementType(x));
  if (name == "aten::isreal" || !floating)
    return c.finish(c.filledLike(x, L.b.getBoolAttr(name != "aten::isposinf" &&
                                                    name != "aten::isneginf"),
                                 i1));
  if (name == "aten::isfinite") // false for NaN and both infinities
    return c.finish(c.withScalar("aten::lt.Scalar", c.unary("aten::abs", x), kInf));
  return c.finish(c.withScalar("aten::eq.Scalar", x, name == "aten::isposinf" ? kInf : -kInf));
}

/// erfc(x) = 1 - erf(x).
LogicalResult erfc(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L);
  Value x = c.cast(L.operand("self"), c.opmath(dt));
  Value r = c.op("aten::rsub.Scalar", {{c.unary("aten::erf", x)}}, {L.f64("other", 1.0)});
  return c.finish(c.cast(r, dt));
}

/// exp2(x) = 2^x.
LogicalResult exp2(Legalizer &L) {
  Chain c(L);
  return c.finish(c.op("aten::pow.Scalar", {{c.cast(L.operand("self"), resultDtype(L))}},
                       {L.f64("self", 2.0)}));
}

/// ndtr(x) = (1 + erf(x / sqrt 2)) / 2, each step in the result dtype (as
/// PyTorch's kernel rounds float16 at each step).
LogicalResult ndtr(Legalizer &L) {
  Chain c(L);
  Value z = c.withScalar("aten::mul.Scalar", c.cast(L.operand("self"), resultDtype(L)), M_SQRT1_2);
  Value e = c.unary("aten::erf", z);
  return c.finish(
      c.withScalar("aten::mul.Scalar", c.withScalar("aten::add.Scalar", e, 1.0), 0.5));
}

/// round(x, decimals): round(x * 10^d) / 10^d, or round(x / 10^-d) * 10^-d
/// for negative d (PyTorch's kernel).
LogicalResult roundDecimals(Legalizer &L) {
  Chain c(L);
  Value x = L.operand("self");
  int64_t d = intArg(L.op, "decimals", 0);
  if (d == 0)
    return c.finish(c.unary("aten::round", x));
  if (failed(needsFloat(L, elementType(x))))
    return failure();
  double p = std::pow(10.0, static_cast<double>(d < 0 ? -d : d));
  StringRef in = d > 0 ? "aten::mul.Scalar" : "aten::div.Scalar";
  StringRef out = d > 0 ? "aten::div.Scalar" : "aten::mul.Scalar";
  return c.finish(c.withScalar(out, c.unary("aten::round", c.withScalar(in, x, p)), p));
}

/// entr(x) = -x log x for x > 0, 0 at 0, -inf below, NaN for NaN.
LogicalResult entr(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L);
  Value x = c.cast(L.operand("self"), c.opmath(dt));
  Value logX = c.unary("aten::log", x);
  Value r = c.binary("aten::mul.Tensor", c.unary("aten::neg", x), logX);
  r = c.op("aten::masked_fill.Scalar", {{r}, {c.withScalar("aten::eq.Scalar", x, 0)}},
           {L.i64("value", 0)});
  r = c.op("aten::masked_fill.Scalar", {{r}, {c.withScalar("aten::lt.Scalar", x, 0)}},
           {L.f64("value", -kInf)});
  return c.finish(c.cast(r, dt));
}

// ---- Gradients (in PyTorch's default decomposition table).

/// tanh_backward(g, y) = g (1 - y^2); sigmoid_backward(g, y) = g y (1 - y);
/// silu_backward(g, x) = g s (1 + x (1 - s)) with s = sigmoid(x).
LogicalResult activationGrad(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L), ct = c.opmath(dt);
  StringRef name = L.op.getOpName();
  Value g = c.cast(L.operand("grad_output"), ct);
  auto oneMinus = [&](Value v) { return c.op("aten::rsub.Scalar", {{v}}, {L.f64("other", 1.0)}); };
  Value r;
  if (name == "aten::tanh_backward") {
    Value y = c.cast(L.operand("output"), ct);
    r = c.binary("aten::mul.Tensor", g, oneMinus(c.binary("aten::mul.Tensor", y, y)));
  } else if (name == "aten::sigmoid_backward") {
    Value y = c.cast(L.operand("output"), ct);
    r = c.binary("aten::mul.Tensor", g, c.binary("aten::mul.Tensor", y, oneMinus(y)));
  } else {
    Value x = c.cast(L.operand("self"), ct);
    Value s = c.unary("aten::sigmoid", x);
    Value inner = c.withScalar("aten::add.Scalar", c.binary("aten::mul.Tensor", x, oneMinus(s)), 1.0);
    r = c.binary("aten::mul.Tensor", c.binary("aten::mul.Tensor", g, s), inner);
  }
  return c.finish(c.cast(r, dt));
}

/// logit_backward(g, x, eps) = g / (x (1 - x)) inside [eps, 1 - eps] (0
/// outside), or inside [0, 1] (NaN outside) without eps.
LogicalResult logitGrad(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L), ct = c.opmath(dt);
  Value g = c.cast(L.operand("grad_output"), ct), x = c.cast(L.operand("self"), ct);
  auto eps = L.op->getAttrOfType<FloatAttr>("eps");
  double lo = eps ? eps.getValueAsDouble() : 0.0, hi = 1.0 - lo;
  Value belowHi = c.withScalar("aten::le.Scalar", x, inDtype(hi, ct));
  Value aboveLo = c.withScalar("aten::ge.Scalar", x, inDtype(lo, ct));
  Value inside = c.binary("aten::logical_and", aboveLo, belowHi);
  Value d = c.binary("aten::mul.Tensor", x, c.op("aten::rsub.Scalar", {{x}}, {L.f64("other", 1.0)}));
  Value q = c.binary("aten::div.Tensor", g, d);
  Value outside = c.constant(eps ? 0.0 : std::numeric_limits<double>::quiet_NaN(), ct);
  return c.finish(c.cast(c.where(inside, q, outside), dt));
}

/// gelu_backward(g, x) as PyTorch's decomposition, for both approximations.
LogicalResult geluGrad(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L), ct = c.opmath(dt);
  Value g = c.cast(L.operand("grad_output"), ct), x = c.cast(L.operand("self"), ct);
  auto mulS = [&](Value v, double k) { return c.withScalar("aten::mul.Scalar", v, k); };
  auto addS = [&](Value v, double k) { return c.withScalar("aten::add.Scalar", v, k); };
  auto mul = [&](Value a, Value b) { return c.binary("aten::mul.Tensor", a, b); };
  auto approximate = L.op->getAttrOfType<StringAttr>("approximate");
  Value d;
  if (approximate && approximate.getValue() == "tanh") {
    const double kBeta = M_SQRT2 * M_2_SQRTPI * 0.5, kKappa = 0.044715;
    Value xsq = mul(x, x);
    Value inner = mulS(c.binary("aten::add.Tensor", x, mulS(mul(xsq, x), kKappa)), kBeta);
    Value t = c.unary("aten::tanh", inner);
    Value leftDerivative = mulS(addS(t, 1.0), 0.5);
    Value tanhDerivative = c.op("aten::rsub.Scalar", {{mul(t, t)}}, {L.f64("other", 1.0)});
    Value innerDerivative = mulS(addS(mulS(xsq, 3 * kKappa), 1.0), kBeta);
    Value rightDerivative = mul(mul(mulS(x, 0.5), tanhDerivative), innerDerivative);
    d = c.binary("aten::add.Tensor", leftDerivative, rightDerivative);
  } else {
    const double kBeta = M_2_SQRTPI * M_SQRT1_2 * 0.5;
    Value cdf = mulS(addS(c.unary("aten::erf", mulS(x, M_SQRT1_2)), 1.0), 0.5);
    Value pdf = mulS(c.unary("aten::exp", mulS(mul(x, x), -0.5)), kBeta);
    d = c.binary("aten::add.Tensor", cdf, mul(x, pdf));
  }
  return c.finish(c.cast(mul(g, d), dt));
}

/// threshold_backward(g, x, t): 0 where x <= t, else g.
LogicalResult thresholdGrad(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L);
  Value x = L.operand("self");
  double t = scalarArg(L, "threshold", 0);
  Value below = c.withScalar("aten::le.Scalar", x, inDtype(t, elementType(x)));
  Value grad = c.cast(L.operand("grad_output"), dt);
  return c.finish(c.where(below, c.constant(0.0, dt), grad));
}

/// native_dropout_backward(g, mask, scale) = g * (mask * scale).
LogicalResult dropoutGrad(Legalizer &L) {
  Chain c(L);
  Type dt = resultDtype(L);
  auto scale = L.op->getAttrOfType<FloatAttr>("scale");
  Value m = c.withScalar("aten::mul.Scalar", c.cast(L.operand("mask"), dt),
                         scale ? scale.getValueAsDouble() : 1.0);
  return c.finish(c.cast(c.binary("aten::mul.Tensor", L.operand("grad_output"), m), dt));
}

/// Registered so that they are refused with the reason, not as unknown.
LogicalResult refusedMath(Legalizer &L) {
  StringRef name = L.op.getOpName();
  if (name.starts_with("aten::copysign") || name == "aten::signbit")
    return L.refuse("is not supported: it reads the sign bit of NaN and -0.0, which no "
                    "portable kernel exposes");
  if (name == "aten::hypot")
    return L.refuse("is not supported: sqrt(a^2 + b^2) overflows where hypot does not, and "
                    "no portable kernel computes it");
  return L.refuse("is not supported: no portable kernel computes it, and no decomposition "
                  "into kernels that exist has PyTorch's accuracy");
}

} // namespace

void addMathLegalizations(LegalizeTable &t) {
  // Every rewrite here is pointwise: its ops' kernels take the run-time
  // sizes of their inputs.
  auto add = [&](std::initializer_list<const char *> names, LegalizeFn fn) {
    addLegalizations(t, names, fn, Dynamic::Handled);
  };
  // Each rule runs through guarded<> (LegalizeElementwise.h): malformed IR is left alone.
  add({"aten::square"}, guarded<square>);
  add({"aten::softplus"}, guarded<softplus>);
  add({"aten::mish"}, guarded<mish>);
  add({"aten::celu", "aten::selu"}, guarded<eluForm>);
  add({"aten::softshrink"}, guarded<softshrink>);
  add({"aten::hardshrink"}, guarded<hardshrink>);
  add({"aten::threshold"}, guarded<threshold>);
  add({"aten::log_sigmoid", "aten::log_sigmoid_forward"}, guarded<logSigmoid>);
  add({"aten::rrelu"}, guarded<rrelu>);
  add({"aten::prelu"}, guarded<prelu>);
  add({"aten::_prelu_kernel"}, guarded<preluKernel>);
  add({"aten::logaddexp", "aten::logaddexp2"}, guarded<logaddexp>);
  add({"aten::xlogy.Tensor", "aten::xlogy.Scalar_Self", "aten::xlogy.Scalar_Other",
       "aten::special_xlogy", "aten::special_xlogy.self_scalar",
       "aten::special_xlogy.other_scalar", "aten::special_xlog1py",
       "aten::special_xlog1py.self_scalar", "aten::special_xlog1py.other_scalar"},
      guarded<xlogy>);
  add({"aten::heaviside"}, guarded<heaviside>);
  add({"aten::float_power.Tensor_Tensor", "aten::float_power.Tensor_Scalar",
       "aten::float_power.Scalar"},
      guarded<floatPower>);
  add({"aten::fmax", "aten::fmin"}, guarded<fmaxFmin>);
  add({"aten::ldexp.Tensor"}, guarded<ldexp>);
  add({"aten::lerp.Scalar", "aten::lerp.Tensor"}, guarded<lerp>);
  add({"aten::addcmul", "aten::addcdiv"}, guarded<addcmulDiv>);
  add({"aten::isclose"}, guarded<isclose>);
  add({"aten::nan_to_num"}, guarded<nanToNum>);
  add({"aten::frac"}, guarded<frac>);
  add({"aten::deg2rad", "aten::rad2deg"}, guarded<angle>);
  add({"aten::sinc", "aten::special_sinc"}, guarded<sinc>);
  add({"aten::isposinf", "aten::isneginf", "aten::isfinite", "aten::isreal"}, guarded<predicate>);
  add({"aten::erfc", "aten::special_erfc"}, guarded<erfc>);
  add({"aten::exp2", "aten::special_exp2"}, guarded<exp2>);
  add({"aten::special_ndtr"}, guarded<ndtr>);
  add({"aten::round.decimals", "aten::special_round"}, guarded<roundDecimals>);
  add({"aten::special_entr"}, guarded<entr>);
  add({"aten::where.Scalar", "aten::where.ScalarSelf", "aten::where.ScalarOther"}, guarded<whereScalar>);
  add({"aten::masked_fill.Tensor"}, guarded<maskedFillTensor>);
  add({"aten::masked_fill.Scalar"}, guarded<maskedFillScalar>);
  add({"aten::floor_divide.Scalar"}, guarded<floorDivideScalar>);
  add({"aten::tanh_backward", "aten::sigmoid_backward", "aten::silu_backward"}, guarded<activationGrad>);
  add({"aten::logit_backward"}, guarded<logitGrad>);
  add({"aten::gelu_backward"}, guarded<geluGrad>);
  add({"aten::threshold_backward"}, guarded<thresholdGrad>);
  add({"aten::native_dropout_backward"}, guarded<dropoutGrad>);
  add({"aten::lgamma", "aten::digamma", "aten::polygamma", "aten::mvlgamma", "aten::erfinv",
       "aten::i0", "aten::special_i0e", "aten::special_i1", "aten::special_i1e",
       "aten::special_log_ndtr", "aten::special_erfcx", "aten::copysign.Tensor",
       "aten::copysign.Scalar", "aten::signbit", "aten::hypot", "aten::nextafter",
       "aten::igamma", "aten::igammac"},
      guarded<refusedMath>);
}

} // namespace ptec::legalize::elementwise
