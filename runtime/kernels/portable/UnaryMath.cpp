// Unary math beyond Elementwise.cpp: inverse and hyperbolic trigonometry,
// log/exp variants, rounding, sign, isinf, logit, and the elu/glu
// activations. Inputs of any real dtype (float16/bfloat16 included) are read
// through the element-wise engine, which widens them and rounds the result
// once on store.
#include "runtime/kernels/portable/Elementwise.h"
#include "runtime/kernels/portable/Kernels.h"

#include <cmath>

namespace ptec::rt::portable {

namespace {

/// Rounding ops keep the dtype; integers pass through and bool is refused,
/// as upstream's REALHBF16 kernels (and PyTorch) do.
template <typename F> Error roundingUnary(KernelContext &ctx, Args args, const char *op, F f) {
  PT_NARGS(3);
  Tensor *in;
  PTEC_TRY(argTensor(ctx, args, 0, "self", in));
  if (in->dtype() == ScalarType::Bool)
    return ctx.fail(Error::InvalidArgument, "%s: bool tensors are not supported", op);
  return unary(ctx, args, 3, UnaryKind::Preserve, [f](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>)
      return f(x);
    else
      return x;
  });
}

/// Float-only ops (elu, glu): upstream takes float16/bfloat16/float32/float64.
Error requireFloatIn(KernelContext &ctx, const Tensor &t, const char *op) {
  if (!isFloatDt(t.dtype()))
    return ctx.fail(Error::InvalidArgument, "%s: needs a floating tensor, got %s", op,
                    toString(t.dtype()));
  return Error::Ok;
}

} // namespace

// --- Promote to floating ------------------------------------------------------

Error acos_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::acos(x); }); }
Error acosh_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::acosh(x); }); }
Error asin_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::asin(x); }); }
Error asinh_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::asinh(x); }); }
Error atan_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::atan(x); }); }
Error atanh_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::atanh(x); }); }
Error cosh_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::cosh(x); }); }
Error sinh_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::sinh(x); }); }
Error tan_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::tan(x); }); }
Error expm1_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::expm1(x); }); }
Error log10_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::log10(x); }); }
Error log1p_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::log1p(x); }); }
Error log2_out(KernelContext &ctx, Args args) { return floatUnary(ctx, args, [](double x) { return std::log2(x); }); }

// --- Rounding and sign ------------------------------------------------------------

Error ceil_out(KernelContext &ctx, Args args) {
  return roundingUnary(ctx, args, "ceil", [](auto x) { return std::ceil(x); });
}
Error floor_out(KernelContext &ctx, Args args) {
  return roundingUnary(ctx, args, "floor", [](auto x) { return std::floor(x); });
}
Error trunc_out(KernelContext &ctx, Args args) {
  return roundingUnary(ctx, args, "trunc", [](auto x) { return std::trunc(x); });
}
/// Halves round to even (the default floating-point rounding mode).
Error round_out(KernelContext &ctx, Args args) {
  return roundingUnary(ctx, args, "round", [](auto x) { return std::nearbyint(x); });
}

/// -1, 0 or 1; bool passes through. NaN gives 0, as PyTorch's
/// (0 < x) - (x < 0) does (upstream's portable kernel keeps NaN instead).
Error sign_out(KernelContext &ctx, Args args) {
  return unary(ctx, args, 3, UnaryKind::Preserve, [](auto x) {
    using C = decltype(x);
    if constexpr (std::is_same_v<C, bool>)
      return x;
    else
      return C((C{} < x) - (x < C{}));
  });
}

Error isinf_out(KernelContext &ctx, Args args) {
  return floatPredicate(ctx, args, [](double x) { return std::isinf(x); });
}

/// logit(x) = log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given.
Error logit_out(KernelContext &ctx, Args args) {
  PT_NARGS(4);
  EValue *e = args[1];
  bool hasEps = !(e && e->isNone());
  double eps = 0;
  if (hasEps)
    PTEC_TRY(argDouble(ctx, args, 1, "eps", eps));
  return unary(ctx, args, 4, UnaryKind::Float, [hasEps, eps](auto xv) {
    double x = double(xv);
    if (hasEps && !std::isnan(x))
      x = x < eps ? eps : (x > 1 - eps ? 1 - eps : x);
    return std::log(x / (1 - x));
  });
}

// --- Activations --------------------------------------------------------------------

/// elu: x > 0 ? scale * x : alpha * scale * (exp(x * input_scale) - 1).
Error elu_out(KernelContext &ctx, Args args) {
  PT_NARGS(6);
  Tensor *in;
  Scalar alpha, scale, inScale;
  PTEC_TRY(argTensor(ctx, args, 0, "self", in));
  PTEC_TRY(argScalar(ctx, args, 1, "alpha", alpha));
  PTEC_TRY(argScalar(ctx, args, 2, "scale", scale));
  PTEC_TRY(argScalar(ctx, args, 3, "input_scale", inScale));
  PTEC_TRY(requireFloatIn(ctx, *in, "elu"));
  double a = alpha.d, s = scale.d, is = inScale.d;
  return unary(ctx, args, 6, UnaryKind::Float, [a, s, is](auto xv) {
    double x = double(xv);
    return x > 0 ? x * s : a * s * std::expm1(x * is);
  });
}

/// glu: the first half of `dim` times the sigmoid of the second half.
Error glu_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  int64_t dim;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), arg("dim", dim), outArg("out", out)));
  PTEC_TRY(requireFloatIn(ctx, *in, "glu"));
  if (!isFloatDt(out->dtype()))
    return ctx.fail(Error::InvalidArgument, "glu: out must be floating, got %s",
                    toString(out->dtype()));
  if (in->dim() == 0)
    return ctx.fail(Error::InvalidArgument, "glu: does not support rank-0 tensors");
  PTEC_TRY(normDim(ctx, dim, in->dim(), dim));
  if (in->size(static_cast<int>(dim)) % 2 != 0)
    return ctx.fail(Error::InvalidArgument, "glu: halving dim %lld must have an even size, got %lld",
                    static_cast<long long>(dim),
                    static_cast<long long>(in->size(static_cast<int>(dim))));
  Shape os = Shape::of(*in);
  os.d[dim] /= 2;
  PTEC_TRY(resizeOut(ctx, *out, os));
  AxisSplit s = splitAt(*in, dim);
  int64_t half = s.size / 2;
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t k = 0; k < half; ++k)
      for (int64_t j = 0; j < s.inner; ++j) {
        int64_t ia = (o * s.size + k) * s.inner + j, ib = ia + half * s.inner;
        double a = loadAs<double>(in->data(), in->dtype(), ia);
        double b = loadAs<double>(in->data(), in->dtype(), ib);
        storeAs<double>(out->mutableData(), out->dtype(), (o * half + k) * s.inner + j,
                        a / (1.0 + std::exp(-b)));
      }
  return Error::Ok;
}

} // namespace ptec::rt::portable
