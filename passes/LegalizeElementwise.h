//===- LegalizeElementwise.h - pointwise rewrites' shared helpers -*- C++ -*-===//
//
// Private to the elementwise family of legalize-to-core-aten
// (LegalizeElementwise.cpp: conversions, factories, other names;
// LegalizeElementwiseMath.cpp: decompositions into pointwise core ops).
//
// Pointwise decompositions are chains of small core ops. `Chain` builds them
// with the result types the core ops' shape rules give (so PyTorch's type
// promotion is the shape rules', checked once), and makes a failed step
// fail every later one: the error is reported where it happened, and a rule
// checks for a null value once, at its end.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "passes/Legalizer.h"

namespace ptec::legalize::elementwise {

class Chain {
public:
  explicit Chain(Legalizer &L) : L(L) {}

  /// Core op `name` on `tensors` (a null operand gives null), typed by its
  /// shape rule.
  Value op(StringRef name, ArrayRef<Operands> tensors, ArrayRef<NamedAttribute> attrs = {});
  Value unary(StringRef name, Value x) { return op(name, {{x}}); }
  /// `name` (a `.Tensor` overload) on two tensors.
  Value binary(StringRef name, Value a, Value b) { return op(name, {{a}, {b}}); }
  /// `name` (a `.Scalar` overload) with the number `v` as argument `other`.
  Value withScalar(StringRef name, Value a, double v) {
    return op(name, {{a}}, {L.f64("other", v)});
  }
  /// A 0-dim tensor holding `v` (a Scalar attribute: i64, f64 or bool) in `dtype`.
  Value constant(Attribute v, Type dtype);
  Value constant(double v, Type dtype) { return constant(L.b.getF64FloatAttr(v), dtype); }
  /// `x` converted to `dtype` (`_to_copy`), or `x` when it has that dtype.
  Value cast(Value x, Type dtype);
  /// where(cond, a, b).
  Value where(Value cond, Value a, Value b) { return op("aten::where.self", {{cond}, {a}, {b}}); }
  /// The number of elements of `x`, a tensor of `x`'s shape and `dtype` filled with `v`.
  Value filledLike(Value x, Attribute v, Type dtype);

  /// The dtype PyTorch computes pointwise float16/bfloat16 math in
  /// (float32: its CPU kernels' "opmath"); other dtypes are their own.
  Type opmath(Type t);

  /// Replaces the op by `v` (null: fail, already reported).
  LogicalResult finish(Value v) {
    if (!v)
      return failure();
    return L.replace({v});
  }

  Legalizer &L;
};

inline Type elementType(Value v) { return tensorType(v).getElementType(); }
bool isFloatType(Type t);
bool isIntegerOrBool(Type t);

/// Saved IR is input too: an op whose tensors are not all ranked, or that
/// lacks a tensor its schema requires, is left alone (for to-out-variants to
/// name) instead of being rewritten from types it does not have.
bool wellFormed(exir::AtenOp op);

/// `F`, run only on well-formed ops: every rule of this family is registered so.
template <LegalizeFn F>
LogicalResult guarded(Legalizer &L) {
  return wellFormed(L.op) ? F(L) : success();
}

/// Registers the decompositions of LegalizeElementwiseMath.cpp.
void addMathLegalizations(LegalizeTable &t);

} // namespace ptec::legalize::elementwise
