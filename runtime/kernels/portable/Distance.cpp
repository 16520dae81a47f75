// Pairwise p-norm distances: _cdist_forward (two sets, batch dims
// broadcast) and _pdist_forward (the upper triangle of one set). p = 0
// counts differing coordinates, p = inf takes the largest difference.
#include "runtime/kernels/portable/Kernels.h"

#include <cmath>

namespace ptec::rt::portable {

namespace {

/// || a - b ||_p over m coordinates read through `at`.
template <typename At> double pnorm(int64_t m, double p, At &&at) {
  double acc = 0;
  for (int64_t k = 0; k < m; ++k) {
    double d = std::fabs(at(k));
    if (p == 0)
      acc += d != 0;
    else if (std::isinf(p))
      acc = std::isnan(d) || d > acc ? d : acc;
    else if (p == 1)
      acc += d;
    else if (p == 2)
      acc += d * d;
    else
      acc += std::pow(d, p);
  }
  if (p == 0 || p == 1 || std::isinf(p))
    return acc;
  return p == 2 ? std::sqrt(acc) : std::pow(acc, 1.0 / p);
}

Error requireP(KernelContext &ctx, double p, const char *op) {
  if (!(p >= 0))
    return ctx.fail(Error::InvalidArgument, "%s: p must be non-negative, got %f", op, p);
  return Error::Ok;
}

} // namespace

/// _cdist_forward.out: [x1 (*, P, M), x2 (*, R, M), p, compute_mode?, out, ret].
Error cdist_forward_out(KernelContext &ctx, Args args) {
  const char *op = "_cdist_forward";
  Tensor *x1, *x2, *out;
  double p;
  bool hasMode;
  int64_t mode;
  PTEC_TRY(selfAndOut(ctx, args, 6, op, x1, out));
  PTEC_TRY(argTensor(ctx, args, 1, "x2", x2));
  PTEC_TRY(argDouble(ctx, args, 2, "p", p));
  PTEC_TRY(argOptInt(ctx, args, 3, "compute_mode", hasMode, mode));
  PTEC_TRY(requireP(ctx, p, op));
  if (!isFloatDt(x1->dtype()) || x2->dtype() != x1->dtype())
    return ctx.fail(Error::InvalidArgument, "%s: x1 and x2 must share a floating dtype", op);
  if (x1->dim() < 2 || x2->dim() < 2 || x1->size(x1->dim() - 1) != x2->size(x2->dim() - 1))
    return ctx.fail(Error::InvalidArgument,
                    "%s: expects x1 (*, P, M) and x2 (*, R, M) with the same M", op);
  // Batch dims broadcast: view them as tensors of the batch shapes.
  Tensor b1, b2;
  PTEC_TRY(b1.init(x1->dtype(), Span<const int64_t>(x1->sizes().data(), x1->dim() - 2)));
  PTEC_TRY(b2.init(x2->dtype(), Span<const int64_t>(x2->sizes().data(), x2->dim() - 2)));
  const Tensor *bs[2] = {&b1, &b2};
  Shape batch;
  PTEC_TRY(broadcastShapes(ctx, bs, 2, batch));
  const int64_t P = x1->size(x1->dim() - 2), R = x2->size(x2->dim() - 2);
  const int64_t M = x1->size(x1->dim() - 1);
  if (batch.n + 2 > kTensorMaxRank)
    return ctx.fail(Error::InvalidArgument, "%s: result rank exceeds %d", op, kTensorMaxRank);
  Shape os = batch;
  os.push(P);
  os.push(R);
  PTEC_TRY(resizeOut(ctx, *out, os));
  const int64_t s1 = P * M, s2 = R * M;
  forEachBroadcast<2>(batch, bs, [&](int64_t o, const int64_t(&ix)[2]) {
    // Batch strides of b1/b2 count batch elements: scale to matrices.
    const int64_t base1 = ix[0] * s1, base2 = ix[1] * s2;
    for (int64_t i = 0; i < P; ++i)
      for (int64_t j = 0; j < R; ++j) {
        double d = pnorm(M, p, [&](int64_t k) {
          return loadAs<double>(x1->data(), x1->dtype(), base1 + i * M + k) -
                 loadAs<double>(x2->data(), x2->dtype(), base2 + j * M + k);
        });
        storeAs<double>(out->mutableData(), out->dtype(), (o * P + i) * R + j, d);
      }
  });
  return Error::Ok;
}

/// _pdist_forward.out: [self (N, M), p, out, ret]; out[k] for each pair
/// i < j in row-major order.
Error pdist_forward_out(KernelContext &ctx, Args args) {
  const char *op = "_pdist_forward";
  Tensor *in, *out;
  double p;
  PTEC_TRY(selfAndOut(ctx, args, 4, op, in, out));
  PTEC_TRY(argDouble(ctx, args, 1, "p", p));
  PTEC_TRY(requireP(ctx, p, op));
  if (!isFloatDt(in->dtype()) || in->dim() != 2)
    return ctx.fail(Error::InvalidArgument, "%s: expects a 2-D floating input", op);
  const int64_t n = in->size(0), m = in->size(1);
  int64_t count = n > 1 ? n * (n - 1) / 2 : 0;
  PTEC_TRY(resizeOut(ctx, *out, Span<const int64_t>(&count, 1)));
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j)
      storeAs<double>(out->mutableData(), out->dtype(), k++, pnorm(m, p, [&](int64_t c) {
                        return loadAs<double>(in->data(), in->dtype(), i * m + c) -
                               loadAs<double>(in->data(), in->dtype(), j * m + c);
                      }));
  return Error::Ok;
}

} // namespace ptec::rt::portable
