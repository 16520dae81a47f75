#include "serde/pte/PteInspect.h"
#include "serde/pte/PteWriter.h"
#include "test/unit/emitter/TestPrograms.h"

#include <limits>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <unistd.h>

using namespace ptec::pte;
using namespace ptec::pte::testing;

namespace {

// forward (constants + mutable state) and prefill (a demo delegate entry
// shared by 10 calls, with a 1-byte compile spec).
std::vector<uint8_t> sampleProgram() {
  ProgramBuilder b;
  addSampleMethods(b, std::vector<uint8_t>(24, 5), std::vector<uint8_t>(8, 1), "prefill", 10);
  std::vector<uint8_t> out;
  std::string err;
  REQUIRE(trySerializeProgram(b, {}, &out, &err));
  return out;
}

std::string openError(std::vector<uint8_t> bytes) {
  PteView v;
  std::string err;
  CHECK_FALSE(openPte(bytes.data(), bytes.size(), &v, &err));
  return err;
}

void putLE(std::vector<uint8_t> &b, size_t at, uint64_t v, int n) {
  for (int i = 0; i < n; ++i)
    b[at + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * i));
}

uint64_t readLE(const std::vector<uint8_t> &b, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = (v << 8) | b[at + static_cast<size_t>(i)];
  return v;
}

bool contains(const std::string &hay, const std::string &needle) {
  return hay.find(needle) != std::string::npos;
}

} // namespace

TEST_CASE("inspect: summary of a written program", "[inspect]") {
  std::vector<uint8_t> bytes = sampleProgram();
  PteView v;
  std::string err;
  REQUIRE(openPte(bytes.data(), bytes.size(), &v, &err));
  CHECK(v.header.present);
  CHECK(v.header.length == 32);
  CHECK(v.header.segmentBaseOffset % 128 == 0);
  std::string s = summarizePte(v, "sample.pte");
  INFO(s);
  const std::string blobSize = std::to_string(demoBlob().size());
  const std::vector<std::string> lines = {
      "sample.pte: " + std::to_string(bytes.size()) + " bytes, identifier ET12",
      "methods: 2",
      "method forward",
      "method prefill",
      "%0 Tensor float32[2, 3] planned mem 1 @ 0",
      "%3 Tensor float32[2, 3] planned mem 1 @ 32",
      "[0] aten::add.out  (1 call)",
      "[0] BackendWithCompilerDemo  processed: segment 2 (" + blobSize +
          " bytes), shared by 10 calls (instructions 0, 1, 2, 3, 4, 5, 6, 7, ...)",
      "compile spec max_value = 0x04 (1 byte)",
      "planned memory: arena 1: 64 bytes",
      "segments (3):",
      "[0] offset 0, size 24",
      ": constants",
      "[1] offset 128, size 8",
      ": mutable data",
      "[2] offset 256, size " + blobSize,
      "delegate blob for prefill.delegates[0]",
      "constants: 1 buffer in segment 0 (24 bytes)",
      "instructions: 10 (10 DelegateCall)"};
  for (const std::string &line : lines)
    CHECK(contains(s, line));
}

TEST_CASE("inspect: JSON dump with container keys", "[inspect]") {
  std::vector<uint8_t> bytes = sampleProgram();
  PteView v;
  std::string err, json;
  REQUIRE(openPte(bytes.data(), bytes.size(), &v, &err));
  REQUIRE(dumpPteJson(v, {}, &json, &err));
  INFO(json.substr(0, 4000));
  CHECK(json.front() == '{');
  const std::vector<std::string> fragments = {
      "\"execution_plan\": [",
      "\"name\": \"forward\"",
      "\"name\": \"aten::add\"",
      "\"overload\": \"out\"",
      "\"id\": \"BackendWithCompilerDemo\"",
      "\"location\": \"SEGMENT\"",
      "\"val_type\": \"Tensor\"",
      "\"instr_args_type\": \"DelegateCall\"",
      "\"delegates\": [\n",
      "\"constant_buffer\": [\n",
      "\"extended_header\": {\n    \"magic\": \"eh00\",\n    \"length\": 32,",
      "\"segment_data_size\": " + std::to_string(v.header.segmentDataSize),
      "\"segment_table\": [\n    {\"index\": 0, \"offset\": 0, \"size\": 24, \"file_offset\": " +
          std::to_string(v.header.segmentBaseOffset) + "}"};
  for (const std::string &fragment : fragments)
    CHECK(contains(json, fragment));
  CHECK(json.substr(json.size() - 4) == "]\n}\n");

  // The value of the 1-byte compile spec is a number array, or elided.
  CHECK(contains(json, "\"value\": [\n"));
  std::string elided;
  JsonOptions o;
  o.elideBytes = true;
  REQUIRE(dumpPteJson(v, o, &elided, &err));
  CHECK(contains(elided, "\"value\": \"<1 byte, fnv1a64 "));
  CHECK_FALSE(contains(elided, "\"value\": [\n"));
  CHECK(contains(elided, "\"dim_order\": [\n")); // not a payload; kept
}

TEST_CASE("inspect: program without segments", "[inspect]") {
  ProgramBuilder b;
  b.program.execution_plan.push_back(addPlan("forward", 0));
  std::vector<uint8_t> bytes = serializeProgram(b);
  PteView v;
  std::string err, json;
  REQUIRE(openPte(bytes.data(), bytes.size(), &v, &err));
  CHECK_FALSE(v.header.present);
  std::string s = summarizePte(v);
  CHECK(contains(s, "extended header: none"));
  CHECK(contains(s, "delegates (0):"));
  CHECK(contains(s, "segments (1):\n  [0] offset 0, size 0: constants"));
  REQUIRE(dumpPteJson(v, {}, &json, &err));
  CHECK(contains(json, "\"extended_header\": null,"));
  CHECK(contains(json, "\"segment_table\": [\n    {\"index\": 0, \"offset\": 0, "
                       "\"size\": 0, \"file_offset\": 0}"));
}

// Spec 2.2: ExecuTorch < 1.0 wrote a 24-byte header (no segment_data_size)
// in the same 32-byte block; segments are then bounded by the file.
TEST_CASE("inspect: 24- and 32-byte extended headers", "[inspect]") {
  std::vector<uint8_t> good = sampleProgram();
  std::vector<uint8_t> old = good;
  putLE(old, 12, 24, 4);
  putLE(old, 32, 0, 8);
  PteView v;
  std::string err;
  REQUIRE(openPte(old.data(), old.size(), &v, &err));
  CHECK(v.header.length == 24);
  CHECK(v.header.segmentDataSize == 0);
  std::string s = summarizePte(v);
  CHECK(contains(s, "extended header: length 24,"));
  CHECK(contains(s, "[2] offset 256, size 82, file offset"));
  // At length 24 the padding is not read as segment_data_size.
  putLE(old, 32, UINT64_MAX, 8);
  REQUIRE(openPte(old.data(), old.size(), &v, &err));
  // A truncated segment is caught against the file.
  old.resize(old.size() - 1);
  CHECK(contains(openError(old), "Program.segments[2] [256, +82)"));
  CHECK(contains(openError(old), "runs past the end of the file"));

  // Both lengths with no segment data at all: base 0, only program_size must
  // fit in the file.
  ProgramBuilder b;
  b.program.execution_plan.push_back(addPlan("forward", 0));
  std::vector<uint8_t> flat = serializeProgram(b);
  for (uint32_t length : {24u, 32u}) {
    std::vector<uint8_t> h(flat.begin(), flat.begin() + 8);
    std::vector<uint8_t> block(32, 0);
    std::memcpy(block.data(), "eh00", 4);
    putLE(block, 4, length, 4);
    putLE(block, 8, flat.size() + 32, 8);
    h.insert(h.end(), block.begin(), block.end());
    h.insert(h.end(), flat.begin() + 8, flat.end());
    putLE(h, 0, (readLE(flat, 0) & 0xffffffffu) + 32, 4); // root offset
    INFO("length " << length);
    REQUIRE(openPte(h.data(), h.size(), &v, &err));
    CHECK(v.header.length == length);
    CHECK(v.programSize == h.size());
    putLE(h, 16, h.size() + 1, 8);
    CHECK(contains(openError(h), "program_size"));
  }
}

TEST_CASE("inspect: malformed files get clear errors", "[inspect]") {
  std::vector<uint8_t> good = sampleProgram();

  CHECK(openError({}) == "file is 0 bytes; a .pte program has at least 64 (the "
                         "ExecuTorch loader reads the first 64)");
  CHECK(contains(openError(std::vector<uint8_t>(good.begin(), good.begin() + 63)),
                 "file is 63 bytes"));

  std::vector<uint8_t> bad = good;
  std::memcpy(bad.data() + 4, "PK\x03\x04", 4);
  CHECK(openError(bad) == "bad magic at offset 4: expected file identifier "
                          "'ET12', found 'PK..' (0x504b0304)");

  bad = good;
  std::memcpy(bad.data() + 4, "ET13", 4);
  CHECK(openError(bad) == "file identifier 'ET13' at offset 4: incompatible "
                          "format version (expected 'ET12')");

  bad = good;
  putLE(bad, 12, 16, 4);
  CHECK(openError(bad) == "extended header length 16 at offset 12 is below the "
                          "minimum 24");

  bad = good;
  putLE(bad, 16, good.size() + 1, 8);
  CHECK(openError(bad) == "extended header program_size " +
                              std::to_string(good.size() + 1) +
                              " at offset 16 is outside [8, file size " +
                              std::to_string(good.size()) + "]");

  bad = good;
  putLE(bad, 32, UINT64_MAX - 10, 8);
  CHECK(contains(openError(bad), "(offset 32) overflows"));

  // Truncated in the segment data.
  bad.assign(good.begin(), good.end() - 1);
  CHECK(contains(openError(bad), "but it is " + std::to_string(good.size() - 1) +
                                     ": truncated"));

  // A segment past the end of the file (segment_data_size claims less).
  bad = good;
  putLE(bad, 32, 8, 8);
  bad.resize(readLE(bad, 24) + 8);
  CHECK(contains(openError(bad), "Program.segments[0] [0, +24) at segment_base_offset"));
  CHECK(contains(openError(bad), "runs past the end of the file"));

  // Segment data inside the program: refused like the runtime's loader does.
  bad = good;
  putLE(bad, 24, 16, 8);
  CHECK(contains(openError(bad), "segment_base_offset 16 at offset 24 lies inside the "
                                 "program (program_size "));

  bad = good;
  putLE(bad, 0, 0xfffffff0u, 4);
  CHECK(contains(openError(bad), "root table offset 4294967280 at byte 0 is "
                                 "outside the program"));

  // A root offset that is in range but points at garbage.
  bad = good;
  putLE(bad, 0, 12, 4);
  CHECK(contains(openError(bad), "flatbuffer verification failed"));

  // Every truncation of the file is rejected without a crash.
  for (size_t n = 0; n < good.size(); n += 7) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<long>(n));
    PteView v;
    std::string err;
    CHECK_FALSE(openPte(cut.data(), cut.size(), &v, &err));
    CHECK_FALSE(err.empty());
  }
  // Single-byte corruptions in the program are either rejected or yield a
  // file that still renders.
  for (size_t at = 40; at < std::min<size_t>(good.size(), 2000); ++at) {
    std::vector<uint8_t> c = good;
    c[at] ^= 0xA5;
    PteView v;
    std::string err, json;
    if (openPte(c.data(), c.size(), &v, &err)) {
      summarizePte(v);
      dumpPteJson(v, {}, &json, &err);
    }
  }
}

TEST_CASE("inspect: file-level entry point and exit codes", "[inspect]") {
  const char *base = std::getenv("TMPDIR");
  std::string dir = std::string(base && *base ? base : "/tmp");
  std::string path = dir + "/ptec-inspect-" + std::to_string(::getpid()) + ".pte";
  std::string err, out;
  REQUIRE(writeFileAtomic(path, sampleProgram(), &err));
  CHECK(inspectPteFile(path, false, {}, &out, &err) == 0);
  CHECK(contains(out, "method prefill"));
  CHECK(inspectPteFile(path, true, {}, &out, &err) == 0);
  CHECK(contains(out, "\"segment_table\""));
  REQUIRE(writeFileAtomic(path, {'x', 'y'}, &err));
  CHECK(inspectPteFile(path, false, {}, &out, &err) == 2);
  CHECK(err == path + ": error: file is 2 bytes; a .pte program has at least 64 (the "
                      "ExecuTorch loader reads the first 64)");
  ::unlink(path.c_str());
  CHECK(inspectPteFile(path, false, {}, &out, &err) == 2);
  CHECK(contains(err, ": error: cannot open file: No such file"));
}

TEST_CASE("inspect: embedded schema is program.fbs", "[inspect]") {
  const std::string &s = embeddedProgramSchema();
  CHECK(contains(s, "root_type Program;"));
  CHECK(contains(s, "file_identifier \"ET12\";"));
}

TEST_CASE("inspect: a union tag without its value is rejected", "[inspect]") {
  // Hand-built: one plan whose only value says Tensor but has no table.
  flatbuffers::FlatBufferBuilder fbb;
  auto ev = fb::CreateEValue(fbb, fb::KernelTypes::Tensor, 0);
  auto values = fbb.CreateVector(&ev, 1);
  auto instr = fb::CreateInstruction(fbb, fb::InstructionArguments::NONE, 0);
  auto chain = fb::CreateChain(fbb, 0, 0, fbb.CreateVector(&instr, 1));
  auto plan = fb::CreateExecutionPlan(fbb, fbb.CreateString("forward"), 0, values,
                                      fbb.CreateVector(std::vector<int32_t>{0}),
                                      0, fbb.CreateVector(&chain, 1));
  auto prog = fb::CreateProgram(fbb, 0, fbb.CreateVector(&plan, 1));
  fbb.Finish(prog, fb::ProgramIdentifier());
  std::vector<uint8_t> bytes(fbb.GetBufferPointer(),
                             fbb.GetBufferPointer() + fbb.GetSize());
  CHECK(openError(bytes) ==
        "Program.execution_plan[0].values[0]: tag 5 without a value");
}

TEST_CASE("inspect: golden JSON of the sample program", "[inspect][golden]") {
  // Pins the writer's layout (header values, segment offsets, field set).
  // To update after an intended change: PTEC_UPDATE_GOLDEN=1 pte_writer_tests
  std::vector<uint8_t> bytes = sampleProgram();
  PteView v;
  std::string err, json;
  REQUIRE(openPte(bytes.data(), bytes.size(), &v, &err));
  JsonOptions o;
  o.elideBytes = true;
  REQUIRE(dumpPteJson(v, o, &json, &err));
  std::string path = std::string(PTE_GOLDEN_DIR) + "/sample_program.json";
  if (std::getenv("PTEC_UPDATE_GOLDEN"))
    REQUIRE(writeFileAtomic(path, std::vector<uint8_t>(json.begin(), json.end()),
                            &err));
  std::vector<uint8_t> golden;
  REQUIRE(readFileBytes(path, &golden, &err));
  CHECK(json == std::string(golden.begin(), golden.end()));
}

// A masked_fill with -inf keeps a non-finite Double in the program; the JSON
// must still parse (flatbuffers alone writes a bare -inf).
TEST_CASE("inspect: non-finite doubles are JSON strings", "[inspect]") {
  ProgramBuilder b;
  auto plan = addPlan("forward", 0);
  for (double d : {-std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN()}) {
    fb::DoubleT x;
    x.double_val = d;
    auto v = std::make_unique<fb::EValueT>();
    v->val.Set(std::move(x));
    plan->values.push_back(std::move(v));
  }
  b.program.execution_plan.push_back(std::move(plan));
  std::vector<uint8_t> bytes = serializeProgram(b);
  PteView v;
  std::string err, json;
  REQUIRE(openPte(bytes.data(), bytes.size(), &v, &err));
  REQUIRE(dumpPteJson(v, {}, &json, &err));
  CHECK(contains(json, "\"double_val\": \"-inf\""));
  CHECK(contains(json, "\"double_val\": \"inf\""));
  CHECK(contains(json, "\"double_val\": \"nan\""));
  CHECK_FALSE(contains(json, ": -inf"));
  CHECK_FALSE(contains(json, ": inf"));
  CHECK_FALSE(contains(json, ": nan"));
}
