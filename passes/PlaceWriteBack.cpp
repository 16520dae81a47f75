//===- PlaceWriteBack.cpp ----------------------------------------------------------===//
// Placeholder: being implemented. Fails loudly so nothing silently skips it.

#include "passes/Passes.h"

namespace ptec {
#define GEN_PASS_DEF_PLACEWRITEBACK
#include "passes/Passes.h.inc"

namespace {
struct PlaceWriteBackPass : impl::PlaceWriteBackBase<PlaceWriteBackPass> {
  using PlaceWriteBackBase::PlaceWriteBackBase;
  void runOnOperation() override {
    getOperation().emitError("pass '") << getArgument() << "' is not implemented yet";
    signalPassFailure();
  }
};
} // namespace
} // namespace ptec
