// Declarations of every portable kernel (one per entry of KernelList.h).
#pragma once

#include "runtime/kernels/KernelRegistry.h"
#include "runtime/kernels/portable/KernelList.h"

namespace ptec::rt::portable {

#define PTEC_DECLARE_KERNEL(name, fn, nargs) Error fn(KernelContext &ctx, Span<EValue *> args);
PTEC_PORTABLE_KERNEL_LIST(PTEC_DECLARE_KERNEL)
#undef PTEC_DECLARE_KERNEL

} // namespace ptec::rt::portable
