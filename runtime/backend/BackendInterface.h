// The runtime half of a backend: init once per BackendDelegate entry, execute
// per DelegateCall, destroy once. A handle may be shared by several
// DelegateCalls (see docs/backend-guide.md): execute() must take every tensor
// from `args` and keep no per-call state on the handle.
#pragma once

#include "runtime/core/EValue.h"
#include "runtime/core/Error.h"
#include "runtime/core/MemoryAllocator.h"
#include "runtime/core/Result.h"
#include "runtime/core/Span.h"

#include <cstddef>
#include <cstdint>

namespace ptec::rt {

struct CompileSpec {
  const char *key;   ///< NUL-terminated, points into the program buffer
  const void *value; ///< raw bytes, points into the program buffer
  size_t nbytes;
};

/// Bytes of a delegate blob (processed data). Valid for the delegate's life.
struct ProcessedBlob {
  const void *data = nullptr;
  size_t size = 0;
};

/// A tensor's layout as a named-data entry records it (a .ptd's
/// tensor_layout): an ExecuTorch ScalarType code, sizes and dim order.
struct TensorLayoutRef {
  int8_t scalarType = 0;
  Span<const int32_t> sizes;
  Span<const uint8_t> dimOrder;
};

/// Read access to a program's named data (Program.named_data), for backends
/// whose blobs refer to constants by key (ExecuTorch's XNNPACK delegate).
class NamedDataMap {
public:
  virtual ~NamedDataMap() = default;
  /// The bytes stored under `key` (valid for the program's life); NotFound
  /// when the program has no such entry.
  virtual Result<Span<const uint8_t>> get(const char *key) const = 0;
  /// The layout recorded with `key`, for maps that record layouts; NotFound
  /// when the entry has none (then only its size can be checked).
  virtual Result<TensorLayoutRef> layout(const char *key) const {
    (void)key;
    return Error::NotFound;
  }
};

struct BackendInitContext {
  /// The loading program's allocator ("runtime allocator"): Module hands the
  /// same one to every method of a program, and memory from it lives as long
  /// as the program (Method::load alone: the method's allocator). Its
  /// identity scopes cached contexts (part B).
  MemoryAllocator *runtimeAllocator = nullptr;
  const char *methodName = "";
  /// Scratch memory planned for this delegate by the compiler (ptec extension);
  /// empty when the program declares none (always so for upstream files).
  Span<uint8_t> scratch;
  /// Every scratch entry of the delegate, in declaration order (`scratch` is
  /// entry 0); empty when none.
  Span<const Span<uint8_t>> scratchBuffers;
  /// The loading program's named data; null when the loader offers none.
  const NamedDataMap *namedData = nullptr;
  /// Where init() may say why it failed, NUL-terminated and truncated to
  /// fit; the method loader appends it to its error. Null when unused.
  char *errorMessage = nullptr;
  size_t errorMessageSize = 0;
};

struct BackendExecuteContext {
  MemoryAllocator *tempAllocator = nullptr;
  const char *methodName = "";
  /// Where execute() may say why it failed, NUL-terminated and truncated to
  /// fit; the method appends it to its error. Null when unused.
  char *errorMessage = nullptr;
  size_t errorMessageSize = 0;
};

class Backend {
public:
  virtual ~Backend() = default;
  virtual bool isAvailable() const { return true; }
  /// Returns an opaque handle. On failure the backend must have released
  /// everything it allocated.
  virtual Result<void *> init(BackendInitContext &ctx, ProcessedBlob processed,
                              Span<const CompileSpec> specs) = 0;
  virtual Error execute(BackendExecuteContext &ctx, void *handle,
                        Span<EValue *> args) = 0;
  virtual void destroy(void *handle) { (void)handle; }
};

/// Registry of runtime backends by exact id. At most kMaxBackends entries;
/// registering a duplicate id is InvalidArgument. Thread-safe.
constexpr size_t kMaxBackends = 16;
Error registerBackend(const char *id, Backend *backend);
/// nullptr when no backend has that id.
Backend *findBackend(const char *id);
/// Remove a registration (tests). NotFound when absent.
Error unregisterBackend(const char *id);

/// Successful init() calls per backend id since the last reset, as recorded by
/// the method loader (tests observe handle sharing through it).
size_t backendInitCount(const char *id);
void resetBackendInitCounts();
/// Called by the method loader after each successful init().
void recordBackendInit(const char *id);

} // namespace ptec::rt
