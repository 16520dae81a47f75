// Declarative argument binding for the portable kernels. A kernel lists its
// schema arguments in order and bindArgs unboxes them:
//
//   Tensor *in, *out;
//   IntList dims;
//   bool keepdim;
//   PTEC_TRY(bindArgs(ctx, args, arg("self", in), arg("dim", dims),
//                     arg("keepdim", keepdim), outArg("out", out)));
//
// It checks the argument count (the listed arguments + the return slot, as
// PT_NARGS does), binds argument i with the argX helper for its kind, stops at
// the first failure, and checks the trailing return slot with argReturn, so
// every failure message is the helper's own. The fold over the argument list
// inlines to the same straight-line code as one PTEC_TRY per argument.
// bindSelfAndOut does the same for the [self, ..., out, ret] kernels that
// check self and out first.
//
// KernelUtils.h includes this header at its end.
#pragma once

#include "runtime/kernels/portable/KernelUtils.h"

#include <cstddef>
#include <tuple>
#include <utility>

namespace ptec::rt::portable {

namespace argbind {

/// A required argument whose kind follows from the variable's type.
template <typename T> struct Arg {
  const char *name;
  T &v;
};
/// An out tensor (argOut: data may still be unset).
struct Out {
  const char *name;
  Tensor *&v;
};
/// A Tensor? (nullptr when absent).
struct OptTensor {
  const char *name;
  Tensor *&v;
};
/// An optional int, Scalar, int list or dtype with its `has` flag.
template <typename T> struct Opt {
  const char *name;
  bool &has;
  T &v;
};
/// An argument checked by f(ctx, args, i, vs...) (kernel-specific kinds).
template <typename F, typename... Ts> struct With {
  F f;
  std::tuple<Ts &...> vs;
};

inline Error bindOne(KernelContext &ctx, Args args, size_t i, const Arg<Tensor *> &a) {
  return argTensor(ctx, args, i, a.name, a.v);
}
inline Error bindOne(KernelContext &ctx, Args args, size_t i, const Arg<IntList> &a) {
  return argIntList(ctx, args, i, a.name, a.v);
}
inline Error bindOne(KernelContext &ctx, Args args, size_t i, const Arg<bool> &a) {
  return argBool(ctx, args, i, a.name, a.v);
}
inline Error bindOne(KernelContext &ctx, Args args, size_t i, const Arg<int64_t> &a) {
  return argInt(ctx, args, i, a.name, a.v);
}
inline Error bindOne(KernelContext &ctx, Args args, size_t i, const Arg<double> &a) {
  return argDouble(ctx, args, i, a.name, a.v);
}
inline Error bindOne(KernelContext &ctx, Args args, size_t i, const Arg<Scalar> &a) {
  return argScalar(ctx, args, i, a.name, a.v);
}
inline Error bindOne(KernelContext &ctx, Args args, size_t i,
                     const Arg<Span<EValue *const>> &a) {
  return argTensorList(ctx, args, i, a.name, a.v);
}
inline Error bindOne(KernelContext &ctx, Args args, size_t i, const Out &a) {
  return argOut(ctx, args, i, a.name, a.v);
}
inline Error bindOne(KernelContext &ctx, Args args, size_t i, const OptTensor &a) {
  return argOptTensor(ctx, args, i, a.name, a.v);
}
inline Error bindOne(KernelContext &ctx, Args args, size_t i, const Opt<int64_t> &a) {
  return argOptInt(ctx, args, i, a.name, a.has, a.v);
}
inline Error bindOne(KernelContext &ctx, Args args, size_t i, const Opt<Scalar> &a) {
  return argOptScalar(ctx, args, i, a.name, a.has, a.v);
}
inline Error bindOne(KernelContext &ctx, Args args, size_t i, const Opt<IntList> &a) {
  return argOptIntList(ctx, args, i, a.name, a.has, a.v);
}
inline Error bindOne(KernelContext &ctx, Args args, size_t i, const Opt<ScalarType> &a) {
  return argOptDtype(ctx, args, i, a.name, a.has, a.v);
}
/// A type with no helper fails to compile here rather than in overload noise.
template <typename T> inline Error bindOne(KernelContext &, Args, size_t, const Arg<T> &) {
  static_assert(sizeof(T) == 0, "arg(): no argX helper for this type (outArg, optArg, argWith?)");
  return Error::Ok;
}
template <typename T> inline Error bindOne(KernelContext &, Args, size_t, const Opt<T> &) {
  static_assert(sizeof(T) == 0, "optArg(): takes int64_t, Scalar, IntList or ScalarType");
  return Error::Ok;
}
template <typename F, typename... Ts>
inline Error bindOne(KernelContext &ctx, Args args, size_t i, const With<F, Ts...> &a) {
  return std::apply([&](Ts &...vs) { return a.f(ctx, args, i, vs...); }, a.vs);
}

/// Binds specs[k] as argument first + k.
template <size_t... Is, typename... Specs>
inline Error bindAll(KernelContext &ctx, Args args, size_t first, std::index_sequence<Is...>,
                     const Specs &...specs) {
  Error err = Error::Ok;
  // && short-circuits left to right: binding stops at the first failure.
  (void)((err = bindOne(ctx, args, first + Is, specs), err == Error::Ok) && ...);
  return err;
}

} // namespace argbind

/// A required Tensor, IntList, bool, int, float, Scalar or Tensor[] argument,
/// unboxed with the argX helper for the variable's type.
template <typename T> inline argbind::Arg<T> arg(const char *name, T &v) { return {name, v}; }
/// An out tensor, which may have no data yet (argOut).
inline argbind::Out outArg(const char *name, Tensor *&v) { return {name, v}; }
/// A Tensor?: nullptr for None or the absent placeholder (argOptTensor).
inline argbind::OptTensor optArg(const char *name, Tensor *&v) { return {name, v}; }
/// An int?, Scalar?, int[]? or ScalarType?: `has` false for None.
template <typename T>
inline argbind::Opt<T> optArg(const char *name, bool &has, T &v) {
  return {name, has, v};
}
/// An argument of a kind only the kernel knows: f(ctx, args, i, vs...)
/// unboxes it into vs (e.g. argWith(argIndices, indices)).
template <typename F, typename... Ts>
inline argbind::With<F, Ts...> argWith(F f, Ts &...vs) {
  return {f, std::tie(vs...)};
}

/// Unboxes a kernel's schema arguments in order, then checks the trailing
/// return slot; the count must be the specs + 1.
template <typename... Specs>
inline Error bindArgs(KernelContext &ctx, Args args, const Specs &...specs) {
  constexpr size_t n = sizeof...(Specs) + 1;
  PT_NARGS(n);
  PTEC_TRY(argbind::bindAll(ctx, args, 0, std::index_sequence_for<Specs...>{}, specs...));
  return argReturn(ctx, args, n - 1);
}

/// [self, <schema args>, out, ret] (the view and copy kernels): unboxes
/// self, out and the return slot, and checks that out has self's dtype; the
/// kernel binds the arguments in between.
inline Error selfAndOut(KernelContext &ctx, Args args, size_t nargs, const char *op, Tensor *&in,
                        Tensor *&out) {
  PT_NARGS(nargs);
  PTEC_TRY(argTensor(ctx, args, 0, "self", in));
  PTEC_TRY(argOut(ctx, args, nargs - 2, "out", out));
  PTEC_TRY(argReturn(ctx, args, nargs - 1));
  return checkSameDtype(ctx, *in, *out, op);
}

/// selfAndOut, then the arguments in between bound in order, as bindArgs
/// binds them.
template <typename... Specs>
inline Error bindSelfAndOut(KernelContext &ctx, Args args, const char *op, Tensor *&in,
                            Tensor *&out, const Specs &...specs) {
  PTEC_TRY(selfAndOut(ctx, args, sizeof...(Specs) + 3, op, in, out));
  return argbind::bindAll(ctx, args, 1, std::index_sequence_for<Specs...>{}, specs...);
}

} // namespace ptec::rt::portable
