//===- ShapeRulesSupport.h - building blocks of the shape rules -*- C++ -*-===//
//
// Internal to the shape rules (ShapeRules*.cpp). A rule reads the op's
// arguments by schema name through a RuleContext, reports what is wrong
// with them, and says what the operator produces (a Spec per result); the
// driver (ShapeRules.cpp) compares that with the declared result types, the
// out arguments of an out-variant, or the written argument of an in-place
// op. Dtype promotion follows PyTorch's result_type (categories bool <
// integral < floating < complex; dimensioned tensors over 0-dim tensors
// over wrapped Python numbers).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "dialects/exir/IR/ExirDialect.h"
#include "dialects/exir/IR/ShapeRules.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>

namespace ptec::exir::rules {

using mlir::LogicalResult;
using mlir::RankedTensorType;
using mlir::Type;
using mlir::Value;
using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::SmallVectorImpl;
using llvm::StringRef;

/// A dim the operator's result has but that depends on tensor values
/// (nonzero, masked_select, ...): never compared.
constexpr int64_t kDataDependent = mlir::ShapedType::kDynamic;

using Shape = SmallVector<int64_t, 6>;

/// What an operator produces for one result.
struct Spec {
  bool rankKnown = true;
  Shape shape;
  Type dtype; // null: not determined by the operands (out-variant factories)
  static Spec of(ArrayRef<int64_t> shape, Type dtype) {
    Spec s;
    s.shape.assign(shape.begin(), shape.end());
    s.dtype = dtype;
    return s;
  }
  static Spec like(RankedTensorType t) { return of(t.getShape(), t.getElementType()); }
  static Spec anyRank(Type dtype) {
    Spec s;
    s.rankKnown = false;
    s.dtype = dtype;
    return s;
  }
  /// A non-tensor result (int, bool, Scalar): never declared as a tensor.
  bool isScalar = false;
  static Spec scalarValue() {
    Spec s = anyRank({});
    s.isScalar = true;
    return s;
  }
};

/// A Scalar argument: its value, and the dtype it has as a wrapped number
/// (bool, int64 or float64).
struct ScalarArg {
  enum class Kind { Bool, Int, Float } kind = Kind::Int;
  int64_t i = 0;
  double f = 0;
  bool isFloat() const { return kind == Kind::Float; }
  bool isBool() const { return kind == Kind::Bool; }
  double value() const { return kind == Kind::Float ? f : static_cast<double>(i); }
};

//===----------------------------------------------------------------------===//
// Dtypes
//===----------------------------------------------------------------------===//

bool isBool(Type t);
bool isIntegral(Type t, bool includeBool);
bool isFloating(Type t); // f16, bf16, f32, f64, float8
bool isComplex(Type t);
/// PyTorch's promote_types; null where PyTorch refuses (uint16/32/64 with
/// other types, float8 with other types) or for unknown types.
Type promoteTypes(Type a, Type b);
/// PyTorch's canCast: no complex to non-complex, no floating to integral,
/// no non-bool to bool.
bool canCast(Type from, Type to);
/// complex<T> -> T; others unchanged.
Type toRealType(Type t);
/// T -> complex<T> for floating T (bf16 -> complex<f32>); others unchanged.
Type toComplexType(Type t);
/// The dtype named by a schema default or a torch spelling ("long",
/// "float32", ...); null when unknown.
Type dtypeNamed(mlir::MLIRContext *ctx, StringRef name);
/// "float32", "int64", "bool", ... (MLIR spelling for anything else).
std::string dtypeName(Type t);
/// "float32[2, 3]" ("?" for data-dependent dims, "[*]" for any rank).
std::string describe(const Spec &s);
std::string describe(Type t);
std::string describeShape(ArrayRef<int64_t> shape);

/// PyTorch's result_type over tensors and wrapped numbers.
class ResultType {
public:
  void add(RankedTensorType t);
  void add(const ScalarArg &s, mlir::MLIRContext *ctx);
  /// Null when promotion is undefined (see promoteTypes).
  Type get() const;

private:
  Type dim, zero, wrapped;
  bool undefined = false;
};

/// The element count (saturating at INT64_MAX).
int64_t numel(ArrayRef<int64_t> shape);
/// Saturating int64 arithmetic: sizes computed from hostile arguments must
/// not overflow (undefined behaviour); a saturated size matches no real one.
int64_t addSat(int64_t a, int64_t b);
int64_t subSat(int64_t a, int64_t b);
int64_t mulSat(int64_t a, int64_t b);
/// Division rounding toward negative infinity (b > 0).
int64_t floorDiv(int64_t a, int64_t b);
/// `v` as an int64 (truncated) when it is finite and fits.
std::optional<int64_t> toInt64(double v);
/// A double for messages ("0.5", "1e-05").
std::string num(double v);

//===----------------------------------------------------------------------===//
// RuleContext
//===----------------------------------------------------------------------===//

class RuleContext {
public:
  RuleContext(AtenOp op, const schema::FunctionSchema &actual);

  AtenOp getOp() const { return op; }
  mlir::MLIRContext *context() const;
  Type i64() const;
  Type f32() const;
  Type boolType() const;
  /// The default dtype of floating factories and of integer true division.
  Type defaultFloat() const { return f32(); }

  // ---- Arguments, by schema name. Out-variants and in-place ops use the
  // names of their functional form, so one rule serves all three.
  /// The actual schema takes argument `name` (an out-variant of a factory
  /// drops dtype/layout/device).
  bool has(StringRef name) const;
  /// The operand of Tensor / Tensor? argument `name`; null for None.
  Value tensor(StringRef name) const;
  /// Its ranked type; null for None (rules run only on ranked operands).
  RankedTensorType type(StringRef name) const;
  /// Operands of a Tensor[] argument; for Tensor?[] one entry per list
  /// element, null for None.
  SmallVector<Value> tensors(StringRef name) const;
  bool isNone(StringRef name) const;
  std::optional<int64_t> optInt(StringRef name) const;
  int64_t getInt(StringRef name) const { return optInt(name).value_or(0); }
  std::optional<double> optFloat(StringRef name) const;
  double getFloat(StringRef name) const { return optFloat(name).value_or(0.0); }
  bool getBool(StringRef name) const;
  /// An int list (None: nullopt). `int[2] x=1` style scalars are expanded.
  std::optional<Shape> optInts(StringRef name) const;
  Shape getInts(StringRef name) const { return optInts(name).value_or(Shape{}); }
  std::optional<SmallVector<double>> optFloats(StringRef name) const;
  std::optional<ScalarArg> scalar(StringRef name) const;
  /// A dtype argument; null for None or when the actual schema lacks it.
  Type dtype(StringRef name) const;
  std::optional<std::string> str(StringRef name) const;

  // ---- Diagnostics: "node 'y' (aten::permute): <message>".
  mlir::InFlightDiagnostic error() const;
  LogicalResult fail(const llvm::Twine &message) const;

  // ---- Common checks; each reports and fails.
  /// `dim` wrapped into 0..rank-1 (0-dim tensors take -1 and 0, as in
  /// PyTorch); `what` names it in the message ("dim", "dim1").
  LogicalResult wrapDim(int64_t dim, int64_t rank, StringRef what, int64_t &out) const;
  /// Integer argument `name` as a wrapped dim.
  LogicalResult dimArg(StringRef name, int64_t rank, int64_t &out) const;
  /// Argument `name` given as one int or as an int list (the dims of
  /// reductions and squeeze), wrapped as by wrapDims.
  LogicalResult dimListArg(StringRef name, int64_t rank, Shape &out) const;
  /// A list of dims, wrapped; duplicates are an error unless allowed.
  LogicalResult wrapDims(ArrayRef<int64_t> dims, int64_t rank, StringRef what,
                         Shape &out, bool allowDuplicates = false) const;
  /// The broadcast of `shapes`; `names` label them in the message.
  LogicalResult broadcast(ArrayRef<ArrayRef<int64_t>> shapes,
                          ArrayRef<StringRef> names, Shape &out) const;
  /// Tensor argument `name` must be present.
  LogicalResult require(StringRef name, RankedTensorType &out) const;
  /// Tensor argument `name` must have rank in [lo, hi].
  LogicalResult requireRank(StringRef name, RankedTensorType t, int64_t lo,
                            int64_t hi) const;
  /// An op that would produce `n` results (splits, unbind) must not be
  /// asked for more than it declares: fails before building them.
  LogicalResult checkPieces(int64_t n) const;
  /// Two tensor arguments must share a dtype.
  LogicalResult sameDtype(StringRef a, RankedTensorType at, StringRef b,
                          RankedTensorType bt) const;

  // ---- Results.
  void produce(Spec s) { results.push_back(std::move(s)); }
  void produce(ArrayRef<int64_t> shape, Type dtype) { produce(Spec::of(shape, dtype)); }
  /// Produces the last result and succeeds: how most rules end.
  LogicalResult succeed(Spec s) {
    produce(std::move(s));
    return mlir::success();
  }
  LogicalResult succeed(ArrayRef<int64_t> shape, Type dtype) {
    return succeed(Spec::of(shape, dtype));
  }
  SmallVector<Spec, 2> results;

private:
  mlir::Attribute attr(StringRef name) const;
  const schema::Argument *argument(StringRef name) const;
  /// The schema default of argument `name`; null when the actual schema
  /// lacks the argument or gives it no default.
  const schema::DefaultValue *defaultOf(StringRef name) const;
  /// The same, only when the default is of one of `kinds`.
  const schema::DefaultValue *
  defaultOf(StringRef name, std::initializer_list<schema::DefaultValue::Kind> kinds) const;

  mutable AtenOp op; // op accessors are not const
  const schema::FunctionSchema &actual;
};

/// Tensor argument `self`, which must have at least one dim, and its `dim`
/// argument wrapped (select, slice, narrow, unflatten, glu, the splits).
LogicalResult requireSelfAndDim(RuleContext &c, RankedTensorType &t, int64_t &dim);

/// Rules that start by reading tensor `self` (and its `dim`) take them as
/// parameters and are registered as onSelf<rule> or onSelfAndDim<rule>,
/// which read and check them first (require("self"), requireSelfAndDim).
using SelfRuleFn = LogicalResult (*)(RuleContext &, RankedTensorType self);
using SelfDimRuleFn = LogicalResult (*)(RuleContext &, RankedTensorType self,
                                        int64_t dim);

template <SelfRuleFn Rule>
LogicalResult onSelf(RuleContext &c) {
  RankedTensorType t;
  if (failed(c.require("self", t)))
    return mlir::failure();
  return Rule(c, t);
}

template <SelfDimRuleFn Rule>
LogicalResult onSelfAndDim(RuleContext &c) {
  RankedTensorType t;
  int64_t dim;
  if (failed(requireSelfAndDim(c, t, dim)))
    return mlir::failure();
  return Rule(c, t, dim);
}

/// The rule of ops whose result is like tensor `self`: same shape, same
/// dtype (unary ops that keep the dtype, alias/clone, device copies).
LogicalResult sameAsSelf(RuleContext &c);

/// The rule of composite ops that legalize-to-core-aten decomposes and
/// whose shapes are laborious to state twice (RNNs, say): their results are
/// the graph's declared types, taken as given here and checked when the
/// decomposition replaces the op (Legalizer::replace refuses a decomposition
/// whose types differ). Prefer a real rule: it names the bad argument.
LogicalResult declaredResults(RuleContext &c);

using RuleFn = LogicalResult (*)(RuleContext &);
using RuleTable = llvm::StringMap<RuleFn>;

/// Each family file adds its rules under the functional operator names.
void addElementwiseRules(RuleTable &t);
void addReductionRules(RuleTable &t);
void addViewRules(RuleTable &t);
void addSplitJoinRules(RuleTable &t);
void addIndexingRules(RuleTable &t);
void addNNRules(RuleTable &t);
void addNormRules(RuleTable &t);
void addLinalgRules(RuleTable &t);
void addFactoryRules(RuleTable &t);
void addCompositeNNRules(RuleTable &t);
void addCompositeReduceRules(RuleTable &t);
void addCompositeLossRules(RuleTable &t); // called by addCompositeReduceRules
void addCompositeShapeRules(RuleTable &t);
void addCompositeMiscRules(RuleTable &t);
void addCompositeElementwiseRules(RuleTable &t); // after the others: reuses their rules

/// Adds `fn` under every name in `names` ("aten::" is implied when a name
/// has no namespace).
void addRules(RuleTable &t, std::initializer_list<const char *> names, RuleFn fn);

/// View rules the scatter rules reuse: a scattered source has the shape of
/// the view with the same arguments (ShapeRulesView.cpp).
LogicalResult sliceRule(RuleContext &c);
LogicalResult selectRule(RuleContext &c);
LogicalResult diagonalRule(RuleContext &c);
LogicalResult asStridedRule(RuleContext &c);

/// The length of x[start:end:step] over a dim of `size` (Python's clamping),
/// which tensor_split shares with slice (ShapeRulesView.cpp).
int64_t sliceLength(int64_t size, std::optional<int64_t> start,
                    std::optional<int64_t> end, int64_t step);

} // namespace ptec::exir::rules
