// Kernels and backends used only by the runtime unit tests (the executor is
// tested without the portable kernel library).
#pragma once

#include "runtime/backend/BackendInterface.h"
#include "runtime/executor/Method.h"

#include <cstddef>
#include <string>

namespace ptec::rt::test {

/// aten::add.out [a, b, alpha, out, out] (any shared dim order),
/// aten::copy_ [dst, src, nb, dst],
/// test::fail (always fails with "boom 7"), test::inc [t] (t[0] += 1),
/// test::sum_ints [IntList, out] (out[0] = sum).
Span<const KernelEntry> testKernels();
KernelResolver testResolver();

/// Backend "RtTestBackend": execute(args = [a, b, out]) writes
/// out = (a + b) * scale, scale from compile spec 0 (float32) or 1.
/// Counts init/destroy calls and records the scratch size it was given.
struct TestBackendStats {
  size_t inits = 0;
  size_t destroys = 0;
  size_t executes = 0;
  size_t lastScratchBytes = 0;
  std::string lastBlob; ///< processed bytes seen by the last init
};
TestBackendStats &testBackendStats();
/// Register "RtTestBackend", "RtFailBackend" (init fails) and
/// "RtQuietBackend" (like RtTestBackend, but keeps no statistics, so threads
/// may use it concurrently) once.
void registerTestBackends();

} // namespace ptec::rt::test
