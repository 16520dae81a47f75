// Declarations of every portable kernel (one per entry of KernelList.h).
#pragma once

#include "runtime/kernels/KernelRegistry.h"
#include "runtime/kernels/portable/KernelList.h"
#include "runtime/kernels/portable/KernelUtils.h"

namespace ptec::rt::portable {

#define PTEC_DECLARE_KERNEL(name, fn, nargs, layout) Error fn(KernelContext &ctx, Span<EValue *> args);
PTEC_PORTABLE_KERNEL_LIST(PTEC_DECLARE_KERNEL)
#undef PTEC_DECLARE_KERNEL

// Helpers shared between kernel files.

/// The entry of `table` (sorted by name, byte order) named `fullName`, or
/// null (Registry.cpp; the portable and prim tables).
const KernelEntry *findSorted(Span<const KernelEntry> table, const char *fullName);

/// slice arguments [dim, start?, end?, step] at args[first..first+3] against
/// `in`: normalised dim, first index, element count and step.
Error parseSlice(KernelContext &ctx, Span<EValue *> args, size_t first, const Tensor &in,
                 int64_t &dim, int64_t &start, int64_t &len, int64_t &step);

/// [self, <schema args>, out, ret]: unboxes self and out (same dtype).
Error selfAndOut(KernelContext &ctx, Span<EValue *> args, size_t nargs, const char *op,
                 Tensor *&in, Tensor *&out);

/// Resizes out to `os` and copies in's elements read through `strides` from
/// element `base` (the view-copy kernels).
Error viewCopy(KernelContext &ctx, const Tensor &in, Tensor &out, const Shape &os,
               const int64_t *strides, int64_t base);

} // namespace ptec::rt::portable
