//===- AliasAnalysis.h - storage classes of tensors in a method -*- C++ -*-===//
//
// Which tensor values of a method may share storage, and which ops read or
// write that storage. Driven by the ATen schema alias annotations:
//   `Tensor(a) self -> Tensor(a)`    a view: the result joins self's set;
//   `Tensor(a!) self -> Tensor(a!)`  in-place / out: a write, result joins;
//   `Tensor(a -> *)`, `t(*)`         wildcard: everything the op touches
//                                    joins one shared wildcard set;
//   `Tensor(a!)[]`                   every tensor of the list is written.
// An op annotated `exir.inplace_of = i : i64` (re-inplacing) writes operand
// i and its result joins operand i's set.
//
// Ops the analysis cannot see into are opaque: unknown operators, operators
// without a schema, list/tuple projections (`__getitem__`), func.call,
// exir.delegate_call and ops of other dialects. Their tensor operands and
// results all join one set, and they read and write every tensor operand.
//
// The analysis is flow-insensitive (a may-alias relation over the whole
// method). The function's return is neither a reader nor a writer. It is an
// analysis in the MLIR sense: construct it on a func.func, or ask a pass for
// `getAnalysis<AliasAnalysis>()` on one.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "dialects/exir/IR/ExirDialect.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

namespace ptec {

class AliasAnalysis {
public:
  /// Analyses `funcOp` (a func.func; its nested regions included).
  explicit AliasAnalysis(mlir::Operation *funcOp);

  /// Identifier of the alias set (storage class) of `v`: two values of the
  /// function may share storage iff their ids are equal. `kNoSet` for values
  /// outside the analysed function (or not tensors).
  unsigned getAliasSet(mlir::Value v) const;
  static constexpr unsigned kNoSet = ~0u;
  /// True when `a` and `b` may share storage.
  bool mayAlias(mlir::Value a, mlir::Value b) const;
  /// Every value of the analysed function in `v`'s alias set, in program order
  /// (function arguments first).
  llvm::SmallVector<mlir::Value> getAliases(mlir::Value v) const;

  /// Ops that read `v` or a value that may alias it, in program order
  /// (pre-order walk; nested ops are listed themselves, not their parents).
  llvm::SmallVector<mlir::Operation *> getReaders(mlir::Value v) const;
  /// Ops that write `v` or a value that may alias it, in program order.
  llvm::SmallVector<mlir::Operation *> getWriters(mlir::Value v) const;
  /// Readers and writers together, in program order, without duplicates.
  llvm::SmallVector<mlir::Operation *> getAccesses(mlir::Value v) const;

  /// Does `op` read / write (through any of its operands) `v`'s alias set?
  bool reads(mlir::Operation *op, mlir::Value v) const;
  bool writes(mlir::Operation *op, mlir::Value v) const;

  /// True when `op` is modelled conservatively (see the file comment).
  bool isOpaque(mlir::Operation *op) const { return opaque.contains(op); }

  /// The operand whose storage result `r` IS because the op wrote into it: a
  /// `-> Tensor(a!)` result of an in-place or out-variant op, or the result
  /// of an op annotated `exir.inplace_of = i`. Null for fresh results, views
  /// and opaque ops.
  static mlir::Value getWrittenOperand(mlir::OpResult r);
  /// Follows getWrittenOperand from `v` as far as it goes: the storage `v`
  /// was written into through a chain of in-place ops (`v` itself if none).
  static mlir::Value getInPlaceRoot(mlir::Value v);

  /// Name of the storage-sharing annotation set by re-inplacing.
  static constexpr llvm::StringLiteral kInplaceOfAttr = exir::kInplaceOfAttrName;

private:
  unsigned idOf(mlir::Value v);
  unsigned lookupId(mlir::Value v) const;
  unsigned find(unsigned x) const;
  void unite(unsigned a, unsigned b);
  void visit(mlir::Operation *op);
  void visitOpaque(mlir::Operation *op);
  void buildIndex();
  /// Ops (indices into `accesses`) in `select`'s list of `v`'s set.
  template <typename Select>
  llvm::SmallVector<mlir::Operation *> opsOf(mlir::Value v, Select select) const;

  // Union-find over the values of the function (plus one wildcard node).
  mutable llvm::SmallVector<unsigned> parent;
  llvm::SmallVector<mlir::Value> values; // id -> value (null for wildcard)
  llvm::DenseMap<mlir::Value, unsigned> ids;
  unsigned wildcard = 0;

  // Every op that touches a tensor, in program order, with what it reads and
  // writes.
  struct Access {
    mlir::Operation *op;
    llvm::SmallVector<mlir::Value, 4> reads, writes;
  };
  llvm::SmallVector<Access> accesses;
  llvm::DenseMap<mlir::Operation *, unsigned> accessIndex;
  /// reads() or writes(): whether op's accesses of that kind may alias v.
  bool touches(mlir::Operation *op, mlir::Value v, bool write) const;
  llvm::DenseSet<mlir::Operation *> opaque;

  // Per alias set (its representative id), built once the sets are final:
  // which accesses read and write it and which values are in it, in program
  // order, so that queries cost the set's size, not the function's.
  struct SetIndex {
    llvm::SmallVector<unsigned, 4> readers, writers, members;
  };
  /// v's alias set's index, or null when v is in none (or the set is empty).
  const SetIndex *indexOf(mlir::Value v) const;
  llvm::DenseMap<unsigned, SetIndex> bySet;
};

} // namespace ptec
