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
    // The same limits as pte-run's --xnnpack-threads; a value outside them
    // is an error every init reports, never a silent default or a pool of
    // billions of threads.
    // Set but empty counts as unset.
    if (const char *env = std::getenv("PTEC_XNNPACK_THREADS"); env && *env) {
      size_t n = 0;
      std::string why;
      if (parseThreadCount(env, &n, &why))
        (void)b->setThreads(n);
      else
        b->setConfigError("PTEC_XNNPACK_THREADS: " + why + " (a whole number in 0.." +
                          std::to_string(kMaxXnnpackThreads) + "; 0: one per core)");
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
