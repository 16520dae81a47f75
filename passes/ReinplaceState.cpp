//===- ReinplaceState.cpp - functional state updates become in place ------===//
//
// The KV-cache pattern: a method returns, as the new contents of a buffer (or
// user input) S, a chain of functional updates that starts at S:
//
//   %1 = slice_scatter(%S, %k, ...)     // or index_put / select_scatter /
//   %2 = index_put(%1, [%pos], %v)      //    index_copy / copy
//   return %2  {buffer_mutation S}
//
// Each update in the chain is marked `exir.inplace_of = 0 : i64`: its result
// shares the storage of its `self` operand, so out-variant lowering passes S
// itself as `out` and write-back placement finds nothing left to copy.
// An update is marked only when nothing after it can observe the old
// contents; see docs/passes/reinplace-state.md for the exact rules.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/analysis/AliasAnalysis.h"
#include "passes/analysis/StateOutputs.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace ptec {
#define GEN_PASS_DEF_REINPLACESTATE
#include "passes/Passes.h.inc"

using namespace mlir;

namespace {

/// Functional updates whose result is `self` with some elements replaced:
/// the in-place form writes the same elements into `self` (operand 0).
bool isStateUpdate(exir::AtenOp op) {
  return llvm::is_contained({"aten::slice_scatter", "aten::select_scatter",
                             "aten::index_put", "aten::index_copy",
                             "aten::copy"},
                            op.getOpName());
}

/// The chain of updates from `state` to `value`, nearest to `state` first;
/// empty when `value` is not such a chain in `body`.
SmallVector<exir::AtenOp> updateChain(Value value, BlockArgument state,
                                      Block &body) {
  SmallVector<exir::AtenOp> chain;
  Value cur = value;
  while (cur != state) {
    auto op = cur.getDefiningOp<exir::AtenOp>();
    if (!op || op->getBlock() != &body || !isStateUpdate(op) ||
        op->getNumResults() != 1 || op.getInputs().empty() ||
        op.getArgOperands(0).size() != 1)
      return {};
    chain.push_back(op);
    cur = op.getArgOperands(0).front();
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

struct ReinplaceStatePass : impl::ReinplaceStateBase<ReinplaceStatePass> {
  using ReinplaceStateBase::ReinplaceStateBase;

  void runOnOperation() override {
    if (failed(forEachStatefulFunc(getOperation(), [&](func::FuncOp f, ArrayRef<StateOutput> o) {
          return reinplace(f, o);
        })))
      signalPassFailure();
  }

  /// Why `op` may not write into its operand 0 in place, or null when it may.
  /// `aa` describes the function as it is now (earlier links marked).
  static const char *blocker(exir::AtenOp op, const AliasAnalysis &aa,
                             func::ReturnOp ret, unsigned resultIndex) {
    Value target = op.getArgOperands(0).front();
    if (op->getResult(0).getType() != target.getType())
      return "result type differs from self";
    // The kernel would read what it is overwriting.
    for (OpOperand &o : op->getOpOperands())
      if (o.getOperandNumber() != 0 && aa.mayAlias(o.get(), target))
        return "another operand may alias self";
    // Nothing after the update may observe the old contents (or write them).
    Block *body = op->getBlock();
    for (Operation *user : aa.getAccesses(target)) {
      while (user->getBlock() != body)
        user = user->getParentOp();
      if (user != op && !user->isBeforeInBlock(op))
        return "a later op reads or writes the old value";
    }
    // The return reads nothing, but what it returns is observed after the
    // method: an output aliasing the old value would show the new contents,
    // and an output aliasing this link's result would share the state's
    // storage and show whatever later links or the write-back put there.
    Value result = op->getResult(0);
    for (OpOperand &o : ret->getOpOperands()) {
      if (o.getOperandNumber() == resultIndex)
        continue;
      if (aa.mayAlias(o.get(), target))
        return "another output may alias the old value";
      if (aa.mayAlias(o.get(), result))
        return "another output may alias the updated value";
    }
    return nullptr;
  }

  LogicalResult reinplace(func::FuncOp func, ArrayRef<StateOutput> outputs) {
    Block &body = func.getBody().front();
    auto ret = llvm::cast<func::ReturnOp>(body.getTerminator());
    Builder b(func.getContext());
    int64_t marked = 0;
    for (const StateOutput &out : outputs) {
      for (exir::AtenOp op : updateChain(out.value, out.state, body)) {
        if (auto idx = op->getAttrOfType<IntegerAttr>(AliasAnalysis::kInplaceOfAttr)) {
          if (idx.getInt() == 0)
            continue; // Already in place.
          break;
        }
        // Recomputed per link: marking one changes the storage classes.
        AliasAnalysis aa(func);
        if (blocker(op, aa, ret, out.resultIndex))
          break;
        op->setAttr(AliasAnalysis::kInplaceOfAttr, b.getI64IntegerAttr(0));
        ++marked;
      }
    }
    func->setAttr("exir.reinplace_state",
                  b.getDictionaryAttr(
                      b.getNamedAttr("marked", b.getI64IntegerAttr(marked))));
    return success();
  }
};

} // namespace
} // namespace ptec
