// Order reductions: amax/amin, argmin/argmax, max/min over a dim (values and indices)
// or over everything, and any. NaN wins every comparison (PyTorch
// propagates it); among equal values the first index wins.
#include "runtime/kernels/portable/Elementwise.h"
#include "runtime/kernels/portable/Kernels.h"
#include "runtime/kernels/portable/Reduce.h"

#include <cmath>
#include <limits>

namespace ptec::rt::portable {

namespace {

/// A running extremum over one reduction: values compared as double for
/// floating inputs and as int64 otherwise (exact beyond 2^53).
struct Extremum {
  bool isMax, isFloat;
  double d = 0;
  int64_t i = 0;
  int64_t index = -1, k = 0;
  void begin() {
    index = -1;
    k = 0;
  }
  void step(const void *p, ScalarType t, int64_t at) {
    if (isFloat) {
      double v = loadAs<double>(p, t, at);
      bool better = index < 0 || (!std::isnan(d) && (std::isnan(v) || (isMax ? v > d : v < d)));
      if (better) {
        d = v;
        index = k;
      }
    } else {
      int64_t v = loadAs<int64_t>(p, t, at);
      if (index < 0 || (isMax ? v > i : v < i)) {
        i = v;
        index = k;
      }
    }
    ++k;
  }
  void store(Tensor &out, int64_t o) const {
    if (isFloat)
      storeAs<double>(out.mutableData(), out.dtype(), o, d);
    else
      storeAs<int64_t>(out.mutableData(), out.dtype(), o, i);
  }
};

/// Every reduced dim must be non-empty: an extremum of nothing is undefined.
Error requireNonEmpty(KernelContext &ctx, const Tensor &in, const ReduceDims &rd, const char *op) {
  for (int i = 0; i < in.dim(); ++i)
    if (rd.mask[i] && in.size(i) == 0)
      return ctx.fail(Error::InvalidArgument, "%s: reduction dim %d has size 0", op, i);
  return Error::Ok;
}

/// A single optional dim (None: all dims) as a ReduceDims.
Error oneDim(KernelContext &ctx, const Tensor &in, bool hasDim, int64_t dim, ReduceDims &rd) {
  rd = ReduceDims{};
  if (!hasDim) {
    for (int i = 0; i < in.dim(); ++i)
      rd.mask[i] = true;
    return Error::Ok;
  }
  PTEC_TRY(normDim(ctx, dim, in.dim(), dim));
  if (in.dim() > 0)
    rd.mask[dim] = true;
  return Error::Ok;
}

/// amax: a running max from -inf that a NaN, once seen, keeps.
void amaxInto(const Tensor &in, const ReduceDims &rd, Tensor &out) {
  const void *p = in.data();
  ScalarType t = in.dtype();
  if (isFloatDt(t)) {
    double m = 0;
    forEachReduction(
        in, rd, [&](int64_t) { m = -std::numeric_limits<double>::infinity(); },
        [&](int64_t, int64_t i) {
          double v = loadAs<double>(p, t, i);
          if (std::isnan(v) || v > m)
            m = std::isnan(m) ? m : v;
        },
        [&](int64_t o, int64_t) { storeAs<double>(out.mutableData(), out.dtype(), o, m); });
  } else {
    int64_t m = 0;
    forEachReduction(
        in, rd, [&](int64_t) { m = std::numeric_limits<int64_t>::min(); },
        [&](int64_t, int64_t i) {
          int64_t v = loadAs<int64_t>(p, t, i);
          if (v > m)
            m = v;
        },
        [&](int64_t o, int64_t) { storeAs<int64_t>(out.mutableData(), out.dtype(), o, m); });
  }
}

/// values and/or indices of the extremum over `rd` (either may be null).
void reduceExtremum(const Tensor &in, const ReduceDims &rd, bool isMax, Tensor *values,
                    Tensor *indices) {
  Extremum e{isMax, isFloatDt(in.dtype())};
  forEachReduction(
      in, rd, [&](int64_t) { e.begin(); },
      [&](int64_t, int64_t i) { e.step(in.data(), in.dtype(), i); },
      [&](int64_t o, int64_t) {
        if (values)
          e.store(*values, o);
        if (indices)
          indices->dataAs<int64_t>()[o] = e.index;
      });
}

/// amax.out / amin.out: [self, dim[], keepdim, out, ret].
Error valueExtremum(KernelContext &ctx, Args args, bool isMax) {
  const char *op = isMax ? "amax" : "amin";
  Tensor *in, *out;
  IntList dims;
  bool keepdim;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), arg("dim", dims), arg("keepdim", keepdim),
                    outArg("out", out)));
  PTEC_TRY(checkSameDtype(ctx, *in, *out, op));
  ReduceDims rd;
  PTEC_TRY(parseReduceDims(ctx, *in, true, dims, rd));
  PTEC_TRY(requireNonEmpty(ctx, *in, rd, op));
  PTEC_TRY(resizeOut(ctx, *out, reducedShape(*in, rd, keepdim)));
  if (isMax)
    amaxInto(*in, rd, *out);
  else
    reduceExtremum(*in, rd, false, out, nullptr);
  return Error::Ok;
}

/// max.dim_max / min.dim_min: [self, dim, keepdim, values, indices, ret].
Error extremumDim(KernelContext &ctx, Args args, bool isMax) {
  const char *op = isMax ? "max.dim" : "min.dim";
  Tensor *in, *values, *indices;
  int64_t dim;
  bool keepdim;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), arg("dim", dim), arg("keepdim", keepdim),
                    outArg(isMax ? "max" : "min", values),
                    outArg(isMax ? "max_values" : "min_indices", indices)));
  PTEC_TRY(checkSameDtype(ctx, *in, *values, op));
  PTEC_TRY(requireInt64(ctx, *indices, op, "indices"));
  ReduceDims rd;
  PTEC_TRY(oneDim(ctx, *in, true, dim, rd));
  PTEC_TRY(requireNonEmpty(ctx, *in, rd, op));
  Shape os = reducedShape(*in, rd, keepdim);
  PTEC_TRY(resizeOut(ctx, *values, os, "values"));
  PTEC_TRY(resizeOut(ctx, *indices, os, "indices"));
  reduceExtremum(*in, rd, isMax, values, indices);
  return Error::Ok;
}

/// max.unary_out / min.unary_out: the extremum of every element, rank 0.
Error extremumAll(KernelContext &ctx, Args args, bool isMax) {
  const char *op = isMax ? "max" : "min";
  Tensor *in, *out;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), outArg("out", out)));
  PTEC_TRY(checkSameDtype(ctx, *in, *out, op));
  if (in->numel() == 0)
    return ctx.fail(Error::InvalidArgument, "%s: input is empty (specify a dim)", op);
  ReduceDims rd;
  PTEC_TRY(oneDim(ctx, *in, false, 0, rd));
  PTEC_TRY(resizeOut(ctx, *out, Shape{}));
  reduceExtremum(*in, rd, isMax, out, nullptr);
  return Error::Ok;
}

/// any over `rd` into out (bool, or uint8 for a uint8 input).
Error anyInto(KernelContext &ctx, const Tensor &in, const ReduceDims &rd, bool keepdim,
              Tensor &out) {
  if (out.dtype() != ScalarType::Bool &&
      !(out.dtype() == ScalarType::Byte && in.dtype() == ScalarType::Byte))
    return ctx.fail(Error::InvalidArgument, "any: out must be bool (or uint8 for uint8 input), got %s",
                    toString(out.dtype()));
  PTEC_TRY(resizeOut(ctx, out, reducedShape(in, rd, keepdim)));
  bool acc = false;
  forEachReduction(
      in, rd, [&](int64_t) { acc = false; },
      [&](int64_t, int64_t i) { acc = acc || loadAs<double>(in.data(), in.dtype(), i) != 0; },
      [&](int64_t o, int64_t) { storeAs<bool>(out.mutableData(), out.dtype(), o, acc); });
  return Error::Ok;
}

/// argmax.out / argmin.out: [self, dim, keepdim, out, ret]. One path for
/// both, so int64 inputs compare exactly (not through double) either way.
Error argExtremum(KernelContext &ctx, Args args, bool isMax) {
  const char *op = isMax ? "argmax" : "argmin";
  Tensor *in, *out;
  bool hasDim, keepdim;
  int64_t dim;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), optArg("dim", hasDim, dim), arg("keepdim", keepdim),
                    outArg("out", out)));
  PTEC_TRY(requireInt64(ctx, *out, op, "out"));
  ReduceDims rd;
  PTEC_TRY(oneDim(ctx, *in, hasDim, dim, rd));
  PTEC_TRY(requireNonEmpty(ctx, *in, rd, op));
  if (!hasDim && in->numel() == 0)
    return ctx.fail(Error::InvalidArgument, "%s: input is empty", op);
  PTEC_TRY(resizeOut(ctx, *out, reducedShape(*in, rd, keepdim)));
  reduceExtremum(*in, rd, isMax, nullptr, out);
  return Error::Ok;
}

} // namespace

Error amax_out(KernelContext &ctx, Args args) { return valueExtremum(ctx, args, true); }
Error amin_out(KernelContext &ctx, Args args) { return valueExtremum(ctx, args, false); }
Error argmin_out(KernelContext &ctx, Args args) { return argExtremum(ctx, args, false); }
Error argmax_out(KernelContext &ctx, Args args) { return argExtremum(ctx, args, true); }
Error max_dim_max(KernelContext &ctx, Args args) { return extremumDim(ctx, args, true); }
Error min_dim_min(KernelContext &ctx, Args args) { return extremumDim(ctx, args, false); }
Error max_unary_out(KernelContext &ctx, Args args) { return extremumAll(ctx, args, true); }
Error min_unary_out(KernelContext &ctx, Args args) { return extremumAll(ctx, args, false); }

Error any_all_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), outArg("out", out)));
  ReduceDims rd;
  PTEC_TRY(oneDim(ctx, *in, false, 0, rd));
  return anyInto(ctx, *in, rd, false, *out);
}

Error any_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  int64_t dim;
  bool keepdim;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), arg("dim", dim), arg("keepdim", keepdim),
                    outArg("out", out)));
  ReduceDims rd;
  PTEC_TRY(oneDim(ctx, *in, true, dim, rd));
  return anyInto(ctx, *in, rd, keepdim, *out);
}

Error any_dims_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  bool hasDims, keepdim;
  IntList dims;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), optArg("dim", hasDims, dims),
                    arg("keepdim", keepdim), outArg("out", out)));
  ReduceDims rd;
  PTEC_TRY(parseReduceDims(ctx, *in, hasDims, dims, rd));
  return anyInto(ctx, *in, rd, keepdim, *out);
}

} // namespace ptec::rt::portable
