//===- InlineCalls.cpp - inline calls to private functions ----------------===//
//
// After delegation, methods go back to flat chains: each func.call of a
// private function becomes a copy of its body. Delegate calls in the body
// keep naming the one lowered module, so N call sites share it.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace ptec {
#define GEN_PASS_DEF_INLINECALLS
#include "passes/Passes.h.inc"

using namespace mlir;

namespace {

struct InlineCallsPass : impl::InlineCallsBase<InlineCallsPass> {
  using InlineCallsBase::InlineCallsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // Each round inlines one level of nesting.
    llvm::SetVector<func::FuncOp> inlined;
    for (unsigned round = 0; round < 64; ++round) {
      SmallVector<func::CallOp> calls;
      module.walk([&](func::CallOp call) {
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        if (callee && callee.isPrivate() && !callee.isExternal() &&
            callee.getBody().hasOneBlock() && callee != call->getParentOp())
          calls.push_back(call);
      });
      if (calls.empty())
        break;
      for (func::CallOp call : calls) {
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        inlined.insert(callee);
        inlineCall(call, callee);
      }
    }
    // Drop the inlined functions nothing calls any more.
    for (func::FuncOp f : inlined)
      if (SymbolTable::symbolKnownUseEmpty(f, module))
        symbols.erase(f);
  }

  static void inlineCall(func::CallOp call, func::FuncOp callee) {
    Block &body = callee.getBody().front();
    IRMapping map;
    for (auto [arg, v] : llvm::zip(body.getArguments(), call.getOperands()))
      map.map(arg, v);
    OpBuilder b(call);
    for (Operation &op : body.without_terminator())
      b.clone(op, map);
    for (auto [r, v] : llvm::zip(call.getResults(), body.getTerminator()->getOperands()))
      r.replaceAllUsesWith(map.lookupOrDefault(v));
    call->erase();
  }
};

} // namespace
} // namespace ptec
