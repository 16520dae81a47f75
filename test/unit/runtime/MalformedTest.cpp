// Malformed programs: every one fails with a clear error naming the field,
// never a crash (run these under ASan/UBSan: PTEC_SANITIZER=address).
#include "test/unit/runtime/RuntimeTestHelpers.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <random>

using namespace ptec::rt;
using namespace ptec::rt::test;
using Catch::Matchers::Contains;

namespace {

Error programError(const std::vector<uint8_t> &bytes, std::string &detail) {
  auto m = Module::fromBytes(bytes.data(), bytes.size(), testOptions(), &detail);
  return m.ok() ? Error::Ok : m.error();
}

void put64(std::vector<uint8_t> &b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    b[at + i] = uint8_t(v >> (8 * i));
}

/// A program with a constant segment, so the file has an extended header.
std::vector<uint8_t> programWithSegment() {
  fb::ProgramT p = addProgram();
  std::vector<float> w = {1, 2, 3, 4};
  std::vector<uint8_t> seg = constantSegment(p, 0, {bytesOf(w)});
  return serialize(p, {seg});
}

} // namespace

TEST_CASE("file-level corruption is rejected", "[runtime][malformed]") {
  std::string detail;
  std::vector<uint8_t> good = programWithSegment();
  REQUIRE(programError(good, detail) == Error::Ok);

  SECTION("bad identifier") {
    auto b = good;
    std::memcpy(b.data() + 4, "XXXX", 4);
    REQUIRE(programError(b, detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("expected file identifier 'ET12', found 'XXXX'"));
  }
  SECTION("other ET version") {
    auto b = good;
    std::memcpy(b.data() + 4, "ET99", 4);
    REQUIRE(programError(b, detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("incompatible"));
  }
  SECTION("empty and tiny files") {
    REQUIRE(programError({}, detail) == Error::InvalidProgram);
    REQUIRE(programError({1, 2, 3}, detail) == Error::InvalidProgram);
  }
  SECTION("every truncation fails cleanly") {
    for (size_t n = 0; n < good.size(); n += (n < 256 ? 1 : 7)) {
      std::vector<uint8_t> b(good.begin(), good.begin() + n);
      INFO("truncated to " << n);
      REQUIRE(programError(b, detail) != Error::Ok);
    }
  }
  SECTION("program_size past the end") {
    auto b = good;
    put64(b, 16, good.size() + 1);
    REQUIRE(programError(b, detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("program_size"));
  }
  SECTION("segment_base_offset past the end") {
    auto b = good;
    put64(b, 24, good.size() + 128);
    REQUIRE(programError(b, detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("past the end of the file"));
  }
  SECTION("huge segment_data_size does not overflow") {
    auto b = good;
    put64(b, 32, UINT64_MAX - 4);
    REQUIRE(programError(b, detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("overflows"));
  }
  SECTION("header length below the minimum") {
    auto b = good;
    b[12] = 8;
    b[13] = b[14] = b[15] = 0;
    REQUIRE(programError(b, detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("length 8"));
  }
  SECTION("root offset out of range") {
    auto b = good;
    b[0] = b[1] = b[2] = 0xff;
    REQUIRE(programError(b, detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("root table offset"));
  }
  SECTION("misaligned program buffer") {
    std::vector<uint8_t> storage(good.size() + 1);
    std::memcpy(storage.data() + 1, good.data(), good.size());
    DataLoader l = DataLoader::fromBuffer(storage.data() + 1, good.size());
    auto p = Program::load(l, Verification::Full, &detail);
    REQUIRE(p.error() == Error::InvalidArgument);
    REQUIRE_THAT(detail, Contains("aligned"));
  }
  SECTION("corrupted flatbuffer offsets fail verification") {
    auto b = good;
    // Point the root table at the last 4 bytes of the program.
    uint64_t programSize = 0;
    std::memcpy(&programSize, b.data() + 16, 8);
    uint32_t root = static_cast<uint32_t>(programSize - 4);
    std::memcpy(b.data(), &root, 4);
    REQUIRE(programError(b, detail) == Error::InvalidProgram);
  }
}

TEST_CASE("segment table problems are rejected at program load", "[runtime][malformed]") {
  std::string detail;
  SECTION("constant segment index out of range") {
    fb::ProgramT p = addProgram();
    std::vector<float> w = {1, 2};
    std::vector<uint8_t> seg = constantSegment(p, 0, {bytesOf(w)});
    p.constant_segment->segment_index = 5;
    REQUIRE(programError(serialize(p, {seg}), detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("constant_segment.segment_index 5 out of range (1 segments)"));
  }
  SECTION("mutable data segment index out of range") {
    fb::ProgramT p = addProgram();
    addMutableSegment(p, 3);
    REQUIRE(programError(serialize(p, {{}}), detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("mutable_data_segments[0].segment_index 3"));
  }
  SECTION("a segment past the end of the file") {
    std::vector<uint8_t> b = programWithSegment();
    // The constant segment (16 bytes) is read from the file, whatever
    // segment_data_size claims (spec 2.2); 8 claimed bytes and a file cut
    // there leave it short.
    uint64_t base = 0;
    std::memcpy(&base, b.data() + 24, 8);
    put64(b, 32, 8);
    b.resize(base + 8);
    REQUIRE(programError(b, detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("segments[0] [0, +16)"));
    REQUIRE_THAT(detail, Contains("runs past the end of the file"));
  }
  // forward returning one constant tensor of `sizes` (data_buffer_idx
  // `index`) over a constant segment holding `w`, its entry moved to
  // `offset` when one is given, does not load.
  auto constantRefused = [&](std::vector<float> w, std::vector<int32_t> sizes, uint32_t index,
                             int64_t offset = -1) {
    fb::ProgramT p;
    PlanBuilder b(addPlan(p, "forward"));
    std::vector<uint8_t> seg = constantSegment(p, 0, {bytesOf(w)});
    if (offset >= 0)
      p.constant_segment->offsets[1] = static_cast<uint64_t>(offset);
    b.plan().outputs = {b.tensor(sizes, index)};
    REQUIRE(loadMethodError(serialize(p, {seg}), "forward", detail) == Error::InvalidProgram);
  };
  SECTION("constant offset past the segment") {
    constantRefused({1, 2}, {4}, 1); // needs 16 bytes, the entry has 8
    REQUIRE_THAT(detail, Contains("value 0"));
    REQUIRE_THAT(detail, Contains("runs past the constant segment"));
  }
  SECTION("constant offset not aligned to the element size") {
    constantRefused({1, 2, 3}, {2}, 1, 2);
    REQUIRE_THAT(detail, Contains("value 0: constant data is not aligned"));
  }
  SECTION("constant index past the offsets") {
    constantRefused({1, 2}, {2}, 9);
    REQUIRE_THAT(detail, Contains("data_buffer_idx 9 out of range"));
  }
}

TEST_CASE("malformed values are rejected at method load", "[runtime][malformed]") {
  std::string detail;
  fb::ProgramT p = addProgram();
  PlanBuilder b(*p.execution_plan[0]);
  // Loading forward, as edited so far, gives `want`, the detail holding `why`.
  auto expectLoad = [&](Error want, const char *why = nullptr) {
    REQUIRE(loadMethodError(serialize(p, {{}}), "forward", detail) == want);
    if (why)
      REQUIRE_THAT(detail, Contains(why));
  };

  SECTION("input index out of range") {
    b.plan().inputs = {0, 99};
    expectLoad(Error::InvalidProgram, "plan 'forward' inputs[1] = 99 out of range (4 values)");
  }
  SECTION("output index out of range") {
    b.plan().outputs = {-1};
    expectLoad(Error::InvalidProgram, "outputs[0] = -1 out of range");
  }
  SECTION("kernel arg index out of range") {
    b.kernelCall(0, {0, 1, 2, 3, 40});
    expectLoad(Error::InvalidProgram,
               "instruction 1: KernelCall arg 4 = 40 out of range (4 values)");
  }
  SECTION("unknown value union tag") {
    b.plan().values[2]->val.Reset();
    b.plan().values[2]->val.type = static_cast<fb::KernelTypes>(200);
    expectLoad(Error::InvalidProgram, "value 2: unknown value type tag 200");
  }
  SECTION("NONE value tag") {
    b.plan().values[2]->val.Reset();
    expectLoad(Error::InvalidProgram, "value 2: unknown value type tag 0");
  }
  SECTION("a known value tag without its table") {
    b.plan().values[2]->val.Reset();
    b.plan().values[2]->val.type = fb::KernelTypes::Int;
    expectLoad(Error::InvalidProgram, "value 2: tag Int but no Int table");
  }
  SECTION("a known instruction kind without its table") {
    b.plan().chains[0]->instructions[0]->instr_args.Reset();
    b.plan().chains[0]->instructions[0]->instr_args.type = fb::InstructionArguments::MoveCall;
    expectLoad(Error::InvalidProgram, "instruction 0: MoveCall table is missing");
  }
  SECTION("IntList item out of range") {
    b.intList({2, 40});
    expectLoad(Error::InvalidProgram,
               "plan 'forward' value 4: IntList item 40 out of range (5 values)");
  }
  SECTION("IntList negative index") {
    b.intList({-3});
    expectLoad(Error::InvalidProgram, "IntList item -3 out of range");
  }
  SECTION("IntList forward reference") {
    b.intList({5});
    b.intValue(1);
    expectLoad(Error::InvalidProgram, "IntList item 5 is not an earlier value");
  }
  SECTION("IntList referring to itself (a cycle)") {
    b.intList({4});
    expectLoad(Error::InvalidProgram, "IntList item 4 is not an earlier value");
  }
  SECTION("IntList of a tensor") {
    b.intList({0});
    expectLoad(Error::InvalidProgram, "IntList item 0 is not an Int");
  }
  SECTION("TensorList of an Int") {
    b.tensorList({0, 2});
    expectLoad(Error::InvalidProgram, "TensorList item 2 is not a Tensor");
  }
  SECTION("OptionalTensorList with -1 and None is fine") {
    int none = b.noneValue();
    b.optionalTensorList({0, -1, none});
    expectLoad(Error::Ok);
  }
  SECTION("tensor rank 17") {
    b.tensor(std::vector<int32_t>(17, 1));
    expectLoad(Error::InvalidProgram, "value 4: tensor rank 17 exceeds 16");
  }
  SECTION("dim_order not a permutation") {
    int t = b.tensor({2, 3});
    b.tensorAt(t).dim_order = {0, 0};
    expectLoad(Error::InvalidProgram, "dim_order is not a permutation");
  }
  SECTION("dim_order length differs from sizes") {
    int t = b.tensor({2, 3});
    b.tensorAt(t).dim_order = {0};
    expectLoad(Error::InvalidProgram, "dim_order has 1 entries, sizes has 2");
  }
  SECTION("negative size") {
    b.tensor({2, -3});
    expectLoad(Error::InvalidProgram, "sizes[1] is negative");
  }
  SECTION("huge sizes overflow the byte count") {
    b.tensor({1 << 30, 1 << 30, 1 << 30});
    expectLoad(Error::InvalidProgram, "byte size overflows");
  }
  SECTION("invalid scalar type") {
    int t = b.tensor({2});
    b.tensorAt(t).scalar_type = static_cast<fb::ScalarType>(9);
    expectLoad(Error::InvalidProgram, "scalar_type 9 is not supported");
  }
  SECTION("storage_offset") {
    int t = b.tensor({2});
    b.tensorAt(t).storage_offset = 4;
    expectLoad(Error::NotSupported);
  }
  SECTION("DYNAMIC_UNBOUND") {
    int t = b.tensor({2});
    b.tensorAt(t).shape_dynamism = fb::TensorShapeDynamism::DYNAMIC_UNBOUND;
    expectLoad(Error::NotSupported, "DYNAMIC_UNBOUND");
  }
  SECTION("planned offset past the arena") {
    b.tensorAt(3).allocation_info->memory_offset_low = 40; // arena is 48 bytes
    expectLoad(Error::InvalidProgram,
               "value 3: planned offset 40 + 16 bytes runs past arena 1 (48 bytes)");
  }
  SECTION("planned offset not aligned to the element size") {
    b.tensorAt(3).allocation_info->memory_offset_low = 6;
    expectLoad(Error::InvalidProgram,
               "value 3: planned data is not aligned to its 4-byte elements");
  }
  SECTION("planned offset high bits") {
    b.tensorAt(3).allocation_info->memory_offset_high = 1;
    expectLoad(Error::InvalidProgram, "runs past arena 1");
  }
  SECTION("memory_id 0") {
    b.tensorAt(0).allocation_info->memory_id = 0;
    expectLoad(Error::InvalidProgram, "value 0: planned tensor has memory_id 0");
  }
  SECTION("memory_id past the arenas") {
    b.tensorAt(0).allocation_info->memory_id = 7;
    expectLoad(Error::InvalidProgram, "memory_id 7 out of range (1 planned arenas)");
  }
  SECTION("huge arena size fails cleanly") {
    b.plan().non_const_buffer_sizes[1] = INT64_MAX;
    expectLoad(Error::MemoryAllocationFailed, "maxPlannedBytes");
  }
  SECTION("negative arena size") {
    b.plan().non_const_buffer_sizes[1] = -16;
    expectLoad(Error::InvalidProgram);
  }
  SECTION("mutable initial data without a mutable segment") {
    b.tensorAt(0).data_buffer_idx = 1;
    expectLoad(Error::InvalidProgram, "no mutable_data_segments");
  }
  SECTION("unknown instruction tag") {
    auto in = std::make_unique<fb::InstructionT>();
    in->instr_args.type = static_cast<fb::InstructionArguments>(77);
    b.chain().instructions.push_back(std::move(in));
    expectLoad(Error::InvalidProgram, "instruction 1: unknown instruction type tag 77");
  }
  SECTION("op_index out of range") {
    b.kernelCall(5, {0});
    expectLoad(Error::InvalidProgram, "op_index 5 out of range (1 operators)");
  }
  SECTION("wrong kernel arg count") {
    b.kernelCall(0, {0, 1, 2, 3});
    expectLoad(Error::InvalidProgram,
               "instruction 1 (aten::add.out): KernelCall has 4 args, the kernel takes "
               "exactly 5 (4 schema arguments + 1 return)");
  }
  SECTION("JumpFalseCall destination and condition") {
    int yes = b.boolValue(true);
    b.jumpFalse(yes, 9);
    expectLoad(Error::InvalidProgram, "destination 9 out of range");
    b.chain().instructions.pop_back();
    b.jumpFalse(2, 0); // value 2 is an Int
    expectLoad(Error::InvalidProgram, "condition (value 2) is not a Bool");
    b.chain().instructions.pop_back();
    b.jumpFalse(50, 0);
    expectLoad(Error::InvalidProgram, "cond_value_index 50 out of range");
  }
  SECTION("MoveCall and FreeCall indices") {
    b.move(0, 12);
    expectLoad(Error::InvalidProgram, "MoveCall move_to 12 out of range");
    b.chain().instructions.pop_back();
    b.freeValue(-2);
    expectLoad(Error::InvalidProgram, "FreeCall value_index -2 out of range");
    b.chain().instructions.pop_back();
    b.freeValue(2);
    expectLoad(Error::InvalidProgram, "FreeCall value 2 is not a tensor");
  }
  SECTION("missing delegates vector") {
    fb::ProgramT q = addProgram();
    std::vector<uint8_t> bytes;
    {
      // Generated Pack() omits empty vectors; upstream requires `delegates`.
      flatbuffers::FlatBufferBuilder fbb;
      fb::FinishProgramBuffer(fbb, fb::Program::Pack(fbb, &q));
      bytes.assign(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
    }
    REQUIRE(loadMethodError(bytes, "forward", detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("delegates is missing"));
  }
}

TEST_CASE("missing kernels are reported together, by name", "[runtime][malformed]") {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  int x = b.plannedTensor({2}, 1, 0);
  b.kernelCall(b.op("aten::frobnicate", "out"), {x});
  b.kernelCall(b.op("aten::add", "out"), {x, x, x, x, x});
  b.kernelCall(b.op("my_ns::widget", ""), {x});
  b.kernelCall(0, {x});
  b.op("aten::unused", "out"); // never called: not reported
  emptyConstantSegment(p);
  std::string detail;
  REQUIRE(loadMethodError(serialize(p, {{}}), "forward", detail) == Error::OperatorMissing);
  REQUIRE_THAT(detail, Contains("2 operators without a kernel: aten::frobnicate.out, my_ns::widget"));
  REQUIRE_THAT(detail, !Contains("unused"));
}

TEST_CASE("a long list of missing kernels is reported in full", "[runtime][malformed]") {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  int x = b.plannedTensor({2}, 1, 0);
  for (int i = 0; i < 40; ++i)
    b.kernelCall(b.op("my_namespace::some_rather_long_operator_name_" + std::to_string(i), "out"),
                 {x});
  emptyConstantSegment(p);
  std::string detail;
  REQUIRE(loadMethodError(serialize(p, {{}}), "forward", detail) == Error::OperatorMissing);
  REQUIRE_THAT(detail, Contains("40 operators without a kernel"));
  REQUIRE_THAT(detail, Contains("some_rather_long_operator_name_0.out"));
  REQUIRE_THAT(detail, Contains("some_rather_long_operator_name_39.out"));
}

/// Lists, jumps, a shared delegate with a SEGMENT blob and a mutable segment:
/// a wider target for the corruption test.
std::vector<uint8_t> richProgram() {
  fb::ProgramT p;
  uint32_t blob = addInlineBlob(p, "inline");
  (void)blob;
  PlanBuilder b(addPlan(p, "forward"));
  addMutableSegment(p, 1);
  std::vector<float> w = {1, 2}, init = {3, 4};
  std::vector<uint8_t> seg = constantSegment(p, 0, {bytesOf(w)});
  int x = b.plannedTensor({2}, 1, 0);
  int state = b.plannedTensor({2}, 1, 16, fb::ScalarType::FLOAT, 1);
  int c = b.tensor({2}, 1);
  int i1 = b.intValue(1), i2 = b.intValue(2);
  int list = b.intList({i1, i2});
  int tl = b.tensorList({x, c});
  int none = b.noneValue();
  b.optionalTensorList({x, -1, none});
  int out = b.plannedTensor({2}, 1, 32);
  int sum = b.plannedTensor({1}, 1, 48);
  int yes = b.boolValue(true);
  int d = b.delegate("RtTestBackend", 0);
  useSegmentBlob(*b.plan().delegates[d], 2);
  b.delegateCall(d, {x, c, out});
  b.jumpFalse(yes, 3);
  b.delegateCall(d, {out, state, out});
  b.kernelCall(b.op("test::sum_ints", ""), {list, sum});
  b.move(out, tl);
  b.plan().inputs = {x};
  b.plan().outputs = {out, sum};
  return serialize(p, {seg, bytesOf(init), {'b', 'l', 'o', 'b'}});
}

TEST_CASE("random corruption never crashes the loader", "[runtime][malformed]") {
  registerTestBackends();
  std::vector<uint8_t> good = GENERATE(programWithSegment(), richProgram());
  {
    std::string detail;
    REQUIRE(loadMethodError(good, "forward", detail) == Error::Ok);
  }
  std::mt19937 rng(1234);
  int loaded = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::vector<uint8_t> b = good;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k)
      b[rng() % b.size()] = static_cast<uint8_t>(rng());
    std::string detail;
    auto m = Module::fromBytes(b.data(), b.size(), testOptions(), &detail);
    if (!m.ok()) {
      REQUIRE_FALSE(detail.empty());
      continue;
    }
    if (m.get()->loadMethod("forward") != Error::Ok) {
      REQUIRE_FALSE(m.get()->errorDetail().empty());
      continue;
    }
    ++loaded;
    Method *method = m.get()->method("forward");
    std::vector<std::vector<float>> storage(method->inputsSize()); // outlives execute()
    for (size_t i = 0; i < method->inputsSize(); ++i) {
      const EValue *in = method->input(i);
      if (in->isTensor() && in->toTensor().dtype() == ScalarType::Float &&
          in->toTensor().numel() <= 64) {
        Tensor t = in->toTensor();
        std::vector<float> &data = storage[i];
        data.assign(static_cast<size_t>(t.numel()), 1.0f);
        t.setData(data.data(), data.size() * sizeof(float));
        (void)method->setInput(i, t);
      }
    }
    (void)method->execute();
  }
  REQUIRE(loaded > 0); // some flips land in padding or data
}
