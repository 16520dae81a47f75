// Reductions: sum, mean, cumsum. Floating accumulation is in double,
// integral in int64. The order reductions (amax, argmax, ...) are in MinMax.cpp.
#include "runtime/kernels/portable/Kernels.h"
#include "runtime/kernels/portable/Reduce.h"
#include "runtime/kernels/portable/Elementwise.h"

namespace ptec::rt::portable {

namespace {

struct ReduceArgs {
  Tensor *in = nullptr, *out = nullptr;
  ReduceDims rd;
  bool keepdim = false;
  bool hasDtype = false;
  ScalarType dtype = ScalarType::Float;
};

/// [self, dim[]?, keepdim, dtype?, out, ret] (sum.IntList_out, mean.out).
Error unboxSumLike(KernelContext &ctx, Args args, const char *op, ReduceArgs &ra) {
  bool hasDims;
  IntList dims;
  PTEC_TRY(bindArgs(ctx, args, arg("self", ra.in), optArg("dim", hasDims, dims),
                    arg("keepdim", ra.keepdim), optArg("dtype", ra.hasDtype, ra.dtype),
                    outArg("out", ra.out)));
  PTEC_TRY(checkDtypeArg(ctx, ra.hasDtype, ra.dtype, *ra.out, op));
  PTEC_TRY(parseReduceDims(ctx, *ra.in, hasDims, dims, ra.rd));
  return resizeOut(ctx, *ra.out, reducedShape(*ra.in, ra.rd, ra.keepdim));
}

/// A mean is floating: out must be, and so must the input unless a dtype
/// is given.
Error checkMeanDtypes(KernelContext &ctx, const ReduceArgs &ra) {
  if (!isFloatDt(ra.out->dtype()))
    return ctx.fail(Error::InvalidArgument, "mean: needs a floating output dtype, got %s",
                    toString(ra.out->dtype()));
  if (!ra.hasDtype && !isFloatDt(ra.in->dtype()))
    return ctx.fail(Error::InvalidArgument,
                    "mean: input dtype %s is not floating; pass a floating dtype",
                    toString(ra.in->dtype()));
  return Error::Ok;
}

/// Sum (or mean) of the reduced elements into out.
void sumInto(const Tensor &in, const ReduceDims &rd, Tensor &out, bool mean) {
  const void *p = in.data();
  ScalarType t = in.dtype();
  if (isFloatDt(t) || isFloatDt(out.dtype())) {
    double acc = 0;
    forEachReduction(
        in, rd, [&](int64_t) { acc = 0; },
        [&](int64_t, int64_t i) { acc += loadAs<double>(p, t, i); },
        [&](int64_t o, int64_t n) {
          storeAs<double>(out.mutableData(), out.dtype(), o,
                          mean ? acc / static_cast<double>(n) : acc);
        });
    return;
  }
  int64_t acc = 0;
  forEachReduction(
      in, rd, [&](int64_t) { acc = 0; },
      [&](int64_t, int64_t i) { acc = wrapAdd(acc, loadAs<int64_t>(p, t, i)); },
      [&](int64_t o, int64_t) { storeAs<int64_t>(out.mutableData(), out.dtype(), o, acc); });
}

} // namespace

Error sum_intlist_out(KernelContext &ctx, Args args) {
  ReduceArgs ra;
  PTEC_TRY(unboxSumLike(ctx, args, "sum", ra));
  if (!canCastTo(maxCat(catOf(ra.in->dtype()), Cat::Int), ra.out->dtype()) &&
      !(ra.in->dtype() == ScalarType::Bool && ra.out->dtype() == ScalarType::Bool))
    return ctx.fail(Error::InvalidArgument, "sum: out dtype %s cannot hold a sum of %s",
                    toString(ra.out->dtype()), toString(ra.in->dtype()));
  sumInto(*ra.in, ra.rd, *ra.out, false);
  return Error::Ok;
}

Error mean_out(KernelContext &ctx, Args args) {
  ReduceArgs ra;
  PTEC_TRY(unboxSumLike(ctx, args, "mean", ra));
  PTEC_TRY(checkMeanDtypes(ctx, ra));
  sumInto(*ra.in, ra.rd, *ra.out, true);
  return Error::Ok;
}

/// mean.dtype_out: [self, dtype?, out, ret], the mean of every element.
Error mean_dtype_out(KernelContext &ctx, Args args) {
  ReduceArgs ra;
  PTEC_TRY(bindArgs(ctx, args, arg("self", ra.in), optArg("dtype", ra.hasDtype, ra.dtype),
                    outArg("out", ra.out)));
  PTEC_TRY(checkDtypeArg(ctx, ra.hasDtype, ra.dtype, *ra.out, "mean"));
  PTEC_TRY(checkMeanDtypes(ctx, ra));
  PTEC_TRY(parseReduceDims(ctx, *ra.in, false, IntList{}, ra.rd));
  PTEC_TRY(resizeOut(ctx, *ra.out, Shape{}));
  sumInto(*ra.in, ra.rd, *ra.out, true);
  return Error::Ok;
}

Error cumsum_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  int64_t dim;
  bool hasDtype;
  ScalarType dtype;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), arg("dim", dim), optArg("dtype", hasDtype, dtype),
                    outArg("out", out)));
  PTEC_TRY(checkDtypeArg(ctx, hasDtype, dtype, *out, "cumsum"));
  PTEC_TRY(normDim(ctx, dim, in->dim(), dim));
  if (!canCastTo(maxCat(catOf(in->dtype()), Cat::Int), out->dtype()))
    return ctx.fail(Error::InvalidArgument, "cumsum: out dtype %s cannot hold a sum of %s",
                    toString(out->dtype()), toString(in->dtype()));
  PTEC_TRY(resizeOut(ctx, *out, Shape::of(*in)));
  AxisSplit s = splitAt(*in, dim);
  bool useFloat = isFloatDt(in->dtype()) || isFloatDt(out->dtype());
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t j = 0; j < s.inner; ++j) {
      double accD = 0;
      int64_t accI = 0;
      for (int64_t k = 0; k < s.size; ++k) {
        int64_t i = (o * s.size + k) * s.inner + j;
        if (useFloat) {
          accD += loadAs<double>(in->data(), in->dtype(), i);
          storeAs<double>(out->mutableData(), out->dtype(), i, accD);
        } else {
          accI = wrapAdd(accI, loadAs<int64_t>(in->data(), in->dtype(), i));
          storeAs<int64_t>(out->mutableData(), out->dtype(), i, accI);
        }
      }
    }
  }
  return Error::Ok;
}

} // namespace ptec::rt::portable
