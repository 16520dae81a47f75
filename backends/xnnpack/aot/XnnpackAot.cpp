//===- XnnpackAot.cpp - the XnnpackBackend AotBackend ---------------------===//

#include "backends/xnnpack/aot/XnnpackAot.h"

#include "dialects/exir/IR/ExirDialect.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace ptec::aot::xnnpack {

namespace {

/// Ops that only move bytes: a group made of nothing else is not worth a
/// delegate call.
bool onlyMovesData(Operation *op) {
  auto aten = llvm::dyn_cast<exir::AtenOp>(op);
  if (!aten)
    return false;
  std::string why;
  std::optional<OpPlan> p = planOp(op, moduleConstant, &why);
  if (p && p->form == OpPlan::Form::Transpose) // an expand to its own shape
    for (size_t i = 0; i < p->perm.size(); ++i)
      if (p->perm[i] != i)
        return false;
  return p && (p->form == OpPlan::Form::Reshape || p->form == OpPlan::Form::Pad ||
               p->form == OpPlan::Form::Transpose);
}

/// `ops` (program order, one block) cut where a member reads, through ops
/// outside the group, a value computed from an earlier member's result: one
/// region holding both would have to run before and after those ops. Data
/// movement (a permute or slice feeding an in-place update that reads the
/// group) makes such groups.
llvm::SmallVector<OpGroup> convexCuts(llvm::ArrayRef<Operation *> group) {
  llvm::SmallVector<OpGroup> cuts;
  if (group.empty())
    return cuts;
  OpGroup ops(group.begin(), group.end());
  for (Operation *op : ops)
    if (op->getBlock() != ops.front()->getBlock()) {
      cuts.push_back(ops); // not one block: left as it is
      return cuts;
    }
  llvm::sort(ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  llvm::SmallPtrSet<Operation *, 16> members(ops.begin(), ops.end());
  llvm::SmallPtrSet<Operation *, 16> current;
  llvm::DenseSet<Value> tainted; // non-member results that depend on `current`
  OpGroup cut;
  // Operands of nested ops count too: an earlier group's delegate region
  // has none of its own but reads values of the block through its body.
  auto dependsOnCurrent = [&](Operation *op) {
    WalkResult r = op->walk([&](Operation *nested) {
      for (Value v : nested->getOperands()) {
        Operation *def = v.getDefiningOp();
        if (tainted.count(v) || (def && current.count(def)))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return r.wasInterrupted();
  };
  for (Operation *op = ops.front(); op; op = op->getNextNode()) {
    if (members.count(op)) {
      bool viaOutside = false;
      for (Value v : op->getOperands())
        viaOutside = viaOutside || tainted.count(v);
      if (viaOutside) {
        cuts.push_back(std::move(cut));
        cut = {};
        current.clear();
        tainted.clear();
      }
      cut.push_back(op);
      current.insert(op);
    } else if (dependsOnCurrent(op)) {
      for (Value r : op->getResults())
        tainted.insert(r);
    }
    if (op == ops.back())
      break;
  }
  cuts.push_back(std::move(cut));
  return cuts;
}

class XnnpackAotBackend final : public AotBackend {
public:
  explicit XnnpackAotBackend(bool scratch) : scratch_(scratch) {}

  llvm::StringRef id() const override { return kXnnpackAotId; }
  llvm::StringRef name() const override { return kXnnpackAotName; }

  std::optional<std::string> refuse(Operation *op) const override { return refuseOp(op); }

  /// Maximal groups, cut where one would not be convex (convexCuts), except
  /// those that would only move data, and int8 weights kept with their users
  /// (keepQuantizedWeights).
  llvm::SmallVector<OpGroup> group(llvm::ArrayRef<Operation *> ops) const override {
    llvm::SmallVector<OpGroup> groups;
    for (const OpGroup &cut : convexCuts(ops)) {
      std::optional<OpGroup> kept = keepQuantizedWeights(cut);
      if (!kept || kept->empty() || llvm::all_of(*kept, onlyMovesData))
        continue;
      groups.push_back(std::move(*kept));
    }
    return groups;
  }

  FailureOr<PreprocessResult> preprocess(func::FuncOp region) const override {
    uint64_t workspace = 0;
    std::map<std::string, std::string> named;
    std::vector<unsigned> baked;
    FailureOr<std::string> blob = lowerRegion(region, &workspace, &named, &baked);
    if (failed(blob))
      return failure();
    PreprocessResult r;
    r.blob = std::move(*blob);
    r.namedData.assign(named.begin(), named.end());
    r.bakedArgs = std::move(baked);
    // execute() reads every argument on each call and keeps nothing between
    // calls (XnnpackBackend.h), so one handle may serve every call site.
    r.shareHandleAcrossCalls = true;
    if (scratch_ && workspace > 0)
      r.scratch.push_back(ScratchSpec{static_cast<int64_t>(workspace),
                                      static_cast<int64_t>(ptec::xnnpack::kWorkspaceAlignment)});
    return r;
  }

private:
  bool scratch_;
};

} // namespace

std::unique_ptr<AotBackend> createXnnpackAotBackend(llvm::StringRef options,
                                                    std::string *error) {
  bool scratch = false;
  llvm::SmallVector<llvm::StringRef> parts;
  options.split(parts, ':', -1, false);
  for (llvm::StringRef o : parts) {
    if (o == "scratch") {
      scratch = true;
      continue;
    }
    *error = "xnnpack: unknown option '" + o.str() + "' (known: scratch)";
    return nullptr;
  }
  return std::make_unique<XnnpackAotBackend>(scratch);
}

} // namespace ptec::aot::xnnpack
