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

/// A strided view of a tensor: its shape, strides (in elements) and the
/// offset of its first element (the slice and select kernels and scatters).
struct StridedView {
  Shape shape;
  int64_t strides[kTensorMaxRank];
  int64_t base = 0;
};

/// The view of `in` that slice arguments [dim, start?, end?, step] at
/// args[first..first+3] select.
Error parseSlice(KernelContext &ctx, Span<EValue *> args, size_t first, const Tensor &in,
                 StridedView &view);

/// The view select(dim, index) of `in`, dim normalised: index counts from
/// the end when negative and must be in range ("<op>: index ... out of range").
Error selectView(KernelContext &ctx, const char *op, const Tensor &in, int64_t dim, int64_t index,
                 StridedView &view);

/// Resizes out to `os` and copies in's elements read through `strides` from
/// element `base` (the view-copy kernels).
Error viewCopy(KernelContext &ctx, const Tensor &in, Tensor &out, const Shape &os,
               const int64_t *strides, int64_t base);

} // namespace ptec::rt::portable
