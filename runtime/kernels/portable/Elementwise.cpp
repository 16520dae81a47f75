// Element-wise kernels: arithmetic, comparisons, logical ops, activations,
// where / masked_fill / clamp / pow. All go through mapElements().
#include "runtime/kernels/portable/Elementwise.h"
#include "runtime/kernels/portable/Kernels.h"

#include <cmath>
#include <cstring>

namespace ptec::rt::portable {

namespace {

constexpr double kSqrt2 = 1.4142135623730951;
constexpr double kSqrt2OverPi = 0.7978845608028654;

/// add / sub with alpha at index 2: out = self + sign * alpha * other.
Error addSub(KernelContext &ctx, Args args, Rhs rhs, double sign, bool reverse) {
  PT_NARGS(5);
  Scalar alpha;
  PTEC_TRY(argScalar(ctx, args, 2, "alpha", alpha));
  BinaryArgs ba;
  PTEC_TRY(unboxBinary(ctx, args, rhs, 3, ba));
  ScalarTensor st(ba.s);
  const Tensor &b = rhs == Rhs::Scalar ? st.tensor() : *ba.b;
  Cat cat = resultCat(*ba.a, b);
  if (cat != Cat::Float && alpha.cat == Cat::Float)
    return ctx.fail(Error::InvalidArgument,
                    "alpha must not be a floating point number for integral inputs");
  if (sign < 0 && cat == Cat::Bool)
    return ctx.fail(Error::InvalidArgument, "subtraction of bool tensors is not supported");
  int64_t ai = sign < 0 ? wrapNeg(alpha.i) : alpha.i;
  double ad = alpha.d * sign;
  return withCat(cat, [&](auto c) -> Error {
    using C = decltype(c);
    C al = std::is_floating_point_v<C> ? static_cast<C>(ad) : static_cast<C>(ai);
    if (reverse) // rsub: other - alpha * self (al holds -alpha)
      return binary(ctx, *ba.a, b, *ba.out, cat, true,
                    [al](C x, C y) { return wrapAdd(y, wrapMul(al, x)); });
    return binary(ctx, *ba.a, b, *ba.out, cat, true,
                  [al](C x, C y) { return wrapAdd(x, wrapMul(al, y)); });
  });
}

Error divKernel(KernelContext &ctx, Args args, Rhs rhs, bool hasMode) {
  size_t nargs = hasMode ? 5 : 4;
  PT_NARGS(nargs);
  enum { True, Trunc, Floor } mode = True;
  if (hasMode) {
    EValue *m = args[2];
    if (m && m->isString()) {
      const char *s = m->stringData();
      size_t n = m->stringSize();
      if (n == 5 && std::memcmp(s, "trunc", 5) == 0)
        mode = Trunc;
      else if (n == 5 && std::memcmp(s, "floor", 5) == 0)
        mode = Floor;
      else
        return ctx.fail(Error::InvalidArgument,
                        "rounding_mode must be None, 'trunc' or 'floor', got '%.*s'",
                        static_cast<int>(n), s);
    } else if (!(m && m->isNone())) {
      return badTag(ctx, 2, "rounding_mode", "String or None", m);
    }
  }
  BinaryArgs ba;
  PTEC_TRY(unboxBinary(ctx, args, rhs, nargs - 2, ba));
  ScalarTensor st(ba.s);
  const Tensor &b = rhs == Rhs::Scalar ? st.tensor() : *ba.b;
  if (mode == True)
    return binary(ctx, *ba.a, b, *ba.out, Cat::Float, true, [](double x, double y) { return x / y; });
  Cat cat = maxCat(resultCat(*ba.a, b), Cat::Int);
  if (cat == Cat::Float) {
    if (mode == Trunc)
      return binary(ctx, *ba.a, b, *ba.out, cat, true,
                    [](double x, double y) { return std::trunc(x / y); });
    return binary(ctx, *ba.a, b, *ba.out, cat, true, floorDiv);
  }
  bool divByZero = false;
  bool floor = mode == Floor;
  PTEC_TRY(binary(ctx, *ba.a, b, *ba.out, cat, true, [&](int64_t x, int64_t y) -> int64_t {
    if (y == 0) {
      divByZero = true;
      return 0;
    }
    if (y == -1) // avoids INT64_MIN / -1 overflow
      return static_cast<int64_t>(0ULL - static_cast<uint64_t>(x));
    int64_t q = x / y;
    if (floor && (x % y != 0) && ((x < 0) != (y < 0)))
      --q;
    return q;
  }));
  if (divByZero)
    return ctx.fail(Error::InvalidArgument, "integer division by zero");
  return Error::Ok;
}

enum class CmpOp { Eq, Ne, Lt, Le, Gt, Ge };

template <CmpOp K> Error compare(KernelContext &ctx, Args args, Rhs rhs) {
  return binaryKernel(
      ctx, args, rhs, 4,
      [](auto x, auto y) -> bool {
        if constexpr (K == CmpOp::Eq) return x == y;
        else if constexpr (K == CmpOp::Ne) return x != y;
        else if constexpr (K == CmpOp::Lt) return x < y;
        else if constexpr (K == CmpOp::Le) return x <= y;
        else if constexpr (K == CmpOp::Gt) return x > y;
        else return x >= y;
      },
      /*checkCast=*/false);
}

int64_t intPow(int64_t base, int64_t exp) {
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  while (exp > 0) {
    if (exp & 1)
      result *= b;
    b *= b;
    exp >>= 1;
  }
  return static_cast<int64_t>(result);
}

Error powKernel(KernelContext &ctx, Args args, Rhs rhs) {
  PT_NARGS(4);
  BinaryArgs ba;
  PTEC_TRY(unboxBinary(ctx, args, rhs, 2, ba));
  ScalarTensor st(ba.s);
  const Tensor &b = rhs == Rhs::Scalar ? st.tensor() : *ba.b;
  Cat cat = maxCat(resultCat(*ba.a, b), Cat::Int);
  if (cat == Cat::Float)
    return binary(ctx, *ba.a, b, *ba.out, cat, true,
                  [](double x, double y) { return std::pow(x, y); });
  bool negExp = false;
  PTEC_TRY(binary(ctx, *ba.a, b, *ba.out, cat, true, [&](int64_t x, int64_t y) -> int64_t {
    if (y < 0) {
      negExp = true;
      return 0;
    }
    return intPow(x, y);
  }));
  if (negExp)
    return ctx.fail(Error::InvalidArgument, "integers to negative integer powers are not allowed");
  return Error::Ok;
}

// --- Unary ----------------------------------------------------------------

/// Clamp `self` to [lo, hi] (either optional) with scalar bounds.
Error clampImpl(KernelContext &ctx, const Tensor &in, Tensor &out, bool hasLo,
                const Scalar &lo, bool hasHi, const Scalar &hi) {
  Cat cat;
  PTEC_TRY(clampCat(ctx, catOf(in.dtype()), hasLo, lo.cat, hasHi, hi.cat, out, cat));
  Shape os = Shape::of(in);
  PTEC_TRY(resizeOut(ctx, out, os));
  const Tensor *ins[1] = {&in};
  withCat(cat, [&](auto c) {
    using C = decltype(c);
    C l = lo.as<C>(), h = hi.as<C>();
    mapElements<C, 1>(ins, out, os, [&](C x) {
      if constexpr (std::is_floating_point_v<C>)
        if (std::isnan(x))
          return x;
      return clampTo(x, hasLo, l, hasHi, h);
    });
    return 0;
  });
  return Error::Ok;
}

} // namespace

// --- Arithmetic -----------------------------------------------------------

Error add_out(KernelContext &ctx, Args args) { return addSub(ctx, args, Rhs::Tensor, 1, false); }
Error add_scalar_out(KernelContext &ctx, Args args) { return addSub(ctx, args, Rhs::Scalar, 1, false); }
Error sub_out(KernelContext &ctx, Args args) { return addSub(ctx, args, Rhs::Tensor, -1, false); }
Error sub_scalar_out(KernelContext &ctx, Args args) { return addSub(ctx, args, Rhs::Scalar, -1, false); }
Error rsub_scalar_out(KernelContext &ctx, Args args) { return addSub(ctx, args, Rhs::Scalar, -1, true); }

Error mul_out(KernelContext &ctx, Args args) {
  return binaryKernel(ctx, args, Rhs::Tensor, 4, [](auto x, auto y) { return wrapMul(x, y); });
}
Error mul_scalar_out(KernelContext &ctx, Args args) {
  return binaryKernel(ctx, args, Rhs::Scalar, 4, [](auto x, auto y) { return wrapMul(x, y); });
}
Error div_out(KernelContext &ctx, Args args) { return divKernel(ctx, args, Rhs::Tensor, false); }
Error div_out_mode(KernelContext &ctx, Args args) { return divKernel(ctx, args, Rhs::Tensor, true); }
Error div_scalar_out(KernelContext &ctx, Args args) { return divKernel(ctx, args, Rhs::Scalar, false); }
Error div_scalar_mode_out(KernelContext &ctx, Args args) { return divKernel(ctx, args, Rhs::Scalar, true); }

Error pow_tensor_tensor_out(KernelContext &ctx, Args args) { return powKernel(ctx, args, Rhs::Tensor); }
Error pow_tensor_scalar_out(KernelContext &ctx, Args args) { return powKernel(ctx, args, Rhs::Scalar); }

// --- Comparisons and logical ops -----------------------------------------

Error eq_tensor_out(KernelContext &ctx, Args args) { return compare<CmpOp::Eq>(ctx, args, Rhs::Tensor); }
Error eq_scalar_out(KernelContext &ctx, Args args) { return compare<CmpOp::Eq>(ctx, args, Rhs::Scalar); }
Error ne_tensor_out(KernelContext &ctx, Args args) { return compare<CmpOp::Ne>(ctx, args, Rhs::Tensor); }
Error ne_scalar_out(KernelContext &ctx, Args args) { return compare<CmpOp::Ne>(ctx, args, Rhs::Scalar); }
Error lt_tensor_out(KernelContext &ctx, Args args) { return compare<CmpOp::Lt>(ctx, args, Rhs::Tensor); }
Error lt_scalar_out(KernelContext &ctx, Args args) { return compare<CmpOp::Lt>(ctx, args, Rhs::Scalar); }
Error le_tensor_out(KernelContext &ctx, Args args) { return compare<CmpOp::Le>(ctx, args, Rhs::Tensor); }
Error le_scalar_out(KernelContext &ctx, Args args) { return compare<CmpOp::Le>(ctx, args, Rhs::Scalar); }
Error gt_tensor_out(KernelContext &ctx, Args args) { return compare<CmpOp::Gt>(ctx, args, Rhs::Tensor); }
Error gt_scalar_out(KernelContext &ctx, Args args) { return compare<CmpOp::Gt>(ctx, args, Rhs::Scalar); }
Error ge_tensor_out(KernelContext &ctx, Args args) { return compare<CmpOp::Ge>(ctx, args, Rhs::Tensor); }
Error ge_scalar_out(KernelContext &ctx, Args args) { return compare<CmpOp::Ge>(ctx, args, Rhs::Scalar); }

Error logical_and_out(KernelContext &ctx, Args args) {
  return binaryKernel(
      ctx, args, Rhs::Tensor, 4, [](auto x, auto y) -> bool { return x != 0 && y != 0; },
      /*checkCast=*/false);
}

Error logical_not_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), outArg("out", out)));
  Shape os = Shape::of(*in);
  PTEC_TRY(resizeOut(ctx, *out, os));
  const Tensor *ins[1] = {in};
  withCat(catOf(in->dtype()), [&](auto c) {
    using C = decltype(c);
    mapElements<C, 1>(ins, *out, os, [](C x) -> bool { return x == C{}; });
    return 0;
  });
  return Error::Ok;
}

Error bitwise_not_out(KernelContext &ctx, Args args) {
  PT_NARGS(3);
  Tensor *in;
  PTEC_TRY(argTensor(ctx, args, 0, "self", in));
  if (isFloatDt(in->dtype()))
    return ctx.fail(Error::InvalidArgument,
                    "bitwise_not needs an integral or bool tensor, got %s", toString(in->dtype()));
  return unary(ctx, args, 3, UnaryKind::Preserve, [](auto x) {
    using C = decltype(x);
    if constexpr (std::is_same_v<C, bool>)
      return !x;
    else if constexpr (std::is_integral_v<C>)
      return C(~x);
    else
      return x; // unreachable: floats are rejected above
  });
}

Error isnan_out(KernelContext &ctx, Args args) {
  return floatPredicate(ctx, args, [](double x) { return std::isnan(x); });
}

// --- Unary math -------------------------------------------------------------

Error neg_out(KernelContext &ctx, Args args) {
  return unary(ctx, args, 3, UnaryKind::Preserve, [](auto x) { return wrapNeg(x); });
}
Error abs_out(KernelContext &ctx, Args args) {
  return unary(ctx, args, 3, UnaryKind::Preserve, [](auto x) {
    if constexpr (std::is_same_v<decltype(x), bool>)
      return x;
    else
      return x < 0 ? wrapNeg(x) : x;
  });
}
Error relu_out(KernelContext &ctx, Args args) {
  return unary(ctx, args, 3, UnaryKind::Preserve, [](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>)
      if (std::isnan(x))
        return x;
    return x > 0 ? x : decltype(x){};
  });
}
Error exp_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::exp(x); }); }
Error log_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::log(x); }); }
Error sqrt_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::sqrt(x); }); }
Error rsqrt_out(KernelContext &ctx, Args args) {
  return floatUnary(ctx, args, [](double x) { return 1.0 / std::sqrt(x); });
}
Error sin_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::sin(x); }); }
Error cos_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::cos(x); }); }
Error tanh_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::tanh(x); }); }
Error erf_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::erf(x); }); }
Error reciprocal_out(KernelContext &ctx, Args args) {
  return floatUnary(ctx, args, [](double x) { return 1.0 / x; });
}
Error sigmoid_out(KernelContext &ctx, Args args) {
  return floatUnary(ctx, args, [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
}

Error gelu_out(KernelContext &ctx, Args args) {
  PT_NARGS(4);
  EValue *m = args[1];
  bool useTanh = false;
  if (m && m->isString()) {
    const char *s = m->stringData();
    size_t n = m->stringSize();
    if (n == 4 && std::memcmp(s, "tanh", 4) == 0)
      useTanh = true;
    else if (!(n == 4 && std::memcmp(s, "none", 4) == 0))
      return ctx.fail(Error::InvalidArgument, "gelu: approximate must be 'none' or 'tanh', got '%.*s'",
                      static_cast<int>(n), s);
  } else {
    return badTag(ctx, 1, "approximate", "String", m);
  }
  if (useTanh)
    return unary(ctx, args, 4, UnaryKind::Float, [](auto xv) {
      double x = double(xv);
      return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
    });
  return unary(ctx, args, 4, UnaryKind::Float, [](auto xv) {
    double x = double(xv);
    return 0.5 * x * (1.0 + std::erf(x / kSqrt2));
  });
}

Error hardtanh_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  Scalar lo, hi;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), arg("min_val", lo), arg("max_val", hi),
                    outArg("out", out)));
  lo.cat = hi.cat = Cat::Bool; // bounds never lift the category
  return clampImpl(ctx, *in, *out, true, lo, true, hi);
}

Error clamp_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  Scalar lo, hi;
  bool hasLo, hasHi;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), optArg("min", hasLo, lo), optArg("max", hasHi, hi),
                    outArg("out", out)));
  if (!hasLo && !hasHi)
    return ctx.fail(Error::InvalidArgument, "clamp: at least one of min and max must be given");
  return clampImpl(ctx, *in, *out, hasLo, lo, hasHi, hi);
}

Error leaky_relu_out(KernelContext &ctx, Args args) {
  PT_NARGS(4);
  Scalar slope;
  PTEC_TRY(argScalar(ctx, args, 1, "negative_slope", slope));
  Tensor *in;
  PTEC_TRY(argTensor(ctx, args, 0, "self", in));
  if (!isFloatDt(in->dtype()))
    return ctx.fail(Error::InvalidArgument, "leaky_relu needs a floating tensor, got %s",
                    toString(in->dtype()));
  double s = slope.d;
  return unary(ctx, args, 4, UnaryKind::Float,
               [s](auto x) { return double(x) > 0 ? double(x) : double(x) * s; });
}

// --- Selection ------------------------------------------------------------

Error where_self_out(KernelContext &ctx, Args args) {
  Tensor *cond, *a, *b, *out;
  PTEC_TRY(bindArgs(ctx, args, arg("condition", cond), arg("self", a), arg("other", b),
                    outArg("out", out)));
  if (cond->dtype() != ScalarType::Bool && cond->dtype() != ScalarType::Byte)
    return ctx.fail(Error::InvalidArgument, "where: condition must be bool or uint8, got %s",
                    toString(cond->dtype()));
  Cat cat = resultCat(*a, *b);
  PTEC_TRY(checkResultCast(ctx, cat, *out));
  const Tensor *ins[3] = {cond, a, b};
  Shape os;
  PTEC_TRY(broadcastShapes(ctx, ins, 3, os));
  PTEC_TRY(resizeOut(ctx, *out, os));
  withCat(cat, [&](auto c) {
    using C = decltype(c);
    mapElements<C, 3>(ins, *out, os, [](C k, C x, C y) { return k != C{} ? x : y; });
    return 0;
  });
  return Error::Ok;
}

Error masked_fill_scalar_out(KernelContext &ctx, Args args) {
  Tensor *in, *mask, *out;
  Scalar value;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), arg("mask", mask), arg("value", value),
                    outArg("out", out)));
  if (mask->dtype() != ScalarType::Bool)
    return ctx.fail(Error::InvalidArgument, "masked_fill: mask must be bool, got %s",
                    toString(mask->dtype()));
  Shape os = Shape::of(*in);
  if (!broadcastsTo(*mask, os)) {
    ShapeText ms(*mask), ss(*in);
    return ctx.fail(Error::InvalidArgument, "masked_fill: mask of shape %s does not broadcast to self %s",
                    ms.c_str(), ss.c_str());
  }
  PTEC_TRY(resizeOut(ctx, *out, os));
  const Tensor *ins[2] = {in, mask};
  withCat(catOf(in->dtype()), [&](auto c) {
    using C = decltype(c);
    C v = value.as<C>();
    mapElements<C, 2>(ins, *out, os, [v](C x, C m) { return m != C{} ? v : x; });
    return 0;
  });
  return Error::Ok;
}

} // namespace ptec::rt::portable
