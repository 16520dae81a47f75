//===- AliasViews.cpp - reshape-like copies become aliasing views ---------===//
//
// Legalization gives every view copy semantics (`view_copy`, ...), so each
// reshape would cost a kernel call and a planned copy. A reshape of
// contiguous data (view_copy, squeeze_copy, unsqueeze_copy) has the same
// bytes as its source, so it can share the source's storage instead: it
// becomes `aten::view` (Tensor(a) -> Tensor(a)), which memory planning
// treats as a use of the source's storage and the emitter turns into an
// aliasing tensor value with no instruction (or executorch_prim::et_view
// when the storage is not planned), as upstream does.
//
// Sharing is only safe when nothing writes that storage after the view: a
// write-back copy into a state, an in-place update, or an opaque op such as
// a delegate call could otherwise change what the view shows. Candidates are
// first all made views, then the alias analysis (which now sees the sharing)
// decides each one; a refused view goes back to its copy. Going back only
// shrinks the alias sets, so the other decisions stay safe.
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/Dynamism.h"
#include "passes/AtenBuilder.h"
#include "passes/Passes.h"
#include "passes/analysis/AliasAnalysis.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace ptec {
#define GEN_PASS_DEF_ALIASVIEWS
#include "passes/Passes.h.inc"

using namespace mlir;

namespace {

bool isReshapeCopy(exir::AtenOp op) {
  return llvm::is_contained({"aten::view_copy", "aten::squeeze_copy",
                             "aten::squeeze_copy.dim", "aten::squeeze_copy.dims",
                             "aten::unsqueeze_copy", "aten::_unsafe_view"},
                            op.getOpName());
}

struct AliasViewsPass : impl::AliasViewsBase<AliasViewsPass> {
  using AliasViewsBase::AliasViewsBase;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isDeclaration() && failed(aliasViews(func)))
        return signalPassFailure();
  }

  LogicalResult aliasViews(func::FuncOp func) {
    // Tentatively: every candidate a view, the copy kept beside it unused.
    SmallVector<std::pair<exir::AtenOp, exir::AtenOp>> pairs; // copy, view
    // A view of a run-time shape aliases too when its size list is explicit
    // (view_copy, _unsafe_view): the view keeps the symbolic operands, and
    // the emitter's et_view reads them at run time. squeeze / unsqueeze of a
    // dynamic tensor keep their copy kernel (their sizes come from the
    // input's run-time shape, which no size list says).
    llvm::DenseSet<Value> dynamic = exir::findDynamicValues(func);
    func.walk([&](exir::AtenOp op) {
      bool runtimeShape = exir::usesDynamicValue(op, dynamic);
      if (runtimeShape && op.getOpName() != "aten::view_copy" &&
          op.getOpName() != "aten::_unsafe_view")
        return;
      auto type = llvm::dyn_cast<RankedTensorType>(op->getResultTypes().empty()
                                                       ? Type()
                                                       : op->getResult(0).getType());
      if (!isReshapeCopy(op) || op->getNumResults() != 1 || !type ||
          !type.hasStaticShape() || op->hasAttr(exir::kInplaceOfAttrName))
        return;
      OpBuilder b(op);
      Builder attrs(op.getContext());
      // A run-time shape keeps the size list as written (a -1 is inferred
      // from the run-time element count); a static one is the type's shape.
      auto written = op->getAttrOfType<DenseI64ArrayAttr>("size");
      DenseI64ArrayAttr size = runtimeShape && written
                                   ? written
                                   : attrs.getDenseI64ArrayAttr(type.getShape());
      FailureOr<exir::AtenOp> view =
          buildAten(b, op.getLoc(), "aten::view", {type}, {{op->getOperand(0)}},
                    {attrs.getNamedAttr("size", size)});
      if (failed(view))
        return;
      if (ArrayAttr syms = op.getSymArgs()) {
        SmallVector<Value> operands((*view)->getOperands());
        llvm::append_range(operands, op.getSymOperands());
        (*view)->setOperands(operands);
        (*view)->setAttr(exir::kSymArgsAttrName, syms);
      }
      op->getResult(0).replaceAllUsesWith((*view)->getResult(0));
      if (dynamic.contains(op->getResult(0)))
        dynamic.insert((*view)->getResult(0)); // its users are still to come
      pairs.push_back({op, *view});
    });
    if (pairs.empty())
      return success();

    AliasAnalysis aa(func);
    Block &body = func.getBody().front();
    auto topLevel = [&](Operation *op) {
      while (op->getBlock() != &body)
        op = op->getParentOp();
      return op;
    };
    int64_t aliased = 0, kept = 0;
    for (auto [copy, view] : pairs) {
      Operation *at = topLevel(view);
      bool safe = llvm::all_of(aa.getWriters(view->getResult(0)), [&](Operation *w) {
        w = topLevel(w);
        return w != at && w->isBeforeInBlock(at);
      });
      if (safe) {
        copy->erase();
        ++aliased;
      } else {
        view->getResult(0).replaceAllUsesWith(copy->getResult(0));
        view->erase();
        ++kept;
      }
    }
    Builder b(func.getContext());
    func->setAttr("exir.alias_views",
                  b.getDictionaryAttr({b.getNamedAttr("aliased", b.getI64IntegerAttr(aliased)),
                                       b.getNamedAttr("copied", b.getI64IntegerAttr(kept))}));
    return success();
  }
};

} // namespace
} // namespace ptec
