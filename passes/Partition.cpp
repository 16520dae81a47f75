//===- Partition.cpp - group supported ops into delegate regions ----------===//
//
// Stage one of delegation (the IREE shape): a light, implicit-capture
// exir.delegate_region per group. Groups grow in one pass over each block:
// an op joins a group of its backend unless one of its producers outside the
// group depends on the group (that would be a cycle through another op).
// A group becomes one region, so depending on any member is depending on the
// whole group and on everything the group depends on: each op keeps the
// groups it reaches directly (a bit vector), each group the groups its
// members reach, and the cycle check follows those group edges (only through
// groups of the current epoch: older ones cannot depend on newer ones). An
// op that writes memory (copy_, in-place ops, calls) closes every open group.
//
//===----------------------------------------------------------------------===//

#include "backends/AotBackend.h"
#include "dialects/exir/IR/Dynamism.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

namespace ptec {
#define GEN_PASS_DEF_PARTITION
#include "passes/Passes.h.inc"

using namespace mlir;

namespace {

/// Why an op stays on portable kernels (with report-refusals).
constexpr llvm::StringLiteral kRefusedAttr = "exir.refused";

struct Backend {
  std::unique_ptr<aot::AotBackend> impl;
  std::string options;
};

struct Group {
  unsigned backend;
  unsigned epoch;
  SmallVector<Operation *> ops;
  llvm::BitVector deps;           // groups its members use results of (never itself)
  SmallVector<unsigned, 2> users; // groups with this one in their deps
};

/// An op that must not be moved across or grouped: it writes memory, has
/// unknown effects or holds regions.
bool isBarrier(Operation *op) {
  if (op->getNumRegions() != 0)
    return true;
  auto mem = llvm::dyn_cast<MemoryEffectOpInterface>(op);
  return !mem || mem.hasEffect<MemoryEffects::Write>();
}

/// The ops of `block` that produce values `op` (or ops nested in it) uses.
SmallVector<Operation *> producersIn(Operation *op, Block &block) {
  SmallVector<Operation *> out;
  op->walk([&](Operation *nested) {
    for (Value v : nested->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (!def)
        continue;
      Operation *top = block.findAncestorOpInBlock(*def);
      if (top && top != op)
        out.push_back(top);
    }
  });
  return out;
}

class Partitioner {
public:
  Partitioner(ArrayRef<Backend> backends, bool report)
      : backends(backends), report(report) {}

  llvm::DenseSet<Value> dynamic;
  /// Ops computing from parameters and constants only, for one user op.
  llvm::SetVector<Operation *> deferred;
  llvm::SmallPtrSet<Operation *, 8> attempted; ///< deferred ops offered to a group
  DenseMap<Operation *, llvm::BitVector> reach;
  DenseMap<Operation *, int> groupOf;

  void run(Block &block) {
    if (auto func = llvm::dyn_cast<func::FuncOp>(block.getParentOp()))
      dynamic = exir::findDynamicValues(func);
    sinkConstantOps(block);
    formGroups(block);
    for (Group &g : groups) {
      const aot::AotBackend &b = *backends[g.backend].impl;
      llvm::SmallPtrSet<Operation *, 16> cutOps;
      for (aot::OpGroup &cut : b.group(g.ops))
        if (!cut.empty()) {
          cutOps.insert(cut.begin(), cut.end());
          wrap(block, SmallVector<Operation *>(cut.begin(), cut.end()),
               backends[g.backend]);
        }
      // Accepted one by one, but in no region the backend's grouping kept.
      for (Operation *op : g.ops)
        if (!cutOps.contains(op))
          refuse(op, b.name().str() +
                         ": accepted alone, but the backend's grouping left it out "
                         "of every delegate");
    }
  }

  /// Says why `op` stays on portable kernels: a remark (ptec-opt), and the
  /// reason as `exir.refused` for the compile report, which reads and drops
  /// it (so that the report lists every portable op, whatever the cause).
  void refuse(Operation *op, const std::string &reason) {
    auto aten = llvm::dyn_cast<exir::AtenOp>(op);
    if (!report || !aten)
      return;
    auto fn = op->getParentOfType<func::FuncOp>();
    op->emitRemark("'") << aten.getOpName() << "' in @" << (fn ? fn.getSymName() : "?")
                        << " not delegated (" << reason << ")";
    op->setAttr(kRefusedAttr, StringAttr::get(op->getContext(), reason));
  }

private:
  /// Ops that compute only from parameters and constants (the dequantize of
  /// an int8 weight, a layout change of one) move to just before their first
  /// user. Groups grow in program order, so such an op left far above its
  /// user (torch.export puts weight ops first) would close into another group
  /// than the convolution or linear that reads it, and a backend that bakes
  /// the weight could not take that user. Parameters, constants and buffers
  /// the method never writes (PT2E keeps int8 weights as buffers) hold the
  /// same bytes all call long, so moving a pure reader of them later keeps
  /// every value.
  void sinkConstantOps(Block &block) {
    auto func = llvm::dyn_cast<func::FuncOp>(block.getParentOp());
    if (!func)
      return;
    // Buffers the method writes (a mutation output names them, or an op
    // writes them in place) are state, not weights.
    llvm::StringSet<> written;
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      if (exir::OutputAttr out = exir::getOutputAttr(func, i))
        if (out.getKind().getValue() == "buffer_mutation" && out.getTarget())
          written.insert(out.getTarget().getValue());
    llvm::SmallPtrSet<Operation *, 16> constantOnly;
    auto isConstantOperand = [&](Value v) {
      if (auto arg = llvm::dyn_cast<BlockArgument>(v)) {
        if (arg.getOwner() != &block)
          return false;
        exir::InputAttr in = exir::getInputAttr(func, arg.getArgNumber());
        if (!in)
          return false;
        llvm::StringRef kind = in.getKind().getValue();
        if (kind == "parameter" || kind == "constant")
          return true;
        return kind == "buffer" && in.getFqn() && !written.contains(in.getFqn().getValue()) &&
               llvm::none_of(arg.getUsers(), [](Operation *u) { return isBarrier(u); });
      }
      return constantOnly.contains(v.getDefiningOp());
    };
    SmallVector<Operation *> candidates;
    for (Operation &op : block.without_terminator()) {
      if (isBarrier(&op) || op.getNumOperands() == 0 ||
          !llvm::all_of(op.getOperands(), isConstantOperand))
        continue;
      constantOnly.insert(&op);
      candidates.push_back(&op);
      // One user op: the op joins that user's group (see adopt) instead of
      // whatever group is open where it stands.
      llvm::SmallPtrSet<Operation *, 2> users;
      for (Operation *u : op.getUsers())
        users.insert(block.findAncestorOpInBlock(*u));
      if (users.size() == 1 && !users.contains(nullptr))
        deferred.insert(&op);
    }
    // Last first, so that a chain (transpose of a dequantize of a weight)
    // ends up in order right before the chain's user.
    for (Operation *op : llvm::reverse(candidates)) {
      Operation *first = nullptr;
      for (Operation *user : op->getUsers()) {
        Operation *top = block.findAncestorOpInBlock(*user);
        if (top && (!first || top->isBeforeInBlock(first)))
          first = top;
      }
      if (first && op->getNextNode() != first)
        op->moveBefore(first);
    }
  }

  /// Puts deferred `p` (and the deferred ops it reads) into `group` when
  /// the group's backend takes it. Such ops read nothing computed in the
  /// block but each other, and their one user is in `group`, so this adds
  /// no dependence between groups.
  void adopt(Operation *p, int group, Block &block) {
    if (!deferred.contains(p) || !attempted.insert(p).second)
      return;
    for (Operation *q : producersIn(p, block))
      adopt(q, group, block);
    std::optional<unsigned> b = pick(p); // refuses (with the reason) when none takes it
    if (!b || *b != groups[group].backend)
      return;
    groups[group].ops.push_back(p);
    groupOf[p] = group;
    llvm::BitVector r(group + 1);
    r.set(group);
    reach[p] = std::move(r);
  }

  void formGroups(Block &block) {
    unsigned epoch = 0;
    for (Operation &opRef : block.without_terminator()) {
      Operation *op = &opRef;
      if (deferred.contains(op))
        continue; // placed with its user, or left on portable kernels
      SmallVector<Operation *> producers = producersIn(op, block);
      llvm::BitVector deps;
      for (Operation *p : producers) {
        const llvm::BitVector &r = reach[p];
        if (deps.size() < r.size())
          deps.resize(r.size());
        deps |= r;
      }
      int chosen = -1;
      if (isBarrier(op)) {
        ++epoch;
        refuse(op, "it writes memory (in-place updates stay on portable kernels)");
      } else if (std::optional<unsigned> b = pick(op)) {
        // Candidates: producers' groups first, then the newest group of b.
        SmallVector<int> candidates;
        for (Operation *p : producers) {
          auto it = groupOf.find(p);
          if (it != groupOf.end())
            candidates.push_back(it->second);
        }
        if (int last = lastGroup(*b); last >= 0)
          candidates.push_back(last);
        for (int g : candidates) {
          if (groups[g].backend != *b || groups[g].epoch != epoch)
            continue;
          bool cycle = llvm::any_of(producers, [&](Operation *p) {
            auto it = groupOf.find(p);
            if (it != groupOf.end() && it->second == g)
              return false;
            return reaches(reach[p], static_cast<unsigned>(g), epoch);
          });
          if (!cycle) {
            chosen = g;
            break;
          }
        }
        if (chosen < 0) {
          chosen = static_cast<int>(groups.size());
          groups.push_back(Group{*b, epoch, {}, {}});
        }
        for (Operation *p : producers)
          adopt(p, chosen, block);
        Group &group = groups[chosen];
        group.ops.push_back(op);
        groupOf[op] = chosen;
        // The group now depends on what this member uses; users of the
        // member reach the group itself (and through it, those groups).
        if (group.deps.size() < deps.size())
          group.deps.resize(deps.size());
        for (unsigned d : deps.set_bits())
          if (d != static_cast<unsigned>(chosen) && !group.deps.test(d)) {
            group.deps.set(d);
            groups[d].users.push_back(static_cast<unsigned>(chosen));
          }
        deps.clear();
        deps.resize(chosen + 1);
        deps.set(chosen);
      }
      reach[op] = std::move(deps);
    }
    // Never offered: its user stays on portable kernels. Say why it does
    // too (a backend's refusal, else that it only feeds that user).
    for (Operation *p : deferred)
      if (!attempted.contains(p) && pick(p))
        refuse(p, "it computes from weights only, for an op that stays on portable kernels");
  }

  /// Whether a value whose direct group dependences are `direct` depends on
  /// group `target`, following group-to-group edges. A bidirectional search:
  /// backward from `direct` along deps and forward from `target` along users,
  /// one step of each in turn, until they meet (a path) or either side has
  /// seen all it can reach (none). It costs about twice the smaller side: a
  /// new group has few users, an op near the start few dependences. Groups
  /// of older epochs are skipped: all their members precede a barrier
  /// `target` follows. (Positions give no sound shortcut: a group of early
  /// ops may depend on `target` through a group that later gained a member
  /// using `target`.)
  bool reaches(const llvm::BitVector &direct, unsigned target, unsigned epoch) {
    seenBack.resize(groups.size(), 0);
    seenFwd.resize(groups.size(), 0);
    ++generation;
    SmallVector<unsigned> back, fwd;
    bool met = false;
    auto visitBack = [&](unsigned g) {
      if (seenBack[g] == generation || groups[g].epoch != epoch)
        return;
      seenBack[g] = generation;
      met |= seenFwd[g] == generation;
      back.push_back(g);
    };
    auto visitFwd = [&](unsigned g) {
      if (seenFwd[g] == generation)
        return;
      seenFwd[g] = generation;
      met |= seenBack[g] == generation;
      fwd.push_back(g);
    };
    visitFwd(target);
    for (unsigned g : direct.set_bits())
      visitBack(g);
    while (!met && !back.empty() && !fwd.empty()) {
      for (unsigned d : groups[back.pop_back_val()].deps.set_bits())
        visitBack(d);
      if (met || fwd.empty())
        break;
      for (unsigned u : groups[fwd.pop_back_val()].users)
        visitFwd(u);
    }
    return met;
  }

  int lastGroup(unsigned backend) const {
    for (int g = static_cast<int>(groups.size()) - 1; g >= 0; --g)
      if (groups[g].backend == backend)
        return g;
    return -1;
  }

  /// The first backend, in priority order, that takes `op`.
  std::optional<unsigned> pick(Operation *op) {
    // Backends compile fixed shapes; run-time shapes stay on portable kernels.
    if (exir::usesDynamicValue(op, dynamic) ||
        llvm::any_of(op->getResultTypes(), [](Type t) { return t.isInteger(64); })) {
      refuse(op, "its shapes are only known at run time");
      return std::nullopt;
    }
    std::string reasons;
    for (auto [i, b] : llvm::enumerate(backends)) {
      std::optional<std::string> why = b.impl->refuse(op);
      if (!why)
        return static_cast<unsigned>(i);
      reasons += (reasons.empty() ? "" : "; ") + b.impl->name().str() + ": " + *why;
    }
    refuse(op, reasons);
    return std::nullopt;
  }

  /// Replaces `ops` (program order) by one delegate region placed where the
  /// last of them was; ops in between that use its results move after it.
  void wrap(Block &block, SmallVector<Operation *> ops, const Backend &backend) {
    // Earlier regions may have moved ops; take the current order.
    llvm::sort(ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    llvm::SmallPtrSet<Operation *, 8> members(ops.begin(), ops.end());
    llvm::SetVector<Value> yielded;
    SmallVector<Location> locs;
    for (Operation *op : ops) {
      locs.push_back(op->getLoc());
      for (Value r : op->getResults())
        for (Operation *user : r.getUsers())
          if (!members.contains(block.findAncestorOpInBlock(*user)))
            yielded.insert(r);
    }
    // Nothing outside uses the group: it is dead code (members never write
    // memory), so it is dropped rather than lowered into a call whose results
    // nobody reads.
    if (yielded.empty()) {
      for (Operation *op : llvm::reverse(ops))
        op->erase();
      return;
    }

    // The ops between the first member and the last, before anything moves.
    SmallVector<Operation *> between;
    for (Operation *op = ops.front(); op != ops.back(); op = op->getNextNode())
      if (!members.contains(op))
        between.push_back(op);

    OpBuilder b(ops.back()->getContext());
    b.setInsertionPointAfter(ops.back());
    SmallVector<Type> types;
    for (Value v : yielded)
      types.push_back(v.getType());
    auto region = b.create<exir::DelegateRegionOp>(
        b.getFusedLoc(locs), types, backend.impl->id());
    if (!backend.options.empty())
      region->setAttr("exir.backend_options", b.getStringAttr(backend.options));
    Block *body = new Block();
    region.getBody().push_back(body);
    b.setInsertionPointToEnd(body);
    auto yield = b.create<exir::YieldOp>(region.getLoc(), yielded.getArrayRef());
    for (Operation *op : ops)
      op->moveBefore(yield);
    for (auto [i, yieldedValue] : llvm::enumerate(yielded))
      Value(yieldedValue).replaceUsesWithIf(region.getResult(i), [&](OpOperand &use) {
        return !region->isProperAncestor(use.getOwner());
      });

    // Ops that now use a value defined after them follow the region, in
    // their order (grouping never lets such an op feed the group back).
    llvm::SmallPtrSet<Operation *, 8> moved;
    moved.insert(region);
    Operation *cursor = region;
    for (Operation *op : between) {
      bool depends = llvm::any_of(producersIn(op, block),
                                  [&](Operation *p) { return moved.contains(p); });
      if (!depends)
        continue;
      op->moveAfter(cursor);
      cursor = op;
      moved.insert(op);
    }
  }

  ArrayRef<Backend> backends;
  bool report;
  std::vector<Group> groups;
  // Scratch for reaches(): the query that saw each group, from each side.
  std::vector<uint64_t> seenBack, seenFwd;
  uint64_t generation = 0;
};

struct PartitionPass : impl::PartitionBase<PartitionPass> {
  using PartitionBase::PartitionBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Backend> resolved;
    for (const std::string &spec : backends) {
      if (spec == "none")
        continue;
      std::string error;
      std::unique_ptr<aot::AotBackend> impl = aot::createAotBackend(spec, &error);
      if (!impl) {
        module.emitError("exir-partition: ") << error;
        return signalPassFailure();
      }
      resolved.push_back(
          Backend{std::move(impl), llvm::StringRef(spec).split(':').second.str()});
    }
    if (resolved.empty())
      return;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      for (Block &block : func.getBody()) {
        Partitioner partitioner(resolved, reportRefusals);
        partitioner.run(block);
      }
    }
  }
};

} // namespace
} // namespace ptec
