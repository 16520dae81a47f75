//===- ToOutVariants.cpp - functional ATen ops to .out forms --------------===//
//
// Every functional exir.aten op left on the portable CPU path becomes its
// out-variant writing into fresh exir.alloc tensors, which memory planning
// then places. Ops with no out-variant or no portable kernel are reported
// together, each at its own location and naming its node ("node 'chunk'
// (aten::chunk): not supported yet: ..."), so a user sees every problem at
// once; the messages are in a user's words (no "out-variant", no "portable").
//
// In a function with run-time shapes, `split_copy.Tensor` and `unbind_copy.int`
// first become one `slice_copy.Tensor` / `select_copy.int` per piece: their
// kernels (upstream's as ours) check that every out already has its piece's
// shape and never resize it, so an out planned at the bound fails as soon as
// a call is smaller, while slice and select resize their outs (and a slice
// clamps its end to the run-time size).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "passes/AtenBuilder.h"

#include "dialects/exir/IR/Dynamism.h"
#include "runtime/kernels/KernelRegistry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace ptec {
#define GEN_PASS_DEF_TOOUTVARIANTS
#include "passes/Passes.h.inc"

using namespace mlir;

namespace {

bool hasPortableKernel(llvm::StringRef name) {
  return ptec::rt::findKernel(name.str().c_str()) != nullptr;
}

/// The graph node an op was imported from: the NameLoc the importer wraps
/// each op's location in ("" when there is none).
llvm::StringRef nodeName(Location loc) {
  if (auto n = llvm::dyn_cast<NameLoc>(loc))
    return n.getName().getValue();
  if (auto c = llvm::dyn_cast<CallSiteLoc>(loc))
    return nodeName(c.getCallee());
  return "";
}

/// An error about `op` that names its node and operator, as the importer's
/// do: "node 'chunk' (aten::chunk): ...".
InFlightDiagnostic nodeError(exir::AtenOp op) {
  InFlightDiagnostic d = op.emitError();
  if (llvm::StringRef node = nodeName(op.getLoc()); !node.empty())
    d << "node '" << node << "' (" << op.getOpName() << "): ";
  else
    d << op.getOpName() << ": ";
  return d;
}

/// Rewrites `op` to its out-variant. Returns failure (after reporting) when
/// there is none.
LogicalResult rewriteToOut(exir::AtenOp op, const schema::FunctionSchema &s) {
  const schema::FunctionSchema *out =
      schema::OperatorRegistry::builtin().outVariantOf(s);
  if (!out)
    return nodeError(op) << "not supported yet: ptec has no CPU kernel for this operator "
                            "(and no rewrite of it into operators it has)";
  std::string outName = out->fullName();
  if (!hasPortableKernel(outName))
    return nodeError(op) << "not supported yet: ptec has no CPU kernel for this operator ("
                         << outName << ")";

  // One exir.alloc per tensor result, in return order. A result that
  // re-inplacing marked `exir.inplace_of = i` writes straight into operand i.
  OpBuilder b(op);
  SmallVector<Value> allocs;
  int inplaceOf = exir::getInplaceOperand(op);
  if (op->hasAttr(exir::kInplaceOfAttrName) &&
      (inplaceOf < 0 ||
       op->getOperand(inplaceOf).getType() != op->getResult(0).getType()))
    return nodeError(op) << "internal error: its exir.inplace_of names no operand of its "
                            "result's type";
  for (Type t : op->getResultTypes()) {
    if (!llvm::isa<RankedTensorType>(t))
      return nodeError(op) << "not supported yet: it returns a " << t
                           << ", and ptec can only give tensor results memory";
    if (inplaceOf >= 0)
      allocs.push_back(op->getOperand(inplaceOf));
    else
      allocs.push_back(b.create<exir::AllocOp>(op.getLoc(), t));
  }

  // Operands: the functional ones, then the out arguments. An out `Tensor[]`
  // takes every alloc; otherwise out args match returns one to one.
  SmallVector<Value> operands(op.getTensorInputs());
  SmallVector<int32_t> segments(op.getOperandSegments());
  unsigned nextAlloc = 0;
  for (const schema::Argument &a : out->arguments) {
    if (!a.isOut())
      continue;
    if (a.type.kind == schema::TypeKind::List) {
      segments.push_back(allocs.size() - nextAlloc);
      for (; nextAlloc < allocs.size(); ++nextAlloc)
        operands.push_back(allocs[nextAlloc]);
      continue;
    }
    if (nextAlloc >= allocs.size())
      return nodeError(op) << "internal error: " << outName
                           << " has more out arguments than the operator has results";
    segments.push_back(1);
    operands.push_back(allocs[nextAlloc++]);
  }
  if (nextAlloc != allocs.size())
    return nodeError(op) << "internal error: " << outName
                         << " has fewer out arguments than the operator has results";

  // Symbolic-int operands stay last (exir.sym_args travels with the attrs).
  operands.append(op.getSymOperands().begin(), op.getSymOperands().end());

  SmallVector<Type> resultTypes;
  for (unsigned i = 0; i < out->returns.size() && i < allocs.size(); ++i)
    resultTypes.push_back(allocs[i].getType());
  if (out->returns.size() == 1 &&
      out->returns.front().type.kind == schema::TypeKind::List)
    resultTypes.clear(); // `-> Tensor[]`: the allocs are the results.

  SmallVector<NamedAttribute> args;
  // Arguments the out form does not take (`full`'s dtype/layout/device: the
  // out tensor's type says them) are dropped.
  for (NamedAttribute na : op->getDiscardableAttrs()) {
    StringRef n = na.getName().getValue();
    if (n == exir::kInplaceOfAttrName)
      continue;
    if (n.contains('.') || out->findArgument(n) >= 0)
      args.push_back(na);
  }
  auto newOp = b.create<exir::AtenOp>(op.getLoc(), outName, resultTypes,
                                      operands, segments, args);
  for (unsigned i = 0; i < op->getNumResults(); ++i)
    op->getResult(i).replaceAllUsesWith(
        i < newOp->getNumResults() ? newOp->getResult(i) : allocs[i]);
  op->erase();
  return success();
}

/// One slice_copy.Tensor (split) or select_copy.int (unbind) per result of
/// `op`, whose kernel would not resize its outs (see the header). Piece k of
/// a split starts at k * split_size and is as long as its type says (the
/// bound); at run time the slice clamps it to the input's size.
LogicalResult splitIntoPieces(exir::AtenOp op) {
  const bool unbind = op.getOpName() == "aten::unbind_copy.int";
  if (!op.getSymOperands().empty())
    return op.emitError("'") << op.getOpName()
                             << "' with a run-time split size is not supported on dynamic "
                                "shapes";
  Value in = op.getTensorInputs().front();
  auto inType = llvm::dyn_cast<RankedTensorType>(in.getType());
  auto dimAttr = op->getAttrOfType<IntegerAttr>("dim");
  auto sizeAttr = op->getAttrOfType<IntegerAttr>("split_size");
  if (!inType || !dimAttr || (!unbind && !sizeAttr))
    return op.emitError("'") << op.getOpName() << "' without a ranked input, dim or split_size";
  int64_t dim = dimAttr.getInt();
  if (dim < 0)
    dim += inType.getRank();
  if (dim < 0 || dim >= inType.getRank())
    return op.emitError("dim ") << dimAttr.getInt() << " out of range";
  OpBuilder b(op);
  SmallVector<Value> pieces;
  int64_t start = 0;
  for (Value r : op->getResults()) {
    auto t = llvm::dyn_cast<RankedTensorType>(r.getType());
    if (!t)
      return op.emitError("a result of '") << op.getOpName() << "' is not a ranked tensor";
    SmallVector<NamedAttribute> attrs{b.getNamedAttr("dim", b.getI64IntegerAttr(dim))};
    FailureOr<Value> piece;
    if (unbind) {
      attrs.push_back(b.getNamedAttr("index", b.getI64IntegerAttr(start++)));
      piece = buildAtenValue(b, op.getLoc(), "aten::select_copy.int", t, {{in}}, attrs);
    } else {
      const int64_t len = t.getDimSize(dim);
      attrs.push_back(b.getNamedAttr("start", b.getI64IntegerAttr(start)));
      attrs.push_back(b.getNamedAttr("end", b.getI64IntegerAttr(start + len)));
      attrs.push_back(b.getNamedAttr("step", b.getI64IntegerAttr(1)));
      piece = buildAtenValue(b, op.getLoc(), "aten::slice_copy.Tensor", t, {{in}}, attrs);
      start += sizeAttr.getInt();
    }
    if (failed(piece))
      return failure();
    pieces.push_back(*piece);
  }
  op->replaceAllUsesWith(pieces);
  op->erase();
  return success();
}

/// The split and unbind ops of functions with run-time shapes, rewritten by
/// splitIntoPieces.
LogicalResult splitDynamicPieces(ModuleOp module) {
  SmallVector<exir::AtenOp> work;
  module.walk([&](func::FuncOp func) {
    if (!exir::hasDynamicShapes(func))
      return;
    func.walk([&](exir::AtenOp op) {
      if (!op->getParentOfType<exir::DelegateRegionOp>() &&
          (op.getOpName() == "aten::split_copy.Tensor" ||
           op.getOpName() == "aten::unbind_copy.int"))
        work.push_back(op);
    });
  });
  bool failedAny = false;
  for (exir::AtenOp op : work)
    failedAny |= failed(splitIntoPieces(op));
  return failure(failedAny);
}

/// Control-flow regions yield values with storage of their own: a branch's
/// results are moved (aliased) into the cond's results, a loop body's are
/// copied into the carried values, so a yielded value whose storage is not
/// made inside the region (an input, a value from above, a view of one) is
/// cloned first. Then a cond result never aliases a value planned outside
/// its branch, and no carried value is overwritten by another's copy.
LogicalResult cloneForeignYields(Region &region) {
  Block &block = region.front();
  auto yield = llvm::cast<exir::YieldOp>(block.getTerminator());
  for (OpOperand &o : yield->getOpOperands()) {
    Value root = exir::getStorageRoot(o.get());
    Operation *def = root.getDefiningOp();
    if (def && region.isAncestor(def->getParentRegion()))
      continue;
    OpBuilder b(yield);
    FailureOr<Value> copy = buildAtenValue(b, yield.getLoc(), "aten::clone",
                                           o.get().getType(), {{o.get()}});
    if (failed(copy))
      return failure();
    o.set(*copy);
  }
  return success();
}

struct ToOutVariantsPass : impl::ToOutVariantsBase<ToOutVariantsPass> {
  using ToOutVariantsBase::ToOutVariantsBase;

  void runOnOperation() override {
    bool anyFailed = failed(splitDynamicPieces(getOperation()));
    getOperation().walk([&](Operation *op) {
      if (auto cond = llvm::dyn_cast<exir::CondOp>(op))
        anyFailed |= failed(cloneForeignYields(cond.getThenRegion())) ||
                     failed(cloneForeignYields(cond.getElseRegion()));
      else if (auto loop = llvm::dyn_cast<exir::WhileOp>(op))
        anyFailed |= failed(cloneForeignYields(loop.getBodyRegion()));
    });
    SmallVector<exir::AtenOp> work;
    getOperation().walk([&](exir::AtenOp op) {
      // Ops inside a delegate region belong to their backend.
      if (!op->getParentOfType<exir::DelegateRegionOp>())
        work.push_back(op);
    });
    for (exir::AtenOp op : work) {
      const schema::FunctionSchema *s = op.getSchema();
      if (!s) {
        nodeError(op) << "unknown operator: ptec does not know it";
        anyFailed = true;
        continue;
      }
      if (op.getOpName() == "aten::view") {
        // An aliasing reshape (exir-alias-views): no kernel, no storage of
        // its own; the emitter writes an aliasing value (or et_view).
        continue;
      }
      if (s->isMutable()) {
        // Already in-place or out form: it needs a kernel as it is.
        if (!hasPortableKernel(s->fullName())) {
          nodeError(op) << "not supported yet: ptec has no CPU kernel for this operator";
          anyFailed = true;
        }
        continue;
      }
      if (failed(rewriteToOut(op, *s)))
        anyFailed = true;
    }
    if (anyFailed)
      signalPassFailure();
  }
};

} // namespace
} // namespace ptec
