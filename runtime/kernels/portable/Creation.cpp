// Creation, fill and copy kernels: full/zeros/ones/arange/scalar_tensor/empty,
// fill, clone and the *_copy aliases, copy/copy_, _to_copy, the device copies,
// constant_pad_nd.
#include "runtime/kernels/portable/Kernels.h"
#include "runtime/kernels/portable/KernelUtils.h"

namespace ptec::rt::portable {

namespace {

/// Fill every element of `out` with `v` converted to out's dtype.
void fillWith(Tensor &out, const Scalar &v) {
  int64_t n = out.numel();
  void *p = out.mutableData();
  if (v.cat == Cat::Float)
    for (int64_t i = 0; i < n; ++i)
      storeAs<double>(p, out.dtype(), i, v.d);
  else
    for (int64_t i = 0; i < n; ++i)
      storeAs<int64_t>(p, out.dtype(), i, v.i);
}

/// An int[] size argument as a Shape (rank and signs checked).
Error parseSize(KernelContext &ctx, const IntList &size, Shape &os) {
  if (size.size() > static_cast<size_t>(kTensorMaxRank))
    return ctx.fail(Error::InvalidArgument, "size has rank %zu, more than %d", size.size(),
                    kTensorMaxRank);
  os = Shape{};
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] < 0)
      return ctx.fail(Error::InvalidArgument, "negative size %lld",
                      static_cast<long long>(size[i]));
    os.push(size[i]);
  }
  return Error::Ok;
}

Error sizeFill(KernelContext &ctx, Args args, size_t nargs, bool hasValue, double constant) {
  PT_NARGS(nargs);
  IntList size;
  Tensor *out;
  Scalar v;
  PTEC_TRY(argIntList(ctx, args, 0, "size", size));
  if (hasValue) {
    PTEC_TRY(argScalar(ctx, args, 1, "fill_value", v));
  } else {
    v.cat = Cat::Int;
    v.i = static_cast<int64_t>(constant);
    v.d = constant;
  }
  PTEC_TRY(argOut(ctx, args, nargs - 2, "out", out));
  PTEC_TRY(argReturn(ctx, args, nargs - 1));
  Shape os;
  PTEC_TRY(parseSize(ctx, size, os));
  PTEC_TRY(resizeOut(ctx, *out, os));
  fillWith(*out, v);
  return Error::Ok;
}

/// out = convert(src broadcast to `shape`).
Error copyBroadcast(KernelContext &ctx, const Tensor &src, Tensor &out, const Shape &shape) {
  if (!broadcastsTo(src, shape)) {
    ShapeText a(src), b(shape.span());
    return ctx.fail(Error::InvalidArgument, "copy: src of shape %s does not broadcast to %s",
                    a.c_str(), b.c_str());
  }
  if (src.dtype() == out.dtype() && src.sameSizes(out)) {
    out.copyElementsFrom(src); // byte copy when the dim orders agree
    return Error::Ok;
  }
  const Tensor *ins[1] = {&src};
  forEachBroadcast<1>(shape, ins, [&](int64_t o, const int64_t(&ix)[1]) {
    convertElem(src.data(), src.dtype(), ix[0], out.mutableData(), out.dtype(), o);
  }, &out);
  return Error::Ok;
}

/// [self, ..., out, ret]: out = self converted to out's dtype.
Error convertCopy(KernelContext &ctx, Args args, size_t nargs) {
  PT_NARGS(nargs);
  Tensor *in, *out;
  PTEC_TRY(argTensor(ctx, args, 0, "self", in));
  PTEC_TRY(argOut(ctx, args, nargs - 2, "out", out));
  PTEC_TRY(argReturn(ctx, args, nargs - 1));
  Shape os = Shape::of(*in);
  PTEC_TRY(resizeOut(ctx, *out, os));
  return copyBroadcast(ctx, *in, *out, os);
}

/// Same dtype copy for the alias-like ops (alias_copy, detach_copy, ...).
Error plainCopy(KernelContext &ctx, Args args, size_t nargs, const char *op) {
  PT_NARGS(nargs);
  Tensor *in, *out;
  PTEC_TRY(argTensor(ctx, args, 0, "self", in));
  PTEC_TRY(argOut(ctx, args, nargs - 2, "out", out));
  PTEC_TRY(argReturn(ctx, args, nargs - 1));
  PTEC_TRY(checkSameDtype(ctx, *in, *out, op));
  PTEC_TRY(resizeOut(ctx, *out, Shape::of(*in)));
  out->copyElementsFrom(*in);
  return Error::Ok;
}

/// The dim_order_ops argument checks (as upstream): blocking only; an
/// explicit dim_order has one entry per dimension, is contiguous or
/// channels-last, and is out's dim order; without one, out keeps self's.
Error checkDimOrderArgs(KernelContext &ctx, Args args, const Tensor &in, const Tensor &out,
                        const char *op) {
  bool nonBlocking, hasOrder;
  IntList order;
  PTEC_TRY(argBool(ctx, args, 1, "non_blocking", nonBlocking));
  PTEC_TRY(argOptIntList(ctx, args, 2, "dim_order", hasOrder, order));
  if (nonBlocking)
    return ctx.fail(Error::InvalidArgument, "%s: non_blocking copies are not supported", op);
  if (!hasOrder) {
    if (!out.sameDimOrder(in))
      return ctx.fail(Error::InvalidArgument,
                      "%s: without dim_order, out must keep self's dim order", op);
    return Error::Ok;
  }
  if (order.size() != static_cast<size_t>(in.dim()))
    return ctx.fail(Error::InvalidArgument, "%s: dim_order has %zu entries for a tensor of rank %d",
                    op, order.size(), in.dim());
  uint8_t want[kTensorMaxRank];
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] < 0 || order[i] >= in.dim())
      return ctx.fail(Error::InvalidArgument, "%s: dim_order entry %lld out of range", op,
                      static_cast<long long>(order[i]));
    want[i] = static_cast<uint8_t>(order[i]);
  }
  Tensor probe;
  if (probe.init(in.dtype(), in.sizes(), Span<const uint8_t>(want, order.size())) != Error::Ok)
    return ctx.fail(Error::InvalidArgument, "%s: dim_order is not a permutation", op);
  if (!probe.isContiguous() && !probe.isChannelsLast())
    return ctx.fail(Error::InvalidArgument,
                    "%s: dim_order must be contiguous or channels-last", op);
  if (!out.sameDimOrder(probe))
    return ctx.fail(Error::InvalidArgument, "%s: out's dim order differs from dim_order", op);
  return Error::Ok;
}

/// out = self in out's dim order (and, for _to_dim_order_copy, dtype).
Error dimOrderCopy(KernelContext &ctx, Args args, bool sameDtype, const char *op) {
  PT_NARGS(5);
  Tensor *in, *out;
  PTEC_TRY(argTensor(ctx, args, 0, "self", in));
  PTEC_TRY(argOut(ctx, args, 3, "out", out));
  PTEC_TRY(argReturn(ctx, args, 4));
  if (sameDtype) {
    PTEC_TRY(checkSameDtype(ctx, *in, *out, op));
  }
  PTEC_TRY(checkDimOrderArgs(ctx, args, *in, *out, op));
  Shape os = Shape::of(*in);
  PTEC_TRY(resizeOut(ctx, *out, os));
  return copyBroadcast(ctx, *in, *out, os);
}

/// MemoryFormat? : None, contiguous (0) or preserve (1); we are always contiguous.
Error checkMemoryFormat(KernelContext &ctx, Args args, size_t i) {
  EValue *v = args[i];
  if (v && v->isNone())
    return Error::Ok;
  if (!v || !v->isInt())
    return badTag(ctx, i, "memory_format", "Int or None", v);
  if (v->toInt() != 0 && v->toInt() != 1)
    return ctx.fail(Error::NotSupported,
                    "memory_format %lld is not supported (only contiguous and preserve)",
                    static_cast<long long>(v->toInt()));
  return Error::Ok;
}

} // namespace

Error full_out(KernelContext &ctx, Args args) { return sizeFill(ctx, args, 4, true, 0); }
Error zeros_out(KernelContext &ctx, Args args) { return sizeFill(ctx, args, 3, false, 0); }
Error ones_out(KernelContext &ctx, Args args) { return sizeFill(ctx, args, 3, false, 1); }

Error full_like_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  Scalar v;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), arg("fill_value", v), argWith(checkMemoryFormat),
                    outArg("out", out)));
  PTEC_TRY(resizeOut(ctx, *out, Shape::of(*in)));
  fillWith(*out, v);
  return Error::Ok;
}

Error fill_scalar_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  Scalar v;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), arg("value", v), outArg("out", out)));
  PTEC_TRY(checkSameDtype(ctx, *in, *out, "fill"));
  PTEC_TRY(resizeOut(ctx, *out, Shape::of(*in)));
  fillWith(*out, v);
  return Error::Ok;
}

Error scalar_tensor_out(KernelContext &ctx, Args args) {
  Scalar v;
  Tensor *out;
  PTEC_TRY(bindArgs(ctx, args, arg("s", v), outArg("out", out)));
  PTEC_TRY(resizeOut(ctx, *out, Shape{}));
  fillWith(*out, v);
  return Error::Ok;
}

/// arange over [start, end) by step into out (int64 exact for integer bounds).
static Error arangeInto(KernelContext &ctx, const Scalar &start, const Scalar &end,
                        const Scalar &step, Tensor &out) {
  if (step.d == 0)
    return ctx.fail(Error::InvalidArgument, "arange: step must be nonzero");
  if ((step.d > 0 && end.d < start.d) || (step.d < 0 && end.d > start.d))
    return ctx.fail(Error::InvalidArgument, "arange: upper bound and step sign are inconsistent");
  if (!std::isfinite(start.d) || !std::isfinite(end.d) || !std::isfinite(step.d))
    return ctx.fail(Error::InvalidArgument, "arange: start, end and step must be finite");
  bool allInt = start.cat != Cat::Float && end.cat != Cat::Float && step.cat != Cat::Float;
  // Integer bounds: count in double first so that huge ranges cannot overflow.
  int64_t n = floatToInt<int64_t>(std::ceil((end.d - start.d) / step.d));
  if (allInt && n < (int64_t(1) << 52))
    n = static_cast<int64_t>((static_cast<__int128>(end.i) - start.i + step.i +
                              (step.i > 0 ? -1 : 1)) / step.i);
  if (n < 0)
    n = 0;
  PTEC_TRY(resizeOut(ctx, out, Span<const int64_t>(&n, 1)));
  for (int64_t i = 0; i < n; ++i) {
    if (allInt && !isFloatDt(out.dtype()))
      storeAs<int64_t>(out.mutableData(), out.dtype(), i,
                       static_cast<int64_t>(start.i + static_cast<__int128>(i) * step.i));
    else
      storeAs<double>(out.mutableData(), out.dtype(), i, start.d + static_cast<double>(i) * step.d);
  }
  return Error::Ok;
}

Error arange_start_out(KernelContext &ctx, Args args) {
  Scalar start, end, step;
  Tensor *out;
  PTEC_TRY(bindArgs(ctx, args, arg("start", start), arg("end", end), arg("step", step),
                    outArg("out", out)));
  return arangeInto(ctx, start, end, step, *out);
}

/// arange.out: [end, out, ret], from 0 by 1.
Error arange_out(KernelContext &ctx, Args args) {
  Scalar end, zero, one;
  Tensor *out;
  PTEC_TRY(bindArgs(ctx, args, arg("end", end), outArg("out", out)));
  one.i = 1;
  one.d = 1;
  return arangeInto(ctx, zero, end, one, *out);
}

/// empty.out: [size, memory_format?, out, ret]. Contents are unspecified;
/// only the shape is set.
Error empty_out(KernelContext &ctx, Args args) {
  IntList size;
  Tensor *out;
  PTEC_TRY(bindArgs(ctx, args, arg("size", size), argWith(checkMemoryFormat), outArg("out", out)));
  Shape os;
  PTEC_TRY(parseSize(ctx, size, os));
  return resizeOut(ctx, *out, os);
}

/// _empty_dim_order.out: [size, dim_order?, out, ret]. A given dim order must
/// be out's (contiguous or channels-last); contents are unspecified.
Error empty_dim_order_out(KernelContext &ctx, Args args) {
  IntList size, order;
  bool hasOrder;
  Tensor *out;
  PTEC_TRY(bindArgs(ctx, args, arg("size", size), optArg("dim_order", hasOrder, order),
                    outArg("out", out)));
  Shape os;
  PTEC_TRY(parseSize(ctx, size, os));
  if (hasOrder) {
    if (order.size() != size.size())
      return ctx.fail(Error::InvalidArgument,
                      "_empty_dim_order: dim_order has %zu entries for size of rank %zu",
                      order.size(), size.size());
    for (size_t i = 0; i < order.size(); ++i)
      if (static_cast<int>(i) >= out->dim() || order[i] != out->dimOrder()[i])
        return ctx.fail(Error::InvalidArgument,
                        "_empty_dim_order: out's dim order differs from dim_order");
  }
  return resizeOut(ctx, *out, os);
}

/// fill.Tensor_out: [self, value (rank 0), out, ret].
Error fill_tensor_out(KernelContext &ctx, Args args) {
  Tensor *in, *value, *out;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), arg("value", value), outArg("out", out)));
  PTEC_TRY(checkSameDtype(ctx, *in, *out, "fill"));
  if (value->dim() != 0)
    return ctx.fail(Error::InvalidArgument,
                    "fill: value must be a rank-0 tensor, got rank %d", value->dim());
  PTEC_TRY(resizeOut(ctx, *out, Shape::of(*in)));
  for (int64_t i = 0, n = out->numel(); i < n; ++i)
    convertElem(value->data(), value->dtype(), 0, out->mutableData(), out->dtype(), i);
  return Error::Ok;
}

/// et_copy::_h2d_copy.out / _d2h_copy.out: this runtime has one (host)
/// memory space, so a device transfer is a same-dtype copy.
static Error deviceCopy(KernelContext &ctx, Args args, const char *op) {
  Tensor *in, *out;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), outArg("out", out)));
  PTEC_TRY(checkSameDtype(ctx, *in, *out, op));
  PTEC_TRY(resizeOut(ctx, *out, Shape::of(*in)));
  out->copyElementsFrom(*in);
  return Error::Ok;
}
Error h2d_copy_out(KernelContext &ctx, Args args) { return deviceCopy(ctx, args, "_h2d_copy"); }
Error d2h_copy_out(KernelContext &ctx, Args args) { return deviceCopy(ctx, args, "_d2h_copy"); }

Error clone_out(KernelContext &ctx, Args args) {
  PT_NARGS(4);
  PTEC_TRY(checkMemoryFormat(ctx, args, 1));
  return plainCopy(ctx, args, 4, "clone");
}
Error alias_copy_out(KernelContext &ctx, Args args) { return plainCopy(ctx, args, 3, "alias_copy"); }
Error detach_copy_out(KernelContext &ctx, Args args) { return plainCopy(ctx, args, 3, "detach_copy"); }
Error lift_fresh_copy_out(KernelContext &ctx, Args args) {
  return plainCopy(ctx, args, 3, "lift_fresh_copy");
}

Error to_copy_out(KernelContext &ctx, Args args) {
  PT_NARGS(5);
  bool nonBlocking;
  PTEC_TRY(argBool(ctx, args, 1, "non_blocking", nonBlocking));
  PTEC_TRY(checkMemoryFormat(ctx, args, 2));
  return convertCopy(ctx, args, 5);
}

Error to_dim_order_copy_out(KernelContext &ctx, Args args) {
  return dimOrderCopy(ctx, args, false, "_to_dim_order_copy");
}

Error clone_dim_order_out(KernelContext &ctx, Args args) {
  return dimOrderCopy(ctx, args, true, "_clone_dim_order");
}

Error copy_out(KernelContext &ctx, Args args) {
  Tensor *in, *src, *out;
  bool nonBlocking;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), arg("src", src), arg("non_blocking", nonBlocking),
                    outArg("out", out)));
  Shape os = Shape::of(*in);
  PTEC_TRY(resizeOut(ctx, *out, os));
  return copyBroadcast(ctx, *src, *out, os);
}

Error copy_inplace(KernelContext &ctx, Args args) {
  Tensor *self, *src;
  bool nonBlocking;
  PTEC_TRY(bindArgs(ctx, args, arg("self", self), arg("src", src),
                    arg("non_blocking", nonBlocking)));
  return copyBroadcast(ctx, *src, *self, Shape::of(*self));
}

Error constant_pad_nd_out(KernelContext &ctx, Args args) {
  Tensor *in, *out;
  IntList pad;
  Scalar value;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), arg("pad", pad), arg("value", value),
                    outArg("out", out)));
  PTEC_TRY(checkSameDtype(ctx, *in, *out, "constant_pad_nd"));
  if (pad.size() % 2 != 0 || pad.size() > 2 * static_cast<size_t>(in->dim()))
    return ctx.fail(Error::InvalidArgument,
                    "constant_pad_nd: pad has %zu entries; needs an even count <= 2 * rank (%d)",
                    pad.size(), 2 * in->dim());
  // pad lists (before, after) pairs starting from the last dim.
  int64_t before[kTensorMaxRank] = {}, after[kTensorMaxRank] = {};
  for (size_t k = 0; k < pad.size() / 2; ++k) {
    int d = in->dim() - 1 - static_cast<int>(k);
    before[d] = pad[2 * k];
    after[d] = pad[2 * k + 1];
    constexpr int64_t kMax = int64_t(1) << 48; // keeps the offset arithmetic in range
    if (before[d] < -kMax || before[d] > kMax || after[d] < -kMax || after[d] > kMax)
      return ctx.fail(Error::InvalidArgument, "constant_pad_nd: pad value out of range");
  }
  Shape os;
  for (int d = 0; d < in->dim(); ++d) {
    int64_t s = 0;
    if (__builtin_add_overflow(in->size(d), before[d], &s) ||
        __builtin_add_overflow(s, after[d], &s))
      return ctx.fail(Error::InvalidArgument, "constant_pad_nd: padded size overflows");
    if (s < 0)
      return ctx.fail(Error::InvalidArgument, "constant_pad_nd: dim %d would have negative size", d);
    os.push(s);
  }
  PTEC_TRY(resizeOut(ctx, *out, os));
  fillWith(*out, value);
  // The part of the input that lands inside the output.
  Shape region;
  int64_t inBase = 0, outBase = 0;
  int64_t inStrides[kTensorMaxRank], outStrides[kTensorMaxRank];
  for (int d = 0; d < in->dim(); ++d) {
    int64_t inStart = before[d] < 0 ? -before[d] : 0;
    int64_t outStart = before[d] > 0 ? before[d] : 0;
    int64_t n = in->size(d) - inStart - (after[d] < 0 ? -after[d] : 0);
    region.push(n < 0 ? 0 : n);
    inBase += inStart * in->stride(d);
    outBase += outStart * out->stride(d);
    inStrides[d] = in->stride(d);
    outStrides[d] = out->stride(d);
  }
  // Walk the region with out's strides; recover the input index per element.
  size_t es = in->elementSize();
  const uint8_t *src = static_cast<const uint8_t *>(in->data());
  uint8_t *dst = static_cast<uint8_t *>(out->mutableData());
  Shape rs = region;
  int64_t rstr[kTensorMaxRank];
  for (int d = 0; d < rs.n; ++d) { // contiguous strides of the region
    rstr[d] = 1;
    for (int e = d + 1; e < rs.n; ++e)
      rstr[d] *= rs.d[e];
  }
  forEachStrided(rs, outStrides, outBase, [&](int64_t r, int64_t o) {
    int64_t i = inBase;
    for (int d = 0; d < rs.n; ++d)
      i += ((r / rstr[d]) % rs.d[d]) * inStrides[d];
    std::memmove(dst + o * es, src + i * es, es);
  });
  return Error::Ok;
}

} // namespace ptec::rt::portable
