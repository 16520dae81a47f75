//===- Emitter.cpp - exir IR to an ExecuTorch program ---------------------===//
//
// Conventions (spec/pte-format.md section 4): one chain per method; values in
// definition order; scalars get a fresh value at each use; KernelCall args are
// every schema argument in schema order followed by the return(s); out and
// in-place results reuse their storage's value; buffer-mutation outputs are
// gone (write-back placement turned them into exir.copy_).
//
//===----------------------------------------------------------------------===//

#include "emitter/Emitter.h"
#include "emitter/MethodEmitter.h"

#include <functional>

#include "dialects/exir/IR/Dynamism.h"
#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>

namespace ptec {

using namespace mlir;
namespace fb = executorch_flatbuffer;

namespace {

/// .pte ScalarType of an MLIR element type, or nullopt.
std::optional<fb::ScalarType> scalarTypeOf(Type t) {
  if (t.isF32()) return fb::ScalarType::FLOAT;
  if (t.isF64()) return fb::ScalarType::DOUBLE;
  if (t.isF16()) return fb::ScalarType::HALF;
  if (t.isBF16()) return fb::ScalarType::BFLOAT16;
  if (auto i = llvm::dyn_cast<IntegerType>(t)) {
    unsigned w = i.getWidth();
    if (w == 1) return fb::ScalarType::BOOL;
    if (i.isUnsigned())
      return w == 8 ? std::optional(fb::ScalarType::BYTE)
             : w == 16 ? std::optional(fb::ScalarType::UINT16)
             : w == 32 ? std::optional(fb::ScalarType::UINT32)
             : w == 64 ? std::optional(fb::ScalarType::UINT64)
                       : std::nullopt;
    switch (w) {
    case 8: return fb::ScalarType::CHAR;
    case 16: return fb::ScalarType::SHORT;
    case 32: return fb::ScalarType::INT;
    case 64: return fb::ScalarType::LONG;
    }
  }
  return std::nullopt;
}

/// Splits "aten::add.out" into ("aten::add", "out"); no overload -> "".
std::pair<std::string, std::string> splitOpName(llvm::StringRef full) {
  size_t ns = full.find("::");
  size_t dot = full.find('.', ns == llvm::StringRef::npos ? 0 : ns + 2);
  if (dot == llvm::StringRef::npos)
    return {full.str(), ""};
  return {full.substr(0, dot).str(), full.substr(dot + 1).str()};
}

} // namespace

namespace emit {

/// The first name a location carries (the importer names each node's
/// location after the node), or "".
static std::string nameIn(Location loc) {
  if (auto n = llvm::dyn_cast<NameLoc>(loc))
    return n.getName().str();
  if (auto f = llvm::dyn_cast<FusedLoc>(loc))
    for (Location l : f.getLocations())
      if (std::string s = nameIn(l); !s.empty())
        return s;
  if (auto c = llvm::dyn_cast<CallSiteLoc>(loc))
    return nameIn(c.getCallee());
  return "";
}

FailureOr<int32_t> MethodEmitter::addTensor(Location loc, Type type,
                                            exir::MemAttr mem,
                                            uint32_t dataBufferIdx,
                                            llvm::StringRef fqn,
                                            const std::string &what) {
  auto rt = llvm::dyn_cast<RankedTensorType>(type);
  if (!rt || !rt.hasStaticShape())
    return emitError(loc, "cannot emit a value of type ")
           << type << ": only statically shaped tensors are supported";
  std::optional<fb::ScalarType> st = scalarTypeOf(rt.getElementType());
  if (!st)
    return emitError(loc, "element type ")
           << rt.getElementType() << " has no ExecuTorch scalar type";
  fb::TensorT t;
  t.scalar_type = *st;
  for (int64_t d : rt.getShape()) {
    if (d > INT32_MAX) {
      std::string who = what;
      if (who.empty() && !fqn.empty())
        who = "'" + fqn.str() + "'";
      if (std::string node = nameIn(loc); who.empty() && !node.empty())
        who = "the result of node '" + node + "'";
      return emitError(loc, "dimension ")
             << d << " of " << (who.empty() ? std::string("a tensor") : who) << ", of type "
             << type << ", does not fit in int32, the size type of the .pte format";
    }
    t.sizes.push_back(static_cast<int32_t>(d));
  }
  for (unsigned i = 0; i < rt.getRank(); ++i)
    t.dim_order.push_back(static_cast<uint8_t>(i));
  t.data_buffer_idx = dataBufferIdx;
  if (mem) {
    auto a = std::make_unique<fb::AllocationDetailsT>();
    a->memory_id = static_cast<uint32_t>(mem.getId());
    uint64_t off = static_cast<uint64_t>(mem.getOffset());
    a->memory_offset_low = static_cast<uint32_t>(off & 0xffffffffu);
    a->memory_offset_high = static_cast<uint32_t>(off >> 32);
    t.allocation_info = std::move(a);
  }
  if (options_.emitStateNames && mem && dataBufferIdx > 0 && !fqn.empty()) {
    t.extra_tensor_info = std::make_unique<fb::ExtraTensorInfoT>();
    t.extra_tensor_info->fully_qualified_name = fqn.str();
  }
  return addValue(std::move(t));
}

FailureOr<int32_t> MethodEmitter::valueOf(Location loc, Value v) {
  // An aliasing view has a value of its own (its shape, the same storage).
  if (auto own = values_.find(v); own != values_.end())
    return own->second;
  // Out-variant, in-place and view results live in their operand's storage.
  auto it = values_.find(exir::getStorageRoot(v));
  if (it != values_.end())
    return it->second;
  return emitError(loc, "value has no storage in the program; was the module "
                        "lowered to out-variants and planned?");
}

/// One non-tensor schema argument as a fresh value (scalars are never
/// shared between uses, as upstream does).
/// A static reshape (exir-alias-views): over planned storage, a tensor value
/// with the view's shape at the same place and no instruction; otherwise an
/// executorch_prim::et_view call that points an unplanned value at the
/// source's data at run time (spec section 4, "Special instructions").
LogicalResult MethodEmitter::emitView(exir::AtenOp op) {
  Location loc = op.getLoc();
  FailureOr<int32_t> src = valueOf(loc, op->getOperand(0));
  if (failed(src))
    return failure();
  const fb::TensorT *srcTensor = plan_->values[*src]->val.AsTensor();
  if (!srcTensor)
    return op.emitError("view of a value that is not a tensor");
  FailureOr<int32_t> view = addTensor(loc, op->getResult(0).getType(), {}, 0);
  if (failed(view))
    return failure();
  values_[op->getResult(0)] = *view;
  markDynamic(op->getResult(0), *view);
  // A run-time shape needs the instruction: et_view resizes the view from
  // its size list (symbolic entries read at run time) and points it at the
  // source's data.
  bool runtimeShape = dynamic_.contains(op->getResult(0)) || !op.getSymOperands().empty();
  if (srcTensor->allocation_info && !runtimeShape) {
    plan_->values[*view]->val.AsTensor()->allocation_info =
        std::make_unique<fb::AllocationDetailsT>(*srcTensor->allocation_info);
    return success();
  }
  FailureOr<llvm::StringMap<int32_t>> syms = symBindings(op);
  if (failed(syms))
    return failure();
  fb::KernelCallT call;
  call.op_index = operatorIndex("executorch_prim::et_view", "default");
  fb::IntListT size;
  // The size list as written (a -1 is inferred at run time), else the type's.
  ArrayRef<int64_t> shape = llvm::cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  if (auto written = op->getAttrOfType<DenseI64ArrayAttr>("size"))
    if (written.size() == shape.size())
      shape = written.asArrayRef();
  for (auto [k, d] : llvm::enumerate(shape)) {
    auto sym = syms->find(("size[" + llvm::Twine(k) + "]").str());
    size.items.push_back(sym != syms->end() ? sym->second : addInt(d));
  }
  call.args = {*src, addValue(std::move(size)), *view};
  fb::InstructionArgumentsUnion u;
  u.Set(std::move(call));
  addInstruction(std::move(u));
  return success();
}

FailureOr<int32_t> MethodEmitter::addArgValue(Location loc, Attribute attr,
                                              const schema::Argument &arg) {
  if (!attr || llvm::isa<exir::NoneAttr>(attr))
    return addNull();
  if (auto b = llvm::dyn_cast<BoolAttr>(attr))
    return addBool(b.getValue());
  if (auto i = llvm::dyn_cast<IntegerAttr>(attr)) {
    using K = schema::TypeKind;
    const schema::SchemaType *t = &arg.type;
    if (t->kind == K::Optional)
      t = &t->elems.front();
    if (t->kind == K::Float)
      return addDouble(static_cast<double>(i.getInt()));
    return addInt(i.getInt());
  }
  if (auto f = llvm::dyn_cast<FloatAttr>(attr))
    return addDouble(f.getValueAsDouble());
  if (auto s = llvm::dyn_cast<StringAttr>(attr)) {
    // Layouts, memory formats and devices travel as ints / strings.
    using K = schema::TypeKind;
    const schema::SchemaType *t = &arg.type;
    if (t->kind == K::Optional)
      t = &t->elems.front();
    if (t->kind == K::Layout)
      return addInt(s.getValue() == "strided" ? 0 : 1);
    if (t->kind == K::MemoryFormat) {
      int64_t v = llvm::StringSwitch<int64_t>(s.getValue())
                      .Case("contiguous_format", 0)
                      .Case("preserve_format", 1)
                      .Case("channels_last", 2)
                      .Case("channels_last_3d", 3)
                      .Default(-1);
      if (v < 0)
        return emitError(loc, "unknown memory format '") << s.getValue() << "'";
      return addInt(v);
    }
    return addString(s.getValue());
  }
  if (auto ty = llvm::dyn_cast<TypeAttr>(attr)) {
    std::optional<fb::ScalarType> st = scalarTypeOf(ty.getValue());
    if (!st)
      return emitError(loc, "dtype ") << ty.getValue()
                                      << " has no ExecuTorch scalar type";
    return addInt(static_cast<int64_t>(*st));
  }
  if (auto ints = llvm::dyn_cast<DenseI64ArrayAttr>(attr)) {
    fb::IntListT list;
    for (int64_t v : ints.asArrayRef())
      list.items.push_back(addInt(v));
    return addValue(std::move(list));
  }
  if (auto ds = llvm::dyn_cast<DenseF64ArrayAttr>(attr)) {
    fb::DoubleListT list;
    list.items.assign(ds.asArrayRef().begin(), ds.asArrayRef().end());
    return addValue(std::move(list));
  }
  if (auto bs = llvm::dyn_cast<DenseBoolArrayAttr>(attr)) {
    fb::BoolListT list;
    for (bool v : bs.asArrayRef())
      list.items.push_back(v);
    return addValue(std::move(list));
  }
  return emitError(loc, "cannot emit argument '")
         << arg.name << "' with value " << attr;
}

int32_t MethodEmitter::operatorIndex(const std::string &name,
                                     const std::string &overload) {
  auto key = std::make_pair(name, overload);
  auto it = operators_.find(key);
  if (it != operators_.end())
    return it->second;
  auto op = std::make_unique<fb::OperatorT>();
  op->name = name;
  op->overload = overload;
  plan_->operators.push_back(std::move(op));
  int32_t idx = static_cast<int32_t>(plan_->operators.size() - 1);
  operators_[key] = idx;
  return idx;
}

LogicalResult MethodEmitter::emitAten(exir::AtenOp op) {
  const schema::FunctionSchema *s = op.getSchema();
  if (!s)
    return op.emitError("unknown operator '") << op.getOpName() << "'";
  if (!s->isMutable())
    return op.emitError("'") << op.getOpName()
                             << "' is functional; run exir-to-out-variants "
                                "before emitting";
  Location loc = op.getLoc();
  FailureOr<llvm::StringMap<int32_t>> syms = symBindings(op);
  if (failed(syms))
    return failure();
  fb::KernelCallT call;
  auto [name, overload] = splitOpName(op.getOpName());
  call.op_index = operatorIndex(name, overload);

  for (unsigned i = 0; i < s->arguments.size(); ++i) {
    const schema::Argument &arg = s->arguments[i];
    using K = schema::TypeKind;
    if (!arg.type.isTensorLike()) {
      Attribute attr = op->getAttr(arg.name);
      if (!attr && arg.defaultValue) {
        // Schema default (the importer normally fills these in).
        const schema::DefaultValue &d = *arg.defaultValue;
        Builder b(op.getContext());
        switch (d.kind) {
        case schema::DefaultValue::Kind::None: attr = exir::NoneAttr::get(op.getContext()); break;
        case schema::DefaultValue::Kind::Bool: attr = b.getBoolAttr(d.b); break;
        case schema::DefaultValue::Kind::Int: attr = b.getI64IntegerAttr(d.i); break;
        case schema::DefaultValue::Kind::Double: attr = b.getF64FloatAttr(d.d); break;
        case schema::DefaultValue::Kind::String: attr = b.getStringAttr(d.s); break;
        case schema::DefaultValue::Kind::IntList: attr = b.getDenseI64ArrayAttr(d.ints); break;
        case schema::DefaultValue::Kind::DoubleList: attr = b.getDenseF64ArrayAttr(d.doubles); break;
        case schema::DefaultValue::Kind::Enum: call.args.push_back(addInt(d.i)); continue;
        default: return op.emitError("unsupported default for '") << arg.name << "'";
        }
      }
      // A symbolic int (or list with some) refers to the value the prim ops
      // compute at run time; the attribute holds only its upper bound.
      if (auto it = syms->find(arg.name); it != syms->end()) {
        call.args.push_back(it->second);
        continue;
      }
      if (auto ints = llvm::dyn_cast_or_null<DenseI64ArrayAttr>(attr);
          ints && !syms->empty()) {
        fb::IntListT list;
        bool bound = false;
        for (auto [k, v] : llvm::enumerate(ints.asArrayRef())) {
          auto it = syms->find((arg.name + "[" + std::to_string(k) + "]"));
          bound |= it != syms->end();
          list.items.push_back(it != syms->end() ? it->second : addInt(v));
        }
        if (bound) {
          call.args.push_back(addValue(std::move(list)));
          continue;
        }
      }
      FailureOr<int32_t> idx = addArgValue(loc, attr, arg);
      if (failed(idx))
        return failure();
      call.args.push_back(*idx);
      continue;
    }
    OperandRange operands = op.getArgOperands(i);
    const schema::SchemaType &t = arg.type;
    bool isList = t.kind == K::List ||
                  (t.kind == K::Optional && t.elems.front().kind == K::List);
    if (!isList) {
      if (operands.empty()) {
        call.args.push_back(addNull());
        continue;
      }
      FailureOr<int32_t> idx = valueOf(loc, operands.front());
      if (failed(idx))
        return failure();
      call.args.push_back(*idx);
      continue;
    }
    const schema::SchemaType &elem =
        t.kind == K::List ? t.elems.front() : t.elems.front().elems.front();
    if (elem.kind == K::Optional) {
      fb::OptionalTensorListT list;
      auto mask = op->getAttrOfType<DenseBoolArrayAttr>(arg.name);
      unsigned next = 0;
      for (bool present : mask.asArrayRef()) {
        if (!present) {
          list.items.push_back(-1);
          continue;
        }
        FailureOr<int32_t> idx = valueOf(loc, operands[next++]);
        if (failed(idx))
          return failure();
        list.items.push_back(*idx);
      }
      call.args.push_back(addValue(std::move(list)));
    } else {
      fb::TensorListT list;
      for (Value v : operands) {
        FailureOr<int32_t> idx = valueOf(loc, v);
        if (failed(idx))
          return failure();
        list.items.push_back(*idx);
      }
      call.args.push_back(addValue(std::move(list)));
    }
  }

  // Returns: one value, or one TensorList holding several.
  SmallVector<int32_t> rets;
  for (Value r : op->getResults()) {
    FailureOr<int32_t> idx = valueOf(loc, r);
    if (failed(idx))
      return failure();
    rets.push_back(*idx);
  }
  if (s->returns.size() == 1 && s->returns.front().type.kind != schema::TypeKind::List) {
    if (rets.size() != 1)
      return op.emitError("expected one result");
    call.args.push_back(rets.front());
  } else if (!s->returns.empty()) {
    fb::TensorListT list;
    list.items.assign(rets.begin(), rets.end());
    call.args.push_back(addValue(std::move(list)));
  } else {
    // A schema returning () (split_with_sizes_copy.out, ...) still takes one
    // return entry: the (last) written argument again, as upstream emits it.
    int written = -1;
    for (unsigned i = 0; i < s->arguments.size(); ++i)
      if (s->arguments[i].isWrite())
        written = static_cast<int>(i);
    if (written < 0)
      return op.emitError("'") << op.getOpName() << "' returns () and writes no argument";
    call.args.push_back(call.args[written]);
  }
  // The runtime's kernel wrappers take exactly schema arguments + 1.
  if (call.args.size() != s->arguments.size() + 1)
    return op.emitError("internal: KernelCall for '")
           << op.getOpName() << "' has " << call.args.size() << " args, expected "
           << s->arguments.size() + 1;
  fb::InstructionArgumentsUnion u;
  u.Set(std::move(call));
  addInstruction(std::move(u));
  return success();
}

FailureOr<llvm::StringMap<int32_t>> MethodEmitter::symBindings(exir::AtenOp op) {
  llvm::StringMap<int32_t> out;
  ArrayAttr binds = op.getSymArgs();
  auto syms = op.getSymOperands();
  if (!binds && syms.empty())
    return out;
  if (!binds || binds.size() != syms.size())
    return op.emitError("symbolic operands do not match ") << exir::kSymArgsAttrName;
  for (auto [v, a] : llvm::zip(syms, binds.getValue())) {
    auto it = values_.find(v);
    if (it == values_.end())
      return op.emitError("symbolic operand has no value in the program");
    out[llvm::cast<StringAttr>(a).getValue()] = it->second;
  }
  return out;
}

/// Symbolic ints: a placeholder Int the prim op overwrites at run time
/// (spec section 4), or an Int holding a literal operand.
LogicalResult MethodEmitter::emitSymbolic(Operation *op) {
  if (auto c = llvm::dyn_cast<exir::SymConstOp>(op)) {
    values_[c.getResult()] = addInt(c.getValue());
    return success();
  }
  fb::KernelCallT call;
  if (auto size = llvm::dyn_cast<exir::SymSizeOp>(op)) {
    FailureOr<int32_t> self = valueOf(op->getLoc(), size.getInput());
    if (failed(self))
      return failure();
    call.op_index = operatorIndex("aten::sym_size", "int");
    call.args = {*self, addInt(size.getDim())};
  } else if (auto item = llvm::dyn_cast<exir::SymItemOp>(op)) {
    FailureOr<int32_t> self = valueOf(op->getLoc(), item.getInput());
    if (failed(self))
      return failure();
    call.op_index = operatorIndex("aten::_local_scalar_dense", "");
    call.args = {*self};
  } else {
    auto sym = llvm::cast<exir::SymOp>(op);
    StringRef fn = sym.getFn();
    std::string prim = fn == "max" ? "sym_max" : fn == "min" ? "sym_min" : fn.str();
    call.op_index = operatorIndex("executorch_prim::" + prim, "Scalar");
    for (Value a : sym.getArgs()) {
      auto it = values_.find(a);
      if (it == values_.end())
        return op->emitError("symbolic operand has no value in the program");
      call.args.push_back(it->second);
    }
  }
  int32_t result = addInt(0);
  values_[op->getResult(0)] = result;
  call.args.push_back(result);
  fb::InstructionArgumentsUnion u;
  u.Set(std::move(call));
  addInstruction(std::move(u));
  return success();
}

LogicalResult MethodEmitter::emitCopy(exir::CopyOp op) {
  FailureOr<int32_t> dst = valueOf(op.getLoc(), op.getDst());
  FailureOr<int32_t> src = valueOf(op.getLoc(), op.getSrc());
  if (failed(dst) || failed(src))
    return failure();
  fb::KernelCallT call;
  call.op_index = operatorIndex("aten::copy_", "");
  call.args = {*dst, *src, addBool(false), *dst};
  fb::InstructionArgumentsUnion u;
  u.Set(std::move(call));
  addInstruction(std::move(u));
  return success();
}

LogicalResult MethodEmitter::emitDelegateCall(exir::DelegateCallOp op) {
  auto lm = symbols_.lookup<exir::LoweredModuleOp>(op.getCallee());
  if (!lm)
    return op.emitError("'") << op.getCallee()
                             << "' does not name an exir.lowered_module";
  ++numDelegateCalls;
  // Shared entry: one per lowered module per method, when the backend opted
  // in and asks for no scratch. Otherwise one entry per call site.
  int32_t delegateIndex = -1;
  if (lm.sharesHandle()) {
    auto it = sharedDelegates_.find(lm);
    if (it != sharedDelegates_.end())
      delegateIndex = it->second;
  }
  if (delegateIndex < 0) {
    auto d = std::make_unique<fb::BackendDelegateT>();
    d->id = lm.getBackend().str();
    d->processed = std::make_unique<fb::BackendDelegateDataReferenceT>();
    d->processed->location = fb::DataLocation::INLINE;
    llvm::StringRef blob = lm.getBlob();
    d->processed->index = pb_.addDelegateBlob(
        reinterpret_cast<const uint8_t *>(blob.data()), blob.size());
    if (DictionaryAttr named = lm.getNamedDataAttr())
      for (NamedAttribute entry : named) {
        llvm::StringRef bytes = llvm::cast<StringAttr>(entry.getValue()).getValue();
        if (!pb_.addNamedData(entry.getName().str(),
                              reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()))
          return op.emitError("named data '")
                 << entry.getName().getValue() << "' of '" << lm.getSymName()
                 << "' differs from another delegate's bytes under the same key";
      }
    for (Attribute a : lm.getCompileSpecs()) {
      auto spec = llvm::cast<exir::CompileSpecAttr>(a);
      auto cs = std::make_unique<fb::CompileSpecT>();
      cs->key = spec.getKey().str();
      llvm::StringRef v = spec.getValue().getValue();
      cs->value.assign(v.begin(), v.end());
      d->compile_specs.push_back(std::move(cs));
    }
    if (!lm.getScratch().empty()) {
      auto mems = op->getAttrOfType<ArrayAttr>("exir.scratch_mems");
      if (!mems || mems.size() != lm.getScratch().size())
        return op.emitError("delegate scratch is not planned; run "
                            "exir-plan-memory before emitting");
      for (auto [specAttr, memAttr] : llvm::zip(lm.getScratch(), mems)) {
        auto spec = llvm::cast<exir::ScratchSpecAttr>(specAttr);
        auto mem = llvm::cast<exir::MemAttr>(memAttr);
        auto s = std::make_unique<fb::DelegateScratchT>();
        s->allocation = std::make_unique<fb::AllocationDetailsT>();
        s->allocation->memory_id = static_cast<uint32_t>(mem.getId());
        s->allocation->memory_offset_low =
            static_cast<uint32_t>(static_cast<uint64_t>(mem.getOffset()) & 0xffffffffu);
        s->allocation->memory_offset_high =
            static_cast<uint32_t>(static_cast<uint64_t>(mem.getOffset()) >> 32);
        s->size = static_cast<uint64_t>(spec.getSize());
        s->alignment = static_cast<uint32_t>(spec.getAlignment());
        d->scratch.push_back(std::move(s));
      }
    }
    plan_->delegates.push_back(std::move(d));
    delegateIndex = static_cast<int32_t>(plan_->delegates.size() - 1);
    if (lm.sharesHandle())
      sharedDelegates_[lm] = delegateIndex;
  }

  fb::DelegateCallT call;
  call.delegate_index = delegateIndex;
  for (Value v : op.getOperands()) {
    FailureOr<int32_t> idx = valueOf(op.getLoc(), v);
    if (failed(idx))
      return failure();
    call.args.push_back(*idx);
  }
  auto mems = op->getAttrOfType<ArrayAttr>("exir.mems");
  if (op->getNumResults() && (!mems || mems.size() != op->getNumResults()))
    return op.emitError("delegate results are not planned; run "
                        "exir-plan-memory before emitting");
  for (auto [i, r] : llvm::enumerate(op.getResults())) {
    FailureOr<int32_t> idx = addTensor(op.getLoc(), r.getType(),
                                       llvm::cast<exir::MemAttr>(mems[i]), 0);
    if (failed(idx))
      return failure();
    values_[r] = *idx;
    call.args.push_back(*idx);
  }
  fb::InstructionArgumentsUnion u;
  u.Set(std::move(call));
  addInstruction(std::move(u));
  return success();
}

LogicalResult MethodEmitter::emitArguments(func::FuncOp func) {
  for (BlockArgument arg : func.getArguments()) {
    Location loc = func.getLoc();
    exir::InputAttr in = exir::getInputAttr(func, arg.getArgNumber());
    llvm::StringRef kind = in ? in.getKind().getValue() : "user_input";
    auto mem = func.getArgAttrOfType<exir::MemAttr>(arg.getArgNumber(), "exir.mem");
    if (kind == "user_input") {
      FailureOr<int32_t> idx =
          addTensor(loc, arg.getType(), mem, 0, {},
                    "argument " + std::to_string(arg.getArgNumber()) + " (a user input)");
      if (failed(idx))
        return failure();
      markDynamic(arg, *idx);
      values_[arg] = *idx;
      plan_->inputs.push_back(*idx);
      continue;
    }
    llvm::StringRef fqn = in.getFqn() ? in.getFqn().getValue() : "";
    auto weight = symbols_.lookup<exir::WeightOp>(fqn);
    if (!weight)
      return func.emitError("argument ")
             << arg.getArgNumber() << " names weight '" << fqn
             << "' but the module has no exir.weight of that name";
    if (weight.getValue().getType() != arg.getType())
      return func.emitError("argument ")
             << arg.getArgNumber() << " has type " << arg.getType()
             << " but weight '" << fqn << "' is "
             << weight.getValue().getType();
    // A constant nothing reads (a weight a delegate baked into its own
    // data) is not in the program at all.
    if (!mem && arg.use_empty())
      continue;
    // A planned buffer is mutable state: initial bytes go to the mutable
    // segment and the tensor lives in the arena. Everything else is constant,
    // in the program or (externalWeights) in the .ptd under its name.
    bool external = options_.externalWeights && !mem;
    // A constant held in a resource blob (what the importer makes of every
    // weight) is lent to the writer, not copied, whether it goes to the
    // program or to the .ptd: it lives as long as the module, which
    // outlives writing. The blob's size is checked against its type first.
    const uint8_t *lent = nullptr;
    size_t lentSize = 0;
    if (!mem) {
      if (auto res = llvm::dyn_cast<DenseResourceElementsAttr>(weight.getValue()))
        if (AsmResourceBlob *blob = res.getRawHandle().getBlob()) {
          if (failed(exir::checkBlobSize(weight, res)))
            return failure();
          ArrayRef<char> d = blob->getData();
          lent = reinterpret_cast<const uint8_t *>(d.data());
          lentSize = d.size();
        }
    }
    if (lent && !external) {
      uint32_t dataIdx = pb_.addConstantView(lent, lentSize);
      FailureOr<int32_t> idx = addTensor(loc, arg.getType(), mem, dataIdx, fqn);
      if (failed(idx))
        return failure();
      values_[arg] = *idx;
      continue;
    }
    std::vector<uint8_t> bytes;
    if (!lent && failed(exir::getElementsBytes(weight, weight.getValue(), bytes)))
      return failure();
    uint32_t dataIdx = 0;
    if (mem) {
      auto [it, first] = stateData_.try_emplace(fqn, 0);
      if (first)
        it->second = pb_.addMutableData(bytes.data(), bytes.size());
      dataIdx = it->second;
    } else if (!external)
      dataIdx = pb_.addConstant(std::move(bytes));
    FailureOr<int32_t> idx = addTensor(loc, arg.getType(), mem, dataIdx, fqn);
    if (failed(idx))
      return failure();
    if (external) {
      fb::TensorT &t = *plan_->values[*idx]->val.AsTensor();
      t.extra_tensor_info = std::make_unique<fb::ExtraTensorInfoT>();
      t.extra_tensor_info->fully_qualified_name = fqn.str();
      t.extra_tensor_info->location = fb::TensorDataLocation::EXTERNAL;
      pte::PtdEntry &e = pb_.external[fqn.str()];
      if (lent) {
        e.lent = lent;
        e.lentSize = lentSize;
      } else {
        e.bytes = std::move(bytes);
      }
      e.scalarType = static_cast<int8_t>(t.scalar_type);
      e.sizes = t.sizes;
    }
    values_[arg] = *idx;
  }
  return success();
}

LogicalResult MethodEmitter::emitBlock(Block &block) {
  for (Operation &op : block) {
    if (llvm::isa<exir::YieldOp>(op))
      continue; // read by the control-flow op that holds the block
    if (failed(emitOp(op)))
      return failure();
  }
  return success();
}

LogicalResult MethodEmitter::emitOp(Operation &op) {
  currentLoc_ = op.getLoc();
  if (auto alloc = llvm::dyn_cast<exir::AllocOp>(op)) {
    auto mem = alloc->getAttrOfType<exir::MemAttr>("exir.mem");
    if (!mem)
      return alloc.emitError("exir.alloc is not planned; run "
                             "exir-plan-memory before emitting");
    FailureOr<int32_t> idx = addTensor(op.getLoc(), alloc.getType(), mem, 0);
    if (failed(idx))
      return failure();
    markDynamic(alloc.getResult(), *idx);
    values_[alloc.getResult()] = *idx;
    return success();
  }
  if (auto aten = llvm::dyn_cast<exir::AtenOp>(op))
    return aten.getOpName() == "aten::view" ? emitView(aten) : emitAten(aten);
  if (auto copy = llvm::dyn_cast<exir::CopyOp>(op))
    return emitCopy(copy);
  if (llvm::isa<exir::SymSizeOp, exir::SymItemOp, exir::SymConstOp, exir::SymOp>(op))
    return emitSymbolic(&op);
  if (auto call = llvm::dyn_cast<exir::DelegateCallOp>(op))
    return emitDelegateCall(call);
  if (auto cond = llvm::dyn_cast<exir::CondOp>(op))
    return emitCond(cond);
  if (auto loop = llvm::dyn_cast<exir::WhileOp>(op))
    return emitWhile(loop);
  if (auto ret = llvm::dyn_cast<func::ReturnOp>(op))
    return emitReturn(ret);
  return op.emitError("cannot emit '")
         << op.getName() << "' into an ExecuTorch program";
}

LogicalResult MethodEmitter::emitReturn(func::ReturnOp ret) {
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    exir::OutputAttr out = exir::getOutputAttr(func_, i);
    if (out && out.getKind().getValue() == "buffer_mutation")
      return func_.emitError("output ")
             << i << " is a buffer mutation; run exir-place-write-back "
                     "before emitting";
    FailureOr<int32_t> idx = valueOf(ret.getLoc(), v);
    if (failed(idx))
      return failure();
    plan_->outputs.push_back(*idx);
  }
  return success();
}

FailureOr<std::unique_ptr<fb::ExecutionPlanT>>
MethodEmitter::emit(func::FuncOp func) {
  auto plan = std::make_unique<fb::ExecutionPlanT>();
  plan_ = plan.get();
  plan->name = func.getSymName().str();
  plan->chains.push_back(std::make_unique<fb::ChainT>());
  chain_ = plan->chains.back().get();

  auto arenas = func->getAttrOfType<DenseI64ArrayAttr>("exir.arena_sizes");
  if (!arenas)
    return func.emitError("method '")
           << func.getSymName()
           << "' has no memory plan; run exir-plan-memory before emitting";
  plan->non_const_buffer_sizes.assign(arenas.asArrayRef().begin(),
                                      arenas.asArrayRef().end());
  if (plan->non_const_buffer_sizes.empty())
    plan->non_const_buffer_sizes = {0, 0};
  plan->non_const_buffer_sizes[0] = 0;

  dynamic_ = exir::findDynamicValues(func);
  if (failed(emitArguments(func)))
    return failure();

  func_ = func;
  if (failed(emitBlock(func.getBody().front())))
    return failure();
  return plan;
}

} // namespace emit

LogicalResult emitProgram(ModuleOp module, pte::ProgramBuilder &out,
                          const EmitOptions &options, EmitStats *stats) {
  std::vector<func::FuncOp> funcs;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isDeclaration() && f.isPublic())
      funcs.push_back(f);
  if (funcs.empty())
    return module.emitError("the program has no methods (no public func.func)");
  std::sort(funcs.begin(), funcs.end(), [](func::FuncOp a, func::FuncOp b) {
    return a.getSymName() < b.getSymName();
  });
  out.program.version = 0;
  llvm::StringMap<uint32_t> stateData;
  for (func::FuncOp f : funcs) {
    emit::MethodEmitter m(module, out, options, stateData);
    FailureOr<std::unique_ptr<fb::ExecutionPlanT>> plan = m.emit(f);
    if (failed(plan))
      return failure();
    if (stats) {
      EmitStats::Method s;
      s.name = (*plan)->name;
      s.numValues = (*plan)->values.size();
      s.numInstructions = (*plan)->chains.front()->instructions.size();
      s.numDelegates = (*plan)->delegates.size();
      s.numDelegateCalls = m.numDelegateCalls;
      s.arenaSizes = (*plan)->non_const_buffer_sizes;
      s.instructionLocs = std::move(m.instructionLocs);
      stats->methods.push_back(std::move(s));
    }
    out.program.execution_plan.push_back(std::move(*plan));
  }
  return success();
}

} // namespace ptec
