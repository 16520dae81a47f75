// 2-D pooling over (N, C, H, W) or (C, H, W): max with indices (and its
// backward), average, adaptive average.
#include "runtime/kernels/portable/Kernels.h"
#include "runtime/kernels/portable/Spatial.h"

#include <cmath>

namespace ptec::rt::portable {

namespace {

struct Pool2d : Window2d {
  bool ceil = false;
  int64_t planes; // N * C
  Shape outShape;
};

/// One or two ints from an IntList (a single value applies to both dims).
Error pair(KernelContext &ctx, const IntList &l, const char *what, int64_t dflt0,
           int64_t dflt1, int64_t &a, int64_t &b) {
  if (l.size() == 0) {
    a = dflt0;
    b = dflt1;
    return Error::Ok;
  }
  if (l.size() > 2)
    return ctx.fail(Error::InvalidArgument, "%s must have 1 or 2 values, got %zu", what, l.size());
  a = l[0];
  b = l.size() == 2 ? l[1] : l[0];
  return Error::Ok;
}

int64_t poolOutSize(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil) {
  int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil ? stride - 1 : 0);
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  if (ceil && (out - 1) * stride >= in + pad)
    --out;
  return out;
}

/// Parses [self, kernel_size, stride, padding, (dilation)], starting at
/// argument `first`, and the geometry.
Error parsePool(KernelContext &ctx, Args args, bool hasDilation, const char *op, Tensor *&in,
                Pool2d &g, size_t first = 0) {
  IntList ks, st, pd, dl;
  PTEC_TRY(argTensor(ctx, args, first, "self", in));
  PTEC_TRY(argIntList(ctx, args, first + 1, "kernel_size", ks));
  PTEC_TRY(argIntList(ctx, args, first + 2, "stride", st));
  PTEC_TRY(argIntList(ctx, args, first + 3, "padding", pd));
  PTEC_TRY(requireFloatImage(ctx, *in, op));
  if (ks.size() == 0)
    return ctx.fail(Error::InvalidArgument, "%s: kernel_size must not be empty", op);
  PTEC_TRY(pair(ctx, ks, "kernel_size", 1, 1, g.kh, g.kw));
  PTEC_TRY(pair(ctx, st, "stride", g.kh, g.kw, g.sh, g.sw));
  PTEC_TRY(pair(ctx, pd, "padding", 0, 0, g.ph, g.pw));
  if (hasDilation) {
    PTEC_TRY(argIntList(ctx, args, first + 4, "dilation", dl));
    PTEC_TRY(pair(ctx, dl, "dilation", 1, 1, g.dh, g.dw));
  }
  constexpr int64_t kMax = int64_t(1) << 31; // keeps the window arithmetic in range
  if (g.kh <= 0 || g.kw <= 0 || g.sh <= 0 || g.sw <= 0 || g.dh <= 0 || g.dw <= 0 || g.ph < 0 ||
      g.pw < 0 || g.kh > kMax || g.kw > kMax || g.sh > kMax || g.sw > kMax || g.dh > kMax ||
      g.dw > kMax || g.ph > kMax || g.pw > kMax)
    return ctx.fail(Error::InvalidArgument,
                    "%s: kernel, stride and dilation must be in [1, 2^31], padding in [0, 2^31]",
                    op);
  if (g.ph > ((g.kh - 1) * g.dh + 1) / 2 || g.pw > ((g.kw - 1) * g.dw + 1) / 2)
    return ctx.fail(Error::InvalidArgument, "%s: padding must be at most half the kernel size", op);
  int r = in->dim();
  g.h = in->size(r - 2);
  g.w = in->size(r - 1);
  g.planes = in->size(0) * (r == 4 ? in->size(1) : 1);
  return Error::Ok;
}

Error finishGeometry(KernelContext &ctx, const Tensor &in, const char *op, Pool2d &g) {
  g.oh = poolOutSize(g.h, g.kh, g.ph, g.sh, g.dh, g.ceil);
  g.ow = poolOutSize(g.w, g.kw, g.pw, g.sw, g.dw, g.ceil);
  if (g.oh <= 0 || g.ow <= 0)
    return ctx.fail(Error::InvalidArgument, "%s: output size %lldx%lld is too small", op,
                    static_cast<long long>(g.oh), static_cast<long long>(g.ow));
  g.outShape = withSpatial(in, g.oh, g.ow);
  return Error::Ok;
}

} // namespace

Error max_pool2d_with_indices_out(KernelContext &ctx, Args args) {
  const char *op = "max_pool2d_with_indices";
  PT_NARGS(9);
  Tensor *in, *out, *idx;
  Pool2d g;
  PTEC_TRY(parsePool(ctx, args, true, op, in, g));
  PTEC_TRY(argBool(ctx, args, 5, "ceil_mode", g.ceil));
  PTEC_TRY(argOut(ctx, args, 6, "out", out));
  PTEC_TRY(argOut(ctx, args, 7, "indices", idx));
  PTEC_TRY(argReturn(ctx, args, 8));
  PTEC_TRY(checkSameDtype(ctx, *in, *out, op));
  PTEC_TRY(requireInt64(ctx, *idx, op, "indices"));
  PTEC_TRY(finishGeometry(ctx, *in, op, g));
  PTEC_TRY(resizeOut(ctx, *out, g.outShape, "out"));
  PTEC_TRY(resizeOut(ctx, *idx, g.outShape, "indices"));
  const void *p = in->data();
  ScalarType t = in->dtype();
  int64_t *ip = idx->dataAs<int64_t>();
  for (int64_t pl = 0; pl < g.planes; ++pl) {
    int64_t inBase = pl * g.h * g.w, outBase = pl * g.oh * g.ow;
    for (int64_t oy = 0; oy < g.oh; ++oy) {
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        double best = -INFINITY;
        int64_t bestAt = -1;
        forEachTap(g, oy, ox, 1, [&](int64_t, int64_t, int64_t, int64_t y, int64_t x) {
          double v = loadAs<double>(p, t, inBase + y * g.w + x);
          if (bestAt < 0 || v > best || std::isnan(v)) {
            if (bestAt >= 0 && std::isnan(best))
              return;
            best = v;
            bestAt = y * g.w + x;
          }
        });
        storeAs<double>(out->mutableData(), t, outBase + oy * g.ow + ox, best);
        ip[outBase + oy * g.ow + ox] = bestAt < 0 ? 0 : bestAt;
      }
    }
  }
  return Error::Ok;
}

Error avg_pool2d_out(KernelContext &ctx, Args args) {
  const char *op = "avg_pool2d";
  PT_NARGS(9);
  Tensor *in, *out;
  Pool2d g;
  bool countPad, hasDiv;
  int64_t divisor;
  PTEC_TRY(parsePool(ctx, args, false, op, in, g));
  PTEC_TRY(argBool(ctx, args, 4, "ceil_mode", g.ceil));
  PTEC_TRY(argBool(ctx, args, 5, "count_include_pad", countPad));
  PTEC_TRY(argOptInt(ctx, args, 6, "divisor_override", hasDiv, divisor));
  PTEC_TRY(argOut(ctx, args, 7, "out", out));
  PTEC_TRY(argReturn(ctx, args, 8));
  PTEC_TRY(checkSameDtype(ctx, *in, *out, op));
  if (hasDiv && divisor == 0)
    return ctx.fail(Error::InvalidArgument, "%s: divisor_override must be nonzero", op);
  PTEC_TRY(finishGeometry(ctx, *in, op, g));
  PTEC_TRY(resizeOut(ctx, *out, g.outShape));
  const void *p = in->data();
  ScalarType t = in->dtype();
  for (int64_t pl = 0; pl < g.planes; ++pl) {
    int64_t inBase = pl * g.h * g.w, outBase = pl * g.oh * g.ow;
    for (int64_t oy = 0; oy < g.oh; ++oy) {
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        int64_t y0 = oy * g.sh - g.ph, x0 = ox * g.sw - g.pw;
        int64_t y1 = std::min(y0 + g.kh, g.h + g.ph), x1 = std::min(x0 + g.kw, g.w + g.pw);
        int64_t poolSize = (y1 - y0) * (x1 - x0);
        y0 = std::max<int64_t>(y0, 0);
        x0 = std::max<int64_t>(x0, 0);
        y1 = std::min(y1, g.h);
        x1 = std::min(x1, g.w);
        double sum = 0;
        for (int64_t y = y0; y < y1; ++y)
          for (int64_t x = x0; x < x1; ++x)
            sum += loadAs<double>(p, t, inBase + y * g.w + x);
        int64_t div = hasDiv ? divisor : countPad ? poolSize : (y1 - y0) * (x1 - x0);
        storeAs<double>(out->mutableData(), t, outBase + oy * g.ow + ox,
                        div ? sum / static_cast<double>(div) : NAN);
      }
    }
  }
  return Error::Ok;
}

Error adaptive_avg_pool2d_out(KernelContext &ctx, Args args) {
  const char *op = "_adaptive_avg_pool2d";
  Tensor *in, *out;
  IntList os;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), arg("output_size", os), outArg("out", out)));
  PTEC_TRY(checkSameDtype(ctx, *in, *out, op));
  PTEC_TRY(requireFloatImage(ctx, *in, op));
  int64_t oh, ow;
  PTEC_TRY(pair(ctx, os, "output_size", 1, 1, oh, ow));
  if (os.size() == 0 || oh < 0 || ow < 0)
    return ctx.fail(Error::InvalidArgument, "%s: invalid output_size", op);
  int r = in->dim();
  int64_t h = in->size(r - 2), w = in->size(r - 1);
  for (int i = 0; i < r - 2; ++i)
    if (in->size(i) == 0)
      return resizeOut(ctx, *out, Shape::of(*in)); // nothing to pool
  if (h == 0 || w == 0)
    return ctx.fail(Error::InvalidArgument, "%s: input has an empty spatial dim", op);
  PTEC_TRY(resizeOut(ctx, *out, withSpatial(*in, oh, ow)));
  int64_t planes = in->numel() / (h * w);
  const void *p = in->data();
  ScalarType t = in->dtype();
  for (int64_t pl = 0; pl < planes; ++pl) {
    for (int64_t oy = 0; oy < oh; ++oy) {
      int64_t y0 = (oy * h) / oh, y1 = ((oy + 1) * h + oh - 1) / oh;
      for (int64_t ox = 0; ox < ow; ++ox) {
        int64_t x0 = (ox * w) / ow, x1 = ((ox + 1) * w + ow - 1) / ow;
        double sum = 0;
        for (int64_t y = y0; y < y1; ++y)
          for (int64_t x = x0; x < x1; ++x)
            sum += loadAs<double>(p, t, pl * h * w + y * w + x);
        storeAs<double>(out->mutableData(), t, (pl * oh + oy) * ow + ox,
                        sum / static_cast<double>((y1 - y0) * (x1 - x0)));
      }
    }
  }
  return Error::Ok;
}

/// max_pool2d_with_indices_backward.grad_input: [grad_output, self,
/// kernel_size, stride, padding, dilation, ceil_mode, indices, grad_input,
/// ret]. Each output gradient goes to the input element its index names
/// (indices are flat within an H x W plane), summing where windows overlap.
Error max_pool2d_with_indices_backward_grad_input(KernelContext &ctx, Args args) {
  const char *op = "max_pool2d_with_indices_backward";
  PT_NARGS(10);
  Tensor *grad, *in, *idx, *gin;
  Pool2d g;
  PTEC_TRY(argTensor(ctx, args, 0, "grad_output", grad));
  PTEC_TRY(parsePool(ctx, args, true, op, in, g, 1));
  PTEC_TRY(argBool(ctx, args, 6, "ceil_mode", g.ceil));
  PTEC_TRY(argTensor(ctx, args, 7, "indices", idx));
  PTEC_TRY(argOut(ctx, args, 8, "grad_input", gin));
  PTEC_TRY(argReturn(ctx, args, 9));
  PTEC_TRY(checkSameDtype(ctx, *in, *gin, op));
  PTEC_TRY(checkSameDtype(ctx, *in, *grad, op));
  PTEC_TRY(requireInt64(ctx, *idx, op, "indices"));
  PTEC_TRY(finishGeometry(ctx, *in, op, g));
  PTEC_TRY(expectShape(ctx, *grad, g.outShape, op, "grad_output"));
  PTEC_TRY(expectShape(ctx, *idx, g.outShape, op, "indices"));
  PTEC_TRY(resizeOut(ctx, *gin, Shape::of(*in), "grad_input"));
  void *q = gin->mutableData();
  ScalarType t = gin->dtype();
  for (int64_t i = 0, n = gin->numel(); i < n; ++i)
    storeAs<double>(q, t, i, 0.0);
  const int64_t plane = g.h * g.w, oplane = g.oh * g.ow;
  for (int64_t pl = 0; pl < g.planes; ++pl)
    for (int64_t o = 0; o < oplane; ++o) {
      int64_t at = idx->dataAs<int64_t>()[pl * oplane + o];
      if (at < 0 || at >= plane)
        return ctx.fail(Error::InvalidArgument, "%s: index %lld out of range for a %lldx%lld plane",
                        op, static_cast<long long>(at), static_cast<long long>(g.h),
                        static_cast<long long>(g.w));
      int64_t dst = pl * plane + at;
      storeAs<double>(q, t, dst,
                      loadAs<double>(q, t, dst) +
                          loadAs<double>(grad->data(), grad->dtype(), pl * oplane + o));
    }
  return Error::Ok;
}

} // namespace ptec::rt::portable
