//===- LegalizeReduce.h - the reductions/products/losses family -*- C++ -*-===//
//
// Private to legalize-to-core-aten's "reduce" family (LegalizeReduce*.cpp):
// norms and statistics, scans, matrix products and einsum, distances,
// losses, normalizations, and the refusals of the factorizations. The rules
// build chains of core ops; `Emit` carries the first failure through such a
// chain so that a rule checks once, at the end, instead of after every op.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "passes/Legalizer.h"

#include <optional>

namespace ptec::legalize::reduce {

/// Builds core ops for one rewrite. Every builder returns a null Value once
/// a step has failed (the failure was reported at the op); `done` then fails.
/// A null tensor argument passed to a builder means None.
class Emit {
public:
  explicit Emit(Legalizer &L) : L(L) {}

  Legalizer &L;
  bool failed = false;

  // ---- Generic.
  /// Op `name`, one Value (or null: None) per tensor argument, result type
  /// from its shape rule.
  Value op(StringRef name, ArrayRef<Value> tensors, ArrayRef<NamedAttribute> attrs = {});
  /// Every result of op `name`.
  SmallVector<Value> all(StringRef name, ArrayRef<Value> tensors,
                         ArrayRef<NamedAttribute> attrs = {});
  /// An op whose first tensor argument is a list (cat, stack).
  Value list(StringRef name, ArrayRef<Value> elems, ArrayRef<NamedAttribute> attrs = {});
  /// Reports `message` at the op and fails the chain.
  Value fail(const Twine &message);

  // ---- Elementwise.
  Value unary(StringRef name, Value x) { return op(name, {x}); }
  Value add(Value a, Value b) { return op("aten::add.Tensor", {a, b}); }
  Value sub(Value a, Value b) { return op("aten::sub.Tensor", {a, b}); }
  Value mul(Value a, Value b) { return op("aten::mul.Tensor", {a, b}); }
  Value div(Value a, Value b) { return op("aten::div.Tensor", {a, b}); }
  /// x + s, x - s, x * s, x / s, s - x, x ** s with a Python-number s (an
  /// int when `s` is integral and `x` is, so integer tensors stay integer).
  Value addS(Value x, double s) { return scalarOp("aten::add.Scalar", "other", x, s); }
  Value subS(Value x, double s) { return scalarOp("aten::sub.Scalar", "other", x, s); }
  Value mulS(Value x, double s) { return scalarOp("aten::mul.Scalar", "other", x, s); }
  Value divS(Value x, double s) { return scalarOp("aten::div.Scalar", "other", x, s); }
  Value rsubS(Value x, double s) { return scalarOp("aten::rsub.Scalar", "other", x, s); }
  Value powS(Value x, double s) { return scalarOp("aten::pow.Tensor_Scalar", "exponent", x, s); }
  /// x * s and x / s with s a Python float (integer tensors become float).
  Value mulF(Value x, double s) { return scalarOp("aten::mul.Scalar", "other", x, s, true); }
  Value divF(Value x, double s) { return scalarOp("aten::div.Scalar", "other", x, s, true); }
  /// eq/ne/lt/le/gt/ge against a number: "aten::eq.Scalar" etc.
  Value cmpS(StringRef name, Value x, double s) { return scalarOp(name, "other", x, s); }
  Value where(Value c, Value a, Value b) { return op("aten::where.self", {c, a, b}); }
  Value clampMin(Value x, double lo);
  Value clampMax(Value x, double hi);
  /// A 0-dim tensor holding `v`, of dtype `t`.
  Value scalar(double v, Type t);
  /// A tensor of `shape` filled with `v`, dtype `t`.
  Value full(ArrayRef<int64_t> shape, double v, Type t);
  /// `x` converted to `t` (itself when it already has that dtype).
  Value cast(Value x, Type t);

  // ---- Reductions (an empty `dims` list means every dim).
  Value sum(Value x, ArrayRef<int64_t> dims, bool keepdim, Type dtype = {});
  Value mean(Value x, ArrayRef<int64_t> dims, bool keepdim);
  Value amax(Value x, ArrayRef<int64_t> dims, bool keepdim);
  Value amin(Value x, ArrayRef<int64_t> dims, bool keepdim);
  Value anyDims(Value x, ArrayRef<int64_t> dims, bool keepdim);

  // ---- Shapes.
  Value view(Value x, ArrayRef<int64_t> shape);
  Value permute(Value x, ArrayRef<int64_t> perm);
  Value expand(Value x, ArrayRef<int64_t> shape);
  Value unsqueeze(Value x, int64_t dim);
  Value squeeze(Value x, ArrayRef<int64_t> dims);
  Value slice(Value x, int64_t dim, int64_t start, int64_t end, int64_t step = 1);
  Value select(Value x, int64_t dim, int64_t index);
  Value cat(ArrayRef<Value> xs, int64_t dim);
  /// `x` moved so that dim `d` is last (the permutation and its inverse).
  Value moveToEnd(Value x, int64_t d);
  Value moveFromEnd(Value x, int64_t d);

  // ---- Products.
  Value mm(Value a, Value b) { return op("aten::mm", {a, b}); }
  Value bmm(Value a, Value b) { return op("aten::bmm", {a, b}); }
  /// torch.matmul for every rank: 1-D operands, broadcast batch dims.
  Value matmul(Value a, Value b);

  // ---- Finishing.
  LogicalResult done(ArrayRef<Value> results);

private:
  Value scalarOp(StringRef name, StringRef attr, Value x, double s, bool asFloat = false);
};

// ---- Argument and type helpers.
inline ArrayRef<int64_t> shapeOf(Value v) { return tensorType(v).getShape(); }
inline int64_t rankOf(Value v) { return tensorType(v).getRank(); }
inline Type dtypeOf(Value v) { return tensorType(v).getElementType(); }
bool isFloatType(Type t);
bool isIntegerType(Type t); // integers, not bool
bool isBoolType(Type t);
/// A number for messages: "2", "0.5", "inf".
std::string numStr(double v);
/// A Scalar (or float/int) argument's value; nullopt for None or absent.
std::optional<double> scalarArg(exir::AtenOp op, StringRef name);
/// An int-list argument; nullopt for None or absent.
std::optional<SmallVector<int64_t>> intsArg(exir::AtenOp op, StringRef name);
/// A dtype argument; null for None or absent.
Type dtypeArg(exir::AtenOp op, StringRef name);
std::optional<std::string> strArg(exir::AtenOp op, StringRef name);
/// `d` wrapped into [0, rank) (0-dim tensors take -1 and 0).
int64_t wrapDim(int64_t d, int64_t rank);
/// The dims a reduction's `dim` argument names, wrapped and sorted; every
/// dim when it is None or empty.
SmallVector<int64_t> reductionDims(exir::AtenOp op, StringRef name, int64_t rank);
SmallVector<int64_t> allDims(int64_t rank);
/// `shape` without `dims` (or with 1s there under keepdim).
SmallVector<int64_t> reducedShape(ArrayRef<int64_t> shape, ArrayRef<int64_t> dims, bool keepdim);

// ---- Shared pieces of the rules.
/// torch.linalg.vector_norm(x, ord, dims, keepdim, dtype) (torch/_refs/linalg).
Value vectorNorm(Emit &e, Value x, double ord, ArrayRef<int64_t> dims, bool keepdim,
                 Type dtype);
/// logsumexp over `dims` with the max subtracted (infinite maxima taken as 0).
Value logsumexp(Emit &e, Value x, ArrayRef<int64_t> dims, bool keepdim);
/// 'none' / 'mean' / 'sum' of a loss (reduction 0, 1, 2).
Value applyReduction(Emit &e, Value loss, int64_t reduction);
/// The scaled dot-product attention of the math backend: output and the
/// attention weights (after softmax), or the logsumexp of the scores.
struct AttentionResult {
  Value output, weights, logsumexp;
};
FailureOr<AttentionResult> attention(Legalizer &L, Value q, Value k, Value v, Value mask,
                                     bool causal, std::optional<double> scale, bool gqa,
                                     bool wantLogsumexp);

// ---- The family's parts (LegalizeReduce*.cpp).
void addNormRules(LegalizeTable &t);
void addStatisticsRules(LegalizeTable &t);
void addProductRules(LegalizeTable &t);
void addLossRules(LegalizeTable &t);
void addRefusals(LegalizeTable &t);

} // namespace ptec::legalize::reduce
