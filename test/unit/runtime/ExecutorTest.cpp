// Loading and running small programs: planned and borrowed inputs, constants,
// mutable state, control flow, errors at execute time, several methods.
#include "test/unit/runtime/RuntimeTestHelpers.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>

using namespace ptec::rt;
using namespace ptec::rt::test;
using Catch::Matchers::Contains;

TEST_CASE("a tiny add program loads and runs", "[runtime]") {
  fb::ProgramT p = addProgram();
  auto m = loadModule(serialize(p, {{}}));
  REQUIRE(m->methodNames() == std::vector<std::string>{"forward"});
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  HostTensor x({2, 2}, {1, 2, 3, 4}), y({2, 2}, {10, 20, 30, 40});
  REQUIRE(m->setInput("forward", 0, x.t) == Error::Ok);
  REQUIRE(m->setInput("forward", 1, y.t) == Error::Ok);
  REQUIRE(m->execute("forward") == Error::Ok);
  REQUIRE(floatsOf(m->output("forward", 0)) == std::vector<float>{11, 22, 33, 44});
  REQUIRE(m->method("forward")->lastInstructionCount() == 1);
  // A second run with new inputs gives new outputs.
  x.data = {0, 0, 0, 1};
  REQUIRE(m->setInput("forward", 0, x.t) == Error::Ok);
  REQUIRE(m->execute("forward") == Error::Ok);
  REQUIRE(floatsOf(m->output("forward", 0)) == std::vector<float>{10, 20, 30, 41});
}

TEST_CASE("execute before every input is set is an error", "[runtime]") {
  fb::ProgramT p = addProgram();
  auto m = loadModule(serialize(p, {{}}));
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  HostTensor x({2, 2}, {1, 2, 3, 4});
  REQUIRE(m->setInput("forward", 0, x.t) == Error::Ok);
  REQUIRE(m->execute("forward") == Error::InvalidArgument);
  REQUIRE_THAT(m->errorDetail(), Contains("input 1 has not been set"));
}

TEST_CASE("a static input takes exactly its declared shape", "[runtime]") {
  fb::ProgramT p = addProgram();
  auto m = loadModule(serialize(p, {{}}));
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  HostTensor ok({2, 2}, {1, 2, 3, 4}), flat({4}, {1, 2, 3, 4}), small({1, 2}, {1, 2});
  REQUIRE(m->setInput("forward", 0, ok.t) == Error::Ok);
  REQUIRE(m->setInput("forward", 0, flat.t) == Error::InvalidArgument);
  REQUIRE_THAT(m->errorDetail(), Contains("input 0: shape [4], the method expects [2, 2]"));
  REQUIRE(m->setInput("forward", 1, small.t) == Error::InvalidArgument);
  REQUIRE_THAT(m->errorDetail(), Contains("input 1: shape [1, 2], the method expects [2, 2]"));
}

TEST_CASE("planned inputs are copied, unplanned inputs are borrowed", "[runtime]") {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  int x = b.plannedTensor({4}, 1, 0);
  int y = b.tensor({4}); // not planned: borrowed from the caller
  int alpha = b.intValue(1);
  int out = b.plannedTensor({4}, 1, 16);
  b.kernelCall(b.op("aten::add", "out"), {x, y, alpha, out, out});
  b.plan().inputs = {x, y};
  b.plan().outputs = {out};
  // Bounded dynamic shapes: inputs may be smaller than their planned size.
  for (int v : {x, y, out})
    b.plan().values[v]->val.AsTensor()->shape_dynamism = fb::TensorShapeDynamism::DYNAMIC_BOUND;
  emptyConstantSegment(p);
  auto m = loadModule(serialize(p, {{}}));
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  Method *method = m->method("forward");
  REQUIRE(method->inputIsPlanned(0));
  REQUIRE_FALSE(method->inputIsPlanned(1));

  HostTensor hx({4}, {1, 1, 1, 1}), hy({4}, {1, 2, 3, 4});
  REQUIRE(method->setInput(0, hx.t) == Error::Ok);
  REQUIRE(method->setInput(1, hy.t) == Error::Ok);
  REQUIRE(method->input(0)->toTensor().data() != hx.data.data());
  REQUIRE(method->input(1)->toTensor().data() == hy.data.data());
  // Changing host memory after setInput: the copy is unaffected, the borrow is.
  hx.data[0] = 100;
  hy.data[0] = 50;
  REQUIRE(method->execute() == Error::Ok);
  REQUIRE(floatsOf(method->output(0)) == std::vector<float>{51, 3, 4, 5});

  SECTION("a smaller shape fits the planned capacity") {
    HostTensor sx({2}, {5, 6}), sy({2}, {1, 1});
    REQUIRE(method->setInput(0, sx.t) == Error::Ok);
    REQUIRE(method->setInput(1, sy.t) == Error::Ok);
    REQUIRE(method->input(0)->toTensor().numel() == 2);
    REQUIRE(method->execute() == Error::Ok);
    REQUIRE(floatsOf(method->output(0)) == std::vector<float>{6, 7});
  }
  SECTION("a larger shape is above the bound") {
    HostTensor big({8}, std::vector<float>(8, 1.0f));
    REQUIRE(method->setInput(0, big.t) == Error::InvalidArgument);
    REQUIRE_THAT(method->errorDetail(), Contains("input 0: dimension 0 is 8, above its bound 4"));
    // The borrowed (unplanned) input is held to its bound as well.
    REQUIRE(method->setInput(1, big.t) == Error::InvalidArgument);
    REQUIRE_THAT(method->errorDetail(), Contains("input 1: dimension 0 is 8, above its bound 4"));
  }
  SECTION("a wrong dtype is rejected") {
    std::vector<int64_t> data(4, 1);
    int64_t sizes[] = {4};
    Tensor t;
    REQUIRE(t.init(ScalarType::Long, sizes) == Error::Ok);
    t.setData(data.data(), 32);
    REQUIRE(method->setInput(0, t) == Error::InvalidArgument);
    REQUIRE_THAT(method->errorDetail(), Contains("int64"));
  }
}

TEST_CASE("non-tensor inputs must match the program", "[runtime]") {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  int x = b.plannedTensor({2}, 1, 0);
  int alpha = b.intValue(3);
  int out = b.plannedTensor({2}, 1, 16);
  b.kernelCall(b.op("aten::add", "out"), {x, x, alpha, out, out});
  b.plan().inputs = {x, alpha};
  b.plan().outputs = {out};
  emptyConstantSegment(p);
  auto m = loadModule(serialize(p, {{}}));
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  HostTensor hx({2}, {1, 2});
  REQUIRE(m->setInput("forward", 0, hx.t) == Error::Ok);
  REQUIRE(m->setInput("forward", 1, EValue::fromInt(4)) == Error::InvalidArgument);
  REQUIRE(m->setInput("forward", 1, EValue::fromDouble(3.0)) == Error::InvalidArgument);
  REQUIRE(m->setInput("forward", 1, EValue::fromInt(3)) == Error::Ok);
  REQUIRE(m->execute("forward") == Error::Ok);
  REQUIRE(floatsOf(m->output("forward", 0)) == std::vector<float>{4, 8});
}

TEST_CASE("constant tensors are read from the constant segment", "[runtime]") {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  std::vector<float> w1 = {0.5f, 1.5f, 2.5f}, w2 = {100, 200, 300};
  std::vector<uint8_t> seg = constantSegment(p, 0, {bytesOf(w1), bytesOf(w2)});
  int x = b.plannedTensor({3}, 1, 0);
  int w = b.tensor({3}, 2); // second constant (index 1 is w1)
  int alpha = b.intValue(1);
  int out = b.plannedTensor({3}, 1, 16);
  b.kernelCall(b.op("aten::add", "out"), {x, w, alpha, out, out});
  b.plan().inputs = {x};
  b.plan().outputs = {out};
  std::vector<uint8_t> bytes = serialize(p, {seg});
  REQUIRE(std::memcmp(bytes.data() + 8, "eh00", 4) == 0);
  auto m = loadModule(bytes);
  REQUIRE(m->program().hasExtendedHeader());
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  REQUIRE(runWithInput(*m, "forward", {3}, {1, 2, 3}) == std::vector<float>{101, 202, 303});
}

TEST_CASE("mutable buffers start from the mutable-data segment", "[runtime]") {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  std::vector<float> init = {7, 8};
  emptyConstantSegment(p);
  addMutableSegment(p, 1);
  int state = b.plannedTensor({2}, 1, 0, fb::ScalarType::FLOAT, 1);
  int x = b.plannedTensor({2}, 1, 16);
  int alpha = b.intValue(1);
  int sum = b.plannedTensor({2}, 1, 32);
  int nb = b.boolValue(false);
  b.kernelCall(b.op("aten::add", "out"), {state, x, alpha, sum, sum});
  b.kernelCall(b.op("aten::copy_", ""), {state, sum, nb, state});
  b.plan().inputs = {x};
  b.plan().outputs = {sum};
  auto m = loadModule(serialize(p, {{}, bytesOf(init)}));
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  REQUIRE(runWithInput(*m, "forward", {2}, {1, 1}) == std::vector<float>{8, 9});
  REQUIRE(m->execute("forward") == Error::Ok); // the state persists
  REQUIRE(floatsOf(m->output("forward", 0)) == std::vector<float>{9, 10});
  // Reloading the method starts again from the segment's initial state.
  REQUIRE(m->unloadMethod("forward") == Error::Ok);
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  REQUIRE(runWithInput(*m, "forward", {2}, {1, 1}) == std::vector<float>{8, 9});
}

TEST_CASE("boxed IntList arguments reach the kernel", "[runtime]") {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  int a = b.intValue(2), c = b.intValue(40);
  int list = b.intList({a, c, a});
  int out = b.plannedTensor({1}, 1, 0);
  b.kernelCall(b.op("test::sum_ints", ""), {list, out});
  b.plan().outputs = {out};
  emptyConstantSegment(p);
  auto m = loadModule(serialize(p, {{}}));
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  REQUIRE(m->execute("forward") == Error::Ok);
  REQUIRE(floatsOf(m->output("forward", 0)) == std::vector<float>{44});
}

TEST_CASE("JumpFalseCall, MoveCall and FreeCall", "[runtime]") {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  int counter = b.plannedTensor({1}, 1, 0);
  int yes = b.boolValue(true), no = b.boolValue(false);
  int tmp = b.tensor({1});
  int inc = b.op("test::inc", "");
  b.kernelCall(inc, {counter});  // 0: +1
  b.jumpFalse(yes, 0);           // 1: true: fall through
  b.jumpFalse(no, 4);            // 2: false: jump over 3
  b.kernelCall(inc, {counter});  // 3: skipped
  b.kernelCall(inc, {counter});  // 4: +1
  b.move(counter, tmp);          // 5: tmp now views the counter
  b.freeValue(counter);          // 6: counter loses its data pointer
  b.jumpFalse(no, 8);            // 7: jump to the end
  b.plan().outputs = {tmp};
  emptyConstantSegment(p);
  auto m = loadModule(serialize(p, {{}}));
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  REQUIRE(m->execute("forward") == Error::Ok);
  Method *method = m->method("forward");
  REQUIRE(method->lastInstructionCount() == 7);
  // MoveCall copies the value: tmp shares the Tensor; FreeCall then cleared it.
  REQUIRE(method->output(0)->isTensor());
  REQUIRE(method->output(0)->toTensor().data() == nullptr);
}

TEST_CASE("bool tensor conditions count as true only when all elements are", "[runtime]") {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  int cond = b.plannedTensor({3}, 1, 0, fb::ScalarType::BOOL);
  int counter = b.plannedTensor({1}, 1, 16);
  int inc = b.op("test::inc", "");
  b.jumpFalse(cond, 2);
  b.kernelCall(inc, {counter});
  b.plan().inputs = {cond};
  b.plan().outputs = {counter};
  emptyConstantSegment(p);
  auto m = loadModule(serialize(p, {{}}));
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  uint8_t allTrue[3] = {1, 1, 1}, oneFalse[3] = {1, 0, 1};
  int64_t sizes[] = {3};
  Tensor t;
  REQUIRE(t.init(ScalarType::Bool, sizes) == Error::Ok);
  t.setData(allTrue, 3);
  REQUIRE(m->setInput("forward", 0, t) == Error::Ok);
  REQUIRE(m->execute("forward") == Error::Ok);
  REQUIRE(floatsOf(m->output("forward", 0)) == std::vector<float>{1});
  t.setData(oneFalse, 3);
  REQUIRE(m->setInput("forward", 0, t) == Error::Ok);
  REQUIRE(m->execute("forward") == Error::Ok);
  REQUIRE(floatsOf(m->output("forward", 0)) == std::vector<float>{1}); // skipped
}

TEST_CASE("a program that never ends stops at its time limit", "[runtime]") {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  int no = b.boolValue(false);
  b.jumpFalse(no, 0);
  emptyConstantSegment(p);
  auto m = loadModule(serialize(p, {{}}));
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  REQUIRE(m->method("forward")->timeLimit() == Method::kDefaultTimeLimitSeconds);
  m->method("forward")->setTimeLimit(0.05);
  auto t0 = std::chrono::steady_clock::now();
  REQUIRE(m->execute("forward") == Error::InvalidProgram);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE_THAT(m->errorDetail(), Contains("time limit") && Contains("does not terminate"));
  // Stopped by the clock, not by a count: far more than 10 M instructions
  // would fit in a longer budget, and this one ended near 0.05 s.
  REQUIRE(took >= 0.05);
  REQUIRE(took < 5.0);
  REQUIRE(m->method("forward")->lastInstructionCount() > 1000);
}

TEST_CASE("a failing kernel is reported with instruction, operator and message", "[runtime]") {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  int x = b.plannedTensor({1}, 1, 0);
  b.kernelCall(b.op("test::inc", ""), {x});
  b.kernelCall(b.op("test::fail", ""), {x});
  emptyConstantSegment(p);
  auto m = loadModule(serialize(p, {{}}));
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  REQUIRE(m->execute("forward") == Error::InvalidArgument);
  REQUIRE_THAT(m->errorDetail(), Contains("instruction 1 (test::fail) failed"));
  REQUIRE_THAT(m->errorDetail(), Contains("boom 7"));
}

TEST_CASE("two methods load together, each with its own memory", "[runtime]") {
  fb::ProgramT p = addProgram("forward");
  {
    PlanBuilder b(addPlan(p, "double_it"));
    int x = b.plannedTensor({2}, 1, 0);
    int alpha = b.intValue(1);
    int out = b.plannedTensor({2}, 1, 16);
    b.kernelCall(b.op("aten::add", "out"), {x, x, alpha, out, out});
    b.plan().inputs = {x};
    b.plan().outputs = {out};
  }
  auto m = loadModule(serialize(p, {{}}));
  REQUIRE(m->methodNames() == std::vector<std::string>{"forward", "double_it"});
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  REQUIRE(m->loadMethod("double_it") == Error::Ok);
  REQUIRE(m->loadMethod("forward") == Error::InvalidState);

  HostTensor a({2, 2}, {1, 2, 3, 4}), b({2, 2}, {1, 1, 1, 1}), c({2}, {5, 6});
  REQUIRE(m->setInput("forward", 0, a.t) == Error::Ok);
  REQUIRE(m->setInput("forward", 1, b.t) == Error::Ok);
  REQUIRE(m->setInput("double_it", 0, c.t) == Error::Ok);
  REQUIRE(m->execute("double_it") == Error::Ok);
  REQUIRE(m->execute("forward") == Error::Ok);
  REQUIRE(floatsOf(m->output("forward", 0)) == std::vector<float>{2, 3, 4, 5});
  REQUIRE(floatsOf(m->output("double_it", 0)) == std::vector<float>{10, 12});
  // Distinct planned memory: the outputs do not alias.
  REQUIRE(m->output("forward", 0)->toTensor().data() !=
          m->output("double_it", 0)->toTensor().data());

  SECTION("unload one method, the other keeps running; reload works") {
    REQUIRE(m->unloadMethod("forward") == Error::Ok);
    REQUIRE_FALSE(m->isMethodLoaded("forward"));
    REQUIRE(m->method("forward") == nullptr);
    REQUIRE(m->execute("forward") == Error::InvalidState);
    REQUIRE(m->unloadMethod("forward") == Error::NotFound);
    REQUIRE(m->execute("double_it") == Error::Ok);
    REQUIRE(floatsOf(m->output("double_it", 0)) == std::vector<float>{10, 12});
    REQUIRE(m->loadMethod("forward") == Error::Ok);
    REQUIRE(m->setInput("forward", 0, a.t) == Error::Ok);
    REQUIRE(m->setInput("forward", 1, a.t) == Error::Ok);
    REQUIRE(m->execute("forward") == Error::Ok);
    REQUIRE(floatsOf(m->output("forward", 0)) == std::vector<float>{2, 4, 6, 8});
  }
}

TEST_CASE("an unknown method name lists the methods", "[runtime]") {
  fb::ProgramT p = addProgram("forward");
  auto m = loadModule(serialize(p, {{}}));
  REQUIRE(m->loadMethod("backward") == Error::NotFound);
  REQUIRE_THAT(m->errorDetail(), Contains("no method named 'backward'"));
  REQUIRE_THAT(m->errorDetail(), Contains("forward"));
}

TEST_CASE("Method works with caller-supplied memory", "[runtime]") {
  fb::ProgramT p = addProgram();
  std::vector<uint8_t> bytes = serialize(p, {{}});
  DataLoader loader = DataLoader::fromBuffer(bytes.data(), bytes.size());
  std::string detail;
  auto program = Program::load(loader, Verification::Full, &detail);
  INFO(detail);
  REQUIRE(program.ok());
  alignas(16) uint8_t arena[48] = {};
  alignas(16) uint8_t methodMem[4096];
  MemoryAllocator methodAlloc(methodMem, sizeof(methodMem));
  Span<uint8_t> planned[] = {Span<uint8_t>(arena, sizeof(arena))};
  MemoryManager mm(&methodAlloc, Span<const Span<uint8_t>>(planned, 1));
  KernelResolver kernels = testResolver();
  auto method = Method::load(*program.get(), "forward", mm, kernels, &detail);
  INFO(detail);
  REQUIRE(method.ok());
  HostTensor x({2, 2}, {1, 2, 3, 4});
  REQUIRE(method.get()->setInput(0, x.t) == Error::Ok);
  REQUIRE(method.get()->setInput(1, x.t) == Error::Ok);
  REQUIRE(method.get()->execute() == Error::Ok);
  // The output lives in our arena at offset 32.
  REQUIRE(method.get()->output(0)->toTensor().data() == arena + 32);
  REQUIRE(floatsOf(method.get()->output(0)) == std::vector<float>{2, 4, 6, 8});

  SECTION("too small a planned buffer is rejected") {
    Span<uint8_t> small[] = {Span<uint8_t>(arena, 16)};
    MemoryManager mm2(&methodAlloc, Span<const Span<uint8_t>>(small, 1));
    auto m2 = Method::load(*program.get(), "forward", mm2, kernels, &detail);
    REQUIRE(m2.error() == Error::InvalidArgument);
    REQUIRE_THAT(detail, Contains("memory_id 1 has 16 bytes, the plan needs 48"));
  }
  SECTION("an exhausted method allocator is an error, not a crash") {
    alignas(16) uint8_t tiny[64];
    MemoryAllocator tinyAlloc(tiny, sizeof(tiny));
    MemoryManager mm3(&tinyAlloc, Span<const Span<uint8_t>>(planned, 1));
    auto m3 = Method::load(*program.get(), "forward", mm3, kernels, &detail);
    REQUIRE(m3.error() == Error::MemoryAllocationFailed);
  }
}

TEST_CASE("EXTERNAL tensors read named data", "[runtime]") {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  std::vector<float> w = {4, 5};
  auto nd = std::make_unique<fb::NamedDataT>();
  nd->key = "layer.weight";
  nd->segment_index = 1;
  p.named_data.push_back(std::move(nd));
  emptyConstantSegment(p);
  int x = b.plannedTensor({2}, 1, 0);
  int c = b.tensor({2});
  b.tensorAt(c).extra_tensor_info = std::make_unique<fb::ExtraTensorInfoT>();
  b.tensorAt(c).extra_tensor_info->location = fb::TensorDataLocation::EXTERNAL;
  b.tensorAt(c).extra_tensor_info->fully_qualified_name = "layer.weight";
  int alpha = b.intValue(1);
  int out = b.plannedTensor({2}, 1, 16);
  b.kernelCall(b.op("aten::add", "out"), {x, c, alpha, out, out});
  b.plan().inputs = {x};
  b.plan().outputs = {out};
  auto m = loadModule(serialize(p, {{}, bytesOf(w)}));
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  REQUIRE(runWithInput(*m, "forward", {2}, {1, 1}) == std::vector<float>{5, 6});

  SECTION("an unknown key is reported by name") {
    b.tensorAt(c).extra_tensor_info->fully_qualified_name = "nope";
    std::string detail;
    REQUIRE(loadMethodError(serialize(p, {{}, bytesOf(w)}), "forward", detail) == Error::NotFound);
    REQUIRE_THAT(detail, Contains("external data 'nope' is neither in the program's named_data"));
  }
}

TEST_CASE("GrowingAllocator grows, aligns and refuses absurd requests", "[runtime]") {
  GrowingAllocator a(128, 4096);
  void *p1 = a.allocate(100, 16);
  void *p2 = a.allocate(100, 64);
  REQUIRE(p1 != nullptr);
  REQUIRE(p2 != nullptr);
  REQUIRE(reinterpret_cast<uintptr_t>(p2) % 64 == 0);
  REQUIRE(a.allocate(1000) != nullptr); // a chunk bigger than the default
  REQUIRE(a.allocate(size_t(1) << 40) == nullptr);
  REQUIRE(a.allocate(SIZE_MAX - 8) == nullptr);
  REQUIRE(a.allocate(8, 3) == nullptr); // not a power of two
  REQUIRE(a.allocateArray<double>(SIZE_MAX / 4) == nullptr);
  a.reset();
  REQUIRE(a.bytesAllocated() == 0);
}
