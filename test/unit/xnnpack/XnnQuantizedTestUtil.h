// Helpers of the int8 (and float16) runtime tests: tensors over owned
// storage, a backend harness, random int8 data and the naive integer
// reference of convolution / fully connected (integer accumulation, then
// requantization: round to nearest even of acc * (input scale * weight
// scale / output scale) + zero point, clamped).
#pragma once

#include "backends/xnnpack/format/XnnGraphWriter.h"
#include "backends/xnnpack/format/XnnQuant.h"
#include "backends/xnnpack/runtime/XnnpackBackend.h"
#include "test/unit/xnnpack/XnnRuntimeTestUtil.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace ptec::xnnpack::test {

using rt::Error;
namespace fb = fb_xnnpack;
using Kind = fb::XNodeUnion;
using DT = fb::XNNDatatype;

inline constexpr DT kQ8 = DT::xnn_datatype_qint8, kQC8 = DT::xnn_datatype_qcint8,
             kQ32 = DT::xnn_datatype_qint32, kQC32 = DT::xnn_datatype_qcint32;

inline std::vector<int8_t> int8s(size_t n, unsigned seed, int lo = -128, int hi = 127) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int8_t> v(n);
  for (int8_t &x : v)
    x = int8_t(d(g));
  return v;
}

inline std::vector<int32_t> int32s(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int32_t> d(-2000, 2000);
  std::vector<int32_t> v(n);
  for (int32_t &x : v)
    x = d(g);
  return v;
}

/// A tensor over caller-owned int8 or float data.
struct Buf {
  Buf(std::vector<int64_t> shape, rt::ScalarType dtype) {
    size_t n = 1;
    for (int64_t d : shape)
      n *= size_t(d);
    const size_t bytes = n * (dtype == rt::ScalarType::Float  ? 4
                              : dtype == rt::ScalarType::Half ? 2
                                                              : 1);
    storage.assign(bytes + 16, 0);
    REQUIRE(t.init(dtype, rt::Span<const int64_t>(shape.data(), shape.size())) == Error::Ok);
    t.setData(storage.data(), bytes);
    ev = rt::EValue::fromTensor(&t);
  }
  static Buf i8(std::vector<int64_t> shape, const std::vector<int8_t> &v = {}) {
    Buf b(std::move(shape), rt::ScalarType::Char);
    if (!v.empty())
      std::memcpy(b.storage.data(), v.data(), v.size());
    return b;
  }
  static Buf f32(std::vector<int64_t> shape, const std::vector<float> &v = {}) {
    Buf b(std::move(shape), rt::ScalarType::Float);
    if (!v.empty())
      std::memcpy(b.storage.data(), v.data(), v.size() * 4);
    return b;
  }
  std::vector<int8_t> ints() const {
    return std::vector<int8_t>(reinterpret_cast<const int8_t *>(storage.data()),
                               reinterpret_cast<const int8_t *>(storage.data()) + t.numel());
  }
  std::vector<float> floats() const {
    std::vector<float> v(size_t(t.numel()));
    std::memcpy(v.data(), storage.data(), v.size() * 4);
    return v;
  }
  std::vector<uint8_t> storage;
  rt::Tensor t;
  rt::EValue ev;
};

using Harness = BackendHarness<Buf>;

/// Requantizes an int32 accumulator with one float multiplier, as XNNPACK's
/// fp32 requantization does.
inline int8_t requant(int64_t acc, float multiplier, int32_t zp, int8_t lo = -128, int8_t hi = 127) {
  float q = float(acc) * multiplier;
  q = std::fmin(std::fmax(q, float(lo - zp)), float(hi - zp));
  return int8_t(std::lrintf(q) + zp);
}

inline int maxStepDiff(const std::vector<int8_t> &got, const std::vector<int8_t> &want) {
  REQUIRE(got.size() == want.size());
  int worst = 0;
  for (size_t i = 0; i < got.size(); ++i)
    worst = std::max(worst, std::abs(int(got[i]) - int(want[i])));
  return worst;
}

/// Per-tensor quantization of an activation.
struct Q {
  float scale;
  int32_t zp;
};

/// One int8 tensor of a test graph: its dims, quantization and, for an
/// input, its values.
struct Int8Tensor {
  std::vector<uint64_t> dims;
  Q q;
  std::vector<int8_t> values = {};
};

/// Builds a graph over the int8 `inputs` (externals 0.., in order) and the
/// int8 `output` (the next external), with the nodes `addNodes(g, ids)` adds
/// (ids: the inputs', then the output's value), runs it once in a fresh
/// harness and returns the output's values.
template <typename AddNodes>
std::vector<int8_t> runInt8Graph(const std::vector<Int8Tensor> &inputs, const Int8Tensor &output,
                                 AddNodes addNodes) {
  std::vector<const Int8Tensor *> all;
  for (const Int8Tensor &t : inputs)
    all.push_back(&t);
  all.push_back(&output);
  GraphWriter g;
  std::vector<uint32_t> ids;
  for (const Int8Tensor *t : all)
    ids.push_back(g.addQuantizedValue(t->dims, kQ8, t->q.scale, t->q.zp));
  for (uint32_t i = 0; i < ids.size(); ++i)
    g.setExternal(ids[i], i, i < inputs.size() ? kFlagExternalInput : kFlagExternalOutput);
  addNodes(g, ids);
  Harness hs;
  void *h = hs.init(g.finish());
  // Buf points into itself: kept in place, never moved.
  std::vector<std::unique_ptr<Buf>> bufs;
  std::vector<Buf *> args;
  for (const Int8Tensor *t : all) {
    bufs.push_back(std::make_unique<Buf>(std::vector<int64_t>(t->dims.begin(), t->dims.end()),
                                         rt::ScalarType::Char));
    std::copy(t->values.begin(), t->values.end(),
              reinterpret_cast<int8_t *>(bufs.back()->storage.data()));
    args.push_back(bufs.back().get());
  }
  REQUIRE(hs.run(h, args) == Error::Ok);
  return args.back()->ints();
}

/// A conv / depthwise / FC test case: NHWC input, filter [O, KH, KW, I]
/// (depthwise: [1, KH, KW, O]), int32 bias, per-tensor or per-channel.
struct ConvCase {
  uint64_t n = 1, h = 6, w = 6, cin = 3, cout = 4, k = 3, stride = 1, pad = 1;
  bool depthwise = false, perChannel = false, relu = false;
  Q in{0.05f, 3}, out{0.1f, -5};
  std::vector<float> wScales;
  std::vector<int8_t> weights;
  std::vector<int32_t> bias;
  uint64_t oh() const { return (h + 2 * pad - k) / stride + 1; }
  uint64_t ow() const { return (w + 2 * pad - k) / stride + 1; }
  float wScale(uint64_t o) const { return perChannel ? wScales[o] : wScales[0]; }
};

inline void fillCase(ConvCase &c, unsigned seed) {
  const uint64_t perOut = c.depthwise ? c.k * c.k : c.k * c.k * c.cin;
  c.weights = int8s(perOut * c.cout, seed, -127, 127);
  c.bias = int32s(c.cout, seed + 1);
  c.wScales.clear();
  for (uint64_t o = 0; o < (c.perChannel ? c.cout : 1); ++o)
    c.wScales.push_back(0.002f * float(1 + (o * 7 + seed) % 5));
}

inline std::vector<int8_t> convRef(const ConvCase &c, const std::vector<int8_t> &x) {
  std::vector<int8_t> y(c.n * c.oh() * c.ow() * c.cout);
  int8_t lo = -128, hi = 127;
  if (c.relu)
    quantizedBounds(0.0f, INFINITY, c.out.scale, c.out.zp, &lo, &hi);
  for (uint64_t b = 0; b < c.n; ++b)
    for (uint64_t oy = 0; oy < c.oh(); ++oy)
      for (uint64_t ox = 0; ox < c.ow(); ++ox)
        for (uint64_t o = 0; o < c.cout; ++o) {
          int64_t acc = c.bias[o];
          for (uint64_t ky = 0; ky < c.k; ++ky)
            for (uint64_t kx = 0; kx < c.k; ++kx) {
              const int64_t iy = int64_t(oy * c.stride + ky) - int64_t(c.pad);
              const int64_t ix = int64_t(ox * c.stride + kx) - int64_t(c.pad);
              if (iy < 0 || ix < 0 || iy >= int64_t(c.h) || ix >= int64_t(c.w))
                continue;
              const int8_t *px = &x[((b * c.h + uint64_t(iy)) * c.w + uint64_t(ix)) * c.cin];
              if (c.depthwise) {
                acc += int64_t(px[o] - c.in.zp) * c.weights[(ky * c.k + kx) * c.cout + o];
              } else {
                for (uint64_t i = 0; i < c.cin; ++i)
                  acc += int64_t(px[i] - c.in.zp) *
                         c.weights[((o * c.k + ky) * c.k + kx) * c.cin + i];
              }
            }
          y[((b * c.oh() + oy) * c.ow() + ox) * c.cout + o] =
              requant(acc, c.in.scale * c.wScale(o) / c.out.scale, c.out.zp, lo, hi);
        }
  return y;
}

/// Adds the filter and bias values of `c` to `g`.
inline void addWeights(GraphWriter &g, const ConvCase &c, const std::vector<uint64_t> &wDims,
                int32_t channelDim, uint32_t *w, uint32_t *b) {
  const uint32_t wc = g.addConstant(c.weights.data(), c.weights.size());
  const uint32_t bc = g.addConstant(c.bias.data(), c.bias.size() * 4);
  if (c.perChannel) {
    std::vector<float> biasScales;
    for (uint64_t o = 0; o < c.cout; ++o)
      biasScales.push_back(c.in.scale * c.wScales[o]);
    *w = g.addPerChannelQuantizedValue(wDims, kQC8, c.wScales, channelDim, wc);
    *b = g.addPerChannelQuantizedValue({c.cout}, kQC32, biasScales, 0, bc);
  } else {
    *w = g.addQuantizedValue(wDims, kQ8, c.wScales[0], 0, wc);
    *b = g.addQuantizedValue({c.cout}, kQ32, c.in.scale * c.wScales[0], 0, bc);
  }
}

inline std::string convBlob(const ConvCase &c) {
  GraphWriter g;
  const uint32_t x = g.addQuantizedValue({c.n, c.h, c.w, c.cin}, kQ8, c.in.scale, c.in.zp);
  const uint32_t y =
      g.addQuantizedValue({c.n, c.oh(), c.ow(), c.cout}, kQ8, c.out.scale, c.out.zp);
  g.setExternal(x, 0, kFlagExternalInput);
  g.setExternal(y, 1, kFlagExternalOutput);
  uint32_t w = 0, b = 0;
  if (c.depthwise)
    addWeights(g, c, {1, c.k, c.k, c.cout}, 3, &w, &b);
  else
    addWeights(g, c, {c.cout, c.k, c.k, c.cin}, 0, &w, &b);
  ConvParams p;
  p.padTop = p.padBottom = p.padLeft = p.padRight = uint32_t(c.pad);
  p.kernelH = p.kernelW = uint32_t(c.k);
  p.strideH = p.strideW = uint32_t(c.stride);
  if (c.depthwise)
    p.groups = uint32_t(c.cin), p.groupInputChannels = 1, p.groupOutputChannels = 1;
  else
    p.groupInputChannels = uint32_t(c.cin), p.groupOutputChannels = uint32_t(c.cout);
  OutputClamp clamp;
  if (c.relu)
    clamp.lo = 0.0f;
  g.addConv(c.depthwise ? Kind::XNNDepthwiseConv2d : Kind::XNNConv2d, p, x, w, b, y, clamp);
  return g.finish();
}

/// float [rows, k] -> qdint8 (a scale and zero point per row) -> fully
/// connected with int8 weights `w` [n, k] (per-channel scales) and a float
/// bias -> float [rows, n].
inline std::string dynamicFullyConnectedBlob(uint64_t rows, uint64_t k, uint64_t n,
                                             const std::vector<int8_t> &w,
                                             const std::vector<float> &wScales,
                                             const std::vector<float> &bias,
                                             OutputClamp clamp = {}) {
  GraphWriter g;
  const uint32_t x = g.addValue({rows, k}), xq = g.addDynamicQuantizedValue({rows, k}, 1);
  const uint32_t wv =
      g.addPerChannelQuantizedValue({n, k}, kQC8, wScales, 0, g.addConstant(w.data(), w.size()));
  const uint32_t bv = g.addConstantValue({n}, bias.data());
  const uint32_t y = g.addValue({rows, n});
  g.setExternal(x, 0, kFlagExternalInput);
  g.setExternal(y, 1, kFlagExternalOutput);
  g.addUnary(Kind::XNNConvert, x, xq);
  g.addFullyConnected(xq, wv, bv, y, 0, clamp);
  return g.finish();
}

/// Runs handle `h` (a convolution blob of `c`) on NHWC input `xs`; the
/// largest step between its output and convRef's.
inline int convStepDiff(Harness &hs, void *h, const ConvCase &c, const std::vector<int8_t> &xs) {
  Buf x = Buf::i8({int64_t(c.n), int64_t(c.h), int64_t(c.w), int64_t(c.cin)}, xs);
  Buf y = Buf::i8({int64_t(c.n), int64_t(c.oh()), int64_t(c.ow()), int64_t(c.cout)});
  REQUIRE(hs.run(h, {&x, &y}) == Error::Ok);
  return maxStepDiff(y.ints(), convRef(c, xs));
}

inline int runConv(const ConvCase &c, unsigned seed) {
  Harness hs;
  void *h = hs.init(convBlob(c));
  return convStepDiff(hs, h, c, int8s(c.n * c.h * c.w * c.cin, seed));
}

/// A fully connected node of 5 rows, 12 in and 7 out, as the 1x1
/// convolution convRef computes.
inline ConvCase fullyConnectedCase(bool perChannel, unsigned seed) {
  ConvCase c;
  c.h = 1, c.w = 5, c.cin = 12, c.cout = 7, c.k = 1, c.pad = 0, c.perChannel = perChannel;
  fillCase(c, seed);
  return c;
}

} // namespace ptec::xnnpack::test
