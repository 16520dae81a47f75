//===- StateOutputs.cpp - mutation outputs of a method --------------------===//

#include "passes/analysis/StateOutputs.h"

#include "dialects/exir/IR/ExirDialect.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

namespace ptec {
using namespace mlir;

namespace {

/// The state arguments of a method by the name an output targets: buffers by
/// fully qualified name, user inputs by FQN or `exir.name`; each list in
/// argument order. Built once, so that finding every output's state is
/// linear in the method's signature.
struct StateArgs {
  llvm::StringMap<SmallVector<BlockArgument, 1>> buffers, userInputs;

  explicit StateArgs(func::FuncOp func) {
    for (BlockArgument arg : func.getArguments()) {
      exir::InputAttr in = exir::getInputAttr(func, arg.getArgNumber());
      if (!in)
        continue;
      StringRef kind = in.getKind().getValue();
      StringRef fqn = in.getFqn() ? in.getFqn().getValue() : StringRef();
      if (kind == "buffer" && in.getFqn()) {
        buffers[fqn].push_back(arg);
      } else if (kind == "user_input") {
        if (in.getFqn())
          userInputs[fqn].push_back(arg);
        auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "exir.name");
        if (name && (!in.getFqn() || name.getValue() != fqn))
          userInputs[name.getValue()].push_back(arg);
      }
    }
  }
};

FailureOr<BlockArgument> findState(func::FuncOp func, const StateArgs &args,
                                   unsigned resultIndex, StringRef kind,
                                   StringRef target) {
  bool buffer = kind == "buffer_mutation";
  StringRef inputKind = buffer ? "buffer" : "user_input";
  const auto &byName = buffer ? args.buffers : args.userInputs;
  auto it = byName.find(target);
  if (it == byName.end())
    return func.emitError("output ")
           << resultIndex << " is a " << kind << " of '" << target
           << "', but no " << inputKind << " argument has that name";
  if (it->second.size() > 1)
    return func.emitError("output ")
           << resultIndex << " (" << kind << " of '" << target
           << "') matches more than one argument";
  return it->second.front();
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
  StateArgs args(func);
  llvm::DenseMap<Value, unsigned> writtenBy; // state -> output writing it
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
    FailureOr<BlockArgument> state = findState(func, args, i, kind, target);
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
    auto [earlier, first] = writtenBy.try_emplace(*state, i);
    if (!first)
      return func.emitError("outputs ")
             << earlier->second << " and " << i << " both mutate '" << target
             << "'; an exported program writes each state once";
    outputs.push_back({i, *state, value,
                       kind == "buffer_mutation" ? StateOutput::Kind::Buffer
                                                 : StateOutput::Kind::UserInput});
  }
  return success();
}

} // namespace ptec
