//===- EmitValues.cpp - the values table of one method --------------------===//
//
// MethodEmitter's values: tensors (type, planned storage, state names),
// non-tensor schema arguments as fresh values, the value an SSA value maps
// to, and the plan's operator table. The instructions that use them are in
// EmitOps.cpp; the method's walk in Emitter.cpp.
//
//===----------------------------------------------------------------------===//

#include "emitter/MethodEmitter.h"

namespace ptec::emit {
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

} // namespace

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

FailureOr<int32_t> MethodEmitter::addArgValue(Location loc, Attribute attr,
                                              const schema::Argument &arg) {
  using K = schema::TypeKind;
  // A present optional argument holds a value of its inner type.
  const schema::SchemaType &t = arg.type.kind == K::Optional ? arg.type.elems.front() : arg.type;
  if (!attr || llvm::isa<exir::NoneAttr>(attr))
    return addNull();
  if (auto b = llvm::dyn_cast<BoolAttr>(attr))
    return addBool(b.getValue());
  if (auto i = llvm::dyn_cast<IntegerAttr>(attr)) {
    if (t.kind == K::Float)
      return addDouble(static_cast<double>(i.getInt()));
    return addInt(i.getInt());
  }
  if (auto f = llvm::dyn_cast<FloatAttr>(attr))
    return addDouble(f.getValueAsDouble());
  if (auto s = llvm::dyn_cast<StringAttr>(attr)) {
    // Layouts, memory formats and devices travel as ints / strings.
    if (t.kind == K::Layout)
      return addInt(s.getValue() == "strided" ? 0 : 1);
    if (t.kind == K::MemoryFormat) {
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

} // namespace ptec::emit
