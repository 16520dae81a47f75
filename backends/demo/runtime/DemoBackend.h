// Runtime half of the demo backend, blob-compatible with ExecuTorch's test
// backend "BackendWithCompilerDemo" (spec/pte-format.md section 8):
//
//   blob   := COUNT "version:" VERSION "#" record*
//   record := "op:demo::" OPNAME ", numel:" INT ", dtype:" DTYPE
//             "<debug_handle>" INT "#"
//
// init parses the blob (with its known size, never looking for a NUL) into a
// record array allocated from the runtime allocator; execute runs the records
// in order on the arguments of the call: add (args[3] += args[2]), mm (2x2,
// args[3] = args[0] x args[1]) and sin (args[1] = x - x^3/6 of args[0]).
// Other ops are skipped. The handle is read-only after init, so the backend
// may share one handle across calls (share_handle_across_calls).
//
// Test-only scratch mode: a compile spec "scratch_bytes" (uint32,
// little-endian) makes init require that much delegate scratch; execute then
// stages its inputs there. The result is identical either way.
#pragma once

#include "runtime/backend/BackendInterface.h"

#include <cstddef>
#include <cstdint>

namespace ptec::demo {

constexpr const char *kDemoBackendId = "BackendWithCompilerDemo";
/// Key upstream's ahead-of-time side gives compile spec 0 (read whatever its
/// key is).
constexpr const char *kMaxValueKey = "max_value";
/// Compile spec key of the optional scratch mode.
constexpr const char *kScratchBytesKey = "scratch_bytes";
/// Largest accepted value of compile spec 0 (upstream's max shape).
constexpr int32_t kDemoMaxValue = 4;
/// The only blob version this runtime reads.
constexpr int64_t kDemoBlobVersion = 0;

/// One parsed record; text fields point into the blob (it outlives the
/// handle) and are not NUL-terminated.
struct DemoRecord {
  const char *name = nullptr; ///< after "op:", up to the ','
  size_t nameSize = 0;
  const char *dtype = nullptr; ///< after "dtype:", up to "<debug_handle>"
  size_t dtypeSize = 0;
  int64_t numel = 0;
  int64_t debugHandle = 0;
};

/// The delegate handle: immutable after init, allocated from the runtime
/// allocator (so destroy() has nothing to free).
struct DemoHandle {
  const DemoRecord *records = nullptr;
  size_t count = 0;
  uint8_t *scratch = nullptr; ///< scratch mode only
  size_t scratchBytes = 0;
};

class DemoBackend final : public rt::Backend {
public:
  rt::Result<void *> init(rt::BackendInitContext &ctx,
                          rt::ProcessedBlob processed,
                          rt::Span<const rt::CompileSpec> specs) override;
  rt::Error execute(rt::BackendExecuteContext &ctx, void *handle,
                    rt::Span<rt::EValue *> args) override;
  void destroy(void *handle) override { (void)handle; }
};

/// The process-wide instance that registerDemoBackend() registers.
DemoBackend &demoBackend();

/// Registers demoBackend() under kDemoBackendId. Idempotent.
void registerDemoBackend();

} // namespace ptec::demo
