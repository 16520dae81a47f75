//===- PlanMemory.cpp ----------------------------------------------------------===//
// Placeholder: being implemented. Fails loudly so nothing silently skips it.

#include "passes/Passes.h"

namespace ptec {
#define GEN_PASS_DEF_PLANMEMORY
#include "passes/Passes.h.inc"

namespace {
struct PlanMemoryPass : impl::PlanMemoryBase<PlanMemoryPass> {
  using PlanMemoryBase::PlanMemoryBase;
  void runOnOperation() override {
    getOperation().emitError("pass '") << getArgument() << "' is not implemented yet";
    signalPassFailure();
  }
};
} // namespace
} // namespace ptec
