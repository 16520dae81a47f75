// The portable kernel table and its lookup (the prim ops, PrimOps.cpp, after it).
#include "runtime/kernels/portable/Kernels.h"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace ptec::rt {

namespace {
#define PTEC_KERNEL_ENTRY(name, fn, nargs, layout) \
  KernelEntry{name, &portable::fn, nargs, DimOrderSupport::layout},
const KernelEntry kTable[] = {PTEC_PORTABLE_KERNEL_LIST(PTEC_KERNEL_ENTRY)};
#undef PTEC_KERNEL_ENTRY
} // namespace

const KernelEntry *portable::findSorted(Span<const KernelEntry> table, const char *fullName) {
  if (!fullName)
    return nullptr;
  const KernelEntry *end = table.data() + table.size();
  const KernelEntry *it = std::lower_bound(
      table.data(), end, fullName,
      [](const KernelEntry &e, const char *n) { return std::strcmp(e.name, n) < 0; });
  if (it != end && std::strcmp(it->name, fullName) == 0)
    return it;
  return nullptr;
}

Span<const KernelEntry> portableKernels() { return {kTable, std::size(kTable)}; }

const KernelEntry *findKernel(const char *fullName) {
  if (const KernelEntry *e = portable::findSorted(portableKernels(), fullName))
    return e;
  return findPrimKernel(fullName);
}

} // namespace ptec::rt
