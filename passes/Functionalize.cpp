//===- Functionalize.cpp - in-place ops and writes through views -> values -===//
//
// torch.export writes non-functional graphs: in-place ops (`relu_`, `add_`,
// `copy_`, `index_put_`, ...) that write their `self`, often through a view
// (`b[1:3] = v` is `slice` + `copy_`), and buffers or user inputs written that
// way have no mutation output. Every later pass assumes value semantics, so
// this pass runs first and rewrites a method into its functional form.
//
// What is a write, a view or neither comes from the schema's alias
// annotations only (`Tensor(a!)` is written; a return in an argument's set
// `(a)` is a view of it; `(a -> *)` is an untracked alias), never from op
// names. The algorithm is one forward walk over each block:
//
//  - A root is a value that is not a view: a function argument or a fresh op
//    result. `current[root]` is the SSA value holding its contents now, and
//    `version[root]` counts the writes to it so far.
//  - A view remembers its parent (root or view) and the op that made it.
//    Reading a view whose root was written after the view was made re-derives
//    it from the root's current value by replaying its chain of view ops
//    (cached per version).
//  - A write `op_(w, ...)` becomes the functional op (the registry's
//    functional form: `add_.Tensor` -> `add.Tensor`, `add.out` -> `add.Tensor`,
//    `_native_batch_norm_legit` -> `..._functional`), whose result is the new
//    contents of `w`. When `w` is a view, the new contents are written back
//    into each parent with the inverse of each view op, innermost first
//    (`slice` -> `slice_scatter`, `select` -> `select_scatter`, `diagonal` ->
//    `diagonal_scatter`, `as_strided` -> `as_strided_scatter`, a reshape back
//    to the parent's shape, `permute` -> the inverse permutation,
//    `transpose`/`t` -> themselves, `alias`/`detach` -> nothing), up to the
//    root, which gets a new current value. The results of list views
//    (`split`, `chunk`, `tensor_split`, `unbind`, ...) are `(a -> *)` in
//    their schemas, but each shows a known slice (or select) of its base,
//    so each is tracked as one.
//  - Uses of the in-place op's result (it IS its `self`) read `self` instead.
//  - At the return, each written function argument gets its mutation output
//    (`buffer_mutation` / `user_input_mutation`, in argument order, before the
//    other outputs, as torch's own functionalization orders them); a written
//    parameter becomes a mutable buffer; written buffers are marked mutable.
//    Re-inplacing and write-back placement then handle them as any other.
//
// What it cannot do is refused with the node and the rule: writes through a
// view whose inverse would write an element twice (expand, unfold, an
// overlapping as_strided) or through an untracked alias (a list view whose
// pieces' offsets are only known at run time),
// reads of such an alias after its base was written, writes through a
// `reshape`/`contiguous` of a non-contiguous view (PyTorch copies there or
// not depending on strides), writes to a lifted constant, writes inside a
// cond/while body to a value from outside it, mixing an explicit mutation
// output with in-place writes of the same state, and mutating ops without a
// functional form. `batch_norm` / `native_batch_norm` in training mode
// update their running statistics although their schemas carry no `!`
// (a documented exception of ATen's annotations): they are treated as
// writing them.
//
// This file holds the walk, the rewrite of each write and the mutation
// outputs; views (replay and write-back) are in FunctionalizeViews.cpp, on
// the BlockFunctionalizer of Functionalizer.h.
//
//===----------------------------------------------------------------------===//

#include "passes/Functionalizer.h"
#include "passes/Passes.h"

#include "dialects/exir/IR/Dynamism.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"

namespace ptec {
#define GEN_PASS_DEF_FUNCTIONALIZE
#include "passes/Passes.h.inc"

using namespace mlir;

namespace functionalize {
namespace {

/// Written schema arguments of `op` (single tensors), with `training`-mode
/// batch norm's running statistics added (ATen's schemas omit their `!`).
SmallVector<unsigned> writtenArgs(exir::AtenOp op, const schema::FunctionSchema &s) {
  SmallVector<unsigned> out;
  for (auto [i, a] : llvm::enumerate(s.arguments))
    if (a.isWrite())
      out.push_back(i);
  if (out.empty() && (op.getOpName() == "aten::batch_norm" ||
                      op.getOpName() == "aten::native_batch_norm")) {
    auto training = op->getAttrOfType<BoolAttr>("training");
    int rm = s.findArgument("running_mean"), rv = s.findArgument("running_var");
    if (training && training.getValue() && rm >= 0 && rv >= 0 &&
        op.getArgOperands(rm).size() == 1 && op.getArgOperands(rv).size() == 1)
      out = {static_cast<unsigned>(rm), static_cast<unsigned>(rv)};
  }
  return out;
}

} // namespace

LogicalResult BlockFunctionalizer::functionalize(exir::AtenOp op) {
  const schema::FunctionSchema *s = op.getSchema();
  SmallVector<unsigned> written = s ? writtenArgs(op, *s) : SmallVector<unsigned>();
  if (written.empty())
    return success();
  auto refuse = [&](const Twine &why) {
    return op.emitError("cannot functionalize '") << op.getOpName() << "': " << why;
  };
  // The logical values written (before operands are resolved to current ones).
  SmallVector<Value> targets;
  for (unsigned a : written) {
    OperandRange r = op.getArgOperands(a);
    const schema::SchemaType &t = s->arguments[a].type;
    bool single = t.kind == schema::TypeKind::Tensor ||
                  (t.kind == schema::TypeKind::Optional &&
                   t.elems.front().kind == schema::TypeKind::Tensor);
    if (r.size() != 1 || !single)
      return refuse("it writes a list of tensors or an optional one in place");
    targets.push_back(r.front());
  }
  if (failed(resolveOperands(op)))
    return failure();

  // The functional form and which of its results holds each written value.
  const schema::FunctionSchema *f = nullptr;
  SmallVector<unsigned> newValueResult; // per target
  SmallVector<int> origResult;          // per original result: functional result or -1
  bool outForm = s->isOutVariant();
  StringRef name = op.getOpName();
  bool bnTraining = name == "aten::batch_norm" || name == "aten::native_batch_norm";
  if (bnTraining) {
    f = registry().lookup("aten::_native_batch_norm_legit_functional");
    newValueResult = {3, 4};
    origResult = name == "aten::batch_norm" ? SmallVector<int>{0} : SmallVector<int>{0, 1, 2};
  } else if (outForm) {
    f = registry().functionalOf(*s);
    if (f && f->returns.size() != written.size())
      f = nullptr;
    for (unsigned i = 0; i < written.size(); ++i)
      newValueResult.push_back(i);
    for (unsigned i = 0; i < op->getNumResults(); ++i)
      origResult.push_back(i < written.size() ? static_cast<int>(i) : -1);
  } else if (written.size() == 1 && s->isInplace()) {
    f = registry().functionalOf(*s);
    newValueResult = {0};
    origResult = {0};
  } else {
    // Several written arguments (`_native_batch_norm_legit`): torch's
    // `<name>_functional` form returns the original results, then the new
    // value of each written argument in order.
    f = registry().lookup(s->ns + "::" + s->name + "_functional");
    if (f && f->returns.size() == s->returns.size() + written.size()) {
      for (unsigned i = 0; i < written.size(); ++i)
        newValueResult.push_back(s->returns.size() + i);
      for (unsigned i = 0; i < op->getNumResults(); ++i)
        origResult.push_back(i);
    } else {
      f = nullptr;
    }
  }
  if (!f)
    return refuse("it writes its arguments in place and ptec knows no functional form "
                  "of it");
  if (!f->returns.empty() && f->returns.front().alias()) {
    // An in-place view op (`t_`, `squeeze_`, `as_strided_`) changes the
    // tensor's shape or strides, not its elements; `detach_` changes neither.
    if (viewKind(f->fullName()) != ViewKind::Identity)
      return refuse("it changes its argument's shape or strides in place; export "
                    "the out-of-place form");
    op->getResult(0).replaceAllUsesWith(targets.front());
    op->erase();
    return success();
  }

  // Operands and attributes by argument name; written out-arguments dropped.
  OpBuilder b(op);
  SmallVector<SmallVector<Value, 1>> tensors;
  SmallVector<NamedAttribute> attrs;
  for (auto [i, a] : llvm::enumerate(f->arguments)) {
    int orig = s->findArgument(a.name);
    if (orig < 0 && f->arguments.size() == s->arguments.size())
      orig = static_cast<int>(i); // same arguments under other names, by position
    if (a.type.isTensorLike()) {
      if (orig < 0)
        return refuse(Twine("its functional form '") + f->fullName() +
                      "' takes an argument '" + a.name + "' it does not have");
      OperandRange r = op.getArgOperands(orig);
      tensors.push_back(SmallVector<Value, 1>(r.begin(), r.end()));
      if (Attribute present = op->getAttr(a.name)) // a Tensor?[]'s presence mask
        attrs.push_back(b.getNamedAttr(a.name, present));
    } else if (Attribute v = orig >= 0 ? op->getAttr(s->arguments[orig].name) : Attribute()) {
      attrs.push_back(b.getNamedAttr(a.name, v));
    }
  }
  SmallVector<Type> types;
  for (unsigned i = 0; i < f->returns.size(); ++i) {
    int from = -1;
    for (unsigned t = 0; t < newValueResult.size(); ++t)
      if (newValueResult[t] == i)
        from = t;
    if (from >= 0) {
      types.push_back(targets[from].getType());
      continue;
    }
    int orig = -1;
    for (auto [k, r] : llvm::enumerate(origResult))
      if (r == static_cast<int>(i))
        orig = k;
    if (orig < 0 || static_cast<unsigned>(orig) >= op->getNumResults()) {
      // A statistics result the graph did not ask for (batch norm's save_*):
      // per-channel, shaped like the running mean.
      types.push_back(targets.front().getType());
      continue;
    }
    types.push_back(op->getResult(orig).getType());
  }
  FailureOr<exir::AtenOp> fop = buildAten(b, op.getLoc(), f->fullName(), types, tensors, attrs);
  if (failed(fop))
    return failure();
  if (ArrayAttr syms = op.getSymArgs()) {
    SmallVector<Value> operands((*fop)->getOperands());
    llvm::append_range(operands, op.getSymOperands());
    (*fop)->setOperands(operands);
    (*fop)->setAttr(exir::kSymArgsAttrName, syms);
  }
  copyAnnotations(op, *fop);

  // Results: in-place results are their self; others map to the functional op.
  for (auto [k, r] : llvm::enumerate(op->getResults())) {
    Value aliased = op.getAliasedOperand(k);
    int t = -1;
    for (unsigned j = 0; j < written.size(); ++j)
      if (aliased && op.getArgOperands(written[j]).front() == aliased)
        t = j;
    if (t >= 0)
      r.replaceAllUsesWith(targets[t]);
    else if (origResult[k] >= 0)
      r.replaceAllUsesWith((*fop)->getResult(origResult[k]));
    else if (!r.use_empty())
      return refuse("a result of it has no counterpart in its functional form");
  }
  for (auto [t, target] : llvm::enumerate(targets))
    if (failed(writeBack(target, (*fop)->getResult(newValueResult[t]), op)))
      return failure();
  op->erase();
  return success();
}

LogicalResult BlockFunctionalizer::nested(Operation *op) {
  // Values from outside that ops inside read: their current contents.
  LogicalResult ok = success();
  op->walk([&](Operation *inner) {
    if (inner == op)
      return;
    for (OpOperand &o : inner->getOpOperands()) {
      if (op->isProperAncestor(o.get().getParentRegion()->getParentOp()) ||
          o.get().getParentRegion()->getParentOp() == op)
        continue;
      FailureOr<Value> now = resolve(o.get(), inner);
      if (failed(now)) {
        ok = failure();
        continue;
      }
      o.set(*now);
    }
  });
  if (failed(ok))
    return failure();
  for (Region &r : op->getRegions())
    for (Block &blk : r) {
      BlockFunctionalizer inner(blk, dynamic, n);
      if (failed(inner.run()))
        return failure();
      if (!inner.writtenRoots.empty())
        return op->emitError("cannot functionalize: a cond/while body writes its block "
                             "argument in place; return the new value instead");
    }
  return success();
}

LogicalResult BlockFunctionalizer::run() {
  SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  for (Operation *op : ops) {
    auto aten = llvm::dyn_cast<exir::AtenOp>(op);
    const schema::FunctionSchema *s = aten ? aten.getSchema() : nullptr;
    if (aten && s && !writtenArgs(aten, *s).empty()) {
      if (failed(functionalize(aten)))
        return failure();
      continue;
    }
    // A view's logical source, before operands become current values.
    Value viewSrc;
    bool untracked = false;
    if (aten) {
      viewSrc = viewSource(aten, untracked);
      if (untracked)
        for (auto [i, operand] : llvm::enumerate(aten.getTensorInputs())) {
          int arg = aten.getSchemaArgForOperand(i);
          const schema::AliasInfo *ai = arg >= 0 ? s->arguments[arg].alias() : nullptr;
          if (ai && ai->isWildcardAfter()) {
            viewSrc = operand;
            break;
          }
        }
    }
    if (op->getNumRegions() > 0 && failed(nested(op)))
      return failure();
    if (failed(resolveOperands(op)))
      return failure();
    if (viewSrc)
      recordView(aten, viewSrc, untracked);
  }
  return success();
}

} // namespace functionalize

namespace {
using namespace functionalize;

/// Gives `func` its mutation outputs for the written arguments (argument
/// order, before the existing outputs) and makes written weights mutable
/// buffers in the whole module.
LogicalResult addStateOutputs(func::FuncOp func, const llvm::MapVector<Value, Value> &written,
                              ModuleOp module) {
  if (written.empty())
    return success();
  MLIRContext *ctx = func.getContext();
  Builder b(ctx);
  auto ret = llvm::cast<func::ReturnOp>(func.getBody().front().getTerminator());
  // Existing mutation outputs must not name written state too.
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (auto out = func.getResultAttrOfType<exir::OutputAttr>(
            i, exir::ExirDialect::kOutputAttrName);
        out && out.getTarget())
      for (auto [arg, value] : written) {
        auto in = func.getArgAttrOfType<exir::InputAttr>(
            llvm::cast<BlockArgument>(arg).getArgNumber(), exir::ExirDialect::kInputAttrName);
        if (in && in.getFqn() == out.getTarget())
          return mlir::emitError(arg.getLoc(), "cannot functionalize: '")
                 << out.getTarget().getValue()
                 << "' is written in place and also has an explicit "
                 << out.getKind().getValue() << " output; which one is final is ambiguous";
      }
  SmallVector<std::pair<unsigned, Value>> ordered;
  for (auto [arg, value] : written)
    ordered.push_back({llvm::cast<BlockArgument>(arg).getArgNumber(), value});
  llvm::sort(ordered, [](auto &a, auto &b) { return a.first < b.first; });

  SmallVector<Value> results;
  SmallVector<Attribute> resultAttrs;
  for (auto [argNo, value] : ordered) {
    auto in = func.getArgAttrOfType<exir::InputAttr>(argNo, exir::ExirDialect::kInputAttrName);
    StringRef kind = in ? in.getKind().getValue() : "";
    StringAttr fqn = in ? in.getFqn() : StringAttr();
    StringRef outKind;
    if (kind == "user_input") {
      outKind = "user_input_mutation";
    } else if ((kind == "buffer" || kind == "parameter") && fqn) {
      outKind = "buffer_mutation";
      auto weight = SymbolTable::lookupNearestSymbolFrom<exir::WeightOp>(
          module, SymbolRefAttr::get(fqn));
      if (!weight)
        return func.emitError("cannot functionalize: written ")
               << kind << " '" << fqn.getValue() << "' has no exir.weight";
      // A parameter written in place is state: a mutable buffer in every
      // method, so it is never folded, deduplicated or baked into a delegate.
      weight.setKindAttr(b.getStringAttr("buffer"));
      weight.setIsMutable(true);
      if (kind == "parameter")
        module.walk([&](func::FuncOp f) {
          for (unsigned i = 0; i < f.getNumArguments(); ++i)
            if (auto a = f.getArgAttrOfType<exir::InputAttr>(i, exir::ExirDialect::kInputAttrName);
                a && a.getKind().getValue() == "parameter" && a.getFqn() == fqn)
              f.setArgAttr(i, exir::ExirDialect::kInputAttrName,
                           exir::InputAttr::get(ctx, b.getStringAttr("buffer"), fqn));
        });
    } else {
      return mlir::emitError(func.getArgument(argNo).getLoc(), "cannot functionalize: ")
             << (kind.empty() ? StringRef("argument") : kind) << " '"
             << (fqn ? fqn.getValue() : StringRef("#") ) << (fqn ? "" : std::to_string(argNo))
             << "' is written in place; only buffers, parameters and user inputs can "
                "hold state";
    }
    results.push_back(value);
    resultAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
        exir::ExirDialect::kOutputAttrName,
        exir::OutputAttr::get(ctx, b.getStringAttr(outKind), fqn ? fqn : StringAttr()))));
  }
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    results.push_back(v);
    resultAttrs.push_back(func.getResultAttrDict(i) ? Attribute(func.getResultAttrDict(i))
                                                    : Attribute(b.getDictionaryAttr({})));
  }
  ret->setOperands(results);
  func.setFunctionType(
      b.getFunctionType(func.getArgumentTypes(), ValueRange(results).getTypes()));
  func.setAllResultAttrs(resultAttrs);
  return success();
}

struct FunctionalizePass : impl::FunctionalizeBase<FunctionalizePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isExternal())
        continue;
      DenseSet<Value> dynamic = exir::findDynamicValues(func);
      Counters n;
      BlockFunctionalizer walk(func.getBody().front(), dynamic, n);
      if (failed(walk.run()) || failed(addStateOutputs(func, walk.writtenRoots, module)))
        return signalPassFailure();
      n.state = walk.writtenRoots.size();
      if (n.writes == 0 && n.replays == 0)
        continue; // Already functional: the IR is left exactly as it was.
      Builder b(func.getContext());
      func->setAttr("exir.functionalize",
                    b.getDictionaryAttr({b.getNamedAttr("writes", b.getI64IntegerAttr(n.writes)),
                                         b.getNamedAttr("view_writes", b.getI64IntegerAttr(n.viewWrites)),
                                         b.getNamedAttr("replays", b.getI64IntegerAttr(n.replays)),
                                         b.getNamedAttr("state", b.getI64IntegerAttr(n.state))}));
    }
  }
};

} // namespace
} // namespace ptec
