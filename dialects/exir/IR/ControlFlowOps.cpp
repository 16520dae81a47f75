//===- ControlFlowOps.cpp - exir.cond and exir.while verifiers ------------===//
//
// Region signatures of the control-flow ops: every region takes the op's
// inputs as block arguments and yields what its parent needs (the op's
// result types; one rank-0 i1 tensor for a loop condition).
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ExirDialect.h"

using namespace mlir;
using namespace ptec::exir;

namespace {

bool isBoolScalarTensor(Type t) {
  auto rt = llvm::dyn_cast<RankedTensorType>(t);
  return rt && rt.getRank() == 0 && rt.getElementType().isInteger(1);
}

/// `region` takes `args` and ends in an exir.yield of `yields`.
LogicalResult verifyRegion(Operation *op, Region &region, StringRef what,
                           TypeRange args, TypeRange yields) {
  Block &block = region.front();
  if (!llvm::equal(block.getArgumentTypes(), args))
    return op->emitOpError() << "the " << what << " region's arguments do not match "
                             << "the op's inputs";
  auto yield = llvm::dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError() << "the " << what << " region must end in exir.yield";
  if (!llvm::equal(yield.getValues().getTypes(), yields))
    return op->emitOpError() << "the " << what << " region yields "
                             << yield.getValues().size() << " values of the wrong types "
                             << "(expected " << yields.size() << ")";
  return success();
}

} // namespace

LogicalResult CondOp::verify() {
  if (!isBoolScalarTensor(getPred().getType()))
    return emitOpError("predicate must be a rank-0 i1 tensor, not ") << getPred().getType();
  if (failed(verifyRegion(*this, getThenRegion(), "then", getInputs().getTypes(),
                          getResultTypes())) ||
      failed(verifyRegion(*this, getElseRegion(), "else", getInputs().getTypes(),
                          getResultTypes())))
    return failure();
  return success();
}

LogicalResult WhileOp::verify() {
  if (!llvm::equal(getCarried().getTypes(), getResultTypes()))
    return emitOpError("result types must be the carried values' types");
  SmallVector<Type> args(getCarried().getTypes());
  llvm::append_range(args, getExtra().getTypes());
  Block &cond = getCondRegion().front();
  auto yield = llvm::dyn_cast<YieldOp>(cond.getTerminator());
  if (!yield || yield.getValues().size() != 1 ||
      !isBoolScalarTensor(yield.getValues().front().getType()))
    return emitOpError("the cond region must yield one rank-0 i1 tensor");
  if (!llvm::equal(cond.getArgumentTypes(), args))
    return emitOpError("the cond region's arguments do not match the carried and extra values");
  return verifyRegion(*this, getBodyRegion(), "body", args, getResultTypes());
}
