#include "test/unit/runtime/PteTestUtil.h"

#include <cstring>

namespace ptec::rt::test {
namespace {

using FBB = flatbuffers::FlatBufferBuilder;
template <typename T> using Off = flatbuffers::Offset<T>;

uint64_t alignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

Off<fb::Tensor> packTensor(FBB &b, const fb::TensorT &t) {
  auto sizes = b.CreateVector(t.sizes);
  auto order = b.CreateVector(t.dim_order);
  Off<fb::AllocationDetails> ai = 0;
  if (t.allocation_info)
    ai = fb::CreateAllocationDetails(b, t.allocation_info.get());
  Off<fb::ExtraTensorInfo> extra = 0;
  if (t.extra_tensor_info)
    extra = fb::CreateExtraTensorInfo(b, t.extra_tensor_info.get());
  return fb::CreateTensor(b, t.scalar_type, t.storage_offset, sizes, order, t.requires_grad,
                          t.data_buffer_idx, ai, t.layout, t.shape_dynamism, extra);
}

Off<fb::EValue> packEValue(FBB &b, const fb::EValueT &e) {
  const fb::KernelTypesUnion &u = e.val;
  Off<void> v = 0;
  switch (u.type) {
  case fb::KernelTypes::Tensor:
    if (u.value) v = packTensor(b, *u.AsTensor()).Union();
    break;
  case fb::KernelTypes::String:
    if (u.value) v = fb::CreateString(b, b.CreateString(u.AsString()->string_val)).Union();
    break;
  case fb::KernelTypes::IntList:
    if (u.value) v = fb::CreateIntList(b, b.CreateVector(u.AsIntList()->items)).Union();
    break;
  case fb::KernelTypes::DoubleList:
    if (u.value) v = fb::CreateDoubleList(b, b.CreateVector(u.AsDoubleList()->items)).Union();
    break;
  case fb::KernelTypes::BoolList: {
    if (u.value) {
      std::vector<uint8_t> items(u.AsBoolList()->items.begin(), u.AsBoolList()->items.end());
      v = fb::CreateBoolList(b, b.CreateVector(items)).Union();
    }
    break;
  }
  case fb::KernelTypes::TensorList:
    if (u.value) v = fb::CreateTensorList(b, b.CreateVector(u.AsTensorList()->items)).Union();
    break;
  case fb::KernelTypes::OptionalTensorList:
    if (u.value)
      v = fb::CreateOptionalTensorList(b, b.CreateVector(u.AsOptionalTensorList()->items))
              .Union();
    break;
  case fb::KernelTypes::NONE:
    break;
  default:
    // Null/Int/Bool/Double: the generated packer handles them; an unknown
    // tag (malformed-input tests) is written with no value.
    if (u.value)
      v = u.Pack(b);
    break;
  }
  return fb::CreateEValue(b, u.type, v);
}

Off<fb::Instruction> packInstruction(FBB &b, const fb::InstructionT &in) {
  const fb::InstructionArgumentsUnion &u = in.instr_args;
  Off<void> v = 0;
  switch (u.type) {
  case fb::InstructionArguments::KernelCall:
    if (u.value)
      v = fb::CreateKernelCall(b, u.AsKernelCall()->op_index, b.CreateVector(u.AsKernelCall()->args))
              .Union();
    break;
  case fb::InstructionArguments::DelegateCall:
    if (u.value)
      v = fb::CreateDelegateCall(b, u.AsDelegateCall()->delegate_index,
                                 b.CreateVector(u.AsDelegateCall()->args))
              .Union();
    break;
  case fb::InstructionArguments::NONE:
    break;
  default:
    if (u.value)
      v = u.Pack(b);
    break;
  }
  return fb::CreateInstruction(b, u.type, v);
}

Off<fb::Chain> packChain(FBB &b, const fb::ChainT &c) {
  auto ins = b.CreateVector(c.inputs);
  auto outs = b.CreateVector(c.outputs);
  std::vector<Off<fb::Instruction>> instrs;
  for (const auto &i : c.instructions)
    instrs.push_back(packInstruction(b, *i));
  auto iv = b.CreateVector(instrs);
  return fb::CreateChain(b, ins, outs, iv);
}

Off<fb::ExecutionPlan> packPlan(FBB &b, const fb::ExecutionPlanT &p) {
  auto name = b.CreateString(p.name);
  std::vector<Off<fb::EValue>> values;
  for (const auto &v : p.values)
    values.push_back(packEValue(b, *v));
  auto vv = b.CreateVector(values);
  auto ins = b.CreateVector(p.inputs);
  auto outs = b.CreateVector(p.outputs);
  std::vector<Off<fb::Chain>> chains;
  for (const auto &c : p.chains)
    chains.push_back(packChain(b, *c));
  auto cv = b.CreateVector(chains);
  std::vector<Off<fb::Operator>> ops;
  for (const auto &o : p.operators)
    ops.push_back(fb::CreateOperator(b, b.CreateString(o->name), b.CreateString(o->overload)));
  auto ov = b.CreateVector(ops);
  std::vector<Off<fb::BackendDelegate>> dels;
  for (const auto &d : p.delegates)
    dels.push_back(fb::CreateBackendDelegate(b, d.get()));
  auto dv = b.CreateVector(dels);
  auto sizes = b.CreateVector(p.non_const_buffer_sizes);
  return fb::CreateExecutionPlan(b, name, 0, vv, ins, outs, cv, ov, dv, sizes);
}

} // namespace

std::vector<uint8_t> serialize(fb::ProgramT &program,
                               const std::vector<std::vector<uint8_t>> &segments) {
  program.segments.clear();
  uint64_t off = 0;
  for (const auto &s : segments) {
    off = alignUp(off, 128);
    auto ds = std::make_unique<fb::DataSegmentT>();
    ds->offset = off;
    ds->size = s.size();
    program.segments.push_back(std::move(ds));
    off += s.size();
  }
  const uint64_t dataSize = off;

  FBB b;
  std::vector<Off<fb::ExecutionPlan>> plans;
  for (const auto &p : program.execution_plan)
    plans.push_back(packPlan(b, *p));
  auto pv = b.CreateVector(plans);
  std::vector<Off<fb::Buffer>> cbuf; // deprecated; always empty
  auto cbv = b.CreateVector(cbuf);
  std::vector<Off<fb::BackendDelegateInlineData>> inl;
  for (const auto &d : program.backend_delegate_data) {
    b.ForceVectorAlignment(d->data.size(), 1, 16);
    auto data = b.CreateVector(d->data);
    inl.push_back(fb::CreateBackendDelegateInlineData(b, data));
  }
  auto iv = b.CreateVector(inl);
  std::vector<Off<fb::DataSegment>> segs;
  for (const auto &s : program.segments)
    segs.push_back(fb::CreateDataSegment(b, s->offset, s->size));
  auto sv = b.CreateVector(segs);
  Off<fb::SubsegmentOffsets> cs = 0;
  if (program.constant_segment)
    cs = fb::CreateSubsegmentOffsets(b, program.constant_segment->segment_index,
                                     b.CreateVector(program.constant_segment->offsets));
  Off<flatbuffers::Vector<Off<fb::SubsegmentOffsets>>> mv = 0;
  if (!program.mutable_data_segments.empty()) {
    std::vector<Off<fb::SubsegmentOffsets>> ms;
    for (const auto &m : program.mutable_data_segments)
      ms.push_back(fb::CreateSubsegmentOffsets(b, m->segment_index, b.CreateVector(m->offsets)));
    mv = b.CreateVector(ms);
  }
  Off<flatbuffers::Vector<Off<fb::NamedData>>> nv = 0;
  if (!program.named_data.empty()) {
    std::vector<Off<fb::NamedData>> nd;
    for (const auto &n : program.named_data)
      nd.push_back(fb::CreateNamedData(b, n.get()));
    nv = b.CreateVector(nd);
  }
  auto root = fb::CreateProgram(b, program.version, pv, cbv, iv, sv, cs, mv, nv);
  fb::FinishProgramBuffer(b, root);

  std::vector<uint8_t> flat(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  if (dataSize == 0)
    return flat;

  const uint32_t kHeader = 32;
  std::vector<uint8_t> out;
  out.insert(out.end(), flat.begin(), flat.begin() + 8);
  uint8_t header[kHeader] = {};
  const uint64_t programSize = flat.size() + kHeader;
  const uint64_t base = alignUp(programSize, 128);
  std::memcpy(header, "eh00", 4);
  auto put32 = [&](int at, uint32_t v) { for (int i = 0; i < 4; ++i) header[at + i] = uint8_t(v >> (8 * i)); };
  auto put64 = [&](int at, uint64_t v) { for (int i = 0; i < 8; ++i) header[at + i] = uint8_t(v >> (8 * i)); };
  put32(4, kHeader);
  put64(8, programSize);
  put64(16, base);
  put64(24, dataSize);
  out.insert(out.end(), header, header + kHeader);
  out.insert(out.end(), flat.begin() + 8, flat.end());
  uint32_t rootOff;
  std::memcpy(&rootOff, out.data(), 4);
  rootOff += kHeader;
  std::memcpy(out.data(), &rootOff, 4);
  out.resize(base, 0);
  for (size_t i = 0; i < segments.size(); ++i) {
    out.resize(base + program.segments[i]->offset, 0);
    out.insert(out.end(), segments[i].begin(), segments[i].end());
  }
  return out;
}

PlanBuilder::PlanBuilder(fb::ExecutionPlanT &plan) : plan_(plan) {
  if (plan_.chains.empty())
    plan_.chains.push_back(std::make_unique<fb::ChainT>());
  if (plan_.non_const_buffer_sizes.empty())
    plan_.non_const_buffer_sizes = {0, 0};
}

int PlanBuilder::push(fb::EValueT &&v) {
  plan_.values.push_back(std::make_unique<fb::EValueT>(std::move(v)));
  return static_cast<int>(plan_.values.size() - 1);
}

/// `val` as the EValue that holds it.
template <typename T> static fb::EValueT boxed(T &&val) {
  fb::EValueT v;
  v.val.Set(std::forward<T>(val));
  return v;
}

static fb::TensorT makeTensor(std::vector<int32_t> sizes, fb::ScalarType dtype) {
  fb::TensorT t;
  t.scalar_type = dtype;
  for (size_t i = 0; i < sizes.size(); ++i)
    t.dim_order.push_back(static_cast<uint8_t>(i));
  t.sizes = std::move(sizes);
  return t;
}

static size_t elemSize(fb::ScalarType t) {
  switch (t) {
  case fb::ScalarType::DOUBLE: case fb::ScalarType::LONG: return 8;
  case fb::ScalarType::FLOAT: case fb::ScalarType::INT: return 4;
  default: return 1;
  }
}

int PlanBuilder::plannedTensor(std::vector<int32_t> sizes, uint32_t memoryId, uint64_t offset,
                               fb::ScalarType dtype, uint32_t dataBufferIdx) {
  fb::TensorT t = makeTensor(sizes, dtype);
  t.allocation_info = std::make_unique<fb::AllocationDetailsT>();
  t.allocation_info->memory_id = memoryId;
  t.allocation_info->memory_offset_low = static_cast<uint32_t>(offset);
  t.allocation_info->memory_offset_high = static_cast<uint32_t>(offset >> 32);
  t.data_buffer_idx = dataBufferIdx;
  uint64_t n = elemSize(dtype);
  for (int32_t s : sizes)
    n *= static_cast<uint64_t>(s);
  auto &arenas = plan_.non_const_buffer_sizes;
  if (memoryId >= 1) {
    if (arenas.size() <= memoryId)
      arenas.resize(memoryId + 1, 0);
    int64_t end = static_cast<int64_t>((offset + n + 15) / 16 * 16);
    if (arenas[memoryId] < end)
      arenas[memoryId] = end;
  }
  return push(boxed(std::move(t)));
}

int PlanBuilder::tensor(std::vector<int32_t> sizes, uint32_t dataBufferIdx, fb::ScalarType dtype) {
  fb::TensorT t = makeTensor(std::move(sizes), dtype);
  t.data_buffer_idx = dataBufferIdx;
  return push(boxed(std::move(t)));
}

int PlanBuilder::intValue(int64_t x) {
  fb::IntT i;
  i.int_val = x;
  return push(boxed(std::move(i)));
}

int PlanBuilder::boolValue(bool x) {
  fb::BoolT i;
  i.bool_val = x;
  return push(boxed(std::move(i)));
}

int PlanBuilder::doubleValue(double x) {
  fb::DoubleT i;
  i.double_val = x;
  return push(boxed(std::move(i)));
}

int PlanBuilder::noneValue() {
  return push(boxed(fb::NullT()));
}

int PlanBuilder::intList(std::vector<int64_t> items) {
  fb::IntListT l;
  l.items = std::move(items);
  return push(boxed(std::move(l)));
}

int PlanBuilder::tensorList(std::vector<int32_t> items) {
  fb::TensorListT l;
  l.items = std::move(items);
  return push(boxed(std::move(l)));
}

int PlanBuilder::optionalTensorList(std::vector<int32_t> items) {
  fb::OptionalTensorListT l;
  l.items = std::move(items);
  return push(boxed(std::move(l)));
}

int PlanBuilder::op(const std::string &name, const std::string &overload) {
  auto o = std::make_unique<fb::OperatorT>();
  o->name = name;
  o->overload = overload;
  plan_.operators.push_back(std::move(o));
  return static_cast<int>(plan_.operators.size() - 1);
}

void PlanBuilder::kernelCall(int op, std::vector<int32_t> args) {
  fb::KernelCallT k;
  k.op_index = op;
  k.args = std::move(args);
  auto in = std::make_unique<fb::InstructionT>();
  in->instr_args.Set(std::move(k));
  chain().instructions.push_back(std::move(in));
}

void PlanBuilder::delegateCall(int delegate, std::vector<int32_t> args) {
  fb::DelegateCallT d;
  d.delegate_index = delegate;
  d.args = std::move(args);
  auto in = std::make_unique<fb::InstructionT>();
  in->instr_args.Set(std::move(d));
  chain().instructions.push_back(std::move(in));
}

void PlanBuilder::move(int from, int to) {
  fb::MoveCallT m;
  m.move_from = from;
  m.move_to = to;
  auto in = std::make_unique<fb::InstructionT>();
  in->instr_args.Set(std::move(m));
  chain().instructions.push_back(std::move(in));
}

void PlanBuilder::jumpFalse(int cond, int destination) {
  fb::JumpFalseCallT j;
  j.cond_value_index = cond;
  j.destination_instruction = destination;
  auto in = std::make_unique<fb::InstructionT>();
  in->instr_args.Set(std::move(j));
  chain().instructions.push_back(std::move(in));
}

void PlanBuilder::freeValue(int value) {
  fb::FreeCallT f;
  f.value_index = value;
  auto in = std::make_unique<fb::InstructionT>();
  in->instr_args.Set(std::move(f));
  chain().instructions.push_back(std::move(in));
}

int PlanBuilder::delegate(const std::string &id, uint32_t inlineIndex,
                          std::vector<std::pair<std::string, std::vector<uint8_t>>> specs) {
  auto d = std::make_unique<fb::BackendDelegateT>();
  d->id = id;
  d->processed = std::make_unique<fb::BackendDelegateDataReferenceT>();
  d->processed->location = fb::DataLocation::INLINE;
  d->processed->index = inlineIndex;
  for (auto &s : specs) {
    auto cs = std::make_unique<fb::CompileSpecT>();
    cs->key = s.first;
    cs->value = s.second;
    d->compile_specs.push_back(std::move(cs));
  }
  plan_.delegates.push_back(std::move(d));
  return static_cast<int>(plan_.delegates.size() - 1);
}

fb::TensorT &PlanBuilder::tensorAt(int value) { return *plan_.values[value]->val.AsTensor(); }

fb::ExecutionPlanT &addPlan(fb::ProgramT &program, const std::string &name) {
  auto p = std::make_unique<fb::ExecutionPlanT>();
  p->name = name;
  p->chains.push_back(std::make_unique<fb::ChainT>());
  p->non_const_buffer_sizes = {0, 0};
  program.execution_plan.push_back(std::move(p));
  return *program.execution_plan.back();
}

uint32_t addInlineBlob(fb::ProgramT &program, const std::string &bytes) {
  auto d = std::make_unique<fb::BackendDelegateInlineDataT>();
  d->data.assign(bytes.begin(), bytes.end());
  program.backend_delegate_data.push_back(std::move(d));
  return static_cast<uint32_t>(program.backend_delegate_data.size() - 1);
}

std::vector<uint8_t> constantSegment(fb::ProgramT &program, uint32_t segmentIndex,
                                     const std::vector<std::vector<uint8_t>> &entries) {
  program.constant_segment = std::make_unique<fb::SubsegmentOffsetsT>();
  program.constant_segment->segment_index = segmentIndex;
  program.constant_segment->offsets.push_back(0); // placeholder
  std::vector<uint8_t> seg;
  for (size_t i = 0; i < entries.size(); ++i) {
    program.constant_segment->offsets.push_back(seg.size());
    seg.insert(seg.end(), entries[i].begin(), entries[i].end());
    if (i + 1 < entries.size())
      seg.resize(alignUp(seg.size(), 16), 0);
  }
  return seg;
}

void emptyConstantSegment(fb::ProgramT &program) {
  program.constant_segment = std::make_unique<fb::SubsegmentOffsetsT>();
  program.constant_segment->segment_index = 0;
  program.constant_segment->offsets = {0};
}

void addMutableSegment(fb::ProgramT &program, uint32_t segmentIndex) {
  auto ms = std::make_unique<fb::SubsegmentOffsetsT>();
  ms->segment_index = segmentIndex;
  ms->offsets = {0, 0};
  program.mutable_data_segments.push_back(std::move(ms));
}

} // namespace ptec::rt::test
