// Kernel interface: a kernel is a plain function over the boxed argument list
// of a KernelCall (schema arguments in order, then the return value(s)).
#pragma once

#include "runtime/core/EValue.h"
#include "runtime/core/Error.h"
#include "runtime/core/MemoryAllocator.h"
#include "runtime/core/Span.h"

#include <cstdio>

namespace ptec::rt {

/// Per-call context handed to kernels: scratch memory and a failure message.
class KernelContext {
public:
  explicit KernelContext(MemoryAllocator *temp = nullptr) : temp_(temp) {}
  MemoryAllocator *tempAllocator() const { return temp_; }

  /// Record why the kernel failed; the executor reports it with the op name.
  template <typename... Args> Error fail(Error e, const char *fmt, Args... args) {
    std::snprintf(message_, sizeof(message_), fmt, args...);
    return e;
  }
  Error fail(Error e, const char *msg) {
    std::snprintf(message_, sizeof(message_), "%s", msg);
    return e;
  }
  const char *message() const { return message_; }
  void clearMessage() { message_[0] = '\0'; }

private:
  MemoryAllocator *temp_;
  char message_[256] = {};
};

using KernelFn = Error (*)(KernelContext &ctx, Span<EValue *> args);

/// The tensor layouts (dim orders, spec 3.3) a kernel computes correctly.
/// Method::load checks every KernelCall's tensors against it, so a layout a
/// kernel cannot handle fails at load, naming the operator and the value.
enum class DimOrderSupport : uint8_t {
  Contiguous,   ///< every tensor argument has dim order 0..n-1
  SameDimOrder, ///< all tensors contiguous, or all channels-last (rank 4/5)
  Any,          ///< each tensor any dim order (the dim_order_ops copies)
};

struct KernelEntry {
  const char *name; ///< "aten::add.out": operator name, '.', overload (if any)
  KernelFn fn;
  /// Exact number of boxed args: schema arguments + 1 (the return entry,
  /// which is the out argument again even for a schema returning `()`).
  /// Method::load rejects any KernelCall with another count.
  int numArgs;
  DimOrderSupport dimOrders = DimOrderSupport::Contiguous;
};

/// The portable kernel table (runtime/kernels/portable), sorted by name.
Span<const KernelEntry> portableKernels();

/// The prim ops (spec 7: sym_size, sym_numel, _local_scalar_dense and the
/// executorch_prim::*.Scalar arithmetic of symbolic shapes), sorted by name.
Span<const KernelEntry> primKernels();

/// Find a prim op by its full name; nullptr if absent.
const KernelEntry *findPrimKernel(const char *fullName);

/// Find a kernel by its full name in the portable table, then among the prim
/// ops; nullptr if absent.
const KernelEntry *findKernel(const char *fullName);

} // namespace ptec::rt
