// Helpers of the XnnpackBackend runtime tests: the harness (one backend,
// init that requires the wanted error, the backend's message kept in
// `message` and shown on failure, run over the test's tensor type, anything
// with an EValue `ev`, and every handle it made destroyed at the end), random
// floats and the float reference of a linear layer.
#pragma once

#include "backends/xnnpack/runtime/XnnpackBackend.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace ptec::xnnpack::test {

/// `n` floats uniform in [lo, hi), the same for the same seed.
inline std::vector<float> randoms(size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(g);
  return v;
}

/// y = x W^T + b over the rows of x (k wide), W [n, k], accumulated in double.
inline std::vector<float> linearRef(const std::vector<float> &x, uint64_t k, uint64_t n,
                                    const std::vector<float> &w, const std::vector<float> &b) {
  const uint64_t m = x.size() / k;
  std::vector<float> y(m * n);
  for (uint64_t r = 0; r < m; ++r)
    for (uint64_t j = 0; j < n; ++j) {
      double acc = b[j];
      for (uint64_t i = 0; i < k; ++i)
        acc += double(x[r * k + i]) * w[j * k + i];
      y[r * n + j] = float(acc);
    }
  return y;
}

template <class Buf> struct BackendHarness {
  explicit BackendHarness(size_t threads = 2) {
    REQUIRE(backend.setThreads(threads) == rt::Error::Ok);
  }
  ~BackendHarness() {
    for (void *h : handles)
      backend.destroy(h);
  }
  BackendHarness(const BackendHarness &) = delete;
  BackendHarness &operator=(const BackendHarness &) = delete;

  void *init(const std::string &blob, rt::Error want = rt::Error::Ok) {
    return init(blob, nullptr, {}, want);
  }
  void *init(const std::string &blob, rt::MemoryAllocator *alloc, rt::Span<uint8_t> scratch = {},
             rt::Error want = rt::Error::Ok, const rt::NamedDataMap *named = nullptr) {
    rt::BackendInitContext ctx;
    ctx.runtimeAllocator = alloc ? alloc : &allocator;
    ctx.scratch = scratch;
    ctx.namedData = named;
    message[0] = '\0';
    ctx.errorMessage = message;
    ctx.errorMessageSize = sizeof message;
    rt::Result<void *> h = backend.init(ctx, rt::ProcessedBlob{blob.data(), blob.size()}, {});
    INFO(message);
    REQUIRE(h.error() == want);
    if (!h.ok())
      return nullptr;
    handles.push_back(h.get());
    return h.get();
  }
  rt::Error run(void *h, std::vector<Buf *> args) {
    std::vector<rt::EValue *> ev;
    for (Buf *b : args)
      ev.push_back(&b->ev);
    rt::BackendExecuteContext ctx;
    message[0] = '\0';
    ctx.errorMessage = message;
    ctx.errorMessageSize = sizeof message;
    return backend.execute(ctx, h, rt::Span<rt::EValue *>(ev.data(), ev.size()));
  }
  void release(void *h) {
    backend.destroy(h);
    handles.erase(std::find(handles.begin(), handles.end(), h));
  }

  XnnpackBackend backend;
  rt::MemoryAllocator allocator;
  std::vector<void *> handles;
  char message[512] = {};
};

} // namespace ptec::xnnpack::test
