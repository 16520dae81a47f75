//===- PlaceWriteBack.cpp - copy_ for mutated state at the earliest point -===//
//
// An exported method is functional: a mutated buffer or user input comes back
// as an extra output (buffer_mutation / user_input_mutation), and EVERY new
// state is computed from the OLD states. This pass turns each output into
// `exir.copy_ %state, %value` at the earliest point that keeps that meaning,
// i.e. after
//   - the op computing %value,
//   - every op that reads or writes %state or an alias of it,
//   - every op that writes %value or an alias of it,
//   - the graph inputs (at the start of the body at the earliest),
//   - every other copy (or snapshot) that reads %state's storage.
// The last rule orders dependent copies by meaning: a copy that reads a
// state runs before the copy that overwrites it. A cycle of such copies (a
// swap), a copy whose value aliases its own state, and a returned value that
// aliases a state written back are broken by a snapshot (aten::clone) of the
// value taken before any overwrite. See docs/passes/place-write-back.md.
//
//===----------------------------------------------------------------------===//

#include "passes/AtenBuilder.h"
#include "passes/Passes.h"
#include "passes/analysis/AliasAnalysis.h"
#include "passes/analysis/StateOutputs.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <queue>

namespace ptec {
#define GEN_PASS_DEF_PLACEWRITEBACK
#include "passes/Passes.h.inc"

using namespace mlir;

namespace {

/// A write-back copy, or a snapshot of a value that a copy would overwrite
/// before everything that needs the value has read it.
struct Node {
  bool isCopy;
  Value value;                // read: the copied value / the snapshot's source
  Value state;                // copies: the storage written
  Operation *after = nullptr; // earliest: after this top-level op; null = start
  SmallVector<unsigned> succs; // nodes that must come later
  unsigned preds = 0;          // (topological sort)
  std::pair<unsigned, unsigned> rank; // tie-break: output order
  Operation *placed = nullptr;
  int snapshot = -1; // copies: the snapshot node whose result is copied
};

struct PlaceWriteBackPass : impl::PlaceWriteBackBase<PlaceWriteBackPass> {
  using PlaceWriteBackBase::PlaceWriteBackBase;

  void runOnOperation() override {
    if (failed(forEachStatefulFunc(getOperation(), [&](func::FuncOp f, ArrayRef<StateOutput> o) {
          return placeWriteBack(f, o);
        })))
      signalPassFailure();
  }

  LogicalResult placeWriteBack(func::FuncOp func, ArrayRef<StateOutput> outputs) {
    Block &body = func.getBody().front();
    Operation *terminator = body.getTerminator();
    // The function before any copy exists: every query is about the old
    // states and the values computed from them.
    const AliasAnalysis &aa = getChildAnalysis<AliasAnalysis>(func);
    auto topLevel = [&](Operation *op) {
      while (op->getBlock() != &body)
        op = op->getParentOp();
      return op;
    };
    auto raise = [&](Operation *&after, Operation *op) {
      op = topLevel(op);
      if (op != terminator && (!after || after->isBeforeInBlock(op)))
        after = op;
    };
    // Earliest point at which `v` holds its final value.
    auto valueReady = [&](Value v) {
      Operation *after = nullptr;
      if (Operation *def = v.getDefiningOp())
        raise(after, def);
      for (Operation *op : aa.getWriters(v))
        raise(after, op);
      return after;
    };

    SmallVector<Node> nodes;
    unsigned inPlace = 0;
    for (const StateOutput &o : outputs) {
      if (AliasAnalysis::getInPlaceRoot(o.value) == o.state) {
        ++inPlace; // Already written in place: nothing to copy.
        continue;
      }
      Node n{/*isCopy=*/true, o.value, o.state};
      n.after = valueReady(o.value);
      for (Operation *op : aa.getAccesses(o.state))
        raise(n.after, op);
      n.rank = {o.resultIndex, 1};
      nodes.push_back(n);
    }
    unsigned numCopies = nodes.size();

    // The copies writing each alias set, in output order: who may clobber a
    // value is a lookup, not a scan of every copy (a state always has a set).
    llvm::DenseMap<unsigned, SmallVector<unsigned>> copiesWriting;
    for (unsigned y = 0; y < numCopies; ++y)
      copiesWriting[aa.getAliasSet(nodes[y].state)].push_back(y);
    auto clobberers = [&](Value v) -> ArrayRef<unsigned> {
      unsigned set = aa.getAliasSet(v);
      if (set == AliasAnalysis::kNoSet)
        return {};
      auto it = copiesWriting.find(set);
      return it == copiesWriting.end() ? ArrayRef<unsigned>() : it->second;
    };

    // A copy that reads storage another copy writes must run first.
    for (unsigned x = 0; x < numCopies; ++x)
      llvm::append_range(nodes[x].succs, clobberers(nodes[x].value));

    // Returned values are read after the method: one that may alias a state
    // written back is snapshotted before the first such copy. (The return
    // operand of a user_input_mutation becomes the state itself, below.)
    auto ret = llvm::cast<func::ReturnOp>(terminator);
    llvm::BitVector isMutation(ret.getNumOperands());
    for (const StateOutput &o : outputs)
      isMutation.set(o.resultIndex);
    SmallVector<std::pair<unsigned, unsigned>> returnSnapshots; // operand, node
    llvm::DenseMap<Value, unsigned> snapshotOf;
    for (OpOperand &r : ret->getOpOperands()) {
      if (isMutation.test(r.getOperandNumber()))
        continue;
      SmallVector<unsigned> clobberedBy(clobberers(r.get()));
      if (clobberedBy.empty())
        continue;
      auto [it, fresh] = snapshotOf.try_emplace(r.get(), nodes.size());
      if (fresh) {
        Node s{/*isCopy=*/false, r.get(), Value()};
        s.after = valueReady(r.get());
        s.succs = clobberedBy;
        s.rank = {r.getOperandNumber(), 0};
        nodes.push_back(s);
      }
      returnSnapshots.push_back({r.getOperandNumber(), it->second});
    }

    breakCycles(nodes, numCopies, valueReady);
    SmallVector<unsigned> order = topologicalOrder(nodes);

    OpBuilder builder(func.getContext());
    llvm::SmallPtrSet<Operation *, 8> inserted;
    unsigned earliest = 0, snapshots = 0;
    SmallVector<SmallVector<unsigned>> preds(nodes.size());
    for (auto [i, n] : llvm::enumerate(nodes))
      for (unsigned s : n.succs)
        preds[s].push_back(i);
    for (unsigned i : order) {
      Node &n = nodes[i];
      Operation *pos = terminator;
      if (!atEnd) {
        Operation *anchor = n.after;
        for (unsigned p : preds[i])
          if (!anchor || anchor->isBeforeInBlock(nodes[p].placed))
            anchor = nodes[p].placed;
        pos = anchor ? anchor->getNextNode() : &body.front();
        // Nodes placed at one point keep their topological order.
        while (pos != terminator && inserted.contains(pos))
          pos = pos->getNextNode();
      }
      builder.setInsertionPoint(pos);
      if (n.isCopy) {
        Value src = n.snapshot >= 0
                        ? nodes[n.snapshot].placed->getResult(0)
                        : n.value;
        n.placed = builder.create<exir::CopyOp>(n.value.getLoc(), n.state, src);
        if (pos != terminator)
          ++earliest;
      } else {
        FailureOr<Value> clone = buildAtenValue(
            builder, n.value.getLoc(), "aten::clone", n.value.getType(), {{n.value}});
        if (failed(clone))
          return failure();
        n.placed = clone->getDefiningOp();
        ++snapshots;
      }
      inserted.insert(n.placed);
    }
    for (auto [operand, node] : returnSnapshots)
      ret->setOperand(operand, nodes[node].placed->getResult(0));

    removeMutationOutputs(func, outputs);

    Builder b(func.getContext());
    func->setAttr("exir.write_back",
                  b.getDictionaryAttr({
                      b.getNamedAttr("at_end", b.getBoolAttr(atEnd)),
                      b.getNamedAttr("copies", b.getI64IntegerAttr(numCopies)),
                      b.getNamedAttr("earliest", b.getI64IntegerAttr(earliest)),
                      b.getNamedAttr("in_place", b.getI64IntegerAttr(inPlace)),
                      b.getNamedAttr("snapshots", b.getI64IntegerAttr(snapshots)),
                  }));
    return success();
  }

  /// Makes the copy graph acyclic. For each cycle (a swap, or a copy whose
  /// value aliases its own state), the copy that comes first in output order
  /// copies from a snapshot of its value instead; the snapshot reads what the
  /// copy read, so it inherits the copy's "run before" edges, and it reads
  /// only old states, so nothing must run before it.
  template <typename ReadyFn>
  static void breakCycles(SmallVectorImpl<Node> &nodes, unsigned numCopies,
                          ReadyFn valueReady) {
    while (std::optional<unsigned> x = firstCopyOnCycle(nodes, numCopies)) {
      Node s{/*isCopy=*/false, nodes[*x].value, Value()};
      s.after = valueReady(s.value);
      s.succs = std::move(nodes[*x].succs);
      if (!llvm::is_contained(s.succs, *x))
        s.succs.push_back(*x);
      s.rank = {nodes[*x].rank.first, 0};
      nodes[*x].succs.clear();
      nodes[*x].snapshot = nodes.size();
      nodes.push_back(std::move(s));
    }
  }

  /// The copy with the smallest rank that lies on a cycle of the graph, if
  /// any (graphs are tiny: one node per mutated state).
  static std::optional<unsigned> firstCopyOnCycle(ArrayRef<Node> nodes,
                                                  unsigned numCopies) {
    std::optional<unsigned> best;
    for (unsigned x = 0; x < numCopies; ++x) {
      // Is x reachable from one of its successors?
      llvm::BitVector seen(nodes.size());
      SmallVector<unsigned> stack(nodes[x].succs.begin(), nodes[x].succs.end());
      bool cycle = false;
      while (!stack.empty() && !cycle) {
        unsigned n = stack.pop_back_val();
        if (n == x)
          cycle = true;
        else if (!seen.test(n)) {
          seen.set(n);
          stack.append(nodes[n].succs.begin(), nodes[n].succs.end());
        }
      }
      if (cycle && (!best || nodes[x].rank < nodes[*best].rank))
        best = x;
    }
    return best;
  }

  /// Kahn's algorithm; among ready nodes the smallest rank goes first, so
  /// the order is deterministic and follows the outputs where free.
  static SmallVector<unsigned> topologicalOrder(MutableArrayRef<Node> nodes) {
    for (Node &n : nodes)
      n.preds = 0;
    for (Node &n : nodes)
      for (unsigned s : n.succs)
        ++nodes[s].preds;
    // Ranks are unique (one per output or returned operand), so a heap
    // picks what a scan for the smallest would.
    using Entry = std::pair<std::pair<unsigned, unsigned>, unsigned>; // rank, node
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
    SmallVector<unsigned> order;
    for (unsigned i = 0; i < nodes.size(); ++i)
      if (nodes[i].preds == 0)
        ready.push({nodes[i].rank, i});
    while (!ready.empty()) {
      unsigned i = ready.top().second;
      ready.pop();
      order.push_back(i);
      for (unsigned s : nodes[i].succs)
        if (--nodes[s].preds == 0)
          ready.push({nodes[s].rank, s});
    }
    assert(order.size() == nodes.size() && "cycles were broken");
    return order;
  }

  /// Drops the buffer_mutation outputs from `func` and from every func.call
  /// of it; a user_input_mutation output stays (upstream keeps it in the
  /// method's outputs) and now returns the input itself, which holds the
  /// new value once its copy ran. A caller's use of a dropped result becomes
  /// the state operand it passed: after the call, that operand holds the new
  /// value.
  void removeMutationOutputs(func::FuncOp func,
                             ArrayRef<StateOutput> mutations) {
    llvm::BitVector erase(func.getNumResults());
    Operation *ret = func.getBody().front().getTerminator();
    for (const StateOutput &m : mutations) {
      if (m.kind == StateOutput::Kind::UserInput)
        ret->setOperand(m.resultIndex, m.state);
      else
        erase.set(m.resultIndex);
    }
    if (erase.none())
      return;
    ret->eraseOperands(erase);
    func.eraseResults(erase);

    SmallVector<func::CallOp> calls;
    getOperation().walk([&](func::CallOp call) {
      if (call.getCallee() == func.getSymName())
        calls.push_back(call);
    });
    for (func::CallOp call : calls) {
      OpBuilder b(call);
      auto newCall = b.create<func::CallOp>(call.getLoc(), func, call.getOperands());
      newCall->setDiscardableAttrs(call->getDiscardableAttrDictionary());
      unsigned next = 0;
      for (unsigned i = 0; i < call.getNumResults(); ++i) {
        if (!erase.test(i)) {
          call.getResult(i).replaceAllUsesWith(newCall.getResult(next++));
          continue;
        }
        const StateOutput *m = llvm::find_if(
            mutations, [&](const StateOutput &x) { return x.resultIndex == i; });
        call.getResult(i).replaceAllUsesWith(
            call.getOperand(m->state.getArgNumber()));
      }
      call->erase();
    }
  }
};

} // namespace
} // namespace ptec
