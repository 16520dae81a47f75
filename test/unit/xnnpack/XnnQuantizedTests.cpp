// int8 graphs on the runtime half of XnnpackBackend: blobs built in
// upstream's quantized format (XNNQuantizedTensorValue, per-tensor and
// per-channel, int32 biases) run against a naive integer reference
// (XnnQuantizedTestUtil.h: integer accumulation, then requantization: round to nearest even of
// acc * (input scale * weight scale / output scale) + zero point, clamped).
// Every result must be within one quantization step of the reference.
#include "test/unit/xnnpack/XnnQuantizedTestUtil.h"
#include "backends/xnnpack/format/XnnQuantLimits.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace ptec;
using namespace ptec::xnnpack;
using namespace ptec::xnnpack::test;
using rt::Error;
namespace fb = fb_xnnpack;
using Kind = fb::XNodeUnion;
using DT = fb::XNNDatatype;

TEST_CASE("int8 convert: float -> int8 and int8 -> float", "[xnnpack][int8]") {
  const Q q{0.03f, -7};
  std::vector<float> xs(37);
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = -5.0f + 0.27f * float(i); // spans past both ends of the int8 range
  {
    GraphWriter g;
    const uint32_t x = g.addValue({37}), y = g.addQuantizedValue({37}, kQ8, q.scale, q.zp);
    g.setExternal(x, 0, kFlagExternalInput);
    g.setExternal(y, 1, kFlagExternalOutput);
    g.addUnary(Kind::XNNConvert, x, y);
    Harness hs;
    void *h = hs.init(g.finish());
    Buf in = Buf::f32({37}, xs), out = Buf::i8({37});
    REQUIRE(hs.run(h, {&in, &out}) == Error::Ok);
    std::vector<int8_t> want;
    for (float v : xs)
      want.push_back(quantizeS8(v, q.scale, q.zp));
    CHECK(maxStepDiff(out.ints(), want) <= 1);
    CHECK(out.ints().front() == -128);
    CHECK(out.ints().back() == 127);
  }
  {
    GraphWriter g;
    const uint32_t x = g.addQuantizedValue({2, 3}, kQ8, q.scale, q.zp), y = g.addValue({2, 3});
    g.setExternal(x, 0, kFlagExternalInput);
    g.setExternal(y, 1, kFlagExternalOutput);
    g.addUnary(Kind::XNNConvert, x, y);
    Harness hs;
    void *h = hs.init(g.finish());
    const std::vector<int8_t> qs{-128, -7, 0, 1, 100, 127};
    Buf in = Buf::i8({2, 3}, qs), out = Buf::f32({2, 3});
    REQUIRE(hs.run(h, {&in, &out}) == Error::Ok);
    const std::vector<float> got = out.floats();
    for (size_t i = 0; i < qs.size(); ++i)
      CHECK(got[i] == Approx(float(qs[i] - q.zp) * q.scale).margin(1e-6));
  }
}

TEST_CASE("int8 convolution, per-tensor and per-channel weights", "[xnnpack][int8]") {
  ConvCase c;
  SECTION("per-tensor, fused relu") {
    c.relu = true;
    fillCase(c, 11);
    CHECK(runConv(c, 5) <= 1);
  }
  SECTION("per-channel, stride 2, no padding") {
    c.perChannel = true, c.stride = 2, c.pad = 0, c.h = 7, c.w = 9, c.cout = 5;
    fillCase(c, 12);
    CHECK(runConv(c, 6) <= 1);
  }
  SECTION("depthwise, per-channel") {
    c.depthwise = true, c.perChannel = true, c.cin = c.cout = 6;
    fillCase(c, 13);
    CHECK(runConv(c, 7) <= 1);
  }
  SECTION("depthwise, per-tensor") {
    c.depthwise = true, c.cin = c.cout = 4, c.relu = true;
    fillCase(c, 14);
    CHECK(runConv(c, 8) <= 1);
  }
}

TEST_CASE("int8 packed weights are shared through the cache", "[xnnpack][int8]") {
  ConvCase c;
  c.perChannel = true;
  fillCase(c, 15);
  const std::string blob = convBlob(c);
  const std::vector<int8_t> xs = int8s(c.n * c.h * c.w * c.cin, 16);
  for (bool cache : {true, false}) {
    Harness hs;
    REQUIRE(hs.backend.setWeightCache(cache) == Error::Ok);
    hs.backend.stats().reset();
    void *h1 = hs.init(blob);
    void *h2 = hs.init(blob);
    INFO("cache " << cache);
    CHECK(hs.backend.stats().cacheHits.load() == (cache ? 1u : 0u));
    CHECK(hs.backend.stats().packedLive.load() == (cache ? 1u : 0u));
    for (void *h : {h1, h2}) {
      CHECK(convStepDiff(hs, h, c, xs) <= 1);
    }
  }
}

TEST_CASE("int8 fully connected, per-tensor and per-channel weights", "[xnnpack][int8]") {
  // A fully connected node is a 1x1 convolution over [1, 1, M, K].
  for (bool perChannel : {false, true}) {
    ConvCase c = fullyConnectedCase(perChannel, perChannel ? 21 : 22);
    const std::vector<int8_t> xs = int8s(60, 9);
    const std::vector<int8_t> got =
        runInt8Graph({{{5, 12}, c.in, xs}}, {{5, 7}, c.out}, [&](GraphWriter &g, auto ids) {
          uint32_t w = 0, b = 0;
          addWeights(g, c, {7, 12}, 0, &w, &b);
          g.addFullyConnected(ids[0], w, b, ids[1]);
        });
    INFO("per-channel " << perChannel);
    CHECK(maxStepDiff(got, convRef(c, xs)) <= 1);
  }
}

TEST_CASE("int8 add and multiply, with broadcasting", "[xnnpack][int8]") {
  const Q qa{0.02f, -3}, qb{0.05f, 10}, qy{0.06f, 2};
  for (Kind kind : {Kind::XNNAdd, Kind::XNNMultiply}) {
    const std::vector<int8_t> as = int8s(24, 1), bs = int8s(4, 2);
    const std::vector<int8_t> got = runInt8Graph(
        {{{2, 3, 4}, qa, as}, {{4}, qb, bs}}, {{2, 3, 4}, qy},
        [&](GraphWriter &g, auto ids) { g.addBinary(kind, ids[0], ids[1], ids[2]); });
    std::vector<int8_t> want;
    for (size_t i = 0; i < 24; ++i) {
      const float ra = float(as[i] - qa.zp) * qa.scale, rb = float(bs[i % 4] - qb.zp) * qb.scale;
      want.push_back(quantizeS8(kind == Kind::XNNAdd ? ra + rb : ra * rb, qy.scale, qy.zp));
    }
    INFO(nodeKindName(kind));
    CHECK(maxStepDiff(got, want) <= 1);
  }
}

TEST_CASE("int8 add / subtract / multiply with scales this XNNPACK refuses", "[xnnpack][int8]") {
  // Input scales 200-300x the output's: past this library's bounds for add
  // and subtract, so our broadcasting loop runs them (multiply's product
  // ratio, 60, is within its bounds: XNNPACK runs it).
  const Q qa{0.3f, 1}, qb{0.2f, -4}, qy{0.001f, 0};
  for (Kind kind : {Kind::XNNAdd, Kind::XNNSubtract, Kind::XNNMultiply}) {
    const std::vector<int8_t> as{0, 1, 2, -1, 3, 1, 0, 2}, bs{-4, -3, -5};
    const std::vector<int8_t> got = runInt8Graph(
        {{{2, 1, 4}, qa, as}, {{3, 1}, qb, bs}}, {{2, 3, 4}, qy},
        [&](GraphWriter &g, auto ids) { g.addBinary(kind, ids[0], ids[1], ids[2]); });
    std::vector<int8_t> want;
    for (size_t i = 0; i < 2; ++i)
      for (size_t j = 0; j < 3; ++j)
        for (size_t k = 0; k < 4; ++k) {
          const float ra = float(as[i * 4 + k] - qa.zp) * qa.scale;
          const float rb = float(bs[j] - qb.zp) * qb.scale;
          const float r = kind == Kind::XNNAdd ? ra + rb : kind == Kind::XNNSubtract ? ra - rb : ra * rb;
          want.push_back(quantizeS8(r, qy.scale, qy.zp));
        }
    INFO(nodeKindName(kind));
    CHECK(maxStepDiff(got, want) <= 1);
  }
}

TEST_CASE("int8 max pooling, average pooling and global average pooling", "[xnnpack][int8]") {
  const Q q{0.04f, -20}, qo{0.03f, 5};
  const std::vector<int8_t> xs = int8s(2 * 6 * 6 * 3, 31);
  auto at = [&](uint64_t n, uint64_t y, uint64_t x, uint64_t c) {
    return xs[((n * 6 + y) * 6 + x) * 3 + c];
  };
  for (Kind kind : {Kind::XNNMaxPooling2d, Kind::XNNAvgPooling2d}) {
    const Q out = kind == Kind::XNNMaxPooling2d ? q : qo;
    PoolParams p;
    p.poolH = p.poolW = p.strideH = p.strideW = 2;
    p.flags = 0x40; // upstream's keep-dims flag
    const std::vector<int8_t> got =
        runInt8Graph({{{2, 6, 6, 3}, q, xs}}, {{2, 3, 3, 3}, out},
                     [&](GraphWriter &g, auto ids) { g.addPooling(kind, p, ids[0], ids[1]); });
    std::vector<int8_t> want;
    for (uint64_t n = 0; n < 2; ++n)
      for (uint64_t oy = 0; oy < 3; ++oy)
        for (uint64_t ox = 0; ox < 3; ++ox)
          for (uint64_t c = 0; c < 3; ++c) {
            int mx = -128, sum = 0;
            for (uint64_t dy = 0; dy < 2; ++dy)
              for (uint64_t dx = 0; dx < 2; ++dx) {
                mx = std::max(mx, int(at(n, 2 * oy + dy, 2 * ox + dx, c)));
                sum += at(n, 2 * oy + dy, 2 * ox + dx, c) - q.zp;
              }
            want.push_back(kind == Kind::XNNMaxPooling2d
                               ? int8_t(mx)
                               : quantizeS8(float(sum) * q.scale / 4.0f, out.scale, out.zp));
          }
    INFO(nodeKindName(kind));
    CHECK(maxStepDiff(got, want) <= (kind == Kind::XNNMaxPooling2d ? 0 : 1));
  }
  auto globalAvgPool = [](GraphWriter &g, auto ids) {
    g.addGlobalAvgPool(ids[0], ids[1]);
  };
  {
    const std::vector<int8_t> got =
        runInt8Graph({{{2, 6, 6, 3}, q, xs}}, {{2, 1, 1, 3}, qo}, globalAvgPool);
    std::vector<int8_t> want;
    for (uint64_t n = 0; n < 2; ++n)
      for (uint64_t c = 0; c < 3; ++c) {
        int64_t sum = 0;
        for (uint64_t y2 = 0; y2 < 6; ++y2)
          for (uint64_t x2 = 0; x2 < 6; ++x2)
            sum += at(n, y2, x2, c) - q.zp;
        want.push_back(requant(sum, q.scale / (36.0f * qo.scale), qo.zp));
      }
    CHECK(maxStepDiff(got, want) <= 1);
  }
  {
    // Means of 4 with the same parameters in and out: half the sums land on
    // a tie, which upstream's XNNPACK rounds to even after adding the odd
    // zero point (so 39.5 - 9 -> 30, not 40 - 9).
    const Q qs{0.05f, -9};
    const std::vector<int8_t> x4 = int8s(4 * 64, 33);
    const std::vector<int8_t> got =
        runInt8Graph({{{1, 2, 2, 64}, qs, x4}}, {{1, 1, 1, 64}, qs}, globalAvgPool);
    std::vector<int8_t> want;
    int ties = 0;
    for (size_t c = 0; c < 64; ++c) {
      int sum = 0;
      for (size_t p = 0; p < 4; ++p)
        sum += x4[p * 64 + c] - qs.zp;
      ties += (sum % 4 + 4) % 4 == 2;
      want.push_back(int8_t(std::lrint(double(sum) / 4.0 + qs.zp)));
    }
    REQUIRE(ties > 5);
    CHECK(got == want);
  }
}

TEST_CASE("int8 clamp, requantizing convert and constant pad", "[xnnpack][int8]") {
  const Q q{0.05f, 10}, q2{0.02f, -3};
  const std::vector<int8_t> xs = int8s(12, 81);
  GraphWriter g;
  const uint32_t x = g.addQuantizedValue({3, 4}, kQ8, q.scale, q.zp);
  const uint32_t c1 = g.addQuantizedValue({3, 4}, kQ8, q.scale, q.zp);  // same params
  const uint32_t c2 = g.addQuantizedValue({3, 4}, kQ8, q2.scale, q2.zp); // requantized
  const uint32_t cv = g.addQuantizedValue({3, 4}, kQ8, q.scale, q.zp);   // int8 -> int8
  const uint32_t pd = g.addQuantizedValue({4, 6}, kQ8, q.scale, q.zp);
  g.setExternal(x, 0, kFlagExternalInput);
  g.setExternal(c1, 1, kFlagExternalOutput);
  g.setExternal(pd, 2, kFlagExternalOutput);
  g.addUnary(Kind::XNNClamp, x, c1, OutputClamp{-1.0f, 2.0f});
  g.addUnary(Kind::XNNClamp, c1, c2, OutputClamp{0.0f, INFINITY});
  g.addUnary(Kind::XNNConvert, c2, cv);
  g.addPad(cv, pd, {1, 0}, {0, 2}, 0.5f);
  Harness hs;
  void *h = hs.init(g.finish());
  Buf in = Buf::i8({3, 4}, xs), o1 = Buf::i8({3, 4}), o2 = Buf::i8({4, 6});
  REQUIRE(hs.run(h, {&in, &o1, &o2}) == Error::Ok);
  std::vector<int8_t> want1, want2(24, quantizeS8(0.5f, q.scale, q.zp));
  for (size_t i = 0; i < 12; ++i) {
    const float r = std::min(std::max(float(xs[i] - q.zp) * q.scale, -1.0f), 2.0f);
    want1.push_back(quantizeS8(r, q.scale, q.zp));
    const float r2 = float(quantizeS8(std::max(r, 0.0f), q2.scale, q2.zp) - q2.zp) * q2.scale;
    want2[(i / 4 + 1) * 6 + i % 4] = quantizeS8(r2, q.scale, q.zp);
  }
  CHECK(maxStepDiff(o1.ints(), want1) <= 1);
  CHECK(maxStepDiff(o2.ints(), want2) <= 1);
}

TEST_CASE("int8 layout moves: transpose, reshape, concatenate, slice", "[xnnpack][int8]") {
  const Q q{0.1f, 1};
  const std::vector<int8_t> xs = int8s(2 * 3 * 4, 41);
  GraphWriter g;
  const uint32_t x = g.addQuantizedValue({2, 3, 4}, kQ8, q.scale, q.zp);
  const uint32_t t = g.addQuantizedValue({4, 2, 3}, kQ8, q.scale, q.zp);
  const uint32_t r = g.addQuantizedValue({4, 6}, kQ8, q.scale, q.zp);
  const uint32_t c = g.addQuantizedValue({4, 12}, kQ8, q.scale, q.zp);
  const uint32_t s = g.addQuantizedValue({2, 5}, kQ8, q.scale, q.zp);
  g.setExternal(x, 0, kFlagExternalInput);
  g.setExternal(s, 1, kFlagExternalOutput);
  g.addTranspose(x, t, {2, 0, 1});
  g.addReshape(t, r);
  g.addConcat(1, {r, r}, c);
  g.addSlice(c, s, {1, 4}, {2, 5});
  Harness hs;
  void *h = hs.init(g.finish());
  Buf in = Buf::i8({2, 3, 4}, xs), out = Buf::i8({2, 5});
  REQUIRE(hs.run(h, {&in, &out}) == Error::Ok);
  // t[k][i][j] = x[i][j][k]; r = t as [4, 6]; c = [r | r]; s = c[1:3, 4:9].
  std::vector<int8_t> want;
  for (int row = 1; row < 3; ++row)
    for (int col = 4; col < 9; ++col) {
      const int rc = col % 6; // column of r
      want.push_back(xs[size_t((rc / 3) * 12 + (rc % 3) * 4 + row)]);
    }
  CHECK(out.ints() == want);
}

TEST_CASE("int8 small CNN as upstream writes it, float at the edges", "[xnnpack][int8]") {
  // Convert -> NCHW->NHWC -> conv (per-channel, relu) -> max pool ->
  // depthwise conv (per-channel) + residual add -> global average pool ->
  // reshape -> fully connected (per-channel) -> Convert.
  const Q qx{0.03f, -2}, q1{0.02f, -128}, q2{0.025f, 4}, q3{0.04f, -10}, q4{0.03f, -6},
      q5{0.05f, 3};
  ConvCase c1;
  c1.h = c1.w = 8, c1.cin = 3, c1.cout = 6, c1.perChannel = true, c1.relu = true;
  c1.in = qx, c1.out = q1;
  fillCase(c1, 51);
  ConvCase dw;
  dw.h = dw.w = 4, dw.cin = dw.cout = 6, dw.depthwise = true, dw.perChannel = true;
  dw.in = q1, dw.out = q2;
  fillCase(dw, 52);
  ConvCase fc;
  fc.h = 1, fc.w = 1, fc.cin = 6, fc.cout = 5, fc.k = 1, fc.pad = 0, fc.perChannel = true;
  fc.in = q4, fc.out = q5;
  fillCase(fc, 53);

  GraphWriter g;
  const uint32_t xf = g.addValue({1, 3, 8, 8});
  const uint32_t xq = g.addQuantizedValue({1, 3, 8, 8}, kQ8, qx.scale, qx.zp);
  const uint32_t xt = g.addQuantizedValue({1, 8, 8, 3}, kQ8, qx.scale, qx.zp);
  const uint32_t a1 = g.addQuantizedValue({1, 8, 8, 6}, kQ8, q1.scale, q1.zp);
  const uint32_t p1 = g.addQuantizedValue({1, 4, 4, 6}, kQ8, q1.scale, q1.zp);
  const uint32_t a2 = g.addQuantizedValue({1, 4, 4, 6}, kQ8, q2.scale, q2.zp);
  const uint32_t s2 = g.addQuantizedValue({1, 4, 4, 6}, kQ8, q3.scale, q3.zp);
  const uint32_t gp = g.addQuantizedValue({1, 1, 1, 6}, kQ8, q4.scale, q4.zp);
  const uint32_t fl = g.addQuantizedValue({1, 6}, kQ8, q4.scale, q4.zp);
  const uint32_t yq = g.addQuantizedValue({1, 5}, kQ8, q5.scale, q5.zp);
  const uint32_t yf = g.addValue({1, 5});
  g.setExternal(xf, 0, kFlagExternalInput);
  g.setExternal(yf, 1, kFlagExternalOutput);
  g.addUnary(Kind::XNNConvert, xf, xq);
  g.addTranspose(xq, xt, {0, 2, 3, 1});
  uint32_t w = 0, b = 0;
  addWeights(g, c1, {6, 3, 3, 3}, 0, &w, &b);
  ConvParams p;
  p.padTop = p.padBottom = p.padLeft = p.padRight = 1;
  p.kernelH = p.kernelW = 3, p.groupInputChannels = 3, p.groupOutputChannels = 6;
  g.addConv(Kind::XNNConv2d, p, xt, w, b, a1, OutputClamp{0.0f, INFINITY});
  PoolParams pp;
  pp.poolH = pp.poolW = pp.strideH = pp.strideW = 2, pp.flags = 0x40;
  g.addPooling(Kind::XNNMaxPooling2d, pp, a1, p1);
  addWeights(g, dw, {1, 3, 3, 6}, 3, &w, &b);
  ConvParams pd = p;
  pd.groups = 6, pd.groupInputChannels = 1, pd.groupOutputChannels = 1;
  g.addConv(Kind::XNNDepthwiseConv2d, pd, p1, w, b, a2);
  g.addBinary(Kind::XNNAdd, a2, p1, s2);
  g.addGlobalAvgPool(s2, gp);
  g.addReshape(gp, fl);
  addWeights(g, fc, {5, 6}, 0, &w, &b);
  g.addFullyConnected(fl, w, b, yq);
  g.addUnary(Kind::XNNConvert, yq, yf);

  // The reference, step by step in integers.
  std::vector<float> xs(3 * 64);
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = std::sin(0.37f * float(i)) * 3.0f;
  std::vector<int8_t> t(64 * 3);
  for (size_t c = 0; c < 3; ++c)
    for (size_t i = 0; i < 64; ++i)
      t[i * 3 + c] = quantizeS8(xs[c * 64 + i], qx.scale, qx.zp);
  const std::vector<int8_t> r1 = convRef(c1, t);
  std::vector<int8_t> rp(16 * 6);
  for (size_t y = 0; y < 4; ++y)
    for (size_t x = 0; x < 4; ++x)
      for (size_t c = 0; c < 6; ++c) {
        int8_t m = -128;
        for (size_t d = 0; d < 4; ++d)
          m = std::max(m, r1[((2 * y + d / 2) * 8 + 2 * x + d % 2) * 6 + c]);
        rp[(y * 4 + x) * 6 + c] = m;
      }
  const std::vector<int8_t> r2 = convRef(dw, rp);
  std::vector<int8_t> rs(96);
  for (size_t i = 0; i < 96; ++i)
    rs[i] = quantizeS8(float(r2[i] - q2.zp) * q2.scale + float(rp[i] - q1.zp) * q1.scale,
                       q3.scale, q3.zp);
  std::vector<int8_t> rg(6);
  for (size_t c = 0; c < 6; ++c) {
    int64_t sum = 0;
    for (size_t i = 0; i < 16; ++i)
      sum += rs[i * 6 + c] - q3.zp;
    rg[c] = requant(sum, q3.scale / (16.0f * q4.scale), q4.zp);
  }
  const std::vector<int8_t> rf = convRef(fc, rg);

  Harness hs;
  void *h = hs.init(g.finish());
  Buf in = Buf::f32({1, 3, 8, 8}, xs), out = Buf::f32({1, 5});
  REQUIRE(hs.run(h, {&in, &out}) == Error::Ok);
  const std::vector<float> got = out.floats();
  float worst = 0;
  for (size_t i = 0; i < 5; ++i)
    worst = std::max(worst, std::fabs(got[i] - float(rf[i] - q5.zp) * q5.scale));
  INFO("worst " << worst << ", one step " << q5.scale);
  CHECK(worst <= q5.scale * 1.001f);
  // Outputs that differ show the graph really computed something.
  CHECK(std::count(got.begin(), got.end(), got[0]) < 5);
}

TEST_CASE("dynamically quantized fully connected (float in and out)", "[xnnpack][int8]") {
  // Convert float -> qdint8 (a scale and zero point per row, chosen per
  // call), then int8 weights per channel with a float bias and a relu.
  const uint64_t rows = 3, k = 10, n = 4;
  const std::vector<int8_t> w = int8s(n * k, 71, -40, 127);
  const std::vector<float> wScales{0.01f, 0.02f, 0.005f, 0.03f}, bias{0.1f, -0.2f, 0.0f, 0.3f};
  Harness hs;
  void *h = hs.init(dynamicFullyConnectedBlob(rows, k, n, w, wScales, bias, OutputClamp{0.0f, INFINITY}));
  for (float spread : {1.0f, 40.0f}) { // rows of very different ranges per call
    std::vector<float> xs(rows * k);
    for (size_t i = 0; i < xs.size(); ++i)
      xs[i] = spread * std::sin(0.9f * float(i) + 0.3f) + (i / k == 1 ? spread : 0.0f);
    Buf in = Buf::f32({int64_t(rows), int64_t(k)}, xs), out = Buf::f32({int64_t(rows), int64_t(n)});
    REQUIRE(hs.run(h, {&in, &out}) == Error::Ok);
    const std::vector<float> got = out.floats();
    for (uint64_t r = 0; r < rows; ++r) {
      // The reference: the row's range widened to 0 spread over 255 steps,
      // the zero point that maps its min to -128, integer accumulation.
      float lo = 0, hi = 0;
      for (uint64_t i = 0; i < k; ++i)
        lo = std::min(lo, xs[r * k + i]), hi = std::max(hi, xs[r * k + i]);
      const float step = (hi - lo) / 255.0f;
      const int32_t zp = int32_t(std::lrint(std::min(127.0, std::max(-128.0, -128.0 - lo / step))));
      for (uint64_t j = 0; j < n; ++j) {
        int64_t acc = 0;
        int maxW = 0;
        for (uint64_t i = 0; i < k; ++i) {
          const int32_t qx = std::clamp(int32_t(std::lrint(xs[r * k + i] / step)) + zp, -128, 127);
          acc += int64_t(qx - zp) * w[j * k + i];
          maxW = std::max(maxW, std::abs(int(w[j * k + i])));
        }
        const double want = std::max(double(acc) * step * wScales[j] + bias[j], 0.0);
        INFO("row " << r << " col " << j << " spread " << spread);
        // At most one input element a step apart from the reference's.
        CHECK(std::fabs(got[r * n + j] - want) <= step * maxW * wScales[j] * 1.001 + 1e-6);
      }
    }
  }
}

TEST_CASE("int8 refusals name the value or node", "[xnnpack][int8]") {
  Harness hs;
  SECTION("a filter with a non-zero zero point") {
    ConvCase c;
    fillCase(c, 61);
    GraphWriter g;
    const uint32_t x = g.addQuantizedValue({1, 6, 6, 3}, kQ8, 0.1f, 0);
    const uint32_t y = g.addQuantizedValue({1, 6, 6, 4}, kQ8, 0.1f, 0);
    g.setExternal(x, 0, kFlagExternalInput);
    g.setExternal(y, 1, kFlagExternalOutput);
    const uint32_t w = g.addQuantizedValue({4, 3, 3, 3}, kQ8, 0.01f, 3,
                                           g.addConstant(c.weights.data(), c.weights.size()));
    ConvParams p;
    p.padTop = p.padBottom = p.padLeft = p.padRight = 1;
    p.kernelH = p.kernelW = 3, p.groupInputChannels = 3, p.groupOutputChannels = 4;
    g.addConv(Kind::XNNConv2d, p, x, w, kInvalidValueId, y);
    hs.init(g.finish(), Error::NotSupported);
    CHECK(std::string(hs.message).find("zero point 3") != std::string::npos);
  }
  SECTION("per-channel scales that do not match the channel dim") {
    GraphWriter g;
    const uint32_t x = g.addPerChannelQuantizedValue({4, 2}, kQC8, {0.1f, 0.2f, 0.3f}, 0);
    const uint32_t y = g.addQuantizedValue({4, 2}, kQ8, 0.1f, 0);
    g.setExternal(x, 0, kFlagExternalInput);
    g.setExternal(y, 1, kFlagExternalOutput);
    g.addUnary(Kind::XNNClamp, x, y);
    hs.init(g.finish(), Error::InvalidArgument);
    CHECK(std::string(hs.message).find("3 scales for 4 channels") != std::string::npos);
  }
  SECTION("a float tensor bound to an int8 input") {
    GraphWriter g;
    const uint32_t x = g.addQuantizedValue({4}, kQ8, 0.1f, 0);
    const uint32_t y = g.addValue({4});
    g.setExternal(x, 0, kFlagExternalInput);
    g.setExternal(y, 1, kFlagExternalOutput);
    g.addUnary(Kind::XNNConvert, x, y);
    void *h = hs.init(g.finish());
    Buf in = Buf::f32({4}), out = Buf::f32({4});
    CHECK(hs.run(h, {&in, &out}) == Error::InvalidArgument);
    Buf in8 = Buf::i8({4}, {1, 2, 3, 4});
    CHECK(hs.run(h, {&in8, &out}) == Error::Ok);
  }
}

// XNNPACK's own parameter checks, asked before the operator is created
// (format/XnnQuantLimits.h): the installed library asserts (SIGABRT) on a
// per-tensor requantization scale below 2^-32, so a blob with one must get a
// refusal naming the node, and a subnormal scale is refused at definition as
// upstream's runtime does.
TEST_CASE("int8 parameters XNNPACK would abort on or refuse are refused first",
          "[xnnpack][int8]") {
  Harness hs;
  const std::vector<int8_t> w(12, 1);
  auto fullyConnected = [&](float inScale, float wScale, float outScale, OutputClamp clamp) {
    GraphWriter g;
    const uint32_t x = g.addQuantizedValue({2, 4}, kQ8, inScale, 0);
    const uint32_t y = g.addQuantizedValue({2, 3}, kQ8, outScale, 0);
    g.setExternal(x, 0, kFlagExternalInput);
    g.setExternal(y, 1, kFlagExternalOutput);
    const uint32_t wv = g.addQuantizedValue({3, 4}, kQ8, wScale, 0, g.addConstant(w.data(), 12));
    g.addFullyConnected(x, wv, kInvalidValueId, y, 0, clamp);
    return g.finish();
  };
  SECTION("requantization scale 2^-33 (asserted on by XNNPACK)") {
    hs.init(fullyConnected(0x1.0p-33f, 1.0f, 1.0f, {}), Error::NotSupported);
    CHECK(std::string(hs.message).find("below 2^-32") != std::string::npos);
    CHECK(std::string(hs.message).find("XNNFullyConnected") != std::string::npos);
  }
  SECTION("requantization scale 2^-32 is taken") {
    void *h = hs.init(fullyConnected(0x1.0p-32f, 1.0f, 1.0f, {}));
    Buf in = Buf::i8({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}), out = Buf::i8({2, 3});
    REQUIRE(hs.run(h, {&in, &out}) == Error::Ok);
    CHECK(out.ints() == std::vector<int8_t>(6, 0));
  }
  SECTION("requantization scale 256") {
    hs.init(fullyConnected(16.0f, 16.0f, 1.0f, {}), Error::NotSupported);
    CHECK(std::string(hs.message).find("not below 256") != std::string::npos);
  }
  SECTION("an empty output range") {
    OutputClamp clamp;
    clamp.lo = 5.0f, clamp.hi = 5.0f;
    hs.init(fullyConnected(0.1f, 0.1f, 1.0f, clamp), Error::NotSupported);
    CHECK(std::string(hs.message).find("range [5, 5] is empty") != std::string::npos);
  }
  SECTION("a subnormal scale") {
    hs.init(fullyConnected(1e-40f, 1.0f, 1.0f, {}), Error::InvalidArgument);
    CHECK(std::string(hs.message).find("positive normal float") != std::string::npos);
  }
}

TEST_CASE("XnnQuantLimits: XNNPACK's int8 parameter rules", "[xnnpack][int8]") {
  CHECK(scaleProblem(0.5, "s").empty());
  CHECK(scaleProblem(1.2e-38, "s").empty()); // normal in float32 (FLT_MIN 1.1755e-38)
  CHECK(scaleProblem(1.1e-38, "s").find("normal") != std::string::npos);
  CHECK(!scaleProblem(0.0, "s").empty());
  CHECK(!scaleProblem(-1.0, "s").empty());
  CHECK(!scaleProblem(NAN, "s").empty());
  CHECK(!scaleProblem(1e39, "s").empty()); // inf in float32
  // One weight scale (qs8): [2^-32, 256); per channel (qc8): below 256.
  CHECK(requantProblem(0x1.0p-32f, {1.0f}, 1.0f).empty());
  CHECK(!requantProblem(0x1.0p-33f, {1.0f}, 1.0f).empty());
  CHECK(requantProblem(0x1.0p-33f, {1.0f, 1.0f}, 1.0f).empty());
  CHECK(!requantProblem(1.0f, {256.0f}, 1.0f).empty());
  CHECK(requantProblem(1.0f, {255.0f}, 1.0f).empty());
  CHECK(requantProblem(1.0f, {0.5f, 300.0f}, 1.0f).find("output channel 1") !=
        std::string::npos);
  // A bias of 2^31 - 1 - products fits; one more does not.
  const double products = 9.0 * 255.0 * 128.0;
  const float fits = float(2147483647.0 - products - 1024.0); // float32 steps are 128 here
  CHECK(biasProblem({fits}, 1.0f, {1.0f}, 9).empty());
  CHECK(!biasProblem({fits + 2048.0f}, 1.0f, {1.0f}, 9).empty());
  CHECK(!biasProblem({1.0f}, 1e-12f, {1e-3f}, 9).empty());
  CHECK(biasProblem({1.0f, -1.0f}, 0.01f, {0.01f, 0.02f}, 9).empty());
  CHECK(rangeProblem(-128, 127).empty());
  CHECK(!rangeProblem(5, 5).empty());
}
