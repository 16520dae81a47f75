// The element-wise engine: maps an operation over N broadcast inputs into an
// output, computing in the category's type (bool, int64 or double) and
// converting on load and store. float32-only calls take a typed fast path.
#pragma once

#include "runtime/kernels/portable/KernelUtils.h"

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
    if (s.cat == Cat::Float) {
      d_ = s.d;
      t_.init(ScalarType::Double, {});
      t_.setData(&d_, sizeof(d_));
    } else if (s.cat == Cat::Int) {
      i_ = s.i;
      t_.init(ScalarType::Long, {});
      t_.setData(&i_, sizeof(i_));
    } else {
      b_ = s.i != 0;
      t_.init(ScalarType::Bool, {});
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

} // namespace ptec::rt::portable
