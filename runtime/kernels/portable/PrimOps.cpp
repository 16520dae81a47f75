// Prim ops (spec 7): the scalar operators that symbolic shapes become in a
// .pte. sym_size / sym_numel read a tensor's current shape; the
// executorch_prim::*.Scalar ops do Python scalar arithmetic on Int, Double
// and Bool values. Each call's last argument is the return: a placeholder
// value the emitter wrote (Int(0), Double(0) or Bool(false)) that the kernel
// overwrites in place with a value of the result's own tag. IntLists refer to
// those values by pointer, so a later view_copy / et_view sees the new size.
//
// Semantics follow Python, not C: floordiv and mod round toward -inf (the
// remainder takes the divisor's sign), Int / Int truediv gives a Double,
// comparisons give a Bool, ceil / round / trunc / sym_int give an Int (round
// halves to even). Division or modulo by zero, int64 overflow and a
// non-finite value converted to Int fail the kernel with a message; nothing
// here is undefined behaviour for any input.
#include "runtime/kernels/portable/Elementwise.h"
#include "runtime/kernels/portable/Kernels.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace ptec::rt {

namespace {

using portable::Args;
using portable::argInt;
using portable::badTag;
using portable::tagName;

/// A scalar operand: Int (Bool counts as 0/1, as in Python) or Double.
struct Num {
  bool isDouble = false;
  int64_t i = 0;
  double d = 0;
  double asDouble() const { return isDouble ? d : static_cast<double>(i); }
};

Error checkCount(KernelContext &ctx, Args args, size_t n) {
  if (args.size() != n)
    return ctx.fail(Error::InvalidArgument, "expected %zu arguments, got %zu", n, args.size());
  return Error::Ok;
}

Error argNum(KernelContext &ctx, Args args, size_t i, const char *name, Num &out) {
  const EValue *v = args[i];
  out = Num{};
  if (v && v->isInt())
    out.i = v->toInt();
  else if (v && v->isBool())
    out.i = v->toBool() ? 1 : 0;
  else if (v && v->isDouble()) {
    out.isDouble = true;
    out.d = v->toDouble();
  } else {
    return badTag(ctx, i, name, "Int, Double or Bool", v);
  }
  return Error::Ok;
}

/// The return slot must be a scalar placeholder (or None): overwriting a
/// tensor or list value would break every other reference to it.
Error outSlot(KernelContext &ctx, Args args, EValue *&out) {
  size_t i = args.size() - 1;
  out = args[i];
  if (!out || !(out->isInt() || out->isDouble() || out->isBool() || out->isNone()))
    return ctx.fail(Error::InvalidArgument,
                    "argument %zu (out): expected a scalar placeholder (Int, Double or Bool), "
                    "got %s",
                    i, out ? tagName(out->tag()) : "null");
  return Error::Ok;
}

Error setInt(EValue *out, int64_t v) {
  *out = EValue::fromInt(v);
  return Error::Ok;
}
Error setDouble(EValue *out, double v) {
  *out = EValue::fromDouble(v);
  return Error::Ok;
}
Error setBool(EValue *out, bool v) {
  *out = EValue::fromBool(v);
  return Error::Ok;
}

/// double -> int64 as Python's int() does after ceil/floor/round/trunc:
/// refuses NaN, infinities and values outside int64.
Error toInt64(KernelContext &ctx, const char *op, double v, int64_t &out) {
  if (!std::isfinite(v) || v < -9223372036854775808.0 || v >= 9223372036854775808.0)
    return ctx.fail(Error::InvalidArgument, "%s: %g cannot be converted to an int64", op, v);
  out = static_cast<int64_t>(v);
  return Error::Ok;
}

// --- Python integer and float division -------------------------------------

Error intFloorDiv(KernelContext &ctx, const char *op, int64_t a, int64_t b, int64_t &q) {
  if (b == 0)
    return ctx.fail(Error::InvalidArgument, "%s: integer division by zero", op);
  if (a == INT64_MIN && b == -1)
    return ctx.fail(Error::InvalidArgument, "%s: %lld // -1 overflows int64", op,
                    static_cast<long long>(a));
  q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0)))
    --q;
  return Error::Ok;
}

Error intMod(KernelContext &ctx, const char *op, int64_t a, int64_t b, int64_t &r) {
  if (b == 0)
    return ctx.fail(Error::InvalidArgument, "%s: integer modulo by zero", op);
  if (b == -1) { // a % -1 is 0; INT64_MIN % -1 would trap in C
    r = 0;
    return Error::Ok;
  }
  r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return Error::Ok;
}

/// Python's float %: the result has the divisor's sign.
double floatMod(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0) {
    if ((b < 0) != (m < 0))
      m += b;
  } else {
    m = std::copysign(0.0, b);
  }
  return m;
}

// --- Binary ops --------------------------------------------------------------

/// [a, b, out]: two scalar operands and the return slot.
Error argNums(KernelContext &ctx, Args args, Num &a, Num &b, EValue *&out) {
  PTEC_TRY(checkCount(ctx, args, 3));
  PTEC_TRY(argNum(ctx, args, 0, "a", a));
  PTEC_TRY(argNum(ctx, args, 1, "b", b));
  return outSlot(ctx, args, out);
}

enum class BinOp { Add, Sub, Mul, FloorDiv, TrueDiv, Mod, Max, Min };
/// The op's name in failure messages, by BinOp.
constexpr const char *kBinOpNames[] = {"add",     "sub", "mul",     "floordiv",
                                       "truediv", "mod", "sym_max", "sym_min"};

/// Python's float // is floorDiv (Elementwise.h): (a - a mod b) / b rounded
/// to the nearest integer, so that a == (a // b) * b + a % b holds as
/// closely as floats allow.
template <BinOp op> Error binary(KernelContext &ctx, Args args) {
  const char *name = kBinOpNames[static_cast<int>(op)];
  Num a, b;
  EValue *out;
  PTEC_TRY(argNums(ctx, args, a, b, out));
  if (!a.isDouble && !b.isDouble) {
    int64_t r = 0;
    bool overflow = false;
    switch (op) {
    case BinOp::Add: overflow = __builtin_add_overflow(a.i, b.i, &r); break;
    case BinOp::Sub: overflow = __builtin_sub_overflow(a.i, b.i, &r); break;
    case BinOp::Mul: overflow = __builtin_mul_overflow(a.i, b.i, &r); break;
    case BinOp::FloorDiv: PTEC_TRY(intFloorDiv(ctx, name, a.i, b.i, r)); break;
    case BinOp::Mod: PTEC_TRY(intMod(ctx, name, a.i, b.i, r)); break;
    case BinOp::Max: r = std::max(a.i, b.i); break;
    case BinOp::Min: r = std::min(a.i, b.i); break;
    case BinOp::TrueDiv:
      if (b.i == 0)
        return ctx.fail(Error::InvalidArgument, "%s: division by zero", name);
      return setDouble(out, static_cast<double>(a.i) / static_cast<double>(b.i));
    }
    if (overflow)
      return ctx.fail(Error::InvalidArgument, "%s: %lld and %lld overflow int64", name,
                      static_cast<long long>(a.i), static_cast<long long>(b.i));
    return setInt(out, r);
  }
  double x = a.asDouble(), y = b.asDouble();
  switch (op) {
  case BinOp::Add: return setDouble(out, x + y);
  case BinOp::Sub: return setDouble(out, x - y);
  case BinOp::Mul: return setDouble(out, x * y);
  case BinOp::Max: return setDouble(out, std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y));
  case BinOp::Min: return setDouble(out, std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y));
  case BinOp::FloorDiv:
  case BinOp::TrueDiv:
  case BinOp::Mod:
    if (y == 0)
      return ctx.fail(Error::InvalidArgument, "%s: float %s by zero", name,
                      op == BinOp::Mod ? "modulo" : "division");
    return setDouble(out, op == BinOp::TrueDiv   ? x / y
                          : op == BinOp::FloorDiv ? portable::floorDiv(x, y)
                                                  : floatMod(x, y));
  }
  return ctx.fail(Error::Internal, "%s: unknown operation", name);
}

enum class CmpOp { Eq, Gt, Lt, Ge, Le };

template <CmpOp op> Error compare(KernelContext &ctx, Args args) {
  Num a, b;
  EValue *out;
  PTEC_TRY(argNums(ctx, args, a, b, out));
  int c; // -1, 0, 1; 2 when unordered (NaN)
  if (!a.isDouble && !b.isDouble) {
    c = a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
  } else {
    double x = a.asDouble(), y = b.asDouble();
    c = x < y ? -1 : x > y ? 1 : x == y ? 0 : 2;
  }
  bool r = false;
  switch (op) {
  case CmpOp::Eq: r = c == 0; break;
  case CmpOp::Gt: r = c == 1; break;
  case CmpOp::Lt: r = c == -1; break;
  case CmpOp::Ge: r = c == 0 || c == 1; break;
  case CmpOp::Le: r = c == 0 || c == -1; break;
  }
  return setBool(out, r);
}

// --- Unary ops ---------------------------------------------------------------

enum class UnOp { Neg, Float, Int, Ceil, Round, Trunc };
/// The op's name in failure messages, by UnOp.
constexpr const char *kUnOpNames[] = {"neg", "sym_float", "sym_int", "ceil", "round", "trunc"};

/// round() with one argument: nearest integer, halves to even.
double roundHalfEven(double v) {
  double r = std::round(v); // halves away from zero
  if (std::fabs(v - std::trunc(v)) == 0.5)
    r = 2.0 * std::round(v / 2.0);
  return r;
}

template <UnOp op> Error unary(KernelContext &ctx, Args args) {
  const char *name = kUnOpNames[static_cast<int>(op)];
  PTEC_TRY(checkCount(ctx, args, 2));
  Num a;
  EValue *out;
  PTEC_TRY(argNum(ctx, args, 0, "a", a));
  PTEC_TRY(outSlot(ctx, args, out));
  if (op == UnOp::Float)
    return setDouble(out, a.asDouble());
  if (op == UnOp::Neg) {
    if (a.isDouble)
      return setDouble(out, -a.d);
    if (a.i == INT64_MIN)
      return ctx.fail(Error::InvalidArgument, "%s: -(%lld) overflows int64", name,
                      static_cast<long long>(a.i));
    return setInt(out, -a.i);
  }
  if (!a.isDouble)
    return setInt(out, a.i); // already integral
  double r = op == UnOp::Ceil    ? std::ceil(a.d)
             : op == UnOp::Round ? roundHalfEven(a.d)
                                 : std::trunc(a.d); // Int and Trunc
  int64_t v;
  PTEC_TRY(toInt64(ctx, name, r, v));
  return setInt(out, v);
}

// --- Kernels -----------------------------------------------------------------

Error prim_sym_not(KernelContext &ctx, Span<EValue *> args) {
  PTEC_TRY(checkCount(ctx, args, 2));
  const EValue *a = args[0];
  EValue *out;
  if (!a || !(a->isBool() || a->isInt()))
    return badTag(ctx, 0, "a", "Bool", a);
  PTEC_TRY(outSlot(ctx, args, out));
  return setBool(out, a->isBool() ? !a->toBool() : a->toInt() == 0);
}

/// floordiv.int / mod.int: both operands Int.
template <BinOp op> Error intBinary(KernelContext &ctx, Args args) {
  static_assert(op == BinOp::FloorDiv || op == BinOp::Mod);
  const char *name = kBinOpNames[static_cast<int>(op)];
  PTEC_TRY(checkCount(ctx, args, 3));
  int64_t a, b, r;
  EValue *out;
  PTEC_TRY(argInt(ctx, args, 0, "a", a));
  PTEC_TRY(argInt(ctx, args, 1, "b", b));
  PTEC_TRY(outSlot(ctx, args, out));
  PTEC_TRY(op == BinOp::FloorDiv ? intFloorDiv(ctx, name, a, b, r) : intMod(ctx, name, a, b, r));
  return setInt(out, r);
}

/// Only the shape is read: the tensor may have no data yet.
Error argShapeOf(KernelContext &ctx, Args args, size_t i, const Tensor *&t) {
  const EValue *v = args[i];
  if (!v || !v->isTensor() || v->tensorPtr() == nullptr)
    return badTag(ctx, i, "self", "Tensor", v);
  t = v->tensorPtr();
  return Error::Ok;
}

/// aten::sym_size.int(Tensor self, int dim) -> SymInt: the current size.
Error sym_size_int(KernelContext &ctx, Span<EValue *> args) {
  PTEC_TRY(checkCount(ctx, args, 3));
  const Tensor *t;
  int64_t dim;
  EValue *out;
  PTEC_TRY(argShapeOf(ctx, args, 0, t));
  PTEC_TRY(argInt(ctx, args, 1, "dim", dim));
  PTEC_TRY(outSlot(ctx, args, out));
  const int rank = t->dim();
  if (rank == 0 || dim < -rank || dim >= rank)
    return ctx.fail(Error::InvalidArgument,
                    "sym_size: dim %lld out of range for a tensor of rank %d",
                    static_cast<long long>(dim), rank);
  return setInt(out, t->size(static_cast<int>(dim < 0 ? dim + rank : dim)));
}

/// aten::sym_numel(Tensor self) -> SymInt.
Error sym_numel(KernelContext &ctx, Span<EValue *> args) {
  PTEC_TRY(checkCount(ctx, args, 2));
  const Tensor *t;
  EValue *out;
  PTEC_TRY(argShapeOf(ctx, args, 0, t));
  PTEC_TRY(outSlot(ctx, args, out));
  return setInt(out, t->numel());
}

/// aten::_local_scalar_dense(Tensor self) -> Scalar: the one element of a
/// one-element tensor, as Double (floating dtypes), Bool or Int.
Error local_scalar_dense(KernelContext &ctx, Span<EValue *> args) {
  PTEC_TRY(checkCount(ctx, args, 2));
  Tensor *t;
  EValue *out;
  PTEC_TRY(portable::argTensor(ctx, args, 0, "self", t));
  PTEC_TRY(outSlot(ctx, args, out));
  if (t->numel() != 1)
    return ctx.fail(Error::InvalidArgument,
                    "_local_scalar_dense: a tensor with %lld elements is not a scalar",
                    static_cast<long long>(t->numel()));
  if (t->dtype() == ScalarType::Bool)
    return setBool(out, portable::loadAs<int64_t>(t->data(), t->dtype(), 0) != 0);
  if (portable::isFloatDt(t->dtype()))
    return setDouble(out, portable::loadAs<double>(t->data(), t->dtype(), 0));
  return setInt(out, portable::loadAs<int64_t>(t->data(), t->dtype(), 0));
}

// Sorted by name (byte order): findPrimKernel binary-searches it. numArgs
// is schema arguments + 1 (the return placeholder). Every tensor argument
// is read for its shape or one element only, so any dim order is accepted.
const KernelEntry kPrimTable[] = {
    {"aten::_local_scalar_dense", &local_scalar_dense, 2, DimOrderSupport::Any},
    {"aten::sym_numel", &sym_numel, 2, DimOrderSupport::Any},
    {"aten::sym_size.int", &sym_size_int, 3, DimOrderSupport::Any},
    {"executorch_prim::add.Scalar", &binary<BinOp::Add>, 3, DimOrderSupport::Any},
    {"executorch_prim::ceil.Scalar", &unary<UnOp::Ceil>, 2, DimOrderSupport::Any},
    {"executorch_prim::eq.Scalar", &compare<CmpOp::Eq>, 3, DimOrderSupport::Any},
    {"executorch_prim::floordiv.Scalar", &binary<BinOp::FloorDiv>, 3, DimOrderSupport::Any},
    {"executorch_prim::floordiv.int", &intBinary<BinOp::FloorDiv>, 3, DimOrderSupport::Any},
    {"executorch_prim::ge.Scalar", &compare<CmpOp::Ge>, 3, DimOrderSupport::Any},
    {"executorch_prim::gt.Scalar", &compare<CmpOp::Gt>, 3, DimOrderSupport::Any},
    {"executorch_prim::le.Scalar", &compare<CmpOp::Le>, 3, DimOrderSupport::Any},
    {"executorch_prim::lt.Scalar", &compare<CmpOp::Lt>, 3, DimOrderSupport::Any},
    {"executorch_prim::mod.Scalar", &binary<BinOp::Mod>, 3, DimOrderSupport::Any},
    {"executorch_prim::mod.int", &intBinary<BinOp::Mod>, 3, DimOrderSupport::Any},
    {"executorch_prim::mul.Scalar", &binary<BinOp::Mul>, 3, DimOrderSupport::Any},
    {"executorch_prim::neg.Scalar", &unary<UnOp::Neg>, 2, DimOrderSupport::Any},
    {"executorch_prim::round.Scalar", &unary<UnOp::Round>, 2, DimOrderSupport::Any},
    {"executorch_prim::sub.Scalar", &binary<BinOp::Sub>, 3, DimOrderSupport::Any},
    {"executorch_prim::sym_float.Scalar", &unary<UnOp::Float>, 2, DimOrderSupport::Any},
    {"executorch_prim::sym_int.Scalar", &unary<UnOp::Int>, 2, DimOrderSupport::Any},
    {"executorch_prim::sym_max.Scalar", &binary<BinOp::Max>, 3, DimOrderSupport::Any},
    {"executorch_prim::sym_min.Scalar", &binary<BinOp::Min>, 3, DimOrderSupport::Any},
    {"executorch_prim::sym_not.Scalar", &prim_sym_not, 2, DimOrderSupport::Any},
    {"executorch_prim::truediv.Scalar", &binary<BinOp::TrueDiv>, 3, DimOrderSupport::Any},
    {"executorch_prim::trunc.Scalar", &unary<UnOp::Trunc>, 2, DimOrderSupport::Any},
};

} // namespace

Span<const KernelEntry> primKernels() { return {kPrimTable, std::size(kPrimTable)}; }

const KernelEntry *findPrimKernel(const char *fullName) {
  return portable::findSorted(primKernels(), fullName);
}

} // namespace ptec::rt
