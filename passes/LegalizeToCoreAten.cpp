//===- LegalizeToCoreAten.cpp ----------------------------------------------------------===//
// Placeholder: being implemented. Fails loudly so nothing silently skips it.

#include "passes/Passes.h"

namespace ptec {
#define GEN_PASS_DEF_LEGALIZETOCOREATEN
#include "passes/Passes.h.inc"

namespace {
struct LegalizeToCoreAtenPass : impl::LegalizeToCoreAtenBase<LegalizeToCoreAtenPass> {
  using LegalizeToCoreAtenBase::LegalizeToCoreAtenBase;
  void runOnOperation() override {
    getOperation().emitError("pass '") << getArgument() << "' is not implemented yet";
    signalPassFailure();
  }
};
} // namespace
} // namespace ptec
