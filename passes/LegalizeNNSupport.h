//===- LegalizeNNSupport.h - op builders the NN rewrites share --*- C++ -*-===//
//
// The NN family's rewrites (LegalizeNN.cpp: convolution forms and pools;
// LegalizeRnn.cpp: recurrent layers and cells; LegalizeResample.cpp:
// upsampling, grid sampling, im2col/col2im) build long chains of core ops.
// NNOps wraps a Legalizer so each step is one call returning a Value: the
// first op that fails to build (its error already reported at the op) makes
// every later call return null, and the rule checks once, at the end, with
// finish(). Result types come from the shape rules (static shapes only: the
// rules using NNOps are registered Dynamic::Refuse).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "passes/Legalizer.h"

#include <optional>

namespace ptec::legalize {

class NNOps {
public:
  explicit NNOps(Legalizer &L) : L(L) {}

  Legalizer &L;
  bool failed = false;

  /// Op `name` typed by its shape rule; null once anything failed.
  Value make(StringRef name, ArrayRef<Operands> tensors, ArrayRef<NamedAttribute> attrs = {});
  /// Every result of op `name` (empty once anything failed).
  SmallVector<Value> makeAll(StringRef name, ArrayRef<Operands> tensors,
                             ArrayRef<NamedAttribute> attrs = {});

  // ---- Layout.
  Value view(Value v, ArrayRef<int64_t> shape);
  Value permute(Value v, ArrayRef<int64_t> dims);
  Value unsqueeze(Value v, int64_t dim);
  Value squeeze(Value v, int64_t dim);
  /// v[start:end:step] along `dim` (a no-op when it covers the dim).
  Value slice(Value v, int64_t dim, int64_t start, int64_t end, int64_t step = 1);
  Value select(Value v, int64_t dim, int64_t index);
  Value cat(ArrayRef<Value> vs, int64_t dim);
  Value stack(ArrayRef<Value> vs, int64_t dim);
  /// Matrix transpose of a rank-2 value.
  Value t(Value v) { return permute(v, {1, 0}); }
  Value indexSelect(Value v, int64_t dim, Value index);
  Value expand(Value v, ArrayRef<int64_t> shape);
  /// Zero padding: `pad` in constant_pad_nd's order (last dim first).
  Value pad(Value v, ArrayRef<int64_t> pad, double value = 0.0);

  // ---- Arithmetic. Scalars take the integer form on integer tensors.
  Value add(Value a, Value b);
  Value sub(Value a, Value b);
  Value mul(Value a, Value b);
  Value div(Value a, Value b);
  Value addS(Value a, double s);
  Value subS(Value a, double s) { return addS(a, -s); }
  Value mulS(Value a, double s);
  Value divS(Value a, double s);
  /// s - a.
  Value rsubS(Value a, double s);
  Value clamp(Value v, std::optional<double> lo, std::optional<double> hi);
  Value unary(StringRef name, Value v) { return make(name, {{v}}); }
  Value where(Value cond, Value a, Value b);
  Value compareS(StringRef name, Value a, double s); // "aten::lt.Scalar", ...
  Value mm(Value a, Value b);
  /// bias + a @ b, or a @ b when bias is null.
  Value addmm(Value bias, Value a, Value b);
  Value toType(Value v, Type elem);

  // ---- Factories.
  /// [start, start + step, ...) below `end`, of element type `elem`.
  Value arange(int64_t start, int64_t end, int64_t step, Type elem);
  Value arange(int64_t n, Type elem) { return arange(0, n, 1, elem); }
  Value full(ArrayRef<int64_t> shape, double value, Type elem);

  Type f32() { return L.b.getF32Type(); }
  Type i64() { return L.b.getI64Type(); }
  static RankedTensorType typeOf(Value v) { return tensorType(v); }

  /// Replaces the op's results by `values`, or fails (after the error
  /// already reported) when some step failed.
  LogicalResult finish(ArrayRef<Value> values);

private:
  NamedAttribute scalar(StringRef name, double v, Value like);
  bool anyNull(ArrayRef<Operands> tensors) const;
};

/// An int-list argument with one entry per spatial dim (`n`): one value is
/// repeated, an empty list takes `dflt` (the kernel size, for pool strides).
SmallVector<int64_t> spatialList(exir::AtenOp op, StringRef name, size_t n,
                                 ArrayRef<int64_t> dflt);
/// An optional float argument (None or absent: nullopt).
std::optional<double> optFloat(exir::AtenOp op, StringRef name);
/// An optional float-list argument (None or absent: nullopt).
std::optional<SmallVector<double>> optFloats(exir::AtenOp op, StringRef name);

} // namespace ptec::legalize
