//===- Legalizer.h - one op's rewrite to core ATen --------------*- C++ -*-===//
//
// The Legalizer that legalize-to-core-aten runs on each exir.aten op, and the
// argument helpers its rewrites share. Private to the pass: its driver
// (LegalizeToCoreAten.cpp) picks the rewrite by op name, and the rewrites
// live in Legalize*.cpp by op family, so each file reads whole.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "dialects/exir/IR/Dynamism.h"
#include "passes/AtenBuilder.h"

namespace ptec::legalize {

using namespace mlir;

using Operands = SmallVector<Value, 1>;

inline RankedTensorType tensorType(Value v) {
  return llvm::dyn_cast<RankedTensorType>(v.getType());
}

/// `shape` with `t`'s element type.
inline RankedTensorType withShape(RankedTensorType t, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, t.getElementType());
}

/// The single operand of tensor argument `name`, or null (None / absent).
inline Value operandOf(exir::AtenOp op, StringRef name) {
  const schema::FunctionSchema *s = op.getSchema();
  int i = s ? s->findArgument(name) : -1;
  if (i < 0)
    return {};
  OperandRange r = op.getArgOperands(i);
  return r.empty() ? Value() : r.front();
}

inline int64_t intArg(exir::AtenOp op, StringRef name, int64_t dflt) {
  if (auto a = op->getAttrOfType<IntegerAttr>(name))
    return a.getInt();
  return dflt;
}

inline bool boolArg(exir::AtenOp op, StringRef name, bool dflt) {
  if (auto a = op->getAttrOfType<BoolAttr>(name))
    return a.getValue();
  return dflt;
}

class Legalizer {
public:
  Legalizer(exir::AtenOp op, bool dynamic)
      : op(op), b(op), loc(op.getLoc()), dynamic(dynamic) {}

  /// Returns success when `op` was rewritten (and erased), failure when it
  /// is left alone. `error` is set when the op is recognized but malformed.
  LogicalResult run(bool &error);

private:
  NamedAttribute attr(StringRef name, Attribute a) { return b.getNamedAttr(name, a); }
  NamedAttribute ints(StringRef name, ArrayRef<int64_t> v) {
    return attr(name, b.getDenseI64ArrayAttr(v));
  }
  NamedAttribute i64(StringRef name, int64_t v) { return attr(name, b.getI64IntegerAttr(v)); }
  NamedAttribute f64(StringRef name, double v) { return attr(name, b.getF64FloatAttr(v)); }

  FailureOr<Value> make(StringRef name, Type type, ArrayRef<Operands> tensors,
                        ArrayRef<NamedAttribute> attrs = {}) {
    return buildAtenValue(b, loc, name, type, tensors, attrs);
  }
  FailureOr<Value> view(Value v, ArrayRef<int64_t> shape) {
    if (tensorType(v).getShape() == shape)
      return v;
    return make("aten::view_copy", withShape(tensorType(v), shape), {{v}},
                {ints("size", shape)});
  }
  FailureOr<Value> transposeLast2(Value v) {
    RankedTensorType t = tensorType(v);
    // A 1-D weight (F.linear(x, w) with w of shape [K]) is valid PyTorch;
    // refuse it by name instead of indexing past the shape (fuzz finding).
    if (!t || t.getRank() < 2)
      return emitError(loc) << op.getOpName() << ": operand of rank "
                            << (t ? t.getRank() : 0)
                            << " where a matrix (rank >= 2) is needed is not supported";
    SmallVector<int64_t> perm, shape(t.getShape());
    for (int64_t i = 0; i < t.getRank(); ++i)
      perm.push_back(i);
    std::swap(perm[t.getRank() - 1], perm[t.getRank() - 2]);
    std::swap(shape[t.getRank() - 1], shape[t.getRank() - 2]);
    return make("aten::permute_copy", withShape(t, shape), {{v}},
                {ints("dims", perm)});
  }
  /// One dimension of a reshape: the product of dimensions `dims` of `src`
  /// (read at run time on dynamic shapes) times `scale`.
  struct DimProduct {
    Value src;
    SmallVector<int64_t, 2> dims;
    int64_t scale = 1;
  };
  /// `v` viewed as the shape `dims` describes. On static shapes a plain
  /// view; on dynamic ones the sizes are exir.sym_size products bound to the
  /// view's `size` (its attribute holds the upper bounds).
  FailureOr<Value> reshape(Value v, ArrayRef<DimProduct> dims);
  /// Dimensions [from, to) of `v`, one DimProduct each / folded into one.
  SmallVector<DimProduct> dimsOf(Value v, int64_t from, int64_t to) {
    SmallVector<DimProduct> out;
    for (int64_t d = from; d < to; ++d)
      out.push_back({v, {d}, 1});
    return out;
  }
  DimProduct foldDims(Value v, int64_t from, int64_t to) {
    DimProduct p{v, {}, 1};
    for (int64_t d = from; d < to; ++d)
      p.dims.push_back(d);
    return p;
  }
  /// Batched or plain matrix product of rank-2/3 operands, reshaping others.
  FailureOr<Value> matmul(Value a, Value m, RankedTensorType resultType);

  void replace(ArrayRef<Value> values) {
    for (auto [r, v] : llvm::zip(op->getResults(), values))
      r.replaceAllUsesWith(v);
    op->erase();
  }
  LogicalResult replaceWith(FailureOr<Value> v) {
    if (failed(v))
      return failure();
    replace({*v});
    return success();
  }
  LogicalResult rename(StringRef newName,
                       ArrayRef<std::pair<StringRef, StringRef>> attrRenames = {});

  LogicalResult linear();
  LogicalResult convolution(unsigned spatialDims);
  LogicalResult batchNorm();
  LogicalResult batchNormLegit();
  FailureOr<exir::AtenOp> evalBatchNorm(Value input, Value mean, Value var,
                                        NamedAttribute momentum, NamedAttribute eps);
  FailureOr<SmallVector<Value>> batchNormTraining(Value input, Value w, Value bi, Value rm,
                                                  Value rv, double momentum, double eps);
  LogicalResult layerNorm();
  LogicalResult matmulOp();
  LogicalResult sdpa();
  LogicalResult softmax(StringRef target);
  LogicalResult flatten();
  LogicalResult diagonalScatter();
  LogicalResult asStrided(bool scatter);
  LogicalResult adaptiveAvgPool();
  LogicalResult maxPool2d();
  LogicalResult hardActivation(StringRef kind);
  LogicalResult reduceAll(StringRef target);
  LogicalResult overload(StringRef name);

  exir::AtenOp op;
  OpBuilder b;
  Location loc;
  bool dynamic = false; // op uses a value with a run-time shape
};

} // namespace ptec::legalize
