// Registration of the process-wide PtecCacheTestBackend instance. Kept apart
// so that users of the backend class alone need no registry.
#include "backends/cachetest/runtime/CacheTestBackend.h"

namespace ptec::cachetest {

void registerCacheTestBackend() {
  static CacheTestBackend backend;
  // Idempotent: a second call finds the id taken and changes nothing.
  if (rt::findBackend(kCacheTestBackendId) == nullptr)
    (void)rt::registerBackend(kCacheTestBackendId, &backend);
}

} // namespace ptec::cachetest
