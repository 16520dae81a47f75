//===- OutlineDelegates.cpp ----------------------------------------------------------===//
// Placeholder: being implemented. Fails loudly so nothing silently skips it.

#include "passes/Passes.h"

namespace ptec {
#define GEN_PASS_DEF_OUTLINEDELEGATES
#include "passes/Passes.h.inc"

namespace {
struct OutlineDelegatesPass : impl::OutlineDelegatesBase<OutlineDelegatesPass> {
  using OutlineDelegatesBase::OutlineDelegatesBase;
  void runOnOperation() override {
    getOperation().emitError("pass '") << getArgument() << "' is not implemented yet";
    signalPassFailure();
  }
};
} // namespace
} // namespace ptec
