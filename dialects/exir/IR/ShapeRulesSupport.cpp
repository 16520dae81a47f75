//===- ShapeRulesSupport.cpp - building blocks of the shape rules ---------===//

#include "dialects/exir/IR/ShapeRulesSupport.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <limits>

using namespace mlir;

namespace ptec::exir::rules {

//===----------------------------------------------------------------------===//
// Dtypes
//===----------------------------------------------------------------------===//

bool isBool(Type t) { return t && t.isInteger(1); }

bool isIntegral(Type t, bool includeBool) {
  auto i = llvm::dyn_cast_or_null<IntegerType>(t);
  return i && (includeBool || i.getWidth() != 1);
}

bool isFloating(Type t) { return llvm::isa_and_nonnull<FloatType>(t); }

bool isComplex(Type t) { return llvm::isa_and_nonnull<ComplexType>(t); }

static bool isFloat8(Type t) {
  return isFloating(t) && t.getIntOrFloatBitWidth() == 8;
}

/// uint16/uint32/uint64: PyTorch promotes them only with themselves and bool.
static bool isBarebonesUnsigned(Type t) {
  auto i = llvm::dyn_cast_or_null<IntegerType>(t);
  return i && i.isUnsigned() && i.getWidth() > 8;
}

static bool isUInt8(Type t) {
  auto i = llvm::dyn_cast_or_null<IntegerType>(t);
  return i && i.isUnsigned() && i.getWidth() == 8;
}

Type promoteTypes(Type a, Type b) {
  if (!a || !b)
    return {};
  if (a == b)
    return a;
  if (isBool(a))
    return b;
  if (isBool(b))
    return a;
  if (isFloat8(a) || isFloat8(b) || isBarebonesUnsigned(a) ||
      isBarebonesUnsigned(b))
    return {};
  MLIRContext *ctx = a.getContext();
  auto ia = llvm::dyn_cast<IntegerType>(a), ib = llvm::dyn_cast<IntegerType>(b);
  if (ia && ib) {
    if (isUInt8(a))
      return ib.getWidth() == 8 ? IntegerType::get(ctx, 16) : b;
    if (isUInt8(b))
      return ia.getWidth() == 8 ? IntegerType::get(ctx, 16) : a;
    return ia.getWidth() >= ib.getWidth() ? a : b;
  }
  if (ia)
    return b; // integral with floating or complex
  if (ib)
    return a;
  auto fa = llvm::dyn_cast<FloatType>(a), fb = llvm::dyn_cast<FloatType>(b);
  if (fa && fb) {
    if (fa.getWidth() == 16 && fb.getWidth() == 16) // half with bfloat16
      return Float32Type::get(ctx);
    return fa.getWidth() >= fb.getWidth() ? a : b;
  }
  auto ca = llvm::dyn_cast<ComplexType>(a), cb = llvm::dyn_cast<ComplexType>(b);
  if (ca && cb)
    return ca.getElementType().getIntOrFloatBitWidth() >=
                   cb.getElementType().getIntOrFloatBitWidth()
               ? a
               : b;
  if (ca && fb) {
    Type e = promoteTypes(ca.getElementType(), b);
    return e ? ComplexType::get(e) : Type();
  }
  if (cb && fa) {
    Type e = promoteTypes(cb.getElementType(), a);
    return e ? ComplexType::get(e) : Type();
  }
  return {};
}

bool canCast(Type from, Type to) {
  if (isComplex(from) && !isComplex(to))
    return false;
  if (isFloating(from) && isIntegral(to, /*includeBool=*/false))
    return false;
  if (!isBool(from) && isBool(to))
    return false;
  return true;
}

Type toRealType(Type t) {
  if (auto c = llvm::dyn_cast_or_null<ComplexType>(t))
    return c.getElementType();
  return t;
}

Type toComplexType(Type t) {
  if (!isFloating(t) || isFloat8(t))
    return t;
  if (t.isBF16())
    return ComplexType::get(Float32Type::get(t.getContext()));
  return ComplexType::get(t);
}

Type dtypeNamed(MLIRContext *ctx, StringRef name) {
  Builder b(ctx);
  return llvm::StringSwitch<Type>(name)
      .Cases("float", "float32", b.getF32Type())
      .Cases("double", "float64", b.getF64Type())
      .Cases("half", "float16", b.getF16Type())
      .Case("bfloat16", b.getBF16Type())
      .Cases("long", "int64", b.getI64Type())
      .Cases("int", "int32", b.getI32Type())
      .Cases("short", "int16", b.getI16Type())
      .Cases("char", "int8", b.getI8Type())
      .Cases("byte", "uint8", IntegerType::get(ctx, 8, IntegerType::Unsigned))
      .Case("bool", b.getI1Type())
      .Cases("cfloat", "complex64", ComplexType::get(b.getF32Type()))
      .Cases("cdouble", "complex128", ComplexType::get(b.getF64Type()))
      .Default(Type());
}

std::string dtypeName(Type t) {
  if (!t)
    return "?";
  if (auto i = llvm::dyn_cast<IntegerType>(t)) {
    if (i.getWidth() == 1)
      return "bool";
    return (i.isUnsigned() ? "uint" : "int") + std::to_string(i.getWidth());
  }
  if (t.isBF16())
    return "bfloat16";
  if (isFloating(t) && !isFloat8(t))
    return "float" + std::to_string(t.getIntOrFloatBitWidth());
  if (auto c = llvm::dyn_cast<ComplexType>(t))
    if (isFloating(c.getElementType()) && !c.getElementType().isBF16())
      return "complex" + std::to_string(2 * c.getElementType().getIntOrFloatBitWidth());
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

std::string describeShape(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += d == kDataDependent ? std::string("?") : std::to_string(d);
  }
  return s + "]";
}

std::string describe(const Spec &s) {
  return dtypeName(s.dtype) + (s.rankKnown ? describeShape(s.shape) : "[*]");
}

std::string describe(Type t) {
  if (auto r = llvm::dyn_cast<RankedTensorType>(t))
    return dtypeName(r.getElementType()) + describeShape(r.getShape());
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

int64_t numel(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n = mulSat(n, d);
  return n;
}

static constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
static constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

int64_t addSat(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? (b > 0 ? kMax : kMin) : r;
}

int64_t subSat(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_sub_overflow(a, b, &r) ? (b < 0 ? kMax : kMin) : r;
}

int64_t mulSat(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? ((a < 0) != (b < 0) ? kMin : kMax) : r;
}

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

std::optional<int64_t> toInt64(double v) {
  // 2^63 is exactly representable; every double below it fits.
  if (!(v > -9223372036854775808.0 && v < 9223372036854775808.0))
    return std::nullopt;
  return static_cast<int64_t>(v);
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

//===----------------------------------------------------------------------===//
// ResultType
//===----------------------------------------------------------------------===//

/// PyTorch's promote_skip_undefined: an absent side takes the other.
static Type promoteSkip(Type a, Type b, bool &undefined) {
  if (!a)
    return b;
  if (!b)
    return a;
  Type t = promoteTypes(a, b);
  if (!t)
    undefined = true;
  return t;
}

void ResultType::add(RankedTensorType t) {
  Type e = t.getElementType();
  if (t.getRank() > 0)
    dim = promoteSkip(dim, e, undefined);
  else
    zero = promoteSkip(zero, e, undefined);
}

void ResultType::add(const ScalarArg &s, MLIRContext *ctx) {
  Builder b(ctx);
  Type e = s.isBool() ? b.getI1Type()
           : s.isFloat() ? Type(b.getF32Type()) // the default dtype
                         : Type(b.getI64Type());
  wrapped = promoteSkip(wrapped, e, undefined);
}

/// PyTorch's combine_categories: the lower-priority group only counts when
/// it is of a higher category.
static Type combineCategories(Type higher, Type lower, bool &undefined) {
  if (!higher)
    return lower;
  if (isComplex(higher))
    return higher;
  if (isComplex(lower))
    return isFloating(higher) ? toComplexType(higher) : lower;
  if (isFloating(higher))
    return higher;
  if (isBool(higher) || isFloating(lower))
    return promoteSkip(higher, lower, undefined);
  return higher;
}

Type ResultType::get() const {
  bool bad = undefined;
  Type t = combineCategories(dim, combineCategories(zero, wrapped, bad), bad);
  return bad ? Type() : t;
}

//===----------------------------------------------------------------------===//
// RuleContext
//===----------------------------------------------------------------------===//

/// The kinds of schema defaults.
using K = schema::DefaultValue::Kind;

RuleContext::RuleContext(AtenOp op, const schema::FunctionSchema &actual)
    : op(op), actual(actual) {}

MLIRContext *RuleContext::context() const { return op->getContext(); }
Type RuleContext::i64() const { return IntegerType::get(context(), 64); }
Type RuleContext::f32() const { return Float32Type::get(context()); }
Type RuleContext::boolType() const { return IntegerType::get(context(), 1); }

const schema::Argument *RuleContext::argument(StringRef name) const {
  int i = actual.findArgument(std::string_view(name.data(), name.size()));
  return i < 0 ? nullptr : &actual.arguments[i];
}

bool RuleContext::has(StringRef name) const { return argument(name) != nullptr; }

const schema::DefaultValue *RuleContext::defaultOf(StringRef name) const {
  const schema::Argument *a = argument(name);
  return a && a->defaultValue ? &*a->defaultValue : nullptr;
}

const schema::DefaultValue *
RuleContext::defaultOf(StringRef name,
                       std::initializer_list<schema::DefaultValue::Kind> kinds) const {
  const schema::DefaultValue *d = defaultOf(name);
  return d && llvm::is_contained(kinds, d->kind) ? d : nullptr;
}

Attribute RuleContext::attr(StringRef name) const { return op->getAttr(name); }

/// Operands of schema argument `index` of `op` (segments in schema order).
static OperandRange argOperands(AtenOp op, const schema::FunctionSchema &s,
                                unsigned index) {
  ArrayRef<int32_t> segs = op.getOperandSegments();
  unsigned seg = 0, start = 0;
  for (unsigned i = 0; i < s.arguments.size(); ++i) {
    if (!s.arguments[i].type.isTensorLike())
      continue;
    if (seg >= segs.size())
      break;
    if (i == index) {
      // Segments that overrun the operands fail AtenOp's schema checks;
      // never read past them here.
      if (segs[seg] < 0 || start + segs[seg] > op.getInputs().size())
        break;
      return op.getInputs().slice(start, segs[seg]);
    }
    start += segs[seg++];
  }
  return op.getInputs().slice(0, 0);
}

Value RuleContext::tensor(StringRef name) const {
  int i = actual.findArgument(std::string_view(name.data(), name.size()));
  if (i < 0)
    return {};
  OperandRange r = argOperands(op, actual, i);
  return r.size() == 1 ? r.front() : Value();
}

RankedTensorType RuleContext::type(StringRef name) const {
  Value v = tensor(name);
  return v ? llvm::dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
}

SmallVector<Value> RuleContext::tensors(StringRef name) const {
  int i = actual.findArgument(std::string_view(name.data(), name.size()));
  if (i < 0)
    return {};
  OperandRange r = argOperands(op, actual, i);
  auto mask = op->getAttrOfType<DenseBoolArrayAttr>(name);
  if (!mask)
    return SmallVector<Value>(r.begin(), r.end());
  SmallVector<Value> out;
  unsigned next = 0;
  for (bool present : mask.asArrayRef())
    out.push_back(present && next < r.size() ? r[next++] : Value());
  return out;
}

bool RuleContext::isNone(StringRef name) const {
  const schema::Argument *a = argument(name);
  if (!a)
    return true;
  if (a->type.isTensorLike())
    return !tensor(name) && tensors(name).empty();
  if (Attribute v = attr(name))
    return llvm::isa<NoneAttr>(v);
  return !a->defaultValue ||
         a->defaultValue->kind == schema::DefaultValue::Kind::None;
}

std::optional<int64_t> RuleContext::optInt(StringRef name) const {
  if (Attribute v = attr(name)) {
    if (auto i = llvm::dyn_cast<IntegerAttr>(v); i && !llvm::isa<BoolAttr>(v))
      return i.getInt();
    return std::nullopt;
  }
  if (const schema::DefaultValue *d = defaultOf(name, {K::Int, K::Enum}))
    return d->i;
  return std::nullopt;
}

std::optional<double> RuleContext::optFloat(StringRef name) const {
  if (Attribute v = attr(name)) {
    if (auto f = llvm::dyn_cast<FloatAttr>(v))
      return f.getValueAsDouble();
    if (auto i = llvm::dyn_cast<IntegerAttr>(v); i && !llvm::isa<BoolAttr>(v))
      return static_cast<double>(i.getInt());
    return std::nullopt;
  }
  const schema::DefaultValue *d = defaultOf(name, {K::Double, K::Complex, K::Int});
  if (!d)
    return std::nullopt;
  return d->kind == K::Int ? static_cast<double>(d->i) : d->d;
}

bool RuleContext::getBool(StringRef name) const {
  if (auto b = llvm::dyn_cast_or_null<BoolAttr>(attr(name)))
    return b.getValue();
  const schema::DefaultValue *d = defaultOf(name, {K::Bool});
  return d && d->b;
}

std::optional<Shape> RuleContext::optInts(StringRef name) const {
  if (Attribute v = attr(name)) {
    if (auto l = llvm::dyn_cast<DenseI64ArrayAttr>(v))
      return Shape(l.asArrayRef().begin(), l.asArrayRef().end());
    if (auto l = llvm::dyn_cast<ArrayAttr>(v); l && l.empty())
      return Shape{};
    return std::nullopt;
  }
  const schema::Argument *a = argument(name);
  if (!a || !a->defaultValue)
    return std::nullopt;
  const schema::DefaultValue &d = *a->defaultValue;
  if (d.kind == K::IntList)
    return Shape(d.ints.begin(), d.ints.end());
  if (d.kind == K::Int) {
    const schema::SchemaType &t = a->type.kind == schema::TypeKind::Optional
                                      ? a->type.elems.front()
                                      : a->type;
    return Shape(t.fixedSize.value_or(1), d.i);
  }
  return std::nullopt;
}

std::optional<SmallVector<double>> RuleContext::optFloats(StringRef name) const {
  if (Attribute v = attr(name)) {
    if (auto l = llvm::dyn_cast<DenseF64ArrayAttr>(v))
      return SmallVector<double>(l.asArrayRef().begin(), l.asArrayRef().end());
    if (auto l = llvm::dyn_cast<ArrayAttr>(v); l && l.empty())
      return SmallVector<double>{};
    return std::nullopt;
  }
  if (const schema::DefaultValue *d = defaultOf(name, {K::DoubleList}))
    return SmallVector<double>(d->doubles.begin(), d->doubles.end());
  return std::nullopt;
}

std::optional<ScalarArg> RuleContext::scalar(StringRef name) const {
  ScalarArg s;
  if (Attribute v = attr(name)) {
    if (auto b = llvm::dyn_cast<BoolAttr>(v)) {
      s.kind = ScalarArg::Kind::Bool;
      s.i = b.getValue();
      return s;
    }
    if (auto i = llvm::dyn_cast<IntegerAttr>(v)) {
      s.i = i.getInt();
      return s;
    }
    if (auto f = llvm::dyn_cast<FloatAttr>(v)) {
      s.kind = ScalarArg::Kind::Float;
      s.f = f.getValueAsDouble();
      return s;
    }
    return std::nullopt;
  }
  const schema::DefaultValue *d = defaultOf(name);
  if (!d)
    return std::nullopt;
  switch (d->kind) {
  case K::Bool:
    s.kind = ScalarArg::Kind::Bool;
    s.i = d->b;
    return s;
  case K::Int:
    s.i = d->i;
    return s;
  case K::Double:
    s.kind = ScalarArg::Kind::Float;
    s.f = d->d;
    return s;
  default:
    return std::nullopt;
  }
}

Type RuleContext::dtype(StringRef name) const {
  if (Attribute v = attr(name)) {
    if (auto t = llvm::dyn_cast<TypeAttr>(v))
      return t.getValue();
    return {};
  }
  if (const schema::DefaultValue *d = defaultOf(name, {K::Enum}))
    return dtypeNamed(context(), d->s);
  return {};
}

std::optional<std::string> RuleContext::str(StringRef name) const {
  if (Attribute v = attr(name)) {
    if (auto s = llvm::dyn_cast<StringAttr>(v))
      return s.getValue().str();
    return std::nullopt;
  }
  if (const schema::DefaultValue *d = defaultOf(name, {K::String, K::Enum}))
    return d->s;
  return std::nullopt;
}

/// The graph node's name: the importer wraps each op's location in a NameLoc.
static StringRef nodeName(Location loc) {
  if (auto n = llvm::dyn_cast<NameLoc>(loc))
    return n.getName().getValue();
  if (auto c = llvm::dyn_cast<CallSiteLoc>(loc))
    return nodeName(c.getCallee());
  if (auto f = llvm::dyn_cast<FusedLoc>(loc))
    for (Location l : f.getLocations())
      if (StringRef n = nodeName(l); !n.empty())
        return n;
  return "";
}

InFlightDiagnostic RuleContext::error() const {
  InFlightDiagnostic d = op->emitError();
  if (StringRef node = nodeName(op.getLoc()); !node.empty())
    d << "node '" << node << "' (" << op.getOpName() << "): ";
  else
    d << op.getOpName() << ": ";
  return d;
}

LogicalResult RuleContext::fail(const llvm::Twine &message) const {
  return error() << message;
}

LogicalResult RuleContext::wrapDim(int64_t dim, int64_t rank, StringRef what,
                                   int64_t &out) const {
  int64_t r = std::max<int64_t>(rank, 1); // a 0-dim tensor takes -1 and 0
  if (dim < -r || dim >= r)
    return error() << what << " " << dim << " is out of range for a tensor of rank "
                   << rank << " (expected " << -r << ".." << r - 1 << ")";
  out = dim < 0 ? dim + r : dim;
  return mlir::success();
}

LogicalResult RuleContext::dimArg(StringRef name, int64_t rank, int64_t &out) const {
  return wrapDim(getInt(name), rank, name, out);
}

LogicalResult RuleContext::dimListArg(StringRef name, int64_t rank, Shape &out) const {
  Shape given;
  if (std::optional<int64_t> d = optInt(name))
    given.push_back(*d);
  else
    given = getInts(name);
  return wrapDims(given, rank, name, out);
}

LogicalResult RuleContext::wrapDims(ArrayRef<int64_t> dims, int64_t rank,
                                    StringRef what, Shape &out,
                                    bool allowDuplicates) const {
  out.clear();
  int64_t r = std::max<int64_t>(rank, 1);
  for (int64_t d : dims) {
    if (d < -r || d >= r)
      return error() << "dim " << d << " in " << what << " " << describeShape(dims)
                     << " is out of range for a tensor of rank " << rank
                     << " (expected " << -r << ".." << r - 1 << ")";
    int64_t w = d < 0 ? d + r : d;
    if (!allowDuplicates && llvm::is_contained(out, w))
      return error() << "dim " << w << " appears more than once in " << what
                     << " " << describeShape(dims);
    out.push_back(w);
  }
  return mlir::success();
}

LogicalResult RuleContext::broadcast(ArrayRef<ArrayRef<int64_t>> shapes,
                                     ArrayRef<StringRef> names, Shape &out) const {
  size_t rank = 0;
  for (ArrayRef<int64_t> s : shapes)
    rank = std::max(rank, s.size());
  out.assign(rank, 1);
  SmallVector<int64_t> from(rank, -1); // which input set each dim
  for (auto [k, s] : llvm::enumerate(shapes)) {
    for (size_t i = 0; i < s.size(); ++i) {
      size_t o = rank - s.size() + i;
      int64_t d = s[i];
      if (d == 1)
        continue;
      if (out[o] == 1 || from[o] < 0) {
        out[o] = d;
        from[o] = k;
        continue;
      }
      if (out[o] != d)
        return error() << "shapes do not broadcast: '" << names[from[o]] << "' "
                       << describeShape(shapes[from[o]]) << " and '" << names[k]
                       << "' " << describeShape(s) << " differ at dim " << o
                       << " of the result (" << out[o] << " vs " << d << ")";
    }
  }
  return mlir::success();
}

LogicalResult RuleContext::require(StringRef name, RankedTensorType &out) const {
  out = type(name);
  if (!out)
    return fail("tensor argument '" + name + "' is missing");
  return mlir::success();
}

LogicalResult RuleContext::requireRank(StringRef name, RankedTensorType t,
                                       int64_t lo, int64_t hi) const {
  int64_t r = t.getRank();
  if (r >= lo && r <= hi)
    return mlir::success();
  InFlightDiagnostic d = error();
  d << "'" << name << "' must have ";
  if (lo == hi)
    d << lo << " dims";
  else if (hi >= kMaxTensorRank)
    d << "at least " << lo << " dims";
  else
    d << lo << " to " << hi << " dims";
  return d << ", got " << describe(t);
}

LogicalResult RuleContext::checkPieces(int64_t n) const {
  int64_t most = op->getNumResults() + op->getNumOperands();
  if (n <= most)
    return mlir::success();
  return error() << "the operator produces " << n
                 << " tensors here, more than the op declares";
}

LogicalResult RuleContext::sameDtype(StringRef a, RankedTensorType at, StringRef b,
                                     RankedTensorType bt) const {
  if (at.getElementType() == bt.getElementType())
    return mlir::success();
  return error() << "'" << a << "' and '" << b << "' must have the same dtype, got "
                 << dtypeName(at.getElementType()) << " and "
                 << dtypeName(bt.getElementType());
}

LogicalResult requireSelfAndDim(RuleContext &c, RankedTensorType &t, int64_t &dim) {
  if (failed(c.require("self", t)) || failed(c.requireRank("self", t, 1, kMaxTensorRank)))
    return mlir::failure();
  return c.dimArg("dim", t.getRank(), dim);
}

LogicalResult sameAsSelf(RuleContext &c) {
  RankedTensorType t;
  if (failed(c.require("self", t)))
    return mlir::failure();
  c.produce(Spec::like(t));
  return mlir::success();
}

LogicalResult declaredResults(RuleContext &c) {
  for (unsigned i = 0, e = c.getOp()->getNumResults(); i < e; ++i)
    c.produce(Spec::anyRank({}));
  return mlir::success();
}

void addRules(RuleTable &t, std::initializer_list<const char *> names, RuleFn fn) {
  for (const char *n : names) {
    StringRef name(n);
    if (name.contains("::"))
      t[name] = fn;
    else
      t[("aten::" + name).str()] = fn;
  }
}

} // namespace ptec::exir::rules
