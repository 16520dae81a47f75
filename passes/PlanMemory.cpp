//===- PlanMemory.cpp - assign arena offsets to planned tensors -----------===//
//
// Numbers the top-level ops of each method, computes the lifetime of every
// planned storage (user inputs, written buffers, exir.alloc results, delegate
// results, per-call delegate scratch) through the aliases that out-variant,
// in-place and view results create, and asks the planner algorithms
// (passes/planning) for offsets. Results are attributes the emitter reads:
//   args:           exir.mem = #exir.mem<arena, offset, size>
//   exir.alloc:     exir.mem
//   delegate_call:  exir.mems = [...] (per result), exir.scratch_mems = [...]
//   func:           exir.arena_sizes = array<i64: 0, N>, exir.plan = {...}
//
// With share-mutable-buffers, every buffer some method writes is laid out
// once for the whole module in arena 2 (sorted by FQN) and gets that place in
// every method that uses it, read-only uses included: the methods then share
// one state (spec section 6; the runtime backs arena 2 with one buffer).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/planning/MemoryPlanner.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

#include <map>
#include <string>

namespace ptec {
#define GEN_PASS_DEF_PLANMEMORY
#include "passes/Passes.h.inc"

using namespace mlir;

namespace {

int64_t tensorBytes(Type t) {
  auto rt = llvm::dyn_cast<RankedTensorType>(t);
  if (!rt || !rt.hasStaticShape())
    return -1;
  Type e = rt.getElementType();
  int64_t bits = e.isIntOrFloat() ? e.getIntOrFloatBitWidth() : 0;
  if (bits == 0)
    return -1;
  int64_t elemBytes = bits == 1 ? 1 : (bits + 7) / 8; // bool is a byte
  return rt.getNumElements() * elemBytes;
}

/// True when `arg` is written in `func` (copy_ destination or a written
/// operand of a mutating ATen op).
bool isWritten(BlockArgument arg) {
  for (OpOperand &use : arg.getUses()) {
    Operation *user = use.getOwner();
    if (auto copy = llvm::dyn_cast<exir::CopyOp>(user))
      if (copy.getDst() == arg)
        return true;
    if (auto aten = llvm::dyn_cast<exir::AtenOp>(user)) {
      const schema::FunctionSchema *s = aten.getSchema();
      int a = aten.getSchemaArgForOperand(use.getOperandNumber());
      if (s && a >= 0 && s->arguments[a].isWrite())
        return true;
    }
  }
  return false;
}

planning::PlanResult runAlgorithm(llvm::StringRef name,
                                  const std::vector<planning::PlanRequest> &r) {
  if (name == "greedy")
    return planning::planGreedyBySize(r);
  if (name == "best-fit")
    return planning::planBestFit(r);
  if (name == "first-fit")
    return planning::planInOrderFirstFit(r);
  return planning::planBest(r);
}

/// The arena of mutable buffers shared across methods (spec section 6).
constexpr int64_t kSharedStateArena = 2;

llvm::StringRef bufferFqn(func::FuncOp func, BlockArgument arg) {
  exir::InputAttr in = exir::getInputAttr(func, arg.getArgNumber());
  if (!in || in.getKind().getValue() != "buffer" || !in.getFqn())
    return {};
  return in.getFqn().getValue();
}

struct PlanMemoryPass : impl::PlanMemoryBase<PlanMemoryPass> {
  using PlanMemoryBase::PlanMemoryBase;

  void runOnOperation() override {
    if (!llvm::is_contained({"best", "greedy", "best-fit", "first-fit"},
                            algorithm)) {
      getOperation().emitError("unknown planner algorithm '")
          << algorithm << "' (expected best, greedy, best-fit or first-fit)";
      return signalPassFailure();
    }
    if (shareMutableBuffers && failed(layOutSharedState()))
      return signalPassFailure();
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isDeclaration() && failed(planFunction(func)))
        return signalPassFailure();
  }

  /// Places every buffer written by some method in arena 2, by FQN order;
  /// one buffer name must have one type in every method.
  LogicalResult layOutSharedState() {
    std::map<std::string, std::pair<Type, func::FuncOp>> buffers;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isDeclaration())
        for (BlockArgument arg : func.getArguments())
          if (!bufferFqn(func, arg).empty() && isWritten(arg))
            buffers.try_emplace(bufferFqn(func, arg).str(), arg.getType(), func);
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isDeclaration())
        continue;
      for (BlockArgument arg : func.getArguments()) {
        auto it = buffers.find(bufferFqn(func, arg).str());
        if (it == buffers.end() || it->second.first == arg.getType())
          continue;
        return func.emitError("mutable buffer '")
               << it->first << "' is " << arg.getType() << " in method '"
               << func.getSymName() << "' but " << it->second.first
               << " in method '" << it->second.second.getSymName()
               << "'; methods can only share a buffer of one dtype and shape";
      }
    }
    int64_t offset = 0;
    for (auto &[fqn, entry] : buffers) {
      int64_t size = tensorBytes(entry.first);
      if (size < 0)
        return entry.second.emitError("cannot share mutable buffer '")
               << fqn << "' of type " << entry.first
               << ": static shapes with int/float elements only";
      size = (size + 15) / 16 * 16;
      shared[fqn] = exir::MemAttr::get(&getContext(), kSharedStateArena,
                                       offset, size);
      offset += size;
    }
    sharedBytes = offset;
    return success();
  }

  std::map<std::string, exir::MemAttr> shared;
  int64_t sharedBytes = 0;

  /// exir.cond / exir.while at top-level index `i`: a while's results are
  /// its carried values, planned like any result; every storage made inside
  /// either's regions lives from `i` (a loop runs them all at `i`; a cond's
  /// results alias them, see the lifetime walk), so it shares bytes with
  /// nothing live during or after the op.
  template <typename AddStorage>
  LogicalResult planControlFlow(Operation &op, int64_t i, AddStorage &addStorage,
                                llvm::MapVector<Operation *, SmallVector<Value>> &nested) {
    if (llvm::isa<exir::WhileOp>(op))
      for (Value r : op.getResults())
        if (failed(addStorage(r, i, op.getLoc())))
          return failure();
    SmallVector<Value> &mine = nested[&op];
    WalkResult walked = op.walk([&](Operation *inner) {
      if (inner == &op)
        return WalkResult::advance();
      if (auto alloc = llvm::dyn_cast<exir::AllocOp>(inner)) {
        if (failed(addStorage(alloc.getResult(), i, inner->getLoc())))
          return WalkResult::interrupt();
        mine.push_back(alloc.getResult());
      } else if (auto aten = llvm::dyn_cast<exir::AtenOp>(inner)) {
        for (OpResult r : aten->getResults())
          if (!aten.getAliasedOperand(r.getResultNumber())) {
            aten.emitError("result ") << r.getResultNumber() << " of '" << aten.getOpName()
                                      << "' has no planned storage; run "
                                         "exir-to-out-variants first";
            return WalkResult::interrupt();
          }
      } else if (!llvm::isa<exir::YieldOp, exir::SymConstOp>(inner)) {
        inner->emitError("'") << inner->getName()
                              << "' inside control flow cannot be planned";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return failure(walked.wasInterrupted());
  }

  /// Sets `exir.mem` on every argument that has one in `mems`.
  static void setArgMems(func::FuncOp func, ArrayRef<exir::MemAttr> mems) {
    if (llvm::all_of(mems, [](exir::MemAttr m) { return !m; }))
      return;
    SmallVector<DictionaryAttr> attrs;
    for (auto [i, mem] : llvm::enumerate(mems)) {
      DictionaryAttr old = func.getArgAttrDict(i);
      if (!mem) {
        attrs.push_back(old);
        continue;
      }
      NamedAttrList list(old);
      list.set("exir.mem", mem);
      attrs.push_back(list.getDictionary(func.getContext()));
    }
    func.setAllArgAttrs(attrs);
  }

  LogicalResult planFunction(func::FuncOp func) {
    MLIRContext *ctx = func.getContext();
    Block &body = func.getBody().front();

    // Instruction numbering: arguments are defined at 0, top-level ops at
    // 1..N in order; a nested use counts at its top-level ancestor.
    llvm::DenseMap<Operation *, int64_t> index;
    int64_t n = 0;
    for (Operation &op : body)
      index[&op] = ++n;
    const int64_t end = n;
    auto indexOf = [&](Operation *op) {
      while (op->getBlock() != &body)
        op = op->getParentOp();
      return index.lookup(op);
    };

    // Planned storages, in a deterministic order, with their first use.
    struct Storage {
      int64_t size;
      int64_t first;
      int64_t last;
    };
    llvm::MapVector<Value, Storage> storages;
    auto addStorage = [&](Value v, int64_t first, Location loc) -> LogicalResult {
      int64_t size = tensorBytes(v.getType());
      if (size < 0)
        return emitError(loc, "cannot plan a value of type ")
               << v.getType() << ": static shapes with int/float elements only";
      storages[v] = {size, first, first};
      return success();
    };

    // Each argument's exir.mem, set in one go at the end (one at a time
    // rebuilds the attributes of every argument each time).
    SmallVector<exir::MemAttr> argMems(func.getNumArguments());
    for (BlockArgument arg : func.getArguments()) {
      exir::InputAttr in = exir::getInputAttr(func, arg.getArgNumber());
      llvm::StringRef kind = in ? in.getKind().getValue() : "user_input";
      if (!llvm::isa<RankedTensorType>(arg.getType()))
        continue;
      if (auto it = shared.find(bufferFqn(func, arg).str()); it != shared.end()) {
        argMems[arg.getArgNumber()] = it->second;
        continue;
      }
      bool planned = kind == "user_input" || (kind == "buffer" && isWritten(arg));
      if (planned && failed(addStorage(arg, 0, func.getLoc())))
        return failure();
      // Written buffers hold state: they live for the whole method.
      if (planned && kind == "buffer")
        storages[arg].last = end;
    }
    // Storages made inside control-flow regions, by the op holding them.
    llvm::MapVector<Operation *, SmallVector<Value>> regionStorages;
    for (Operation &op : body) {
      int64_t i = index[&op];
      if (auto alloc = llvm::dyn_cast<exir::AllocOp>(op)) {
        if (failed(addStorage(alloc.getResult(), i, op.getLoc())))
          return failure();
      } else if (auto call = llvm::dyn_cast<exir::DelegateCallOp>(op)) {
        for (Value r : call.getResults())
          if (failed(addStorage(r, i, op.getLoc())))
            return failure();
      } else if (llvm::isa<exir::CondOp, exir::WhileOp>(op)) {
        if (failed(planControlFlow(op, i, addStorage, regionStorages)))
          return failure();
      } else if (auto aten = llvm::dyn_cast<exir::AtenOp>(op)) {
        for (OpResult r : aten->getResults())
          if (!aten.getAliasedOperand(r.getResultNumber()))
            return aten.emitError("result ")
                   << r.getResultNumber() << " of '" << aten.getOpName()
                   << "' has no planned storage; run exir-to-out-variants first";
      }
    }

    // Lifetimes: every use of every value stored in a storage. A cond's
    // results have no storage: they alias its branches' (MoveCall), whose
    // storages therefore live until the results' last use.
    llvm::DenseMap<Operation *, int64_t> condLast;
    func.walk([&](Operation *user) {
      if (user == func)
        return;
      for (Value v : user->getOperands()) {
        Value root = exir::getStorageRoot(v);
        int64_t at = llvm::isa<func::ReturnOp>(user) ? end : indexOf(user);
        if (auto cond = root.getDefiningOp<exir::CondOp>())
          condLast[cond] = std::max(condLast[cond], at);
        auto it = storages.find(root);
        if (it == storages.end())
          continue;
        it->second.last = std::max(it->second.last, at);
      }
    });
    for (auto &[op, values] : regionStorages)
      for (Value v : values)
        storages[v].last = std::max(storages[v].last, condLast.lookup(op));

    // Delegate scratch: one request per spec per call site, live only for
    // that call.
    struct ScratchSite {
      exir::DelegateCallOp call;
      unsigned spec;
    };
    std::vector<ScratchSite> scratchSites;
    std::vector<planning::PlanRequest> requests;
    for (auto &[v, s] : storages)
      requests.push_back({s.size, s.first, s.last, 1, 16});
    SymbolTable symbols(func->getParentOfType<ModuleOp>());
    for (auto call : body.getOps<exir::DelegateCallOp>()) {
      auto lm = symbols.lookup<exir::LoweredModuleOp>(call.getCallee());
      if (!lm)
        continue;
      int64_t i = index[call];
      for (auto [k, attr] : llvm::enumerate(lm.getScratch())) {
        auto spec = llvm::cast<exir::ScratchSpecAttr>(attr);
        requests.push_back({spec.getSize(), i, i, 1,
                            std::max<int64_t>(16, spec.getAlignment())});
        scratchSites.push_back({call, static_cast<unsigned>(k)});
      }
    }

    planning::PlanResult plan = runAlgorithm(algorithm, requests);
    if (!plan.error.empty())
      return func.emitError("memory planning failed: ") << plan.error;
    std::string why;
    if (!planning::verifyPlan(requests, plan, &why))
      return func.emitError("memory plan is invalid: ") << why;

    // Write the plan back.
    auto memAttr = [&](size_t r) {
      int64_t size = (requests[r].size + 15) / 16 * 16;
      return exir::MemAttr::get(ctx, requests[r].memId, plan.offsets[r], size);
    };
    size_t r = 0;
    llvm::DenseMap<Operation *, SmallVector<Attribute>> resultMems;
    for (auto &entry : storages) {
      Value v = entry.first;
      exir::MemAttr mem = memAttr(r++);
      if (auto arg = llvm::dyn_cast<BlockArgument>(v)) {
        argMems[arg.getArgNumber()] = mem;
      } else if (auto alloc = v.getDefiningOp<exir::AllocOp>()) {
        alloc->setAttr("exir.mem", mem);
      } else {
        resultMems[v.getDefiningOp()].push_back(mem);
      }
    }
    for (auto &[op, mems] : resultMems)
      op->setAttr("exir.mems", ArrayAttr::get(ctx, mems));
    setArgMems(func, argMems);
    llvm::DenseMap<Operation *, SmallVector<Attribute>> scratchMems;
    for (const ScratchSite &site : scratchSites)
      scratchMems[site.call].push_back(memAttr(r++));
    for (auto &[op, mems] : scratchMems)
      op->setAttr("exir.scratch_mems", ArrayAttr::get(ctx, mems));

    Builder b(ctx);
    SmallVector<int64_t> arenas(plan.arenaSizes.begin(), plan.arenaSizes.end());
    while (arenas.size() < 2)
      arenas.push_back(0);
    if (shareMutableBuffers && sharedBytes > 0) {
      if (arenas.size() > kSharedStateArena)
        return func.emitError("memory planning used arena ")
               << kSharedStateArena << ", which holds the shared mutable buffers";
      arenas.push_back(sharedBytes); // the same arena 2 in every method
    }
    func->setAttr("exir.arena_sizes", b.getDenseI64ArrayAttr(arenas));
    func->setAttr("exir.plan",
                  b.getDictionaryAttr({
                      b.getNamedAttr("algorithm", b.getStringAttr(plan.algorithm)),
                      b.getNamedAttr("lower_bound",
                                     b.getI64IntegerAttr(plan.peakLiveLowerBound)),
                      b.getNamedAttr("total", b.getI64IntegerAttr(plan.totalSize())),
                  }));
    return success();
  }
};

} // namespace
} // namespace ptec
