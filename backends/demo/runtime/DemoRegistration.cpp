// Registration of the demo backend under "BackendWithCompilerDemo". Kept apart
// from DemoBackend.cpp so that code using the class alone needs no registry.
#include "backends/demo/runtime/DemoBackend.h"

namespace ptec::demo {

void registerDemoBackend() {
  // Idempotent: when the id is already taken nothing changes (a concurrent
  // second registration is refused by the registry as a duplicate).
  if (rt::findBackend(kDemoBackendId) == nullptr)
    (void)rt::registerBackend(kDemoBackendId, &demoBackend());
}

} // namespace ptec::demo
