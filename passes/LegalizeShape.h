//===- LegalizeShape.h - builders the Shape legalizations share -*- C++ -*-===//
//
// Private to passes/LegalizeShape*.cpp (padding, splits, rearranging,
// joins, indexing, sorting): small builders over a Legalizer for the core
// ops their decompositions are made of, each typed by its shape rule
// (static shapes; a rule that is right on run-time shapes says so where it
// is registered).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "passes/Legalizer.h"

#include <optional>

namespace ptec::legalize::shape {

/// `d` wrapped into 0..rank-1 as PyTorch does (a 0-dim tensor takes 0 and -1).
inline int64_t wrapDim(int64_t d, int64_t rank) {
  int64_t r = rank > 0 ? rank : 1;
  return d < 0 ? d + r : d;
}

/// The value of Scalar `v` as the attribute an op on `dtype` takes: a bool
/// for bool tensors, an integer (truncated, as PyTorch casts) for integer
/// ones, a double otherwise.
Attribute scalarFor(Legalizer &L, Type dtype, double v);
/// The smallest / largest value of `dtype` (-inf / +inf for floats), as
/// the identity of a max / min reduction.
Attribute lowestOf(Legalizer &L, Type dtype);
Attribute highestOf(Legalizer &L, Type dtype);

/// slice_copy.Tensor(v, dim, start, end, step); None for a missing bound.
FailureOr<Value> slice(Legalizer &L, Value v, int64_t dim, std::optional<int64_t> start,
                       std::optional<int64_t> end, int64_t step = 1);
FailureOr<Value> cat(Legalizer &L, ArrayRef<Value> vs, int64_t dim);
FailureOr<Value> permute(Legalizer &L, Value v, ArrayRef<int64_t> perm);
/// expand_copy(v, shape), or v when it already has that shape.
FailureOr<Value> expand(Legalizer &L, Value v, ArrayRef<int64_t> shape);
/// v with a size-1 dim inserted at `dim`.
FailureOr<Value> unsqueeze(Legalizer &L, Value v, int64_t dim);
/// arange(start, start + n) as int64.
FailureOr<Value> arange(Legalizer &L, int64_t n, int64_t start = 0);
/// arange(n) viewed with `n` at `dim` of a rank-`rank` shape of 1s.
FailureOr<Value> arangeAt(Legalizer &L, int64_t n, int64_t dim, int64_t rank);
/// A tensor of `shape` filled with `value` (an attribute from scalarFor).
FailureOr<Value> full(Legalizer &L, ArrayRef<int64_t> shape, Attribute value, Type dtype);
/// `v` converted to `dtype` (v itself when it has it).
FailureOr<Value> cast(Legalizer &L, Value v, Type dtype);
/// where(cond, a, b) with b a scalar of a's dtype.
FailureOr<Value> whereScalar(Legalizer &L, Value cond, Value a, Attribute b);
/// Binary op `name` (eq.Tensor, lt.Tensor, logical_and, ...) on two tensors.
FailureOr<Value> binary(Legalizer &L, StringRef name, Value a, Value b);

/// Sets the symbolic-int operands of `op` (built by a rule): `binds` are
/// the argument names ("start", "size[1]") of `syms`, in order.
void bindSyms(Operation *op, ArrayRef<std::pair<std::string, Value>> syms);

/// A result of the op being rewritten that is read: its decomposition can
/// only produce the results it computes.
bool resultUsed(Legalizer &L, unsigned i);
/// Replaces the first result of the op by `v` (of its declared type) when
/// its other results are not read, and erases the op.
LogicalResult replaceFirst(Legalizer &L, Value v);

} // namespace ptec::legalize::shape

namespace ptec::legalize {
/// The Shape family's other parts (LegalizeShapeJoin/Index/Sort.cpp).
void addShapeJoinLegalizations(LegalizeTable &t);
void addShapeIndexLegalizations(LegalizeTable &t);
void addShapeSortLegalizations(LegalizeTable &t);
} // namespace ptec::legalize
