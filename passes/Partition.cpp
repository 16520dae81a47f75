//===- Partition.cpp ----------------------------------------------------------===//
// Placeholder: being implemented. Fails loudly so nothing silently skips it.

#include "passes/Passes.h"

namespace ptec {
#define GEN_PASS_DEF_PARTITION
#include "passes/Passes.h.inc"

namespace {
struct PartitionPass : impl::PartitionBase<PartitionPass> {
  using PartitionBase::PartitionBase;
  void runOnOperation() override {
    getOperation().emitError("pass '") << getArgument() << "' is not implemented yet";
    signalPassFailure();
  }
};
} // namespace
} // namespace ptec
