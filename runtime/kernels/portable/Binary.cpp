// Binary element-wise kernels beyond Elementwise.cpp: atan2, bitwise and
// logical ops, shifts, maximum/minimum, floor_divide, fmod, remainder,
// pow.Scalar_out, div.Scalar_mode_out's siblings and clamp.Tensor_out. They
// share Elementwise.h's broadcasting engine and PyTorch's category
// promotion (a Scalar only lifts the category).
#include "runtime/kernels/portable/Elementwise.h"
#include "runtime/kernels/portable/Kernels.h"

#include <cmath>

namespace ptec::rt::portable {

namespace {

/// Bitwise ops and shifts are defined on integers and bool only.
Error requireIntegral(KernelContext &ctx, const Tensor &t, const char *op, const char *what) {
  if (isFloatDt(t.dtype()))
    return ctx.fail(Error::InvalidArgument, "%s: %s must be integral or bool, got %s", op, what,
                    toString(t.dtype()));
  return Error::Ok;
}

/// [self, other, out, ret] of the bitwise ops and shifts: integral or bool
/// operands; a Scalar `other` must not be floating (`scalarKind` says what
/// it must be).
Error unboxIntegral(KernelContext &ctx, Args args, Rhs rhs, const char *op,
                    const char *scalarKind, BinaryArgs &ba) {
  PT_NARGS(4);
  PTEC_TRY(unboxBinary(ctx, args, rhs, 2, ba));
  PTEC_TRY(requireIntegral(ctx, *ba.a, op, "self"));
  if (rhs == Rhs::Tensor)
    return requireIntegral(ctx, *ba.b, op, "other");
  if (ba.s.cat == Cat::Float)
    return ctx.fail(Error::InvalidArgument, "%s: other must be %s Scalar", op, scalarKind);
  return Error::Ok;
}

enum class BitOp { And, Or, Xor };

template <BitOp K> Error bitwise(KernelContext &ctx, Args args, Rhs rhs, const char *op) {
  BinaryArgs ba;
  PTEC_TRY(unboxIntegral(ctx, args, rhs, op, "an integer or bool", ba));
  ScalarTensor st(ba.s);
  const Tensor &b = rhs == Rhs::Scalar ? st.tensor() : *ba.b;
  Cat cat = resultCat(*ba.a, b);
  return binary(ctx, *ba.a, b, *ba.out, cat, true, [](auto x, auto y) {
    using C = decltype(x);
    if constexpr (std::is_same_v<C, bool>)
      return K == BitOp::And ? (x && y) : K == BitOp::Or ? (x || y) : (x != y);
    else if constexpr (std::is_integral_v<C>)
      return K == BitOp::And ? C(x & y) : K == BitOp::Or ? C(x | y) : C(x ^ y);
    else
      return x; // unreachable: floating operands are refused above
  });
}

/// Shifts at the width of out's dtype, as PyTorch computes them in the
/// result type: a left shift by a negative amount or by >= width gives 0; a
/// right shift so gives the sign fill (x >> (width - 1)).
Error shift(KernelContext &ctx, Args args, Rhs rhs, bool left, const char *op) {
  BinaryArgs ba;
  PTEC_TRY(unboxIntegral(ctx, args, rhs, op, "an integer", ba));
  ScalarTensor st(ba.s);
  const Tensor &b = rhs == Rhs::Scalar ? st.tensor() : *ba.b;
  if (!isIntDt(ba.out->dtype()))
    return ctx.fail(Error::InvalidArgument, "%s: out must be integral, got %s", op,
                    toString(ba.out->dtype()));
  const int64_t width = static_cast<int64_t>(ba.out->elementSize()) * 8;
  const bool isUnsigned = ba.out->dtype() == ScalarType::Byte;
  return binary(ctx, *ba.a, b, *ba.out, Cat::Int, true, [=](int64_t x, int64_t y) -> int64_t {
    if (left) {
      if (y < 0 || y >= width)
        return 0;
      return static_cast<int64_t>(static_cast<uint64_t>(x) << y);
    }
    if (isUnsigned) // the uint8 value, shifted logically
      x &= 0xFF;
    if (y < 0 || y >= width)
      y = width - 1;
    return x >> y;
  });
}

Error logicalBinary(KernelContext &ctx, Args args, bool isXor) {
  return binaryKernel(
      ctx, args, Rhs::Tensor, 4,
      [isXor](auto x, auto y) -> bool {
        bool a = x != 0, b = y != 0;
        return isXor ? a != b : (a || b);
      },
      /*checkCast=*/false);
}

/// maximum / minimum: NaN in either operand propagates.
Error extremum(KernelContext &ctx, Args args, bool isMax) {
  return binaryKernel(ctx, args, Rhs::Tensor, 4, [isMax](auto x, auto y) {
    using C = decltype(x);
    if constexpr (std::is_floating_point_v<C>)
      if (std::isnan(x) || std::isnan(y))
        return std::isnan(x) ? x : y;
    return isMax ? (x < y ? y : x) : (y < x ? y : x);
  });
}

/// floor_divide, fmod and remainder: integer and floating flavours; an
/// integer zero divisor fails as PyTorch's ZeroDivisionError does.
enum class DivKind { FloorDivide, Fmod, Remainder };

double remainderF(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0 && ((b < 0) != (m < 0)))
    m += b;
  return m;
}

Error divLike(KernelContext &ctx, Args args, Rhs rhs, DivKind kind, const char *op) {
  PT_NARGS(4);
  BinaryArgs ba;
  PTEC_TRY(unboxBinary(ctx, args, rhs, 2, ba));
  ScalarTensor st(ba.s);
  const Tensor &b = rhs == Rhs::Scalar ? st.tensor() : *ba.b;
  Cat cat = resultCat(*ba.a, b);
  if (cat == Cat::Bool)
    return ctx.fail(Error::InvalidArgument, "%s: bool operands are not supported", op);
  if (cat == Cat::Float)
    return binary(ctx, *ba.a, b, *ba.out, cat, true, [kind](double x, double y) {
      return kind == DivKind::FloorDivide ? floorDiv(x, y)
             : kind == DivKind::Fmod     ? std::fmod(x, y)
                                         : remainderF(x, y);
    });
  bool divByZero = false;
  PTEC_TRY(binary(ctx, *ba.a, b, *ba.out, cat, true, [&](int64_t x, int64_t y) -> int64_t {
    if (y == 0) {
      divByZero = true;
      return 0;
    }
    if (y == -1) // INT64_MIN / -1 overflows: the quotient wraps, the remainder is 0
      return kind == DivKind::FloorDivide ? static_cast<int64_t>(0ULL - static_cast<uint64_t>(x))
                                          : 0;
    int64_t q = x / y, m = x % y;
    bool adjust = m != 0 && ((m < 0) != (y < 0));
    if (kind == DivKind::FloorDivide)
      return adjust ? q - 1 : q;
    if (kind == DivKind::Fmod)
      return m;
    return adjust ? m + y : m;
  }));
  if (divByZero)
    return ctx.fail(Error::InvalidArgument, "%s: integer division by zero", op);
  return Error::Ok;
}

} // namespace

Error atan2_out(KernelContext &ctx, Args args) {
  return binaryKernel(
      ctx, args, Rhs::Tensor, 4, [](double y, double x) { return std::atan2(y, x); },
      /*checkCast=*/true, /*forceFloat=*/true);
}

Error bitwise_and_tensor_out(KernelContext &ctx, Args args) {
  return bitwise<BitOp::And>(ctx, args, Rhs::Tensor, "bitwise_and");
}
Error bitwise_and_scalar_out(KernelContext &ctx, Args args) {
  return bitwise<BitOp::And>(ctx, args, Rhs::Scalar, "bitwise_and");
}
Error bitwise_or_tensor_out(KernelContext &ctx, Args args) {
  return bitwise<BitOp::Or>(ctx, args, Rhs::Tensor, "bitwise_or");
}
Error bitwise_or_scalar_out(KernelContext &ctx, Args args) {
  return bitwise<BitOp::Or>(ctx, args, Rhs::Scalar, "bitwise_or");
}
Error bitwise_xor_tensor_out(KernelContext &ctx, Args args) {
  return bitwise<BitOp::Xor>(ctx, args, Rhs::Tensor, "bitwise_xor");
}
Error bitwise_xor_scalar_out(KernelContext &ctx, Args args) {
  return bitwise<BitOp::Xor>(ctx, args, Rhs::Scalar, "bitwise_xor");
}
Error bitwise_left_shift_tensor_out(KernelContext &ctx, Args args) {
  return shift(ctx, args, Rhs::Tensor, true, "bitwise_left_shift");
}
Error bitwise_left_shift_tensor_scalar_out(KernelContext &ctx, Args args) {
  return shift(ctx, args, Rhs::Scalar, true, "bitwise_left_shift");
}
Error bitwise_right_shift_tensor_out(KernelContext &ctx, Args args) {
  return shift(ctx, args, Rhs::Tensor, false, "bitwise_right_shift");
}
Error bitwise_right_shift_tensor_scalar_out(KernelContext &ctx, Args args) {
  return shift(ctx, args, Rhs::Scalar, false, "bitwise_right_shift");
}

Error logical_or_out(KernelContext &ctx, Args args) { return logicalBinary(ctx, args, false); }
Error logical_xor_out(KernelContext &ctx, Args args) { return logicalBinary(ctx, args, true); }

Error maximum_out(KernelContext &ctx, Args args) { return extremum(ctx, args, true); }
Error minimum_out(KernelContext &ctx, Args args) { return extremum(ctx, args, false); }

Error floor_divide_out(KernelContext &ctx, Args args) {
  return divLike(ctx, args, Rhs::Tensor, DivKind::FloorDivide, "floor_divide");
}
Error fmod_tensor_out(KernelContext &ctx, Args args) {
  return divLike(ctx, args, Rhs::Tensor, DivKind::Fmod, "fmod");
}
Error fmod_scalar_out(KernelContext &ctx, Args args) {
  return divLike(ctx, args, Rhs::Scalar, DivKind::Fmod, "fmod");
}
Error remainder_tensor_out(KernelContext &ctx, Args args) {
  return divLike(ctx, args, Rhs::Tensor, DivKind::Remainder, "remainder");
}
Error remainder_scalar_out(KernelContext &ctx, Args args) {
  return divLike(ctx, args, Rhs::Scalar, DivKind::Remainder, "remainder");
}

/// pow.Scalar_out: [self (Scalar), exponent (Tensor), out, ret].
Error pow_scalar_out(KernelContext &ctx, Args args) {
  Scalar base;
  Tensor *exp, *out;
  PTEC_TRY(bindArgs(ctx, args, arg("self", base), arg("exponent", exp), outArg("out", out)));
  ScalarTensor st(base);
  Cat cat = maxCat(resultCat(st.tensor(), *exp), Cat::Int);
  if (cat == Cat::Float)
    return binary(ctx, st.tensor(), *exp, *out, cat, true,
                  [](double x, double y) { return std::pow(x, y); });
  bool negExp = false;
  PTEC_TRY(binary(ctx, st.tensor(), *exp, *out, cat, true, [&](int64_t x, int64_t y) -> int64_t {
    if (y < 0) {
      negExp = true;
      return 0;
    }
    uint64_t r = 1, b = static_cast<uint64_t>(x);
    for (; y > 0; y >>= 1, b *= b)
      if (y & 1)
        r *= b;
    return static_cast<int64_t>(r);
  }));
  if (negExp)
    return ctx.fail(Error::InvalidArgument, "pow: integers to negative integer powers are not allowed");
  return Error::Ok;
}

/// clamp.Tensor_out: [self, min?, max?, out, ret]; the bounds broadcast with
/// self and NaN in any operand propagates.
Error clamp_tensor_out(KernelContext &ctx, Args args) {
  Tensor *in, *lo, *hi, *out;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), optArg("min", lo), optArg("max", hi),
                    outArg("out", out)));
  if (!lo && !hi)
    return ctx.fail(Error::InvalidArgument, "clamp: at least one of min and max must be given");
  const bool hasLo = lo != nullptr, hasHi = hi != nullptr;
  Cat cat;
  PTEC_TRY(clampCat(ctx, catOf(in->dtype()), hasLo, hasLo ? catOf(lo->dtype()) : Cat::Bool, hasHi,
                    hasHi ? catOf(hi->dtype()) : Cat::Bool, *out, cat));
  // An absent bound reads self again and is ignored.
  const Tensor *ins[3] = {in, lo ? lo : in, hi ? hi : in};
  Shape os;
  PTEC_TRY(broadcastShapes(ctx, ins, 3, os));
  PTEC_TRY(resizeOut(ctx, *out, os));
  withCat(cat, [&](auto c) {
    using C = decltype(c);
    mapElements<C, 3>(ins, *out, os, [=](C x, C l, C h) {
      if constexpr (std::is_floating_point_v<C>)
        if (std::isnan(x) || (hasLo && std::isnan(l)) || (hasHi && std::isnan(h)))
          return C(NAN);
      return clampTo(x, hasLo, l, hasHi, h);
    });
    return 0;
  });
  return Error::Ok;
}

} // namespace ptec::rt::portable
