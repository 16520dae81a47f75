// Data-dependent selection and scattering: masked_select, masked_scatter,
// nonzero, repeat_interleave (outputs sized by the data, within the out
// tensor's capacity), scatter / scatter_add along a dim, and topk.
#include "runtime/kernels/portable/Elementwise.h"
#include "runtime/kernels/portable/Kernels.h"

#include <cmath>

namespace ptec::rt::portable {

namespace {

/// A bool (or uint8) mask element, read through a broadcast offset.
inline bool maskAt(const Tensor &mask, int64_t i) {
  return loadAs<int64_t>(mask.data(), mask.dtype(), i) != 0;
}

Error requireMask(KernelContext &ctx, const Tensor &mask, const char *op) {
  if (mask.dtype() != ScalarType::Bool && mask.dtype() != ScalarType::Byte)
    return ctx.fail(Error::InvalidArgument, "%s: mask must be bool, got %s", op,
                    toString(mask.dtype()));
  return Error::Ok;
}

/// The scatter family's checks (PyTorch's): int64 index of self's rank,
/// no larger than src (when given) and than self outside `dim`.
Error checkScatter(KernelContext &ctx, const char *op, const Tensor &self, int64_t dim,
                   const Tensor &index, const Tensor *src) {
  PTEC_TRY(requireInt64(ctx, index, op, "index"));
  int rank = self.dim() == 0 ? 1 : self.dim();
  int irank = index.dim() == 0 ? 1 : index.dim();
  if (index.numel() == 0)
    return Error::Ok;
  if (irank != rank || (src && (src->dim() == 0 ? 1 : src->dim()) != rank))
    return ctx.fail(Error::InvalidArgument, "%s: index and src must have self's rank (%d)", op,
                    self.dim());
  for (int d = 0; d < index.dim(); ++d) {
    if (src && index.size(d) > src->size(d))
      return ctx.fail(Error::InvalidArgument, "%s: index is larger than src in dim %d", op, d);
    if (d != dim && index.size(d) > self.size(d))
      return ctx.fail(Error::InvalidArgument, "%s: index is larger than self in dim %d", op, d);
  }
  return Error::Ok;
}

enum class ScatterKind { Src, Value, Add };

/// [self, dim, index, src|value, out, ret]: out = self, then
/// out[..index[i]..] = src[i] (or value, or += src[i]) along `dim`.
Error scatterKernel(KernelContext &ctx, Args args, ScatterKind kind, const char *op) {
  Tensor *self, *out, *index, *src = nullptr;
  PTEC_TRY(selfAndOut(ctx, args, 6, op, self, out));
  int64_t dim;
  Scalar value;
  PTEC_TRY(argInt(ctx, args, 1, "dim", dim));
  PTEC_TRY(argTensor(ctx, args, 2, "index", index));
  if (kind == ScatterKind::Value)
    PTEC_TRY(argScalar(ctx, args, 3, "value", value));
  else
    PTEC_TRY(argTensor(ctx, args, 3, "src", src));
  if (src && src->dtype() != self->dtype())
    return ctx.fail(Error::InvalidArgument, "%s: src dtype %s differs from self dtype %s", op,
                    toString(src->dtype()), toString(self->dtype()));
  PTEC_TRY(normDim(ctx, dim, self->dim(), dim));
  PTEC_TRY(checkScatter(ctx, op, *self, dim, *index, src));
  PTEC_TRY(resizeOut(ctx, *out, Shape::of(*self)));
  out->copyElementsFrom(*self);
  if (index->numel() == 0)
    return Error::Ok;
  const int rank = index->dim();
  const int64_t limit = self->dim() == 0 ? 1 : self->size(static_cast<int>(dim));
  const bool isFloat = isFloatDt(self->dtype());
  Shape is = Shape::of(*index);
  int64_t coord[kTensorMaxRank] = {};
  for (int64_t k = 0, n = index->numel(); k < n; ++k) {
    int64_t to = index->dataAs<int64_t>()[k];
    if (to < -limit || to >= limit)
      return ctx.fail(Error::InvalidArgument, "%s: index %lld out of range for size %lld", op,
                      static_cast<long long>(to), static_cast<long long>(limit));
    if (to < 0)
      to += limit;
    int64_t o = 0, si = 0;
    for (int d = 0; d < rank; ++d) {
      o += (d == dim ? to : coord[d]) * self->stride(d);
      if (src)
        si += coord[d] * src->stride(d);
    }
    if (kind == ScatterKind::Value) {
      if (value.cat == Cat::Float)
        storeAs<double>(out->mutableData(), out->dtype(), o, value.d);
      else
        storeAs<int64_t>(out->mutableData(), out->dtype(), o, value.i);
    } else if (kind == ScatterKind::Src) {
      copyElems(out->mutableData(), o, src->data(), si, 1, out->elementSize());
    } else if (isFloat) {
      storeAs<double>(out->mutableData(), out->dtype(), o,
                      loadAs<double>(out->data(), out->dtype(), o) +
                          loadAs<double>(src->data(), src->dtype(), si));
    } else if (out->dtype() == ScalarType::Bool) {
      storeAs<bool>(out->mutableData(), out->dtype(), o,
                    loadAs<bool>(out->data(), out->dtype(), o) ||
                        loadAs<bool>(src->data(), src->dtype(), si));
    } else {
      storeAs<int64_t>(out->mutableData(), out->dtype(), o,
                       wrapAdd(loadAs<int64_t>(out->data(), out->dtype(), o),
                               loadAs<int64_t>(src->data(), src->dtype(), si)));
    }
    for (int d = rank - 1; d >= 0; --d) {
      if (++coord[d] < is.d[d])
        break;
      coord[d] = 0;
    }
  }
  return Error::Ok;
}

/// topk's order: `a` at index ia comes before `b` at ib. NaN counts as the
/// largest value (PyTorch's rule); equal values keep index order.
inline bool before(double a, int64_t ia, double b, int64_t ib, bool largest) {
  bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn) {
    if (an && bn)
      return ia < ib;
    return largest ? an : bn;
  }
  if (a != b)
    return largest ? a > b : a < b;
  return ia < ib;
}

} // namespace

/// masked_select.out: [self, mask, out, ret]; out is 1-D, the elements of
/// self (broadcast with mask) where mask is true, in row-major order.
Error masked_select_out(KernelContext &ctx, Args args) {
  Tensor *self, *mask, *out;
  PTEC_TRY(selfAndOut(ctx, args, 4, "masked_select", self, out));
  PTEC_TRY(argTensor(ctx, args, 1, "mask", mask));
  PTEC_TRY(requireMask(ctx, *mask, "masked_select"));
  const Tensor *ins[2] = {self, mask};
  Shape os;
  PTEC_TRY(broadcastShapes(ctx, ins, 2, os));
  int64_t count = 0;
  forEachBroadcast<2>(os, ins, [&](int64_t, const int64_t(&ix)[2]) { count += maskAt(*mask, ix[1]); });
  PTEC_TRY(resizeOut(ctx, *out, Span<const int64_t>(&count, 1)));
  int64_t k = 0;
  size_t es = self->elementSize();
  forEachBroadcast<2>(os, ins, [&](int64_t, const int64_t(&ix)[2]) {
    if (maskAt(*mask, ix[1]))
      copyElems(out->mutableData(), k++, self->data(), ix[0], 1, es);
  });
  return Error::Ok;
}

/// masked_scatter.out: [self, mask, source, out, ret]; out = self with the
/// positions where mask (broadcast to self) is true taken, in order, from
/// source's elements.
Error masked_scatter_out(KernelContext &ctx, Args args) {
  Tensor *self, *mask, *source, *out;
  PTEC_TRY(selfAndOut(ctx, args, 5, "masked_scatter", self, out));
  PTEC_TRY(argTensor(ctx, args, 1, "mask", mask));
  PTEC_TRY(argTensor(ctx, args, 2, "source", source));
  PTEC_TRY(requireMask(ctx, *mask, "masked_scatter"));
  PTEC_TRY(checkSameDtype(ctx, *self, *source, "masked_scatter"));
  Shape os = Shape::of(*self);
  if (!broadcastsTo(*mask, os)) {
    ShapeText m(*mask), s(*self);
    return ctx.fail(Error::InvalidArgument,
                    "masked_scatter: mask of shape %s does not broadcast to self %s", m.c_str(),
                    s.c_str());
  }
  PTEC_TRY(resizeOut(ctx, *out, os));
  out->copyElementsFrom(*self);
  const Tensor *ins[1] = {mask};
  int64_t k = 0, n = source->numel();
  bool tooFew = false;
  size_t es = self->elementSize();
  forEachBroadcast<1>(os, ins, [&](int64_t o, const int64_t(&ix)[1]) {
    if (!maskAt(*mask, ix[0]))
      return;
    if (k >= n) {
      tooFew = true;
      return;
    }
    copyElems(out->mutableData(), o, source->data(), k++, 1, es);
  });
  if (tooFew)
    return ctx.fail(Error::InvalidArgument,
                    "masked_scatter: mask selects more elements than source has (%lld)",
                    static_cast<long long>(n));
  return Error::Ok;
}

/// nonzero.out: [self, out, ret]; out is int64 [count, rank] of coordinates.
Error nonzero_out(KernelContext &ctx, Args args) {
  Tensor *self, *out;
  PTEC_TRY(bindArgs(ctx, args, arg("self", self), outArg("out", out)));
  PTEC_TRY(requireInt64(ctx, *out, "nonzero", "out"));
  const int64_t n = self->numel(), rank = self->dim();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i)
    count += loadAs<double>(self->data(), self->dtype(), i) != 0;
  int64_t os[2] = {count, rank};
  PTEC_TRY(resizeOut(ctx, *out, Span<const int64_t>(os, 2)));
  int64_t *o = out->dataAs<int64_t>();
  int64_t coord[kTensorMaxRank] = {};
  for (int64_t i = 0; i < n; ++i) {
    if (loadAs<double>(self->data(), self->dtype(), i) != 0) {
      for (int64_t d = 0; d < rank; ++d)
        *o++ = coord[d];
    }
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++coord[d] < self->size(static_cast<int>(d)))
        break;
      coord[d] = 0;
    }
  }
  return Error::Ok;
}

/// repeat_interleave.Tensor_out: [repeats, output_size?, out, ret]; index i
/// appears repeats[i] times.
Error repeat_interleave_tensor_out(KernelContext &ctx, Args args) {
  Tensor *reps, *out;
  bool hasSize;
  int64_t outputSize;
  PTEC_TRY(bindArgs(ctx, args, arg("repeats", reps), optArg("output_size", hasSize, outputSize),
                    outArg("out", out)));
  if (!isIndexDt(reps->dtype()) || reps->dim() > 1)
    return ctx.fail(Error::InvalidArgument,
                    "repeat_interleave: repeats must be a 0-D or 1-D int32/int64 tensor");
  if (!isIndexDt(out->dtype()))
    return ctx.fail(Error::InvalidArgument, "repeat_interleave: out must be int32 or int64, got %s",
                    toString(out->dtype()));
  int64_t total = 0;
  for (int64_t i = 0, n = reps->numel(); i < n; ++i) {
    int64_t r = loadAs<int64_t>(reps->data(), reps->dtype(), i);
    if (r < 0)
      return ctx.fail(Error::InvalidArgument, "repeat_interleave: repeats must be >= 0");
    if (__builtin_add_overflow(total, r, &total))
      return ctx.fail(Error::InvalidArgument, "repeat_interleave: total size overflows");
  }
  if (hasSize && outputSize != total)
    return ctx.fail(Error::InvalidArgument,
                    "repeat_interleave: output_size %lld differs from the repeats' sum %lld",
                    static_cast<long long>(outputSize), static_cast<long long>(total));
  PTEC_TRY(resizeOut(ctx, *out, Span<const int64_t>(&total, 1)));
  int64_t k = 0;
  for (int64_t i = 0, n = reps->numel(); i < n; ++i)
    for (int64_t r = loadAs<int64_t>(reps->data(), reps->dtype(), i); r > 0; --r)
      storeAs<int64_t>(out->mutableData(), out->dtype(), k++, i);
  return Error::Ok;
}

Error scatter_src_out(KernelContext &ctx, Args args) {
  return scatterKernel(ctx, args, ScatterKind::Src, "scatter");
}
Error scatter_value_out(KernelContext &ctx, Args args) {
  return scatterKernel(ctx, args, ScatterKind::Value, "scatter");
}
Error scatter_add_out(KernelContext &ctx, Args args) {
  return scatterKernel(ctx, args, ScatterKind::Add, "scatter_add");
}

/// topk.values: [self, k, dim, largest, sorted, values, indices, ret]. The
/// k best elements of each slice along `dim`, always in sorted order (valid
/// for sorted=False too). Selection rescans the slice per rank, O(n * k),
/// so that no scratch memory is needed.
Error topk_values(KernelContext &ctx, Args args) {
  Tensor *self, *values, *indices;
  int64_t k, dim;
  bool largest, sorted;
  PTEC_TRY(bindArgs(ctx, args, arg("self", self), arg("k", k), arg("dim", dim),
                    arg("largest", largest), arg("sorted", sorted), outArg("values", values),
                    outArg("indices", indices)));
  PTEC_TRY(checkSameDtype(ctx, *self, *values, "topk"));
  PTEC_TRY(requireInt64(ctx, *indices, "topk", "indices"));
  PTEC_TRY(normDim(ctx, dim, self->dim(), dim));
  int64_t n = self->dim() == 0 ? 1 : self->size(static_cast<int>(dim));
  if (k < 0 || k > n)
    return ctx.fail(Error::InvalidArgument, "topk: k=%lld out of range for a dim of size %lld",
                    static_cast<long long>(k), static_cast<long long>(n));
  Shape os = Shape::of(*self);
  if (self->dim() > 0)
    os.d[dim] = k;
  PTEC_TRY(resizeOut(ctx, *values, os, "values"));
  PTEC_TRY(resizeOut(ctx, *indices, os, "indices"));
  AxisSplit s = self->dim() == 0 ? AxisSplit{} : splitAt(*self, dim);
  const void *p = self->data();
  ScalarType t = self->dtype();
  size_t es = self->elementSize();
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t j = 0; j < s.inner; ++j) {
      int64_t base = o * n * s.inner + j, obase = o * k * s.inner + j;
      double prev = 0;
      int64_t prevIdx = -1;
      for (int64_t r = 0; r < k; ++r) {
        int64_t best = -1;
        double bv = 0;
        for (int64_t i = 0; i < n; ++i) {
          double v = loadAs<double>(p, t, base + i * s.inner);
          if (prevIdx >= 0 && !before(prev, prevIdx, v, i, largest))
            continue; // already taken
          if (best < 0 || before(v, i, bv, best, largest)) {
            best = i;
            bv = v;
          }
        }
        copyElems(values->mutableData(), obase + r * s.inner, p, base + best * s.inner, 1, es);
        indices->dataAs<int64_t>()[obase + r * s.inner] = best;
        prev = bv;
        prevIdx = best;
      }
    }
  (void)sorted;
  return Error::Ok;
}

} // namespace ptec::rt::portable
