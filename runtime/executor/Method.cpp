#include "runtime/executor/Method.h"

#include "runtime/executor/DimOrderCheck.h"
#include "runtime/executor/ErrorDetail.h"
#include "runtime/executor/InputShape.h"
#include "serde/pte/program_generated.h"
#include "serde/pte/FlatbufferGet.h"

#include <cmath>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <new>
#include <vector>

namespace ptec::rt {
namespace fb = executorch_flatbuffer;

const KernelEntry *KernelResolver::find(const char *fullName) const {
  for (const KernelEntry &e : table_)
    if (e.name != nullptr && std::strcmp(e.name, fullName) == 0)
      return &e;
  return fallback_ ? fallback_(fullName) : nullptr;
}

// ---------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------

namespace {
/// The program's named data as backends see it at init.
class ProgramNamedData final : public NamedDataMap {
public:
  explicit ProgramNamedData(const Program &p) : program_(p) {}
  Result<Span<const uint8_t>> get(const char *key) const override {
    return program_.namedData(key);
  }

private:
  const Program &program_;
};
} // namespace

/// Builds a Method from its plan; every failure names the plan and the field.
class Method::Loader {
public:
  Loader(Method &m, const fb::ExecutionPlan &plan, const KernelResolver &kernels,
         std::string *detail)
      : m_(m), plan_(plan), kernels_(kernels), detail_(detail) {}

  Error run();

private:
  template <typename... Args> Error fail(Error e, const char *fmt, Args... args) {
    char buf[448];
    std::snprintf(buf, sizeof(buf), fmt, args...);
    return failWith(detail_, e, "plan '%s' %s", m_.name_, buf);
  }
  Error fail(Error e, const char *msg) { return fail(e, "%s", msg); }

  template <typename T> T *alloc(size_t n) {
    if (n == 0)
      n = 1; // keep pointers non-null for empty tables
    T *p = m_.memory_->methodAllocator()->allocateArray<T>(n);
    if (p != nullptr)
      for (size_t i = 0; i < n; ++i)
        new (&p[i]) T();
    return p;
  }
  Error outOfMemory(const char *what) {
    return fail(Error::MemoryAllocationFailed, "%s: method allocator is exhausted", what);
  }

  Error checkPresence();
  Error loadArenas();
  Error loadValues();
  Error loadValue(size_t i, const fb::EValue *ev);
  Error loadTensor(size_t i, const fb::Tensor *t, Tensor *&out, bool &planned);
  Error loadIndexList(size_t i, const char *kind, const flatbuffers::Vector<int32_t> *items32,
                      const flatbuffers::Vector<int64_t> *items64, EValue::Tag want);
  Error loadInputsOutputs();
  Error loadInstructions();
  Error checkArgs(size_t pc, const char *what, const flatbuffers::Vector<int32_t> *args,
                  Span<EValue *> &out);
  Error loadDelegates();

  Method &m_;
  const fb::ExecutionPlan &plan_;
  const KernelResolver &kernels_;
  std::string *detail_;
  // Arena sizes from the plan (entry 0 dropped) and their memory.
  std::vector<uint64_t> arenaSizes_;
  // Planned-ness of each value, for inputs.
  std::vector<uint8_t> plannedValue_;
  // DelegateCall sites per delegate entry (first two instruction indices).
  std::vector<uint32_t> delegateUses_;
  std::vector<size_t> delegateFirstUse_, delegateSecondUse_;
};

Error Method::Loader::checkPresence() {
  if (plan_.values() == nullptr)
    return fail(Error::InvalidProgram, "values is missing");
  if (plan_.inputs() == nullptr)
    return fail(Error::InvalidProgram, "inputs is missing");
  if (plan_.outputs() == nullptr)
    return fail(Error::InvalidProgram, "outputs is missing");
  if (plan_.chains() == nullptr || plan_.chains()->size() == 0)
    return fail(Error::InvalidProgram, "chains is missing or empty");
  if (plan_.chains()->size() > 1)
    return fail(Error::NotSupported, "has %u chains; only one chain is supported",
                plan_.chains()->size());
  if (plan_.non_const_buffer_sizes() == nullptr)
    return fail(Error::InvalidProgram, "non_const_buffer_sizes is missing");
  if (plan_.delegates() == nullptr)
    return fail(Error::InvalidProgram,
                "delegates is missing (an empty vector is required even with no delegates)");
  return Error::Ok;
}

Error Method::Loader::loadArenas() {
  const auto *sizes = plan_.non_const_buffer_sizes();
  Span<const Span<uint8_t>> buffers = m_.memory_->plannedBuffers();
  for (flatbuffers::uoffset_t j = 1; j < sizes->size(); ++j) {
    int64_t n = pte::get8(sizes, j);
    if (n < 0)
      return fail(Error::InvalidProgram, "non_const_buffer_sizes[%u] is negative (%lld)", j,
                  (long long)n);
    size_t arena = j - 1;
    if (arena >= buffers.size())
      return fail(Error::InvalidArgument,
                  "needs %u planned buffers, the memory manager supplies %zu",
                  sizes->size() - 1, buffers.size());
    if (buffers[arena].size() < static_cast<uint64_t>(n))
      return fail(Error::InvalidArgument,
                  "planned buffer for memory_id %u has %zu bytes, the plan needs %lld", j,
                  buffers[arena].size(), (long long)n);
    arenaSizes_.push_back(static_cast<uint64_t>(n));
  }
  return Error::Ok;
}

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

Error Method::Loader::loadValue(size_t i, const fb::EValue *ev) {
  if (ev == nullptr)
    return fail(Error::InvalidProgram, "value %zu is null", i);
  auto tag = ev->val_type();
  auto missing = [&](const char *kind) {
    return fail(Error::InvalidProgram, "value %zu: tag %s but no %s table", i, kind, kind);
  };
  switch (tag) {
  case fb::KernelTypes::Null:
    m_.values_[i] = EValue();
    return Error::Ok;
  case fb::KernelTypes::Int: {
    const fb::Int *v = ev->val_as_Int();
    if (!v)
      return missing("Int");
    m_.values_[i] = EValue::fromInt(v->int_val());
    return Error::Ok;
  }
  case fb::KernelTypes::Bool: {
    const fb::Bool *v = ev->val_as_Bool();
    if (!v)
      return missing("Bool");
    m_.values_[i] = EValue::fromBool(v->bool_val());
    return Error::Ok;
  }
  case fb::KernelTypes::Double: {
    const fb::Double *v = ev->val_as_Double();
    if (!v)
      return missing("Double");
    m_.values_[i] = EValue::fromDouble(v->double_val());
    return Error::Ok;
  }
  case fb::KernelTypes::String: {
    const fb::String *v = ev->val_as_String();
    if (!v)
      return missing("String");
    if (v->string_val() == nullptr)
      return fail(Error::InvalidProgram, "value %zu: String string_val is missing", i);
    m_.values_[i] = EValue::fromString(v->string_val()->c_str(), v->string_val()->size());
    return Error::Ok;
  }
  case fb::KernelTypes::Tensor: {
    const fb::Tensor *v = ev->val_as_Tensor();
    if (!v)
      return missing("Tensor");
    Tensor *t = nullptr;
    bool planned = false;
    PTEC_TRY(loadTensor(i, v, t, planned));
    plannedValue_[i] = planned ? 1 : 0;
    m_.values_[i] = EValue::fromTensor(t);
    return Error::Ok;
  }
  case fb::KernelTypes::IntList: {
    const fb::IntList *v = ev->val_as_IntList();
    if (!v)
      return missing("IntList");
    return loadIndexList(i, "IntList", nullptr, v->items(), EValue::Tag::IntList);
  }
  case fb::KernelTypes::TensorList: {
    const fb::TensorList *v = ev->val_as_TensorList();
    if (!v)
      return missing("TensorList");
    return loadIndexList(i, "TensorList", v->items(), nullptr, EValue::Tag::TensorList);
  }
  case fb::KernelTypes::OptionalTensorList: {
    const fb::OptionalTensorList *v = ev->val_as_OptionalTensorList();
    if (!v)
      return missing("OptionalTensorList");
    return loadIndexList(i, "OptionalTensorList", v->items(), nullptr,
                         EValue::Tag::OptionalTensorList);
  }
  case fb::KernelTypes::DoubleList: {
    const fb::DoubleList *v = ev->val_as_DoubleList();
    if (!v)
      return missing("DoubleList");
    if (v->items() == nullptr)
      return fail(Error::InvalidProgram, "value %zu: DoubleList items is missing", i);
    size_t n = v->items()->size();
    double *items = alloc<double>(n);
    if (items == nullptr)
      return outOfMemory("DoubleList");
    for (size_t k = 0; k < n; ++k)
      items[k] = pte::get8(v->items(), static_cast<flatbuffers::uoffset_t>(k));
    m_.values_[i] = EValue::fromDoubleList(Span<const double>(items, n));
    return Error::Ok;
  }
  case fb::KernelTypes::BoolList: {
    const fb::BoolList *v = ev->val_as_BoolList();
    if (!v)
      return missing("BoolList");
    if (v->items() == nullptr)
      return fail(Error::InvalidProgram, "value %zu: BoolList items is missing", i);
    size_t n = v->items()->size();
    uint8_t *items = alloc<uint8_t>(n);
    if (items == nullptr)
      return outOfMemory("BoolList");
    for (size_t k = 0; k < n; ++k)
      items[k] = v->items()->Get(static_cast<flatbuffers::uoffset_t>(k)) ? 1 : 0;
    m_.values_[i] = EValue::fromBoolList(Span<const uint8_t>(items, n));
    return Error::Ok;
  }
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
  const auto *ins = plan_.inputs();
  m_.numInputs_ = ins->size();
  m_.inputs_ = alloc<uint32_t>(m_.numInputs_);
  m_.inputSet_ = alloc<uint8_t>(m_.numInputs_);
  m_.inputPlanned_ = alloc<uint8_t>(m_.numInputs_);
  if (!m_.inputs_ || !m_.inputSet_ || !m_.inputPlanned_)
    return outOfMemory("inputs");
  for (size_t k = 0; k < m_.numInputs_; ++k) {
    int32_t idx = ins->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (idx < 0 || static_cast<size_t>(idx) >= m_.numValues_)
      return fail(Error::InvalidProgram, "inputs[%zu] = %d out of range (%zu values)", k, idx,
                  m_.numValues_);
    m_.inputs_[k] = static_cast<uint32_t>(idx);
    m_.inputPlanned_[k] = plannedValue_[idx];
    m_.inputSet_[k] = 0;
  }
  const auto *outs = plan_.outputs();
  m_.numOutputs_ = outs->size();
  m_.outputs_ = alloc<uint32_t>(m_.numOutputs_);
  if (!m_.outputs_)
    return outOfMemory("outputs");
  for (size_t k = 0; k < m_.numOutputs_; ++k) {
    int32_t idx = outs->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (idx < 0 || static_cast<size_t>(idx) >= m_.numValues_)
      return fail(Error::InvalidProgram, "outputs[%zu] = %d out of range (%zu values)", k, idx,
                  m_.numValues_);
    m_.outputs_[k] = static_cast<uint32_t>(idx);
  }
  return Error::Ok;
}

Error Method::Loader::checkArgs(size_t pc, const char *what,
                                const flatbuffers::Vector<int32_t> *args, Span<EValue *> &out) {
  if (args == nullptr)
    return fail(Error::InvalidProgram, "instruction %zu: %s args is missing", pc, what);
  size_t n = args->size();
  EValue **ptrs = alloc<EValue *>(n);
  if (ptrs == nullptr)
    return outOfMemory("instruction args");
  for (size_t k = 0; k < n; ++k) {
    int32_t idx = args->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (idx < 0 || static_cast<size_t>(idx) >= m_.numValues_)
      return fail(Error::InvalidProgram, "instruction %zu: %s arg %zu = %d out of range (%zu values)",
                  pc, what, k, idx, m_.numValues_);
    ptrs[k] = &m_.values_[idx];
  }
  out = Span<EValue *>(ptrs, n);
  return Error::Ok;
}

Error Method::Loader::loadInstructions() {
  const fb::Chain *chain = plan_.chains()->Get(0);
  if (chain == nullptr || chain->instructions() == nullptr)
    return fail(Error::InvalidProgram, "chains[0].instructions is missing");
  const auto *instrs = chain->instructions();
  m_.numInstrs_ = instrs->size();
  m_.instrs_ = alloc<Instr>(m_.numInstrs_);
  if (m_.instrs_ == nullptr)
    return outOfMemory("instructions");

  const auto *ops = plan_.operators();
  m_.numOps_ = ops ? ops->size() : 0;
  m_.ops_ = alloc<Op>(m_.numOps_);
  if (m_.ops_ == nullptr)
    return outOfMemory("operators");
  const size_t numDelegates = plan_.delegates()->size();
  delegateUses_.assign(numDelegates, 0);
  delegateFirstUse_.assign(numDelegates, 0);
  delegateSecondUse_.assign(numDelegates, 0);

  for (size_t pc = 0; pc < m_.numInstrs_; ++pc) {
    const fb::Instruction *ins = instrs->Get(static_cast<flatbuffers::uoffset_t>(pc));
    if (ins == nullptr)
      return fail(Error::InvalidProgram, "instruction %zu is null", pc);
    Instr &out = m_.instrs_[pc];
    auto valueIndex = [&](int32_t v, const char *field, uint32_t &dst) {
      if (v < 0 || static_cast<size_t>(v) >= m_.numValues_)
        return fail(Error::InvalidProgram, "instruction %zu: %s %d out of range (%zu values)", pc,
                    field, v, m_.numValues_);
      dst = static_cast<uint32_t>(v);
      return Error::Ok;
    };
    switch (ins->instr_args_type()) {
    case fb::InstructionArguments::KernelCall: {
      const fb::KernelCall *kc = ins->instr_args_as_KernelCall();
      if (!kc)
        return fail(Error::InvalidProgram, "instruction %zu: KernelCall table is missing", pc);
      int32_t op = kc->op_index();
      if (op < 0 || static_cast<size_t>(op) >= m_.numOps_)
        return fail(Error::InvalidProgram,
                    "instruction %zu: KernelCall op_index %d out of range (%zu operators)", pc,
                    op, m_.numOps_);
      out.kind = Kind::Kernel;
      out.a = static_cast<uint32_t>(op);
      PTEC_TRY(checkArgs(pc, "KernelCall", kc->args(), out.args));
      m_.ops_[op].used = true;
      break;
    }
    case fb::InstructionArguments::DelegateCall: {
      const fb::DelegateCall *dc = ins->instr_args_as_DelegateCall();
      if (!dc)
        return fail(Error::InvalidProgram, "instruction %zu: DelegateCall table is missing", pc);
      int32_t d = dc->delegate_index();
      if (d < 0 || static_cast<size_t>(d) >= numDelegates)
        return fail(Error::InvalidProgram,
                    "instruction %zu: DelegateCall delegate_index %d out of range (%zu "
                    "delegates)",
                    pc, d, numDelegates);
      out.kind = Kind::Delegate;
      out.a = static_cast<uint32_t>(d);
      PTEC_TRY(checkArgs(pc, "DelegateCall", dc->args(), out.args));
      if (delegateUses_[d] == 0)
        delegateFirstUse_[d] = pc;
      else if (delegateUses_[d] == 1)
        delegateSecondUse_[d] = pc;
      ++delegateUses_[d];
      break;
    }
    case fb::InstructionArguments::MoveCall: {
      const fb::MoveCall *mc = ins->instr_args_as_MoveCall();
      if (!mc)
        return fail(Error::InvalidProgram, "instruction %zu: MoveCall table is missing", pc);
      out.kind = Kind::Move;
      PTEC_TRY(valueIndex(mc->move_from(), "MoveCall move_from", out.a));
      PTEC_TRY(valueIndex(mc->move_to(), "MoveCall move_to", out.b));
      // Kernel layouts are checked per value at load; a move must not bring
      // a tensor of another dim order into a value a kernel reads.
      const EValue &from = m_.values_[out.a], &to = m_.values_[out.b];
      if (from.isTensor() && to.isTensor() &&
          !(from.toTensor().isContiguous() && to.toTensor().isContiguous()) &&
          !from.toTensor().sameDimOrder(to.toTensor()))
        return fail(Error::NotSupported,
                    "instruction %zu: MoveCall from value %u (dim_order %s) to value %u "
                    "(dim_order %s)",
                    pc, out.a, dimOrderString(from.toTensor()).c_str(), out.b,
                    dimOrderString(to.toTensor()).c_str());
      break;
    }
    case fb::InstructionArguments::JumpFalseCall: {
      const fb::JumpFalseCall *jf = ins->instr_args_as_JumpFalseCall();
      if (!jf)
        return fail(Error::InvalidProgram, "instruction %zu: JumpFalseCall table is missing", pc);
      out.kind = Kind::JumpFalse;
      PTEC_TRY(valueIndex(jf->cond_value_index(), "JumpFalseCall cond_value_index", out.a));
      const EValue &c = m_.values_[out.a];
      if (!c.isBool() && !(c.isTensor() && c.toTensor().dtype() == ScalarType::Bool))
        return fail(Error::InvalidProgram,
                    "instruction %zu: JumpFalseCall condition (value %u) is not a Bool or a "
                    "bool tensor",
                    pc, out.a);
      int32_t dest = jf->destination_instruction();
      // Destination == instruction count means "jump to the end".
      if (dest < 0 || static_cast<size_t>(dest) > m_.numInstrs_)
        return fail(Error::InvalidProgram,
                    "instruction %zu: JumpFalseCall destination %d out of range (%zu "
                    "instructions)",
                    pc, dest, m_.numInstrs_);
      out.b = static_cast<uint32_t>(dest);
      break;
    }
    case fb::InstructionArguments::FreeCall: {
      const fb::FreeCall *fc = ins->instr_args_as_FreeCall();
      if (!fc)
        return fail(Error::InvalidProgram, "instruction %zu: FreeCall table is missing", pc);
      out.kind = Kind::Free;
      PTEC_TRY(valueIndex(fc->value_index(), "FreeCall value_index", out.a));
      if (!m_.values_[out.a].isTensor())
        return fail(Error::InvalidProgram, "instruction %zu: FreeCall value %u is not a tensor",
                    pc, out.a);
      break;
    }
    default:
      return fail(Error::InvalidProgram, "instruction %zu: unknown instruction type tag %u", pc,
                  static_cast<unsigned>(ins->instr_args_type()));
    }
  }

  // Resolve every operator a KernelCall uses; report all missing ones at once.
  std::string missing;
  size_t numMissing = 0;
  for (size_t k = 0; k < m_.numOps_; ++k) {
    Op &op = m_.ops_[k];
    if (!op.used)
      continue;
    const fb::Operator *o = ops->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (o == nullptr || o->name() == nullptr)
      return fail(Error::InvalidProgram, "operators[%zu].name is missing", k);
    std::string full = o->name()->str();
    if (o->overload() != nullptr && o->overload()->size() > 0)
      full += "." + o->overload()->str();
    char *name = alloc<char>(full.size() + 1);
    if (name == nullptr)
      return outOfMemory("operator names");
    std::memcpy(name, full.c_str(), full.size() + 1);
    op.fullName = name;
    const KernelEntry *e = kernels_.find(name);
    if (e == nullptr || e->fn == nullptr) {
      missing += (numMissing++ ? ", " : "") + full;
      continue;
    }
    op.fn = e->fn;
    // Upstream's generated kernel wrappers take exactly schema arguments + 1
    // entries; check every call site here so a wrong emission fails at load.
    for (size_t pc = 0; pc < m_.numInstrs_; ++pc) {
      const Instr &in = m_.instrs_[pc];
      if (in.kind != Kind::Kernel || in.a != k)
        continue;
      if (e->numArgs < 1 || in.args.size() != static_cast<size_t>(e->numArgs))
        return fail(Error::InvalidProgram,
                    "instruction %zu (%s): KernelCall has %zu args, the kernel takes exactly "
                    "%d (%d schema arguments + 1 return)",
                    pc, name, in.args.size(), e->numArgs, e->numArgs - 1);
      std::string why;
      if (!kernelAcceptsDimOrders(e->dimOrders, {in.args.data(), in.args.size()}, m_.values_,
                                  &why))
        return fail(Error::NotSupported, "instruction %zu (%s): %s", pc, name, why.c_str());
    }
  }
  if (numMissing > 0) {
    // Built as a string, not through the fixed-size formatter: the list of
    // names may be long and must not be cut short.
    if (detail_ != nullptr)
      *detail_ = std::string("plan '") + m_.name_ + "' " + std::to_string(numMissing) +
                 (numMissing == 1 ? " operator" : " operators") + " without a kernel: " + missing;
    return Error::OperatorMissing;
  }

  // A delegate with scratch has per-call-site memory: it may not be shared.
  for (size_t d = 0; d < numDelegates; ++d) {
    const fb::BackendDelegate *bd = plan_.delegates()->Get(static_cast<flatbuffers::uoffset_t>(d));
    if (bd != nullptr && bd->scratch() != nullptr && bd->scratch()->size() > 0 &&
        delegateUses_[d] > 1)
      return fail(Error::InvalidProgram,
                  "delegate %zu declares scratch memory but is used by %u DelegateCalls "
                  "(instructions %zu and %zu); a delegate with scratch cannot be shared",
                  d, delegateUses_[d], delegateFirstUse_[d], delegateSecondUse_[d]);
  }
  return Error::Ok;
}

Error Method::Loader::loadDelegates() {
  const auto *dels = plan_.delegates();
  const size_t n = dels->size();
  m_.delegates_ = alloc<Delegate>(n);
  if (m_.delegates_ == nullptr)
    return outOfMemory("delegates");
  m_.numDelegates_ = n;

  struct Prepared {
    ProcessedBlob blob;
    Span<const CompileSpec> specs;
    Span<const Span<uint8_t>> scratch;
  };
  std::vector<Prepared> prepared(n);
  std::string sub;
  // First validate every entry, so a bad entry fails before any init() runs.
  for (size_t d = 0; d < n; ++d) {
    const fb::BackendDelegate *bd = dels->Get(static_cast<flatbuffers::uoffset_t>(d));
    if (bd == nullptr)
      return fail(Error::InvalidProgram, "delegate %zu is null", d);
    if (bd->id() == nullptr)
      return fail(Error::InvalidProgram, "delegate %zu: id is missing", d);
    const char *id = bd->id()->c_str();
    auto blob = m_.program_->delegateData(bd->processed(), &sub);
    if (!blob.ok())
      return fail(blob.error(), "delegate %zu (%s): %s", d, id, sub.c_str());
    prepared[d].blob = blob.get();

    const auto *specs = bd->compile_specs();
    size_t ns = specs ? specs->size() : 0;
    CompileSpec *cs = alloc<CompileSpec>(ns);
    if (cs == nullptr)
      return outOfMemory("compile specs");
    for (size_t k = 0; k < ns; ++k) {
      const fb::CompileSpec *s = specs->Get(static_cast<flatbuffers::uoffset_t>(k));
      if (s == nullptr || s->key() == nullptr || s->value() == nullptr)
        return fail(Error::InvalidProgram, "delegate %zu (%s): compile_specs[%zu] key or value "
                    "is missing", d, id, k);
      cs[k] = CompileSpec{s->key()->c_str(), s->value()->data(), s->value()->size()};
    }
    prepared[d].specs = Span<const CompileSpec>(cs, ns);

    const auto *scratch = bd->scratch();
    size_t nscr = scratch ? scratch->size() : 0;
    Span<uint8_t> *spans = alloc<Span<uint8_t>>(nscr);
    if (spans == nullptr)
      return outOfMemory("scratch");
    for (size_t k = 0; k < nscr; ++k) {
      const fb::DelegateScratch *s = scratch->Get(static_cast<flatbuffers::uoffset_t>(k));
      if (s == nullptr || s->allocation() == nullptr)
        return fail(Error::InvalidProgram, "delegate %zu (%s): scratch[%zu].allocation is missing",
                    d, id, k);
      uint32_t memId = s->allocation()->memory_id();
      if (memId == 0 || memId - 1 >= arenaSizes_.size())
        return fail(Error::InvalidProgram,
                    "delegate %zu (%s): scratch[%zu] memory_id %u out of range (%zu planned "
                    "arenas; id 0 is reserved)",
                    d, id, k, memId, arenaSizes_.size());
      uint64_t off = (uint64_t(s->allocation()->memory_offset_high()) << 32) |
                     s->allocation()->memory_offset_low();
      uint64_t size = s->size(), arenaSize = arenaSizes_[memId - 1];
      if (off > arenaSize || size > arenaSize - off)
        return fail(Error::InvalidProgram,
                    "delegate %zu (%s): scratch[%zu] offset %llu + %llu bytes runs past arena %u "
                    "(%llu bytes)",
                    d, id, k, (unsigned long long)off, (unsigned long long)size, memId,
                    (unsigned long long)arenaSize);
      uint8_t *base = m_.memory_->plannedBuffers()[memId - 1].data() + off;
      uint32_t align = s->alignment();
      if (align != 0 && ((align & (align - 1)) != 0 ||
                         reinterpret_cast<uintptr_t>(base) % align != 0))
        return fail(Error::InvalidProgram,
                    "delegate %zu (%s): scratch[%zu] alignment %u is not a power of two that "
                    "the planned offset satisfies",
                    d, id, k, align);
      spans[k] = Span<uint8_t>(base, static_cast<size_t>(size));
    }
    prepared[d].scratch = Span<const Span<uint8_t>>(spans, nscr);

    Backend *backend = findBackend(id);
    if (backend == nullptr)
      return fail(Error::NotFound, "delegate %zu: backend '%s' is not registered", d, id);
    if (!backend->isAvailable())
      return fail(Error::NotFound, "delegate %zu: backend '%s' is not available", d, id);
    m_.delegates_[d].id = id;
    m_.delegates_[d].backend = backend;
  }

  // Then init once per entry; on failure the ones already initialised are
  // destroyed (destroyDelegates).
  const ProgramNamedData namedData(*m_.program_);
  for (size_t d = 0; d < n; ++d) {
    Delegate &del = m_.delegates_[d];
    BackendInitContext ctx;
    ctx.runtimeAllocator = m_.memory_->runtimeAllocator();
    ctx.methodName = m_.name_;
    ctx.scratchBuffers = prepared[d].scratch;
    if (!prepared[d].scratch.empty())
      ctx.scratch = prepared[d].scratch[0];
    ctx.namedData = &namedData;
    char why[512] = "";
    ctx.errorMessage = why;
    ctx.errorMessageSize = sizeof why;
    Result<void *> h = del.backend->init(ctx, prepared[d].blob, prepared[d].specs);
    if (!h.ok()) {
      Error e = h.error();
      m_.destroyDelegates();
      why[sizeof why - 1] = '\0';
      return fail(e, "delegate %zu: backend '%s' init failed (%s)%s%s", d, del.id, toString(e),
                  why[0] ? ": " : "", why);
    }
    del.handle = h.get();
    del.initialized = true;
    recordBackendInit(del.id);
  }
  return Error::Ok;
}

Error Method::Loader::run() {
  PTEC_TRY(checkPresence());
  PTEC_TRY(loadArenas());
  PTEC_TRY(loadValues());
  PTEC_TRY(loadInputsOutputs());
  PTEC_TRY(loadInstructions());
  return loadDelegates();
}

Result<std::unique_ptr<Method>> Method::load(const Program &program, const char *name,
                                             MemoryManager &memory,
                                             const KernelResolver &kernels,
                                             std::string *detail) {
  if (name == nullptr)
    return failWith(detail, Error::InvalidArgument, "method name is null");
  auto plan = program.plan(name);
  if (!plan.ok()) {
    std::string names;
    for (const std::string &n : program.methodNames())
      names += (names.empty() ? "" : ", ") + n;
    return failWith(detail, Error::NotFound, "no method named '%s' (the program has: %s)", name,
                    names.empty() ? "none" : names.c_str());
  }
  if (memory.methodAllocator() == nullptr)
    return failWith(detail, Error::InvalidArgument, "memory manager has no method allocator");
  std::unique_ptr<Method> m(new (std::nothrow) Method());
  if (!m)
    return Error::MemoryAllocationFailed;
  m->program_ = &program;
  m->memory_ = &memory;
  std::snprintf(m->name_, sizeof(m->name_), "%s", name);
  Loader loader(*m, *plan.get(), kernels, detail);
  PTEC_TRY(loader.run());
  return m;
}

Method::~Method() { destroyDelegates(); }

void Method::destroyDelegates() {
  for (size_t d = numDelegates_; d-- > 0;) {
    Delegate &del = delegates_[d];
    if (del.initialized) {
      del.backend->destroy(del.handle);
      del.initialized = false;
      del.handle = nullptr;
    }
  }
}

// ---------------------------------------------------------------------------
// Inputs, execution, outputs
// ---------------------------------------------------------------------------

Error Method::fail(Error e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(errorDetail_, sizeof(errorDetail_), fmt, ap);
  va_end(ap);
  return e;
}

const EValue *Method::input(size_t i) const {
  return i < numInputs_ ? &values_[inputs_[i]] : nullptr;
}

bool Method::inputIsPlanned(size_t i) const { return i < numInputs_ && inputPlanned_[i] != 0; }

const EValue *Method::output(size_t i) const {
  return i < numOutputs_ ? &values_[outputs_[i]] : nullptr;
}

Error Method::setInput(size_t i, const Tensor &t) {
  if (i >= numInputs_)
    return fail(Error::InvalidArgument, "input %zu out of range (%zu inputs)", i, numInputs_);
  EValue &v = values_[inputs_[i]];
  if (!v.isTensor())
    return fail(Error::InvalidArgument, "input %zu is not a tensor", i);
  Tensor &dst = v.toTensor();
  if (dst.dtype() != t.dtype())
    return fail(Error::InvalidArgument, "input %zu: dtype %s, the method expects %s", i,
                toString(t.dtype()), toString(dst.dtype()));
  // A STATIC input takes exactly its declared shape (as upstream's resize of
  // a static tensor does); a DYNAMIC_BOUND one any shape of the same rank
  // within its declared upper bounds (InputShape.h). Refused before anything
  // runs, naming the input, the dimension and both sizes.
  if (auto plan = program_->plan(name_); plan.ok()) {
    const fb::Tensor *decl = plan.get()->values()->Get(inputs_[i])->val_as_Tensor();
    if (decl) {
      std::string why = inputShapeProblem(i, *decl, t.sizes());
      if (!why.empty())
        return fail(Error::InvalidArgument, "%s", why.c_str());
    }
  }
  if (inputPlanned_[i]) {
    size_t need = t.nbytes();
    if (need > dst.capacityBytes())
      return fail(Error::InvalidArgument,
                  "input %zu: %zu bytes do not fit the %zu planned bytes", i, need,
                  dst.capacityBytes());
    if (need > 0 && t.data() == nullptr)
      return fail(Error::InvalidArgument, "input %zu: tensor has no data", i);
    if (dst.resize(t.sizes()) != Error::Ok)
      return fail(Error::InvalidArgument, "input %zu: cannot resize to the given shape", i);
    // Converts from the caller's dim order to the program's when they differ.
    if (need > 0)
      dst.copyElementsFrom(t);
  } else {
    // A borrowed pointer is read in the program's dim order.
    if (t.dim() == dst.dim() && !t.sameDimOrder(dst))
      return fail(Error::InvalidArgument,
                  "input %zu: dim_order %s differs from the program's %s (only planned "
                  "inputs are converted)",
                  i, dimOrderString(t).c_str(), dimOrderString(dst).c_str());
    dst.setData(t.mutableData(), t.nbytes());
    if (dst.resize(t.sizes()) != Error::Ok)
      return fail(Error::InvalidArgument, "input %zu: cannot resize to the given shape", i);
  }
  inputSet_[i] = 1;
  return Error::Ok;
}

Error Method::setInput(size_t i, const EValue &v) {
  if (i >= numInputs_)
    return fail(Error::InvalidArgument, "input %zu out of range (%zu inputs)", i, numInputs_);
  if (v.isTensor())
    return setInput(i, v.toTensor());
  const EValue &cur = values_[inputs_[i]];
  if (cur.tag() != v.tag())
    return fail(Error::InvalidArgument, "input %zu: value kind differs from the program's", i);
  bool same = true;
  switch (v.tag()) {
  case EValue::Tag::None: break;
  case EValue::Tag::Int: same = v.toInt() == cur.toInt(); break;
  case EValue::Tag::Bool: same = v.toBool() == cur.toBool(); break;
  case EValue::Tag::Double: {
    double a = v.toDouble(), b = cur.toDouble();
    same = a == b || std::fabs(a - b) <= 1e-5 * std::fmax(1.0, std::fabs(b));
    break;
  }
  case EValue::Tag::String:
    same = v.stringSize() == cur.stringSize() &&
           std::memcmp(v.stringData(), cur.stringData(), v.stringSize()) == 0;
    break;
  default:
    return fail(Error::NotSupported, "input %zu: list inputs are not supported", i);
  }
  if (!same)
    return fail(Error::InvalidArgument,
                "input %zu: a non-tensor input must equal the value the program was "
                "compiled with",
                i);
  inputSet_[i] = 1;
  return Error::Ok;
}

Error Method::runKernel(size_t pc, const Instr &in) {
  const Op &op = ops_[in.a];
  KernelContext ctx(memory_->tempAllocator());
  Error e = op.fn(ctx, in.args);
  if (e != Error::Ok)
    return fail(e, "instruction %zu (%s) failed: %s%s%s", pc, op.fullName, toString(e),
                ctx.message()[0] ? ": " : "", ctx.message());
  return Error::Ok;
}

Error Method::runDelegate(size_t pc, const Instr &in) {
  const Delegate &d = delegates_[in.a];
  BackendExecuteContext ctx;
  ctx.tempAllocator = memory_->tempAllocator();
  ctx.methodName = name_;
  char why[512] = "";
  ctx.errorMessage = why;
  ctx.errorMessageSize = sizeof why;
  Error e = d.backend->execute(ctx, d.handle, in.args);
  if (e != Error::Ok) {
    why[sizeof why - 1] = '\0';
    return fail(e, "instruction %zu (delegate %u, backend %s) failed: %s%s%s", pc, in.a, d.id,
                toString(e), why[0] ? ": " : "", why);
  }
  return Error::Ok;
}

Error Method::evalCondition(size_t pc, const EValue &c, bool &out) {
  if (c.isBool()) {
    out = c.toBool();
    return Error::Ok;
  }
  if (c.isTensor() && c.toTensor().dtype() == ScalarType::Bool) {
    const Tensor &t = c.toTensor();
    int64_t n = t.numel();
    if (n > 0 && t.data() == nullptr)
      return fail(Error::InvalidState, "instruction %zu (JumpFalseCall): condition tensor has no data", pc);
    const uint8_t *p = t.dataAs<const uint8_t>();
    out = true;
    for (int64_t k = 0; k < n && out; ++k)
      out = p[k] != 0;
    return Error::Ok;
  }
  return fail(Error::InvalidProgram,
              "instruction %zu (JumpFalseCall): condition is not a Bool or bool tensor", pc);
}

void Method::appendSourceOf(size_t pc) {
  // The program's Chain.stacktrace (aot-compile --emit-stacktraces, or
  // upstream's stacktraces): the innermost frame is the user's line.
  auto plan = program_->plan(name_);
  if (!plan.ok() || !plan.get()->chains() || plan.get()->chains()->size() == 0)
    return;
  const auto *frames = plan.get()->chains()->Get(0)->stacktrace();
  if (!frames || pc >= frames->size())
    return;
  const fb::FrameList *list = frames->Get(static_cast<uint32_t>(pc));
  if (!list || !list->items() || list->items()->size() == 0)
    return;
  const fb::Frame *f = list->items()->Get(list->items()->size() - 1);
  size_t used = std::strlen(errorDetail_);
  const char *node = f->name() ? f->name()->c_str() : "";
  if (f->filename() && f->filename()->size())
    std::snprintf(errorDetail_ + used, sizeof errorDetail_ - used, " (from %s:%d%s%s)",
                  f->filename()->c_str(), f->lineno(), *node ? ", node " : "", node);
  else if (*node)
    std::snprintf(errorDetail_ + used, sizeof errorDetail_ - used, " (from node %s)", node);
}

Error Method::execute() {
  errorDetail_[0] = '\0';
  for (size_t i = 0; i < numInputs_; ++i)
    if (!inputSet_[i])
      return fail(Error::InvalidArgument, "input %zu has not been set", i);
  MemoryAllocator *temp = memory_->tempAllocator();
  if (temp)
    temp->reset();
  size_t pc = 0, steps = 0;
  const auto start = std::chrono::steady_clock::now();
  const auto budget = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(timeLimitSeconds_));
  while (pc < numInstrs_) {
    ++steps;
    const Instr &in = instrs_[pc];
    size_t next = pc + 1;
    Error e = Error::Ok;
    std::chrono::steady_clock::time_point started;
    if (profiler_)
      started = std::chrono::steady_clock::now();
    switch (in.kind) {
    case Kind::Kernel: e = runKernel(pc, in); break;
    case Kind::Delegate: e = runDelegate(pc, in); break;
    case Kind::Move: values_[in.b] = values_[in.a]; break;
    case Kind::JumpFalse: {
      bool c = false;
      e = evalCondition(pc, values_[in.a], c);
      if (e == Error::Ok && !c)
        next = in.b;
      break;
    }
    case Kind::Free:
      // A MoveCall may have replaced the value since load; check again.
      if (values_[in.a].isTensor())
        values_[in.a].toTensor().setData(nullptr, 0);
      else
        e = fail(Error::InvalidProgram, "instruction %zu (FreeCall): value %u is not a tensor",
                 pc, in.a);
      break;
    }
    if (profiler_)
      profiler_->instructionDone(
          pc, static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now() - started)
                                        .count()));
    if (temp)
      temp->reset();
    if (e != Error::Ok) {
      lastSteps_ = steps;
      appendSourceOf(pc);
      return e;
    }
    if (next <= pc && timeLimitSeconds_ > 0 &&
        std::chrono::steady_clock::now() - start > budget) {
      lastSteps_ = steps;
      return fail(Error::InvalidProgram,
                  "stopped after %.3g s, the time limit (%zu instructions run, at the jump of "
                  "instruction %zu): the program does not terminate in time",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                  steps, pc);
    }
    pc = next;
  }
  lastSteps_ = steps;
  return Error::Ok;
}

} // namespace ptec::rt
