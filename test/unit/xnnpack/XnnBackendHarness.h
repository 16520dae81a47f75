// The XnnpackBackend harness of the runtime tests: one backend, init that
// requires the wanted error (the backend's message kept in `message` and shown
// on failure), run over the test's tensor type (anything with an EValue `ev`)
// and every handle it made destroyed at the end.
#pragma once

#include "backends/xnnpack/runtime/XnnpackBackend.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace ptec::xnnpack::test {

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
