// Random kernels: rand, randn and native_dropout. Like upstream, every call
// draws from a fresh generator seeded by std::random_device; nothing here is
// reproducible, so the conformance suite checks shapes and dtypes and
// kernel_tests checks the distributions.
#include "runtime/kernels/portable/Kernels.h"
#include "runtime/kernels/portable/KernelUtils.h"

#include <random>

namespace ptec::rt::portable {

namespace {

/// [size, out, ret]: out gets `size` values drawn from `dist`.
template <typename Dist>
Error randomFill(KernelContext &ctx, Args args, const char *op, Dist dist, bool belowOne) {
  IntList size;
  Tensor *out;
  PTEC_TRY(bindArgs(ctx, args, arg("size", size), outArg("out", out)));
  if (!isFloatDt(out->dtype()))
    return ctx.fail(Error::InvalidArgument, "%s: out must be floating, got %s", op,
                    toString(out->dtype()));
  if (size.size() > static_cast<size_t>(kTensorMaxRank))
    return ctx.fail(Error::InvalidArgument, "%s: size has rank %zu, more than %d", op,
                    size.size(), kTensorMaxRank);
  Shape os;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] < 0)
      return ctx.fail(Error::InvalidArgument, "%s: negative size %lld", op,
                      static_cast<long long>(size[i]));
    os.push(size[i]);
  }
  PTEC_TRY(resizeOut(ctx, *out, os));
  std::mt19937 gen((std::random_device())());
  for (int64_t i = 0, n = out->numel(); i < n; ++i) {
    // Rounding to a narrow dtype may carry a value just below 1 up to 1:
    // draw again so that rand stays in [0, 1).
    do
      storeAs<double>(out->mutableData(), out->dtype(), i, dist(gen));
    while (belowOne && loadAs<double>(out->data(), out->dtype(), i) >= 1.0);
  }
  return Error::Ok;
}

} // namespace

Error rand_out(KernelContext &ctx, Args args) {
  return randomFill(ctx, args, "rand", std::uniform_real_distribution<double>(0.0, 1.0),
                    true);
}

Error randn_out(KernelContext &ctx, Args args) {
  return randomFill(ctx, args, "randn", std::normal_distribution<double>(0.0, 1.0), false);
}

/// native_dropout.out: [input, p, train?, out, mask, ret]. In training
/// (train true or None) each element is kept with probability 1 - p and
/// scaled by 1 / (1 - p), as PyTorch does (upstream's portable kernel keeps
/// the survivors unscaled); otherwise out is input and mask is all true.
Error native_dropout_out(KernelContext &ctx, Args args) {
  PT_NARGS(6);
  Tensor *in, *out, *mask;
  double p;
  PTEC_TRY(argTensor(ctx, args, 0, "input", in));
  PTEC_TRY(argDouble(ctx, args, 1, "p", p));
  EValue *tv = args[2];
  bool train = true;
  if (!(tv && tv->isNone()))
    PTEC_TRY(argBool(ctx, args, 2, "train", train));
  PTEC_TRY(argOut(ctx, args, 3, "out0", out));
  PTEC_TRY(argOut(ctx, args, 4, "out1", mask));
  PTEC_TRY(argReturn(ctx, args, 5));
  PTEC_TRY(checkSameDtype(ctx, *in, *out, "native_dropout"));
  if (mask->dtype() != ScalarType::Bool)
    return ctx.fail(Error::InvalidArgument, "native_dropout: mask must be bool, got %s",
                    toString(mask->dtype()));
  if (!(p >= 0 && p <= 1))
    return ctx.fail(Error::InvalidArgument,
                    "native_dropout: probability has to be between 0 and 1, got %f", p);
  if (train && !isFloatDt(in->dtype()))
    return ctx.fail(Error::InvalidArgument, "native_dropout: training needs a floating input, got %s",
                    toString(in->dtype()));
  PTEC_TRY(resizeOut(ctx, *out, Shape::of(*in), "out0"));
  PTEC_TRY(resizeOut(ctx, *mask, Shape::of(*in), "out1"));
  int64_t n = in->numel();
  bool *m = mask->dataAs<bool>();
  if (!train) {
    out->copyElementsFrom(*in);
    for (int64_t i = 0; i < n; ++i)
      m[i] = true;
    return Error::Ok;
  }
  const double keep = 1.0 - p, scale = keep == 0 ? 0.0 : 1.0 / keep;
  std::mt19937 gen((std::random_device())());
  std::uniform_real_distribution<double> dist(0.0, 1.0);
  for (int64_t i = 0; i < n; ++i) {
    m[i] = p == 0 || (p < 1 && dist(gen) < keep);
    double x = loadAs<double>(in->data(), in->dtype(), i);
    storeAs<double>(out->mutableData(), out->dtype(), i, m[i] ? x * scale : x * 0.0);
  }
  return Error::Ok;
}

} // namespace ptec::rt::portable
