// Declarations of every portable kernel (one per entry of KernelList.h).
#pragma once

#include "runtime/kernels/KernelRegistry.h"
#include "runtime/kernels/portable/KernelList.h"

namespace ptec::rt::portable {

#define PTEC_DECLARE_KERNEL(name, fn, nargs, layout) Error fn(KernelContext &ctx, Span<EValue *> args);
PTEC_PORTABLE_KERNEL_LIST(PTEC_DECLARE_KERNEL)
#undef PTEC_DECLARE_KERNEL

// Helpers shared between kernel files.

/// slice arguments [dim, start?, end?, step] at args[first..first+3] against
/// `in`: normalised dim, first index, element count and step.
Error parseSlice(KernelContext &ctx, Span<EValue *> args, size_t first, const Tensor &in,
                 int64_t &dim, int64_t &start, int64_t &len, int64_t &step);

} // namespace ptec::rt::portable
