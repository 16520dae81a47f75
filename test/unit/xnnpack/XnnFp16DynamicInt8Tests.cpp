// float16 graphs and int8 graphs at a call's own sizes on the runtime half
// of XnnpackBackend. float16 values are computed in float32 and each node's
// float16 result is rounded to float16, as upstream's float16 storage does
// between nodes; the references here compute the same way in double and
// round at the same places. int8 steps called below the blob's bound are
// checked against the naive integer reference of XnnQuantizedTestUtil.h.
#include "test/unit/xnnpack/XnnQuantizedTestUtil.h"
#include "runtime/core/Half.h"

#include <catch2/catch.hpp>

#include <tuple>

using namespace ptec;
using namespace ptec::xnnpack;
using namespace ptec::xnnpack::test;

namespace {

constexpr DT kF16 = DT::xnn_datatype_fp16;

float toHalf(float v) { return rt::halfToFloat(rt::floatToHalf(v)); }

std::vector<uint16_t> halves(const std::vector<float> &v) {
  std::vector<uint16_t> h;
  for (float x : v)
    h.push_back(rt::floatToHalf(x));
  return h;
}

Buf f16(std::vector<int64_t> shape, const std::vector<float> &v = {}) {
  Buf b(std::move(shape), rt::ScalarType::Half);
  const std::vector<uint16_t> h = halves(v);
  if (!h.empty())
    std::memcpy(b.storage.data(), h.data(), h.size() * 2);
  return b;
}

std::vector<float> floatsOfHalf(const Buf &b) {
  std::vector<float> v(size_t(b.t.numel()));
  for (size_t i = 0; i < v.size(); ++i) {
    uint16_t h;
    std::memcpy(&h, b.storage.data() + 2 * i, 2);
    v[i] = rt::halfToFloat(h);
  }
  return v;
}

uint32_t halfConstant(GraphWriter &g, const std::vector<uint64_t> &dims,
                      const std::vector<float> &v) {
  const std::vector<uint16_t> h = halves(v);
  return g.addFloatValue(dims, kF16, g.addConstant(h.data(), h.size() * 2));
}

std::vector<float> wave(size_t n, float a, float b) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = toHalf(std::sin(a * float(i) + b));
  return v;
}

} // namespace

TEST_CASE("float16 fully connected + relu + add, at the bound and below", "[xnnpack][fp16]") {
  const uint64_t m = 4, k = 6, n = 5;
  const std::vector<float> w = wave(n * k, 0.7f, 0.2f), bias = wave(n, 1.3f, 0.5f),
                           c = wave(n, 0.4f, 1.0f);
  GraphWriter g;
  const uint32_t x = g.addFloatValue({m, k}, kF16), h = g.addFloatValue({m, n}, kF16),
                 y = g.addFloatValue({m, n}, kF16);
  const uint32_t wv = halfConstant(g, {n, k}, w), bv = halfConstant(g, {n}, bias),
                 cv = halfConstant(g, {n}, c);
  g.setExternal(x, 0, kFlagExternalInput);
  g.setExternal(y, 1, kFlagExternalOutput);
  g.addFullyConnected(x, wv, bv, h, 0, OutputClamp{0.0f, INFINITY});
  g.addBinary(Kind::XNNAdd, h, cv, y);
  Harness hs;
  void *hd = hs.init(g.finish());
  for (uint64_t rows : {m, uint64_t(2)}) {
    const std::vector<float> xs = wave(rows * k, 0.9f, 0.1f);
    Buf in = f16({int64_t(rows), int64_t(k)}, xs), out = f16({int64_t(rows), int64_t(n)});
    REQUIRE(hs.run(hd, {&in, &out}) == Error::Ok);
    const std::vector<float> got = floatsOfHalf(out);
    for (uint64_t r = 0; r < rows; ++r)
      for (uint64_t j = 0; j < n; ++j) {
        double acc = bias[j];
        for (uint64_t i = 0; i < k; ++i)
          acc += double(xs[r * k + i]) * w[j * k + i];
        const float want = toHalf(toHalf(std::max(float(acc), 0.0f)) + c[j]);
        INFO("rows " << rows << " at " << r << ", " << j);
        // float32 accumulation may land one float16 step from the double's.
        CHECK(std::fabs(got[r * n + j] - want) <= std::ldexp(1.0f, -10) * 2.0f);
      }
  }
  // A float32 tensor for a float16 value is refused.
  Buf wrong = Buf::f32({int64_t(m), int64_t(k)}), out = f16({int64_t(m), int64_t(n)});
  CHECK(hs.run(hd, {&wrong, &out}) == Error::InvalidArgument);
}

TEST_CASE("float16 results are rounded after every node", "[xnnpack][fp16]") {
  // 1 + a rounds back to 1 in float16 (a is below half a step at 1), so
  // (1 + a) + a is 1 too; without rounding between the nodes 1 + 2a would
  // round up to the next float16 value.
  const float a = 3.0f * std::ldexp(1.0f, -13);
  GraphWriter g;
  const uint32_t x = g.addFloatValue({3}, kF16), t = g.addFloatValue({3}, kF16),
                 y = g.addFloatValue({3}, kF16), av = halfConstant(g, {1}, {a});
  g.setExternal(x, 0, kFlagExternalInput);
  g.setExternal(y, 1, kFlagExternalOutput);
  g.addBinary(Kind::XNNAdd, x, av, t);
  g.addBinary(Kind::XNNAdd, t, av, y);
  Harness hs;
  void *h = hs.init(g.finish());
  Buf in = f16({3}, {1.0f, -2.0f, 0.5f}), out = f16({3});
  REQUIRE(hs.run(h, {&in, &out}) == Error::Ok);
  const std::vector<float> got = floatsOfHalf(out);
  CHECK(got[0] == 1.0f);
  CHECK(got[1] == toHalf(toHalf(-2.0f + a) + a));
  CHECK(got[2] == toHalf(toHalf(0.5f + a) + a));
}

TEST_CASE("int8 convolution below the blob's bound", "[xnnpack][int8][dynamic]") {
  for (bool perChannel : {false, true}) {
    ConvCase bound;
    bound.n = 2, bound.h = 6, bound.w = 7, bound.perChannel = perChannel;
    fillCase(bound, perChannel ? 31 : 32);
    Harness hs;
    void *h = hs.init(convBlob(bound));
    for (auto [n, hh, ww] : {std::tuple<uint64_t, uint64_t, uint64_t>{1, 4, 5}, {2, 6, 7}, {1, 6, 3}}) {
      ConvCase c = bound;
      c.n = n, c.h = hh, c.w = ww;
      const std::vector<int8_t> xs = int8s(c.n * c.h * c.w * c.cin, unsigned(n * 100 + ww));
      INFO("per-channel " << perChannel << " input " << n << "x" << hh << "x" << ww);
      CHECK(convStepDiff(hs, h, c, xs) <= 1);
    }
  }
}

TEST_CASE("int8 fully connected, float at the edges, below the bound", "[xnnpack][int8][dynamic]") {
  // float -> int8 -> fully connected (per-tensor, then per-channel weights,
  // which run as a 1x1 convolution) -> float.
  for (bool perChannel : {false, true}) {
    ConvCase c = fullyConnectedCase(perChannel, perChannel ? 41 : 42);
    GraphWriter g;
    const uint32_t xf = g.addValue({5, 12}), yf = g.addValue({5, 7});
    const uint32_t x = g.addQuantizedValue({5, 12}, kQ8, c.in.scale, c.in.zp);
    const uint32_t y = g.addQuantizedValue({5, 7}, kQ8, c.out.scale, c.out.zp);
    g.setExternal(xf, 0, kFlagExternalInput);
    g.setExternal(yf, 1, kFlagExternalOutput);
    uint32_t w = 0, b = 0;
    addWeights(g, c, {7, 12}, 0, &w, &b);
    g.addUnary(Kind::XNNConvert, xf, x);
    g.addFullyConnected(x, w, b, y);
    g.addUnary(Kind::XNNConvert, y, yf);
    Harness hs;
    void *h = hs.init(g.finish());
    for (uint64_t rows : {uint64_t(2), uint64_t(5), uint64_t(1)}) {
      c.w = rows;
      const std::vector<int8_t> qs = int8s(rows * 12, unsigned(rows));
      std::vector<float> xs;
      for (int8_t v : qs) // exactly representable: quantizes back to v
        xs.push_back(float(v - c.in.zp) * c.in.scale);
      Buf in = Buf::f32({int64_t(rows), 12}, xs), out = Buf::f32({int64_t(rows), 7});
      INFO("per-channel " << perChannel << " rows " << rows);
      REQUIRE(hs.run(h, {&in, &out}) == Error::Ok);
      const std::vector<int8_t> want = convRef(c, qs);
      const std::vector<float> got = out.floats();
      REQUIRE(got.size() == want.size());
      for (size_t i = 0; i < got.size(); ++i)
        CHECK(std::fabs(got[i] - float(want[i] - c.out.zp) * c.out.scale) <=
              c.out.scale * 1.001f);
    }
  }
}

TEST_CASE("dynamically quantized fully connected below the bound", "[xnnpack][int8][dynamic]") {
  // Each row is quantized on its own, so the rows of a smaller call are
  // the first rows of a call at the bound with the same data.
  const uint64_t rows = 4, k = 9, n = 3;
  const std::vector<int8_t> w = int8s(n * k, 81, -60, 127);
  const std::vector<float> wScales{0.01f, 0.02f, 0.005f}, bias{0.1f, -0.2f, 0.3f};
  Harness hs;
  void *h = hs.init(dynamicFullyConnectedBlob(rows, k, n, w, wScales, bias));
  std::vector<float> xs(rows * k);
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = float(1 + i / k * 5) * std::sin(0.8f * float(i));
  Buf full = Buf::f32({int64_t(rows), int64_t(k)}, xs), fullOut = Buf::f32({int64_t(rows), int64_t(n)});
  REQUIRE(hs.run(h, {&full, &fullOut}) == Error::Ok);
  const std::vector<float> all = fullOut.floats();
  for (uint64_t r : {uint64_t(1), uint64_t(3)}) {
    Buf in = Buf::f32({int64_t(r), int64_t(k)}, std::vector<float>(xs.begin(), xs.begin() + r * k));
    Buf out = Buf::f32({int64_t(r), int64_t(n)});
    REQUIRE(hs.run(h, {&in, &out}) == Error::Ok);
    const std::vector<float> got = out.floats();
    INFO("rows " << r);
    for (size_t i = 0; i < got.size(); ++i)
      CHECK(got[i] == all[i]);
  }
}
