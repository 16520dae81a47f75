// Reductions over a set of dims (sum, mean, prod, var, amax, argmax, any,
// ...): which dims a reduction covers, the reduced shape, the iteration over
// every output element's reduced elements.
#pragma once

#include "runtime/kernels/portable/KernelUtils.h"

namespace ptec::rt::portable {

/// Which dims of `in` a reduction covers. An absent or empty list means all.
struct ReduceDims {
  bool mask[kTensorMaxRank] = {};
};

inline Error parseReduceDims(KernelContext &ctx, const Tensor &in, bool present,
                             const IntList &dims, ReduceDims &rd) {
  rd = ReduceDims{};
  if (!present || dims.size() == 0) {
    for (int i = 0; i < in.dim(); ++i)
      rd.mask[i] = true;
    return Error::Ok;
  }
  for (size_t k = 0; k < dims.size(); ++k) {
    int64_t d;
    PTEC_TRY(normDim(ctx, dims[k], in.dim(), d));
    if (in.dim() == 0)
      continue;
    if (rd.mask[d])
      return ctx.fail(Error::InvalidArgument, "dim %lld appears more than once in the list",
                      static_cast<long long>(d));
    rd.mask[d] = true;
  }
  return Error::Ok;
}

inline Shape reducedShape(const Tensor &in, const ReduceDims &rd, bool keepdim) {
  Shape s;
  for (int i = 0; i < in.dim(); ++i) {
    if (!rd.mask[i])
      s.push(in.size(i));
    else if (keepdim)
      s.push(1);
  }
  return s;
}

/// Calls begin(o), step(o, inIndex) for each reduced element, end(o, count),
/// for every output element o (row-major over the kept dims).
template <typename Begin, typename Step, typename End>
inline void forEachReduction(const Tensor &in, const ReduceDims &rd, Begin &&begin,
                             Step &&step, End &&end) {
  int kept[kTensorMaxRank], red[kTensorMaxRank];
  int nk = 0, nr = 0;
  for (int i = 0; i < in.dim(); ++i)
    (rd.mask[i] ? red[nr++] : kept[nk++]) = i;
  int64_t outN = 1, redN = 1;
  for (int i = 0; i < nk; ++i)
    outN *= in.size(kept[i]);
  for (int i = 0; i < nr; ++i)
    redN *= in.size(red[i]);
  int64_t kstr[kTensorMaxRank], rstr[kTensorMaxRank], rsz[kTensorMaxRank];
  for (int i = 0; i < nk; ++i)
    kstr[i] = in.stride(kept[i]);
  for (int i = 0; i < nr; ++i) {
    rstr[i] = in.stride(red[i]);
    rsz[i] = in.size(red[i]);
  }
  int64_t kc[kTensorMaxRank] = {}, rc[kTensorMaxRank] = {};
  for (int64_t o = 0; o < outN; ++o) {
    int64_t base = 0;
    for (int i = 0; i < nk; ++i)
      base += kc[i] * kstr[i];
    begin(o);
    for (int i = 0; i < nr; ++i)
      rc[i] = 0;
    int64_t off = 0;
    for (int64_t r = 0; r < redN; ++r) {
      step(o, base + off);
      for (int i = nr - 1; i >= 0; --i) {
        ++rc[i];
        off += rstr[i];
        if (rc[i] < rsz[i])
          break;
        off -= rstr[i] * rc[i];
        rc[i] = 0;
      }
    }
    end(o, redN);
    for (int i = nk - 1; i >= 0; --i) {
      if (++kc[i] < in.size(kept[i]))
        break;
      kc[i] = 0;
    }
  }
}

} // namespace ptec::rt::portable
