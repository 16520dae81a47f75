//===- ToOutVariants.cpp ----------------------------------------------------------===//
// Placeholder: being implemented. Fails loudly so nothing silently skips it.

#include "passes/Passes.h"

namespace ptec {
#define GEN_PASS_DEF_TOOUTVARIANTS
#include "passes/Passes.h.inc"

namespace {
struct ToOutVariantsPass : impl::ToOutVariantsBase<ToOutVariantsPass> {
  using ToOutVariantsBase::ToOutVariantsBase;
  void runOnOperation() override {
    getOperation().emitError("pass '") << getArgument() << "' is not implemented yet";
    signalPassFailure();
  }
};
} // namespace
} // namespace ptec
