//===- XnnpackRegistration.cpp - the process-wide XnnpackBackend ----------===//
//
// Kept apart from the backend class so that tests can build private
// instances without touching the registry.
//
//===----------------------------------------------------------------------===//

#include "backends/xnnpack/runtime/XnnpackBackend.h"

#include <cstdlib>
#include <string>

namespace ptec::xnnpack {

XnnpackBackend &xnnpackBackend() {
  // Never destroyed: handles of programs still alive at exit may use it.
  static XnnpackBackend *backend = [] {
    auto *b = new XnnpackBackend();
    if (const char *env = std::getenv("PTEC_XNNPACK_THREADS")) {
      const long n = std::strtol(env, nullptr, 10);
      if (n > 0)
        (void)b->setThreads(static_cast<size_t>(n));
    }
    // The baseline benchmarks compare against: every handle packs its own.
    if (const char *env = std::getenv("PTEC_XNNPACK_WEIGHT_CACHE"))
      if (std::string(env) == "0")
        (void)b->setWeightCache(false);
    return b;
  }();
  return *backend;
}

void registerXnnpackBackend() {
  XnnpackBackend &b = xnnpackBackend();
  // Idempotent: a second call finds the id taken and changes nothing.
  if (rt::findBackend(kXnnpackBackendId) == nullptr)
    (void)rt::registerBackend(kXnnpackBackendId, &b);
}

} // namespace ptec::xnnpack
