// The node kinds XnnpackBackend runs with its own kernels (concatenate,
// slice, batch matrix multiply, attention, tanh / gelu / exp / log / sin /
// rsqrt), 0-d values, and inputs below the blob's bound (dynamic shapes):
// blobs in upstream's format from GraphWriter, run through the backend,
// against naive references written here (not the runtime's code).
#include "backends/xnnpack/format/XnnCapability.h"
#include "backends/xnnpack/format/XnnGraphWriter.h"
#include "backends/xnnpack/runtime/XnnpackBackend.h"
#include "test/unit/xnnpack/XnnRuntimeTestUtil.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace ptec;
using namespace ptec::xnnpack;
using rt::Error;
namespace fb = fb_xnnpack;
using Kind = fb::XNodeUnion;

namespace {

using test::linearRef;
using test::randoms;

size_t count(const std::vector<int64_t> &shape) {
  size_t n = 1;
  for (int64_t d : shape)
    n *= size_t(d);
  return n;
}

/// A float tensor over its own data, with room for `capacity` elements.
struct Buf {
  Buf(std::vector<int64_t> shape, std::vector<float> values = {}, size_t capacity = 0) {
    const size_t n = count(shape);
    data = values.empty() ? std::vector<float>(n, 0.0f) : std::move(values);
    REQUIRE(data.size() == n);
    data.resize(std::max(n, capacity));
    REQUIRE(t.init(rt::ScalarType::Float, rt::Span<const int64_t>(shape.data(), shape.size())) ==
            Error::Ok);
    t.setData(data.data(), data.size() * sizeof(float));
    ev = rt::EValue::fromTensor(&t);
  }
  std::vector<int64_t> sizes() const {
    return std::vector<int64_t>(t.sizes().begin(), t.sizes().end());
  }
  std::vector<float> values() const { return {data.begin(), data.begin() + t.numel()}; }
  std::vector<float> data;
  rt::Tensor t;
  rt::EValue ev;
};

struct Harness : test::BackendHarness<Buf> {
  Harness() : BackendHarness(1) {}
};

void requireClose(const std::vector<float> &got, const std::vector<float> &want,
                  double tol = 1e-5) {
  REQUIRE(got.size() == want.size());
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(double(got[i]) - want[i]) <= tol * (1 + std::fabs(double(want[i]))))) {
      if (bad++ == 0)
        first = i;
    }
  INFO(bad << " of " << got.size() << " differ; first at " << first << ": "
            << (bad ? got[first] : 0) << " vs " << (bad ? want[first] : 0));
  CHECK(bad == 0);
}

/// Row-major flat index of `idx` in `dims`.
size_t flat(const std::vector<size_t> &idx, const std::vector<uint64_t> &dims) {
  size_t f = 0;
  for (size_t k = 0; k < dims.size(); ++k)
    f = f * dims[k] + idx[k];
  return f;
}

/// Calls `fn(idx)` for every multi-index of `dims` in row-major order.
template <typename F> void forEach(const std::vector<uint64_t> &dims, F fn) {
  size_t n = 1;
  for (uint64_t d : dims)
    n *= d;
  std::vector<size_t> idx(dims.size(), 0);
  for (size_t i = 0; i < n; ++i) {
    fn(idx);
    for (size_t k = dims.size(); k-- > 0;) {
      if (++idx[k] < dims[k])
        break;
      idx[k] = 0;
    }
  }
}

std::vector<int64_t> sizesOf(const std::vector<uint64_t> &d) { return {d.begin(), d.end()}; }

/// One node with inputs `ins` (external 0..) and output `outDims` (external last).
template <typename AddNode>
std::string oneNode(const std::vector<std::vector<uint64_t>> &ins,
                    const std::vector<uint64_t> &outDims, AddNode add) {
  GraphWriter g;
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < ins.size(); ++i) {
    ids.push_back(g.addValue(ins[i]));
    g.setExternal(ids.back(), uint32_t(i), kFlagExternalInput);
  }
  const uint32_t y = g.addValue(outDims);
  g.setExternal(y, uint32_t(ins.size()), kFlagExternalOutput);
  add(g, ids, y);
  return g.finish();
}

} // namespace

TEST_CASE("xnnpack own kernels: every unary kind this XNNPACK lacks", "[xnnpack][own]") {
  struct Case {
    Kind kind;
    double (*ref)(double);
    float lo, hi;
  };
  const Case cases[] = {
      {Kind::XNNTanh, [](double x) { return std::tanh(x); }, -4, 4},
      {Kind::XNNGelu, [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }, -4, 4},
      {Kind::XNNExp, [](double x) { return std::exp(x); }, -4, 4},
      {Kind::XNNLog, [](double x) { return std::log(x); }, 0.01f, 10},
      {Kind::XNNSin, [](double x) { return std::sin(x); }, -6, 6},
      {Kind::XNNCos, [](double x) { return std::cos(x); }, -6, 6},
      {Kind::XNNCopy, [](double x) { return x; }, -6, 6},
      {Kind::XNNReciprocalSquareRoot, [](double x) { return 1 / std::sqrt(x); }, 0.01f, 10},
  };
  for (const Case &c : cases) {
    INFO(nodeKindName(c.kind));
    CHECK(nodeCapability(c.kind).runsOn == RunsOn::OwnKernel);
    Harness hs;
    const std::vector<uint64_t> dims{2, 3, 5};
    void *h = hs.init(oneNode({dims}, dims, [&](GraphWriter &g, auto ids, uint32_t y) {
      g.addUnary(c.kind, ids[0], y);
    }));
    Buf x(sizesOf(dims), randoms(30, 7, c.lo, c.hi)), y(sizesOf(dims));
    REQUIRE(hs.run(h, {&x, &y}) == Error::Ok);
    std::vector<float> want;
    for (float v : x.values())
      want.push_back(float(c.ref(v)));
    requireClose(y.values(), want);
  }
}

TEST_CASE("xnnpack own kernels: concatenate 2 to 5 inputs on every axis", "[xnnpack][own]") {
  for (size_t n = 2; n <= 5; ++n)
    for (uint32_t axis = 0; axis < 3; ++axis) {
      INFO(n << " inputs, axis " << axis);
      std::vector<std::vector<uint64_t>> ins;
      std::vector<uint64_t> out{2, 3, 4};
      out[axis] = 0;
      for (size_t i = 0; i < n; ++i) {
        std::vector<uint64_t> d{2, 3, 4};
        d[axis] = i + 1;
        out[axis] += i + 1;
        ins.push_back(d);
      }
      Harness hs;
      void *h = hs.init(oneNode(ins, out, [&](GraphWriter &g, auto ids, uint32_t y) {
        g.addConcat(axis, ids, y, 3);
      }));
      std::vector<Buf> bufs;
      bufs.reserve(n + 1);
      for (size_t i = 0; i < n; ++i)
        bufs.emplace_back(sizesOf(ins[i]), randoms(count(sizesOf(ins[i])), unsigned(10 + i)));
      bufs.emplace_back(sizesOf(out));
      std::vector<Buf *> args;
      for (Buf &b : bufs)
        args.push_back(&b);
      REQUIRE(hs.run(h, args) == Error::Ok);
      std::vector<float> want(count(sizesOf(out)));
      forEach(out, [&](const std::vector<size_t> &idx) {
        std::vector<size_t> src = idx;
        size_t i = 0;
        while (src[axis] >= ins[i][axis])
          src[axis] -= ins[i][axis], ++i;
        want[flat(idx, out)] = bufs[i].data[flat(src, ins[i])];
      });
      requireClose(bufs[n].values(), want, 0);
    }
}

TEST_CASE("xnnpack own kernels: static slice", "[xnnpack][own]") {
  const std::vector<uint64_t> in{3, 5, 4};
  struct Case {
    std::vector<uint32_t> offsets, sizes;
    std::vector<uint64_t> out;
  };
  const Case cases[] = {{{1, 2, 0}, {2, 3, 4}, {2, 3, 4}},
                        {{0, 0, 1}, {3, 5, 2}, {3, 5, 2}},
                        {{2, 1, 3}, {1, 0, 1}, {1, 4, 1}}}; // size 0: to the end
  for (const Case &c : cases) {
    Harness hs;
    void *h = hs.init(oneNode({in}, c.out, [&](GraphWriter &g, auto ids, uint32_t y) {
      g.addSlice(ids[0], y, c.offsets, c.sizes);
    }));
    Buf x(sizesOf(in), randoms(60, 3)), y(sizesOf(c.out));
    REQUIRE(hs.run(h, {&x, &y}) == Error::Ok);
    std::vector<float> want(count(sizesOf(c.out)));
    forEach(c.out, [&](const std::vector<size_t> &idx) {
      std::vector<size_t> src = idx;
      for (size_t k = 0; k < 3; ++k)
        src[k] += c.offsets[k];
      want[flat(idx, c.out)] = x.data[flat(src, in)];
    });
    requireClose(y.values(), want, 0);
  }
  SECTION("a slice past the input is refused at init") {
    Harness hs;
    hs.init(oneNode({in}, {2, 3, 4}, [&](GraphWriter &g, auto ids, uint32_t y) {
      g.addSlice(ids[0], y, {2, 0, 0}, {2, 3, 4});
    }),
            Error::InvalidArgument);
    CHECK(std::string(hs.message).find("XNNStaticSlice") != std::string::npos);
  }
}

TEST_CASE("xnnpack own kernels: batch matrix multiply", "[xnnpack][own]") {
  struct Case {
    std::vector<uint64_t> a, b, out;
    uint32_t flags;
  };
  const Case cases[] = {
      {{2, 3, 4}, {2, 4, 5}, {2, 3, 5}, 0},
      {{2, 3, 4}, {2, 5, 4}, {2, 3, 5}, 1},   // transpose b
      {{3, 4}, {2, 4, 5}, {2, 3, 5}, 0},      // a broadcast over b's batch
      {{2, 1, 3, 4}, {1, 3, 4, 2}, {2, 3, 3, 2}, 0},
  };
  for (const Case &c : cases) {
    INFO("flags " << c.flags << ", a rank " << c.a.size());
    Harness hs;
    void *h = hs.init(oneNode({c.a, c.b}, c.out, [&](GraphWriter &g, auto ids, uint32_t y) {
      g.addBatchMatMul(ids[0], ids[1], y, c.flags);
    }));
    Buf a(sizesOf(c.a), randoms(count(sizesOf(c.a)), 1)),
        b(sizesOf(c.b), randoms(count(sizesOf(c.b)), 2)), y(sizesOf(c.out));
    REQUIRE(hs.run(h, {&a, &b, &y}) == Error::Ok);
    const size_t r = c.out.size();
    const size_t K = c.a.back();
    std::vector<float> want(count(sizesOf(c.out)));
    forEach(c.out, [&](const std::vector<size_t> &idx) {
      // Batch index of an operand: broadcast dims of size 1 read index 0.
      auto at = [&](const std::vector<uint64_t> &d, size_t row, size_t col) {
        std::vector<size_t> i(d.size());
        const size_t pad = r - d.size();
        for (size_t k = 0; k + 2 < d.size(); ++k)
          i[k] = d[k] == 1 ? 0 : idx[k + pad];
        i[d.size() - 2] = row, i[d.size() - 1] = col;
        return flat(i, d);
      };
      double acc = 0;
      for (size_t k = 0; k < K; ++k)
        acc += double(a.data[at(c.a, idx[r - 2], k)]) *
               b.data[c.flags ? at(c.b, idx[r - 1], k) : at(c.b, k, idx[r - 1])];
      want[flat(idx, c.out)] = float(acc);
    });
    requireClose(y.values(), want);
  }
  SECTION("batch dims that are neither equal nor 1 are refused at init") {
    Harness hs;
    hs.init(oneNode({{2, 3, 4}, {4, 4, 5}}, {4, 3, 5},
                    [&](GraphWriter &g, auto ids, uint32_t y) {
                      g.addBatchMatMul(ids[0], ids[1], y);
                    }),
            Error::InvalidArgument);
    CHECK(std::string(hs.message).find("do not broadcast") != std::string::npos);
  }
}

namespace {

/// softmax(q * scale . k + mask) . v, q [B, H, T, C]; k, v [B, H, U, *] or
/// (multi-query) [B, U, *].
std::vector<float> attentionRef(const Buf &q, const Buf &k, const Buf &v,
                                const std::vector<float> &scale, const Buf *mask, size_t B,
                                size_t H, size_t T, size_t C, size_t U, size_t D,
                                bool multiQuery) {
  std::vector<float> out(B * H * T * D);
  for (size_t b = 0; b < B; ++b)
    for (size_t h = 0; h < H; ++h)
      for (size_t t = 0; t < T; ++t) {
        const size_t kv = multiQuery ? b : b * H + h;
        std::vector<double> logits(U);
        double hi = -1e300;
        for (size_t u = 0; u < U; ++u) {
          double s = 0;
          for (size_t c = 0; c < C; ++c)
            s += double(q.data[((b * H + h) * T + t) * C + c]) * scale[c] *
                 k.data[(kv * U + u) * C + c];
          if (mask)
            s += mask->data[t * U + u];
          logits[u] = s;
          hi = std::max(hi, s);
        }
        double sum = 0;
        for (double &l : logits)
          sum += (l = std::exp(l - hi));
        for (size_t d = 0; d < D; ++d) {
          double acc = 0;
          for (size_t u = 0; u < U; ++u)
            acc += logits[u] / sum * v.data[(kv * U + u) * D + d];
          out[((b * H + h) * T + t) * D + d] = float(acc);
        }
      }
  return out;
}

} // namespace

TEST_CASE("xnnpack own kernels: scaled dot-product attention", "[xnnpack][own]") {
  const size_t B = 2, H = 3, T = 4, C = 8, U = 5, D = 6;
  for (int variant = 0; variant < 3; ++variant) {
    const bool multiQuery = variant == 1, masked = variant != 2;
    INFO("multi-query " << multiQuery << ", mask " << masked);
    std::vector<uint64_t> qd{B, H, T, C}, kd{B, H, U, C}, vd{B, H, U, D};
    if (multiQuery)
      kd = {B, U, C}, vd = {B, U, D};
    std::vector<float> scale(C, 1.0f / std::sqrt(float(C)));
    scale[1] = 0.5f; // a per-channel scale, as XNNPACK takes it
    GraphWriter g;
    const uint32_t q = g.addValue(qd), k = g.addValue(kd), v = g.addValue(vd),
                   m = g.addValue({T, U}), y = g.addValue({B, H, T, D});
    g.setExternal(q, 0, kFlagExternalInput);
    g.setExternal(k, 1, kFlagExternalInput);
    g.setExternal(v, 2, kFlagExternalInput);
    g.setExternal(m, 3, kFlagExternalInput);
    g.setExternal(y, 4, kFlagExternalOutput);
    g.addAttention(q, k, v, g.addConstantValue({C}, scale.data()), masked ? m : kInvalidValueId,
                   y);
    Harness hs;
    void *h = hs.init(g.finish());
    Buf qb(sizesOf(qd), randoms(B * H * T * C, 1)), kb(sizesOf(kd), randoms(count(sizesOf(kd)), 2)),
        vb(sizesOf(vd), randoms(count(sizesOf(vd)), 3)), mb({T, U}, randoms(T * U, 4, -2, 0)),
        yb({B, H, T, D});
    REQUIRE(hs.run(h, {&qb, &kb, &vb, &mb, &yb}) == Error::Ok);
    requireClose(yb.values(), attentionRef(qb, kb, vb, scale, masked ? &mb : nullptr, B, H, T, C,
                                           U, D, multiQuery));
  }
}

TEST_CASE("xnnpack runtime: 0-d values are computed as [1]", "[xnnpack][own][zerodim]") {
  // What the partitioner takes for aten::add.Scalar on a 0-d tensor: a 0-d
  // input, a [1] constant, a 0-d output.
  CHECK(nodeCapability(Kind::XNNAdd).zeroDim);
  CHECK(capabilityTakes(nodeCapability(Kind::XNNAdd), fb::XNNDatatype::xnn_datatype_fp32, 0));
  CHECK_FALSE(nodeCapability(Kind::XNNConv2d).zeroDim);
  const float half = 0.5f;
  GraphWriter g;
  const uint32_t x = g.addValue({}), t = g.addValue({}), y = g.addValue({});
  g.setExternal(x, 0, kFlagExternalInput);
  g.setExternal(y, 1, kFlagExternalOutput);
  g.addBinary(Kind::XNNAdd, x, g.addConstantValue({1}, &half), t);
  g.addUnary(Kind::XNNTanh, t, y);
  Harness hs;
  void *h = hs.init(g.finish());
  Buf xb({}, {0.25f}), yb({});
  REQUIRE(hs.run(h, {&xb, &yb}) == Error::Ok);
  CHECK(yb.t.dim() == 0);
  CHECK(yb.data[0] == Approx(std::tanh(0.75)).epsilon(1e-6));
}

TEST_CASE("xnnpack runtime: inputs below the bound (dynamic batch)", "[xnnpack][dynamic]") {
  // Upstream writes the upper bound [4, 8]; calls bring 1..4 rows. Two
  // outputs: the linear's (XNNPACK) and its tanh (an own kernel).
  const size_t K = 8, N = 5;
  std::vector<float> w = randoms(N * K, 1), b = randoms(N, 2);
  GraphWriter g;
  const uint32_t x = g.addValue({4, K}), t = g.addValue({4, N}), y = g.addValue({4, N});
  g.setExternal(x, 0, kFlagExternalInput);
  g.setExternal(t, 1, kFlagExternalOutput);
  g.setExternal(y, 2, kFlagExternalOutput);
  g.addFullyConnected(x, g.addConstantValue({N, K}, w.data()), g.addConstantValue({N}, b.data()),
                      t);
  g.addUnary(Kind::XNNTanh, t, y);
  Harness hs;
  void *h = hs.init(g.finish());
  for (int64_t rows : {1, 3, 4, 2, 2}) {
    INFO(rows << " rows");
    Buf xb({rows, int64_t(K)}, randoms(rows * K, unsigned(rows))), tb({4, int64_t(N)}),
        yb({4, int64_t(N)});
    std::fill(tb.data.begin(), tb.data.end(), 42.0f);
    std::fill(yb.data.begin(), yb.data.end(), 42.0f);
    REQUIRE(hs.run(h, {&xb, &tb, &yb}) == Error::Ok);
    CHECK(tb.sizes() == std::vector<int64_t>{rows, int64_t(N)});
    CHECK(yb.sizes() == std::vector<int64_t>{rows, int64_t(N)});
    // Nothing is written past this call's rows.
    for (Buf *o : {&tb, &yb})
      CHECK(std::count(o->data.begin() + rows * N, o->data.end(), 42.0f) ==
            (4 - rows) * int64_t(N));
    std::vector<float> want = linearRef(xb.values(), K, N, w, b);
    requireClose(tb.values(), want, 1e-4);
    for (float &v : want)
      v = std::tanh(v);
    requireClose(yb.values(), want, 1e-4);
  }
  SECTION("an input above the bound is refused, saying why") {
    Buf xb({5, int64_t(K)}), tb({5, int64_t(N)}), yb({5, int64_t(N)});
    CHECK(hs.run(h, {&xb, &tb, &yb}) == Error::InvalidArgument);
    const std::string m = hs.message;
    INFO(m);
    CHECK(m.find("[5, 8]") != std::string::npos);
    CHECK(m.find("bound [4, 8]") != std::string::npos);
    // The handle still runs within the bound afterwards.
    Buf ok({2, int64_t(K)}, randoms(2 * K, 9)), tout({4, int64_t(N)}), out({4, int64_t(N)});
    REQUIRE(hs.run(h, {&ok, &tout, &out}) == Error::Ok);
    CHECK(out.sizes() == std::vector<int64_t>{2, int64_t(N)});
  }
  SECTION("an output without room is refused, saying why") {
    Buf xb({3, int64_t(K)}), tb({3, int64_t(N)}), yb({1, int64_t(N)});
    CHECK(hs.run(h, {&xb, &tb, &yb}) == Error::InvalidArgument);
    CHECK(std::string(hs.message).find("output value") != std::string::npos);
  }
}

TEST_CASE("xnnpack runtime: a tensor binds a value at its own sizes, not the blob's",
          "[xnnpack][dynamic]") {
  // Upstream's runtime reshapes an input value to its tensor's sizes and
  // binds an output only at the value's rank, so a [1, 4, 1, 1] tensor does
  // not stand for a [1, 1, 1, 4] value (same bytes): refused here (its dim 1
  // is above the bound), as a rank-3 output is.
  GraphWriter g;
  const uint32_t x = g.addValue({1, 1, 1, 4}), y = g.addValue({1, 1, 1, 4});
  g.setExternal(x, 0, kFlagExternalInput);
  g.setExternal(y, 1, kFlagExternalOutput);
  g.addUnary(Kind::XNNTanh, x, y);
  Harness hs;
  void *h = hs.init(g.finish());
  Buf xb({1, 4, 1, 1}, {0.1f, -0.2f, 0.3f, -0.4f}), yb({1, 4, 1, 1});
  CHECK(hs.run(h, {&xb, &yb}) == Error::InvalidArgument);
  CHECK(std::string(hs.message).find("not within the bound [1, 1, 1, 4]") != std::string::npos);
  Buf x4({1, 1, 1, 4}, {0.1f, -0.2f, 0.3f, -0.4f}), y3({1, 1, 4});
  CHECK(hs.run(h, {&x4, &y3}) == Error::InvalidArgument);
  CHECK(std::string(hs.message).find("has rank 3, the blob's value has rank 4") !=
        std::string::npos);
  Buf y4({1, 1, 1, 4});
  REQUIRE(hs.run(h, {&x4, &y4}) == Error::Ok);
  CHECK(y4.sizes() == std::vector<int64_t>{1, 1, 1, 4});
  CHECK(y4.data[3] == Approx(std::tanh(-0.4)).epsilon(1e-6));
}

TEST_CASE("xnnpack runtime: spatial sizes below the bound (conv, pool)", "[xnnpack][dynamic]") {
  // NHWC [2, 8, 8, 3] bound -> conv 3x3 pad 1 (4 channels) -> max pool 2x2.
  const size_t CI = 3, CO = 4;
  std::vector<float> w = randoms(CO * 3 * 3 * CI, 5), b = randoms(CO, 6);
  GraphWriter g;
  const uint32_t x = g.addValue({2, 8, 8, CI}), c = g.addValue({2, 8, 8, CO}),
                 y = g.addValue({2, 4, 4, CO});
  g.setExternal(x, 0, kFlagExternalInput);
  g.setExternal(y, 1, kFlagExternalOutput);
  ConvParams cp;
  cp.padTop = cp.padBottom = cp.padLeft = cp.padRight = 1;
  cp.kernelH = cp.kernelW = 3;
  cp.groupInputChannels = CI, cp.groupOutputChannels = CO;
  g.addConv(Kind::XNNConv2d, cp, x, g.addConstantValue({CO, 3, 3, CI}, w.data()),
            g.addConstantValue({CO}, b.data()), c);
  PoolParams pp;
  pp.poolH = pp.poolW = pp.strideH = pp.strideW = 2;
  g.addPooling(Kind::XNNMaxPooling2d, pp, c, y);
  Harness hs;
  void *h = hs.init(g.finish());
  struct Size { int64_t n, hgt, wid; };
  for (Size s : {Size{1, 5, 6}, Size{2, 8, 8}, Size{1, 2, 3}, Size{2, 7, 4}}) {
    INFO(s.n << "x" << s.hgt << "x" << s.wid);
    const size_t N = s.n, H = s.hgt, W = s.wid;
    Buf xb({s.n, s.hgt, s.wid, int64_t(CI)}, randoms(N * H * W * CI, unsigned(H * W)));
    Buf yb({2, 4, 4, int64_t(CO)});
    REQUIRE(hs.run(h, {&xb, &yb}) == Error::Ok);
    const size_t OH = H / 2, OW = W / 2;
    CHECK(yb.sizes() == std::vector<int64_t>{s.n, int64_t(OH), int64_t(OW), int64_t(CO)});
    // Naive NHWC conv, then 2x2 max.
    std::vector<float> conv(N * H * W * CO);
    for (size_t n = 0; n < N; ++n)
      for (size_t i = 0; i < H; ++i)
        for (size_t j = 0; j < W; ++j)
          for (size_t o = 0; o < CO; ++o) {
            double acc = b[o];
            for (size_t ki = 0; ki < 3; ++ki)
              for (size_t kj = 0; kj < 3; ++kj) {
                const int64_t si = int64_t(i + ki) - 1, sj = int64_t(j + kj) - 1;
                if (si < 0 || sj < 0 || si >= int64_t(H) || sj >= int64_t(W))
                  continue;
                for (size_t ci = 0; ci < CI; ++ci)
                  acc += double(xb.data[((n * H + size_t(si)) * W + size_t(sj)) * CI + ci]) *
                         w[((o * 3 + ki) * 3 + kj) * CI + ci];
              }
            conv[((n * H + i) * W + j) * CO + o] = float(acc);
          }
    std::vector<float> want(N * OH * OW * CO);
    for (size_t n = 0; n < N; ++n)
      for (size_t i = 0; i < OH; ++i)
        for (size_t j = 0; j < OW; ++j)
          for (size_t o = 0; o < CO; ++o) {
            float m = -INFINITY;
            for (size_t di = 0; di < 2; ++di)
              for (size_t dj = 0; dj < 2; ++dj)
                m = std::max(m, conv[((n * H + 2 * i + di) * W + 2 * j + dj) * CO + o]);
            want[((n * OH + i) * OW + j) * CO + o] = m;
          }
    requireClose(yb.values(), want, 1e-4);
  }
}

TEST_CASE("xnnpack runtime: dynamic last dim, inferred reshape, own kernels",
          "[xnnpack][dynamic]") {
  // x [2, <=6] -> softmax (its channel count changes) -> concat with x on
  // axis 1 -> reshape new_shape [0, 2] (upstream's -1) -> out [12, 2] bound.
  GraphWriter g;
  const uint32_t x = g.addValue({2, 6}), s = g.addValue({2, 6}), c = g.addValue({2, 12}),
                 y = g.addValue({12, 2});
  g.setExternal(x, 0, kFlagExternalInput);
  g.setExternal(y, 1, kFlagExternalOutput);
  g.addUnary(Kind::XNNSoftmax, x, s);
  g.addConcat(1, {s, x}, c);
  g.addReshapeTo(c, y, {0, 2});
  Harness hs;
  void *h = hs.init(g.finish());
  for (int64_t cols : {3, 6, 1, 4}) {
    INFO(cols << " columns");
    const size_t C = size_t(cols);
    Buf xb({2, cols}, randoms(2 * C, unsigned(C))), yb({12, 2});
    REQUIRE(hs.run(h, {&xb, &yb}) == Error::Ok);
    CHECK(yb.sizes() == std::vector<int64_t>{2 * cols, 2});
    std::vector<float> want;
    for (size_t r = 0; r < 2; ++r) {
      double sum = 0;
      for (size_t j = 0; j < C; ++j)
        sum += std::exp(double(xb.data[r * C + j]));
      for (size_t j = 0; j < C; ++j)
        want.push_back(float(std::exp(double(xb.data[r * C + j])) / sum));
      for (size_t j = 0; j < C; ++j)
        want.push_back(xb.data[r * C + j]);
    }
    requireClose(yb.values(), want, 1e-5);
  }
}

TEST_CASE("xnnpack capability table: a row for every node kind of the schema",
          "[xnnpack][capability]") {
  for (Kind k : fb::EnumValuesXNodeUnion()) {
    if (k == Kind::NONE)
      continue;
    INFO(nodeKindName(k));
    const NodeCapability &c = nodeCapability(k);
    // Upstream's float32 node kinds all run; only these two do not.
    const bool none = k == Kind::XNNConvert || k == Kind::XNNArgMaxPooling2d;
    CHECK((c.runsOn == RunsOn::Unsupported) == none);
    if (none) {
      CHECK(std::string(c.why).size() > 0);
      continue;
    }
    CHECK(c.maxRank >= 1);
    CHECK(c.maxRank <= 6);
    CHECK(capabilityTakes(c, fb::XNNDatatype::xnn_datatype_fp32, c.maxRank));
    CHECK_FALSE(capabilityTakes(c, fb::XNNDatatype::xnn_datatype_fp32, size_t(c.maxRank) + 1));
    CHECK(capabilityTakes(c, fb::XNNDatatype::xnn_datatype_fp32, 0) == c.zeroDim);
    // float16 runs wherever float32 does (computed in float32, rounded per
    // node); the table lists no integer datatype.
    CHECK(capabilityTakes(c, fb::XNNDatatype::xnn_datatype_fp16, c.maxRank));
    CHECK(capabilityTakes(c, fb::XNNDatatype::xnn_datatype_fp16, 0) == c.zeroDim);
    CHECK_FALSE(capabilityTakes(c, fb::XNNDatatype::xnn_datatype_qint8, 1));
  }
  CHECK(nodeCapability(static_cast<Kind>(99)).runsOn == RunsOn::Unsupported);
  CHECK(nodeCapability(Kind::XNNScaledDotProductAttention).runsOn == RunsOn::OwnKernel);
  CHECK(nodeCapability(Kind::XNNConv2d).runsOn == RunsOn::Xnnpack);
}
