//===- ImportControlFlow.cpp - cond / while_loop to exir.cond / exir.while ===//
//
// Operand layouts (spec/pt2-format.md section 6.6):
//   cond(pred, true_graph, false_graph, operands)
//   while_loop(cond_graph, body_graph, carried_inputs, additional_inputs)
// Refused, with the node's name: a predicate that is not a tensor, symbolic
// or non-tensor operands, nested control flow, and ops inside a branch or
// loop that write their arguments.
//
//===----------------------------------------------------------------------===//

#include "compiler/ImportControlFlow.h"

#include "compiler/ImportArguments.h"
#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
namespace pt2 = ptec::pt2;
namespace exir = ptec::exir;
using AK = pt2::Argument::Kind;

namespace ptec::import {

bool isControlFlowHop(StringRef hop) { return hop == "cond" || hop == "while_loop"; }

namespace {

struct HopImport {
  OpBuilder &b;
  Location loc;
  const pt2::Node &node;
  StringRef hop;
  const ControlFlowHooks &hooks;

  InFlightDiagnostic error() {
    return emitError(loc) << "node '" << node.name << "' (" << hop << "): ";
  }

  const pt2::Argument *input(size_t i) {
    return i < node.inputs.size() ? &node.inputs[i].arg : nullptr;
  }

  FailureOr<const pt2::Graph *> graphAt(size_t i, StringRef what) {
    const pt2::Argument *a = input(i);
    if (!a || a->kind != AK::Graph || !a->graph)
      return error() << "argument " << i << " should be the " << what << " subgraph";
    return a->graph.get();
  }

  /// A list of tensor operands (an empty list may come under any list key).
  LogicalResult tensorsAt(size_t i, StringRef what, SmallVectorImpl<Value> &out) {
    const pt2::Argument *a = input(i);
    if (!a)
      return error() << "has no " << what;
    switch (a->kind) {
    case AK::Tensors:
      for (const std::string &name : a->names) {
        FailureOr<Value> v = hooks.lookup(name);
        if (failed(v))
          return failure();
        out.push_back(*v);
      }
      return success();
    case AK::Ints:
    case AK::SymInts:
    case AK::Floats:
    case AK::Bools:
      if (a->ints.empty() && a->names.empty() && a->floats.empty() && a->bools.empty())
        return success();
      [[fallthrough]];
    default:
      return error() << "its " << what << " are " << argumentKindName(a->kind)
                     << "; only tensors are supported (symbolic or Python "
                        "numbers in control flow are not supported yet)";
    }
  }

  /// Imports `graph` into `region`; checks its inputs against `args`.
  LogicalResult region(const pt2::Graph &graph, Region &region, StringRef what,
                       TypeRange args, SmallVectorImpl<Value> &results) {
    for (const pt2::Argument &in : graph.inputs)
      if (in.kind != AK::Tensor)
        return error() << "the " << what << " subgraph takes a "
                       << argumentKindName(in.kind)
                       << "; only tensor inputs are supported";
    if (failed(hooks.importGraph(graph, region, results)))
      return failure();
    Block &block = region.front();
    if (!llvm::equal(block.getArgumentTypes(), args))
      return error() << "the " << what << " subgraph's inputs ("
                     << block.getNumArguments()
                     << ") do not have the types of the values passed to it ("
                     << args.size() << ")";
    // Mutation inside a branch or loop body is not supported: a write to a
    // block argument would write the enclosing graph's value.
    WalkResult nested = region.walk([&](Operation *op) {
      if (llvm::isa<exir::CondOp, exir::WhileOp>(op)) {
        error() << "nested control flow (a cond or while_loop inside the " << what
                << " subgraph) is not supported yet";
        return WalkResult::interrupt();
      }
      if (auto aten = llvm::dyn_cast<exir::AtenOp>(op))
        if (const schema::FunctionSchema *s = aten.getSchema(); s && s->isMutable()) {
          error() << "the " << what << " subgraph mutates a tensor ('"
                  << aten.getOpName() << "'); mutation inside control flow is not supported";
          return WalkResult::interrupt();
        }
      if (llvm::isa<exir::SymSizeOp, exir::SymItemOp, exir::SymOp, exir::SymConstOp>(op)) {
        error() << "the " << what
                << " subgraph computes symbolic sizes; dynamic shapes inside control "
                   "flow are not supported yet";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (nested.wasInterrupted())
      return failure();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(&block);
    b.create<exir::YieldOp>(loc, results);
    return success();
  }

  /// Output names of the node, flattened.
  LogicalResult outputNames(SmallVectorImpl<std::string> &names) {
    for (const pt2::Argument &out : node.outputs) {
      if (!appendTensorNames(out, names))
        return error() << "has a non-tensor output (" << argumentKindName(out.kind) << ")";
    }
    return success();
  }

  LogicalResult define(Operation *op,
                       SmallVectorImpl<std::pair<std::string, Value>> &defs) {
    SmallVector<std::string> names;
    if (failed(outputNames(names)))
      return failure();
    if (names.size() != op->getNumResults())
      return error() << "has " << names.size() << " outputs but its subgraphs return "
                     << op->getNumResults();
    for (auto [name, v] : llvm::zip(names, op->getResults()))
      defs.push_back({name, v});
    return success();
  }

  LogicalResult cond(SmallVectorImpl<std::pair<std::string, Value>> &defs) {
    const pt2::Argument *p = input(0);
    if (!p || p->kind != AK::Tensor)
      return error() << "the predicate is "
                     << (p ? argumentKindName(p->kind) : "missing")
                     << "; only a boolean tensor is supported (a symbolic or Python "
                        "bool predicate is not supported yet)";
    FailureOr<Value> pred = hooks.lookup(p->name);
    if (failed(pred))
      return failure();
    auto predType = llvm::dyn_cast<RankedTensorType>(pred->getType());
    if (!predType || !predType.getElementType().isInteger(1) || predType.getRank() != 0)
      return error() << "the predicate has type " << pred->getType()
                     << "; only a rank-0 boolean tensor is supported";
    FailureOr<const pt2::Graph *> thenG = graphAt(1, "true"), elseG = graphAt(2, "false");
    if (failed(thenG) || failed(elseG))
      return failure();
    SmallVector<Value> operands;
    if (failed(tensorsAt(3, "operands", operands)))
      return failure();
    auto op = b.create<exir::CondOp>(loc, TypeRange{}, *pred, operands);
    SmallVector<Value> thenResults, elseResults;
    TypeRange args = ValueRange(operands).getTypes();
    if (failed(region(**thenG, op.getThenRegion(), "true", args, thenResults)) ||
        failed(region(**elseG, op.getElseRegion(), "false", args, elseResults))) {
      op->erase();
      return failure();
    }
    if (!llvm::equal(ValueRange(thenResults).getTypes(), ValueRange(elseResults).getTypes())) {
      op->erase();
      return error() << "its branches return different types";
    }
    // The result types come from the branches: rebuild the op with them.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(op);
    auto typed = b.create<exir::CondOp>(loc, ValueRange(thenResults).getTypes(), *pred,
                                        operands);
    typed.getThenRegion().takeBody(op.getThenRegion());
    typed.getElseRegion().takeBody(op.getElseRegion());
    op->erase();
    return define(typed, defs);
  }

  LogicalResult whileLoop(SmallVectorImpl<std::pair<std::string, Value>> &defs) {
    FailureOr<const pt2::Graph *> condG = graphAt(0, "cond"), bodyG = graphAt(1, "body");
    if (failed(condG) || failed(bodyG))
      return failure();
    SmallVector<Value> carried, extra;
    if (failed(tensorsAt(2, "carried inputs", carried)) ||
        failed(tensorsAt(3, "additional inputs", extra)))
      return failure();
    if (carried.empty())
      return error() << "carries no values";
    auto op = b.create<exir::WhileOp>(loc, ValueRange(carried).getTypes(), carried, extra);
    SmallVector<Type> args(ValueRange(carried).getTypes());
    llvm::append_range(args, ValueRange(extra).getTypes());
    SmallVector<Value> condResults, bodyResults;
    if (failed(region(**condG, op.getCondRegion(), "cond", args, condResults)) ||
        failed(region(**bodyG, op.getBodyRegion(), "body", args, bodyResults))) {
      op->erase();
      return failure();
    }
    if (condResults.size() != 1) {
      op->erase();
      return error() << "the cond subgraph returns " << condResults.size()
                     << " values; it must return one boolean tensor";
    }
    if (!llvm::equal(ValueRange(bodyResults).getTypes(), ValueRange(carried).getTypes())) {
      op->erase();
      return error() << "the body subgraph returns values whose types differ from the "
                        "carried inputs";
    }
    return define(op, defs);
  }
};

} // namespace

LogicalResult importControlFlow(OpBuilder &b, Location loc, const pt2::Node &node,
                                StringRef hop, const ControlFlowHooks &hooks,
                                SmallVectorImpl<std::pair<std::string, Value>> &defs) {
  HopImport imp{b, loc, node, hop, hooks};
  return hop == "cond" ? imp.cond(defs) : imp.whileLoop(defs);
}

} // namespace ptec::import
