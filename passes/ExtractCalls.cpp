//===- ExtractCalls.cpp - repeated submodule calls to one function --------===//
//
// torch.export unrolls `for _ in range(10): x = self.step(x)` into ten copies
// of step's ops. The importer tags each op of a repeated submodule instance
// with `exir.scope` ("step", "step@1", ...). Here each contiguous run of one
// instance is a candidate call; runs of one submodule whose ops are
// structurally identical (same ops, attributes, types and dataflow) become
// one private func.func and a func.call per run. Partitioning and outlining
// then see the body once, so every call ends up calling ONE lowered module.
//
// Only runs that read weights (parameters, buffers, constants) are worth a
// function: lowering once saves packing and storing those weights per call
// site. A weight-free body (a reused ReLU module, an activation applied
// twice) costs as little as the call itself, and the function boundary would
// cut the backend's region around it: a CNN would become one delegate per
// stretch between two ReLUs, with a layout transpose pair at every cut.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "dialects/exir/IR/ExirDialect.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

namespace ptec {
#define GEN_PASS_DEF_EXTRACTCALLS
#include "passes/Passes.h.inc"

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kScopeAttr = "exir.scope";

/// One contiguous run of ops of one submodule instance.
struct Run {
  std::string scope;
  SmallVector<Operation *> ops;
  llvm::SetVector<Value> inputs; ///< defined outside, first-use order
  SmallVector<Value> outputs;    ///< used after the run, in definition order
};

/// "step@3" -> "step": the submodule, without the call index.
llvm::StringRef baseScope(llvm::StringRef scope) {
  auto [base, index] = scope.rsplit('@');
  if (!index.empty() && base != scope && llvm::all_of(index, llvm::isDigit))
    return base;
  return scope;
}

/// Whether the run reads a method input that is a weight or state (not a
/// user input): what lowering the body once lets every call site share.
bool readsWeights(const Run &run) {
  for (Value v : run.inputs) {
    auto arg = llvm::dyn_cast<BlockArgument>(v);
    if (!arg)
      continue;
    exir::InputAttr in = exir::getInputAttr(arg.getOwner()->getParentOp(), arg.getArgNumber());
    if (in && in.getKind().getValue() != "user_input")
      return true;
  }
  return false;
}

void analyze(Run &run) {
  llvm::SmallPtrSet<Operation *, 16> members(run.ops.begin(), run.ops.end());
  for (Operation *op : run.ops) {
    for (Value v : op->getOperands())
      if (!members.contains(v.getDefiningOp()))
        run.inputs.insert(v);
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(),
                       [&](Operation *u) { return !members.contains(u); }))
        run.outputs.push_back(r);
  }
}

/// Text that is equal for two runs iff they compute the same thing from
/// their inputs (ops, inherent and discardable attributes but the scope,
/// types, internal dataflow, which values leave the run).
std::string signature(const Run &run) {
  std::string text;
  llvm::raw_string_ostream os(text);
  DenseMap<Value, std::string> names;
  for (auto [i, v] : llvm::enumerate(run.inputs)) {
    names[v] = "%in" + std::to_string(i);
    os << names[v] << ':' << v.getType() << ';';
  }
  for (auto [i, op] : llvm::enumerate(run.ops)) {
    os << op->getName() << '(';
    for (Value v : op->getOperands())
      os << names.lookup(v) << ',';
    os << ')';
    if (Attribute props = op->getPropertiesAsAttribute())
      os << props;
    NamedAttrList attrs(op->getDiscardableAttrDictionary());
    attrs.erase(kScopeAttr);
    os << attrs.getDictionary(op->getContext()) << "->";
    for (auto [j, r] : llvm::enumerate(op->getResults())) {
      names[r] = "%" + std::to_string(i) + "." + std::to_string(j);
      os << r.getType() << ',';
    }
    os << ';';
  }
  os << "out:";
  for (Value v : run.outputs)
    os << names.lookup(v) << ',';
  return text;
}

struct ExtractCallsPass : impl::ExtractCallsBase<ExtractCallsPass> {
  using ExtractCallsBase::ExtractCallsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> methods(module.getOps<func::FuncOp>());
    for (func::FuncOp f : methods)
      if (!f.isExternal() && f.getBody().hasOneBlock())
        extract(f, symbols);
  }

  void extract(func::FuncOp method, SymbolTable &symbols) {
    std::vector<Run> runs;
    for (Operation &op : method.getBody().front().without_terminator()) {
      auto scope = op.getAttrOfType<StringAttr>(kScopeAttr);
      if (!scope || op.getNumRegions() != 0) {
        if (!runs.empty() && !runs.back().ops.empty())
          runs.push_back(Run{}); // close the open run
        continue;
      }
      if (runs.empty() || runs.back().scope != scope.getValue())
        runs.push_back(Run{scope.getValue().str(), {}, {}, {}});
      runs.back().ops.push_back(&op);
    }
    // Buckets: (submodule, signature) -> runs, in first-seen order.
    llvm::MapVector<std::string, SmallVector<Run *>,
                    std::map<std::string, unsigned>> buckets;
    for (Run &run : runs) {
      if (run.ops.empty())
        continue;
      analyze(run);
      if (!readsWeights(run))
        continue;
      buckets[baseScope(run.scope).str() + '\n' + signature(run)].push_back(&run);
    }
    replaced_.clear();
    dead_.clear();
    for (auto &[key, members] : buckets)
      if (members.size() >= 2)
        outline(method, llvm::StringRef(key).split('\n').first, members, symbols);
    for (Operation *op : dead_)
      op->erase();
  }

  void outline(func::FuncOp method, llvm::StringRef base,
               ArrayRef<Run *> members, SymbolTable &symbols) {
    const Run &first = *members.front();
    MLIRContext *ctx = method.getContext();
    SmallVector<Type> inputs, outputs;
    for (Value v : first.inputs)
      inputs.push_back(v.getType());
    for (Value v : first.outputs)
      outputs.push_back(v.getType());

    std::string name;
    for (char c : base)
      name += llvm::isAlnum(c) ? c : '_';
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(method->getBlock()); // after the methods
    auto callee = b.create<func::FuncOp>(first.ops.front()->getLoc(), name,
                                         FunctionType::get(ctx, inputs, outputs));
    callee.setPrivate();
    symbols.insert(callee); // renames on a clash
    Block *entry = callee.addEntryBlock();
    IRMapping map;
    for (auto [v, arg] : llvm::zip(first.inputs, entry->getArguments())) {
      map.map(v, arg);
      if (Value now = replaced_.lookup(v)) // an earlier run's output
        map.map(now, arg);
    }
    b.setInsertionPointToEnd(entry);
    for (Operation *op : first.ops)
      b.clone(*op, map)->removeAttr(kScopeAttr);
    SmallVector<Value> results;
    for (Value v : first.outputs)
      results.push_back(map.lookup(v));
    b.create<func::ReturnOp>(callee.getLoc(), results);

    for (Run *run : members) {
      b.setInsertionPoint(run->ops.front());
      // An input may be an output of an earlier run, now a call result.
      SmallVector<Value> args;
      for (Value v : run->inputs)
        args.push_back(replaced_.lookup(v) ? replaced_.lookup(v) : v);
      auto call = b.create<func::CallOp>(run->ops.front()->getLoc(), callee, args);
      call->setAttr(kScopeAttr, b.getStringAttr(run->scope));
      for (auto [v, r] : llvm::zip(run->outputs, call.getResults())) {
        v.replaceAllUsesWith(r);
        replaced_[v] = r;
      }
      // Erased once every bucket is done: later runs still name these ops.
      dead_.append(run->ops.rbegin(), run->ops.rend());
    }
  }

  /// Outputs of outlined runs -> the call results that replaced them.
  DenseMap<Value, Value> replaced_;
  SmallVector<Operation *> dead_;
};

} // namespace
} // namespace ptec
