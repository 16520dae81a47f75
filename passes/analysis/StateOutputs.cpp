//===- StateOutputs.cpp - mutation outputs of a method --------------------===//

#include "passes/analysis/StateOutputs.h"

#include "dialects/exir/IR/ExirDialect.h"

namespace ptec {
using namespace mlir;

namespace {

FailureOr<BlockArgument> findState(func::FuncOp func, unsigned resultIndex,
                                   StringRef kind, StringRef target) {
  StringRef inputKind = kind == "buffer_mutation" ? "buffer" : "user_input";
  BlockArgument found;
  for (BlockArgument arg : func.getArguments()) {
    exir::InputAttr in = exir::getInputAttr(func, arg.getArgNumber());
    if (!in || in.getKind().getValue() != inputKind)
      continue;
    bool match = in.getFqn() && in.getFqn().getValue() == target;
    if (!match && inputKind == "user_input")
      if (auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                         "exir.name"))
        match = name.getValue() == target;
    if (!match)
      continue;
    if (found)
      return func.emitError("output ")
             << resultIndex << " (" << kind << " of '" << target
             << "') matches more than one argument";
    found = arg;
  }
  if (!found)
    return func.emitError("output ")
           << resultIndex << " is a " << kind << " of '" << target
           << "', but no " << inputKind << " argument has that name";
  return found;
}

} // namespace

LogicalResult getStateOutputs(func::FuncOp func,
                              SmallVectorImpl<StateOutput> &outputs) {
  if (func.isDeclaration())
    return success();
  bool any = false;
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (exir::OutputAttr attr = exir::getOutputAttr(func, i))
      any |= attr.getKind().getValue() == "buffer_mutation" ||
             attr.getKind().getValue() == "user_input_mutation";
  if (!any)
    return success();
  if (!func.getBody().hasOneBlock())
    return func.emitError("expected a single-block method body");
  auto ret =
      llvm::dyn_cast<func::ReturnOp>(func.getBody().front().getTerminator());
  if (!ret)
    return func.emitError("expected the method body to end in func.return");
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    exir::OutputAttr attr = exir::getOutputAttr(func, i);
    if (!attr)
      continue;
    StringRef kind = attr.getKind().getValue();
    if (kind != "buffer_mutation" && kind != "user_input_mutation")
      continue;
    if (!attr.getTarget() || attr.getTarget().getValue().empty())
      return func.emitError("output ")
             << i << " is a " << kind << " without a target";
    StringRef target = attr.getTarget().getValue();
    FailureOr<BlockArgument> state = findState(func, i, kind, target);
    if (failed(state))
      return failure();
    Value value = ret.getOperand(i);
    auto st = llvm::dyn_cast<ShapedType>(state->getType());
    auto vt = llvm::dyn_cast<ShapedType>(value.getType());
    if (!st || !vt || st.getElementType() != vt.getElementType() ||
        (st.hasStaticShape() && vt.hasStaticShape() &&
         st.getShape() != vt.getShape()))
      return func.emitError("output ")
             << i << " writes a value of type " << value.getType()
             << " back into '" << target << "' of type " << state->getType();
    for (const StateOutput &earlier : outputs)
      if (earlier.state == *state)
        return func.emitError("outputs ")
               << earlier.resultIndex << " and " << i << " both mutate '"
               << target << "'; an exported program writes each state once";
    outputs.push_back({i, *state, value,
                       kind == "buffer_mutation" ? StateOutput::Kind::Buffer
                                                 : StateOutput::Kind::UserInput});
  }
  return success();
}

} // namespace ptec
