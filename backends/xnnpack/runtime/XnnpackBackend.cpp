//===- XnnpackBackend.cpp - the runtime half of XnnpackBackend ------------===//

#include "backends/xnnpack/runtime/XnnpackBackend.h"

#include "backends/xnnpack/runtime/XnnDelegate.h"

#include <pthreadpool.h>

#include <algorithm>
#include <cstring>
#include <thread>

namespace ptec::xnnpack {

using rt::Error;
using rt::Result;

namespace {

/// xnn_initialize once per process; its status for every later caller.
xnn_status initializeLibrary() {
  static const xnn_status status = xnn_initialize(nullptr);
  return status;
}

/// Copies `why` into a context's message buffer (init and execute alike).
template <typename Context> void report(Context &ctx, const std::string &why) {
  if (ctx.errorMessage == nullptr || ctx.errorMessageSize == 0)
    return;
  const size_t n = std::min(why.size(), ctx.errorMessageSize - 1);
  std::memcpy(ctx.errorMessage, why.data(), n);
  ctx.errorMessage[n] = '\0';
}

} // namespace

void XnnpackStats::reset() {
  inits = 0;
  packs = 0;
  cacheHits = 0;
  lostRaces = 0;
  weightBytesPacked = 0;
  executes = 0;
  // packedLive and handlesLive describe live objects: never reset.
}

XnnpackBackend::XnnpackBackend() = default;

XnnpackBackend::~XnnpackBackend() {
  if (pool_ != nullptr)
    pthreadpool_destroy(pool_);
}

bool XnnpackBackend::isAvailable() const {
  return initializeLibrary() == xnn_status_success;
}

bool parseThreadCount(const char *text, size_t *threads, std::string *why) {
  auto no = [&](const std::string &reason) {
    if (why)
      *why = reason;
    return false;
  };
  if (text == nullptr || *text == '\0')
    return no("it is empty");
  size_t n = 0;
  for (const char *p = text; *p != '\0'; ++p) {
    if (*p < '0' || *p > '9')
      return no("'" + std::string(text) + "' is not a whole number of threads");
    n = n * 10 + size_t(*p - '0');
    if (n > kMaxXnnpackThreads)
      return no(std::string(text) + " is above the limit of " +
                std::to_string(kMaxXnnpackThreads) + " threads");
  }
  *threads = n;
  return true;
}

void XnnpackBackend::setConfigError(std::string why) {
  std::lock_guard<std::mutex> lock(configMutex_);
  configError_ = std::move(why);
}

Error XnnpackBackend::setThreads(size_t threads) {
  std::lock_guard<std::mutex> lock(configMutex_);
  if (threads > kMaxXnnpackThreads)
    return Error::InvalidArgument;
  if (stats_.handlesLive.load() != 0)
    return Error::InvalidState;
  threads_ = threads;
  configError_.clear();
  if (pool_ != nullptr) {
    pthreadpool_destroy(pool_);
    pool_ = nullptr;
  }
  return Error::Ok;
}

size_t XnnpackBackend::threads() const {
  std::lock_guard<std::mutex> lock(configMutex_);
  if (pool_ != nullptr)
    return pthreadpool_get_threads_count(pool_);
  return threads_ != 0 ? threads_ : std::max(1u, std::thread::hardware_concurrency());
}

Error XnnpackBackend::setWeightCache(bool enabled) {
  std::lock_guard<std::mutex> lock(configMutex_);
  if (stats_.handlesLive.load() != 0)
    return Error::InvalidState;
  cacheEnabled_ = enabled;
  return Error::Ok;
}

Error XnnpackBackend::ensurePool() {
  std::lock_guard<std::mutex> lock(configMutex_);
  if (pool_ != nullptr)
    return Error::Ok;
  size_t n = threads_;
  if (n == 0)
    n = std::max(1u, std::thread::hardware_concurrency());
  // pthreadpool serializes concurrent parallel regions itself, so one pool
  // serves every handle and thread.
  pool_ = pthreadpool_create(n);
  return pool_ != nullptr ? Error::Ok : Error::OutOfResources;
}

Result<void *> XnnpackBackend::init(rt::BackendInitContext &ctx, rt::ProcessedBlob processed,
                                    rt::Span<const rt::CompileSpec> specs) {
  (void)specs; // upstream writes none; ours writes none either
  if (ctx.runtimeAllocator == nullptr)
    return Error::InvalidArgument;
  {
    std::lock_guard<std::mutex> lock(configMutex_);
    if (!configError_.empty()) {
      report(ctx, configError_);
      return Error::InvalidArgument;
    }
  }
  if (const xnn_status st = initializeLibrary(); st != xnn_status_success) {
    report(ctx, "XNNPACK cannot initialize on this machine (status " +
                    std::to_string(static_cast<int>(st)) + ")");
    return Error::NotSupported;
  }
  // Counted before the pool is taken so that setThreads / setWeightCache
  // refuse to change them while this handle may use them.
  stats_.handlesLive.fetch_add(1);
  if (Error e = ensurePool(); e != Error::Ok) {
    stats_.handlesLive.fetch_sub(1);
    return e;
  }
  std::string why;
  Result<XnnDelegate *> d = XnnDelegate::build(*this, ctx, processed, &why);
  if (!d.ok()) {
    stats_.handlesLive.fetch_sub(1);
    report(ctx, why);
    return d.error();
  }
  stats_.inits.fetch_add(1);
  return static_cast<void *>(d.get());
}

Error XnnpackBackend::execute(rt::BackendExecuteContext &ctx, void *handle,
                              rt::Span<rt::EValue *> args) {
  if (handle == nullptr)
    return Error::DelegateInvalidHandle;
  stats_.executes.fetch_add(1);
  std::string why;
  const Error e = static_cast<XnnDelegate *>(handle)->execute(args, &why);
  if (e != Error::Ok)
    report(ctx, why);
  return e;
}

void XnnpackBackend::destroy(void *handle) {
  if (handle == nullptr)
    return;
  delete static_cast<XnnDelegate *>(handle);
  stats_.handlesLive.fetch_sub(1);
}

uint64_t XnnpackBackend::workspaceBytes(const void *handle) {
  return handle ? static_cast<const XnnDelegate *>(handle)->workspaceBytes() : 0;
}

bool XnnpackBackend::usesPlannedScratch(const void *handle) {
  return handle && static_cast<const XnnDelegate *>(handle)->usesPlannedScratch();
}

} // namespace ptec::xnnpack
