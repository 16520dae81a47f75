//===- ReinplaceState.cpp ----------------------------------------------------------===//
// Placeholder: being implemented. Fails loudly so nothing silently skips it.

#include "passes/Passes.h"

namespace ptec {
#define GEN_PASS_DEF_REINPLACESTATE
#include "passes/Passes.h.inc"

namespace {
struct ReinplaceStatePass : impl::ReinplaceStateBase<ReinplaceStatePass> {
  using ReinplaceStateBase::ReinplaceStateBase;
  void runOnOperation() override {
    getOperation().emitError("pass '") << getArgument() << "' is not implemented yet";
    signalPassFailure();
  }
};
} // namespace
} // namespace ptec
