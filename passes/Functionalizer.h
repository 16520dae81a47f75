//===- Functionalizer.h - functionalize's per-block state -------*- C++ -*-===//
//
// The BlockFunctionalizer that the functionalize pass runs on each block, the
// view bookkeeping it keeps and the schema helpers its two halves share.
// Private to the pass: Functionalize.cpp holds the walk, the rewrite of each
// write and the mutation outputs; FunctionalizeViews.cpp what views need
// (re-deriving a view after its root was written, writing a new value back
// through a chain of views).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "passes/AtenBuilder.h"

#include "llvm/ADT/MapVector.h"

namespace ptec::functionalize {

using namespace mlir;

inline const schema::OperatorRegistry &registry() {
  return schema::OperatorRegistry::builtin();
}

/// How a view's result relates to its source, for replay and write-back.
enum class ViewKind {
  Slice, Select, Narrow, Diagonal, AsStrided, Reshape, Permute, Transpose, T,
  Identity, Overlapping, Other
};

ViewKind viewKind(StringRef name);

/// The tensor operand a result aliases per the schema (`-> Tensor(a)` for an
/// argument `Tensor(a)` that is not written), or null. `wildcard` is set when
/// the op's aliasing is untracked (`(a -> *)` or a list of views).
Value viewSource(exir::AtenOp op, bool &wildcard);

/// Copies `from`'s annotations (discardable attributes that are not schema
/// arguments, e.g. `exir.scope`) onto `to`.
void copyAnnotations(exir::AtenOp from, Operation *to);

/// Which elements of its parent one result of a list view (split, chunk,
/// tensor_split, unbind) shows: the slice [start, end) of `dim`, or (select)
/// the index `start` of `dim`, which then disappears.
struct Piece {
  int64_t dim = -1;
  int64_t start = 0, end = 0;
  bool select = false;
};

struct ViewInfo {
  Value root;          // the storage this view shows part of
  Value parent;        // the value it was made from (root or view)
  exir::AtenOp op;     // the view op (template for replays)
  bool contiguous;     // the view covers a contiguous run of root elements
  bool untracked;      // an alias the schema does not say how to invert
  Piece piece = {};    // for a result of a list view: its elements (dim >= 0)
};

/// A view that returns a list of pieces of its source (split, chunk,
/// tensor_split, h/v/dsplit, unbind).
bool isListView(StringRef name);

/// The pieces of `src` that the results of list view `op` show, one per
/// result, from its arguments and the results' static types; empty when
/// `op` is not a list view ptec knows or a size is only known at run time.
SmallVector<Piece> listViewPieces(exir::AtenOp op, Value src, const DenseSet<Value> &dynamic);

struct Counters {
  int64_t writes = 0, viewWrites = 0, replays = 0, state = 0;
};

class BlockFunctionalizer {
public:
  BlockFunctionalizer(Block &block, const DenseSet<Value> &dynamic, Counters &n)
      : block(block), dynamic(dynamic), n(n) {}

  LogicalResult run();
  /// Roots written in this block that were defined before the walk started
  /// (function arguments), with their final values.
  llvm::MapVector<Value, Value> writtenRoots;

private:
  Value rootOf(Value v) const {
    auto it = views.find(v);
    return it == views.end() ? v : it->second.root;
  }
  unsigned versionOf(Value root) const { return version.lookup(root); }

  FailureOr<Value> resolve(Value v, Operation *user);
  LogicalResult resolveOperands(Operation *op);
  void recordView(exir::AtenOp op, Value src, bool untracked);
  LogicalResult writeBack(Value target, Value newValue, Operation *at);
  FailureOr<Value> invertView(ViewInfo info, Value parentNow, Value newValue,
                              Operation *at);
  LogicalResult functionalize(exir::AtenOp op);
  LogicalResult nested(Operation *op);

  Block &block;
  const DenseSet<Value> &dynamic;
  Counters &n;
  DenseMap<Value, ViewInfo> views;
  DenseMap<Value, Value> current;  // root -> its contents now
  DenseMap<Value, unsigned> version; // root -> writes so far
  DenseMap<Value, std::pair<unsigned, Value>> materialized; // view -> (version, value)
};

} // namespace ptec::functionalize
