// The runtime half of XnnpackBackend on hand-built blobs: every operator
// kind against a direct computation, init failures that name the node,
// packed-weight sharing through the context cache (and isolation by runtime
// allocator), planned scratch, argument checks, concurrency (run under
// ThreadSanitizer by xnnpack_tsan) and cleanup on every failure path (under
// AddressSanitizer/LeakSanitizer by xnnpack_asan).
#include "backends/xnnpack/format/XnnGraphWriter.h"
#include "backends/xnnpack/runtime/XnnpackBackend.h"
#include "test/unit/xnnpack/XnnRuntimeTestUtil.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace ptec;
using namespace ptec::xnnpack;
using test::linearRef;
using test::randoms;
using rt::Error;
namespace fb = fb_xnnpack;
using Kind = fb::XNodeUnion;

namespace {

/// A float tensor over caller-owned data.
struct Buf {
  Buf(std::vector<int64_t> shape, std::vector<float> values = {}) {
    size_t n = 1;
    for (int64_t d : shape)
      n *= size_t(d);
    data = values.empty() ? std::vector<float>(n, 0.0f) : std::move(values);
    REQUIRE(data.size() == n);
    REQUIRE(t.init(rt::ScalarType::Float, rt::Span<const int64_t>(shape.data(), shape.size())) ==
            Error::Ok);
    t.setData(data.data(), data.size() * sizeof(float));
    ev = rt::EValue::fromTensor(&t);
  }
  std::vector<float> data;
  rt::Tensor t;
  rt::EValue ev;
};

using Harness = test::BackendHarness<Buf>;

void requireClose(const std::vector<float> &got, const std::vector<float> &want,
                  double tol = 1e-4) {
  REQUIRE(got.size() == want.size());
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(double(got[i]) - want[i]) <= tol * (1 + std::fabs(double(want[i])))))
      ++bad;
  INFO(bad << " of " << got.size() << " differ; first " << got[0] << " vs " << want[0]);
  CHECK(bad == 0);
}

/// y = x @ W^T + b, W [n, k]; one FullyConnected node.
std::string linearBlob(uint64_t batch, uint64_t k, uint64_t n, const std::vector<float> &w,
                       const std::vector<float> &b) {
  GraphWriter g;
  const uint32_t x = g.addValue({batch, k}), y = g.addValue({batch, n});
  g.setExternal(x, 0, kFlagExternalInput);
  g.setExternal(y, 1, kFlagExternalOutput);
  g.addFullyConnected(x, g.addConstantValue({n, k}, w.data()), g.addConstantValue({n}, b.data()),
                      y);
  return g.finish();
}

} // namespace

TEST_CASE("xnnpack runtime: NCHW conv graph matches a direct computation",
          "[xnnpack][runtime]") {
  // x [1,2,5,5] -> NHWC -> conv 3x3 (2->4, stride 1, pad 1) clamp [0, 6] -> NCHW.
  const uint64_t cin = 2, cout = 4, h = 5, w = 5;
  std::vector<float> filter = randoms(cout * 3 * 3 * cin, 1), bias = randoms(cout, 2);
  GraphWriter g;
  const uint32_t x = g.addValue({1, cin, h, w}), xt = g.addValue({1, h, w, cin});
  g.setExternal(x, 0, kFlagExternalInput);
  g.addTranspose(x, xt, {0, 2, 3, 1});
  const uint32_t y = g.addValue({1, h, w, cout}), out = g.addValue({1, cout, h, w});
  ConvParams p;
  p.padTop = p.padBottom = p.padLeft = p.padRight = 1;
  p.kernelH = p.kernelW = 3;
  p.groupInputChannels = uint32_t(cin), p.groupOutputChannels = uint32_t(cout);
  g.addConv(Kind::XNNConv2d, p, xt, g.addConstantValue({cout, 3, 3, cin}, filter.data()),
            g.addConstantValue({cout}, bias.data()), y, OutputClamp{0.0f, 6.0f});
  g.addTranspose(y, out, {0, 3, 1, 2});
  g.setExternal(out, 1, kFlagExternalOutput);
  Harness hs;
  void *handle = hs.init(g.finish());
  Buf in({1, int64_t(cin), int64_t(h), int64_t(w)}, randoms(cin * h * w, 3));
  Buf res({1, int64_t(cout), int64_t(h), int64_t(w)});
  REQUIRE(hs.run(handle, {&in, &res}) == Error::Ok);
  std::vector<float> want(cout * h * w);
  for (uint64_t o = 0; o < cout; ++o)
    for (uint64_t yy = 0; yy < h; ++yy)
      for (uint64_t xx = 0; xx < w; ++xx) {
        double acc = bias[o];
        for (uint64_t i = 0; i < cin; ++i)
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
              const int64_t iy = int64_t(yy) + ky - 1, ix = int64_t(xx) + kx - 1;
              if (iy < 0 || ix < 0 || iy >= int64_t(h) || ix >= int64_t(w))
                continue;
              acc += double(in.data[(i * h + iy) * w + ix]) *
                     filter[((o * 3 + ky) * 3 + kx) * cin + i];
            }
        want[(o * h + yy) * w + xx] = float(std::min(6.0, std::max(0.0, acc)));
      }
  requireClose(res.data, want);
}

TEST_CASE("xnnpack runtime: each operator kind", "[xnnpack][runtime]") {
  Harness hs(1);
  SECTION("fully connected, batch 3") {
    std::vector<float> w = randoms(5 * 4, 4), b = randoms(5, 5);
    void *h = hs.init(linearBlob(3, 4, 5, w, b));
    Buf x({3, 4}, randoms(12, 6)), y({3, 5});
    REQUIRE(hs.run(h, {&x, &y}) == Error::Ok);
    requireClose(y.data, linearRef(x.data, 4, 5, w, b));
  }
  SECTION("broadcast add, sub, mul, div, min, max") {
    for (Kind k : {Kind::XNNAdd, Kind::XNNSubtract, Kind::XNNMultiply, Kind::XNNDiv,
                   Kind::XNNMinimum, Kind::XNNMaximum}) {
      GraphWriter g;
      const uint32_t a = g.addValue({2, 3}), c = g.addValue({3}), y = g.addValue({2, 3});
      g.setExternal(a, 0, kFlagExternalInput);
      g.setExternal(c, 1, kFlagExternalInput);
      g.setExternal(y, 2, kFlagExternalOutput);
      g.addBinary(k, a, c, y);
      void *h = hs.init(g.finish());
      Buf x({2, 3}, {1, 2, 3, 4, 5, 6}), z({3}, {2, 4, 8}), out({2, 3});
      REQUIRE(hs.run(h, {&x, &z, &out}) == Error::Ok);
      std::vector<float> want(6);
      for (int i = 0; i < 6; ++i) {
        const float p = x.data[i], q = z.data[i % 3];
        want[i] = k == Kind::XNNAdd ? p + q : k == Kind::XNNSubtract ? p - q
                  : k == Kind::XNNMultiply ? p * q : k == Kind::XNNDiv ? p / q
                  : k == Kind::XNNMinimum ? std::min(p, q) : std::max(p, q);
      }
      requireClose(out.data, want);
    }
  }
  SECTION("global average pooling, max pooling, softmax, pad, sigmoid, leaky relu") {
    GraphWriter g;
    const uint32_t x = g.addValue({1, 4, 4, 2});
    g.setExternal(x, 0, kFlagExternalInput);
    const uint32_t gap = g.addValue({1, 1, 1, 2}), mp = g.addValue({1, 2, 2, 2});
    g.addGlobalAvgPool(x, gap);
    PoolParams pp;
    pp.poolH = pp.poolW = pp.strideH = pp.strideW = 2;
    g.addPooling(Kind::XNNMaxPooling2d, pp, x, mp);
    const uint32_t sm = g.addValue({1, 2, 2, 2}), pad = g.addValue({1, 3, 2, 4});
    g.addUnary(Kind::XNNSoftmax, mp, sm);
    g.addPad(sm, pad, {0, 1, 0, 1}, {0, 0, 0, 1}, 9.0f);
    const uint32_t sg = g.addValue({1, 1, 1, 2}), lr = g.addValue({1, 1, 1, 2});
    g.addUnary(Kind::XNNSigmoid, gap, sg);
    g.addLeakyRelu(sg, lr, 0.5f);
    g.setExternal(pad, 1, kFlagExternalOutput);
    g.setExternal(lr, 2, kFlagExternalOutput);
    void *h = hs.init(g.finish());
    Buf in({1, 4, 4, 2}, randoms(32, 7)), padded({1, 3, 2, 4}), act({1, 1, 1, 2});
    REQUIRE(hs.run(h, {&in, &padded, &act}) == Error::Ok);
    // Reference: NHWC max pool 2x2, softmax over C, then one row of 9s
    // before H and one column of 9s on each side of C.
    std::vector<float> mpRef(8), smRef(8), padRef(24, 9.0f), actRef(2);
    for (int y = 0; y < 2; ++y)
      for (int xx = 0; xx < 2; ++xx)
        for (int c = 0; c < 2; ++c) {
          float m = -INFINITY;
          for (int dy = 0; dy < 2; ++dy)
            for (int dx = 0; dx < 2; ++dx)
              m = std::max(m, in.data[((2 * y + dy) * 4 + 2 * xx + dx) * 2 + c]);
          mpRef[(y * 2 + xx) * 2 + c] = m;
        }
    for (int p = 0; p < 4; ++p) {
      const float a = mpRef[2 * p], b = mpRef[2 * p + 1], mx = std::max(a, b);
      const float ea = std::exp(a - mx), eb = std::exp(b - mx);
      smRef[2 * p] = ea / (ea + eb), smRef[2 * p + 1] = eb / (ea + eb);
    }
    for (int y = 0; y < 2; ++y)
      for (int xx = 0; xx < 2; ++xx)
        for (int c = 0; c < 2; ++c)
          padRef[((y + 1) * 2 + xx) * 4 + c + 1] = smRef[(y * 2 + xx) * 2 + c];
    for (int c = 0; c < 2; ++c) {
      double s = 0;
      for (int p = 0; p < 16; ++p)
        s += in.data[p * 2 + c];
      const double sig = 1.0 / (1.0 + std::exp(-s / 16));
      actRef[c] = float(sig > 0 ? sig : 0.5 * sig);
    }
    requireClose(padded.data, padRef);
    requireClose(act.data, actRef);
  }
  SECTION("depthwise convolution with a 1x1 kernel") {
    GraphWriter g;
    const uint32_t x = g.addValue({1, 2, 2, 3}), y = g.addValue({1, 2, 2, 3});
    g.setExternal(x, 0, kFlagExternalInput);
    g.setExternal(y, 1, kFlagExternalOutput);
    const float scale[3] = {1, 2, 3}, shift[3] = {0.5f, 0, -1};
    ConvParams p;
    p.groups = 3;
    g.addConv(Kind::XNNDepthwiseConv2d, p, x, g.addConstantValue({1, 1, 1, 3}, scale),
              g.addConstantValue({3}, shift), y);
    void *h = hs.init(g.finish());
    Buf in({1, 2, 2, 3}, randoms(12, 8)), out({1, 2, 2, 3});
    REQUIRE(hs.run(h, {&in, &out}) == Error::Ok);
    std::vector<float> want(12);
    for (int i = 0; i < 12; ++i)
      want[i] = in.data[i] * scale[i % 3] + shift[i % 3];
    requireClose(out.data, want);
  }
}

TEST_CASE("xnnpack runtime: init refuses what it cannot build, naming the node",
          "[xnnpack][runtime]") {
  Harness hs(1);
  SECTION("a node kind neither XNNPACK nor an own kernel runs") {
    GraphWriter g;
    const uint32_t a = g.addValue({2}), y = g.addValue({2});
    g.setExternal(a, 0, kFlagExternalInput);
    g.setExternal(y, 1, kFlagExternalOutput);
    g.addUnary(Kind::XNNConvert, a, y, {}, 7);
    hs.init(g.finish(), nullptr, {}, Error::NotSupported);
    const std::string m = hs.message;
    CHECK(m.find("node 0 (XNNConvert, debug handle 7)") != std::string::npos);
    CHECK(m.find("conversions") != std::string::npos);
  }
  SECTION("a node kind newer than this schema") {
    flatbuffers::FlatBufferBuilder fbb;
    std::vector<uint32_t> dims{4};
    auto value = [&](uint32_t id, uint32_t flags, uint32_t ext) {
      return fb::CreateXValue(fbb, fb::XValueUnion::XNNTensorValue,
                              fb::CreateXNNTensorValueDirect(fbb, fb::XNNDatatype::xnn_datatype_fp32,
                                                             1, &dims, 0, ext, flags, id)
                                  .Union());
    };
    std::vector<flatbuffers::Offset<fb::XValue>> values{value(0, kFlagExternalInput, 0),
                                                        value(1, kFlagExternalOutput, 1)};
    std::vector<flatbuffers::Offset<fb::XNode>> nodes{fb::CreateXNode(
        fbb, static_cast<Kind>(99), fb::Create_XNNNode1x1(fbb, 0, 1, 0).Union(), 3)};
    fbb.Finish(fb::CreateXNNGraphDirect(fbb, "0", &nodes, &values, 2), "XN01");
    const std::string blob = writeBlob(fbb.GetBufferPointer(), fbb.GetSize(), "");
    hs.init(blob, nullptr, {}, Error::NotSupported);
    CHECK(std::string(hs.message).find("node type 99") != std::string::npos);
  }
  SECTION("a graph version this runtime does not read") {
    GraphWriter g;
    const uint32_t a = g.addValue({2}), y = g.addValue({2});
    g.setExternal(a, 0, kFlagExternalInput);
    g.setExternal(y, 1, kFlagExternalOutput);
    g.addUnary(Kind::XNNSigmoid, a, y);
    hs.init(g.finish(0, "XN09"), nullptr, {}, Error::DelegateInvalidCompatibility);
    CHECK(std::string(hs.message).find("XN09") != std::string::npos);
  }
  // A blob of one 2x2 pooling node from input dims `in` to declared output dims `out`.
  auto pooling = [](Kind kind, std::vector<uint64_t> in, std::vector<uint64_t> out,
                    uint32_t dilation = 1) {
    GraphWriter g;
    const uint32_t x = g.addValue(in), y = g.addValue(out);
    g.setExternal(x, 0, kFlagExternalInput);
    g.setExternal(y, 1, kFlagExternalOutput);
    PoolParams pp;
    pp.poolH = pp.poolW = pp.strideH = pp.strideW = 2;
    pp.dilationH = dilation;
    g.addPooling(kind, pp, x, y);
    return g.finish();
  };
  SECTION("a global average pooling keeps its rank only with the keep-dims flag") {
    // XNNPACK drops the pooled dims unless the node says keep-dims, whatever
    // the blob declares; upstream's runtime then refuses a 4-d output tensor
    // ("Size needs to be equal to the number of dimensions"). So does this
    // one: a flagless node declared [1, 1, 1, 2] builds, but its value is
    // [1, 2] at run time and binds only a rank-2 tensor.
    auto gap = [](std::vector<uint64_t> out, bool keep) {
      GraphWriter g;
      const uint32_t x = g.addValue({1, 3, 3, 2}), y = g.addValue(out);
      g.setExternal(x, 0, kFlagExternalInput);
      g.setExternal(y, 1, kFlagExternalOutput);
      if (keep)
        g.addGlobalAvgPool(x, y, 5);
      else
        g.addUnary(Kind::XNNGlobalAvgPooling2d, x, y, {}, 5);
      return g.finish();
    };
    Buf in({1, 3, 3, 2}, randoms(18, 3)), y2({1, 2}), y4({1, 1, 1, 2});
    std::vector<float> want(2, 0.0f);
    for (size_t i = 0; i < 18; ++i)
      want[i % 2] += in.data[i] / 9.0f;
    void *flagless = hs.init(gap({1, 1, 1, 2}, false));
    CHECK(hs.run(flagless, {&in, &y4}) == Error::InvalidArgument);
    CHECK(std::string(hs.message).find("has rank 4, the blob's value has rank 2 [1, 2]") !=
          std::string::npos);
    REQUIRE(hs.run(flagless, {&in, &y2}) == Error::Ok);
    requireClose(y2.data, want);
    void *kept = hs.init(gap({1, 1, 1, 2}, true));
    REQUIRE(hs.run(kept, {&in, &y4}) == Error::Ok);
    requireClose(y4.data, want);
    CHECK(hs.run(kept, {&in, &y2}) == Error::InvalidArgument);
    void *flat = hs.init(gap({1, 2}, false));
    std::fill(y2.data.begin(), y2.data.end(), 0.0f);
    REQUIRE(hs.run(flat, {&in, &y2}) == Error::Ok);
    requireClose(y2.data, want);
  }
  SECTION("a declared output smaller than what the operator writes") {
    hs.init(pooling(Kind::XNNMaxPooling2d, {1, 4, 4, 2}, {1, 1, 1, 2}), nullptr, {},
            Error::InvalidArgument);
    CHECK(std::string(hs.message).find("XNNMaxPooling2d") != std::string::npos);
  }
  SECTION("a convolution whose input has other channels than its groups read") {
    std::vector<float> filter = randoms(4 * 3 * 3 * 2, 1);
    GraphWriter g;
    const uint32_t x = g.addValue({1, 5, 5, 3}), y = g.addValue({1, 3, 3, 4});
    g.setExternal(x, 0, kFlagExternalInput);
    g.setExternal(y, 1, kFlagExternalOutput);
    ConvParams p;
    p.kernelH = p.kernelW = 3;
    p.groupInputChannels = 2, p.groupOutputChannels = 4;
    g.addConv(Kind::XNNConv2d, p, x, g.addConstantValue({4, 3, 3, 2}, filter.data()),
              kInvalidValueId, y, {});
    hs.init(g.finish(), nullptr, {}, Error::InvalidArgument);
    CHECK(std::string(hs.message).find("(NHWC) should have 2 channels") != std::string::npos);
  }
  SECTION("average pooling with dilation") {
    hs.init(pooling(Kind::XNNAvgPooling2d, {1, 6, 6, 2}, {1, 2, 2, 2}, /*dilation=*/2), nullptr,
            {}, Error::NotSupported);
    CHECK(std::string(hs.message).find("average pooling has no dilation") != std::string::npos);
  }
  SECTION("a failure after packing releases everything") {
    std::vector<float> w = randoms(8, 1), b = randoms(2, 2);
    GraphWriter g;
    const uint32_t x = g.addValue({1, 4}), y = g.addValue({1, 2}), z = g.addValue({1, 2});
    g.setExternal(x, 0, kFlagExternalInput);
    g.addFullyConnected(x, g.addConstantValue({2, 4}, w.data()), g.addConstantValue({2}, b.data()),
                        y);
    g.addUnary(Kind::XNNConvert, y, z); // fails after the linear was packed
    g.setExternal(z, 1, kFlagExternalOutput);
    hs.init(g.finish(), nullptr, {}, Error::NotSupported);
    CHECK(hs.backend.stats().packs.load() == 1);
    CHECK(hs.backend.stats().packedLive.load() == 0);
    CHECK(hs.backend.cache().size() == 0);
    CHECK(hs.backend.stats().handlesLive.load() == 0);
  }
}

TEST_CASE("xnnpack runtime: packed weights are shared within a program, not across",
          "[xnnpack][runtime][cache]") {
  const uint64_t k = 16, n = 8;
  std::vector<float> w = randoms(n * k, 11), b = randoms(n, 12);
  const std::string prefill = linearBlob(4, k, n, w, b), decode = linearBlob(1, k, n, w, b);
  Harness hs;
  Buf xp({4, int64_t(k)}, randoms(4 * k, 13)), yp({4, int64_t(n)});
  Buf xd({1, int64_t(k)}, randoms(k, 14)), yd({1, int64_t(n)});
  auto check = [&](void *p, void *d) {
    if (p) {
      REQUIRE(hs.run(p, {&xp, &yp}) == Error::Ok);
      requireClose(yp.data, linearRef(xp.data, k, n, w, b));
    }
    if (d) {
      REQUIRE(hs.run(d, {&xd, &yd}) == Error::Ok);
      requireClose(yd.data, linearRef(xd.data, k, n, w, b));
    }
  };
  SECTION("two methods of one program: one pack") {
    void *p = hs.init(prefill), *d = hs.init(decode);
    CHECK(hs.backend.stats().packs.load() == 1);
    CHECK(hs.backend.stats().cacheHits.load() == 1);
    CHECK(hs.backend.cache().size() == 1);
    check(p, d);
    hs.release(p); // decode keeps the packed weights
    CHECK(hs.backend.stats().packedLive.load() == 1);
    check(nullptr, d);
    hs.release(d);
    CHECK(hs.backend.cache().size() == 0);
    CHECK(hs.backend.stats().packedLive.load() == 0);
  }
  SECTION("two programs from identical bytes: one pack each, either destroyed first") {
    rt::MemoryAllocator other;
    const bool firstGoesFirst = GENERATE(true, false);
    void *a = hs.init(decode), *c = hs.init(decode, &other);
    CHECK(hs.backend.stats().packs.load() == 2);
    CHECK(hs.backend.cache().size() == 2);
    hs.release(firstGoesFirst ? a : c);
    check(nullptr, firstGoesFirst ? c : a);
    CHECK(hs.backend.cache().size() == 1);
  }
  SECTION("with the cache off every handle packs its own") {
    REQUIRE(hs.backend.setWeightCache(false) == Error::Ok);
    void *p = hs.init(prefill), *d = hs.init(decode);
    CHECK(hs.backend.stats().packs.load() == 2);
    CHECK(hs.backend.cache().size() == 0);
    check(p, d);
    CHECK(hs.backend.setWeightCache(true) == Error::InvalidState); // handles alive
  }
  SECTION("the pool size cannot change under a live handle") {
    hs.init(decode);
    CHECK(hs.backend.setThreads(1) == Error::InvalidState);
  }
}

TEST_CASE("xnnpack runtime: planned scratch, named data, argument checks",
          "[xnnpack][runtime]") {
  Harness hs(1);
  std::vector<float> w = randoms(6 * 4, 21), b = randoms(6, 22);
  // x -> linear -> sigmoid -> y: one intermediate, x staged.
  GraphWriter g;
  const uint32_t x = g.addValue({2, 4}), mid = g.addValue({2, 6}), y = g.addValue({2, 6});
  g.setExternal(x, 0, kFlagExternalInput);
  g.setExternal(y, 1, kFlagExternalOutput);
  const uint32_t wKey = g.addNamedConstant("lin.weight", w.size() * 4);
  g.addFullyConnected(x, g.addValue({6, 4}, wKey), g.addConstantValue({6}, b.data()), mid);
  g.addUnary(Kind::XNNSigmoid, mid, y);
  const std::string blob = g.finish();
  struct Named : rt::NamedDataMap {
    const std::vector<float> *w;
    rt::Result<rt::Span<const uint8_t>> get(const char *key) const override {
      if (std::string(key) != "lin.weight")
        return Error::NotFound;
      return rt::Span<const uint8_t>(reinterpret_cast<const uint8_t *>(w->data()), w->size() * 4);
    }
  } named;
  named.w = &w;
  std::vector<float> want = linearRef(randoms(8, 23), 4, 6, w, b);
  for (float &v : want)
    v = float(1.0 / (1.0 + std::exp(-double(v))));
  Buf in({2, 4}, randoms(8, 23)), out({2, 6});

  SECTION("named data missing: init names the key") {
    hs.init(blob, nullptr, {}, Error::NotFound);
    CHECK(std::string(hs.message).find("lin.weight") != std::string::npos);
  }
  SECTION("own workspace, then planned scratch: same results") {
    void *own = hs.init(blob, nullptr, {}, Error::Ok, &named);
    CHECK_FALSE(XnnpackBackend::usesPlannedScratch(own));
    const uint64_t need = XnnpackBackend::workspaceBytes(own);
    REQUIRE(need > 0);
    REQUIRE(hs.run(own, {&in, &out}) == Error::Ok);
    requireClose(out.data, want);
    std::vector<uint8_t> scratch(need + 64, 0xcd);
    rt::Span<uint8_t> span(scratch.data(), need);
    void *planned = hs.init(blob, nullptr, span, Error::Ok, &named);
    CHECK(XnnpackBackend::usesPlannedScratch(planned));
    std::fill(out.data.begin(), out.data.end(), 0.0f);
    REQUIRE(hs.run(planned, {&in, &out}) == Error::Ok);
    requireClose(out.data, want);
    CHECK(scratch[need] == 0xcd); // nothing written past the planned bytes
    rt::Span<uint8_t> small(scratch.data(), need - 1);
    CHECK_FALSE(XnnpackBackend::usesPlannedScratch(hs.init(blob, nullptr, small, Error::Ok, &named)));
  }
  SECTION("wrong arguments are InvalidArgument") {
    void *h = hs.init(blob, nullptr, {}, Error::Ok, &named);
    Buf wrongSize({3, 4}), otherRank({8}, randoms(8, 23)), otherDims({4, 2}, randoms(8, 23));
    CHECK(hs.run(h, {&wrongSize, &out}) == Error::InvalidArgument);
    CHECK(hs.run(h, {&in}) == Error::InvalidArgument);
    // Same elements at another rank or other sizes: upstream's runtime
    // reshapes the graph to the tensor's sizes (or, for an output, refuses
    // another rank), so neither binds as the blob's [2, 4].
    CHECK(hs.run(h, {&otherRank, &out}) == Error::InvalidArgument);
    CHECK(std::string(hs.message).find("has rank 1 (sizes [8]), the blob's value has rank 2") !=
          std::string::npos);
    CHECK(hs.run(h, {&otherDims, &out}) == Error::InvalidArgument);
    CHECK(std::string(hs.message).find("not within the bound [2, 4]") != std::string::npos);
    Buf flatOut({12});
    CHECK(hs.run(h, {&in, &flatOut}) == Error::InvalidArgument);
    CHECK(std::string(hs.message).find("has rank 1, the blob's value has rank 2") !=
          std::string::npos);
    // An output tensor of the program's: STATIC keeps its shape, and this
    // call's result is the shape it was declared with.
    out.t.setDynamism(rt::ShapeDynamism::Static);
    REQUIRE(hs.run(h, {&in, &out}) == Error::Ok);
    requireClose(out.data, want);
    rt::EValue notTensor = rt::EValue::fromInt(3);
    std::vector<rt::EValue *> args{&notTensor, &out.ev};
    rt::BackendExecuteContext ctx;
    CHECK(hs.backend.execute(ctx, h, rt::Span<rt::EValue *>(args.data(), 2)) ==
          Error::InvalidArgument);
  }
}

TEST_CASE("xnnpack runtime: concurrent inits and executes", "[xnnpack][runtime][threads]") {
  const uint64_t k = 32, n = 16;
  std::vector<float> w = randoms(n * k, 31), b = randoms(n, 32);
  const std::string blob4 = linearBlob(4, k, n, w, b), blob1 = linearBlob(1, k, n, w, b);
  Harness hs(2);
  // Several initializers race on one key: one packed operator survives.
  std::vector<void *> handles(4, nullptr);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < handles.size(); ++t)
    threads.emplace_back([&, t] {
      rt::BackendInitContext ctx;
      ctx.runtimeAllocator = &hs.allocator;
      const std::string &blob = t % 2 ? blob1 : blob4;
      rt::Result<void *> h = hs.backend.init(ctx, rt::ProcessedBlob{blob.data(), blob.size()}, {});
      handles[t] = h.ok() ? h.get() : nullptr;
    });
  for (std::thread &t : threads)
    t.join();
  for (void *h : handles) {
    REQUIRE(h != nullptr);
    hs.handles.push_back(h);
  }
  CHECK(hs.backend.cache().size() == 1);
  CHECK(hs.backend.stats().packs.load() == 1 + hs.backend.stats().lostRaces.load());
  // Every handle runs from its own thread at once; the shared operator is
  // set up and run under its mutex, each handle's workspace under its own.
  // Buffers are made here: Catch's assertions are not thread-safe.
  threads.clear();
  std::vector<int> failures(handles.size(), 0);
  std::vector<std::unique_ptr<Buf>> xs, ys;
  std::vector<std::vector<float>> wants;
  for (size_t t = 0; t < handles.size(); ++t) {
    const uint64_t m = t % 2 ? 1 : 4;
    xs.push_back(std::make_unique<Buf>(std::vector<int64_t>{int64_t(m), int64_t(k)},
                                       randoms(m * k, unsigned(40 + t))));
    ys.push_back(std::make_unique<Buf>(std::vector<int64_t>{int64_t(m), int64_t(n)}));
    wants.push_back(linearRef(xs.back()->data, k, n, w, b));
  }
  for (size_t t = 0; t < handles.size(); ++t)
    threads.emplace_back([&, t] {
      Buf &x = *xs[t], &y = *ys[t];
      const std::vector<float> &want = wants[t];
      for (int i = 0; i < 50; ++i) {
        std::fill(y.data.begin(), y.data.end(), 0.0f);
        std::vector<rt::EValue *> args{&x.ev, &y.ev};
        rt::BackendExecuteContext ctx;
        if (hs.backend.execute(ctx, handles[t], rt::Span<rt::EValue *>(args.data(), 2)) !=
            Error::Ok)
          ++failures[t];
        for (size_t j = 0; j < want.size(); ++j)
          if (std::fabs(y.data[j] - want[j]) > 1e-4f * (1 + std::fabs(want[j])))
            ++failures[t];
      }
    });
  for (std::thread &t : threads)
    t.join();
  for (int f : failures)
    CHECK(f == 0);
}

// PTEC_XNNPACK_THREADS takes what pte-run's --xnnpack-threads takes (0..1024);
// a value outside that made pthreadpool try to start billions of threads
// (a crash) or thousands (a hang). Now it is a configuration error every
// init reports, naming the variable.
TEST_CASE("xnnpack runtime: thread counts are bounded like --xnnpack-threads",
          "[xnnpack][runtime]") {
  size_t n = 99;
  std::string why;
  CHECK(parseThreadCount("0", &n, &why));
  CHECK(n == 0);
  CHECK(parseThreadCount("1024", &n, &why));
  CHECK(n == 1024);
  CHECK(parseThreadCount("007", &n, &why));
  CHECK(n == 7);
  for (const char *bad : {"1025", "100000", "99999999999999999999", "18446744073709551617"}) {
    INFO(bad);
    CHECK_FALSE(parseThreadCount(bad, &n, &why));
    CHECK(why.find("above the limit of 1024") != std::string::npos);
  }
  for (const char *bad : {"", "-1", "+2", " 2", "2 ", "1.5", "nan", "inf", "0x10", "1e3"}) {
    INFO(bad);
    CHECK_FALSE(parseThreadCount(bad, &n, &why));
  }
  CHECK(n == 7); // untouched by a refusal

  Harness hs;
  CHECK(hs.backend.setThreads(1025) == Error::InvalidArgument);
  CHECK(hs.backend.setThreads(1024) == Error::Ok);
  GraphWriter g;
  const uint32_t x = g.addValue({4}), y = g.addValue({4});
  g.setExternal(x, 0, kFlagExternalInput);
  g.setExternal(y, 1, kFlagExternalOutput);
  g.addUnary(Kind::XNNSigmoid, x, y);
  const std::string blob = g.finish();
  hs.backend.setConfigError("PTEC_XNNPACK_THREADS: 'x' is not a whole number of threads");
  hs.init(blob, Error::InvalidArgument);
  CHECK(std::string(hs.message).find("PTEC_XNNPACK_THREADS") != std::string::npos);
  // An explicit setting replaces the variable's.
  REQUIRE(hs.backend.setThreads(2) == Error::Ok);
  hs.init(blob);
  CHECK(hs.backend.threads() == 2);
}
