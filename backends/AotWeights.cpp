//===- AotWeights.cpp - which values are immutable weights ----------------===//

#include "backends/AotBackend.h"

#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace ptec::aot {

using namespace mlir;

namespace {

ConstantWeight resolve(Value v, std::string *why, int depth) {
  auto say = [&](const std::string &text) {
    if (why)
      *why = text;
    return ConstantWeight();
  };
  auto arg = llvm::dyn_cast<BlockArgument>(v);
  auto func = arg ? llvm::dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                  : func::FuncOp();
  if (!func || arg.getOwner() != &func.getBody().front())
    return say("it is computed in the graph, not a weight");
  auto module = func->getParentOfType<ModuleOp>();
  if (!module)
    return say("its function is not in a module");
  if (exir::InputAttr input = exir::getInputAttr(func, arg.getArgNumber())) {
    const llvm::StringRef kind = input.getKind().getValue();
    if (!input.getFqn() || (kind != "parameter" && kind != "constant" && kind != "buffer"))
      return say("it is a user input, not a weight");
    auto weight = llvm::dyn_cast_or_null<exir::WeightOp>(
        SymbolTable::lookupSymbolIn(module, input.getFqn()));
    if (!weight)
      return say("no exir.weight holds '" + input.getFqn().getValue().str() + "'");
    if (weight.getIsMutable())
      return say("weight '" + input.getFqn().getValue().str() + "' is written by a method");
    return ConstantWeight{weight.getValue(), input.getFqn().getValue().str()};
  }
  // An argument of a function extracted for lower-once-call-many: a weight
  // when every call passes the same one.
  if (!func.isPrivate() || depth > 8)
    return say("it is a method input, not a weight");
  std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(func, module);
  if (!uses || uses->empty())
    return say("@" + func.getSymName().str() + " has no calls to take its weights from");
  ConstantWeight common;
  for (const SymbolTable::SymbolUse &use : *uses) {
    auto call = llvm::dyn_cast<func::CallOp>(use.getUser());
    if (!call || arg.getArgNumber() >= call.getNumOperands())
      return say("@" + func.getSymName().str() + " is used other than by calls");
    ConstantWeight w = resolve(call.getOperand(arg.getArgNumber()), why, depth + 1);
    if (!w)
      return ConstantWeight();
    if (common && common.fqn != w.fqn)
      return say("the calls of @" + func.getSymName().str() + " pass different weights ('" +
                 common.fqn + "', '" + w.fqn + "')");
    common = w;
  }
  return common;
}

} // namespace

ConstantWeight constantWeightOf(Value v, std::string *why) { return resolve(v, why, 0); }

} // namespace ptec::aot
