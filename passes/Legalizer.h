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

#include "llvm/ADT/StringMap.h"

#include <string>

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

class Legalizer;

/// One op's rewrite. Succeeds when it rewrote the op (and erased it) or
/// chose to leave it; fails only after reporting an error at the op.
using LegalizeFn = LogicalResult (*)(Legalizer &);

/// How a rule treats a value whose shape is only known at run time (types
/// then hold upper bounds).
enum class Dynamic {
  Refuse, ///< the rewrite derives sizes from static types: refuse by name
  Handled ///< the rewrite is right on run-time shapes (sizes read at run time, or none used)
};

struct LegalizeRule {
  LegalizeFn fn = nullptr;
  Dynamic dynamic = Dynamic::Refuse;
  /// Set for operators refused whatever their arguments (addRefusals): the
  /// reason, which completes "'<op>' is not supported: ...".
  std::string refusal;
};

/// Operator name ("aten::pad") to its rule. Each family file fills its
/// part, as the shape rules do (dialects/exir/IR/ShapeRules*.cpp).
using LegalizeTable = llvm::StringMap<LegalizeRule>;

/// Adds `fn` under every name in `names`.
void addLegalizations(LegalizeTable &t, std::initializer_list<const char *> names,
                      LegalizeFn fn, Dynamic dynamic = Dynamic::Refuse);

/// Refuses every operator in `names`, whatever its arguments, with `reason`
/// (completing "'<op>' is not supported: ..."): operators a family knows it
/// cannot express in core ATen with portable kernels. Listed as refused by
/// `aot-compile --list-ops`.
void addRefusals(LegalizeTable &t, std::initializer_list<const char *> names,
                 const char *reason);

/// The family files' parts (LegalizeToCoreAten.cpp, Legalize*.cpp).
void addCoreLegalizations(LegalizeTable &t);     // renames, no-ops, driver rules
void addElementwiseLegalizations(LegalizeTable &t);
void addLinearAlgebraLegalizations(LegalizeTable &t);
void addNormalizationLegalizations(LegalizeTable &t);
void addOverloadLegalizations(LegalizeTable &t);
void addViewLegalizations(LegalizeTable &t);
void addNNLegalizations(LegalizeTable &t);       // LegalizeNN.cpp
void addRnnLegalizations(LegalizeTable &t);      // LegalizeRnn.cpp
void addResampleLegalizations(LegalizeTable &t); // LegalizeResample.cpp
void addShapeLegalizations(LegalizeTable &t);          // LegalizeShape*.cpp
void addMiscLegalizations(LegalizeTable &t);
void addReduceLegalizations(LegalizeTable &t);

/// Every rule, built once.
const LegalizeTable &legalizeTable();

/// The state one rewrite works with, and the helpers rules share. Rules are
/// free functions over it (or members, for the older families).
class Legalizer {
public:
  Legalizer(exir::AtenOp op, bool dynamic)
      : op(op), b(op), loc(op.getLoc()), dynamic(dynamic) {}

  /// Runs the rule of `op`'s operator, if it has one. Fails only when an
  /// error was reported.
  LogicalResult run();

  // ---- Arguments.
  NamedAttribute attr(StringRef name, Attribute a) { return b.getNamedAttr(name, a); }
  NamedAttribute ints(StringRef name, ArrayRef<int64_t> v) {
    return attr(name, b.getDenseI64ArrayAttr(v));
  }
  NamedAttribute i64(StringRef name, int64_t v) { return attr(name, b.getI64IntegerAttr(v)); }
  NamedAttribute f64(StringRef name, double v) { return attr(name, b.getF64FloatAttr(v)); }
  NamedAttribute boolean(StringRef name, bool v) { return attr(name, b.getBoolAttr(v)); }
  NamedAttribute dtype(StringRef name, Type t) { return attr(name, TypeAttr::get(t)); }
  NamedAttribute none(StringRef name) {
    return attr(name, exir::NoneAttr::get(b.getContext()));
  }
  /// Tensor argument `name` of the op being rewritten (null for None).
  Value operand(StringRef name) { return operandOf(op, name); }
  /// The op's first result type.
  RankedTensorType resultType(unsigned i = 0) { return tensorType(op->getResult(i)); }

  // ---- Building.
  /// Op `name` with explicit result type.
  FailureOr<Value> make(StringRef name, Type type, ArrayRef<Operands> tensors,
                        ArrayRef<NamedAttribute> attrs = {}) {
    return buildAtenValue(b, loc, name, type, tensors, attrs);
  }
  /// Op `name` with the result type its shape rule gives (static operands).
  FailureOr<Value> make(StringRef name, ArrayRef<Operands> tensors,
                        ArrayRef<NamedAttribute> attrs = {}) {
    FailureOr<exir::AtenOp> o = buildAtenInferred(b, loc, name, tensors, attrs);
    if (failed(o))
      return failure();
    return (*o)->getResult(0);
  }
  /// Every result of op `name`, typed by its shape rule.
  FailureOr<SmallVector<Value>> makeAll(StringRef name, ArrayRef<Operands> tensors,
                                        ArrayRef<NamedAttribute> attrs = {}) {
    FailureOr<exir::AtenOp> o = buildAtenInferred(b, loc, name, tensors, attrs);
    if (failed(o))
      return failure();
    return SmallVector<Value>((*o)->getResults());
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

  // ---- Finishing.
  /// Replaces the op's results by `values` and erases it. Each value must
  /// have the type of the result it replaces: a decomposition that computes
  /// another shape or dtype is a bug, reported instead of miscompiling.
  LogicalResult replace(ArrayRef<Value> values);
  LogicalResult replaceWith(FailureOr<Value> v) {
    if (failed(v))
      return failure();
    return replace({*v});
  }
  LogicalResult rename(StringRef newName,
                       ArrayRef<std::pair<StringRef, StringRef>> attrRenames = {});
  /// Reports that this use of the op is not supported, with the reason, and
  /// fails: "'aten::pad' with mode 'foo' is not supported: <why>".
  LogicalResult refuse(const Twine &why) {
    return op.emitError("'") << op.getOpName() << "' " << why;
  }

  // ---- Rewrites of the older families (members; newer ones are free
  // functions in their family file).
  LogicalResult linear();
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
