// Load-time layout check of one KernelCall: do its tensors' dim orders suit
// the kernel (KernelEntry::dimOrders)? Method::load runs it for every call,
// so a program the kernels cannot compute fails before anything runs.
#pragma once

#include "runtime/core/EValue.h"
#include "runtime/core/Span.h"
#include "runtime/kernels/KernelRegistry.h"

#include <string>

namespace ptec::rt {

/// True when every tensor among `args` (list elements included) has a dim
/// order `support` allows. Otherwise false, and `why` names the value (its
/// index in `values`) and its dim order.
bool kernelAcceptsDimOrders(DimOrderSupport support, Span<EValue *const> args,
                            const EValue *values, std::string *why);

/// "[0, 2, 3, 1]".
std::string dimOrderString(const Tensor &t);

} // namespace ptec::rt
