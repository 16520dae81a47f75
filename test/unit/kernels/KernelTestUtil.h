// What the kernel tests share: the names they use unqualified (with
// CaseFile.h's Boxer) and a call of a registered kernel by name.
#pragma once

#include "runtime/kernels/KernelRegistry.h"
#include "test/unit/kernels/CaseFile.h"

#include <catch2/catch.hpp>

#include <vector>

namespace ptec::test {

using rt::Error;

/// Calls kernel `name`, which must be registered, on `args`.
inline Error call(rt::KernelContext &ctx, const char *name, std::vector<EValue *> args) {
  const rt::KernelEntry *k = rt::findKernel(name);
  REQUIRE(k != nullptr);
  return k->fn(ctx, {args.data(), args.size()});
}

} // namespace ptec::test
