// Delegates at method load and execute: registry, init once per entry,
// shared handles, scratch, index checks at load, destroy on failure.
#include "test/unit/runtime/RuntimeTestHelpers.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <cstring>
#include <thread>

using namespace ptec::rt;
using namespace ptec::rt::test;
using Catch::Matchers::Contains;

namespace {

std::vector<uint8_t> floatSpec(float v) {
  std::vector<uint8_t> b(4);
  std::memcpy(b.data(), &v, 4);
  return b;
}

/// forward(a, b, c): out1 = (a + b) * s, out2 = (out1 + c) * s, using one
/// delegate entry (shared) or two entries (one per call).
fb::ProgramT delegateProgram(bool shared, const std::string &backend = "RtTestBackend") {
  fb::ProgramT p;
  uint32_t blob = addInlineBlob(p, "blob-bytes");
  PlanBuilder b(addPlan(p, "forward"));
  int a = b.plannedTensor({2}, 1, 0);
  int bb = b.plannedTensor({2}, 1, 16);
  int c = b.plannedTensor({2}, 1, 32);
  int o1 = b.plannedTensor({2}, 1, 48);
  int o2 = b.plannedTensor({2}, 1, 64);
  int d0 = b.delegate(backend, blob, {{"scale", floatSpec(2.0f)}});
  int d1 = shared ? d0 : b.delegate(backend, blob, {{"scale", floatSpec(2.0f)}});
  b.delegateCall(d0, {a, bb, o1});
  b.delegateCall(d1, {o1, c, o2});
  b.plan().inputs = {a, bb, c};
  b.plan().outputs = {o1, o2};
  emptyConstantSegment(p);
  return p;
}

std::vector<float> runDelegates(Module &m) {
  HostTensor a({2}, {1, 2}), b({2}, {3, 4}), c({2}, {10, 20});
  REQUIRE(m.setInput("forward", 0, a.t) == Error::Ok);
  REQUIRE(m.setInput("forward", 1, b.t) == Error::Ok);
  REQUIRE(m.setInput("forward", 2, c.t) == Error::Ok);
  REQUIRE(m.execute("forward") == Error::Ok);
  std::vector<float> r = floatsOf(m.output("forward", 0));
  std::vector<float> r2 = floatsOf(m.output("forward", 1));
  r.insert(r.end(), r2.begin(), r2.end());
  return r;
}

} // namespace

TEST_CASE("backend registry", "[runtime][delegate]") {
  registerTestBackends();
  REQUIRE(findBackend("RtTestBackend") != nullptr);
  REQUIRE(findBackend("NoSuchBackend") == nullptr);
  REQUIRE(registerBackend("RtTestBackend", findBackend("RtTestBackend")) == Error::InvalidArgument);
  REQUIRE(unregisterBackend("NoSuchBackend") == Error::NotFound);

  Backend *b = findBackend("RtTestBackend");
  std::vector<std::string> ids;
  Error last = Error::Ok;
  for (int i = 0; i < 20 && last == Error::Ok; ++i) {
    ids.push_back("Filler" + std::to_string(i));
    last = registerBackend(ids.back().c_str(), b);
  }
  REQUIRE(last == Error::OutOfResources); // at most kMaxBackends
  for (const std::string &id : ids)
    (void)unregisterBackend(id.c_str());
  REQUIRE(findBackend("Filler0") == nullptr);
  REQUIRE(findBackend("RtTestBackend") == b);
}

TEST_CASE("a shared delegate is initialised once and executed per call", "[runtime][delegate]") {
  registerTestBackends();
  resetBackendInitCounts();
  testBackendStats() = {};
  {
    fb::ProgramT p = delegateProgram(/*shared=*/true);
    auto m = loadModule(serialize(p, {{}}));
    REQUIRE(m->loadMethod("forward") == Error::Ok);
    REQUIRE(m->method("forward")->delegatesSize() == 1);
    REQUIRE(backendInitCount("RtTestBackend") == 1);
    std::vector<float> shared = runDelegates(*m);
    // Each call used its own args: (1+3)*2, (2+4)*2; then (8+10)*2, (12+20)*2.
    REQUIRE(shared == std::vector<float>{8, 12, 36, 64});
    REQUIRE(testBackendStats().executes == 2);

    // Same outputs as one delegate entry per call site.
    fb::ProgramT q = delegateProgram(/*shared=*/false);
    auto m2 = loadModule(serialize(q, {{}}));
    REQUIRE(m2->loadMethod("forward") == Error::Ok);
    REQUIRE(backendInitCount("RtTestBackend") == 3);
    REQUIRE(runDelegates(*m2) == shared);
  }
  REQUIRE(testBackendStats().inits == 3);
  REQUIRE(testBackendStats().destroys == 3); // once per entry
}

TEST_CASE("delegate index out of range is rejected at load", "[runtime][delegate]") {
  registerTestBackends();
  resetBackendInitCounts();
  fb::ProgramT p = delegateProgram(true);
  auto &chain = *p.execution_plan[0]->chains[0];
  chain.instructions[1]->instr_args.AsDelegateCall()->delegate_index = 3;
  std::string detail;
  REQUIRE(loadMethodError(serialize(p, {{}}), "forward", detail) == Error::InvalidProgram);
  REQUIRE_THAT(detail, Contains("instruction 1: DelegateCall delegate_index 3 out of range (1 delegates)"));
  REQUIRE(backendInitCount("RtTestBackend") == 0); // nothing initialised
}

TEST_CASE("a delegate with scratch used twice is rejected at load", "[runtime][delegate]") {
  registerTestBackends();
  resetBackendInitCounts();
  fb::ProgramT p = delegateProgram(true);
  auto &plan = *p.execution_plan[0];
  plan.non_const_buffer_sizes[1] += 64;
  auto s = std::make_unique<fb::DelegateScratchT>();
  s->allocation = std::make_unique<fb::AllocationDetailsT>();
  s->allocation->memory_id = 1;
  s->allocation->memory_offset_low = 80;
  s->size = 64;
  s->alignment = 16;
  plan.delegates[0]->scratch.push_back(std::move(s));
  std::string detail;
  REQUIRE(loadMethodError(serialize(p, {{}}), "forward", detail) == Error::InvalidProgram);
  REQUIRE_THAT(detail, Contains("delegate 0 declares scratch memory but is used by 2 DelegateCalls "
                                "(instructions 0 and 1)"));
  REQUIRE(backendInitCount("RtTestBackend") == 0);

  SECTION("with one call site the scratch reaches init") {
    plan.chains[0]->instructions.pop_back();
    plan.outputs = {plan.outputs[0]};
    testBackendStats() = {};
    REQUIRE(loadMethodError(serialize(p, {{}}), "forward", detail) == Error::Ok);
    REQUIRE(testBackendStats().lastScratchBytes == 64);
  }
  SECTION("scratch outside the arena is rejected") {
    plan.chains[0]->instructions.pop_back();
    plan.delegates[0]->scratch[0]->size = 4096;
    REQUIRE(loadMethodError(serialize(p, {{}}), "forward", detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("scratch[0] offset 80 + 4096 bytes runs past arena 1"));
  }
}

TEST_CASE("unknown backends and bad blobs are load errors", "[runtime][delegate]") {
  registerTestBackends();
  std::string detail;
  SECTION("backend not registered") {
    fb::ProgramT p = delegateProgram(true, "NotRegistered");
    REQUIRE(loadMethodError(serialize(p, {{}}), "forward", detail) == Error::NotFound);
    REQUIRE_THAT(detail, Contains("delegate 0: backend 'NotRegistered' is not registered"));
  }
  SECTION("inline blob index out of range") {
    fb::ProgramT p = delegateProgram(true);
    p.execution_plan[0]->delegates[0]->processed->index = 4;
    REQUIRE(loadMethodError(serialize(p, {{}}), "forward", detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("processed INLINE index 4 out of range (1 inline blobs)"));
  }
  SECTION("segment blob index out of range") {
    fb::ProgramT p = delegateProgram(true);
    useSegmentBlob(*p.execution_plan[0]->delegates[0], 2);
    REQUIRE(loadMethodError(serialize(p, {{}}), "forward", detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("processed SEGMENT index 2 out of range (1 segments)"));
  }
}

TEST_CASE("a failed init destroys the delegates already initialised", "[runtime][delegate]") {
  registerTestBackends();
  testBackendStats() = {};
  fb::ProgramT p = delegateProgram(false);
  p.execution_plan[0]->delegates[1]->id = "RtFailBackend";
  std::string detail;
  REQUIRE(loadMethodError(serialize(p, {{}}), "forward", detail) ==
          Error::DelegateInvalidCompatibility);
  REQUIRE_THAT(detail, Contains("delegate 1: backend 'RtFailBackend' init failed"));
  REQUIRE(testBackendStats().inits == 1);
  REQUIRE(testBackendStats().destroys == 1);
}

TEST_CASE("delegates in two methods and across unload/reload", "[runtime][delegate]") {
  registerTestBackends();
  resetBackendInitCounts();
  testBackendStats() = {};
  fb::ProgramT p = delegateProgram(true);
  {
    fb::ProgramT other = delegateProgram(true);
    other.execution_plan[0]->name = "decode";
    p.execution_plan.push_back(std::move(other.execution_plan[0]));
  }
  auto m = loadModule(serialize(p, {{}}));
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  REQUIRE(m->loadMethod("decode") == Error::Ok);
  REQUIRE(backendInitCount("RtTestBackend") == 2); // one per method's entry
  REQUIRE(m->unloadMethod("forward") == Error::Ok);
  REQUIRE(testBackendStats().destroys == 1);
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  REQUIRE(backendInitCount("RtTestBackend") == 3);
  REQUIRE(runDelegates(*m) == std::vector<float>{8, 12, 36, 64});
  m.reset();
  REQUIRE(testBackendStats().destroys == 3);
}

TEST_CASE("a failing backend execute names the instruction and backend", "[runtime][delegate]") {
  registerTestBackends();
  fb::ProgramT p = delegateProgram(true);
  // Give the first call only two args: the test backend rejects it.
  p.execution_plan[0]->chains[0]->instructions[0]->instr_args.AsDelegateCall()->args = {0, 1};
  auto m = loadModule(serialize(p, {{}}));
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  HostTensor a({2}, {1, 2});
  for (size_t i = 0; i < 3; ++i)
    REQUIRE(m->setInput("forward", i, a.t) == Error::Ok);
  REQUIRE(m->execute("forward") == Error::InvalidArgument);
  REQUIRE_THAT(m->errorDetail(), Contains("instruction 0 (delegate 0, backend RtTestBackend) failed"));
  // The backend's own message (BackendExecuteContext::errorMessage) follows.
  REQUIRE_THAT(m->errorDetail(), Contains("InvalidArgument: expects 3 float tensors, got 2"));
}

TEST_CASE("a SEGMENT blob reaches init as the segment's bytes", "[runtime][delegate]") {
  registerTestBackends();
  testBackendStats() = {};
  fb::ProgramT p = delegateProgram(true);
  useSegmentBlob(*p.execution_plan[0]->delegates[0], 1);
  std::string blob = "segment-blob-bytes";
  std::vector<uint8_t> seg(blob.begin(), blob.end());
  auto m = loadModule(serialize(p, {{}, seg}));
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  REQUIRE(testBackendStats().lastBlob == blob);
  REQUIRE(runDelegates(*m) == std::vector<float>{8, 12, 36, 64});
}

TEST_CASE("an INLINE blob is a view into the program", "[runtime][delegate]") {
  registerTestBackends();
  testBackendStats() = {};
  fb::ProgramT p = delegateProgram(true);
  auto m = loadModule(serialize(p, {{}}));
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  REQUIRE(testBackendStats().lastBlob == "blob-bytes");
}

TEST_CASE("modules load and run on several threads at once", "[runtime][delegate][threads]") {
  registerTestBackends();
  resetBackendInitCounts();
  fb::ProgramT p = delegateProgram(true, "RtQuietBackend");
  const std::vector<uint8_t> bytes = serialize(p, {{}});
  constexpr int kThreads = 4, kRounds = 25;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&]() {
      for (int r = 0; r < kRounds; ++r) {
        auto m = Module::fromBytes(bytes.data(), bytes.size(), testOptions());
        if (!m.ok() || m.get()->loadMethod("forward") != Error::Ok) {
          ++failures;
          continue;
        }
        float a[2] = {1, 2}, b[2] = {3, 4}, c[2] = {10, 20};
        int64_t sizes[] = {2};
        Tensor ta, tb, tc;
        // Counted, not REQUIREd: Catch's assertions are not thread-safe.
        if (ta.init(ScalarType::Float, sizes) != Error::Ok ||
            tb.init(ScalarType::Float, sizes) != Error::Ok ||
            tc.init(ScalarType::Float, sizes) != Error::Ok) {
          ++failures;
          continue;
        }
        ta.setData(a, 8);
        tb.setData(b, 8);
        tc.setData(c, 8);
        Module &mod = *m.get();
        if (mod.setInput("forward", 0, ta) != Error::Ok || mod.setInput("forward", 1, tb) != Error::Ok ||
            mod.setInput("forward", 2, tc) != Error::Ok || mod.execute("forward") != Error::Ok ||
            mod.output("forward", 1)->toTensor().dataAs<float>()[1] != 64.0f)
          ++failures;
      }
    });
  }
  for (auto &th : threads)
    th.join();
  REQUIRE(failures == 0);
  REQUIRE(backendInitCount("RtQuietBackend") == kThreads * kRounds);
}
