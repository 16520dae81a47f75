// Product and variance reductions: prod (one dim or all), var (unbiased
// flag or a correction) and var_mean. Floating accumulation is in double
// (Welford's one-pass update for the variance), integral products in wrapping int64.
#include "runtime/kernels/portable/Elementwise.h"
#include "runtime/kernels/portable/Kernels.h"
#include "runtime/kernels/portable/Reduce.h"

#include <cmath>

namespace ptec::rt::portable {

namespace {

/// The product of the reduced elements of `in` into out.
Error prodInto(KernelContext &ctx, const Tensor &in, const ReduceDims &rd, bool keepdim,
               bool hasDtype, ScalarType dtype, Tensor &out) {
  if (hasDtype && dtype != out.dtype())
    return ctx.fail(Error::InvalidArgument, "prod: dtype %s given but out has dtype %s",
                    toString(dtype), toString(out.dtype()));
  // Without a dtype PyTorch multiplies integers and bools into int64.
  if (!hasDtype && !isFloatDt(in.dtype()) && out.dtype() != ScalarType::Long)
    return ctx.fail(Error::InvalidArgument, "prod: a product of %s is int64, out has dtype %s",
                    toString(in.dtype()), toString(out.dtype()));
  if (!hasDtype && isFloatDt(in.dtype()) && out.dtype() != in.dtype())
    return ctx.fail(Error::InvalidArgument, "prod: out dtype %s differs from input dtype %s",
                    toString(out.dtype()), toString(in.dtype()));
  PTEC_TRY(resizeOut(ctx, out, reducedShape(in, rd, keepdim)));
  const void *p = in.data();
  ScalarType t = in.dtype();
  if (isFloatDt(t) || isFloatDt(out.dtype())) {
    double acc = 1;
    forEachReduction(
        in, rd, [&](int64_t) { acc = 1; },
        [&](int64_t, int64_t i) { acc *= loadAs<double>(p, t, i); },
        [&](int64_t o, int64_t) { storeAs<double>(out.mutableData(), out.dtype(), o, acc); });
    return Error::Ok;
  }
  int64_t acc = 1;
  forEachReduction(
      in, rd, [&](int64_t) { acc = 1; },
      [&](int64_t, int64_t i) { acc = wrapMul(acc, loadAs<int64_t>(p, t, i)); },
      [&](int64_t o, int64_t) { storeAs<int64_t>(out.mutableData(), out.dtype(), o, acc); });
  return Error::Ok;
}


/// Variance (and optionally the mean) over `rd`: sum((x - mean)^2) /
/// max(0, n - correction), so too few elements give inf or NaN as PyTorch.
Error varInto(KernelContext &ctx, const char *op, const Tensor &in, const ReduceDims &rd,
              bool keepdim, double correction, Tensor &var, Tensor *mean) {
  if (!isFloatDt(in.dtype()))
    return ctx.fail(Error::InvalidArgument, "%s: needs a floating input, got %s", op,
                    toString(in.dtype()));
  PTEC_TRY(checkSameDtype(ctx, in, var, op));
  if (mean)
    PTEC_TRY(checkSameDtype(ctx, in, *mean, op));
  Shape os = reducedShape(in, rd, keepdim);
  PTEC_TRY(resizeOut(ctx, var, os, "out0"));
  if (mean)
    PTEC_TRY(resizeOut(ctx, *mean, os, "out1"));
  const void *p = in.data();
  ScalarType t = in.dtype();
  // Welford's one-pass update in double: stable without a second pass.
  double mu = 0, m2 = 0;
  int64_t k = 0;
  forEachReduction(
      in, rd, [&](int64_t) { mu = m2 = 0; k = 0; },
      [&](int64_t, int64_t i) {
        double x = loadAs<double>(p, t, i);
        ++k;
        double d = x - mu;
        mu += d / static_cast<double>(k);
        m2 += d * (x - mu);
      },
      [&](int64_t o, int64_t n) {
        double denom = static_cast<double>(n) - correction;
        storeAs<double>(var.mutableData(), var.dtype(), o, m2 / (denom > 0 ? denom : 0.0));
        if (mean)
          storeAs<double>(mean->mutableData(), mean->dtype(), o, n ? mu : NAN);
      });
  return Error::Ok;
}

Error unboxCorrection(KernelContext &ctx, Args args, size_t i, double &correction) {
  bool present;
  Scalar c;
  PTEC_TRY(argOptScalar(ctx, args, i, "correction", present, c));
  correction = present ? c.d : 1.0;
  return Error::Ok;
}

} // namespace

Error prod_int_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  int64_t dim;
  bool keepdim, hasDtype;
  ScalarType dtype = ScalarType::Long;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), arg("dim", dim), arg("keepdim", keepdim),
                    optArg("dtype", hasDtype, dtype), outArg("out", out)));
  PTEC_TRY(normDim(ctx, dim, in->dim(), dim));
  ReduceDims rd;
  if (in->dim() > 0)
    rd.mask[dim] = true;
  return prodInto(ctx, *in, rd, keepdim, hasDtype, dtype, *out);
}

Error prod_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  bool hasDtype;
  ScalarType dtype = ScalarType::Long;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), optArg("dtype", hasDtype, dtype),
                    outArg("out", out)));
  ReduceDims rd;
  PTEC_TRY(parseReduceDims(ctx, *in, false, IntList{}, rd));
  return prodInto(ctx, *in, rd, false, hasDtype, dtype, *out);
}

/// var.out: [self, dim[]?, unbiased, keepdim, out, ret].
Error var_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  bool hasDims, unbiased, keepdim;
  IntList dims;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), optArg("dim", hasDims, dims),
                    arg("unbiased", unbiased), arg("keepdim", keepdim), outArg("out", out)));
  ReduceDims rd;
  PTEC_TRY(parseReduceDims(ctx, *in, hasDims, dims, rd));
  return varInto(ctx, "var", *in, rd, keepdim, unbiased ? 1.0 : 0.0, *out, nullptr);
}

/// var.correction_out: [self, dim[]?, correction?, keepdim, out, ret].
Error var_correction_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  bool hasDims, keepdim;
  IntList dims;
  double correction;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), optArg("dim", hasDims, dims),
                    argWith(unboxCorrection, correction), arg("keepdim", keepdim),
                    outArg("out", out)));
  ReduceDims rd;
  PTEC_TRY(parseReduceDims(ctx, *in, hasDims, dims, rd));
  return varInto(ctx, "var", *in, rd, keepdim, correction, *out, nullptr);
}

/// var_mean.correction_out: [self, dim[]?, correction?, keepdim, out0, out1, ret].
Error var_mean_correction_out(KernelContext &ctx, Args args) {
  Tensor *in, *var, *mean;
  bool hasDims, keepdim;
  IntList dims;
  double correction;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), optArg("dim", hasDims, dims),
                    argWith(unboxCorrection, correction), arg("keepdim", keepdim),
                    outArg("out0", var), outArg("out1", mean)));
  ReduceDims rd;
  PTEC_TRY(parseReduceDims(ctx, *in, hasDims, dims, rd));
  return varInto(ctx, "var_mean", *in, rd, keepdim, correction, *var, mean);
}

} // namespace ptec::rt::portable
