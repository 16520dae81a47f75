// quantized_decomposed quantize / dequantize (per tensor, with scalar or
// tensor parameters, and per channel): the q/dq pairs that PT2E
// quantization leaves around float ops. Arithmetic is float32, as
// torch.ao.quantization.fx._decomposed computes it:
//   q = clamp(round_half_even(x * float(1 / scale)) + zero_point, qmin, qmax)
//   x = (float(q) - zero_point) * float(scale)
#include "runtime/kernels/portable/Kernels.h"

#include <cmath>
#include <limits>

namespace ptec::rt::portable {

namespace {

/// The integer dtypes a quantized tensor may have, and their ranges.
bool quantRange(ScalarType t, int64_t &lo, int64_t &hi) {
  switch (t) {
  case ScalarType::Byte: lo = 0; hi = 255; return true;
  case ScalarType::Char: lo = -128; hi = 127; return true;
  case ScalarType::Short: lo = -32768; hi = 32767; return true;
  case ScalarType::Int:
    lo = std::numeric_limits<int32_t>::min();
    hi = std::numeric_limits<int32_t>::max();
    return true;
  default: return false;
  }
}

/// dtype is the quantized dtype; [qmin, qmax] must lie within it.
Error checkQuantParams(KernelContext &ctx, const char *op, ScalarType dtype, int64_t qmin,
                       int64_t qmax) {
  int64_t lo, hi;
  if (!quantRange(dtype, lo, hi))
    return ctx.fail(Error::InvalidArgument,
                    "%s: quantized dtype must be uint8, int8, int16 or int32, got %s", op,
                    toString(dtype));
  if (qmin > qmax || qmin < lo || qmax > hi)
    return ctx.fail(Error::InvalidArgument,
                    "%s: [quant_min, quant_max] = [%lld, %lld] is not a range within %s", op,
                    static_cast<long long>(qmin), static_cast<long long>(qmax), toString(dtype));
  return Error::Ok;
}

/// ScalarType argument (not optional).
Error argDtype(KernelContext &ctx, Args args, size_t i, const char *name, ScalarType &out) {
  bool present;
  PTEC_TRY(argOptDtype(ctx, args, i, name, present, out));
  if (!present)
    return badTag(ctx, i, name, "Int (ScalarType)", args[i]);
  return Error::Ok;
}

/// A scale or zero point given as a one-element tensor (the .tensor forms).
Error scalarOf(KernelContext &ctx, const Tensor &t, const char *op, const char *what,
               double &out) {
  if (t.numel() != 1)
    return ctx.fail(Error::InvalidArgument, "%s: %s must have one element, got %lld", op, what,
                    static_cast<long long>(t.numel()));
  out = loadAs<double>(t.data(), t.dtype(), 0);
  return Error::Ok;
}

/// A scale the kernels cannot use: zero, NaN or infinite once it is a
/// float32 (the kernels compute in float32; `!(s != 0)` let NaN through,
/// since NaN != 0 is true, and a double below float32's range becomes 0).
/// A subnormal scale is usable: its float32 reciprocal is infinite, so every
/// nonzero input saturates, as in PyTorch's quantize (a PT2E program may
/// carry one; quantized_variants.py runs such programs against PyTorch).
inline bool unusableScale(double s) {
  const float f = static_cast<float>(s);
  return std::isnan(f) || std::isinf(f) || f == 0.0f;
}

inline int64_t quantizeOne(double x, float invScale, int64_t zp, int64_t qmin, int64_t qmax) {
  float v = std::nearbyint(static_cast<float>(x) * invScale) + static_cast<float>(zp);
  if (std::isnan(v))
    return qmin; // NaN has no quantized value; PyTorch's clamp would keep NaN
  if (v < static_cast<float>(qmin))
    return qmin;
  if (v > static_cast<float>(qmax))
    return qmax;
  return static_cast<int64_t>(v);
}

inline double dequantizeOne(int64_t q, int64_t zp, float scale) {
  // In double: a hostile zero point must not overflow int64 (exact for every
  // |q - zp| below 2^53, so the same as the integer difference there).
  double diff = static_cast<double>(q) - static_cast<double>(zp);
  return static_cast<double>(static_cast<float>(diff) * scale);
}

/// Per-tensor or per-channel parameters for element i.
struct QParams {
  const Tensor *scales = nullptr, *zeroPoints = nullptr; // per channel when set
  double scale = 1;
  int64_t zp = 0;
  AxisSplit split; // channel = (i / inner) % size
  double scaleAt(int64_t i) const {
    return scales ? loadAs<double>(scales->data(), scales->dtype(), channel(i)) : scale;
  }
  int64_t zpAt(int64_t i) const {
    if (!scales)
      return zp;
    return zeroPoints ? loadAs<int64_t>(zeroPoints->data(), zeroPoints->dtype(), channel(i)) : 0;
  }
  int64_t channel(int64_t i) const { return (i / split.inner) % split.size; }
};

/// A (de)quantize kernel's arguments: [input, <parameters>, quant_min,
/// quant_max, dtype, out_dtype? (dequantize only), out, ret].
struct QArgs {
  Tensor *in = nullptr, *out = nullptr;
  QParams qp;
  int64_t qmin = 0, qmax = 0;
  ScalarType dtype = ScalarType::Float;
  bool hasOutDtype = false;
  ScalarType outDtype = ScalarType::Float;
};

/// Unboxes a QArgs whose parameters end before argument `first`; params()
/// reads them into qa.qp once the input is bound.
template <typename Params>
Error unboxQuant(KernelContext &ctx, Args args, size_t first, bool withOutDtype, QArgs &qa,
                 Params &&params) {
  PT_NARGS(first + (withOutDtype ? 6 : 5));
  PTEC_TRY(argTensor(ctx, args, 0, "input", qa.in));
  PTEC_TRY(params());
  PTEC_TRY(argInt(ctx, args, first, "quant_min", qa.qmin));
  PTEC_TRY(argInt(ctx, args, first + 1, "quant_max", qa.qmax));
  PTEC_TRY(argDtype(ctx, args, first + 2, "dtype", qa.dtype));
  size_t outAt = first + 3;
  if (withOutDtype)
    PTEC_TRY(argOptDtype(ctx, args, outAt++, "out_dtype", qa.hasOutDtype, qa.outDtype));
  PTEC_TRY(argOut(ctx, args, outAt, "out", qa.out));
  return argReturn(ctx, args, outAt + 1);
}

Error quantizeInto(KernelContext &ctx, const char *op, const Tensor &in, const QParams &qp,
                   int64_t qmin, int64_t qmax, ScalarType dtype, Tensor &out) {
  if (!isFloatDt(in.dtype()))
    return ctx.fail(Error::InvalidArgument, "%s: input must be floating, got %s", op,
                    toString(in.dtype()));
  PTEC_TRY(checkQuantParams(ctx, op, dtype, qmin, qmax));
  if (out.dtype() != dtype)
    return ctx.fail(Error::InvalidArgument, "%s: out dtype %s differs from dtype %s", op,
                    toString(out.dtype()), toString(dtype));
  PTEC_TRY(resizeOut(ctx, out, Shape::of(in)));
  for (int64_t i = 0, n = in.numel(); i < n; ++i) {
    const float inv = static_cast<float>(1.0 / qp.scaleAt(i));
    storeAs<int64_t>(out.mutableData(), out.dtype(), i,
                     quantizeOne(loadAs<double>(in.data(), in.dtype(), i), inv, qp.zpAt(i), qmin,
                                 qmax));
  }
  return Error::Ok;
}

Error dequantizeInto(KernelContext &ctx, const char *op, const Tensor &in, const QParams &qp,
                     int64_t qmin, int64_t qmax, ScalarType dtype, bool hasOutDtype,
                     ScalarType outDtype, Tensor &out) {
  PTEC_TRY(checkQuantParams(ctx, op, dtype, qmin, qmax));
  if (in.dtype() != dtype)
    return ctx.fail(Error::InvalidArgument, "%s: input dtype %s differs from dtype %s", op,
                    toString(in.dtype()), toString(dtype));
  ScalarType want = hasOutDtype ? outDtype : ScalarType::Float;
  if (!isFloatDt(want) || out.dtype() != want)
    return ctx.fail(Error::InvalidArgument, "%s: out must be %s (floating), got %s", op,
                    toString(want), toString(out.dtype()));
  PTEC_TRY(resizeOut(ctx, out, Shape::of(in)));
  for (int64_t i = 0, n = in.numel(); i < n; ++i)
    storeAs<double>(out.mutableData(), out.dtype(), i,
                    dequantizeOne(loadAs<int64_t>(in.data(), in.dtype(), i), qp.zpAt(i),
                                  static_cast<float>(qp.scaleAt(i))));
  return Error::Ok;
}

/// Per-tensor parameters from args[1], args[2]: float/int or tensors.
Error perTensorParams(KernelContext &ctx, Args args, const char *op, bool tensors, QParams &qp) {
  if (!tensors) {
    PTEC_TRY(argDouble(ctx, args, 1, "scale", qp.scale));
    return argInt(ctx, args, 2, "zero_point", qp.zp);
  }
  Tensor *s, *z;
  PTEC_TRY(argTensor(ctx, args, 1, "scale", s));
  PTEC_TRY(argTensor(ctx, args, 2, "zero_point", z));
  double zd;
  PTEC_TRY(scalarOf(ctx, *s, op, "scale", qp.scale));
  PTEC_TRY(scalarOf(ctx, *z, op, "zero_point", zd));
  qp.zp = floatToInt<int64_t>(zd);
  return Error::Ok;
}

/// Per-channel parameters: scales (and zero points, when present) have one
/// element per index of `axis`.
Error perChannelParams(KernelContext &ctx, Args args, const char *op, const Tensor &in,
                       bool zpOptional, QParams &qp) {
  Tensor *scales, *zps = nullptr;
  int64_t axis;
  PTEC_TRY(argTensor(ctx, args, 1, "scales", scales));
  if (zpOptional)
    PTEC_TRY(argOptTensor(ctx, args, 2, "zero_points", zps));
  else
    PTEC_TRY(argTensor(ctx, args, 2, "zero_points", zps));
  PTEC_TRY(argInt(ctx, args, 3, "axis", axis));
  if (in.dim() == 0)
    return ctx.fail(Error::InvalidArgument, "%s: input must have rank >= 1", op);
  PTEC_TRY(normDim(ctx, axis, in.dim(), axis));
  int64_t c = in.size(static_cast<int>(axis));
  if (!isFloatDt(scales->dtype()) || scales->dim() != 1 || scales->size(0) != c)
    return ctx.fail(Error::InvalidArgument, "%s: scales must be a floating [%lld] tensor", op,
                    static_cast<long long>(c));
  if (zps && (isFloatDt(zps->dtype()) || zps->dim() != 1 || zps->size(0) != c))
    return ctx.fail(Error::InvalidArgument, "%s: zero_points must be an integer [%lld] tensor",
                    op, static_cast<long long>(c));
  qp.scales = scales;
  qp.zeroPoints = zps;
  qp.split = splitAt(in, axis);
  for (int64_t k = 0; k < c; ++k) {
    const double sk = loadAs<double>(scales->data(), scales->dtype(), k);
    if (unusableScale(sk))
      return ctx.fail(Error::InvalidArgument,
                      "%s: scale %lld is %g: zero, NaN or infinite as a float32", op,
                      static_cast<long long>(k), sk);
  }
  return Error::Ok;
}

/// quantize_per_tensor.out / .Tensor_out: [input, scale, zero_point,
/// quant_min, quant_max, dtype, out, ret].
Error quantizePerTensor(KernelContext &ctx, Args args, bool tensors) {
  const char *op = "quantize_per_tensor";
  QArgs qa;
  PTEC_TRY(unboxQuant(ctx, args, 3, false, qa,
                      [&] { return perTensorParams(ctx, args, op, tensors, qa.qp); }));
  if (unusableScale(qa.qp.scale))
    return ctx.fail(Error::InvalidArgument, "%s: scale is %g: zero, NaN or infinite as a float32",
                    op, qa.qp.scale);
  return quantizeInto(ctx, op, *qa.in, qa.qp, qa.qmin, qa.qmax, qa.dtype, *qa.out);
}

/// dequantize_per_tensor.out / .Tensor_out: [input, scale, zero_point,
/// quant_min, quant_max, dtype, out_dtype?, out, ret].
Error dequantizePerTensor(KernelContext &ctx, Args args, bool tensors) {
  const char *op = "dequantize_per_tensor";
  QArgs qa;
  PTEC_TRY(unboxQuant(ctx, args, 3, true, qa,
                      [&] { return perTensorParams(ctx, args, op, tensors, qa.qp); }));
  return dequantizeInto(ctx, op, *qa.in, qa.qp, qa.qmin, qa.qmax, qa.dtype, qa.hasOutDtype,
                        qa.outDtype, *qa.out);
}

} // namespace

Error quantize_per_tensor_out(KernelContext &ctx, Args args) {
  return quantizePerTensor(ctx, args, false);
}
Error quantize_per_tensor_tensor_out(KernelContext &ctx, Args args) {
  return quantizePerTensor(ctx, args, true);
}
Error dequantize_per_tensor_out(KernelContext &ctx, Args args) {
  return dequantizePerTensor(ctx, args, false);
}
Error dequantize_per_tensor_tensor_out(KernelContext &ctx, Args args) {
  return dequantizePerTensor(ctx, args, true);
}

/// quantize_per_channel.out: [input, scales, zero_points, axis, quant_min,
/// quant_max, dtype, out, ret].
Error quantize_per_channel_out(KernelContext &ctx, Args args) {
  const char *op = "quantize_per_channel";
  QArgs qa;
  PTEC_TRY(unboxQuant(ctx, args, 4, false, qa,
                      [&] { return perChannelParams(ctx, args, op, *qa.in, false, qa.qp); }));
  return quantizeInto(ctx, op, *qa.in, qa.qp, qa.qmin, qa.qmax, qa.dtype, *qa.out);
}

/// dequantize_per_channel.out: [input, scales, zero_points?, axis,
/// quant_min, quant_max, dtype, out_dtype?, out, ret].
Error dequantize_per_channel_out(KernelContext &ctx, Args args) {
  const char *op = "dequantize_per_channel";
  QArgs qa;
  PTEC_TRY(unboxQuant(ctx, args, 4, true, qa,
                      [&] { return perChannelParams(ctx, args, op, *qa.in, true, qa.qp); }));
  return dequantizeInto(ctx, op, *qa.in, qa.qp, qa.qmin, qa.qmax, qa.dtype, qa.hasOutDtype,
                        qa.outDtype, *qa.out);
}

} // namespace ptec::rt::portable
