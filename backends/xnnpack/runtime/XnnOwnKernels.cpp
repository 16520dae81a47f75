//===- XnnOwnKernels.cpp - node kinds this XNNPACK lacks, as plain loops --===//
//
// Single-threaded loops: these kinds are layout moves (concatenate, slice)
// or appear a few times per graph (attention, batch matmul); correctness
// against upstream's results comes first.
//
//===----------------------------------------------------------------------===//

#include "backends/xnnpack/runtime/XnnOwnKernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace ptec::xnnpack {

using rt::Error;
namespace fb = fb_xnnpack;
using Kind = fb::XNodeUnion;

float ownUnary(Kind kind, float x) {
  switch (kind) {
  case Kind::XNNTanh: return std::tanh(x);
  case Kind::XNNGelu: return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
  case Kind::XNNExp: return std::exp(x);
  case Kind::XNNLog: return std::log(x);
  case Kind::XNNSin: return std::sin(x);
  case Kind::XNNCos: return std::cos(x);
  case Kind::XNNReciprocalSquareRoot: return 1.0f / std::sqrt(x);
  default: return x;
  }
}

namespace {

void concat(const fb::XNode *node, const OwnOperand *in, size_t numIn, float *out,
            const Dims &outDims) {
  const size_t rank = outDims.size();
  int64_t axis = static_cast<int32_t>(static_cast<const fb::_XNNCat *>(node->xnode_union())->axis());
  if (axis < 0)
    axis += int64_t(rank);
  uint64_t outer = 1;
  for (int64_t k = 0; k < axis; ++k)
    outer *= outDims[size_t(k)];
  std::vector<uint64_t> inner(numIn, 1);
  uint64_t rowOut = 0;
  for (size_t i = 0; i < numIn; ++i) {
    for (size_t k = size_t(axis); k < rank; ++k)
      inner[i] *= (*in[i].dims)[k];
    rowOut += inner[i];
  }
  for (uint64_t o = 0; o < outer; ++o) {
    float *dst = out + o * rowOut;
    for (size_t i = 0; i < numIn; ++i) {
      if (inner[i] != 0)
        std::memcpy(dst, in[i].data + o * inner[i], inner[i] * sizeof(float));
      dst += inner[i];
    }
  }
}

void slice(const fb::XNode *node, const OwnOperand &x, float *out, const Dims &outDims) {
  const auto *s = static_cast<const fb::XNNStaticSlice *>(node->xnode_union());
  const Dims &inDims = *x.dims;
  const size_t rank = inDims.size();
  if (numelOf(outDims) == 0)
    return;
  uint64_t stride[kMaxDims];
  uint64_t acc = 1;
  for (size_t k = rank; k-- > 0;) {
    stride[k] = acc;
    acc *= inDims[k];
  }
  uint64_t base = 0;
  for (size_t k = 0; k < rank; ++k)
    base += uint64_t(s->offsets()->Get(uint32_t(k))) * stride[k];
  // Odometer over every dim but the last, which is one contiguous run.
  const uint64_t run = outDims[rank - 1], rows = numelOf(outDims) / run;
  uint64_t idx[kMaxDims] = {};
  uint64_t src = base;
  for (uint64_t r = 0; r < rows; ++r) {
    std::memcpy(out + r * run, x.data + src, run * sizeof(float));
    for (size_t k = rank - 1; k-- > 0;) {
      src += stride[k];
      if (++idx[k] < outDims[k])
        break;
      src -= stride[k] * outDims[k];
      idx[k] = 0;
    }
  }
}

/// Offset (in matrices) of the operand of dims `d` (batch part padded on the
/// left to `batchDims`) for output batch multi-index `oi`.
uint64_t batchOffset(const Dims &d, size_t batchDims, const uint64_t *outBatch,
                     const uint64_t *oi) {
  const size_t pad = batchDims - (d.size() - 2);
  uint64_t off = 0;
  for (size_t i = 0; i < batchDims; ++i) {
    const uint64_t dim = i < pad ? 1 : d[i - pad];
    off = off * dim + oi[i] / (outBatch[i] / dim);
  }
  return off;
}

void bmm(const fb::XNode *node, const OwnOperand &a, const OwnOperand &b, float *out,
         const Dims &outDims) {
  const bool transB =
      (static_cast<const fb::_XNNNode2x1 *>(node->xnode_union())->flags() & 1u) != 0;
  const Dims &ad = *a.dims, &bd = *b.dims;
  const size_t rank = outDims.size(), batchDims = rank - 2;
  const uint64_t m = ad[ad.size() - 2], k = ad.back(), n = outDims.back();
  uint64_t batches = 1;
  for (size_t i = 0; i < batchDims; ++i)
    batches *= outDims[i];
  uint64_t oi[kMaxDims] = {};
  std::vector<float> row(n);
  for (uint64_t bi = 0; bi < batches; ++bi) {
    const float *A = a.data + batchOffset(ad, batchDims, outDims.data(), oi) * m * k;
    const float *B = b.data + batchOffset(bd, batchDims, outDims.data(), oi) * k * n;
    float *C = out + bi * m * n;
    for (uint64_t r = 0; r < m; ++r) {
      std::fill(row.begin(), row.end(), 0.0f);
      for (uint64_t kk = 0; kk < k; ++kk) {
        const float av = A[r * k + kk];
        if (transB)
          for (uint64_t j = 0; j < n; ++j)
            row[j] += av * B[j * k + kk];
        else
          for (uint64_t j = 0; j < n; ++j)
            row[j] += av * B[kk * n + j];
      }
      std::copy(row.begin(), row.end(), C + r * n);
    }
    for (size_t i = batchDims; i-- > 0;) {
      if (++oi[i] < outDims[i])
        break;
      oi[i] = 0;
    }
  }
}

void sdpa(const OwnOperand *in, size_t numIn, float *out, const Dims &outDims) {
  const Dims &q = *in[0].dims, &kd = *in[1].dims, &vd = *in[2].dims;
  const size_t r = q.size();
  const bool multiQuery = kd.size() == r - 1;
  const uint64_t heads = q[r - 3], T = q[r - 2], C = q[r - 1];
  const uint64_t U = kd[kd.size() - 2], D = vd.back();
  uint64_t batch = 1;
  for (size_t i = 0; i + 3 < r; ++i)
    batch *= q[i];
  const float *scale = in[3].data;
  const float *mask = numIn > 4 ? in[4].data : nullptr;
  std::vector<float> qs(C), p(U);
  for (uint64_t b = 0; b < batch; ++b)
    for (uint64_t h = 0; h < heads; ++h) {
      const uint64_t kvHead = multiQuery ? b : b * heads + h;
      const float *Q = in[0].data + (b * heads + h) * T * C;
      const float *K = in[1].data + kvHead * U * C;
      const float *V = in[2].data + kvHead * U * D;
      float *O = out + (b * heads + h) * T * D;
      for (uint64_t t = 0; t < T; ++t) {
        for (uint64_t c = 0; c < C; ++c)
          qs[c] = Q[t * C + c] * scale[c];
        float hi = -std::numeric_limits<float>::infinity();
        for (uint64_t u = 0; u < U; ++u) {
          float acc = 0.0f;
          for (uint64_t c = 0; c < C; ++c)
            acc += qs[c] * K[u * C + c];
          if (mask)
            acc += mask[t * U + u];
          p[u] = acc;
          hi = std::max(hi, acc);
        }
        float sum = 0.0f;
        for (uint64_t u = 0; u < U; ++u) {
          p[u] = std::exp(p[u] - hi);
          sum += p[u];
        }
        const float inv = 1.0f / sum;
        for (uint64_t d = 0; d < D; ++d) {
          float acc = 0.0f;
          for (uint64_t u = 0; u < U; ++u)
            acc += p[u] * V[u * D + d];
          O[t * D + d] = acc * inv;
        }
      }
    }
  (void)outDims;
}

} // namespace

Error runOwnKernel(const fb::XNode *node, const OwnOperand *in, size_t numIn, float *out,
                   const Dims &outDims) {
  const Kind kind = node->xnode_union_type();
  switch (kind) {
  case Kind::XNNTanh: case Kind::XNNGelu: case Kind::XNNExp: case Kind::XNNLog:
  case Kind::XNNSin: case Kind::XNNReciprocalSquareRoot: case Kind::XNNCos: {
    const uint64_t n = numelOf(outDims);
    const float *x = in[0].data;
    for (uint64_t i = 0; i < n; ++i)
      out[i] = ownUnary(kind, x[i]);
    return Error::Ok;
  }
  case Kind::XNNConcatenate2: case Kind::XNNConcatenate3: case Kind::XNNConcatenate4:
  case Kind::XNNConcatenate5:
    concat(node, in, numIn, out, outDims);
    return Error::Ok;
  case Kind::XNNStaticSlice:
    slice(node, in[0], out, outDims);
    return Error::Ok;
  case Kind::XNNBatchMatrixMultiply:
    bmm(node, in[0], in[1], out, outDims);
    return Error::Ok;
  case Kind::XNNScaledDotProductAttention:
    sdpa(in, numIn, out, outDims);
    return Error::Ok;
  default:
    return Error::NotSupported;
  }
}

} // namespace ptec::xnnpack
