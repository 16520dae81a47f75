// Softmax, log-softmax, layer norm, group norm and batch norm (inference and
// training statistics). Floating dtypes only; statistics in double.
#include "runtime/kernels/portable/Kernels.h"
#include "runtime/kernels/portable/KernelUtils.h"

#include <cmath>

namespace ptec::rt::portable {

namespace {

Error requireFloat(KernelContext &ctx, const Tensor &t, const char *op, const char *what) {
  if (!isFloatDt(t.dtype()))
    return ctx.fail(Error::InvalidArgument, "%s: %s must be floating, got %s", op, what,
                    toString(t.dtype()));
  return Error::Ok;
}

Error softmaxImpl(KernelContext &ctx, Args args, bool log) {
  const char *op = log ? "_log_softmax" : "_softmax";
  Tensor *in, *out;
  int64_t dim;
  bool halfToFloat;
  PTEC_TRY(bindArgs(ctx, args, arg("self", in), arg("dim", dim), arg("half_to_float", halfToFloat),
                    outArg("out", out)));
  if (halfToFloat)
    return ctx.fail(Error::NotSupported, "%s: half_to_float is not supported on CPU", op);
  PTEC_TRY(requireFloat(ctx, *in, op, "input"));
  PTEC_TRY(checkSameDtype(ctx, *in, *out, op));
  PTEC_TRY(normDim(ctx, dim, in->dim(), dim));
  PTEC_TRY(resizeOut(ctx, *out, Shape::of(*in)));
  AxisSplit s = splitAt(*in, in->dim() == 0 ? 0 : dim);
  const void *p = in->data();
  void *q = out->mutableData();
  ScalarType t = in->dtype();
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t j = 0; j < s.inner; ++j) {
      int64_t base = o * s.size * s.inner + j;
      double m = -INFINITY;
      for (int64_t k = 0; k < s.size; ++k) {
        double v = loadAs<double>(p, t, base + k * s.inner);
        if (v > m || std::isnan(v))
          m = std::isnan(m) ? m : v;
      }
      double sum = 0;
      for (int64_t k = 0; k < s.size; ++k)
        sum += std::exp(loadAs<double>(p, t, base + k * s.inner) - m);
      double logSum = std::log(sum);
      for (int64_t k = 0; k < s.size; ++k) {
        double x = loadAs<double>(p, t, base + k * s.inner) - m;
        storeAs<double>(q, t, base + k * s.inner, log ? x - logSum : std::exp(x) / sum);
      }
    }
  }
  return Error::Ok;
}

/// Optional per-channel / per-element parameter of `n` elements.
Error checkParam(KernelContext &ctx, const Tensor *p, int64_t n, const char *op,
                 const char *what) {
  if (!p)
    return Error::Ok;
  PTEC_TRY(requireFloat(ctx, *p, op, what));
  if (p->numel() != n)
    return ctx.fail(Error::InvalidArgument, "%s: %s has %lld elements, expected %lld", op, what,
                    static_cast<long long>(p->numel()), static_cast<long long>(n));
  return Error::Ok;
}

double paramAt(const Tensor *p, int64_t i, double dflt) {
  return p ? loadAs<double>(p->data(), p->dtype(), i) : dflt;
}

} // namespace

Error softmax_out(KernelContext &ctx, Args args) { return softmaxImpl(ctx, args, false); }
Error log_softmax_out(KernelContext &ctx, Args args) { return softmaxImpl(ctx, args, true); }

Error native_layer_norm_out(KernelContext &ctx, Args args) {
  const char *op = "native_layer_norm";
  Tensor *in, *weight, *bias, *out, *mean, *rstd;
  IntList normShape;
  double eps;
  PTEC_TRY(bindArgs(ctx, args, arg("input", in), arg("normalized_shape", normShape),
                    optArg("weight", weight), optArg("bias", bias), arg("eps", eps),
                    outArg("out0", out), outArg("out1", mean), outArg("out2", rstd)));
  PTEC_TRY(requireFloat(ctx, *in, op, "input"));
  PTEC_TRY(checkSameDtype(ctx, *in, *out, op));
  PTEC_TRY(checkSameDtype(ctx, *in, *mean, op));
  PTEC_TRY(checkSameDtype(ctx, *in, *rstd, op));
  int k = static_cast<int>(normShape.size());
  if (k == 0 || k > in->dim())
    return ctx.fail(Error::InvalidArgument,
                    "%s: normalized_shape has %d dims for an input of rank %d", op, k, in->dim());
  int axis = in->dim() - k;
  for (int i = 0; i < k; ++i)
    if (normShape[i] != in->size(axis + i)) {
      ShapeText s(*in);
      return ctx.fail(Error::InvalidArgument,
                      "%s: normalized_shape does not match the trailing dims of input %s", op,
                      s.c_str());
    }
  int64_t m = 1, n = 1;
  for (int i = 0; i < in->dim(); ++i)
    (i < axis ? m : n) *= in->size(i);
  PTEC_TRY(checkParam(ctx, weight, n, op, "weight"));
  PTEC_TRY(checkParam(ctx, bias, n, op, "bias"));
  Shape statShape = Shape::of(*in);
  for (int i = axis; i < in->dim(); ++i)
    statShape.d[i] = 1;
  PTEC_TRY(resizeOut(ctx, *out, Shape::of(*in), "out0"));
  PTEC_TRY(resizeOut(ctx, *mean, statShape, "out1 (mean)"));
  PTEC_TRY(resizeOut(ctx, *rstd, statShape, "out2 (rstd)"));
  const void *p = in->data();
  ScalarType t = in->dtype();
  for (int64_t r = 0; r < m; ++r) {
    double sum = 0, sq = 0;
    for (int64_t c = 0; c < n; ++c)
      sum += loadAs<double>(p, t, r * n + c);
    double mu = n ? sum / static_cast<double>(n) : 0;
    for (int64_t c = 0; c < n; ++c) {
      double d = loadAs<double>(p, t, r * n + c) - mu;
      sq += d * d;
    }
    double var = n ? sq / static_cast<double>(n) : 0;
    double rs = 1.0 / std::sqrt(var + eps);
    for (int64_t c = 0; c < n; ++c) {
      double x = (loadAs<double>(p, t, r * n + c) - mu) * rs;
      storeAs<double>(out->mutableData(), t, r * n + c,
                      x * paramAt(weight, c, 1.0) + paramAt(bias, c, 0.0));
    }
    storeAs<double>(mean->mutableData(), t, r, mu);
    storeAs<double>(rstd->mutableData(), t, r, rs);
  }
  return Error::Ok;
}

Error batch_norm_no_training_out(KernelContext &ctx, Args args) {
  const char *op = "_native_batch_norm_legit_no_training";
  Tensor *in, *weight, *bias, *rmean, *rvar, *out, *saveMean, *saveInvstd;
  double momentum, eps;
  PTEC_TRY(bindArgs(ctx, args, arg("input", in), optArg("weight", weight), optArg("bias", bias),
                    arg("running_mean", rmean), arg("running_var", rvar), arg("momentum", momentum),
                    arg("eps", eps), outArg("out0", out), outArg("out1", saveMean),
                    outArg("out2", saveInvstd)));
  PTEC_TRY(requireFloat(ctx, *in, op, "input"));
  PTEC_TRY(checkSameDtype(ctx, *in, *out, op));
  if (in->dim() < 2)
    return ctx.fail(Error::InvalidArgument, "%s: input must have rank >= 2, got %d", op, in->dim());
  int64_t c = in->size(1);
  PTEC_TRY(checkParam(ctx, weight, c, op, "weight"));
  PTEC_TRY(checkParam(ctx, bias, c, op, "bias"));
  PTEC_TRY(checkParam(ctx, rmean, c, op, "running_mean"));
  PTEC_TRY(checkParam(ctx, rvar, c, op, "running_var"));
  PTEC_TRY(resizeOut(ctx, *out, Shape::of(*in), "out0"));
  int64_t zero = 0;
  PTEC_TRY(resizeOut(ctx, *saveMean, Span<const int64_t>(&zero, 1), "out1"));
  PTEC_TRY(resizeOut(ctx, *saveInvstd, Span<const int64_t>(&zero, 1), "out2"));
  AxisSplit s = splitAt(*in, 1);
  const void *p = in->data();
  ScalarType t = in->dtype();
  for (int64_t ch = 0; ch < c; ++ch) {
    double mu = paramAt(rmean, ch, 0);
    double inv = 1.0 / std::sqrt(paramAt(rvar, ch, 1) + eps);
    double w = paramAt(weight, ch, 1.0), b = paramAt(bias, ch, 0.0);
    for (int64_t o = 0; o < s.outer; ++o) {
      int64_t base = (o * c + ch) * s.inner;
      for (int64_t j = 0; j < s.inner; ++j)
        storeAs<double>(out->mutableData(), t, base + j,
                        (loadAs<double>(p, t, base + j) - mu) * inv * w + b);
    }
  }
  return Error::Ok;
}

namespace {

/// Per-channel batch statistics over (N, *): mean and biased variance.
void channelStats(const Tensor &in, int64_t ch, double &mean, double &var) {
  AxisSplit s = splitAt(in, 1);
  int64_t c = in.size(1);
  double mu = 0, m2 = 0;
  int64_t k = 0;
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t j = 0; j < s.inner; ++j) {
      double x = loadAs<double>(in.data(), in.dtype(), (o * c + ch) * s.inner + j);
      double d = x - mu;
      mu += d / static_cast<double>(++k);
      m2 += d * (x - mu);
    }
  mean = mu;
  var = k ? m2 / static_cast<double>(k) : NAN;
}

/// Batch norm with batch statistics (training mode): normalises with the
/// batch mean and biased variance, writes save_mean / save_invstd of shape
/// [C], and updates the running statistics in place when given (momentum,
/// unbiased variance), as PyTorch's native_batch_norm does.
Error batchNormTraining(KernelContext &ctx, const char *op, const Tensor &in,
                        const Tensor *weight, const Tensor *bias, Tensor *rmean, Tensor *rvar,
                        double momentum, double eps, Tensor &out, Tensor &saveMean,
                        Tensor &saveInvstd) {
  int64_t c = in.size(1);
  PTEC_TRY(checkSameDtype(ctx, in, saveMean, op));
  PTEC_TRY(checkSameDtype(ctx, in, saveInvstd, op));
  PTEC_TRY(resizeOut(ctx, saveMean, Span<const int64_t>(&c, 1), "save_mean"));
  PTEC_TRY(resizeOut(ctx, saveInvstd, Span<const int64_t>(&c, 1), "save_invstd"));
  int64_t n = in.numel() / (c ? c : 1);
  if (n == 0)
    return ctx.fail(Error::InvalidArgument, "%s: training needs at least one value per channel", op);
  AxisSplit s = splitAt(in, 1);
  for (int64_t ch = 0; ch < c; ++ch) {
    double mu, var;
    channelStats(in, ch, mu, var);
    double inv = 1.0 / std::sqrt(var + eps);
    storeAs<double>(saveMean.mutableData(), saveMean.dtype(), ch, mu);
    storeAs<double>(saveInvstd.mutableData(), saveInvstd.dtype(), ch, inv);
    double w = paramAt(weight, ch, 1.0), b = paramAt(bias, ch, 0.0);
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t j = 0; j < s.inner; ++j) {
        int64_t i = (o * c + ch) * s.inner + j;
        storeAs<double>(out.mutableData(), out.dtype(), i,
                        (loadAs<double>(in.data(), in.dtype(), i) - mu) * inv * w + b);
      }
    if (rmean)
      storeAs<double>(rmean->mutableData(), rmean->dtype(), ch,
                      (1 - momentum) * paramAt(rmean, ch, 0) + momentum * mu);
    if (rvar) {
      double unbiased = n > 1 ? var * static_cast<double>(n) / static_cast<double>(n - 1) : NAN;
      storeAs<double>(rvar->mutableData(), rvar->dtype(), ch,
                      (1 - momentum) * paramAt(rvar, ch, 1) + momentum * unbiased);
    }
  }
  return Error::Ok;
}

/// Input, weight and bias checks shared by the batch norm kernels.
Error checkBatchNormInput(KernelContext &ctx, const char *op, const Tensor &in,
                          const Tensor *weight, const Tensor *bias, Tensor &out) {
  PTEC_TRY(requireFloat(ctx, in, op, "input"));
  PTEC_TRY(checkSameDtype(ctx, in, out, op));
  if (in.dim() < 2)
    return ctx.fail(Error::InvalidArgument, "%s: input must have rank >= 2, got %d", op, in.dim());
  PTEC_TRY(checkParam(ctx, weight, in.size(1), op, "weight"));
  PTEC_TRY(checkParam(ctx, bias, in.size(1), op, "bias"));
  return resizeOut(ctx, out, Shape::of(in), "out");
}

} // namespace

/// _native_batch_norm_legit.out: [input, weight?, bias?, running_mean,
/// running_var, training, momentum, eps, out, save_mean, save_invstd, ret].
Error batch_norm_legit_out(KernelContext &ctx, Args args) {
  const char *op = "_native_batch_norm_legit";
  Tensor *in, *weight, *bias, *rmean, *rvar, *out, *saveMean, *saveInvstd;
  bool training;
  double momentum, eps;
  PTEC_TRY(bindArgs(ctx, args, arg("input", in), optArg("weight", weight), optArg("bias", bias),
                    arg("running_mean", rmean), arg("running_var", rvar), arg("training", training),
                    arg("momentum", momentum), arg("eps", eps), outArg("out", out),
                    outArg("save_mean", saveMean), outArg("save_invstd", saveInvstd)));
  PTEC_TRY(checkBatchNormInput(ctx, op, *in, weight, bias, *out));
  int64_t c = in->size(1);
  PTEC_TRY(checkParam(ctx, rmean, c, op, "running_mean"));
  PTEC_TRY(checkParam(ctx, rvar, c, op, "running_var"));
  if (training)
    return batchNormTraining(ctx, op, *in, weight, bias, rmean, rvar, momentum, eps, *out,
                             *saveMean, *saveInvstd);
  // Inference: the no_training kernel's arithmetic and its empty stats.
  int64_t zero = 0;
  PTEC_TRY(resizeOut(ctx, *saveMean, Span<const int64_t>(&zero, 1), "save_mean"));
  PTEC_TRY(resizeOut(ctx, *saveInvstd, Span<const int64_t>(&zero, 1), "save_invstd"));
  AxisSplit s = splitAt(*in, 1);
  for (int64_t ch = 0; ch < c; ++ch) {
    double mu = paramAt(rmean, ch, 0);
    double inv = 1.0 / std::sqrt(paramAt(rvar, ch, 1) + eps);
    double w = paramAt(weight, ch, 1.0), b = paramAt(bias, ch, 0.0);
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t j = 0; j < s.inner; ++j) {
        int64_t i = (o * c + ch) * s.inner + j;
        storeAs<double>(out->mutableData(), out->dtype(), i,
                        (loadAs<double>(in->data(), in->dtype(), i) - mu) * inv * w + b);
      }
  }
  return Error::Ok;
}

/// _native_batch_norm_legit.no_stats_out: [input, weight?, bias?, training,
/// momentum, eps, out, save_mean, save_invstd, ret]. Without running
/// statistics only training mode is defined.
Error batch_norm_legit_no_stats_out(KernelContext &ctx, Args args) {
  const char *op = "_native_batch_norm_legit.no_stats";
  Tensor *in, *weight, *bias, *out, *saveMean, *saveInvstd;
  bool training;
  double momentum, eps;
  PTEC_TRY(bindArgs(ctx, args, arg("input", in), optArg("weight", weight), optArg("bias", bias),
                    arg("training", training), arg("momentum", momentum), arg("eps", eps),
                    outArg("out", out), outArg("save_mean", saveMean),
                    outArg("save_invstd", saveInvstd)));
  if (!training)
    return ctx.fail(Error::InvalidArgument,
                    "%s: running_mean and running_var are needed in evaluation mode", op);
  PTEC_TRY(checkBatchNormInput(ctx, op, *in, weight, bias, *out));
  return batchNormTraining(ctx, op, *in, weight, bias, nullptr, nullptr, momentum, eps, *out,
                           *saveMean, *saveInvstd);
}

/// native_group_norm.out: [input, weight?, bias?, N, C, HxW, group, eps,
/// out0, out1 (mean), out2 (rstd), ret]; mean and rstd have shape [N, group].
Error native_group_norm_out(KernelContext &ctx, Args args) {
  const char *op = "native_group_norm";
  Tensor *in, *weight, *bias, *out, *mean, *rstd;
  int64_t n, c, hxw, group;
  double eps;
  PTEC_TRY(bindArgs(ctx, args, arg("input", in), optArg("weight", weight), optArg("bias", bias),
                    arg("N", n), arg("C", c), arg("HxW", hxw), arg("group", group), arg("eps", eps),
                    outArg("out0", out), outArg("out1", mean), outArg("out2", rstd)));
  PTEC_TRY(requireFloat(ctx, *in, op, "input"));
  PTEC_TRY(checkSameDtype(ctx, *in, *out, op));
  PTEC_TRY(checkSameDtype(ctx, *in, *mean, op));
  PTEC_TRY(checkSameDtype(ctx, *in, *rstd, op));
  int64_t trailing = 1;
  for (int i = 2; i < in->dim(); ++i)
    trailing *= in->size(i);
  if (in->dim() < 2 || in->size(0) != n || in->size(1) != c || trailing != hxw)
    return ctx.fail(Error::InvalidArgument,
                    "%s: input does not have shape (N=%lld, C=%lld, *) with HxW=%lld", op,
                    static_cast<long long>(n), static_cast<long long>(c),
                    static_cast<long long>(hxw));
  if (group <= 0 || c % group != 0)
    return ctx.fail(Error::InvalidArgument, "%s: group=%lld must divide C=%lld", op,
                    static_cast<long long>(group), static_cast<long long>(c));
  PTEC_TRY(checkParam(ctx, weight, c, op, "weight"));
  PTEC_TRY(checkParam(ctx, bias, c, op, "bias"));
  PTEC_TRY(resizeOut(ctx, *out, Shape::of(*in), "out0"));
  int64_t statShape[2] = {n, group};
  PTEC_TRY(resizeOut(ctx, *mean, Span<const int64_t>(statShape, 2), "out1 (mean)"));
  PTEC_TRY(resizeOut(ctx, *rstd, Span<const int64_t>(statShape, 2), "out2 (rstd)"));
  const int64_t cg = c / group, span = cg * hxw;
  const void *p = in->data();
  ScalarType t = in->dtype();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t g = 0; g < group; ++g) {
      int64_t base = (b * c + g * cg) * hxw;
      double mu = 0, m2 = 0;
      for (int64_t k = 0; k < span; ++k) {
        double x = loadAs<double>(p, t, base + k);
        double d = x - mu;
        mu += d / static_cast<double>(k + 1);
        m2 += d * (x - mu);
      }
      double var = span ? m2 / static_cast<double>(span) : 0;
      double rs = 1.0 / std::sqrt(var + eps);
      for (int64_t k = 0; k < span; ++k) {
        int64_t ch = g * cg + k / (hxw ? hxw : 1);
        double x = (loadAs<double>(p, t, base + k) - mu) * rs;
        storeAs<double>(out->mutableData(), t, base + k,
                        x * paramAt(weight, ch, 1.0) + paramAt(bias, ch, 0.0));
      }
      storeAs<double>(mean->mutableData(), t, b * group + g, mu);
      storeAs<double>(rstd->mutableData(), t, b * group + g, rs);
    }
  return Error::Ok;
}

} // namespace ptec::rt::portable
