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

inline std::unique_ptr<fb::InstructionT> kernelCall(int op,
                                                    std::vector<int32_t> args) {
  fb::KernelCallT k;
  k.op_index = op;
  k.args = std::move(args);
  auto in = std::make_unique<fb::InstructionT>();
  in->instr_args.Set(std::move(k));
  return in;
}

inline std::unique_ptr<fb::InstructionT> delegateCall(int d,
                                                      std::vector<int32_t> args) {
  fb::DelegateCallT k;
  k.delegate_index = d;
  k.args = std::move(args);
  auto in = std::make_unique<fb::InstructionT>();
  in->instr_args.Set(std::move(k));
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
  chain->instructions.push_back(kernelCall(0, {0, 1, 2, 3, 3}));
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
  for (int i = 0; i < calls; ++i)
    chain->instructions.push_back(delegateCall(0, {0, 1}));
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

} // namespace ptec::pte::testing
