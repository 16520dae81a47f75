// Rearranging copies: as_strided, diagonal, narrow, unfold, flip and
// pixel_(un)shuffle are strided views of the input (viewCopy); roll, repeat
// and tril map every output coordinate to an input element.
#include "runtime/kernels/portable/Kernels.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace ptec::rt::portable {

namespace {

/// Calls f(flatIndex, coord) for every element of the row-major shape `s`.
template <typename F> void forEachCoord(const Shape &s, F &&f) {
  int64_t n = s.numel();
  int64_t coord[kTensorMaxRank] = {};
  for (int64_t i = 0; i < n; ++i) {
    f(i, static_cast<const int64_t *>(coord));
    for (int d = s.n - 1; d >= 0; --d) {
      if (++coord[d] < s.d[d])
        break;
      coord[d] = 0;
    }
  }
}

/// Copies element `si` of `in` to element `oi` of `out` (same dtype).
inline void copyOne(const Tensor &in, int64_t si, Tensor &out, int64_t oi) {
  copyElems(out.mutableData(), oi, in.data(), si, 1, in.elementSize());
}

/// out (row-major, shape os, in's dtype) gets, at each coordinate c, the
/// element of `in` at coordinate src(d, c) along each of its dims d.
template <typename Src>
void gatherByCoord(const Tensor &in, Tensor &out, const Shape &os, Src &&src) {
  forEachCoord(os, [&](int64_t o, const int64_t *c) {
    int64_t si = 0;
    for (int d = 0; d < in.dim(); ++d)
      si += src(d, c) * in.stride(d);
    copyOne(in, si, out, o);
  });
}

/// a mod n in [0, n).
inline int64_t wrapIndex(int64_t a, int64_t n) {
  int64_t m = a % n;
  return m < 0 ? m + n : m;
}

/// pixel_shuffle / pixel_unshuffle as a permuted view of the input.
Error pixelShuffle(KernelContext &ctx, Args args, bool up) {
  const char *op = up ? "pixel_shuffle" : "pixel_unshuffle";
  Tensor *in, *out;
  int64_t r;
  PTEC_TRY(bindSelfAndOut(ctx, args, op, in, out, arg(up ? "upscale_factor" : "downscale_factor", r)));
  int rank = in->dim();
  if (rank < 3 || rank - 3 + 5 > kTensorMaxRank)
    return ctx.fail(Error::InvalidArgument, "%s: input must have rank in [3, %d], got %d", op,
                    kTensorMaxRank - 2, rank);
  if (r <= 0 || r > (int64_t(1) << 20))
    return ctx.fail(Error::InvalidArgument, "%s: factor must be in [1, 2^20], got %lld", op,
                    static_cast<long long>(r));
  int64_t c = in->size(rank - 3), h = in->size(rank - 2), w = in->size(rank - 1);
  if (up ? c % (r * r) != 0 : (h % r != 0 || w % r != 0))
    return ctx.fail(Error::InvalidArgument,
                    up ? "%s: channels must be divisible by the square of the factor"
                       : "%s: height and width must be divisible by the factor",
                    op);
  // The output read as (batch..., c', h, r, w, r) (shuffle) or
  // (batch..., c, r, r, h', w') (unshuffle): one strided walk over the
  // input, stored row-major, is the output.
  Shape os, walk;
  int64_t ws[kTensorMaxRank];
  int nb = rank - 3;
  for (int i = 0; i < nb; ++i) {
    os.push(in->size(i));
    walk.push(in->size(i));
    ws[i] = in->stride(i);
  }
  std::array<int64_t, 5> dims, st; // the walk's last five dims and strides
  std::array<int64_t, 3> tail;      // the output's last three dims
  if (up) {
    int64_t oc = c / (r * r);
    // out[c', y * r + i, x * r + j] = in[c' * r * r + i * r + j, y, x]
    dims = {oc, h, r, w, r};
    st = {r * r * h * w, w, r * h * w, 1, h * w};
    tail = {oc, h * r, w * r};
  } else {
    int64_t oh = h / r, ow = w / r;
    // out[c * r * r + i * r + j, y, x] = in[c, y * r + i, x * r + j]
    dims = {c, r, r, oh, ow};
    st = {h * w, w, 1, r * w, r};
    tail = {c * r * r, oh, ow};
  }
  for (int k = 0; k < 5; ++k) {
    walk.push(dims[k]);
    ws[nb + k] = st[k];
  }
  for (int64_t d : tail)
    os.push(d);
  PTEC_TRY(resizeOut(ctx, *out, os));
  gatherStrided(*in, 0, ws, *out, walk);
  return Error::Ok;
}

/// Shared by the six padding kernels: the padded dims are the last `k`.
enum class PadMode { Reflect, Replicate };

Error padKernel(KernelContext &ctx, Args args, int k, PadMode mode, const char *op) {
  Tensor *in, *out;
  IntList pad;
  PTEC_TRY(bindSelfAndOut(ctx, args, op, in, out, arg("padding", pad)));
  if (pad.size() != static_cast<size_t>(2 * k))
    return ctx.fail(Error::InvalidArgument, "%s: padding must have %d values, got %zu", op, 2 * k,
                    pad.size());
  int rank = in->dim();
  if (rank != k + 1 && rank != k + 2)
    return ctx.fail(Error::InvalidArgument, "%s: expects an input of rank %d or %d, got %d", op,
                    k + 1, k + 2, rank);
  int64_t before[kTensorMaxRank] = {}, after[kTensorMaxRank] = {};
  Shape os = Shape::of(*in);
  for (int i = 0; i < k; ++i) {
    int d = rank - 1 - i; // padding lists the last dim first
    before[d] = pad[2 * i];
    after[d] = pad[2 * i + 1];
    int64_t n = in->size(d);
    if (mode == PadMode::Reflect ? (before[d] < 0 || after[d] < 0 || before[d] >= n || after[d] >= n)
                                 : (before[d] < 0 || after[d] < 0 || (n == 0 && before[d] + after[d] > 0)))
      return ctx.fail(Error::InvalidArgument,
                      mode == PadMode::Reflect
                          ? "%s: padding (%lld, %lld) of dim %d must be in [0, %lld)"
                          : "%s: padding (%lld, %lld) of dim %d must be >= 0 on a non-empty dim",
                      op, static_cast<long long>(before[d]), static_cast<long long>(after[d]), d,
                      static_cast<long long>(n));
    if (__builtin_add_overflow(n, before[d], &os.d[d]) ||
        __builtin_add_overflow(os.d[d], after[d], &os.d[d]))
      return ctx.fail(Error::InvalidArgument, "%s: padded size overflows", op);
  }
  PTEC_TRY(resizeOut(ctx, *out, os));
  gatherByCoord(*in, *out, os, [&](int d, const int64_t *c) {
    int64_t n = in->size(d), x = c[d] - before[d];
    if (x < 0)
      return mode == PadMode::Reflect ? -x : 0;
    if (x >= n)
      return mode == PadMode::Reflect ? 2 * (n - 1) - x : n - 1;
    return x;
  });
  return Error::Ok;
}

} // namespace

/// as_strided_copy.out: [self, size, stride, storage_offset?, out, ret];
/// strides and offset address self's contiguous storage, range-checked.
Error as_strided_copy_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  IntList size, stride;
  bool hasOffset;
  int64_t offset;
  PTEC_TRY(bindSelfAndOut(ctx, args, "as_strided_copy", in, out, arg("size", size),
                          arg("stride", stride), optArg("storage_offset", hasOffset, offset)));
  if (size.size() != stride.size() || size.size() > static_cast<size_t>(kTensorMaxRank))
    return ctx.fail(Error::InvalidArgument,
                    "as_strided: size (%zu) and stride (%zu) must have one equal rank <= %d",
                    size.size(), stride.size(), kTensorMaxRank);
  if (offset < 0)
    return ctx.fail(Error::InvalidArgument, "as_strided: negative storage_offset");
  Shape os;
  int64_t strides[kTensorMaxRank];
  int64_t maxOff = offset;
  bool empty = false;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] < 0 || stride[i] < 0)
      return ctx.fail(Error::InvalidArgument, "as_strided: sizes and strides must be >= 0");
    os.push(size[i]);
    strides[i] = stride[i];
    empty = empty || size[i] == 0;
    int64_t span;
    if (size[i] > 0 && (__builtin_mul_overflow(size[i] - 1, stride[i], &span) ||
                        __builtin_add_overflow(maxOff, span, &maxOff)))
      return ctx.fail(Error::InvalidArgument, "as_strided: the view's extent overflows");
  }
  if (!empty && maxOff >= in->numel())
    return ctx.fail(Error::InvalidArgument,
                    "as_strided: the view reaches element %lld of a tensor of %lld elements",
                    static_cast<long long>(maxOff), static_cast<long long>(in->numel()));
  return viewCopy(ctx, *in, *out, os, strides, offset);
}

/// diagonal_copy.out: [self, offset, dim1, dim2, out, ret]; the diagonal
/// becomes the last dim.
Error diagonal_copy_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  int64_t offset, d1, d2;
  PTEC_TRY(bindSelfAndOut(ctx, args, "diagonal_copy", in, out, arg("offset", offset),
                          arg("dim1", d1), arg("dim2", d2)));
  if (in->dim() < 2)
    return ctx.fail(Error::InvalidArgument, "diagonal: input must have rank >= 2, got %d",
                    in->dim());
  PTEC_TRY(normDim(ctx, d1, in->dim(), d1));
  PTEC_TRY(normDim(ctx, d2, in->dim(), d2));
  if (d1 == d2)
    return ctx.fail(Error::InvalidArgument, "diagonal: dim1 and dim2 must differ");
  int64_t n1 = in->size(static_cast<int>(d1)), n2 = in->size(static_cast<int>(d2));
  int64_t len = 0, base = 0;
  if (offset >= 0 && offset < n2) {
    len = std::min(n1, n2 - offset);
    base = offset * in->stride(static_cast<int>(d2));
  } else if (offset < 0 && offset > -n1) { // (-offset could overflow for INT64_MIN)
    len = std::min(n1 + offset, n2);
    base = -offset * in->stride(static_cast<int>(d1));
  }
  Shape os;
  int64_t strides[kTensorMaxRank];
  for (int i = 0; i < in->dim(); ++i)
    if (i != d1 && i != d2) {
      strides[os.n] = in->stride(i);
      os.push(in->size(i));
    }
  strides[os.n] = in->stride(static_cast<int>(d1)) + in->stride(static_cast<int>(d2));
  os.push(len);
  return viewCopy(ctx, *in, *out, os, strides, len ? base : 0);
}

/// narrow_copy.out: [self, dim, start, length, out, ret].
Error narrow_copy_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  int64_t dim, start, length;
  PTEC_TRY(bindSelfAndOut(ctx, args, "narrow_copy", in, out, arg("dim", dim), arg("start", start),
                          arg("length", length)));
  if (in->dim() == 0)
    return ctx.fail(Error::InvalidArgument, "narrow: cannot narrow a rank-0 tensor");
  PTEC_TRY(normDim(ctx, dim, in->dim(), dim));
  int64_t n = in->size(static_cast<int>(dim));
  if (start < -n || start > n)
    return ctx.fail(Error::InvalidArgument, "narrow: start %lld out of range for size %lld",
                    static_cast<long long>(start), static_cast<long long>(n));
  if (start < 0)
    start += n;
  if (length < 0 || length > n - start)
    return ctx.fail(Error::InvalidArgument, "narrow: start %lld + length %lld exceeds size %lld",
                    static_cast<long long>(start), static_cast<long long>(length),
                    static_cast<long long>(n));
  Shape os = Shape::of(*in);
  os.d[dim] = length;
  int64_t strides[kTensorMaxRank];
  for (int i = 0; i < in->dim(); ++i)
    strides[i] = in->stride(i);
  return viewCopy(ctx, *in, *out, os, strides, start * in->stride(static_cast<int>(dim)));
}

/// unfold_copy.out: [self, dimension, size, step, out, ret]; windows of
/// `size` every `step` along `dimension`, as a new last dim.
Error unfold_copy_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  int64_t dim, size, step;
  PTEC_TRY(bindSelfAndOut(ctx, args, "unfold_copy", in, out, arg("dimension", dim),
                          arg("size", size), arg("step", step)));
  PTEC_TRY(normDim(ctx, dim, in->dim(), dim));
  int64_t n = in->dim() == 0 ? 1 : in->size(static_cast<int>(dim));
  if (size < 0 || size > n)
    return ctx.fail(Error::InvalidArgument, "unfold: size %lld exceeds dim size %lld",
                    static_cast<long long>(size), static_cast<long long>(n));
  if (step <= 0)
    return ctx.fail(Error::InvalidArgument, "unfold: step must be positive, got %lld",
                    static_cast<long long>(step));
  if (in->dim() + 1 > kTensorMaxRank)
    return ctx.fail(Error::InvalidArgument, "unfold: result rank exceeds %d", kTensorMaxRank);
  Shape os;
  int64_t strides[kTensorMaxRank];
  int64_t dimStride = in->dim() == 0 ? 1 : in->stride(static_cast<int>(dim));
  const int64_t windows = (n - size) / step + 1;
  for (int i = 0; i < in->dim(); ++i) {
    // One window: its stride is never stepped (and step * stride could
    // overflow for a step past the dim); several: step < n, no overflow.
    strides[i] = i != dim ? in->stride(i) : windows > 1 ? in->stride(i) * step : 0;
    os.push(i == dim ? windows : in->size(i));
  }
  strides[os.n] = dimStride;
  os.push(size);
  return viewCopy(ctx, *in, *out, os, strides, 0);
}

/// flip.out: [self, dims, out, ret]; negative strides from the far end.
Error flip_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  IntList dims;
  PTEC_TRY(bindSelfAndOut(ctx, args, "flip", in, out, arg("dims", dims)));
  bool flip[kTensorMaxRank] = {};
  for (size_t k = 0; k < dims.size(); ++k) {
    int64_t d;
    PTEC_TRY(normDim(ctx, dims[k], in->dim(), d));
    if (in->dim() == 0)
      continue;
    if (flip[d])
      return ctx.fail(Error::InvalidArgument, "flip: dim %lld appears more than once",
                      static_cast<long long>(d));
    flip[d] = true;
  }
  Shape os = Shape::of(*in);
  int64_t strides[kTensorMaxRank], base = 0;
  for (int i = 0; i < in->dim(); ++i) {
    strides[i] = flip[i] ? -in->stride(i) : in->stride(i);
    if (flip[i] && in->size(i) > 0)
      base += (in->size(i) - 1) * in->stride(i);
  }
  return viewCopy(ctx, *in, *out, os, strides, in->numel() ? base : 0);
}

Error pixel_shuffle_out(KernelContext &ctx, Args args) { return pixelShuffle(ctx, args, true); }
Error pixel_unshuffle_out(KernelContext &ctx, Args args) { return pixelShuffle(ctx, args, false); }

/// roll.out: [self, shifts, dims, out, ret]; without dims the flattened
/// tensor rolls by the single shift.
Error roll_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  IntList shifts, dims;
  PTEC_TRY(bindSelfAndOut(ctx, args, "roll", in, out, arg("shifts", shifts), arg("dims", dims)));
  PTEC_TRY(resizeOut(ctx, *out, Shape::of(*in)));
  int64_t n = in->numel();
  if (n == 0)
    return Error::Ok;
  if (dims.size() == 0) {
    if (shifts.size() != 1)
      return ctx.fail(Error::InvalidArgument, "roll: without dims, give exactly one shift");
    int64_t s = wrapIndex(shifts[0], n);
    for (int64_t i = 0; i < n; ++i)
      copyOne(*in, wrapIndex(i - s, n), *out, i);
    return Error::Ok;
  }
  if (shifts.size() != dims.size())
    return ctx.fail(Error::InvalidArgument, "roll: %zu shifts for %zu dims", shifts.size(),
                    dims.size());
  int64_t shift[kTensorMaxRank] = {};
  for (size_t k = 0; k < dims.size(); ++k) {
    int64_t d;
    PTEC_TRY(normDim(ctx, dims[k], in->dim(), d));
    if (in->dim() == 0)
      continue;
    // Repeated dims add up, as rolling twice would.
    shift[d] = wrapIndex(shift[d] + wrapIndex(shifts[k], in->size(static_cast<int>(d))),
                         in->size(static_cast<int>(d)));
  }
  gatherByCoord(*in, *out, Shape::of(*in), [&](int d, const int64_t *c) {
    return wrapIndex(c[d] - shift[d], in->size(d));
  });
  return Error::Ok;
}

/// repeat.out: [self, repeats, out, ret]; repeats may add leading dims.
Error repeat_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  IntList reps;
  PTEC_TRY(bindSelfAndOut(ctx, args, "repeat", in, out, arg("repeats", reps)));
  int r = static_cast<int>(reps.size());
  if (r < in->dim())
    return ctx.fail(Error::InvalidArgument,
                    "repeat: %d repeats for a tensor of rank %d (need at least the rank)", r,
                    in->dim());
  if (r > kTensorMaxRank)
    return ctx.fail(Error::InvalidArgument, "repeat: rank %d exceeds %d", r, kTensorMaxRank);
  int lead = r - in->dim();
  Shape os;
  for (int i = 0; i < r; ++i) {
    int64_t s = i < lead ? 1 : in->size(i - lead), v;
    if (reps[i] < 0)
      return ctx.fail(Error::InvalidArgument, "repeat: negative repeat count");
    if (__builtin_mul_overflow(s, reps[i], &v))
      return ctx.fail(Error::InvalidArgument, "repeat: result size overflows");
    os.push(v);
  }
  PTEC_TRY(resizeOut(ctx, *out, os));
  gatherByCoord(*in, *out, os, [&](int d, const int64_t *c) { return c[lead + d] % in->size(d); });
  return Error::Ok;
}

/// tril.out: [self, diagonal, out, ret]; zeros above the diagonal of the
/// last two dims.
Error tril_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  int64_t diag;
  PTEC_TRY(bindSelfAndOut(ctx, args, "tril", in, out, arg("diagonal", diag)));
  if (in->dim() < 2)
    return ctx.fail(Error::InvalidArgument, "tril: input must have rank >= 2, got %d", in->dim());
  PTEC_TRY(resizeOut(ctx, *out, Shape::of(*in)));
  int rank = in->dim();
  size_t es = in->elementSize();
  forEachCoord(Shape::of(*in), [&](int64_t o, const int64_t *c) {
    if (c[rank - 1] - c[rank - 2] <= diag)
      copyOne(*in, o, *out, o);
    else
      std::memset(static_cast<uint8_t *>(out->mutableData()) + o * es, 0, es);
  });
  return Error::Ok;
}

Error reflection_pad1d_out(KernelContext &ctx, Args args) {
  return padKernel(ctx, args, 1, PadMode::Reflect, "reflection_pad1d");
}
Error reflection_pad2d_out(KernelContext &ctx, Args args) {
  return padKernel(ctx, args, 2, PadMode::Reflect, "reflection_pad2d");
}
Error reflection_pad3d_out(KernelContext &ctx, Args args) {
  return padKernel(ctx, args, 3, PadMode::Reflect, "reflection_pad3d");
}
Error replication_pad1d_out(KernelContext &ctx, Args args) {
  return padKernel(ctx, args, 1, PadMode::Replicate, "replication_pad1d");
}
Error replication_pad2d_out(KernelContext &ctx, Args args) {
  return padKernel(ctx, args, 2, PadMode::Replicate, "replication_pad2d");
}
Error replication_pad3d_out(KernelContext &ctx, Args args) {
  return padKernel(ctx, args, 3, PadMode::Replicate, "replication_pad3d");
}

} // namespace ptec::rt::portable
