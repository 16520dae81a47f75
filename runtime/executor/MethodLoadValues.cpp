// Loading a plan's values table: tensors (shape, dim order, planned memory
// or constant data), scalars, strings and lists, then the plan's input and
// output indices. Kept apart from instruction and delegate loading because it
// is the bulk of the format's validation and reads on its own.
#include "runtime/executor/MethodLoader.h"

#include "serde/pte/FlatbufferGet.h"

#include <cstring>

namespace ptec::rt {

Error Method::Loader::loadTensor(size_t i, const fb::Tensor *t, Tensor *&out, bool &planned) {
  planned = false;
  int st = static_cast<int>(t->scalar_type());
  if (!isValidScalarType(st))
    return fail(Error::InvalidProgram, "value %zu: tensor scalar_type %d is not supported", i, st);
  if (t->storage_offset() != 0)
    return fail(Error::NotSupported, "value %zu: tensor storage_offset %d (must be 0)", i,
                t->storage_offset());
  if (t->layout() != 0)
    return fail(Error::NotSupported, "value %zu: tensor layout %d (only strided, 0)", i,
                (int)t->layout());
  auto dyn = t->shape_dynamism();
  if (dyn == fb::TensorShapeDynamism::DYNAMIC_UNBOUND)
    return fail(Error::NotSupported, "value %zu: DYNAMIC_UNBOUND tensors are not supported", i);
  if (dyn != fb::TensorShapeDynamism::STATIC && dyn != fb::TensorShapeDynamism::DYNAMIC_BOUND)
    return fail(Error::InvalidProgram, "value %zu: tensor shape_dynamism %d is unknown", i,
                (int)dyn);
  const auto *sizes = t->sizes();
  const auto *order = t->dim_order();
  if (sizes == nullptr)
    return fail(Error::InvalidProgram, "value %zu: tensor sizes is missing", i);
  if (order == nullptr)
    return fail(Error::InvalidProgram, "value %zu: tensor dim_order is missing", i);
  if (sizes->size() > static_cast<size_t>(kTensorMaxRank))
    return fail(Error::InvalidProgram, "value %zu: tensor rank %u exceeds %d", i, sizes->size(),
                kTensorMaxRank);
  if (order->size() != sizes->size())
    return fail(Error::InvalidProgram, "value %zu: dim_order has %u entries, sizes has %u", i,
                order->size(), sizes->size());
  const size_t rank = sizes->size();
  int64_t dims[kTensorMaxRank];
  uint64_t numel = 1;
  bool overflow = false, hasZero = false;
  for (size_t d = 0; d < rank; ++d) {
    int32_t s = sizes->Get(static_cast<flatbuffers::uoffset_t>(d));
    if (s < 0)
      return fail(Error::InvalidProgram, "value %zu: tensor sizes[%zu] is negative (%d)", i, d, s);
    dims[d] = s;
    hasZero = hasZero || s == 0;
    if (s != 0 && numel > UINT64_MAX / static_cast<uint64_t>(s))
      overflow = true;
    numel *= static_cast<uint64_t>(s);
  }
  uint32_t seen = 0;
  uint8_t dimOrder[kTensorMaxRank];
  for (size_t d = 0; d < rank; ++d) {
    uint8_t o = order->Get(static_cast<flatbuffers::uoffset_t>(d));
    if (o >= rank || (seen & (1u << o)) != 0)
      return fail(Error::InvalidProgram,
                  "value %zu: dim_order is not a permutation of 0..%zu (entry %zu is %u)", i,
                  rank - 1, d, (unsigned)o);
    seen |= 1u << o;
    dimOrder[d] = o;
  }
  size_t esize = elementSize(static_cast<ScalarType>(st));
  if (hasZero) {
    overflow = false; // a zero dimension makes the product 0 whatever came first
    numel = 0;
  }
  if (overflow || numel > (uint64_t)PTRDIFF_MAX / esize)
    return fail(Error::InvalidProgram, "value %zu: tensor byte size overflows", i);
  const size_t nbytes = static_cast<size_t>(numel * esize);

  Tensor *tensor = alloc<Tensor>(1);
  if (tensor == nullptr)
    return outOfMemory("tensor");
  // Any dim order loads; whether a kernel can compute it is checked per
  // KernelCall (DimOrderCheck).
  if (tensor->init(static_cast<ScalarType>(st), Span<const int64_t>(dims, rank),
                   Span<const uint8_t>(dimOrder, rank)) != Error::Ok)
    return fail(Error::InvalidProgram, "value %zu: tensor shape is invalid", i);
  // Kernels and delegates resize it under the program's rules (Tensor.h).
  tensor->setDynamism(dyn == fb::TensorShapeDynamism::STATIC ? ShapeDynamism::Static
                                                             : ShapeDynamism::Bounded);

  // Kernels read elements in place, so data must be aligned to the element
  // size (writers align to 16); a corrupted offset must not become UB.
  auto misaligned = [&](const void *, const char *what) {
    return fail(Error::InvalidProgram,
                "value %zu: %s data is not aligned to its %zu-byte elements", i, what, esize);
  };
  auto aligned = [&](const void *p) { return reinterpret_cast<uintptr_t>(p) % esize == 0; };

  const fb::ExtraTensorInfo *extra = t->extra_tensor_info();
  if (extra != nullptr && extra->device_type() != fb::DeviceType::CPU)
    return fail(Error::NotSupported, "value %zu: tensor device_type %d (only CPU)", i,
                (int)extra->device_type());
  const fb::AllocationDetails *ai = t->allocation_info();
  std::string sub;
  if (extra != nullptr && extra->location() == fb::TensorDataLocation::EXTERNAL) {
    if (extra->fully_qualified_name() == nullptr)
      return fail(Error::InvalidProgram,
                  "value %zu: EXTERNAL tensor has no fully_qualified_name", i);
    auto data = m_.program_->namedData(extra->fully_qualified_name()->c_str());
    if (!data.ok())
      return fail(Error::NotFound,
                  "value %zu: external data '%s' is neither in the program's named_data nor "
                  "in external data (the program keeps weights in a .ptd: pte-run --data "
                  "FILE.ptd, ModuleOptions::externalData)",
                  i, extra->fully_qualified_name()->c_str());
    if (data->size() < nbytes)
      return fail(Error::InvalidProgram,
                  "value %zu: external data '%s' has %zu bytes, the tensor needs %zu", i,
                  extra->fully_qualified_name()->c_str(), data->size(), nbytes);
    // Enough bytes laid out another way would run with permuted values.
    std::string layout =
        m_.program_->externalLayoutProblem(extra->fully_qualified_name()->c_str(), *t);
    if (!layout.empty())
      return fail(Error::InvalidProgram, "value %zu: %s", i, layout.c_str());
    if (ai != nullptr) {
      // Planned with external initial state: fall through to the planned
      // path and copy below.
    } else {
      if (!aligned(data->data()))
        return misaligned(data->data(), "external");
      tensor->setData(const_cast<uint8_t *>(data->data()), nbytes);
      out = tensor;
      return Error::Ok;
    }
  }
  if (ai != nullptr) {
    uint32_t memId = ai->memory_id();
    if (memId == 0)
      return fail(Error::InvalidProgram,
                  "value %zu: planned tensor has memory_id 0 (reserved; arenas start at 1)", i);
    if (memId - 1 >= arenaSizes_.size())
      return fail(Error::InvalidProgram,
                  "value %zu: memory_id %u out of range (%zu planned arenas)", i, memId,
                  arenaSizes_.size());
    uint64_t offset = (uint64_t(ai->memory_offset_high()) << 32) | ai->memory_offset_low();
    uint64_t arenaSize = arenaSizes_[memId - 1];
    if (offset > arenaSize || nbytes > arenaSize - offset)
      return fail(Error::InvalidProgram,
                  "value %zu: planned offset %llu + %zu bytes runs past arena %u (%llu bytes)",
                  i, (unsigned long long)offset, nbytes, memId, (unsigned long long)arenaSize);
    uint8_t *data = m_.memory_->plannedBuffers()[memId - 1].data() + offset;
    if (!aligned(data))
      return misaligned(data, "planned");
    tensor->setData(data, nbytes);
    planned = true;
    // An arena that already holds state shared with another method keeps it
    // (the initial values were copied when the arena was first set up).
    const bool keep = m_.memory_->arenaHoldsState(memId - 1);
    if (extra != nullptr && extra->location() == fb::TensorDataLocation::EXTERNAL) {
      auto init = m_.program_->namedData(extra->fully_qualified_name()->c_str());
      if (nbytes > 0 && !keep)
        std::memcpy(data, init->data(), nbytes);
    } else if (t->data_buffer_idx() > 0) {
      auto init = m_.program_->mutableData(t->data_buffer_idx(), nbytes, &sub);
      if (!init.ok())
        return fail(init.error(), "value %zu: %s", i, sub.c_str());
      if (nbytes > 0 && !keep)
        std::memcpy(data, init.get(), nbytes);
    }
  } else if (t->data_buffer_idx() > 0) {
    auto data = m_.program_->constantData(t->data_buffer_idx(), nbytes, &sub);
    if (!data.ok())
      return fail(data.error(), "value %zu: %s", i, sub.c_str());
    if (!aligned(data.get()))
      return misaligned(data.get(), "constant");
    tensor->setData(const_cast<uint8_t *>(data.get()), nbytes);
  } else {
    tensor->setData(nullptr, 0); // supplied as an input or by a kernel
  }
  out = tensor;
  return Error::Ok;
}

Error Method::Loader::loadIndexList(size_t i, const char *kind,
                                    const flatbuffers::Vector<int32_t> *items32,
                                    const flatbuffers::Vector<int64_t> *items64,
                                    EValue::Tag want) {
  if (items32 == nullptr && items64 == nullptr)
    return fail(Error::InvalidProgram, "value %zu: %s items is missing", i, kind);
  size_t n = items32 ? items32->size() : items64->size();
  EValue **ptrs = alloc<EValue *>(n);
  if (ptrs == nullptr)
    return outOfMemory(kind);
  const bool optional = want == EValue::Tag::OptionalTensorList;
  for (size_t k = 0; k < n; ++k) {
    int64_t idx = items32 ? items32->Get(static_cast<flatbuffers::uoffset_t>(k))
                          : pte::get8(items64, static_cast<flatbuffers::uoffset_t>(k));
    if (optional && idx == -1) {
      ptrs[k] = nullptr;
      continue;
    }
    if (idx < 0 || static_cast<uint64_t>(idx) >= m_.numValues_)
      return fail(Error::InvalidProgram, "value %zu: %s item %lld out of range (%zu values)", i,
                  kind, (long long)idx, m_.numValues_);
    if (static_cast<size_t>(idx) >= i)
      return fail(Error::InvalidProgram,
                  "value %zu: %s item %lld is not an earlier value (lists may only refer to "
                  "values before them)",
                  i, kind, (long long)idx);
    EValue &elem = m_.values_[idx];
    bool ok = want == EValue::Tag::IntList ? elem.isInt()
              : optional                   ? (elem.isTensor() || elem.isNone())
                                           : elem.isTensor();
    if (!ok)
      return fail(Error::InvalidProgram, "value %zu: %s item %lld is not %s", i, kind,
                  (long long)idx,
                  want == EValue::Tag::IntList ? "an Int"
                  : optional                   ? "a Tensor or None"
                                               : "a Tensor");
    ptrs[k] = (optional && elem.isNone()) ? nullptr : &elem;
  }
  Span<EValue *const> items(ptrs, n);
  switch (want) {
  case EValue::Tag::IntList: m_.values_[i] = EValue::fromIntList(items); break;
  case EValue::Tag::TensorList: m_.values_[i] = EValue::fromTensorList(items); break;
  default: m_.values_[i] = EValue::fromOptionalTensorList(items); break;
  }
  return Error::Ok;
}

template <typename Items, typename Read, typename Wrap>
Error Method::Loader::loadScalarList(size_t i, const char *kind, const Items *items, Read read,
                                     Wrap wrap) {
  if (items == nullptr)
    return fail(Error::InvalidProgram, "value %zu: %s items is missing", i, kind);
  using T = decltype(read(items, 0));
  const size_t n = items->size();
  T *copy = alloc<T>(n);
  if (copy == nullptr)
    return outOfMemory(kind);
  for (size_t k = 0; k < n; ++k)
    copy[k] = read(items, static_cast<flatbuffers::uoffset_t>(k));
  m_.values_[i] = wrap(Span<const T>(copy, n));
  return Error::Ok;
}

Error Method::Loader::loadValue(size_t i, const fb::EValue *ev) {
  if (ev == nullptr)
    return fail(Error::InvalidProgram, "value %zu is null", i);
  auto tag = ev->val_type();
  // Every known tag but Null names a table, which must be there.
  if (tag > fb::KernelTypes::Null && tag <= fb::KernelTypes::MAX && ev->val() == nullptr) {
    const char *kind = fb::EnumNameKernelTypes(tag);
    return fail(Error::InvalidProgram, "value %zu: tag %s but no %s table", i, kind, kind);
  }
  switch (tag) {
  case fb::KernelTypes::Null:
    m_.values_[i] = EValue();
    return Error::Ok;
  case fb::KernelTypes::Int:
    m_.values_[i] = EValue::fromInt(ev->val_as_Int()->int_val());
    return Error::Ok;
  case fb::KernelTypes::Bool:
    m_.values_[i] = EValue::fromBool(ev->val_as_Bool()->bool_val());
    return Error::Ok;
  case fb::KernelTypes::Double:
    m_.values_[i] = EValue::fromDouble(ev->val_as_Double()->double_val());
    return Error::Ok;
  case fb::KernelTypes::String: {
    const fb::String *v = ev->val_as_String();
    if (v->string_val() == nullptr)
      return fail(Error::InvalidProgram, "value %zu: String string_val is missing", i);
    m_.values_[i] = EValue::fromString(v->string_val()->c_str(), v->string_val()->size());
    return Error::Ok;
  }
  case fb::KernelTypes::Tensor: {
    Tensor *t = nullptr;
    bool planned = false;
    PTEC_TRY(loadTensor(i, ev->val_as_Tensor(), t, planned));
    plannedValue_[i] = planned ? 1 : 0;
    m_.values_[i] = EValue::fromTensor(t);
    return Error::Ok;
  }
  case fb::KernelTypes::IntList:
    return loadIndexList(i, "IntList", nullptr, ev->val_as_IntList()->items(),
                         EValue::Tag::IntList);
  case fb::KernelTypes::TensorList:
    return loadIndexList(i, "TensorList", ev->val_as_TensorList()->items(), nullptr,
                         EValue::Tag::TensorList);
  case fb::KernelTypes::OptionalTensorList:
    return loadIndexList(i, "OptionalTensorList", ev->val_as_OptionalTensorList()->items(),
                         nullptr, EValue::Tag::OptionalTensorList);
  case fb::KernelTypes::DoubleList:
    return loadScalarList(
        i, "DoubleList", ev->val_as_DoubleList()->items(),
        [](const auto *v, flatbuffers::uoffset_t k) { return pte::get8(v, k); },
        EValue::fromDoubleList);
  case fb::KernelTypes::BoolList:
    return loadScalarList(
        i, "BoolList", ev->val_as_BoolList()->items(),
        [](const auto *v, flatbuffers::uoffset_t k) { return uint8_t(v->Get(k) ? 1 : 0); },
        EValue::fromBoolList);
  default:
    break;
  }
  return fail(Error::InvalidProgram, "value %zu: unknown value type tag %u", i,
              static_cast<unsigned>(tag));
}

Error Method::Loader::loadValues() {
  const auto *values = plan_.values();
  m_.numValues_ = values->size();
  m_.values_ = alloc<EValue>(m_.numValues_);
  if (m_.values_ == nullptr)
    return outOfMemory("values");
  plannedValue_.assign(m_.numValues_, 0);
  for (size_t i = 0; i < m_.numValues_; ++i)
    PTEC_TRY(loadValue(i, values->Get(static_cast<flatbuffers::uoffset_t>(i))));
  return Error::Ok;
}

Error Method::Loader::loadInputsOutputs() {
  // Copies the value indices of `list` ("inputs" or "outputs") into `dst`,
  // each checked against the values.
  auto indices = [&](const char *what, const flatbuffers::Vector<int32_t> *list, uint32_t *dst) {
    for (size_t k = 0; k < list->size(); ++k) {
      int32_t idx = list->Get(static_cast<flatbuffers::uoffset_t>(k));
      if (idx < 0 || static_cast<size_t>(idx) >= m_.numValues_)
        return fail(Error::InvalidProgram, "%s[%zu] = %d out of range (%zu values)", what, k,
                    idx, m_.numValues_);
      dst[k] = static_cast<uint32_t>(idx);
    }
    return Error::Ok;
  };
  const auto *ins = plan_.inputs();
  m_.numInputs_ = ins->size();
  m_.inputs_ = alloc<uint32_t>(m_.numInputs_);
  m_.inputSet_ = alloc<uint8_t>(m_.numInputs_);
  m_.inputPlanned_ = alloc<uint8_t>(m_.numInputs_);
  if (!m_.inputs_ || !m_.inputSet_ || !m_.inputPlanned_)
    return outOfMemory("inputs");
  PTEC_TRY(indices("inputs", ins, m_.inputs_));
  for (size_t k = 0; k < m_.numInputs_; ++k) {
    m_.inputPlanned_[k] = plannedValue_[m_.inputs_[k]];
    m_.inputSet_[k] = 0;
  }
  const auto *outs = plan_.outputs();
  m_.numOutputs_ = outs->size();
  m_.outputs_ = alloc<uint32_t>(m_.numOutputs_);
  if (!m_.outputs_)
    return outOfMemory("outputs");
  return indices("outputs", outs, m_.outputs_);
}

} // namespace ptec::rt
