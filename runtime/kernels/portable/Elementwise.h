// The element-wise engine: maps an operation over N broadcast inputs into an
// output, computing in the category's type (bool, int64 or double) and
// converting on load and store. float32-only calls take a typed fast path.
#pragma once

#include "runtime/kernels/portable/KernelUtils.h"

#include <cmath>
#include <type_traits>

namespace ptec::rt::portable {

/// Compute type of a category.
template <Cat c> struct CatType;
template <> struct CatType<Cat::Bool> { using type = bool; };
template <> struct CatType<Cat::Int> { using type = int64_t; };
template <> struct CatType<Cat::Float> { using type = double; };

/// Calls f(C{}) with C the compute type of `c`.
template <typename F> inline auto withCat(Cat c, F &&f) {
  switch (c) {
  case Cat::Bool: return f(bool{});
  case Cat::Int: return f(int64_t{});
  case Cat::Float: break;
  }
  return f(double{});
}

/// Integer arithmetic wraps (two's complement) as PyTorch's does, without
/// signed-overflow UB; other types use plain arithmetic.
template <typename C> inline C wrapAdd(C a, C b) {
  if constexpr (std::is_same_v<C, int64_t>)
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  else
    return C(a + b);
}
template <typename C> inline C wrapSub(C a, C b) {
  if constexpr (std::is_same_v<C, int64_t>)
    return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
  else
    return C(a - b);
}
template <typename C> inline C wrapMul(C a, C b) {
  if constexpr (std::is_same_v<C, int64_t>)
    return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  else
    return C(a * b);
}
template <typename C> inline C wrapNeg(C a) { return wrapSub(C{}, a); }

/// A rank-0 tensor over a Scalar, so that Scalar overloads reuse the tensor
/// paths. Lives on the stack; not copyable.
class ScalarTensor {
public:
  explicit ScalarTensor(const Scalar &s) {
    // (void) on init: rank 0 with no dim order cannot fail.
    if (s.cat == Cat::Float) {
      d_ = s.d;
      (void)t_.init(ScalarType::Double, {});
      t_.setData(&d_, sizeof(d_));
    } else if (s.cat == Cat::Int) {
      i_ = s.i;
      (void)t_.init(ScalarType::Long, {});
      t_.setData(&i_, sizeof(i_));
    } else {
      b_ = s.i != 0;
      (void)t_.init(ScalarType::Bool, {});
      t_.setData(&b_, sizeof(b_));
    }
  }
  ScalarTensor(const ScalarTensor &) = delete;
  ScalarTensor &operator=(const ScalarTensor &) = delete;
  const Tensor &tensor() const { return t_; }

private:
  double d_ = 0;
  int64_t i_ = 0;
  bool b_ = false;
  Tensor t_;
};

/// out[i] = op(in_0[b_0(i)], ..., in_{N-1}[b_{N-1}(i)]) over the broadcast
/// shape `os`; inputs are read as C, the result is stored converted. Every
/// tensor is addressed through its own dim order.
template <typename C, int N, typename Op>
inline void mapElements(const Tensor *const (&ins)[N], Tensor &out, const Shape &os, Op &&op) {
  void *po = out.mutableData();
  ScalarType ot = out.dtype();
  bool allFloat = ot == ScalarType::Float;
  const void *p[N];
  ScalarType t[N];
  for (int k = 0; k < N; ++k) {
    p[k] = ins[k]->data();
    t[k] = ins[k]->dtype();
    allFloat = allFloat && t[k] == ScalarType::Float;
  }
  if constexpr (std::is_same_v<C, double>) {
    if (allFloat) {
      float *fo = static_cast<float *>(po);
      const float *f[N];
      for (int k = 0; k < N; ++k)
        f[k] = static_cast<const float *>(p[k]);
      forEachBroadcast<N>(os, ins, [&](int64_t o, const int64_t(&ix)[N]) {
        if constexpr (N == 1)
          fo[o] = castTo<float>(op(double(f[0][ix[0]])));
        else if constexpr (N == 2)
          fo[o] = castTo<float>(op(double(f[0][ix[0]]), double(f[1][ix[1]])));
        else
          fo[o] = castTo<float>(
              op(double(f[0][ix[0]]), double(f[1][ix[1]]), double(f[2][ix[2]])));
      }, &out);
      return;
    }
  }
  forEachBroadcast<N>(os, ins, [&](int64_t o, const int64_t(&ix)[N]) {
    if constexpr (N == 1)
      storeAs(po, ot, o, op(loadAs<C>(p[0], t[0], ix[0])));
    else if constexpr (N == 2)
      storeAs(po, ot, o, op(loadAs<C>(p[0], t[0], ix[0]), loadAs<C>(p[1], t[1], ix[1])));
    else
      storeAs(po, ot, o,
              op(loadAs<C>(p[0], t[0], ix[0]), loadAs<C>(p[1], t[1], ix[1]),
                 loadAs<C>(p[2], t[2], ix[2])));
  }, &out);
}


// ---------------------------------------------------------------------------
// Shared kernel bodies (Elementwise.cpp, Binary.cpp, UnaryMath.cpp)
// ---------------------------------------------------------------------------

/// Binary op over two tensors into `out` (broadcast), computing in `cat`.
/// `checkCast`: refuse an out dtype of a lower category (PyTorch's rule for
/// arithmetic; comparisons and logical ops may write any dtype).
template <typename Op>
Error binary(KernelContext &ctx, const Tensor &a, const Tensor &b, Tensor &out, Cat cat,
             bool checkCast, Op &&op) {
  if (checkCast)
    PTEC_TRY(checkResultCast(ctx, cat, out));
  const Tensor *ins[2] = {&a, &b};
  Shape os;
  PTEC_TRY(broadcastShapes(ctx, ins, 2, os));
  PTEC_TRY(resizeOut(ctx, out, os));
  withCat(cat, [&](auto c) {
    using C = decltype(c);
    mapElements<C, 2>(ins, out, os, [&](C x, C y) { return op(x, y); });
    return 0;
  });
  return Error::Ok;
}

/// Whether `other` is a Tensor or a Scalar argument.
enum class Rhs { Tensor, Scalar };

struct BinaryArgs {
  Tensor *a = nullptr, *b = nullptr, *out = nullptr;
  Scalar s;
};

/// Unboxes [self, other, ..., out (at outIdx), ret].
inline Error unboxBinary(KernelContext &ctx, Args args, Rhs rhs, size_t outIdx, BinaryArgs &ba) {
  PTEC_TRY(argTensor(ctx, args, 0, "self", ba.a));
  if (rhs == Rhs::Tensor)
    PTEC_TRY(argTensor(ctx, args, 1, "other", ba.b));
  else
    PTEC_TRY(argScalar(ctx, args, 1, "other", ba.s));
  PTEC_TRY(argOut(ctx, args, outIdx, "out", ba.out));
  return argReturn(ctx, args, outIdx + 1);
}

/// Category of self op other, with PyTorch's rule that a Scalar only lifts
/// the category (it never narrows a tensor's dtype).
inline Cat resultCat(const Tensor &a, const Tensor &b) { return maxCat(catOf(a.dtype()), catOf(b.dtype())); }

template <typename Op>
Error binaryKernel(KernelContext &ctx, Args args, Rhs rhs, size_t nargs, Op &&op,
                   bool checkCast = true, bool forceFloat = false) {
  PT_NARGS(nargs);
  BinaryArgs ba;
  PTEC_TRY(unboxBinary(ctx, args, rhs, nargs - 2, ba));
  if (rhs == Rhs::Scalar) {
    ScalarTensor st(ba.s);
    Cat cat = forceFloat ? Cat::Float : resultCat(*ba.a, st.tensor());
    return binary(ctx, *ba.a, st.tensor(), *ba.out, cat, checkCast, op);
  }
  Cat cat = forceFloat ? Cat::Float : resultCat(*ba.a, *ba.b);
  return binary(ctx, *ba.a, *ba.b, *ba.out, cat, checkCast, op);
}

/// Floor division of floats as PyTorch defines it (consistent with fmod).
inline double floorDiv(double a, double b) {
  if (b == 0)
    return a / b;
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0)))
    div -= 1;
  if (div == 0)
    return std::copysign(0.0, a / b);
  double fl = std::floor(div);
  if (div - fl > 0.5)
    fl += 1;
  return fl;
}

enum class UnaryKind {
  Float,    ///< result is floating (exp, sin, ...): int inputs promote
  Preserve, ///< result keeps the input's category (neg, abs, relu)
};

/// [self, <nExtra scalar args>, out, ret]; op(C) -> value.
template <typename Op>
Error unary(KernelContext &ctx, Args args, size_t nargs, UnaryKind kind, Op &&op) {
  PT_NARGS(nargs);
  Tensor *in, *out;
  PTEC_TRY(argTensor(ctx, args, 0, "self", in));
  PTEC_TRY(argOut(ctx, args, nargs - 2, "out", out));
  PTEC_TRY(argReturn(ctx, args, nargs - 1));
  Cat cat = kind == UnaryKind::Float ? Cat::Float : catOf(in->dtype());
  PTEC_TRY(checkResultCast(ctx, cat, *out));
  Shape os = Shape::of(*in);
  PTEC_TRY(resizeOut(ctx, *out, os));
  const Tensor *ins[1] = {in};
  withCat(cat, [&](auto c) {
    using C = decltype(c);
    mapElements<C, 1>(ins, *out, os, [&](C x) { return op(x); });
    return 0;
  });
  return Error::Ok;
}

template <typename F> Error floatUnary(KernelContext &ctx, Args args, F f) {
  return unary(ctx, args, 3, UnaryKind::Float, [f](auto x) { return f(double(x)); });
}

/// clamp's category: self's, lifted by each bound that is present. Bool is
/// refused, and out must hold the result.
inline Error clampCat(KernelContext &ctx, Cat self, bool hasLo, Cat lo, bool hasHi, Cat hi,
                      const Tensor &out, Cat &cat) {
  cat = self;
  if (hasLo)
    cat = maxCat(cat, lo);
  if (hasHi)
    cat = maxCat(cat, hi);
  if (cat == Cat::Bool)
    return ctx.fail(Error::InvalidArgument, "clamp is not supported for bool tensors");
  return checkResultCast(ctx, cat, out);
}

/// x limited to [lo, hi], each bound only when present (NaN is the caller's).
template <typename C> inline C clampTo(C x, bool hasLo, C lo, bool hasHi, C hi) {
  if (hasLo && x < lo)
    x = lo;
  if (hasHi && x > hi)
    x = hi;
  return x;
}

/// [self, out, ret]: out = pred(self) read as double (isnan, isinf).
template <typename P> Error floatPredicate(KernelContext &ctx, Args args, P pred) {
  Tensor *in, *out;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), outArg("out", out)));
  Shape os = Shape::of(*in);
  PTEC_TRY(resizeOut(ctx, *out, os));
  const Tensor *ins[1] = {in};
  mapElements<double, 1>(ins, *out, os, [pred](double x) -> bool { return pred(x); });
  return Error::Ok;
}

} // namespace ptec::rt::portable
