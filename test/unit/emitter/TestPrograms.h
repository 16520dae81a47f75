// Small programs built through the object API, shared by the writer and
// pte-inspect tests.
#pragma once

#include "serde/pte/PteWriter.h"

#include <memory>
#include <string>
#include <vector>

namespace ptec::pte::testing {
namespace fb = executorch_flatbuffer;

inline std::unique_ptr<fb::EValueT> tensorValue(fb::ScalarType st,
                                                std::vector<int32_t> sizes,
                                                uint32_t dataIdx = 0,
                                                int memId = -1,
                                                uint32_t offset = 0) {
  auto t = std::make_unique<fb::TensorT>();
  t->scalar_type = st;
  t->sizes = sizes;
  for (size_t i = 0; i < sizes.size(); ++i)
    t->dim_order.push_back(static_cast<uint8_t>(i));
  t->data_buffer_idx = dataIdx;
  if (memId >= 0) {
    t->allocation_info = std::make_unique<fb::AllocationDetailsT>();
    t->allocation_info->memory_id = static_cast<uint32_t>(memId);
    t->allocation_info->memory_offset_low = offset;
  }
  auto v = std::make_unique<fb::EValueT>();
  v->val.Set(std::move(*t));
  return v;
}

inline std::unique_ptr<fb::EValueT> intValue(int64_t x) {
  fb::IntT i;
  i.int_val = x;
  auto v = std::make_unique<fb::EValueT>();
  v->val.Set(std::move(i));
  return v;
}

// One instruction holding `call` (a KernelCallT, DelegateCallT, ...).
template <typename Call>
std::unique_ptr<fb::InstructionT> instruction(Call call) {
  auto in = std::make_unique<fb::InstructionT>();
  in->instr_args.Set(std::move(call));
  return in;
}

// forward(x: f32[2,3]) -> add.out(x, w, alpha, out): one constant weight.
inline std::unique_ptr<fb::ExecutionPlanT> addPlan(const std::string &name,
                                                   uint32_t weightIdx) {
  auto p = std::make_unique<fb::ExecutionPlanT>();
  p->name = name;
  p->values.push_back(tensorValue(fb::ScalarType::FLOAT, {2, 3}, 0, 1, 0));
  p->values.push_back(tensorValue(fb::ScalarType::FLOAT, {2, 3}, weightIdx));
  p->values.push_back(intValue(1));
  p->values.push_back(tensorValue(fb::ScalarType::FLOAT, {2, 3}, 0, 1, 32));
  p->inputs = {0};
  p->outputs = {3};
  auto chain = std::make_unique<fb::ChainT>();
  fb::KernelCallT add;
  add.op_index = 0;
  add.args = {0, 1, 2, 3, 3};
  chain->instructions.push_back(instruction(std::move(add)));
  p->chains.push_back(std::move(chain));
  auto op = std::make_unique<fb::OperatorT>();
  op->name = "aten::add";
  op->overload = "out";
  p->operators.push_back(std::move(op));
  p->non_const_buffer_sizes = {0, 64};
  return p;
}

inline std::unique_ptr<fb::BackendDelegateT>
demoDelegate(uint32_t blobIdx, std::vector<uint8_t> specValue = {4}) {
  auto d = std::make_unique<fb::BackendDelegateT>();
  d->id = "BackendWithCompilerDemo";
  d->processed = std::make_unique<fb::BackendDelegateDataReferenceT>();
  d->processed->location = fb::DataLocation::INLINE;
  d->processed->index = blobIdx;
  auto spec = std::make_unique<fb::CompileSpecT>();
  spec->key = "max_value";
  spec->value = std::move(specValue);
  d->compile_specs.push_back(std::move(spec));
  return d;
}

// forward(x: f32[2]) -> sin through the demo backend, called `calls` times
// on one shared delegate entry.
inline std::unique_ptr<fb::ExecutionPlanT> delegatePlan(const std::string &name,
                                                        uint32_t blobIdx,
                                                        int calls) {
  auto p = std::make_unique<fb::ExecutionPlanT>();
  p->name = name;
  p->values.push_back(tensorValue(fb::ScalarType::FLOAT, {2}, 0, 1, 0));
  p->values.push_back(tensorValue(fb::ScalarType::FLOAT, {2}, 0, 1, 16));
  p->inputs = {0};
  p->outputs = {1};
  auto chain = std::make_unique<fb::ChainT>();
  fb::DelegateCallT sin;
  sin.delegate_index = 0;
  sin.args = {0, 1};
  for (int i = 0; i < calls; ++i)
    chain->instructions.push_back(instruction(sin));
  p->chains.push_back(std::move(chain));
  p->delegates.push_back(demoDelegate(blobIdx));
  p->non_const_buffer_sizes = {0, 32};
  return p;
}

inline std::string demoBlob() {
  return "1version:0#op:demo::aten.sin.default, numel:2, "
         "dtype:torch.float32<debug_handle>1#";
}

inline uint32_t addBlob(ProgramBuilder &b, const std::string &s) {
  return b.addDelegateBlob(reinterpret_cast<const uint8_t *>(s.data()), s.size());
}

/// The sample of two methods: forward (addPlan over `weight`, a constant) and
/// `method` (delegatePlan: the demo blob, called `calls` times); a mutable
/// data segment too unless `mutableData` is empty.
inline void addSampleMethods(ProgramBuilder &b, const std::vector<uint8_t> &weight,
                             const std::vector<uint8_t> &mutableData, const std::string &method,
                             int calls) {
  uint32_t wi = b.addConstant(weight.data(), weight.size());
  if (!mutableData.empty())
    b.addMutableData(mutableData.data(), mutableData.size());
  uint32_t blob = addBlob(b, demoBlob());
  b.program.execution_plan.push_back(addPlan("forward", wi));
  b.program.execution_plan.push_back(delegatePlan(method, blob, calls));
}

} // namespace ptec::pte::testing
