// Shape and view-copy kernels: permute, view, expand, squeeze/unsqueeze,
// select, slice, transpose, cat, stack, split, and et_view (which aliases).
#include "runtime/kernels/portable/Kernels.h"
#include "runtime/kernels/portable/KernelUtils.h"

#include <algorithm>

namespace ptec::rt::portable {

namespace {

/// Target shape of a view: `size` with one -1 inferred from numel.
Error inferViewShape(KernelContext &ctx, const IntList &size, int64_t numel, Shape &s) {
  if (size.size() > static_cast<size_t>(kTensorMaxRank))
    return ctx.fail(Error::InvalidArgument, "view: rank %zu exceeds %d", size.size(),
                    kTensorMaxRank);
  s = Shape{};
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < size.size(); ++i) {
    int64_t v = size[i];
    if (v == -1) {
      if (infer >= 0)
        return ctx.fail(Error::InvalidArgument, "view: only one dimension can be -1");
      infer = static_cast<int>(i);
      v = 1;
    } else if (v < 0) {
      return ctx.fail(Error::InvalidArgument, "view: invalid size %lld",
                      static_cast<long long>(v));
    } else if (__builtin_mul_overflow(known, v, &known)) {
      return ctx.fail(Error::InvalidArgument, "view: size overflows");
    }
    s.push(v);
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0)
      return ctx.fail(Error::InvalidArgument,
                      "view: cannot infer -1 for %lld elements", static_cast<long long>(numel));
    s.d[infer] = numel / known;
  }
  if (s.numel() != numel) {
    ShapeText t(s.span());
    return ctx.fail(Error::InvalidArgument, "view: shape %s is invalid for input of %lld elements",
                    t.c_str(), static_cast<long long>(numel));
  }
  return Error::Ok;
}

Error permuteImpl(KernelContext &ctx, const Tensor &in, Tensor &out, const int64_t *perm) {
  Shape os;
  int64_t strides[kTensorMaxRank];
  for (int i = 0; i < in.dim(); ++i) {
    os.push(in.size(static_cast<int>(perm[i])));
    strides[i] = in.stride(static_cast<int>(perm[i]));
  }
  return viewCopy(ctx, in, out, os, strides, 0);
}

Error transposeImpl(KernelContext &ctx, const Tensor &in, Tensor &out, int64_t d0, int64_t d1) {
  int64_t perm[kTensorMaxRank];
  for (int i = 0; i < in.dim(); ++i)
    perm[i] = i;
  if (in.dim() > 0) {
    perm[d0] = d1;
    perm[d1] = d0;
  }
  return permuteImpl(ctx, in, out, perm);
}

/// Normalised slice bounds (PyTorch clamps out-of-range start/end).
void sliceBounds(int64_t size, bool hasStart, int64_t start, bool hasEnd, int64_t end,
                 int64_t &s, int64_t &e) {
  s = hasStart ? start : 0;
  e = hasEnd ? end : size;
  if (s < 0)
    s += size;
  if (e < 0)
    e += size;
  s = s < 0 ? 0 : (s > size ? size : s);
  e = e < s ? s : (e > size ? size : e);
}

} // namespace

/// Resize out to os, then copy in's elements through a strided view.
Error viewCopy(KernelContext &ctx, const Tensor &in, Tensor &out, const Shape &os,
               const int64_t *strides, int64_t base) {
  PTEC_TRY(resizeOut(ctx, out, os));
  gatherStrided(in, base, strides, out, os);
  return Error::Ok;
}

/// Shared with the scatter kernels (Indexing.cpp).
Error parseSlice(KernelContext &ctx, Args args, size_t first, const Tensor &in,
                 StridedView &view) {
  int64_t rawDim, dim, step, s = 0, e = 0;
  bool hasS, hasE;
  PTEC_TRY(argInt(ctx, args, first, "dim", rawDim));
  PTEC_TRY(argOptInt(ctx, args, first + 1, "start", hasS, s));
  PTEC_TRY(argOptInt(ctx, args, first + 2, "end", hasE, e));
  PTEC_TRY(argInt(ctx, args, first + 3, "step", step));
  if (in.dim() == 0)
    return ctx.fail(Error::InvalidArgument, "slice: cannot slice a rank-0 tensor");
  PTEC_TRY(normDim(ctx, rawDim, in.dim(), dim));
  if (step <= 0)
    return ctx.fail(Error::InvalidArgument, "slice: step must be positive, got %lld",
                    static_cast<long long>(step));
  int64_t lo, hi;
  sliceBounds(in.size(static_cast<int>(dim)), hasS, s, hasE, e, lo, hi);
  view.shape = Shape::of(in);
  view.shape.d[dim] = hi > lo ? (hi - lo - 1) / step + 1 : 0;
  // With at most one element along dim the step is never taken (and may be
  // as large as int64 allows); with two or more, step < size keeps the
  // product within the tensor.
  const bool steps = view.shape.d[dim] > 1;
  for (int i = 0; i < in.dim(); ++i)
    view.strides[i] = in.stride(i) * (i == dim && steps ? step : 1);
  view.base = lo * in.stride(static_cast<int>(dim));
  return Error::Ok;
}

/// Shared with select_scatter (Indexing.cpp).
Error selectView(KernelContext &ctx, const char *op, const Tensor &in, int64_t dim, int64_t index,
                 StridedView &view) {
  int64_t n = in.size(static_cast<int>(dim));
  if (index < -n || index >= n)
    return ctx.fail(Error::InvalidArgument, "%s: index %lld out of range for size %lld", op,
                    static_cast<long long>(index), static_cast<long long>(n));
  if (index < 0)
    index += n;
  view.shape = Shape{};
  for (int i = 0; i < in.dim(); ++i)
    if (i != dim) {
      view.strides[view.shape.n] = in.stride(i);
      view.shape.push(in.size(i));
    }
  view.base = index * in.stride(static_cast<int>(dim));
  return Error::Ok;
}

Error permute_copy_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  IntList dims;
  PTEC_TRY(bindSelfAndOut(ctx, args, "permute_copy", in, out, arg("dims", dims)));
  if (dims.size() != static_cast<size_t>(in->dim()))
    return ctx.fail(Error::InvalidArgument, "permute: %zu dims given for a tensor of rank %d",
                    dims.size(), in->dim());
  int64_t perm[kTensorMaxRank];
  bool seen[kTensorMaxRank] = {};
  for (int i = 0; i < in->dim(); ++i) {
    PTEC_TRY(normDim(ctx, dims[i], in->dim(), perm[i]));
    if (seen[perm[i]])
      return ctx.fail(Error::InvalidArgument, "permute: dim %lld repeated",
                      static_cast<long long>(perm[i]));
    seen[perm[i]] = true;
  }
  return permuteImpl(ctx, *in, *out, perm);
}

Error transpose_copy_int_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  int64_t a, b;
  PTEC_TRY(bindSelfAndOut(ctx, args, "transpose_copy", in, out, arg("dim0", a), arg("dim1", b)));
  PTEC_TRY(normDim(ctx, a, in->dim(), a));
  PTEC_TRY(normDim(ctx, b, in->dim(), b));
  return transposeImpl(ctx, *in, *out, a, b);
}

Error t_copy_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  PTEC_TRY(bindSelfAndOut(ctx, args, "t_copy", in, out));
  if (in->dim() > 2)
    return ctx.fail(Error::InvalidArgument, "t: expects a tensor of rank <= 2, got rank %d",
                    in->dim());
  return transposeImpl(ctx, *in, *out, 0, in->dim() == 2 ? 1 : 0);
}

Error view_copy_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  IntList size;
  PTEC_TRY(bindSelfAndOut(ctx, args, "view_copy", in, out, arg("size", size)));
  Shape os;
  PTEC_TRY(inferViewShape(ctx, size, in->numel(), os));
  PTEC_TRY(resizeOut(ctx, *out, os));
  if (out->mutableData() != in->data())
    copyElems(out->mutableData(), 0, in->data(), 0, in->numel(), in->elementSize());
  return Error::Ok;
}

Error et_view(KernelContext &ctx, Args args) {
  PT_NARGS(3);
  Tensor *in, *out;
  IntList size;
  PTEC_TRY(argTensor(ctx, args, 0, "self", in));
  PTEC_TRY(argIntList(ctx, args, 1, "size", size));
  PTEC_TRY(argOut(ctx, args, 2, "out", out));
  PTEC_TRY(checkSameDtype(ctx, *in, *out, "et_view"));
  Shape os;
  PTEC_TRY(inferViewShape(ctx, size, in->numel(), os));
  // The output aliases the input's storage.
  out->setData(in->mutableData(), in->capacityBytes());
  return resizeOut(ctx, *out, os);
}

Error expand_copy_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  IntList size;
  bool implicit;
  PTEC_TRY(bindSelfAndOut(ctx, args, "expand_copy", in, out, arg("size", size),
                          arg("implicit", implicit)));
  size_t n = size.size();
  if (n < static_cast<size_t>(in->dim()) || n > static_cast<size_t>(kTensorMaxRank))
    return ctx.fail(Error::InvalidArgument,
                    "expand: %zu sizes given for a tensor of rank %d", n, in->dim());
  Shape os;
  int64_t strides[kTensorMaxRank];
  int off = static_cast<int>(n) - in->dim();
  for (int i = 0; i < static_cast<int>(n); ++i) {
    int64_t want = size[i];
    int ti = i - off;
    if (ti < 0) {
      if (want < 0)
        return ctx.fail(Error::InvalidArgument, "expand: size -1 not allowed for new dim %d", i);
      os.push(want);
      strides[i] = 0;
      continue;
    }
    int64_t have = in->size(ti);
    if (want == -1)
      want = have;
    if (have != want && have != 1) {
      ShapeText a(*in);
      return ctx.fail(Error::InvalidArgument,
                      "expand: size %lld at dim %d does not match %lld of input %s",
                      static_cast<long long>(want), i, static_cast<long long>(have), a.c_str());
    }
    if (want < 0)
      return ctx.fail(Error::InvalidArgument, "expand: invalid size %lld",
                      static_cast<long long>(want));
    os.push(want);
    strides[i] = have == 1 ? 0 : in->stride(ti);
  }
  return viewCopy(ctx, *in, *out, os, strides, 0);
}

Error unsqueeze_copy_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  int64_t dim;
  PTEC_TRY(bindSelfAndOut(ctx, args, "unsqueeze_copy", in, out, arg("dim", dim)));
  if (in->dim() >= kTensorMaxRank)
    return ctx.fail(Error::InvalidArgument, "unsqueeze: rank would exceed %d", kTensorMaxRank);
  PTEC_TRY(normDim(ctx, dim, in->dim() + 1, dim));
  Shape os;
  for (int i = 0, j = 0; i <= in->dim(); ++i)
    os.push(i == dim ? 1 : in->size(j++));
  PTEC_TRY(resizeOut(ctx, *out, os));
  copyElems(out->mutableData(), 0, in->data(), 0, in->numel(), in->elementSize());
  return Error::Ok;
}

/// squeeze_copy over `dims` (dims of size 1 are dropped, others kept):
/// the same elements in the same order, a shorter shape.
static Error squeezeCopy(KernelContext &ctx, const Tensor &in, Tensor &out,
                         const int64_t *dims, size_t numDims) {
  bool drop[kTensorMaxRank] = {};
  for (size_t k = 0; k < numDims; ++k) {
    int64_t d;
    PTEC_TRY(normDim(ctx, dims[k], in.dim(), d));
    if (in.dim() > 0 && in.size(static_cast<int>(d)) == 1)
      drop[d] = true;
  }
  Shape os;
  for (int i = 0; i < in.dim(); ++i)
    if (!drop[i])
      os.push(in.size(i));
  PTEC_TRY(resizeOut(ctx, out, os));
  copyElems(out.mutableData(), 0, in.data(), 0, in.numel(), in.elementSize());
  return Error::Ok;
}

Error squeeze_copy_dims_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  IntList dims;
  PTEC_TRY(bindSelfAndOut(ctx, args, "squeeze_copy", in, out, arg("dim", dims)));
  int64_t d[kTensorMaxRank];
  if (dims.size() > kTensorMaxRank)
    return ctx.fail(Error::InvalidArgument, "squeeze_copy: %zu dims for a rank-%d tensor",
                    dims.size(), in->dim());
  for (size_t k = 0; k < dims.size(); ++k)
    d[k] = dims[k];
  return squeezeCopy(ctx, *in, *out, d, dims.size());
}

Error squeeze_copy_dim_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  int64_t dim;
  PTEC_TRY(bindSelfAndOut(ctx, args, "squeeze_copy", in, out, arg("dim", dim)));
  return squeezeCopy(ctx, *in, *out, &dim, 1);
}

Error select_copy_int_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  int64_t dim, index;
  PTEC_TRY(bindSelfAndOut(ctx, args, "select_copy", in, out, arg("dim", dim), arg("index", index)));
  if (in->dim() == 0)
    return ctx.fail(Error::InvalidArgument, "select: cannot select from a rank-0 tensor");
  PTEC_TRY(normDim(ctx, dim, in->dim(), dim));
  StridedView v;
  PTEC_TRY(selectView(ctx, "select", *in, dim, index, v));
  return viewCopy(ctx, *in, *out, v.shape, v.strides, v.base);
}

Error slice_copy_tensor_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  PTEC_TRY(selfAndOut(ctx, args, 7, "slice_copy", in, out));
  StridedView v;
  PTEC_TRY(parseSlice(ctx, args, 1, *in, v));
  return viewCopy(ctx, *in, *out, v.shape, v.strides, v.base);
}

namespace {

/// Copies `t` into out's [offset, offset + t.size(dim)) range along dim.
void placeAlong(const Tensor &t, Tensor &out, int64_t dim, int64_t offset) {
  AxisSplit ts = splitAt(t, dim), os = splitAt(out, dim);
  int64_t chunk = ts.size * ts.inner;
  bool same = t.dtype() == out.dtype();
  for (int64_t o = 0; o < ts.outer; ++o) {
    int64_t src = o * chunk, dst = o * os.size * os.inner + offset * os.inner;
    if (same) {
      copyElems(out.mutableData(), dst, t.data(), src, chunk, t.elementSize());
    } else {
      for (int64_t k = 0; k < chunk; ++k)
        convertElem(t.data(), t.dtype(), src + k, out.mutableData(), out.dtype(), dst + k);
    }
  }
}

} // namespace

Error cat_out(KernelContext &ctx, Args args) {
  Span<EValue *const> ts;
  int64_t dim;
  Tensor *out;
  PTEC_TRY(bindArgs(ctx, args, arg("tensors", ts), arg("dim", dim), outArg("out", out)));
  // Legacy rule: 1-D empty tensors are skipped. The first other tensor sets the shape.
  const Tensor *ref = nullptr;
  Cat cat = Cat::Bool;
  for (size_t k = 0; k < ts.size(); ++k) {
    const Tensor &t = ts[k]->toTensor();
    cat = maxCat(cat, catOf(t.dtype()));
    if (!(t.dim() == 1 && t.size(0) == 0) && !ref)
      ref = &t;
  }
  if (ts.size() == 0)
    return ctx.fail(Error::InvalidArgument, "cat: expects a non-empty list of tensors");
  if (!canCastTo(cat, out->dtype()))
    return ctx.fail(Error::InvalidArgument, "cat: out dtype %s cannot hold %s inputs",
                    toString(out->dtype()), catName(cat));
  if (!ref) { // everything is a legacy empty tensor
    int64_t zero = 0;
    return resizeOut(ctx, *out, Span<const int64_t>(&zero, 1));
  }
  if (ref->dim() == 0)
    return ctx.fail(Error::InvalidArgument, "cat: zero-dimensional tensors cannot be concatenated");
  PTEC_TRY(normDim(ctx, dim, ref->dim(), dim));
  Shape os = Shape::of(*ref);
  os.d[dim] = 0;
  for (size_t k = 0; k < ts.size(); ++k) {
    const Tensor &t = ts[k]->toTensor();
    if (t.dim() == 1 && t.size(0) == 0)
      continue;
    bool ok = t.dim() == ref->dim();
    for (int i = 0; ok && i < t.dim(); ++i)
      ok = i == dim || t.size(i) == ref->size(i);
    if (!ok) {
      ShapeText a(*ref), b(t);
      return ctx.fail(Error::InvalidArgument,
                      "cat: tensor %zu has shape %s, incompatible with %s along dim %lld", k,
                      b.c_str(), a.c_str(), static_cast<long long>(dim));
    }
    os.d[dim] += t.size(static_cast<int>(dim));
  }
  PTEC_TRY(resizeOut(ctx, *out, os));
  int64_t offset = 0;
  for (size_t k = 0; k < ts.size(); ++k) {
    const Tensor &t = ts[k]->toTensor();
    if (t.dim() == 1 && t.size(0) == 0)
      continue;
    placeAlong(t, *out, dim, offset);
    offset += t.size(static_cast<int>(dim));
  }
  return Error::Ok;
}

Error stack_out(KernelContext &ctx, Args args) {
  Span<EValue *const> ts;
  int64_t dim;
  Tensor *out;
  PTEC_TRY(bindArgs(ctx, args, arg("tensors", ts), arg("dim", dim), outArg("out", out)));
  if (ts.size() == 0)
    return ctx.fail(Error::InvalidArgument, "stack: expects a non-empty list of tensors");
  const Tensor &ref = ts[0]->toTensor();
  if (ref.dim() >= kTensorMaxRank)
    return ctx.fail(Error::InvalidArgument, "stack: rank would exceed %d", kTensorMaxRank);
  PTEC_TRY(normDim(ctx, dim, ref.dim() + 1, dim));
  Cat cat = Cat::Bool;
  for (size_t k = 0; k < ts.size(); ++k) {
    const Tensor &t = ts[k]->toTensor();
    cat = maxCat(cat, catOf(t.dtype()));
    if (!t.sameSizes(ref)) {
      ShapeText a(ref), b(t);
      return ctx.fail(Error::InvalidArgument, "stack: tensor %zu has shape %s, expected %s", k,
                      b.c_str(), a.c_str());
    }
  }
  if (!canCastTo(cat, out->dtype()))
    return ctx.fail(Error::InvalidArgument, "stack: out dtype %s cannot hold %s inputs",
                    toString(out->dtype()), catName(cat));
  Shape os;
  for (int i = 0, j = 0; i <= ref.dim(); ++i)
    os.push(i == dim ? static_cast<int64_t>(ts.size()) : ref.size(j++));
  PTEC_TRY(resizeOut(ctx, *out, os));
  // Each input is one slot along `dim` of the output.
  for (size_t k = 0; k < ts.size(); ++k) {
    Tensor view = ts[k]->toTensor();
    Shape vs = os;
    vs.d[dim] = 1;
    view.setDynamism(ShapeDynamism::Free); // a local reshape of the same numel
    PTEC_TRY(view.resize(vs.span()));
    placeAlong(view, *out, dim, static_cast<int64_t>(k));
  }
  return Error::Ok;
}

namespace {

/// Copies consecutive pieces of `in` along `dim` into `outs`: piece k has
/// `sizeOf(k)` rows there. With `dropDim` (unbind) each piece has size 1 and
/// the dimension is removed from the output shape. With `exact` each out
/// must already have its piece's shape: upstream's split_copy.Tensor_out
/// and unbind_copy.int_out check their outs and never resize them (so a
/// DYNAMIC_BOUND out still at its bound fails there, and fails here too).
template <typename SizeOf>
Error splitInto(KernelContext &ctx, const char *op, const Tensor &in, int64_t dim,
                Span<EValue *const> outs, SizeOf sizeOf, bool dropDim, bool exact) {
  int64_t strides[kTensorMaxRank];
  for (int i = 0; i < in.dim(); ++i)
    strides[i] = in.stride(i);
  int64_t offset = 0;
  for (size_t k = 0; k < outs.size(); ++k) {
    if (!outs[k] || !outs[k]->isTensor() || !outs[k]->tensorPtr())
      return ctx.fail(Error::InvalidArgument, "%s: out element %zu is not a Tensor", op, k);
    Tensor &o = outs[k]->toTensor();
    PTEC_TRY(checkSameDtype(ctx, in, o, op));
    Shape os = Shape::of(in);
    int64_t rows = sizeOf(k);
    os.d[dim] = rows;
    int64_t base = offset * in.stride(static_cast<int>(dim));
    if (exact) {
      Shape want;
      for (int i = 0; i < in.dim(); ++i)
        if (!dropDim || i != dim)
          want.push(os.d[i]);
      char what[48];
      std::snprintf(what, sizeof what, "out[%zu] (never resized by this kernel)", k);
      PTEC_TRY(expectShape(ctx, o, want, op, what));
    }
    if (!dropDim) {
      PTEC_TRY(viewCopy(ctx, in, o, os, strides, base));
    } else {
      // Same elements as the size-1 piece; only the shape loses `dim`.
      Shape dropped;
      for (int i = 0; i < in.dim(); ++i)
        if (i != dim)
          dropped.push(os.d[i]);
      int64_t dstrides[kTensorMaxRank];
      for (int i = 0, j = 0; i < in.dim(); ++i)
        if (i != dim)
          dstrides[j++] = strides[i];
      PTEC_TRY(viewCopy(ctx, in, o, dropped, dstrides, base));
    }
    offset += rows;
  }
  return Error::Ok;
}

/// The dim a split kernel splits `in` along, normalised; `op` ("split",
/// "unbind") is also the verb of the rank-0 failure.
Error splitDim(KernelContext &ctx, const Tensor &in, const char *op, int64_t &dim) {
  if (in.dim() == 0)
    return ctx.fail(Error::InvalidArgument, "%s: cannot %s a rank-0 tensor", op, op);
  return normDim(ctx, dim, in.dim(), dim);
}

/// The Tensor(a!)[] out argument of the split kernels.
Error argOutList(KernelContext &ctx, Args args, size_t i, Span<EValue *const> &outs) {
  EValue *v = args[i];
  if (!v || !v->isTensorList())
    return badTag(ctx, i, "out", "TensorList", v);
  outs = v->listItems();
  return Error::Ok;
}

} // namespace

// The three split kernels return `()`: their last argument is the out list
// again (schema arguments + 1, as every KernelCall); it is not read.
Error split_with_sizes_copy_out(KernelContext &ctx, Args args) {
  Tensor *in;
  IntList sizes;
  int64_t dim;
  Span<EValue *const> outs;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), arg("split_sizes", sizes), arg("dim", dim),
                    argWith(argOutList, outs)));
  PTEC_TRY(splitDim(ctx, *in, "split", dim));
  if (outs.size() != sizes.size())
    return ctx.fail(Error::InvalidArgument, "split: %zu sizes but %zu outputs", sizes.size(),
                    outs.size());
  int64_t total = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] < 0)
      return ctx.fail(Error::InvalidArgument, "split: negative size %lld",
                      static_cast<long long>(sizes[k]));
    if (__builtin_add_overflow(total, sizes[k], &total))
      return ctx.fail(Error::InvalidArgument, "split: sizes overflow");
  }
  if (total != in->size(static_cast<int>(dim)))
    return ctx.fail(Error::InvalidArgument,
                    "split: sizes sum to %lld but dim %lld has size %lld",
                    static_cast<long long>(total), static_cast<long long>(dim),
                    static_cast<long long>(in->size(static_cast<int>(dim))));
  return splitInto(ctx, "split_with_sizes_copy", *in, dim, outs,
                   [&](size_t k) { return sizes[k]; }, false, /*exact=*/false);
}

Error split_copy_tensor_out(KernelContext &ctx, Args args) {
  Tensor *in;
  int64_t splitSize, dim;
  Span<EValue *const> outs;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), arg("split_size", splitSize), arg("dim", dim),
                    argWith(argOutList, outs)));
  PTEC_TRY(splitDim(ctx, *in, "split", dim));
  const int64_t n = in->size(static_cast<int>(dim));
  if (splitSize < 0 || (splitSize == 0 && n != 0))
    return ctx.fail(Error::InvalidArgument, "split: split_size %lld for a dimension of %lld",
                    static_cast<long long>(splitSize), static_cast<long long>(n));
  // PyTorch: ceil(n / split_size) pieces, the last one shorter; one empty
  // piece for an empty dimension.
  // (n - 1) / s + 1, not (n + s - 1) / s: a hostile split_size near
  // INT64_MAX must not overflow (UBSan finding).
  const int64_t pieces = n == 0 ? 1 : (n - 1) / splitSize + 1;
  if (static_cast<int64_t>(outs.size()) != pieces)
    return ctx.fail(Error::InvalidArgument,
                    "split: dimension of %lld in pieces of %lld gives %lld outputs, got %zu",
                    static_cast<long long>(n), static_cast<long long>(splitSize),
                    static_cast<long long>(pieces), outs.size());
  return splitInto(ctx, "split_copy", *in, dim, outs,
                   [&](size_t k) {
                     int64_t start = static_cast<int64_t>(k) * splitSize;
                     return std::min(splitSize, n - start);
                   },
                   false, /*exact=*/true);
}

Error unbind_copy_int_out(KernelContext &ctx, Args args) {
  Tensor *in;
  int64_t dim;
  Span<EValue *const> outs;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), arg("dim", dim), argWith(argOutList, outs)));
  PTEC_TRY(splitDim(ctx, *in, "unbind", dim));
  if (static_cast<int64_t>(outs.size()) != in->size(static_cast<int>(dim)))
    return ctx.fail(Error::InvalidArgument, "unbind: dim %lld has size %lld but %zu outputs",
                    static_cast<long long>(dim),
                    static_cast<long long>(in->size(static_cast<int>(dim))), outs.size());
  return splitInto(ctx, "unbind_copy", *in, dim, outs, [](size_t) { return int64_t{1}; },
                   true, /*exact=*/true);
}

} // namespace ptec::rt::portable
