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

/// A list table (IntList, BoolList, TensorList, ...) with its items written
/// even when empty.
template <typename Native> Off<void> packItems(FBB &b, const Native &list) {
  auto items = b.CreateVector(list.items);
  typename Native::TableType::Builder builder(b);
  builder.add_items(items);
  return builder.Finish().Union();
}

Off<void> packValue(FBB &b, const fb::KernelTypesUnion &u) {
  switch (u.type) {
  case fb::KernelTypes::Tensor: return packTensor(b, *u.AsTensor()).Union();
  case fb::KernelTypes::String:
    return fb::CreateString(b, b.CreateString(u.AsString()->string_val)).Union();
  case fb::KernelTypes::IntList: return packItems(b, *u.AsIntList());
  case fb::KernelTypes::DoubleList: return packItems(b, *u.AsDoubleList());
  case fb::KernelTypes::BoolList: return packItems(b, *u.AsBoolList());
  case fb::KernelTypes::TensorList: return packItems(b, *u.AsTensorList());
  case fb::KernelTypes::OptionalTensorList: return packItems(b, *u.AsOptionalTensorList());
  default:
    // Null/Int/Bool/Double: the generated packer handles them; an unknown
    // tag (malformed-input tests) packs to no value.
    return u.Pack(b);
  }
}

Off<fb::EValue> packEValue(FBB &b, const fb::EValueT &e) {
  // NONE, or a tag without a value (malformed-input tests): no value.
  return fb::CreateEValue(b, e.val.type, e.val.value ? packValue(b, e.val) : Off<void>());
}

Off<fb::Instruction> packInstruction(FBB &b, const fb::InstructionT &in) {
  const fb::InstructionArgumentsUnion &u = in.instr_args;
  Off<void> v = 0;
  if (const auto *k = u.AsKernelCall())
    v = fb::CreateKernelCall(b, k->op_index, b.CreateVector(k->args)).Union();
  else if (const auto *d = u.AsDelegateCall())
    v = fb::CreateDelegateCall(b, d->delegate_index, b.CreateVector(d->args)).Union();
  else if (u.value)
    v = u.Pack(b);
  return fb::CreateInstruction(b, u.type, v);
}

/// The vector of `pack(b, *item)` over `items` (a vector of unique_ptrs).
template <typename Items, typename Pack>
auto packEach(FBB &b, const Items &items, Pack pack) {
  std::vector<decltype(pack(b, *items.front()))> packed;
  for (const auto &item : items)
    packed.push_back(pack(b, *item));
  return b.CreateVector(packed);
}

Off<fb::Chain> packChain(FBB &b, const fb::ChainT &c) {
  auto ins = b.CreateVector(c.inputs);
  auto outs = b.CreateVector(c.outputs);
  auto instructions = packEach(b, c.instructions, packInstruction);
  return fb::CreateChain(b, ins, outs, instructions);
}

Off<fb::Operator> packOperator(FBB &b, const fb::OperatorT &o) {
  return fb::CreateOperator(b, b.CreateString(o.name), b.CreateString(o.overload));
}

Off<fb::BackendDelegate> packDelegate(FBB &b, const fb::BackendDelegateT &d) {
  return fb::CreateBackendDelegate(b, &d);
}

Off<fb::ExecutionPlan> packPlan(FBB &b, const fb::ExecutionPlanT &p) {
  auto name = b.CreateString(p.name);
  auto values = packEach(b, p.values, packEValue);
  auto ins = b.CreateVector(p.inputs);
  auto outs = b.CreateVector(p.outputs);
  auto chains = packEach(b, p.chains, packChain);
  auto ops = packEach(b, p.operators, packOperator);
  auto delegates = packEach(b, p.delegates, packDelegate);
  auto sizes = b.CreateVector(p.non_const_buffer_sizes);
  return fb::CreateExecutionPlan(b, name, 0, values, ins, outs, chains, ops, delegates, sizes);
}

Off<fb::BackendDelegateInlineData> packInlineData(FBB &b,
                                                  const fb::BackendDelegateInlineDataT &d) {
  b.ForceVectorAlignment(d.data.size(), 1, 16);
  return fb::CreateBackendDelegateInlineData(b, b.CreateVector(d.data));
}

Off<fb::SubsegmentOffsets> packSubsegments(FBB &b, const fb::SubsegmentOffsetsT &s) {
  return fb::CreateSubsegmentOffsets(b, s.segment_index, b.CreateVector(s.offsets));
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
  auto pv = packEach(b, program.execution_plan, packPlan);
  auto cbv = b.CreateVector(std::vector<Off<fb::Buffer>>()); // deprecated; always empty
  auto iv = packEach(b, program.backend_delegate_data, packInlineData);
  auto sv = packEach(b, program.segments, [](FBB &fbb, const fb::DataSegmentT &s) {
    return fb::CreateDataSegment(fbb, s.offset, s.size);
  });
  Off<fb::SubsegmentOffsets> cs = 0;
  if (program.constant_segment)
    cs = packSubsegments(b, *program.constant_segment);
  Off<flatbuffers::Vector<Off<fb::SubsegmentOffsets>>> mv = 0;
  if (!program.mutable_data_segments.empty())
    mv = packEach(b, program.mutable_data_segments, packSubsegments);
  Off<flatbuffers::Vector<Off<fb::NamedData>>> nv = 0;
  if (!program.named_data.empty())
    nv = packEach(b, program.named_data,
                  [](FBB &fbb, const fb::NamedDataT &n) { return fb::CreateNamedData(fbb, &n); });
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

/// `call` (a KernelCallT, MoveCallT, ...) as the instruction that holds it.
template <typename Call> static std::unique_ptr<fb::InstructionT> instructionOf(Call &&call) {
  auto in = std::make_unique<fb::InstructionT>();
  in->instr_args.Set(std::forward<Call>(call));
  return in;
}

/// `val` as the EValue that holds it.
template <typename T> static fb::EValueT boxed(T &&val) {
  fb::EValueT v;
  v.val.Set(std::forward<T>(val));
  return v;
}

/// The EValue holding a `Native` (IntT, IntListT, ...) whose one field,
/// `field`, is `value`.
template <typename Native, typename Field, typename V>
static fb::EValueT boxed(Field Native::*field, V &&value) {
  Native n;
  n.*field = std::forward<V>(value);
  return boxed(std::move(n));
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

int PlanBuilder::intValue(int64_t x) { return push(boxed(&fb::IntT::int_val, x)); }
int PlanBuilder::boolValue(bool x) { return push(boxed(&fb::BoolT::bool_val, x)); }
int PlanBuilder::doubleValue(double x) { return push(boxed(&fb::DoubleT::double_val, x)); }
int PlanBuilder::noneValue() { return push(boxed(fb::NullT())); }

int PlanBuilder::intList(std::vector<int64_t> items) {
  return push(boxed(&fb::IntListT::items, std::move(items)));
}

int PlanBuilder::tensorList(std::vector<int32_t> items) {
  return push(boxed(&fb::TensorListT::items, std::move(items)));
}

int PlanBuilder::optionalTensorList(std::vector<int32_t> items) {
  return push(boxed(&fb::OptionalTensorListT::items, std::move(items)));
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
  chain().instructions.push_back(instructionOf(std::move(k)));
}

void PlanBuilder::delegateCall(int delegate, std::vector<int32_t> args) {
  fb::DelegateCallT d;
  d.delegate_index = delegate;
  d.args = std::move(args);
  chain().instructions.push_back(instructionOf(std::move(d)));
}

void PlanBuilder::move(int from, int to) {
  fb::MoveCallT m;
  m.move_from = from;
  m.move_to = to;
  chain().instructions.push_back(instructionOf(std::move(m)));
}

void PlanBuilder::jumpFalse(int cond, int destination) {
  fb::JumpFalseCallT j;
  j.cond_value_index = cond;
  j.destination_instruction = destination;
  chain().instructions.push_back(instructionOf(std::move(j)));
}

void PlanBuilder::freeValue(int value) {
  fb::FreeCallT f;
  f.value_index = value;
  chain().instructions.push_back(instructionOf(std::move(f)));
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

void useSegmentBlob(fb::BackendDelegateT &d, uint32_t segmentIndex) {
  d.processed->location = fb::DataLocation::SEGMENT;
  d.processed->index = segmentIndex;
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
