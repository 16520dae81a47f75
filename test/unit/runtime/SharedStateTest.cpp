// Mutable state shared by the methods of one program: arena memory_id 2 is one
// buffer the Module owns (spec section 6, mutable-buffer sharing), its initial
// values copied in once, when the first method using it loads.
#include "test/unit/runtime/RuntimeTestHelpers.h"

#include <catch2/catch.hpp>

using namespace ptec::rt;
using namespace ptec::rt::test;

namespace {

/// "write"(x): state += x, returns the new state. "read"(x): returns state + x.
/// Both see `state` (initial {7, 8}) at offset 0 of arena 2; "read" declares a
/// smaller arena 2 than "write" (the Module sizes it to the largest).
std::vector<uint8_t> sharedStateProgram() {
  fb::ProgramT p;
  emptyConstantSegment(p);
  addMutableSegment(p, 1);
  {
    PlanBuilder b(addPlan(p, "read"));
    int state = b.plannedTensor({2}, 2, 0, fb::ScalarType::FLOAT, 1);
    int x = b.plannedTensor({2}, 1, 0);
    int alpha = b.intValue(1);
    int out = b.plannedTensor({2}, 1, 16);
    b.kernelCall(b.op("aten::add", "out"), {state, x, alpha, out, out});
    b.plan().inputs = {x};
    b.plan().outputs = {out};
  }
  {
    PlanBuilder b(addPlan(p, "write"));
    int x = b.plannedTensor({2}, 1, 0);
    int state = b.plannedTensor({2}, 2, 0, fb::ScalarType::FLOAT, 1);
    b.plannedTensor({4}, 2, 16); // another method's buffer: arena 2 is 32 bytes here
    int alpha = b.intValue(1);
    int sum = b.plannedTensor({2}, 1, 16);
    int nb = b.boolValue(false);
    b.kernelCall(b.op("aten::add", "out"), {state, x, alpha, sum, sum});
    b.kernelCall(b.op("aten::copy_", ""), {state, sum, nb, state});
    b.plan().inputs = {x};
    b.plan().outputs = {sum};
  }
  std::vector<float> init = {7, 8};
  return serialize(p, {{}, bytesOf(init)});
}

std::vector<float> call(Module &m, const char *method, std::vector<float> x) {
  return runWithInput(m, method, {2}, std::move(x));
}

} // namespace

TEST_CASE("methods share the state in arena 2", "[runtime][state]") {
  auto m = loadModule(sharedStateProgram());
  REQUIRE(m->sharedArena().empty()); // nothing loaded yet
  REQUIRE(m->loadMethod("write") == Error::Ok);
  REQUIRE(m->loadMethod("read") == Error::Ok);
  REQUIRE(m->sharedArena().size() == 32); // the larger of 16 and 32
  REQUIRE(call(*m, "read", {0, 0}) == std::vector<float>{7, 8});
  REQUIRE(call(*m, "write", {1, 1}) == std::vector<float>{8, 9});
  REQUIRE(call(*m, "read", {0, 0}) == std::vector<float>{8, 9}); // sees write's state
  REQUIRE(call(*m, "write", {10, 10}) == std::vector<float>{18, 19});
  REQUIRE(call(*m, "read", {1, 2}) == std::vector<float>{19, 21});
}

TEST_CASE("loading a method later keeps the shared state", "[runtime][state]") {
  auto m = loadModule(sharedStateProgram());
  REQUIRE(m->loadMethod("write") == Error::Ok); // copies the initial {7, 8}
  REQUIRE(call(*m, "write", {1, 1}) == std::vector<float>{8, 9});
  // "read" loads after "write" changed the state: its init must not reset it.
  REQUIRE(m->loadMethod("read") == Error::Ok);
  REQUIRE(call(*m, "read", {0, 0}) == std::vector<float>{8, 9});
  // Nor does unloading and reloading a method: the arena belongs to the Module.
  REQUIRE(m->unloadMethod("write") == Error::Ok);
  REQUIRE(m->unloadMethod("read") == Error::Ok);
  REQUIRE(m->loadMethod("read") == Error::Ok);
  REQUIRE(call(*m, "read", {0, 0}) == std::vector<float>{8, 9});
  // A new Module starts from the initial state.
  auto fresh = loadModule(sharedStateProgram());
  REQUIRE(fresh->loadMethod("read") == Error::Ok);
  REQUIRE(call(*fresh, "read", {0, 0}) == std::vector<float>{7, 8});
}

TEST_CASE("without sharing every method has its own arena 2", "[runtime][state]") {
  ModuleOptions o = testOptions();
  o.shareMutableArena = false;
  std::vector<uint8_t> bytes = sharedStateProgram();
  std::string detail;
  auto loaded = Module::fromBytes(bytes.data(), bytes.size(), o, &detail);
  REQUIRE(loaded.ok());
  Module &m = *loaded.get();
  REQUIRE(m.loadMethod("write") == Error::Ok);
  REQUIRE(m.loadMethod("read") == Error::Ok);
  REQUIRE(m.sharedArena().empty());
  REQUIRE(call(m, "write", {1, 1}) == std::vector<float>{8, 9});
  REQUIRE(call(m, "read", {0, 0}) == std::vector<float>{7, 8}); // its own copy
  REQUIRE(call(m, "write", {1, 1}) == std::vector<float>{9, 10});
}
