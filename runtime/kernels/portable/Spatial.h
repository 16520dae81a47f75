// What the 2-D spatial kernels share (convolution in Linear.cpp, pooling,
// upsampling): the window geometry, the walk over a window's taps, and the
// check of their (N, C, H, W) or (C, H, W) input.
#pragma once

#include "runtime/kernels/portable/KernelUtils.h"

namespace ptec::rt::portable {

/// A window over an h x w input giving an oh x ow output: kernel size,
/// stride, padding and dilation per dim.
struct Window2d {
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  int64_t h = 1, w = 1, oh = 1, ow = 1;
};

/// The taps t in [0, k) whose position start + t * dil (dil >= 1) lies in
/// [0, n): they form the range [lo, hi) (empty when lo >= hi). A window
/// inside the input (the common case) costs no division.
inline void tapRange(int64_t start, int64_t dil, int64_t k, int64_t n, int64_t &lo,
                     int64_t &hi) {
  lo = start >= 0 ? 0 : (dil - 1 - start) / dil;
  hi = start + (k - 1) * dil < n ? k : n > start ? (n - start + dil - 1) / dil : 0;
}

/// Calls f(c, ky, kx, y, x) for each channel c in [0, channels) in turn
/// and, in each, for every tap (ky, kx) of the window at output (oy, ox)
/// that lands inside the input, at input position (y, x), in row-major tap
/// order.
template <typename F>
inline void forEachTap(const Window2d &g, int64_t oy, int64_t ox, int64_t channels, F &&f) {
  const int64_t y0 = oy * g.sh - g.ph, x0 = ox * g.sw - g.pw;
  int64_t ky0, ky1, kx0, kx1;
  tapRange(y0, g.dh, g.kh, g.h, ky0, ky1);
  tapRange(x0, g.dw, g.kw, g.w, kx0, kx1);
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t ky = ky0; ky < ky1; ++ky)
      for (int64_t kx = kx0; kx < kx1; ++kx)
        f(c, ky, kx, y0 + ky * g.dh, x0 + kx * g.dw);
}

/// The input of pooling and upsampling: floating, rank 3 or 4.
inline Error requireFloatImage(KernelContext &ctx, const Tensor &in, const char *op) {
  if (!isFloatDt(in.dtype()))
    return ctx.fail(Error::InvalidArgument, "%s: input must be floating, got %s", op,
                    toString(in.dtype()));
  if (in.dim() != 3 && in.dim() != 4)
    return ctx.fail(Error::InvalidArgument, "%s: expects a 3-D or 4-D input, got rank %d", op,
                    in.dim());
  return Error::Ok;
}

/// `in`'s shape with the last two (spatial) dims set to oh x ow.
inline Shape withSpatial(const Tensor &in, int64_t oh, int64_t ow) {
  Shape s = Shape::of(in);
  s.d[s.n - 2] = oh;
  s.d[s.n - 1] = ow;
  return s;
}

} // namespace ptec::rt::portable
