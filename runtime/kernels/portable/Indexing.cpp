// Indexing kernels: advanced indexing (index, index_put), index_select,
// embedding, gather, slice_scatter, select_scatter.
#include "runtime/kernels/portable/Kernels.h"
#include "runtime/kernels/portable/Elementwise.h"

namespace ptec::rt::portable {

namespace {

/// PyTorch advanced indexing over `self` with a Tensor?[] list. Integer index
/// tensors broadcast together; a bool mask of rank r stands for r index
/// tensors of shape [count(mask)]. The indexed dims are replaced by the
/// broadcast shape, in place when they are adjacent, else at the front.
class AdvancedIndexer {
public:
  Error init(KernelContext &ctx, const Tensor &self, Span<EValue *const> indices) {
    self_ = &self;
    for (int i = 0; i < self.dim(); ++i)
      stride_[i] = self.stride(i);
    int d = 0;
    for (size_t k = 0; k < indices.size(); ++k) {
      EValue *e = indices[k];
      const Tensor *t = nullptr;
      if (e && e->isTensor() && e->tensorPtr() && !isAbsentPlaceholder(*e->tensorPtr()))
        t = e->tensorPtr();
      else if (!(e == nullptr || e->isNone() ||
                 (e->isTensor() && e->tensorPtr() && isAbsentPlaceholder(*e->tensorPtr()))))
        return ctx.fail(Error::InvalidArgument, "index %zu is neither a tensor nor None", k);
      if (!t) {
        if (d >= self.dim())
          return ctx.fail(Error::InvalidArgument, "too many indices for a tensor of rank %d",
                          self.dim());
        ++d;
        continue;
      }
      if (t->dtype() == ScalarType::Bool || t->dtype() == ScalarType::Byte) {
        if (d + t->dim() > self.dim())
          return ctx.fail(Error::InvalidArgument, "too many indices for a tensor of rank %d",
                          self.dim());
        for (int i = 0; i < t->dim(); ++i)
          if (t->size(i) != self.size(d + i)) {
            ShapeText m(*t), s(self);
            return ctx.fail(Error::InvalidArgument,
                            "mask %s does not match the indexed dims of %s at dim %d", m.c_str(),
                            s.c_str(), d + i);
          }
        int64_t count = 0;
        for (int64_t i = 0; i < t->numel(); ++i)
          count += loadAs<int64_t>(t->data(), t->dtype(), i) != 0;
        for (int i = 0; i < t->dim(); ++i) {
          Entry &en = ent_[d + i];
          en.t = t;
          en.maskComp = i;
          en.vshape = Shape{};
          en.vshape.push(count);
        }
        d += t->dim();
      } else if (isIndexDt(t->dtype())) {
        if (d >= self.dim())
          return ctx.fail(Error::InvalidArgument, "too many indices for a tensor of rank %d",
                          self.dim());
        Entry &en = ent_[d];
        en.t = t;
        en.maskComp = -1;
        en.vshape = Shape::of(*t);
        ++d;
      } else {
        return ctx.fail(Error::InvalidArgument,
                        "index %zu has dtype %s; expected int64, int32, bool or uint8", k,
                        toString(t->dtype()));
      }
    }
    // Broadcast the advanced index shapes.
    int first = -1, last = -1;
    bool gap = false;
    for (int i = 0; i < self.dim(); ++i) {
      if (!ent_[i].t)
        continue;
      if (first < 0)
        first = i;
      else if (last != i - 1)
        gap = true;
      last = i;
      Shape &v = ent_[i].vshape;
      if (v.n > bshape_.n) {
        Shape grown;
        grown.n = v.n;
        for (int j = 0; j < v.n; ++j)
          grown.d[j] = j < v.n - bshape_.n ? 1 : bshape_.d[j - (v.n - bshape_.n)];
        bshape_ = grown;
      }
      for (int j = 0; j < v.n; ++j) {
        int64_t &o = bshape_.d[bshape_.n - v.n + j];
        if (v.d[j] == o || v.d[j] == 1)
          continue;
        if (o != 1)
          return ctx.fail(Error::InvalidArgument,
                          "shape mismatch: indexing tensors could not be broadcast together");
        o = v.d[j];
      }
    }
    hasAdvanced_ = first >= 0;
    advPos_ = !hasAdvanced_ ? 0 : gap ? 0 : first;
    // Result shape: slice dims around the broadcast block.
    result_ = Shape{};
    int resultRank = self.dim() - countAdvanced() + bshape_.n;
    if (resultRank > kTensorMaxRank)
      return ctx.fail(Error::InvalidArgument, "index: result rank exceeds %d", kTensorMaxRank);
    int sliceSeen = 0;
    for (int i = 0; i < self.dim(); ++i) {
      if (ent_[i].t)
        continue;
      if (hasAdvanced_ && sliceSeen == advPos_)
        appendBroadcast();
      sliceDim_[sliceSeen++] = i;
      result_.push(self.size(i));
    }
    if (hasAdvanced_ && sliceSeen == advPos_)
      appendBroadcast();
    nSlice_ = sliceSeen;
    for (int i = 0; i < self.dim(); ++i)
      if (ent_[i].t) {
        // Strides of each entry's virtual shape inside the broadcast shape.
        Shape &v = ent_[i].vshape;
        int off = bshape_.n - v.n;
        int64_t s = 1;
        for (int j = bshape_.n - 1; j >= 0; --j) {
          int vj = j - off;
          ent_[i].bstride[j] = (vj < 0 || v.d[vj] == 1) ? 0 : s;
          if (vj >= 0)
            s *= v.d[vj];
        }
      }
    return Error::Ok;
  }

  const Shape &resultShape() const { return result_; }

  /// Calls f(resultIndex, selfOffset, coords) for every result element.
  template <typename F> Error forEach(KernelContext &ctx, F &&f) {
    int64_t n = result_.numel();
    int64_t coords[kTensorMaxRank];
    for (int64_t r = 0; r < n; ++r) {
      int64_t rem = r;
      for (int i = result_.n - 1; i >= 0; --i) {
        coords[i] = result_.d[i] ? rem % result_.d[i] : 0;
        rem = result_.d[i] ? rem / result_.d[i] : 0;
      }
      int64_t off = 0;
      for (int s = 0; s < nSlice_; ++s) {
        int rpos = s < advPos_ || !hasAdvanced_ ? s : s + bshape_.n;
        off += coords[rpos] * stride_[sliceDim_[s]];
      }
      for (int d = 0; d < self_->dim(); ++d) {
        Entry &en = ent_[d];
        if (!en.t)
          continue;
        int64_t p = 0;
        for (int j = 0; j < bshape_.n; ++j)
          p += coords[advPos_ + j] * en.bstride[j];
        int64_t v;
        if (en.maskComp < 0) {
          v = loadAs<int64_t>(en.t->data(), en.t->dtype(), p);
          int64_t size = self_->size(d);
          if (v < -size || v >= size)
            return ctx.fail(Error::InvalidArgument,
                            "index %lld is out of bounds for dim %d with size %lld",
                            static_cast<long long>(v), d, static_cast<long long>(size));
          if (v < 0)
            v += size;
        } else {
          int64_t pos = nthTrue(en, p);
          // Coordinate maskComp of `pos` inside the mask's shape.
          const Tensor &m = *en.t;
          v = (pos / m.stride(en.maskComp)) % m.size(en.maskComp);
        }
        off += v * stride_[d];
      }
      f(r, off, coords);
    }
    return Error::Ok;
  }

private:
  struct Entry {
    const Tensor *t = nullptr;
    int maskComp = -1;
    Shape vshape;
    int64_t bstride[kTensorMaxRank] = {};
    int64_t cacheJ = -1, cachePos = -1; // last (j, position of j-th true)
  };

  int countAdvanced() const {
    int c = 0;
    for (int i = 0; i < self_->dim(); ++i)
      c += ent_[i].t != nullptr;
    return c;
  }
  void appendBroadcast() {
    for (int j = 0; j < bshape_.n; ++j)
      result_.push(bshape_.d[j]);
  }
  /// Linear position of the j-th true element of a mask (sequential access
  /// is amortised O(1) through the cache).
  int64_t nthTrue(Entry &en, int64_t j) {
    const Tensor &m = *en.t;
    int64_t pos = -1, k = -1;
    if (en.cacheJ >= 0 && en.cacheJ <= j) {
      pos = en.cachePos;
      k = en.cacheJ;
    }
    while (k < j) {
      ++pos;
      if (loadAs<int64_t>(m.data(), m.dtype(), pos) != 0)
        ++k;
    }
    en.cacheJ = j;
    en.cachePos = pos;
    return pos;
  }

  const Tensor *self_ = nullptr;
  Entry ent_[kTensorMaxRank];
  Shape bshape_, result_;
  int64_t stride_[kTensorMaxRank] = {};
  int sliceDim_[kTensorMaxRank] = {};
  int nSlice_ = 0, advPos_ = 0;
  bool hasAdvanced_ = false;
};

Error argIndices(KernelContext &ctx, Args args, size_t i, Span<EValue *const> &out) {
  EValue *v = args[i];
  if (!v || !(v->isOptionalTensorList() || v->isTensorList()))
    return badTag(ctx, i, "indices", "OptionalTensorList", v);
  out = v->listItems();
  return Error::Ok;
}

/// index_put into `dst` (already holding self's values).
Error indexPutInto(KernelContext &ctx, const Tensor &self, Span<EValue *const> indices,
                   const Tensor &values, bool accumulate, Tensor &dst) {
  if (values.dtype() != self.dtype())
    return ctx.fail(Error::InvalidArgument, "index_put: values dtype %s differs from self dtype %s",
                    toString(values.dtype()), toString(self.dtype()));
  AdvancedIndexer ix;
  PTEC_TRY(ix.init(ctx, self, indices));
  const Shape &rs = ix.resultShape();
  if (!broadcastsTo(values, rs)) {
    ShapeText v(values), r(rs.span());
    return ctx.fail(Error::InvalidArgument,
                    "index_put: values of shape %s cannot be broadcast to indexed shape %s",
                    v.c_str(), r.c_str());
  }
  int64_t vstr[kTensorMaxRank];
  broadcastStrides(values, rs, vstr);
  ScalarType t = self.dtype();
  bool isFloat = isFloatDt(t);
  return ix.forEach(ctx, [&](int64_t, int64_t off, const int64_t *coords) {
    int64_t vi = 0;
    for (int i = 0; i < rs.n; ++i)
      vi += coords[i] * vstr[i];
    if (!accumulate)
      copyElems(dst.mutableData(), off, values.data(), vi, 1, dst.elementSize());
    else if (isFloat)
      storeAs<double>(dst.mutableData(), t, off,
                      loadAs<double>(dst.data(), t, off) + loadAs<double>(values.data(), t, vi));
    else
      storeAs<int64_t>(dst.mutableData(), t, off,
                       wrapAdd(loadAs<int64_t>(dst.data(), t, off),
                               loadAs<int64_t>(values.data(), t, vi)));
  });
}

/// Writes `src` (shape ss) into `out` through strides from `base`.
void scatterStrided(const Tensor &src, Tensor &out, const Shape &ss, const int64_t *strides,
                    int64_t base) {
  forEachStrided(ss, strides, base, [&](int64_t s, int64_t o) {
    convertElem(src.data(), src.dtype(), s, out.mutableData(), out.dtype(), o);
  });
}

Error copySelfToOut(KernelContext &ctx, const Tensor &self, Tensor &out, const char *op) {
  PTEC_TRY(checkSameDtype(ctx, self, out, op));
  PTEC_TRY(resizeOut(ctx, out, Shape::of(self)));
  if (out.data() != self.data())
    copyElems(out.mutableData(), 0, self.data(), 0, self.numel(), self.elementSize());
  return Error::Ok;
}

} // namespace

Error index_tensor_out(KernelContext &ctx, Args args) {
  Tensor *self, *out;
  Span<EValue *const> indices;
  PTEC_TRY(bindArgs(ctx, args, arg("self", self), argWith(argIndices, indices),
                    outArg("out", out)));
  PTEC_TRY(checkSameDtype(ctx, *self, *out, "index"));
  AdvancedIndexer ix;
  PTEC_TRY(ix.init(ctx, *self, indices));
  PTEC_TRY(resizeOut(ctx, *out, ix.resultShape()));
  size_t es = self->elementSize();
  return ix.forEach(ctx, [&](int64_t r, int64_t off, const int64_t *) {
    copyElems(out->mutableData(), r, self->data(), off, 1, es);
  });
}

Error index_put_out(KernelContext &ctx, Args args) {
  Tensor *self, *values, *out;
  Span<EValue *const> indices;
  bool accumulate;
  PTEC_TRY(bindArgs(ctx, args, arg("self", self), argWith(argIndices, indices),
                    arg("values", values), arg("accumulate", accumulate), outArg("out", out)));
  PTEC_TRY(copySelfToOut(ctx, *self, *out, "index_put"));
  return indexPutInto(ctx, *self, indices, *values, accumulate, *out);
}

Error index_put_inplace(KernelContext &ctx, Args args) {
  Tensor *self, *values;
  Span<EValue *const> indices;
  bool accumulate;
  PTEC_TRY(bindArgs(ctx, args, arg("self", self), argWith(argIndices, indices),
                    arg("values", values), arg("accumulate", accumulate)));
  return indexPutInto(ctx, *self, indices, *values, accumulate, *self);
}

Error index_select_out(KernelContext &ctx, Args args) {
  Tensor *self, *index, *out;
  int64_t dim;
  PTEC_TRY(bindArgs(ctx, args, arg("self", self), arg("dim", dim), arg("index", index),
                    outArg("out", out)));
  PTEC_TRY(checkSameDtype(ctx, *self, *out, "index_select"));
  if (!isIndexDt(index->dtype()) || index->dim() > 1)
    return ctx.fail(Error::InvalidArgument,
                    "index_select: index must be a 0-D or 1-D int64/int32 tensor");
  PTEC_TRY(normDim(ctx, dim, self->dim(), dim));
  Shape os = Shape::of(*self);
  int64_t size = self->dim() ? self->size(static_cast<int>(dim)) : 1;
  if (self->dim())
    os.d[dim] = index->numel();
  else if (index->numel() != 1)
    return ctx.fail(Error::InvalidArgument, "index_select: a rank-0 self takes one index");
  PTEC_TRY(resizeOut(ctx, *out, os));
  AxisSplit s = splitAt(*self, self->dim() ? dim : 0);
  int64_t n = index->numel();
  for (int64_t k = 0; k < n; ++k) {
    int64_t v = loadAs<int64_t>(index->data(), index->dtype(), k);
    if (v < -size || v >= size)
      return ctx.fail(Error::InvalidArgument, "index_select: index %lld out of range for size %lld",
                      static_cast<long long>(v), static_cast<long long>(size));
    if (v < 0)
      v += size;
    for (int64_t o = 0; o < s.outer; ++o)
      copyElems(out->mutableData(), (o * n + k) * s.inner, self->data(),
                (o * size + v) * s.inner, s.inner, self->elementSize());
  }
  return Error::Ok;
}

Error embedding_out(KernelContext &ctx, Args args) {
  Tensor *weight, *indices, *out;
  int64_t paddingIdx;
  bool scale, sparse;
  PTEC_TRY(bindArgs(ctx, args, arg("weight", weight), arg("indices", indices),
                    arg("padding_idx", paddingIdx), arg("scale_grad_by_freq", scale),
                    arg("sparse", sparse), outArg("out", out)));
  PTEC_TRY(checkSameDtype(ctx, *weight, *out, "embedding"));
  if (weight->dim() != 2)
    return ctx.fail(Error::InvalidArgument, "embedding: weight must be 2-D, got rank %d",
                    weight->dim());
  if (!isIndexDt(indices->dtype()))
    return ctx.fail(Error::InvalidArgument, "embedding: indices must be int64 or int32, got %s",
                    toString(indices->dtype()));
  if (indices->dim() >= kTensorMaxRank)
    return ctx.fail(Error::InvalidArgument, "embedding: indices rank too large");
  Shape os = Shape::of(*indices);
  int64_t rows = weight->size(0), dimE = weight->size(1);
  os.push(dimE);
  PTEC_TRY(resizeOut(ctx, *out, os));
  for (int64_t k = 0; k < indices->numel(); ++k) {
    int64_t v = loadAs<int64_t>(indices->data(), indices->dtype(), k);
    if (v < 0 || v >= rows)
      return ctx.fail(Error::InvalidArgument, "embedding: index %lld out of range [0, %lld)",
                      static_cast<long long>(v), static_cast<long long>(rows));
    copyElems(out->mutableData(), k * dimE, weight->data(), v * dimE, dimE, weight->elementSize());
  }
  return Error::Ok;
}

Error gather_out(KernelContext &ctx, Args args) {
  Tensor *self, *index, *out;
  int64_t dim;
  bool sparseGrad;
  PTEC_TRY(bindArgs(ctx, args, arg("self", self), arg("dim", dim), arg("index", index),
                    arg("sparse_grad", sparseGrad), outArg("out", out)));
  PTEC_TRY(checkSameDtype(ctx, *self, *out, "gather"));
  PTEC_TRY(requireInt64(ctx, *index, "gather", "index"));
  PTEC_TRY(normDim(ctx, dim, self->dim(), dim));
  if (self->dim() != index->dim())
    return ctx.fail(Error::InvalidArgument, "gather: index rank %d must equal self rank %d",
                    index->dim(), self->dim());
  for (int d = 0; d < index->dim(); ++d)
    if (d != dim && index->size(d) > self->size(d)) {
      ShapeText a(*index), b(*self);
      return ctx.fail(Error::InvalidArgument, "gather: index %s is larger than self %s at dim %d",
                      a.c_str(), b.c_str(), d);
    }
  PTEC_TRY(resizeOut(ctx, *out, Shape::of(*index)));
  int64_t size = self->dim() ? self->size(static_cast<int>(dim)) : 1;
  Shape is = Shape::of(*index);
  int64_t n = index->numel();
  for (int64_t k = 0; k < n; ++k) {
    int64_t rem = k, off = 0;
    int64_t v = index->dataAs<int64_t>()[k];
    if (v < -size || v >= size)
      return ctx.fail(Error::InvalidArgument, "gather: index %lld out of range for size %lld",
                      static_cast<long long>(v), static_cast<long long>(size));
    if (v < 0)
      v += size;
    for (int d = is.n - 1; d >= 0; --d) {
      int64_t c = rem % is.d[d];
      rem /= is.d[d];
      off += (d == dim ? v : c) * self->stride(d);
    }
    copyElems(out->mutableData(), k, self->data(), off, 1, self->elementSize());
  }
  return Error::Ok;
}

Error slice_scatter_out(KernelContext &ctx, Args args) {
  PT_NARGS(8);
  Tensor *self, *src, *out;
  PTEC_TRY(argTensor(ctx, args, 0, "self", self));
  PTEC_TRY(argTensor(ctx, args, 1, "src", src));
  PTEC_TRY(argOut(ctx, args, 6, "out", out));
  PTEC_TRY(argReturn(ctx, args, 7));
  StridedView v;
  PTEC_TRY(parseSlice(ctx, args, 2, *self, v));
  PTEC_TRY(expectShape(ctx, *src, v.shape, "slice_scatter", "src"));
  PTEC_TRY(copySelfToOut(ctx, *self, *out, "slice_scatter"));
  scatterStrided(*src, *out, v.shape, v.strides, v.base);
  return Error::Ok;
}

Error select_scatter_out(KernelContext &ctx, Args args) {
  Tensor *self, *src, *out;
  int64_t dim, index;
  PTEC_TRY(bindArgs(ctx, args, arg("self", self), arg("src", src), arg("dim", dim),
                    arg("index", index), outArg("out", out)));
  if (self->dim() == 0)
    return ctx.fail(Error::InvalidArgument, "select_scatter: self must have rank >= 1");
  PTEC_TRY(normDim(ctx, dim, self->dim(), dim));
  StridedView v;
  PTEC_TRY(selectView(ctx, "select_scatter", *self, dim, index, v));
  PTEC_TRY(expectShape(ctx, *src, v.shape, "select_scatter", "src"));
  PTEC_TRY(copySelfToOut(ctx, *self, *out, "select_scatter"));
  scatterStrided(*src, *out, v.shape, v.strides, v.base);
  return Error::Ok;
}

} // namespace ptec::rt::portable
