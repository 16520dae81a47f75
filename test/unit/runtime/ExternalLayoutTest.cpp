// EXTERNAL tensors and the .ptd's tensor_layout: an entry with as many bytes
// as the tensor but another dtype, shape or dim order is refused when the
// method loads, naming the key and both layouts (it would run with its
// values reinterpreted).
#include "runtime/executor/FlatTensorData.h"
#include "serde/pte/PtdWriter.h"
#include "test/unit/runtime/RuntimeTestHelpers.h"

#include <catch2/catch.hpp>

using namespace ptec::rt;
using namespace ptec::rt::test;
using Catch::Matchers::Contains;

namespace {

/// forward(x) = x + w, w an EXTERNAL float tensor of `sizes` (dim order
/// `dimOrder`, empty: contiguous) named "layer.weight".
std::vector<uint8_t> externalProgram(std::vector<int32_t> sizes,
                                     std::vector<uint8_t> dimOrder = {}) {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  emptyConstantSegment(p);
  int x = b.plannedTensor(sizes, 1, 0);
  int c = b.tensor(sizes);
  if (!dimOrder.empty())
    b.tensorAt(c).dim_order = dimOrder;
  b.tensorAt(c).extra_tensor_info = std::make_unique<fb::ExtraTensorInfoT>();
  b.tensorAt(c).extra_tensor_info->location = fb::TensorDataLocation::EXTERNAL;
  b.tensorAt(c).extra_tensor_info->fully_qualified_name = "layer.weight";
  int alpha = b.intValue(1);
  int out = b.plannedTensor(sizes, 1, 64);
  b.kernelCall(b.op("aten::add", "out"), {x, c, alpha, out, out});
  b.plan().inputs = {x};
  b.plan().outputs = {out};
  return serialize(p, {{}});
}

/// A .ptd holding "layer.weight" = 1, 2, 3, 4 (float) with the given layout.
std::vector<uint8_t> ptdWith(int8_t scalarType, std::vector<int32_t> sizes) {
  std::vector<float> w = {1, 2, 3, 4};
  std::map<std::string, ptec::pte::PtdEntry> entries;
  ptec::pte::PtdEntry &e = entries["layer.weight"];
  e.bytes.assign(reinterpret_cast<const uint8_t *>(w.data()),
                 reinterpret_cast<const uint8_t *>(w.data() + w.size()));
  e.scalarType = scalarType;
  e.sizes = std::move(sizes);
  return ptec::pte::serializePtd(entries);
}

/// Loads `program` with `ptd` as its external data; the method's error.
Error loadWith(const std::vector<uint8_t> &program, const std::vector<uint8_t> &ptd,
               std::string &detail) {
  auto data = FlatTensorData::fromBuffer(ptd.data(), ptd.size(), &detail);
  REQUIRE(data.ok());
  ModuleOptions o = testOptions();
  o.externalData = data.get().get();
  auto m = Module::fromBytes(program.data(), program.size(), o, &detail);
  REQUIRE(m.ok());
  Error e = m.get()->loadMethod("forward");
  detail = m.get()->errorDetail();
  return e;
}

} // namespace

TEST_CASE("an external tensor must have the layout its .ptd records", "[runtime][external]") {
  const int8_t kFloat = 6, kInt = 3;
  std::string detail;
  // The same layout loads (and the pair [2, 2] / [2, 2] is what aot-compile
  // writes).
  REQUIRE(loadWith(externalProgram({2, 2}), ptdWith(kFloat, {2, 2}), detail) == Error::Ok);

  SECTION("other sizes, same number of bytes") {
    REQUIRE(loadWith(externalProgram({2, 2}), ptdWith(kFloat, {4}), detail) ==
            Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("external tensor 'layer.weight': the .ptd's tensor_layout is "
                                  "float32 [4] dim order [0], the program's tensor is float32 [2, 2] "
                                  "dim order [0, 1]"));
  }
  SECTION("another dtype of the same size") {
    REQUIRE(loadWith(externalProgram({2, 2}), ptdWith(kInt, {2, 2}), detail) ==
            Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("tensor_layout is int32 [2, 2]"));
  }
  SECTION("another dim order") {
    REQUIRE(loadWith(externalProgram({2, 2}, {1, 0}), ptdWith(kFloat, {2, 2}), detail) ==
            Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("the program's tensor is float32 [2, 2] dim order [1, 0]"));
  }
}

TEST_CASE("a .ptd whose flatbuffer does not verify says which part", "[runtime][external]") {
  std::vector<uint8_t> ptd = ptdWith(6, {2, 2});
  // The root table's vtable offset at the root: point it far outside.
  uint32_t root = ptd[0] | ptd[1] << 8 | ptd[2] << 16 | uint32_t(ptd[3]) << 24;
  ptd[root] = 0x00;
  ptd[root + 1] = 0x00;
  ptd[root + 2] = 0x00;
  ptd[root + 3] = 0x80;
  std::string detail;
  REQUIRE_FALSE(FlatTensorData::fromBuffer(ptd.data(), ptd.size(), &detail).ok());
  REQUIRE_THAT(detail, Contains("the FlatTensor flatbuffer (bytes [0, "));
  REQUIRE_THAT(detail, Contains("does not verify: the root FlatTensor table at offset " +
                                std::to_string(root) + " is malformed"));
}
