// Spatial resampling of (N, C, H, W) or (C, H, W) inputs: nearest and
// bilinear upsampling (sizes or scale factors), antialiased bilinear, and
// grid_sampler_2d. Coordinates follow PyTorch's UpSample.h / GridSampler.h
// conventions, so results match torch within rounding.
#include "runtime/kernels/portable/Kernels.h"
#include "runtime/kernels/portable/Spatial.h"

#include <algorithm>
#include <cmath>

namespace ptec::rt::portable {

namespace {

/// Output size and source scale of one spatial dim.
struct Axis {
  int64_t in = 0, out = 0;
  double scale = 0; // source step per output step (PyTorch's "scale")
};

/// PyTorch's area_pixel_compute_scale: (in - 1) / (out - 1) with
/// align_corners, else 1 / scale_factor when one is given, else in / out.
double pixelScale(int64_t in, int64_t out, bool alignCorners, bool hasFactor, double factor) {
  if (alignCorners)
    return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  if (hasFactor && factor > 0)
    return 1.0 / factor;
  return out > 0 ? static_cast<double>(in) / static_cast<double>(out) : 0.0;
}

/// Unboxes the input and the output size of the .vec overloads:
/// [input, output_size?, (align_corners), scale_factors?, out, ret].
Error parseVec(KernelContext &ctx, Args args, const char *op, bool hasAlign, Tensor *&in,
               Tensor *&out, Axis &h, Axis &w, bool &alignCorners) {
  size_t nargs = hasAlign ? 6 : 5;
  PTEC_TRY(selfAndOut(ctx, args, nargs, op, in, out));
  bool hasSize;
  IntList size;
  PTEC_TRY(argOptIntList(ctx, args, 1, "output_size", hasSize, size));
  alignCorners = false;
  if (hasAlign)
    PTEC_TRY(argBool(ctx, args, 2, "align_corners", alignCorners));
  size_t fi = hasAlign ? 3 : 2;
  EValue *f = args[fi];
  bool hasFactors = !(f && f->isNone());
  if (hasFactors && (!f || !f->isDoubleList()))
    return badTag(ctx, fi, "scale_factors", "DoubleList or None", f);
  // Nearest copies elements (any dtype); bilinear interpolates floats.
  if (hasAlign && !isFloatDt(in->dtype()))
    return ctx.fail(Error::InvalidArgument, "%s: input must be floating, got %s", op,
                    toString(in->dtype()));
  if (in->dim() != 4 && in->dim() != 3)
    return ctx.fail(Error::InvalidArgument, "%s: expects a 3-D or 4-D input, got rank %d", op,
                    in->dim());
  if (hasSize == hasFactors)
    return ctx.fail(Error::InvalidArgument,
                    "%s: exactly one of output_size and scale_factors must be given", op);
  if ((hasSize && size.size() != 2) || (hasFactors && f->doubleList().size() != 2))
    return ctx.fail(Error::InvalidArgument, "%s: output_size / scale_factors need 2 values", op);
  h.in = in->size(in->dim() - 2);
  w.in = in->size(in->dim() - 1);
  double fh = 0, fw = 0;
  if (hasSize) {
    h.out = size[0];
    w.out = size[1];
  } else {
    fh = f->doubleList()[0];
    fw = f->doubleList()[1];
    if (!(fh > 0 && fw > 0 && fh < 1e6 && fw < 1e6))
      return ctx.fail(Error::InvalidArgument, "%s: scale factors must be in (0, 1e6)", op);
    h.out = static_cast<int64_t>(std::floor(static_cast<double>(h.in) * fh));
    w.out = static_cast<int64_t>(std::floor(static_cast<double>(w.in) * fw));
  }
  if (h.out <= 0 || w.out <= 0 || h.out > (int64_t(1) << 31) || w.out > (int64_t(1) << 31))
    return ctx.fail(Error::InvalidArgument, "%s: output size must be in [1, 2^31]", op);
  h.scale = pixelScale(h.in, h.out, alignCorners, !hasSize, fh);
  w.scale = pixelScale(w.in, w.out, alignCorners, !hasSize, fw);
  return resizeOut(ctx, *out, withSpatial(*in, h.out, w.out));
}

/// Bilinear source index and weights along one axis.
struct Lerp {
  int64_t i0, i1;
  double l0, l1;
};
Lerp lerpAt(const Axis &a, int64_t dst, bool alignCorners) {
  double src = alignCorners ? a.scale * static_cast<double>(dst)
                            : a.scale * (static_cast<double>(dst) + 0.5) - 0.5;
  if (src < 0)
    src = 0;
  int64_t i0 = std::min(static_cast<int64_t>(src), a.in - 1);
  Lerp l;
  l.i0 = i0;
  l.i1 = i0 + (i0 < a.in - 1 ? 1 : 0);
  l.l1 = src - static_cast<double>(i0);
  l.l0 = 1.0 - l.l1;
  return l;
}

/// Antialiased bilinear weights along one axis (a triangle filter widened by
/// the downscale factor), for output index i; visits (index, weight).
template <typename F> void aaWeights(const Axis &a, int64_t i, F &&f) {
  double scale = a.scale;
  double support = scale >= 1.0 ? scale : 1.0;
  double invscale = scale >= 1.0 ? 1.0 / scale : 1.0;
  double center = scale * (static_cast<double>(i) + 0.5);
  int64_t xmin = std::max(static_cast<int64_t>(center - support + 0.5), int64_t(0));
  int64_t xmax = std::min(static_cast<int64_t>(center + support + 0.5), a.in);
  double total = 0;
  for (int64_t j = xmin; j < xmax; ++j) {
    double x = std::fabs((static_cast<double>(j) - center + 0.5) * invscale);
    total += x < 1.0 ? 1.0 - x : 0.0;
  }
  for (int64_t j = xmin; j < xmax; ++j) {
    double x = std::fabs((static_cast<double>(j) - center + 0.5) * invscale);
    double wgt = x < 1.0 ? 1.0 - x : 0.0;
    f(j, total != 0 ? wgt / total : 0.0);
  }
}

// --- grid_sampler_2d helpers (PyTorch's GridSampler.h) -----------------------

double unnormalize(double c, int64_t size, bool alignCorners) {
  return alignCorners ? (c + 1) / 2 * static_cast<double>(size - 1)
                      : ((c + 1) * static_cast<double>(size) - 1) / 2;
}

double reflect(double in, double twiceLow, double twiceHigh) {
  if (twiceLow == twiceHigh)
    return 0;
  double mn = twiceLow / 2, span = (twiceHigh - twiceLow) / 2;
  in = std::fabs(in - mn);
  double extra = std::fmod(in, span);
  double flips = std::floor(in / span); // kept in double: it may be huge
  return std::fmod(flips, 2.0) == 0 ? extra + mn : span - extra + mn;
}

/// Padding modes: 0 zeros, 1 border, 2 reflection.
double padCoord(double c, int64_t size, int64_t padding, bool alignCorners) {
  if (padding == 0)
    return c;
  auto clip = [&](double v) {
    return std::min(static_cast<double>(size - 1), std::max(v, 0.0));
  };
  if (padding == 1)
    return clip(c);
  double r = alignCorners ? reflect(c, 0, 2.0 * static_cast<double>(size - 1))
                          : reflect(c, -1, 2.0 * static_cast<double>(size) - 1);
  return clip(r);
}

double cubic1(double x, double a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
double cubic2(double x, double a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }

} // namespace

Error upsample_nearest2d_vec_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  Axis h, w;
  bool align;
  PTEC_TRY(parseVec(ctx, args, "upsample_nearest2d", false, in, out, h, w, align));
  // PyTorch computes the nearest source index in float precision.
  auto src = [](const Axis &a, int64_t d) {
    float s = static_cast<float>(a.scale);
    return std::min(static_cast<int64_t>(std::floor(static_cast<float>(d) * s)), a.in - 1);
  };
  int64_t planes = h.in * w.in ? in->numel() / (h.in * w.in) : 0;
  size_t es = in->elementSize();
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t y = 0; y < h.out; ++y)
      for (int64_t x = 0; x < w.out; ++x)
        copyElems(out->mutableData(), (p * h.out + y) * w.out + x, in->data(),
                  (p * h.in + src(h, y)) * w.in + src(w, x), 1, es);
  return Error::Ok;
}

Error upsample_bilinear2d_vec_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  Axis h, w;
  bool align;
  PTEC_TRY(parseVec(ctx, args, "upsample_bilinear2d", true, in, out, h, w, align));
  int64_t planes = h.in * w.in ? in->numel() / (h.in * w.in) : 0;
  const void *p = in->data();
  ScalarType t = in->dtype();
  for (int64_t pl = 0; pl < planes; ++pl) {
    int64_t base = pl * h.in * w.in;
    for (int64_t y = 0; y < h.out; ++y) {
      Lerp ly = lerpAt(h, y, align);
      for (int64_t x = 0; x < w.out; ++x) {
        Lerp lx = lerpAt(w, x, align);
        auto at = [&](int64_t yy, int64_t xx) { return loadAs<double>(p, t, base + yy * w.in + xx); };
        double v = ly.l0 * (lx.l0 * at(ly.i0, lx.i0) + lx.l1 * at(ly.i0, lx.i1)) +
                   ly.l1 * (lx.l0 * at(ly.i1, lx.i0) + lx.l1 * at(ly.i1, lx.i1));
        storeAs<double>(out->mutableData(), out->dtype(), (pl * h.out + y) * w.out + x, v);
      }
    }
  }
  return Error::Ok;
}

/// _upsample_bilinear2d_aa.out: [self, output_size, align_corners, scales_h?,
/// scales_w?, out, ret].
Error upsample_bilinear2d_aa_out(KernelContext &ctx, Args args) {
  const char *op = "_upsample_bilinear2d_aa";
  Tensor *in, *out;
  PTEC_TRY(selfAndOut(ctx, args, 7, op, in, out));
  IntList size;
  bool align, hasSh, hasSw;
  double sh = 0, sw = 0;
  PTEC_TRY(argIntList(ctx, args, 1, "output_size", size));
  PTEC_TRY(argBool(ctx, args, 2, "align_corners", align));
  hasSh = !(args[3] && args[3]->isNone());
  hasSw = !(args[4] && args[4]->isNone());
  if (hasSh)
    PTEC_TRY(argDouble(ctx, args, 3, "scales_h", sh));
  if (hasSw)
    PTEC_TRY(argDouble(ctx, args, 4, "scales_w", sw));
  PTEC_TRY(requireFloatImage(ctx, *in, op));
  if (size.size() != 2 || size[0] <= 0 || size[1] <= 0 || size[0] > (int64_t(1) << 31) ||
      size[1] > (int64_t(1) << 31))
    return ctx.fail(Error::InvalidArgument, "%s: output_size needs 2 values in [1, 2^31]", op);
  Axis h, w;
  h.in = in->size(in->dim() - 2);
  w.in = in->size(in->dim() - 1);
  h.out = size[0];
  w.out = size[1];
  h.scale = pixelScale(h.in, h.out, align, hasSh, sh);
  w.scale = pixelScale(w.in, w.out, align, hasSw, sw);
  PTEC_TRY(resizeOut(ctx, *out, withSpatial(*in, h.out, w.out)));
  int64_t planes = h.in * w.in ? in->numel() / (h.in * w.in) : 0;
  const void *p = in->data();
  ScalarType t = in->dtype();
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t y = 0; y < h.out; ++y)
      for (int64_t x = 0; x < w.out; ++x) {
        double acc = 0;
        aaWeights(h, y, [&](int64_t iy, double wy) {
          aaWeights(w, x, [&](int64_t ix, double wx) {
            acc += wy * wx * loadAs<double>(p, t, (pl * h.in + iy) * w.in + ix);
          });
        });
        storeAs<double>(out->mutableData(), out->dtype(), (pl * h.out + y) * w.out + x, acc);
      }
  return Error::Ok;
}

/// grid_sampler_2d.out: [input (N, C, H, W), grid (N, Ho, Wo, 2),
/// interpolation_mode (0 bilinear, 1 nearest, 2 bicubic), padding_mode
/// (0 zeros, 1 border, 2 reflection), align_corners, out, ret].
Error grid_sampler_2d_out(KernelContext &ctx, Args args) {
  const char *op = "grid_sampler_2d";
  Tensor *in, *out, *grid;
  PTEC_TRY(selfAndOut(ctx, args, 7, op, in, out));
  int64_t interp, padding;
  bool align;
  PTEC_TRY(argTensor(ctx, args, 1, "grid", grid));
  PTEC_TRY(argInt(ctx, args, 2, "interpolation_mode", interp));
  PTEC_TRY(argInt(ctx, args, 3, "padding_mode", padding));
  PTEC_TRY(argBool(ctx, args, 4, "align_corners", align));
  if (!isFloatDt(in->dtype()) || grid->dtype() != in->dtype())
    return ctx.fail(Error::InvalidArgument, "%s: input and grid must share a floating dtype", op);
  if (in->dim() != 4 || grid->dim() != 4 || grid->size(0) != in->size(0) || grid->size(3) != 2)
    return ctx.fail(Error::InvalidArgument,
                    "%s: expects input (N, C, H, W) and grid (N, H_out, W_out, 2)", op);
  if (interp < 0 || interp > 2 || padding < 0 || padding > 2)
    return ctx.fail(Error::InvalidArgument, "%s: interpolation_mode %lld or padding_mode %lld is unknown",
                    op, static_cast<long long>(interp), static_cast<long long>(padding));
  const int64_t n = in->size(0), c = in->size(1), ih = in->size(2), iw = in->size(3);
  const int64_t oh = grid->size(1), ow = grid->size(2);
  int64_t osz[4] = {n, c, oh, ow};
  PTEC_TRY(resizeOut(ctx, *out, Span<const int64_t>(osz, 4)));
  const void *p = in->data();
  ScalarType t = in->dtype();
  auto value = [&](int64_t plane, int64_t y, int64_t x) {
    return (y >= 0 && y < ih && x >= 0 && x < iw) ? loadAs<double>(p, t, (plane * ih + y) * iw + x)
                                                   : 0.0;
  };
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x) {
        int64_t gi = ((b * oh + y) * ow + x) * 2;
        double gx = unnormalize(loadAs<double>(grid->data(), grid->dtype(), gi), iw, align);
        double gy = unnormalize(loadAs<double>(grid->data(), grid->dtype(), gi + 1), ih, align);
        // Far outside (or NaN) with zero padding samples nothing; the other
        // modes clip every coordinate into the input first.
        const bool far = !(std::fabs(gx) < 1e15 && std::fabs(gy) < 1e15);
        for (int64_t ch = 0; ch < c; ++ch) {
          int64_t plane = b * c + ch;
          double v = 0;
          if (far && padding == 0) {
            v = 0;
          } else if (interp == 2) { // bicubic: padding applies to every tap
            double x0 = std::floor(gx), y0 = std::floor(gy), tx = gx - x0, ty = gy - y0;
            const double a = -0.75;
            double cx[4] = {cubic2(tx + 1, a), cubic1(tx, a), cubic1(1 - tx, a), cubic2(2 - tx, a)};
            double cy[4] = {cubic2(ty + 1, a), cubic1(ty, a), cubic1(1 - ty, a), cubic2(2 - ty, a)};
            for (int i = 0; i < 4; ++i)
              for (int j = 0; j < 4; ++j) {
                double yy = padCoord(y0 - 1 + i, ih, padding, align);
                double xx = padCoord(x0 - 1 + j, iw, padding, align);
                v += cy[i] * cx[j] *
                     value(plane, static_cast<int64_t>(yy), static_cast<int64_t>(xx));
              }
          } else {
            double sx = padCoord(gx, iw, padding, align), sy = padCoord(gy, ih, padding, align);
            if (interp == 1) {
              v = value(plane, static_cast<int64_t>(std::nearbyint(sy)),
                        static_cast<int64_t>(std::nearbyint(sx)));
            } else {
              int64_t x0 = static_cast<int64_t>(std::floor(sx));
              int64_t y0 = static_cast<int64_t>(std::floor(sy));
              double wx1 = sx - static_cast<double>(x0), wy1 = sy - static_cast<double>(y0);
              v = (1 - wy1) * ((1 - wx1) * value(plane, y0, x0) + wx1 * value(plane, y0, x0 + 1)) +
                  wy1 * ((1 - wx1) * value(plane, y0 + 1, x0) + wx1 * value(plane, y0 + 1, x0 + 1));
            }
          }
          storeAs<double>(out->mutableData(), out->dtype(), ((plane)*oh + y) * ow + x, v);
        }
      }
  return Error::Ok;
}

} // namespace ptec::rt::portable
