//===- ExirOps.cpp - exir operation verifiers and helpers -----------------===//
//
// The ops' own checks and accessors, with exir.aten's schema half
// (AtenOp::verifySchema). Dependencies point one way: the shape rules
// (ShapeRules*.cpp) read ops through these accessors, so nothing here calls
// the shape rules. AtenOp::verify, which runs both, is in AtenOpVerify.cpp,
// above the two.
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace ptec::exir;
namespace schema = ptec::schema;

//===----------------------------------------------------------------------===//
// WeightOp
//===----------------------------------------------------------------------===//

LogicalResult WeightOp::verify() {
  if (!llvm::is_contained({"parameter", "buffer", "constant"}, getKind()))
    return emitOpError("kind must be parameter, buffer or constant, got '")
           << getKind() << "'";
  if (!llvm::isa<RankedTensorType>(getValue().getType()))
    return emitOpError("value must be a ranked tensor");
  if (getIsMutable() && getKind() != "buffer")
    return emitOpError("only buffers can be mutable");
  return success();
}

//===----------------------------------------------------------------------===//
// AtenOp
//===----------------------------------------------------------------------===//

void AtenOp::build(OpBuilder &b, OperationState &state, StringRef opName,
                   TypeRange resultTypes, ValueRange inputs,
                   ArrayRef<int32_t> segments, ArrayRef<NamedAttribute> args) {
  build(b, state, b.getStringAttr(opName), resultTypes, inputs, segments, args);
}

void AtenOp::build(OpBuilder &b, OperationState &state, StringAttr opName,
                   TypeRange resultTypes, ValueRange inputs,
                   ArrayRef<int32_t> segments, ArrayRef<NamedAttribute> args) {
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  state.getOrAddProperties<Properties>().op_name = opName;
  state.getOrAddProperties<Properties>().operand_segments =
      b.getDenseI32ArrayAttr(segments);
  state.addAttributes(args);
}

const schema::FunctionSchema *ExirDialect::lookupSchema(StringAttr opName) {
  bool threads = getContext()->isMultithreadingEnabled();
  {
    std::optional<llvm::sys::SmartScopedReader<true>> lock;
    if (threads)
      lock.emplace(schemaCacheMutex);
    auto it = schemaCache.find(opName);
    if (it != schemaCache.end())
      return it->second;
  }
  const schema::FunctionSchema *s =
      schema::OperatorRegistry::builtin().lookup(opName.getValue().str());
  if (s) {
    std::optional<llvm::sys::SmartScopedWriter<true>> lock;
    if (threads)
      lock.emplace(schemaCacheMutex);
    schemaCache.try_emplace(opName, s);
  }
  return s;
}

const schema::FunctionSchema *AtenOp::getSchema() {
  return llvm::cast<ExirDialect>((*this)->getDialect())->lookupSchema(getOpNameAttr());
}

static bool isTensorArg(const schema::Argument &a) {
  return a.type.isTensorLike();
}

unsigned AtenOp::getNumTensorInputs() {
  int64_t n = 0;
  for (int32_t seg : getOperandSegments())
    n += std::max<int32_t>(seg, 0);
  return static_cast<unsigned>(std::min<int64_t>(n, getInputs().size()));
}

ArrayAttr AtenOp::getSymArgs() {
  return (*this)->getAttrOfType<ArrayAttr>(kSymArgsAttrName);
}

OperandRange AtenOp::getArgOperands(unsigned argIndex) {
  const schema::FunctionSchema *s = getSchema();
  ArrayRef<int32_t> segs = getOperandSegments();
  unsigned seg = 0, start = 0;
  for (unsigned i = 0; s && i < s->arguments.size(); ++i) {
    if (!isTensorArg(s->arguments[i]))
      continue;
    if (seg >= segs.size())
      break;
    if (i == argIndex)
      return getInputs().slice(start, segs[seg]);
    start += segs[seg++];
  }
  return getInputs().slice(0, 0);
}

int AtenOp::getSchemaArgForOperand(unsigned operandIndex) {
  const schema::FunctionSchema *s = getSchema();
  if (!s)
    return -1;
  ArrayRef<int32_t> segs = getOperandSegments();
  unsigned seg = 0, start = 0;
  for (unsigned i = 0; i < s->arguments.size(); ++i) {
    if (!isTensorArg(s->arguments[i]))
      continue;
    if (seg >= segs.size())
      return -1;
    if (operandIndex < start + segs[seg])
      return i;
    start += segs[seg++];
  }
  return -1;
}

Value AtenOp::getAliasedOperand(unsigned resultIndex) {
  const schema::FunctionSchema *s = getSchema();
  if (!s || resultIndex >= s->returns.size())
    return {};
  const schema::AliasInfo *ret = s->returns[resultIndex].alias();
  if (!ret || ret->beforeSets.empty())
    return {};
  for (unsigned i = 0; i < s->arguments.size(); ++i) {
    const schema::AliasInfo *arg = s->arguments[i].alias();
    if (!arg || !isTensorArg(s->arguments[i]))
      continue;
    for (const std::string &set : ret->beforeSets) {
      if (set == "*" || !llvm::is_contained(arg->beforeSets, set))
        continue;
      OperandRange operands = getArgOperands(i);
      return operands.size() == 1 ? operands.front() : Value();
    }
  }
  return {};
}

int ptec::exir::getInplaceOperand(Operation *op) {
  auto attr = op->getAttrOfType<IntegerAttr>(kInplaceOfAttrName);
  if (!attr || op->getNumResults() != 1 || attr.getInt() < 0 ||
      attr.getInt() >= static_cast<int64_t>(op->getNumOperands()))
    return -1;
  return static_cast<int>(attr.getInt());
}

Value ptec::exir::getStorageRoot(Value v) {
  while (auto op = v.getDefiningOp<AtenOp>()) {
    int inplace = getInplaceOperand(op);
    Value aliased =
        inplace >= 0 ? op->getOperand(inplace)
                     : op.getAliasedOperand(llvm::cast<OpResult>(v).getResultNumber());
    if (!aliased)
      break;
    v = aliased;
  }
  return v;
}

/// Is `attr` an acceptable value for a non-tensor schema type?
static bool attrMatchesType(Attribute attr, const schema::SchemaType &t) {
  using K = schema::TypeKind;
  if (llvm::isa<NoneAttr>(attr))
    return t.kind == K::Optional || t.kind == K::NoneType || t.kind == K::Any;
  switch (t.kind) {
  case K::Optional:
    return attrMatchesType(attr, t.elems.front());
  case K::Int:
  case K::SymInt:
  case K::DeviceIndex:
    return llvm::isa<IntegerAttr>(attr) && !llvm::isa<BoolAttr>(attr);
  case K::Float:
    return llvm::isa<FloatAttr, IntegerAttr>(attr) && !llvm::isa<BoolAttr>(attr);
  case K::Bool:
  case K::SymBool:
    return llvm::isa<BoolAttr>(attr);
  case K::Scalar:
  case K::Complex:
    return llvm::isa<IntegerAttr, FloatAttr, BoolAttr>(attr);
  case K::Str:
  case K::Layout:
  case K::MemoryFormat:
  case K::Device:
  case K::Dimname:
    return llvm::isa<StringAttr>(attr);
  case K::ScalarType:
    return llvm::isa<TypeAttr>(attr);
  case K::List: {
    const schema::SchemaType &e = t.elems.front();
    if (e.kind == K::Int || e.kind == K::SymInt)
      return llvm::isa<DenseI64ArrayAttr>(attr);
    if (e.kind == K::Float)
      return llvm::isa<DenseF64ArrayAttr>(attr);
    if (e.kind == K::Bool)
      return llvm::isa<DenseBoolArrayAttr>(attr);
    return llvm::isa<ArrayAttr>(attr);
  }
  default:
    return true; // Generators, custom classes: not constrained here.
  }
}

bool ptec::exir::parseSymArg(StringRef entry, StringRef &name, int64_t &index) {
  index = -1;
  name = entry;
  if (!entry.ends_with("]"))
    return !entry.empty() && !entry.contains('[');
  auto [base, rest] = entry.drop_back().split('[');
  name = base;
  return !base.empty() && !rest.getAsInteger(10, index) && index >= 0;
}

/// Symbolic-int operands: one `exir.sym_args` entry each, naming an int
/// argument (or an element inside an int list attribute's range).
static LogicalResult verifySymArgs(AtenOp op, const schema::FunctionSchema &s) {
  auto syms = op.getSymOperands();
  ArrayAttr binds = op.getSymArgs();
  size_t nBinds = binds ? binds.size() : 0;
  if (nBinds != syms.size())
    return op.emitOpError("has ") << syms.size() << " symbolic operands but "
                                  << kSymArgsAttrName << " binds " << nBinds;
  if (nBinds == 0)
    return success();
  for (auto [v, a] : llvm::zip(syms, binds.getValue())) {
    if (!v.getType().isInteger(64))
      return op.emitOpError("symbolic operands must be i64, got ") << v.getType();
    auto entry = llvm::dyn_cast<StringAttr>(a);
    StringRef name;
    int64_t index;
    if (!entry || !parseSymArg(entry.getValue(), name, index))
      return op.emitOpError(kSymArgsAttrName) << " entry " << a
                                              << " is not \"name\" or \"name[k]\"";
    int argIdx = s.findArgument(name);
    if (argIdx < 0 || isTensorArg(s.arguments[argIdx]))
      return op.emitOpError(kSymArgsAttrName)
             << " names '" << name << "', which is not a non-tensor argument of '"
             << op.getOpName() << "'";
    Attribute attr = op->getAttr(name);
    if (index < 0 ? !llvm::isa_and_nonnull<IntegerAttr>(attr)
                  : !llvm::isa_and_nonnull<DenseI64ArrayAttr>(attr) ||
                        index >= llvm::cast<DenseI64ArrayAttr>(attr).size())
      return op.emitOpError(kSymArgsAttrName)
             << " entry '" << entry.getValue() << "' does not name an int"
             << (index < 0 ? "" : " list element") << " of the op";
  }
  return success();
}

LogicalResult SymSizeOp::verify() {
  int64_t rank = getInput().getType().getRank();
  if (getDim() < 0 || getDim() >= rank)
    return emitOpError("dim ") << getDim() << " is out of range for a rank-"
                               << rank << " tensor";
  return success();
}

LogicalResult SymItemOp::verify() {
  RankedTensorType t = getInput().getType();
  if (!t.hasStaticShape() || t.getNumElements() != 1)
    return emitOpError("needs a tensor of exactly one element, got ") << t;
  if (!t.getElementType().isSignlessInteger() || t.getElementType().isInteger(1))
    return emitOpError("needs an integer tensor (a symbolic int), got ") << t.getElementType();
  return success();
}

LogicalResult SymOp::verify() {
  StringRef fn = getFn();
  size_t want = fn == "neg" ? 1 : 2;
  static const StringRef kFns[] = {"add", "sub", "mul",  "floordiv",
                                   "mod", "max", "min", "neg"};
  bool known = llvm::is_contained(kFns, fn);
  if (!known)
    return emitOpError("unknown symbolic function '") << fn << "'";
  if (getArgs().size() != want)
    return emitOpError("'") << fn << "' takes " << want << " operands, got "
                            << getArgs().size();
  return success();
}

LogicalResult AtenOp::verifySchema() {
  const schema::FunctionSchema *s = getSchema();
  if (!s)
    return emitOpError("unknown operator '")
           << getOpName() << "': ptec does not know it";
  if (Attribute a = (*this)->getAttr(kInplaceOfAttrName)) {
    int idx = getInplaceOperand(*this);
    if (!llvm::isa<IntegerAttr>(a) || idx < 0)
      return emitOpError(kInplaceOfAttrName)
             << " must be the index of an operand of an op with one result";
    if (getOperand(idx).getType() != getResult(0).getType())
      return emitOpError(kInplaceOfAttrName)
             << " names operand " << idx << " of type "
             << getOperand(idx).getType() << ", but the result is "
             << getResult(0).getType();
  }

  // Tensor-like arguments and their operand segments.
  ArrayRef<int32_t> segs = getOperandSegments();
  unsigned numTensorArgs = 0;
  int64_t total = 0;
  for (const schema::Argument &a : s->arguments) {
    if (!isTensorArg(a))
      continue;
    if (numTensorArgs >= segs.size())
      return emitOpError("operand_segments has ")
             << segs.size() << " entries but '" << getOpName()
             << "' has more tensor arguments (missing '" << a.name << "')";
    int32_t n = segs[numTensorArgs++];
    if (n < 0)
      return emitOpError("negative operand count for argument '") << a.name << "'";
    total += n;
    using K = schema::TypeKind;
    const schema::SchemaType &t = a.type;
    if (t.kind == K::Tensor && n != 1)
      return emitOpError("argument '") << a.name << "' is a Tensor and needs "
                                          "exactly one operand, got " << n;
    if (t.kind == K::Optional && t.elems.front().kind == K::Tensor && n > 1)
      return emitOpError("argument '") << a.name << "' is a Tensor? and takes "
                                          "at most one operand, got " << n;
    bool optList = t.kind == K::List && t.elems.front().kind == K::Optional;
    if (optList) {
      auto mask = (*this)->getAttrOfType<DenseBoolArrayAttr>(a.name);
      if (!mask)
        return emitOpError("argument '") << a.name
               << "' (Tensor?[]) needs a presence mask attribute of the same name";
      int64_t present = llvm::count(mask.asArrayRef(), true);
      if (present != n)
        return emitOpError("argument '") << a.name << "' mask marks " << present
               << " present tensors but has " << n << " operands";
    }
  }
  if (numTensorArgs != segs.size())
    return emitOpError("operand_segments has ")
           << segs.size() << " entries but '" << getOpName() << "' has "
           << numTensorArgs << " tensor arguments";
  if (total > static_cast<int64_t>(getInputs().size()))
    return emitOpError("operand_segments add up to ")
           << total << " but the op has " << getInputs().size() << " operands";
  for (Value v : getTensorInputs())
    if (!llvm::isa<TensorType>(v.getType()))
      return emitOpError("operands must be tensors, got ") << v.getType();
  if (failed(verifySymArgs(*this, *s)))
    return failure();

  // Non-tensor arguments: present (or defaulted) and of a matching kind.
  for (const schema::Argument &a : s->arguments) {
    if (isTensorArg(a))
      continue;
    Attribute attr = (*this)->getAttr(a.name);
    if (!attr) {
      if (!a.defaultValue)
        return emitOpError("missing required argument '")
               << a.name << "' of '" << getOpName() << "'";
      continue;
    }
    if (!attrMatchesType(attr, a.type))
      return emitOpError("argument '")
             << a.name << "' expects " << a.type.str() << ", got " << attr;
  }
  // No stray un-namespaced attributes: they would be silently ignored.
  for (NamedAttribute na : (*this)->getDiscardableAttrs()) {
    StringRef name = na.getName().getValue();
    if (name.contains('.'))
      continue;
    if (s->findArgument(name) < 0)
      return emitOpError("'") << getOpName() << "' has no argument named '"
                              << name << "'";
  }

  // Results.
  bool listReturn = s->returns.size() == 1 &&
                    s->returns.front().type.kind == schema::TypeKind::List;
  if (!listReturn && !s->varRets &&
      getNumResults() != static_cast<unsigned>(s->returns.size()))
    return emitOpError("'") << getOpName() << "' returns " << s->returns.size()
                            << " values, op has " << getNumResults() << " results";
  return success();
}

void AtenOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  const schema::FunctionSchema *s = getSchema();
  if (!s) {
    // Unknown operator: assume it reads and writes everything it touches.
    for (OpOperand &o : (*this)->getOpOperands()) {
      effects.emplace_back(MemoryEffects::Read::get(), &o);
      effects.emplace_back(MemoryEffects::Write::get(), &o);
    }
    return;
  }
  // Every operator reads its tensor operands: once some op writes storage in
  // place (an in-place or out-variant op, or one re-inplacing marked), a
  // reader must not move across that write, so even functional ops declare
  // their reads. Read-only ops still fold away when unused.
  int inplace = getInplaceOperand(*this);
  for (OpOperand &o : (*this)->getOpOperands()) {
    int arg = getSchemaArgForOperand(o.getOperandNumber());
    effects.emplace_back(MemoryEffects::Read::get(), &o);
    if (arg < 0 || s->arguments[arg].isWrite() ||
        static_cast<int>(o.getOperandNumber()) == inplace)
      effects.emplace_back(MemoryEffects::Write::get(), &o);
  }
}

//===----------------------------------------------------------------------===//
// CopyOp
//===----------------------------------------------------------------------===//

LogicalResult CopyOp::verify() {
  auto dst = llvm::dyn_cast<ShapedType>(getDst().getType());
  auto src = llvm::dyn_cast<ShapedType>(getSrc().getType());
  if (!dst || !src)
    return emitOpError("operands must be tensors");
  if (dst.getElementType() != src.getElementType())
    return emitOpError("element type mismatch: destination ")
           << dst.getElementType() << ", source " << src.getElementType();
  if (dst.hasStaticShape() && src.hasStaticShape() &&
      dst.getShape() != src.getShape())
    return emitOpError("shape mismatch: destination ")
           << dst << ", source " << src;
  return success();
}

//===----------------------------------------------------------------------===//
// DelegateRegionOp
//===----------------------------------------------------------------------===//

LogicalResult DelegateRegionOp::verify() {
  auto yield = llvm::cast<YieldOp>(getBody().front().getTerminator());
  if (!llvm::equal(yield.getValues().getTypes(), getResultTypes()))
    return emitOpError("yielded types do not match the region's result types");
  return success();
}

//===----------------------------------------------------------------------===//
// DelegateCallOp
//===----------------------------------------------------------------------===//

LogicalResult
DelegateCallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto callee = symbolTable.lookupNearestSymbolFrom<LoweredModuleOp>(
      *this, getCalleeAttr());
  if (!callee)
    return emitOpError("'") << getCallee()
                            << "' does not name an exir.lowered_module";
  FunctionType ft = callee.getFunctionType();
  if (!llvm::equal(ft.getInputs(), getOperands().getTypes()) ||
      !llvm::equal(ft.getResults(), getResultTypes()))
    return emitOpError("call types do not match lowered module '")
           << getCallee() << "' of type " << ft;
  return success();
}

#define GET_OP_CLASSES
#include "dialects/exir/IR/ExirOps.cpp.inc"
