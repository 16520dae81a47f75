// Extended header reader rules (spec section 2.2): headers of 32 bytes
// (ExecuTorch >= 1.0) and 24 bytes (older files, no segment_data_size), each
// with and without segments, the file-size check, and the 64-byte minimum.
#include "test/unit/runtime/RuntimeTestHelpers.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace ptec::rt;
using namespace ptec::rt::test;
using Catch::Matchers::Contains;

namespace {

void put32(std::vector<uint8_t> &b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    b[at + i] = uint8_t(v >> (8 * i));
}
void put64(std::vector<uint8_t> &b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    b[at + i] = uint8_t(v >> (8 * i));
}
uint64_t get64(const std::vector<uint8_t> &b, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = (v << 8) | b[at + i];
  return v;
}

/// What ExecuTorch < 1.0 wrote: the same 32-byte block, length field 24 and
/// no segment_data_size (its bytes are padding).
std::vector<uint8_t> asLegacyHeader(std::vector<uint8_t> b) {
  REQUIRE(std::memcmp(b.data() + 8, "eh00", 4) == 0);
  put32(b, 12, 24);
  put64(b, 32, 0);
  return b;
}

/// Splice a header block into a plain flatbuffer: `length` in the header,
/// segment_base_offset 0 and segment_data_size 0 (no segments).
std::vector<uint8_t> withEmptyHeader(const std::vector<uint8_t> &flat, uint32_t length) {
  REQUIRE(std::memcmp(flat.data() + 8, "eh00", 4) != 0);
  std::vector<uint8_t> b(flat.begin(), flat.begin() + 8);
  std::vector<uint8_t> block(32, 0);
  std::memcpy(block.data(), "eh00", 4);
  put32(block, 4, length);
  put64(block, 8, flat.size() + 32);
  b.insert(b.end(), block.begin(), block.end());
  b.insert(b.end(), flat.begin() + 8, flat.end());
  uint32_t root;
  std::memcpy(&root, b.data(), 4);
  put32(b, 0, root + 32);
  return b;
}

/// forward(x) = RtTestBackend(x, c) + state: a constant (segment 0), a
/// mutable initial state (segment 1) and a SEGMENT delegate blob (segment 2).
std::vector<uint8_t> segmentedProgram() {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  addMutableSegment(p, 1);
  std::vector<float> c = {10, 20}, init = {3, 4};
  std::vector<uint8_t> seg = constantSegment(p, 0, {bytesOf(c)});
  int x = b.plannedTensor({2}, 1, 0);
  int state = b.plannedTensor({2}, 1, 16, fb::ScalarType::FLOAT, 1);
  int cv = b.tensor({2}, 1);
  int mid = b.plannedTensor({2}, 1, 32);
  int alpha = b.intValue(1);
  int out = b.plannedTensor({2}, 1, 48);
  int d = b.delegate("RtTestBackend", 0);
  useSegmentBlob(*b.plan().delegates[d], 2);
  b.delegateCall(d, {x, cv, mid});
  b.kernelCall(b.op("aten::add", "out"), {mid, state, alpha, out, out});
  b.plan().inputs = {x};
  b.plan().outputs = {out};
  return serialize(p, {seg, bytesOf(init), {'b', 'l', 'o', 'b'}});
}

/// x + 1 with no segment data at all (a plain flatbuffer).
std::vector<uint8_t> plainProgram() {
  fb::ProgramT p = addProgram();
  return serialize(p, {{}});
}

std::vector<float> runSegmented(const std::vector<uint8_t> &bytes) {
  registerTestBackends();
  auto m = loadModule(bytes);
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  REQUIRE(testBackendStats().lastBlob == "blob");
  return runWithInput(*m, "forward", {2}, {1, 2});
}

std::vector<float> runPlain(const std::vector<uint8_t> &bytes) {
  auto m = loadModule(bytes);
  REQUIRE(m->loadMethod("forward") == Error::Ok);
  HostTensor hx({2, 2}, {1, 2, 3, 4}), hy({2, 2}, {10, 20, 30, 40});
  REQUIRE(m->setInput("forward", 0, hx.t) == Error::Ok);
  REQUIRE(m->setInput("forward", 1, hy.t) == Error::Ok);
  REQUIRE(m->execute("forward") == Error::Ok);
  return floatsOf(m->output("forward", 0));
}

Error programError(const std::vector<uint8_t> &bytes, std::string &detail) {
  auto m = Module::fromBytes(bytes.data(), bytes.size(), testOptions(), &detail);
  return m.ok() ? Error::Ok : m.error();
}

} // namespace

TEST_CASE("32-byte header with segments", "[runtime][header]") {
  std::vector<uint8_t> b = segmentedProgram();
  REQUIRE(get64(b, 32) > 0);
  // (1 + 10) + 3, (2 + 20) + 4.
  REQUIRE(runSegmented(b) == std::vector<float>{14, 26});
  auto m = loadModule(b);
  REQUIRE(m->program().extendedHeader().length == 32);
}

TEST_CASE("24-byte header (ExecuTorch < 1.0) with segments", "[runtime][header]") {
  std::vector<uint8_t> b = asLegacyHeader(segmentedProgram());
  // Every segment (constant, mutable, delegate blob) is found through
  // segment_base_offset alone.
  REQUIRE(runSegmented(b) == std::vector<float>{14, 26});
  auto m = loadModule(b);
  REQUIRE(m->program().extendedHeader().length == 24);
  REQUIRE(m->program().extendedHeader().segmentDataSize == 0);
}

TEST_CASE("24-byte header: a segment past the end of the file", "[runtime][header]") {
  std::string detail;
  std::vector<uint8_t> b = asLegacyHeader(segmentedProgram());
  uint64_t base = get64(b, 24);
  SECTION("the constant segment fails at program load") {
    b.resize(base + 4); // the constant segment holds 8 bytes
    REQUIRE(programError(b, detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("constant segment: segments[0] [0, +8)"));
    REQUIRE_THAT(detail, Contains("runs past the end of the file"));
  }
  SECTION("the delegate blob fails when the method loads it") {
    b.resize(b.size() - 2); // cuts the last segment, the blob
    REQUIRE(programError(b, detail) == Error::Ok);
    REQUIRE(loadMethodError(b, "forward", detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("segments[2]"));
    REQUIRE_THAT(detail, Contains("runs past the end of the file"));
  }
}

TEST_CASE("headers without segments", "[runtime][header]") {
  std::vector<uint8_t> flat = plainProgram();
  SECTION("no header") {
    REQUIRE(runPlain(flat) == std::vector<float>{11, 22, 33, 44});
    REQUIRE_FALSE(loadModule(flat)->program().hasExtendedHeader());
  }
  SECTION("32-byte header, segment_base_offset 0") {
    std::vector<uint8_t> b = withEmptyHeader(flat, 32);
    REQUIRE(runPlain(b) == std::vector<float>{11, 22, 33, 44});
    REQUIRE(loadModule(b)->program().extendedHeader().programSize == b.size());
  }
  SECTION("24-byte header, segment_base_offset 0") {
    std::vector<uint8_t> b = withEmptyHeader(flat, 24);
    REQUIRE(runPlain(b) == std::vector<float>{11, 22, 33, 44});
  }
  SECTION("program_size past the end of the file") {
    std::vector<uint8_t> b = withEmptyHeader(flat, 24);
    put64(b, 16, b.size() + 8);
    std::string detail;
    REQUIRE(programError(b, detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("program_size"));
  }
}

TEST_CASE("header rules that reject", "[runtime][header]") {
  std::string detail;
  std::vector<uint8_t> good = segmentedProgram();
  SECTION("length below 24") {
    auto b = good;
    put32(b, 12, 23);
    REQUIRE(programError(b, detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("length 23 at offset 12 is below the minimum 24"));
  }
  SECTION("32 bytes: segment data past the end of the file") {
    auto b = good;
    put64(b, 32, get64(b, 32) + 1);
    REQUIRE(programError(b, detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("past the end of the file"));
  }
  SECTION("24 bytes: the same claim is not read") {
    auto b = asLegacyHeader(good);
    put64(b, 32, get64(good, 32) + 1); // padding, ignored at length 24
    REQUIRE(runSegmented(b) == std::vector<float>{14, 26});
  }
  SECTION("segment_data_size without segment_base_offset") {
    auto b = good;
    put64(b, 24, 0);
    // Accepted as a header (only program_size must fit) but no segment can
    // be read, so the constant segment fails.
    REQUIRE(programError(b, detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("constant segment: segments[0] has 8 bytes but the file has "
                                  "no segment data"));
  }
  SECTION("segment_base_offset inside the program") {
    // Segment data would be read from the flatbuffer's own bytes: the
    // constant would be garbage and the run would still succeed.
    auto b = good;
    uint64_t programSize = get64(b, 16);
    put64(b, 24, programSize - 8);
    REQUIRE(programError(b, detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("segment_base_offset " + std::to_string(programSize - 8) +
                                  " at offset 24 lies inside the program (program_size " +
                                  std::to_string(programSize)));
  }
  SECTION("files below 64 bytes") {
    std::vector<uint8_t> tiny(good.begin(), good.begin() + 63);
    REQUIRE(programError(tiny, detail) == Error::InvalidProgram);
    REQUIRE_THAT(detail, Contains("file is 63 bytes; a .pte program has at least 64"));
  }
}
