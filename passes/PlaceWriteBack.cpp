//===- PlaceWriteBack.cpp - copy_ for mutated state at the earliest point -===//
//
// An exported method is functional: a mutated buffer or user input comes back
// as an extra output (buffer_mutation / user_input_mutation). This pass turns
// each into `exir.copy_ %state, %value` and removes the output. The copy goes
// at the earliest point that keeps the end-of-method meaning, i.e. after
//   - the op computing %value,
//   - every op that reads or writes %state or an alias of it,
//   - every op that writes %value or an alias of it,
//   - the graph inputs (at the start of the body at the earliest),
// so %value need not live until the end. Aliases and effects come from
// AliasAnalysis. See docs/passes/place-write-back.md.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/analysis/AliasAnalysis.h"
#include "passes/analysis/StateOutputs.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace ptec {
#define GEN_PASS_DEF_PLACEWRITEBACK
#include "passes/Passes.h.inc"

using namespace mlir;

namespace {

/// One mutation output and where its copy goes.
struct Mutation {
  StateOutput out;
  Operation *after = nullptr; // insert after this top-level op; null = start
};

struct PlaceWriteBackPass : impl::PlaceWriteBackBase<PlaceWriteBackPass> {
  using PlaceWriteBackBase::PlaceWriteBackBase;

  void runOnOperation() override {
    SmallVector<func::FuncOp> funcs(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp func : funcs)
      if (!func.isDeclaration() && failed(placeWriteBack(func)))
        return signalPassFailure();
  }

  LogicalResult placeWriteBack(func::FuncOp func) {
    SmallVector<StateOutput> outputs;
    if (failed(getStateOutputs(func, outputs)))
      return failure();
    if (outputs.empty())
      return success();
    SmallVector<Mutation> mutations;
    for (const StateOutput &o : outputs)
      mutations.push_back({o});

    Block &body = func.getBody().front();
    Operation *terminator = body.getTerminator();
    auto topLevel = [&](Operation *op) {
      while (op->getBlock() != &body)
        op = op->getParentOp();
      return op;
    };

    // Earliest point of each copy, from the function before any copy exists.
    const AliasAnalysis &aa = getChildAnalysis<AliasAnalysis>(func);
    SmallVector<Mutation *> copies;
    for (Mutation &m : mutations) {
      if (AliasAnalysis::getInPlaceRoot(m.out.value) == m.out.state)
        continue; // Already written in place: nothing to copy.
      auto after = [&](Operation *op) {
        op = topLevel(op);
        if (op != terminator && (!m.after || m.after->isBeforeInBlock(op)))
          m.after = op;
      };
      if (Operation *def = m.out.value.getDefiningOp())
        after(def);
      for (Operation *op : aa.getAccesses(m.out.state))
        after(op);
      for (Operation *op : aa.getWriters(m.out.value))
        after(op);
      copies.push_back(&m);
    }

    // Copies whose order matters (one writes what another copies from):
    // all of them keep their end-of-method order.
    bool fallback = false;
    for (Mutation *a : copies)
      for (Mutation *b : copies)
        if (a != b && aa.mayAlias(a->out.value, b->out.state))
          fallback = true;

    OpBuilder builder(func.getContext());
    llvm::SmallPtrSet<Operation *, 8> inserted;
    unsigned earliest = 0;
    for (Mutation *m : copies) {
      if (atEnd || fallback) {
        builder.setInsertionPoint(terminator);
      } else {
        Operation *pos = m->after ? m->after->getNextNode() : &body.front();
        // Copies placed at one point keep the order of the outputs.
        while (pos != terminator && inserted.contains(pos))
          pos = pos->getNextNode();
        builder.setInsertionPoint(pos);
        if (pos != terminator)
          ++earliest;
      }
      auto copy = builder.create<exir::CopyOp>(m->out.value.getLoc(),
                                               m->out.state, m->out.value);
      inserted.insert(copy);
    }

    removeMutationOutputs(func, outputs);

    Builder b(func.getContext());
    func->setAttr("exir.write_back",
                  b.getDictionaryAttr({
                      b.getNamedAttr("at_end", b.getBoolAttr(atEnd)),
                      b.getNamedAttr("copies", b.getI64IntegerAttr(copies.size())),
                      b.getNamedAttr("earliest", b.getI64IntegerAttr(earliest)),
                      b.getNamedAttr("fallback", b.getBoolAttr(fallback)),
                      b.getNamedAttr("in_place", b.getI64IntegerAttr(
                                                     mutations.size() - copies.size())),
                  }));
    return success();
  }

  /// Drops the mutation outputs from `func` and from every func.call of it.
  /// A caller's use of a dropped result becomes the state operand it passed:
  /// after the call, that operand holds the new value.
  void removeMutationOutputs(func::FuncOp func,
                             ArrayRef<StateOutput> mutations) {
    llvm::BitVector erase(func.getNumResults());
    for (const StateOutput &m : mutations)
      erase.set(m.resultIndex);
    func.getBody().front().getTerminator()->eraseOperands(erase);
    func.eraseResults(erase);

    SmallVector<func::CallOp> calls;
    getOperation().walk([&](func::CallOp call) {
      if (call.getCallee() == func.getSymName())
        calls.push_back(call);
    });
    for (func::CallOp call : calls) {
      OpBuilder b(call);
      auto newCall = b.create<func::CallOp>(call.getLoc(), func, call.getOperands());
      newCall->setDiscardableAttrs(call->getDiscardableAttrDictionary());
      unsigned next = 0;
      for (unsigned i = 0; i < call.getNumResults(); ++i) {
        if (!erase.test(i)) {
          call.getResult(i).replaceAllUsesWith(newCall.getResult(next++));
          continue;
        }
        const StateOutput *m = llvm::find_if(
            mutations, [&](const StateOutput &x) { return x.resultIndex == i; });
        call.getResult(i).replaceAllUsesWith(
            call.getOperand(m->state.getArgNumber()));
      }
      call->erase();
    }
  }
};

} // namespace
} // namespace ptec
