//===- EmitOps.cpp - one instruction per straight-line op -----------------===//
//
// MethodEmitter's instructions for the straight-line ops: exir.aten as a
// KernelCall (schema arguments in order, then the returns), static and
// run-time views, symbolic ints, exir.copy_ and delegate calls. Values come
// from EmitValues.cpp; exir.cond and exir.while are in EmitControlFlow.cpp.
//
//===----------------------------------------------------------------------===//

#include "emitter/MethodEmitter.h"

namespace ptec::emit {
namespace {

/// Splits "aten::add.out" into ("aten::add", "out"); no overload -> "".
std::pair<std::string, std::string> splitOpName(llvm::StringRef full) {
  size_t ns = full.find("::");
  size_t dot = full.find('.', ns == llvm::StringRef::npos ? 0 : ns + 2);
  if (dot == llvm::StringRef::npos)
    return {full.str(), ""};
  return {full.substr(0, dot).str(), full.substr(dot + 1).str()};
}

} // namespace

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
  addInstruction(std::move(call));
  return success();
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
  addInstruction(std::move(call));
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
  addInstruction(std::move(call));
  return success();
}

LogicalResult MethodEmitter::emitCopy(exir::CopyOp op) {
  FailureOr<int32_t> dst = valueOf(op.getLoc(), op.getDst());
  FailureOr<int32_t> src = valueOf(op.getLoc(), op.getSrc());
  if (failed(dst) || failed(src))
    return failure();
  addCopyKernel(*dst, *src);
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
  addInstruction(std::move(call));
  return success();
}

} // namespace ptec::emit
