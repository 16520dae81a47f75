// Shared helpers for the portable kernels: argument unboxing with clear
// failure messages (KernelArgs.h's bindArgs binds a kernel's whole list),
// dtype-erased element access, broadcasting, dim normalisation and strided
// iteration (Reduce.h has the reductions'). Every kernel goes through these,
// so the rules (what counts as an absent tensor, how dtypes promote, how
// shapes broadcast) live in one place.
#pragma once

#include "runtime/core/EValue.h"
#include "runtime/core/Error.h"
#include "runtime/core/Half.h"
#include "runtime/core/ScalarType.h"
#include "runtime/core/Span.h"
#include "runtime/core/Tensor.h"
#include "runtime/kernels/KernelRegistry.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>

namespace ptec::rt::portable {

using Args = Span<EValue *>;

/// Fail the kernel with InvalidArgument and a printf-style message.
#define PT_CHECK(cond, ...)                                                    \
  do {                                                                         \
    if (!(cond))                                                               \
      return ctx.fail(::ptec::rt::Error::InvalidArgument, __VA_ARGS__);        \
  } while (0)

/// Check the boxed argument count (schema arguments + returns).
#define PT_NARGS(n)                                                            \
  PT_CHECK(args.size() == static_cast<size_t>(n),                              \
           "expected %d arguments, got %zu", static_cast<int>(n), args.size())

// ---------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------

/// A fixed-capacity shape: no heap, copyable.
struct Shape {
  int64_t d[kTensorMaxRank] = {};
  int n = 0;
  Span<const int64_t> span() const { return {d, static_cast<size_t>(n)}; }
  int64_t numel() const { return numelOf(span()); }
  void push(int64_t v) { d[n++] = v; }
  static Shape of(const Tensor &t) {
    Shape s;
    s.n = t.dim();
    for (int i = 0; i < s.n; ++i)
      s.d[i] = t.size(i);
    return s;
  }
};

/// "[2, 3, 4]" into buf; used in failure messages.
inline const char *shapeStr(Span<const int64_t> s, char *buf, size_t cap) {
  size_t pos = 0;
  pos += std::snprintf(buf + pos, cap - pos, "[");
  for (size_t i = 0; i < s.size() && pos < cap; ++i)
    pos += std::snprintf(buf + pos, cap - pos, i ? ", %lld" : "%lld",
                         static_cast<long long>(s[i]));
  if (pos < cap)
    std::snprintf(buf + pos, cap - pos, "]");
  return buf;
}

struct ShapeText {
  char buf[96];
  explicit ShapeText(Span<const int64_t> s) { shapeStr(s, buf, sizeof(buf)); }
  explicit ShapeText(const Tensor &t) { shapeStr(t.sizes(), buf, sizeof(buf)); }
  const char *c_str() const { return buf; }
};

/// Fails with "<op>: <what> has shape [..], expected [..]" unless `t` has
/// exactly the shape `expected`.
inline Error expectShape(KernelContext &ctx, const Tensor &t, const Shape &expected,
                         const char *op, const char *what) {
  bool ok = t.dim() == expected.n;
  for (int i = 0; ok && i < expected.n; ++i)
    ok = t.size(i) == expected.d[i];
  if (ok)
    return Error::Ok;
  ShapeText a(t), b(expected.span());
  return ctx.fail(Error::InvalidArgument, "%s: %s has shape %s, expected %s", op, what,
                  a.c_str(), b.c_str());
}

/// Resize an output, turning a failure into a clear message. Sizes come
/// from program data, so the element count is computed overflow-safely, and
/// an output without memory may only become empty. A program's tensor keeps
/// its rank, a STATIC one its shape and a DYNAMIC_BOUND one its element
/// bound (Tensor::resizeProblem), as upstream's resize_tensor requires: an
/// out argument whose declared shape cannot hold the result fails the
/// kernel, naming both shapes.
inline Error resizeOut(KernelContext &ctx, Tensor &out, Span<const int64_t> sizes,
                       const char *what = "out") {
  ShapeText s(sizes), cur(out);
  if (sizes.size() > static_cast<size_t>(kTensorMaxRank))
    return ctx.fail(Error::InvalidArgument, "cannot resize %s: rank %zu exceeds %d", what,
                    sizes.size(), kTensorMaxRank);
  int64_t n = 1;
  bool overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0)
      return ctx.fail(Error::InvalidArgument, "cannot resize %s to %s: negative size", what,
                      s.c_str());
    overflow = overflow || __builtin_mul_overflow(n, sizes[i], &n);
  }
  int64_t bytes = 0;
  overflow = overflow || __builtin_mul_overflow(n, static_cast<int64_t>(out.elementSize()), &bytes);
  if (overflow)
    return ctx.fail(Error::InvalidArgument, "cannot resize %s to %s: size overflows", what,
                    s.c_str());
  if (out.data() == nullptr && n != 0)
    return ctx.fail(Error::InvalidArgument, "cannot resize %s to %s: it has no memory", what,
                    s.c_str());
  if (static_cast<uint64_t>(bytes) > out.capacityBytes())
    return ctx.fail(Error::InvalidArgument,
                    "cannot resize %s to %s: needs %lld bytes, capacity is %zu bytes", what,
                    s.c_str(), static_cast<long long>(bytes), out.capacityBytes());
  if (const char *why = out.resizeProblem(sizes)) {
    if (out.dynamism() == ShapeDynamism::Bounded)
      return ctx.fail(Error::InvalidArgument,
                      "cannot resize %s %s to %s: %s (%lld elements)", what, cur.c_str(),
                      s.c_str(), why, static_cast<long long>(out.numelBound()));
    return ctx.fail(Error::InvalidArgument, "cannot resize %s %s to %s: %s", what, cur.c_str(),
                    s.c_str(), why);
  }
  return out.resize(sizes);
}
inline Error resizeOut(KernelContext &ctx, Tensor &out, const Shape &s,
                       const char *what = "out") {
  return resizeOut(ctx, out, s.span(), what);
}

/// Normalise a possibly negative dim against rank (rank 0 accepts -1 and 0).
inline Error normDim(KernelContext &ctx, int64_t dim, int rank, int64_t &outDim) {
  int64_t r = rank == 0 ? 1 : rank;
  if (dim < -r || dim >= r)
    return ctx.fail(Error::InvalidArgument,
                    "dim %lld out of range for a tensor of rank %d",
                    static_cast<long long>(dim), rank);
  outDim = dim < 0 ? dim + r : dim;
  return Error::Ok;
}

// ---------------------------------------------------------------------------
// Dtypes
// ---------------------------------------------------------------------------

/// Dtypes the portable kernels can read and write element-wise.
inline bool isSupportedDtype(ScalarType t) {
  switch (t) {
  case ScalarType::Byte: case ScalarType::Char: case ScalarType::Short:
  case ScalarType::Int: case ScalarType::Long: case ScalarType::Float:
  case ScalarType::Double: case ScalarType::Bool: case ScalarType::Half:
  case ScalarType::BFloat16:
    return true;
  default:
    return false;
  }
}
/// float32, float64, float16 or bfloat16.
inline bool isFloatDt(ScalarType t) { return isFloatingType(t); }
/// float16 or bfloat16: stored as 16 bits, computed in float.
inline bool isHalfDt(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }
inline bool isIntDt(ScalarType t) { return isIntegralType(t, false); }
inline bool isIndexDt(ScalarType t) { return t == ScalarType::Long || t == ScalarType::Int; }

/// Read element i of a dtype-erased buffer as C.
template <typename C> inline C loadAs(const void *p, ScalarType t, int64_t i) {
  switch (t) {
  case ScalarType::Float: return static_cast<C>(static_cast<const float *>(p)[i]);
  case ScalarType::Double: return static_cast<C>(static_cast<const double *>(p)[i]);
  case ScalarType::Long: return static_cast<C>(static_cast<const int64_t *>(p)[i]);
  case ScalarType::Int: return static_cast<C>(static_cast<const int32_t *>(p)[i]);
  case ScalarType::Short: return static_cast<C>(static_cast<const int16_t *>(p)[i]);
  case ScalarType::Char: return static_cast<C>(static_cast<const int8_t *>(p)[i]);
  case ScalarType::Byte: return static_cast<C>(static_cast<const uint8_t *>(p)[i]);
  // A bool byte other than 0 or 1 (hostile data) reads as true, never as UB.
  case ScalarType::Bool: return static_cast<C>(static_cast<const uint8_t *>(p)[i] != 0);
  case ScalarType::Half: return static_cast<C>(halfToFloat(static_cast<const uint16_t *>(p)[i]));
  case ScalarType::BFloat16: return static_cast<C>(bf16ToFloat(static_cast<const uint16_t *>(p)[i]));
  default: return C{};
  }
}

/// Float-to-integer conversion that never hits UB (NaN/overflow saturate).
template <typename I> inline I floatToInt(double v) {
  if (std::isnan(v))
    return 0;
  if (v <= static_cast<double>(std::numeric_limits<I>::lowest()))
    return std::numeric_limits<I>::lowest();
  if (v >= static_cast<double>(std::numeric_limits<I>::max()))
    return std::numeric_limits<I>::max();
  return static_cast<I>(v);
}
template <typename D, typename C> inline D castTo(C v) {
  if constexpr (std::is_same_v<D, bool>)
    return v != C{};
  else if constexpr (std::is_floating_point_v<C> && std::is_integral_v<D>)
    return floatToInt<D>(v);
  else
    return static_cast<D>(v);
}

/// Write v (of compute type C) as element i of a dtype-erased buffer.
template <typename C> inline void storeAs(void *p, ScalarType t, int64_t i, C v) {
  switch (t) {
  case ScalarType::Float: static_cast<float *>(p)[i] = castTo<float>(v); break;
  case ScalarType::Double: static_cast<double *>(p)[i] = castTo<double>(v); break;
  case ScalarType::Long: static_cast<int64_t *>(p)[i] = castTo<int64_t>(v); break;
  case ScalarType::Int: static_cast<int32_t *>(p)[i] = castTo<int32_t>(v); break;
  case ScalarType::Short: static_cast<int16_t *>(p)[i] = castTo<int16_t>(v); break;
  case ScalarType::Char: static_cast<int8_t *>(p)[i] = castTo<int8_t>(v); break;
  case ScalarType::Byte: static_cast<uint8_t *>(p)[i] = castTo<uint8_t>(v); break;
  case ScalarType::Bool: static_cast<bool *>(p)[i] = castTo<bool>(v); break;
  // Narrowed through float, as upstream computes Half/BFloat16 in float.
  case ScalarType::Half: static_cast<uint16_t *>(p)[i] = floatToHalf(castTo<float>(v)); break;
  case ScalarType::BFloat16: static_cast<uint16_t *>(p)[i] = floatToBf16(castTo<float>(v)); break;
  default: break;
  }
}

/// Copy one element between buffers of any supported dtypes (exact for
/// integers, via double for floats).
inline void convertElem(const void *src, ScalarType st, int64_t si, void *dst,
                        ScalarType dt, int64_t di) {
  if (isFloatDt(st))
    storeAs<double>(dst, dt, di, loadAs<double>(src, st, si));
  else
    storeAs<int64_t>(dst, dt, di, loadAs<int64_t>(src, st, si));
}

/// Category of a computation: results are computed in bool, int64 or double.
enum class Cat : uint8_t { Bool = 0, Int = 1, Float = 2 };
inline Cat catOf(ScalarType t) {
  return t == ScalarType::Bool ? Cat::Bool : isFloatDt(t) ? Cat::Float : Cat::Int;
}
inline Cat maxCat(Cat a, Cat b) { return a > b ? a : b; }
inline const char *catName(Cat c) {
  return c == Cat::Float ? "floating" : c == Cat::Int ? "integral" : "bool";
}
/// PyTorch's out= rule: a result may not be written to a "lower" category.
inline bool canCastTo(Cat c, ScalarType out) { return catOf(out) >= c; }

/// A Scalar argument (Int, Double or Bool EValue).
struct Scalar {
  Cat cat = Cat::Int;
  double d = 0;
  int64_t i = 0;
  template <typename C> C as() const {
    if constexpr (std::is_floating_point_v<C>)
      return static_cast<C>(d);
    else if constexpr (std::is_same_v<C, bool>)
      return cat == Cat::Float ? d != 0 : i != 0;
    else
      return cat == Cat::Float ? floatToInt<C>(d) : static_cast<C>(i);
  }
};

// ---------------------------------------------------------------------------
// Argument unboxing
// ---------------------------------------------------------------------------

inline const char *tagName(EValue::Tag t) {
  switch (t) {
  case EValue::Tag::None: return "None";
  case EValue::Tag::Int: return "Int";
  case EValue::Tag::Double: return "Double";
  case EValue::Tag::Bool: return "Bool";
  case EValue::Tag::String: return "String";
  case EValue::Tag::Tensor: return "Tensor";
  case EValue::Tag::IntList: return "IntList";
  case EValue::Tag::DoubleList: return "DoubleList";
  case EValue::Tag::BoolList: return "BoolList";
  case EValue::Tag::TensorList: return "TensorList";
  case EValue::Tag::OptionalTensorList: return "OptionalTensorList";
  }
  return "?";
}

inline Error badTag(KernelContext &ctx, size_t i, const char *name, const char *want,
                    const EValue *v) {
  return ctx.fail(Error::InvalidArgument, "argument %zu (%s): expected %s, got %s", i,
                  name, want, v ? tagName(v->tag()) : "null");
}

/// The emitter's placeholder for an omitted optional tensor: BYTE, sizes [0].
inline bool isAbsentPlaceholder(const Tensor &t) {
  return t.dtype() == ScalarType::Byte && t.dim() == 1 && t.size(0) == 0;
}

/// Output tensor: a tensor of a supported dtype whose data may still be
/// unset (resized later by the kernel only if it has capacity).
inline Error argOut(KernelContext &ctx, Args args, size_t i, const char *name,
                    Tensor *&out) {
  EValue *v = args[i];
  if (!v || !v->isTensor() || v->tensorPtr() == nullptr)
    return badTag(ctx, i, name, "Tensor", v);
  out = v->tensorPtr();
  if (!isSupportedDtype(out->dtype()))
    return ctx.fail(Error::InvalidArgument, "argument %zu (%s): unsupported dtype %s", i,
                    name, toString(out->dtype()));
  return Error::Ok;
}

/// Input tensor: like argOut, and its data must be set unless it is empty.
inline Error argTensor(KernelContext &ctx, Args args, size_t i, const char *name,
                       Tensor *&out) {
  PTEC_TRY(argOut(ctx, args, i, name, out));
  if (out->data() == nullptr && out->numel() != 0)
    return ctx.fail(Error::InvalidArgument, "argument %zu (%s): tensor has no data", i,
                    name);
  return Error::Ok;
}

/// Tensor? : None or the BYTE [0] placeholder give nullptr.
inline Error argOptTensor(KernelContext &ctx, Args args, size_t i, const char *name,
                          Tensor *&out) {
  EValue *v = args[i];
  out = nullptr;
  if (v && v->isNone())
    return Error::Ok;
  if (v && v->isTensor() && v->tensorPtr() && isAbsentPlaceholder(*v->tensorPtr()))
    return Error::Ok;
  return argTensor(ctx, args, i, name, out);
}

/// An argument of one tag: `is` checks it (else "expected <want>"), `get`
/// reads it.
template <typename T>
inline Error argTagged(KernelContext &ctx, Args args, size_t i, const char *name,
                       const char *want, bool (EValue::*is)() const, T (EValue::*get)() const,
                       T &out) {
  EValue *v = args[i];
  if (!v || !(v->*is)())
    return badTag(ctx, i, name, want, v);
  out = (v->*get)();
  return Error::Ok;
}

inline Error argInt(KernelContext &ctx, Args args, size_t i, const char *name,
                    int64_t &out) {
  return argTagged(ctx, args, i, name, "Int", &EValue::isInt, &EValue::toInt, out);
}

/// int? : `present` false for None.
inline Error argOptInt(KernelContext &ctx, Args args, size_t i, const char *name,
                       bool &present, int64_t &out) {
  EValue *v = args[i];
  present = false;
  out = 0;
  if (v && v->isNone())
    return Error::Ok;
  present = true;
  return argInt(ctx, args, i, name, out);
}

inline Error argBool(KernelContext &ctx, Args args, size_t i, const char *name, bool &out) {
  return argTagged(ctx, args, i, name, "Bool", &EValue::isBool, &EValue::toBool, out);
}

/// float: Double (Int accepted, as Python would).
inline Error argDouble(KernelContext &ctx, Args args, size_t i, const char *name,
                       double &out) {
  EValue *v = args[i];
  if (!v || !(v->isDouble() || v->isInt()))
    return badTag(ctx, i, name, "Double", v);
  out = v->scalarAsDouble();
  return Error::Ok;
}

inline Error argScalar(KernelContext &ctx, Args args, size_t i, const char *name,
                       Scalar &out) {
  EValue *v = args[i];
  if (!v || !v->isScalar())
    return badTag(ctx, i, name, "Scalar (Int, Double or Bool)", v);
  out.cat = v->isDouble() ? Cat::Float : v->isBool() ? Cat::Bool : Cat::Int;
  out.d = v->scalarAsDouble();
  out.i = v->isDouble() ? floatToInt<int64_t>(v->toDouble())
                        : v->isBool() ? (v->toBool() ? 1 : 0) : v->toInt();
  return Error::Ok;
}

inline Error argOptScalar(KernelContext &ctx, Args args, size_t i, const char *name,
                          bool &present, Scalar &out) {
  EValue *v = args[i];
  present = !(v && v->isNone());
  if (!present)
    return Error::Ok;
  return argScalar(ctx, args, i, name, out);
}

/// A view of a boxed IntList, elements validated once.
struct IntList {
  const EValue *ev = nullptr;
  size_t size() const { return ev ? ev->listSize() : 0; }
  int64_t operator[](size_t i) const { return ev->intListAt(i); }
};

inline Error argIntList(KernelContext &ctx, Args args, size_t i, const char *name,
                        IntList &out) {
  EValue *v = args[i];
  if (!v || !v->isIntList())
    return badTag(ctx, i, name, "IntList", v);
  auto items = v->listItems();
  for (size_t k = 0; k < items.size(); ++k)
    if (!items[k] || !items[k]->isInt())
      return ctx.fail(Error::InvalidArgument, "argument %zu (%s): element %zu is not an Int",
                      i, name, k);
  out.ev = v;
  return Error::Ok;
}

/// int[]? : `present` false for None.
inline Error argOptIntList(KernelContext &ctx, Args args, size_t i, const char *name,
                           bool &present, IntList &out) {
  EValue *v = args[i];
  present = !(v && v->isNone());
  out = IntList{};
  if (!present)
    return Error::Ok;
  return argIntList(ctx, args, i, name, out);
}

/// ScalarType? : keep `dflt` for None.
inline Error argOptDtype(KernelContext &ctx, Args args, size_t i, const char *name,
                         bool &present, ScalarType &out) {
  EValue *v = args[i];
  present = false;
  if (v && v->isNone())
    return Error::Ok;
  if (!v || !v->isInt())
    return badTag(ctx, i, name, "Int (ScalarType) or None", v);
  if (!isValidScalarType(static_cast<int>(v->toInt())))
    return ctx.fail(Error::InvalidArgument, "argument %zu (%s): %lld is not a ScalarType", i,
                    name, static_cast<long long>(v->toInt()));
  present = true;
  out = static_cast<ScalarType>(v->toInt());
  return Error::Ok;
}

/// Tensor[] : every element a tensor of a supported dtype.
inline Error argTensorList(KernelContext &ctx, Args args, size_t i, const char *name,
                           Span<EValue *const> &out) {
  EValue *v = args[i];
  if (!v || !v->isTensorList())
    return badTag(ctx, i, name, "TensorList", v);
  out = v->listItems();
  for (size_t k = 0; k < out.size(); ++k) {
    EValue *e = out[k];
    if (!e || !e->isTensor() || !e->tensorPtr())
      return ctx.fail(Error::InvalidArgument, "argument %zu (%s): element %zu is not a Tensor",
                      i, name, k);
    if (!isSupportedDtype(e->tensorPtr()->dtype()))
      return ctx.fail(Error::InvalidArgument, "argument %zu (%s): element %zu has dtype %s", i,
                      name, k, toString(e->tensorPtr()->dtype()));
  }
  return Error::Ok;
}

/// The return slot: the out tensor again, a TensorList of outs, or None.
/// Only its tag is checked; kernels write through the schema's out args.
inline Error argReturn(KernelContext &ctx, Args args, size_t i) {
  EValue *v = args[i];
  if (!v)
    return ctx.fail(Error::InvalidArgument, "argument %zu (return): null value", i);
  return Error::Ok;
}

// ---------------------------------------------------------------------------
// Broadcasting
// ---------------------------------------------------------------------------

/// Broadcast shapes of n tensors (PyTorch rules), failing with both shapes.
inline Error broadcastShapes(KernelContext &ctx, const Tensor *const *ts, int n, Shape &out) {
  out = Shape{};
  for (int k = 0; k < n; ++k)
    if (ts[k]->dim() > out.n)
      out.n = ts[k]->dim();
  for (int i = 0; i < out.n; ++i)
    out.d[i] = 1;
  for (int k = 0; k < n; ++k) {
    const Tensor &t = *ts[k];
    int off = out.n - t.dim();
    for (int i = 0; i < t.dim(); ++i) {
      int64_t s = t.size(i);
      int64_t &o = out.d[off + i];
      if (s == o || s == 1)
        continue;
      if (o == 1) {
        o = s;
        continue;
      }
      for (int j = 0; j < k; ++j) {
        ShapeText a(*ts[j]), b(t);
        return ctx.fail(Error::InvalidArgument, "shapes %s and %s are not broadcastable",
                        a.c_str(), b.c_str());
      }
      return ctx.fail(Error::InvalidArgument, "shapes are not broadcastable");
    }
  }
  return Error::Ok;
}

/// True when `t` can broadcast to `target` (t's dims match or are 1).
inline bool broadcastsTo(const Tensor &t, const Shape &target) {
  if (t.dim() > target.n)
    return false;
  int off = target.n - t.dim();
  for (int i = 0; i < t.dim(); ++i)
    if (t.size(i) != 1 && t.size(i) != target.d[off + i])
      return false;
  return true;
}

/// Element strides of `t` read as a tensor of shape `out` (0 on broadcast
/// dims). They follow t's dim order, so any layout is read correctly.
inline void broadcastStrides(const Tensor &t, const Shape &out, int64_t *strides) {
  int off = out.n - t.dim();
  for (int i = out.n - 1; i >= 0; --i) {
    int ti = i - off;
    strides[i] = (ti < 0 || t.size(ti) == 1) ? 0 : t.stride(ti);
  }
}

/// Calls f(outOffset, inOffset[0..N)) for every element of the broadcast
/// shape `out` in row-major order: inOffset[k] is the memory offset of the
/// element of input k broadcast to it, outOffset the element's offset in
/// `outTensor` (its dim order; the row-major index when it is null).
template <int N, typename F>
inline void forEachBroadcast(const Shape &out, const Tensor *const (&ins)[N], F &&f,
                             const Tensor *outTensor = nullptr) {
  int64_t numel = out.numel();
  if (numel == 0)
    return;
  if (out.n == 0) {
    int64_t idx[N] = {};
    f(int64_t{0}, idx);
    return;
  }
  int64_t strides[N][kTensorMaxRank];
  for (int k = 0; k < N; ++k)
    broadcastStrides(*ins[k], out, strides[k]);
  // Output strides: row-major unless the output has another dim order.
  int64_t ostr[kTensorMaxRank];
  const bool outStrided = outTensor != nullptr && !outTensor->isContiguous();
  for (int64_t d = out.n - 1, s = 1; d >= 0; --d) {
    ostr[d] = outStrided ? outTensor->stride(static_cast<int>(d)) : s;
    s *= out.d[d];
  }
  int64_t coord[kTensorMaxRank] = {};
  int64_t base[N] = {};
  int64_t obase = 0;
  int last = out.n - 1;
  int64_t inner = out.d[last];
  int64_t idx[N];
  for (int64_t o = 0; o < numel; o += inner) {
    for (int64_t j = 0; j < inner; ++j) {
      for (int k = 0; k < N; ++k)
        idx[k] = base[k] + j * strides[k][last];
      f(obase + j * ostr[last], static_cast<const int64_t(&)[N]>(idx));
    }
    // Advance the outer coordinates.
    for (int d = last - 1; d >= 0; --d) {
      ++coord[d];
      for (int k = 0; k < N; ++k)
        base[k] += strides[k][d];
      obase += ostr[d];
      if (coord[d] < out.d[d])
        break;
      for (int k = 0; k < N; ++k)
        base[k] -= strides[k][d] * coord[d];
      obase -= ostr[d] * coord[d];
      coord[d] = 0;
    }
  }
}

/// outer x size x inner decomposition around one dim (softmax, cumsum, cat).
struct AxisSplit {
  int64_t outer = 1, size = 1, inner = 1;
};
inline AxisSplit splitAt(const Tensor &t, int64_t dim) {
  AxisSplit s;
  for (int i = 0; i < t.dim(); ++i) {
    if (i < dim)
      s.outer *= t.size(i);
    else if (i == dim)
      s.size = t.size(i);
    else
      s.inner *= t.size(i);
  }
  return s;
}

/// memmove: a hostile program may place `out` over its input (planned
/// ranges overlap); that gives wrong numbers, never undefined behaviour.
inline void copyElems(void *dst, int64_t di, const void *src, int64_t si, int64_t n,
                      size_t esize) {
  if (n > 0)
    std::memmove(static_cast<uint8_t *>(dst) + di * esize,
                static_cast<const uint8_t *>(src) + si * esize, static_cast<size_t>(n) * esize);
}

/// Calls f(outIndex, base + sum(coord[d] * strides[d])) for every element of
/// a row-major shape `os` (views: permute, slice, select, expand).
template <typename F>
inline void forEachStrided(const Shape &os, const int64_t *strides, int64_t base, F &&f) {
  int64_t numel = os.numel();
  if (numel == 0)
    return;
  if (os.n == 0) {
    f(int64_t{0}, base);
    return;
  }
  int64_t coord[kTensorMaxRank] = {};
  int last = os.n - 1;
  int64_t inner = os.d[last], st = strides[last];
  for (int64_t o = 0; o < numel; o += inner) {
    for (int64_t j = 0; j < inner; ++j)
      f(o + j, base + j * st);
    // No step past the last row: with hostile strides the next base would
    // overflow though nothing reads it (UBSan finding, unfold_copy).
    if (o + inner >= numel)
      break;
    for (int d = last - 1; d >= 0; --d) {
      base += strides[d];
      if (++coord[d] < os.d[d])
        break;
      base -= strides[d] * coord[d];
      coord[d] = 0;
    }
  }
}

/// out (contiguous, shape os, same dtype as in) gets in's elements read
/// through `strides` from `base`.
inline void gatherStrided(const Tensor &in, int64_t base, const int64_t *strides, Tensor &out,
                          const Shape &os) {
  size_t es = in.elementSize();
  const uint8_t *src = static_cast<const uint8_t *>(in.data());
  uint8_t *dst = static_cast<uint8_t *>(out.mutableData());
  auto copy = [&](auto tag) {
    using T = decltype(tag);
    const T *s = reinterpret_cast<const T *>(src);
    T *d = reinterpret_cast<T *>(dst);
    forEachStrided(os, strides, base, [&](int64_t o, int64_t i) { d[o] = s[i]; });
  };
  switch (es) {
  case 1: copy(uint8_t{}); break;
  case 2: copy(uint16_t{}); break;
  case 4: copy(uint32_t{}); break;
  default: copy(uint64_t{}); break;
  }
}

/// A dtype? argument, when given, must be out's dtype (sum, mean, prod, cumsum).
inline Error checkDtypeArg(KernelContext &ctx, bool hasDtype, ScalarType dtype, const Tensor &out,
                           const char *op) {
  if (hasDtype && dtype != out.dtype())
    return ctx.fail(Error::InvalidArgument, "%s: dtype %s given but out has dtype %s", op,
                    toString(dtype), toString(out.dtype()));
  return Error::Ok;
}

/// PyTorch's out= rule for a result computed in category `cat`.
inline Error checkResultCast(KernelContext &ctx, Cat cat, const Tensor &out) {
  if (!canCastTo(cat, out.dtype()))
    return ctx.fail(Error::InvalidArgument,
                    "result type is %s but out has dtype %s, which cannot hold it",
                    catName(cat), toString(out.dtype()));
  return Error::Ok;
}

/// An index tensor (`what`: "indices", "index", "out") must be int64.
inline Error requireInt64(KernelContext &ctx, const Tensor &t, const char *op, const char *what) {
  if (t.dtype() != ScalarType::Long)
    return ctx.fail(Error::InvalidArgument, "%s: %s must be int64, got %s", op, what,
                    toString(t.dtype()));
  return Error::Ok;
}

/// out must have in's dtype (the view-copy ops do not convert).
inline Error checkSameDtype(KernelContext &ctx, const Tensor &in, const Tensor &out,
                            const char *op) {
  if (in.dtype() != out.dtype())
    return ctx.fail(Error::InvalidArgument, "%s: out dtype %s differs from input dtype %s", op,
                    toString(out.dtype()), toString(in.dtype()));
  return Error::Ok;
}

} // namespace ptec::rt::portable

#include "runtime/kernels/portable/KernelArgs.h"
