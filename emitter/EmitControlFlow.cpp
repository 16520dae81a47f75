//===- EmitControlFlow.cpp - exir.cond / exir.while into the chain --------===//
//
// Control flow is inlined into the method's single chain (spec/pte-format.md
// section 4): JumpFalseCall destinations are absolute instruction indices, an
// unconditional jump is a JumpFalseCall on a fresh Bool(false).
//
//   exir.cond:   JumpFalse pred -> ELSE; then-ops; MoveCall then-results ->
//                results; Jump -> END; ELSE: else-ops; MoveCall else-results
//                -> results; END:
//   exir.while:  copy_ inits -> carried; HEAD: cond-ops; JumpFalse cond ->
//                EXIT; body-ops; copy_ body-results -> carried; Jump -> HEAD;
//                EXIT:
//
// Why MoveCall for cond but copy_ for while: a MoveCall copies the EValue,
// which for a tensor (here and upstream) makes the destination refer to the
// source's tensor and data, not copy the bytes. A cond result is read only
// after its branch ran, and memory planning never lets a region's storage
// share bytes with anything else (docs/memory-planning.md), so the alias is
// safe; the result values have no storage of their own. A loop's carried
// values are read by the next iteration's body while its kernels write the
// body results: aliasing them would make kernels write what they read, so the
// carried values are planned tensors of their own (exir.mems on the while)
// and each iteration copies the body results into them with aten::copy_.
//
//===----------------------------------------------------------------------===//

#include "emitter/MethodEmitter.h"

namespace ptec::emit {

size_t MethodEmitter::addJumpFalse(int32_t cond, int32_t destination) {
  fb::JumpFalseCallT jump;
  jump.cond_value_index = cond;
  jump.destination_instruction = destination;
  addInstruction(std::move(jump));
  return chain_->instructions.size() - 1;
}

void MethodEmitter::patchJump(size_t instruction, int32_t destination) {
  chain_->instructions[instruction]->instr_args.AsJumpFalseCall()->destination_instruction =
      destination;
}

void MethodEmitter::addMove(int32_t from, int32_t to) {
  fb::MoveCallT move;
  move.move_from = from;
  move.move_to = to;
  addInstruction(std::move(move));
}

void MethodEmitter::addCopyKernel(int32_t dst, int32_t src) {
  fb::KernelCallT call;
  call.op_index = operatorIndex("aten::copy_", "");
  call.args = {dst, src, addBool(false), dst};
  addInstruction(std::move(call));
}

namespace {

/// Run-time shapes inside control flow are not supported: every value the op
/// touches must have a static shape.
LogicalResult refuseDynamic(Operation *op, const llvm::DenseSet<Value> &dynamic) {
  bool any = false;
  op->walk([&](Operation *nested) {
    for (Value v : nested->getOperands())
      any |= dynamic.contains(v) || dynamic.contains(exir::getStorageRoot(v));
    for (Value v : nested->getResults())
      any |= dynamic.contains(v);
  });
  if (any)
    return op->emitError("'") << op->getName()
                              << "' uses a tensor with a run-time shape; dynamic shapes "
                                 "inside control flow are not supported yet";
  return success();
}

} // namespace

LogicalResult MethodEmitter::emitCond(exir::CondOp op) {
  Location loc = op.getLoc();
  if (failed(refuseDynamic(op, dynamic_)))
    return failure();
  FailureOr<int32_t> pred = valueOf(loc, op.getPred());
  if (failed(pred))
    return failure();
  SmallVector<int32_t> inputs, results;
  for (Value v : op.getInputs()) {
    FailureOr<int32_t> idx = valueOf(loc, v);
    if (failed(idx))
      return failure();
    inputs.push_back(*idx);
  }
  // The results have no storage: each branch moves its own results in.
  for (Value r : op.getResults()) {
    FailureOr<int32_t> idx = addTensor(loc, r.getType(), {}, 0);
    if (failed(idx))
      return failure();
    values_[r] = *idx;
    results.push_back(*idx);
  }
  auto branch = [&](Region &region) -> LogicalResult {
    Block &block = region.front();
    for (auto [arg, idx] : llvm::zip(block.getArguments(), inputs))
      values_[arg] = idx;
    if (failed(emitBlock(block)))
      return failure();
    currentLoc_ = loc;
    auto yield = llvm::cast<exir::YieldOp>(block.getTerminator());
    for (auto [v, to] : llvm::zip(yield.getValues(), results)) {
      FailureOr<int32_t> from = valueOf(loc, v);
      if (failed(from))
        return failure();
      addMove(*from, to);
    }
    return success();
  };
  currentLoc_ = loc;
  size_t toElse = addJumpFalse(*pred, -1);
  if (failed(branch(op.getThenRegion())))
    return failure();
  size_t toEnd = addJump(-1);
  patchJump(toElse, numInstructions());
  if (failed(branch(op.getElseRegion())))
    return failure();
  patchJump(toEnd, numInstructions());
  return success();
}

LogicalResult MethodEmitter::emitWhile(exir::WhileOp op) {
  Location loc = op.getLoc();
  if (failed(refuseDynamic(op, dynamic_)))
    return failure();
  auto mems = op->getAttrOfType<ArrayAttr>("exir.mems");
  if (!mems || mems.size() != op->getNumResults())
    return op.emitError("loop-carried values are not planned; run exir-plan-memory "
                        "before emitting");
  SmallVector<int32_t> args;
  for (auto [r, mem] : llvm::zip(op.getResults(), mems)) {
    FailureOr<int32_t> idx =
        addTensor(loc, r.getType(), llvm::dyn_cast<exir::MemAttr>(mem), 0);
    if (failed(idx))
      return failure();
    values_[r] = *idx;
    args.push_back(*idx);
  }
  for (auto [init, carried] : llvm::zip(op.getCarried(), args)) {
    FailureOr<int32_t> idx = valueOf(loc, init);
    if (failed(idx))
      return failure();
    addCopyKernel(carried, *idx);
  }
  for (Value extra : op.getExtra()) {
    FailureOr<int32_t> idx = valueOf(loc, extra);
    if (failed(idx))
      return failure();
    args.push_back(*idx);
  }
  Block &cond = op.getCondRegion().front(), &body = op.getBodyRegion().front();
  for (auto [a, c, idx] : llvm::zip(cond.getArguments(), body.getArguments(), args)) {
    values_[a] = idx;
    values_[c] = idx;
  }

  int32_t head = numInstructions();
  if (failed(emitBlock(cond)))
    return failure();
  currentLoc_ = loc;
  FailureOr<int32_t> keepGoing =
      valueOf(loc, llvm::cast<exir::YieldOp>(cond.getTerminator()).getValues().front());
  if (failed(keepGoing))
    return failure();
  size_t toExit = addJumpFalse(*keepGoing, -1);
  if (failed(emitBlock(body)))
    return failure();
  currentLoc_ = loc;
  auto yield = llvm::cast<exir::YieldOp>(body.getTerminator());
  for (auto [i, v] : llvm::enumerate(yield.getValues())) {
    // exir-to-out-variants gives every yielded value storage of the body's
    // own, so no copy reads a carried value another copy already wrote.
    Value root = exir::getStorageRoot(v);
    if (auto arg = llvm::dyn_cast<BlockArgument>(root);
        arg && arg.getOwner() == &body && arg.getArgNumber() != i)
      return op.emitError("the body yields carried value ")
             << arg.getArgNumber() << " as carried value " << i
             << " without a copy; run exir-to-out-variants before emitting";
    FailureOr<int32_t> from = valueOf(loc, v);
    if (failed(from))
      return failure();
    if (*from != args[i])
      addCopyKernel(args[i], *from);
  }
  addJump(head);
  patchJump(toExit, numInstructions());
  return success();
}

} // namespace ptec::emit
