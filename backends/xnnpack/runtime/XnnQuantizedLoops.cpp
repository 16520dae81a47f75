//===- XnnQuantizedLoops.cpp - own int8 loops of XnnpackBackend -----------===//

#include "backends/xnnpack/runtime/XnnQuantizedLoops.h"

#include "backends/xnnpack/format/XnnQuant.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ptec::xnnpack {

namespace fb = fb_xnnpack;

void requantizeInPlace(const QuantStep &q, const int8_t *in, int8_t *out, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const float real = float(int32_t(in[i]) - q.inZeroPoint) * q.inScale;
    out[i] = quantizeS8(real, q.outScale, q.outZeroPoint, q.lo, q.hi);
  }
}

/// XNNPACK's average pooling over the valid (unpadded) part of each window.
void avgPool(const QuantStep &q, const Step &s, const int8_t *in, int8_t *out) {
  const size_t C = q.channels;
  for (size_t n = 0; n < s.batch; ++n)
    for (size_t oy = 0; oy < q.outH; ++oy)
      for (size_t ox = 0; ox < q.outW; ++ox)
        for (size_t c = 0; c < C; ++c) {
          int64_t sum = 0;
          int32_t count = 0;
          for (uint32_t ky = 0; ky < q.poolH; ++ky) {
            const int64_t iy = int64_t(oy * q.strideH + ky) - q.padTop;
            if (iy < 0 || iy >= int64_t(s.height))
              continue;
            for (uint32_t kx = 0; kx < q.poolW; ++kx) {
              const int64_t ix = int64_t(ox * q.strideW + kx) - q.padLeft;
              if (ix < 0 || ix >= int64_t(s.width))
                continue;
              sum += in[((n * s.height + size_t(iy)) * s.width + size_t(ix)) * C + c] -
                     q.inZeroPoint;
              ++count;
            }
          }
          const float real = count ? float(sum) * q.inScale / float(count) : 0.0f;
          out[((n * q.outH + oy) * q.outW + ox) * C + c] =
              quantizeS8(real, q.outScale, q.outZeroPoint, q.lo, q.hi);
        }
}

void globalAvgPool(const QuantStep &q, const Step &s, const int8_t *in, int8_t *out) {
  const size_t C = q.channels, n = s.width;
  const float scale = (q.inScale / q.outScale) * (1.0f / float(n));
  for (size_t b = 0; b < s.batch; ++b)
    for (size_t c = 0; c < C; ++c) {
      int32_t acc = 0;
      for (size_t i = 0; i < n; ++i)
        acc += in[(b * n + i) * C + c];
      acc -= int32_t(n) * q.inZeroPoint;
      // The output zero point is added before rounding, as newer XNNPACK's
      // mean does (its float -> int8 convert); 2022's global average
      // pooling adds it after, which rounds ties the other way for odd
      // zero points.
      float v = float(acc) * scale + float(q.outZeroPoint);
      v = std::fmin(std::fmax(v, float(q.lo)), float(q.hi));
      out[b * C + c] = int8_t(std::lrintf(v));
    }
}

void sliceBytes(const QuantStep &q, const Step &s, const uint8_t *in, uint8_t *out) {
  const size_t rank = s.rank0;
  size_t inStride[kMaxDims], idx[kMaxDims] = {};
  size_t total = 1;
  for (size_t k = rank; k-- > 0;) {
    inStride[k] = total;
    total *= s.shape0[k];
  }
  size_t outTotal = 1;
  for (size_t k = 0; k < rank; ++k)
    outTotal *= q.sizes[k];
  if (outTotal == 0)
    return;
  const size_t run = q.sizes[rank - 1];
  for (size_t o = 0; o < outTotal; o += run) {
    size_t base = q.offsets[rank - 1];
    for (size_t k = 0; k + 1 < rank; ++k)
      base += (q.offsets[k] + idx[k]) * inStride[k];
    std::memcpy(out + o, in + base, run);
    for (size_t k = rank - 1; k-- > 0;) {
      if (++idx[k] < q.sizes[k])
        break;
      idx[k] = 0;
    }
  }
}

/// y = quantize(deq(a) op deq(b)) with numpy broadcasting (shapes right-
/// aligned, rank <= 6).
void binaryLoop(const QuantStep &q, const Step &s, const int8_t *a, const int8_t *b,
                int8_t *y) {
  const size_t rank = std::max(s.rank0, s.rank1);
  size_t dims[kMaxDims], sa[kMaxDims], sb[kMaxDims], idx[kMaxDims] = {};
  size_t ta = 1, tb = 1, total = 1;
  for (size_t k = rank; k-- > 0;) {
    const size_t da = k + s.rank0 >= rank ? s.shape0[k + s.rank0 - rank] : 1;
    const size_t db = k + s.rank1 >= rank ? s.shape1[k + s.rank1 - rank] : 1;
    dims[k] = std::max(da, db);
    sa[k] = da == 1 ? 0 : ta;
    sb[k] = db == 1 ? 0 : tb;
    ta *= da, tb *= db, total *= dims[k];
  }
  size_t ia = 0, ib = 0;
  for (size_t o = 0; o < total; ++o) {
    const float ra = float(int32_t(a[ia]) - q.inZeroPoint) * q.inScale;
    const float rb = float(int32_t(b[ib]) - q.in2ZeroPoint) * q.in2Scale;
    const float r = s.kind == fb::XNodeUnion::XNNAdd        ? ra + rb
                    : s.kind == fb::XNodeUnion::XNNSubtract ? ra - rb
                                                            : ra * rb;
    y[o] = quantizeS8(r, q.outScale, q.outZeroPoint, q.lo, q.hi);
    for (size_t k = rank; k-- > 0;) {
      ia += sa[k], ib += sb[k];
      if (++idx[k] < dims[k])
        break;
      ia -= sa[k] * dims[k], ib -= sb[k] * dims[k];
      idx[k] = 0;
    }
  }
}

/// XNNPACK's per-row parameters of dynamic quantization (asymmetric, from
/// the row's min and max widened to include 0): the quantize multiplier, the
/// dequantize scale and the zero point.
void dynamicParams(float lo, float hi, float *multiplier, float *scale, int32_t *zeroPoint) {
  const float qmin = -128.0f, qmax = 127.0f;
  const float rmin = std::fmin(0.0f, lo), rmax = std::fmax(0.0f, hi);
  const float m = rmin == rmax ? 1.0f : (qmax - qmin) / (rmax - rmin);
  const float dmin = rmin * m, dmax = rmax * m;
  float zp = (qmin + dmin) + (qmax + dmax) > 0 ? qmin - dmin : qmax - dmax;
  zp = std::fmin(std::fmax(zp, qmin), qmax);
  *zeroPoint = int32_t(std::lrintf(zp));
  *scale = 1.0f / m;
  *multiplier = 1.0f / *scale; // what XNNPACK's convert kernel is given
}

void quantizeRows(const QuantStep &q, const float *in, int8_t *out) {
  uint8_t *params = reinterpret_cast<uint8_t *>(out) + q.rows * q.depth;
  for (size_t r = 0; r < q.rows; ++r) {
    const float *x = in + r * q.depth;
    float lo = q.depth ? x[0] : 0.0f, hi = lo;
    for (size_t k = 1; k < q.depth; ++k)
      lo = std::fmin(lo, x[k]), hi = std::fmax(hi, x[k]);
    float multiplier = 1.0f, scale = 1.0f;
    int32_t zp = 0;
    dynamicParams(lo, hi, &multiplier, &scale, &zp);
    for (size_t k = 0; k < q.depth; ++k) {
      float v = x[k] * multiplier;
      v = std::fmin(std::fmax(v, float(-128 - zp)), float(127 - zp));
      out[r * q.depth + k] = int8_t(std::lrintf(v) + zp);
    }
    std::memcpy(params + r * 8, &scale, 4);
    std::memcpy(params + r * 8 + 4, &zp, 4);
  }
}

void dynamicFullyConnected(const QuantStep &q, const int8_t *in, float *out) {
  const uint8_t *params = reinterpret_cast<const uint8_t *>(in) + q.rows * q.depth;
  for (size_t r = 0; r < q.rows; ++r) {
    float scale;
    int32_t zp;
    std::memcpy(&scale, params + r * 8, 4);
    std::memcpy(&zp, params + r * 8 + 4, 4);
    const int8_t *x = in + r * q.depth;
    for (size_t n = 0; n < q.outputs; ++n) {
      const int8_t *w = q.weights.data() + n * q.depth;
      int32_t acc = 0;
      for (size_t k = 0; k < q.depth; ++k)
        acc += (int32_t(x[k]) - zp) * int32_t(w[k]);
      float v = float(acc) * scale;
      v = v * q.weightScales[n] + (q.bias.empty() ? 0.0f : q.bias[n]);
      out[r * q.outputs + n] = std::fmin(std::fmax(v, q.flo), q.fhi);
    }
  }
}

} // namespace ptec::xnnpack
