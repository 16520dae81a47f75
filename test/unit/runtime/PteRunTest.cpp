// End-to-end checks of the pte-run tool: programs and .npy files are written
// here, pte-run runs as a child process, and its exit status, messages and
// output files are checked.
#include "runtime/executor/Npy.h"
#include "test/unit/runtime/PteTestUtil.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

using namespace ptec::rt;
using namespace ptec::rt::test;
using Catch::Matchers::Contains;

namespace {

void writeFile(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::string readText(const std::string &path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// Run pte-run with `args`; returns its exit status, stdout+stderr in `out`.
int runTool(const std::string &args, std::string &out) {
  std::string log = "pte_run_test.log";
  std::string cmd = std::string("\"") + PTE_RUN_PATH + "\" " + args + " > " + log + " 2>&1";
  int rc = std::system(cmd.c_str());
  out = readText(log);
  std::remove(log.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

void writeNpyFloats(const std::string &path, std::vector<int64_t> shape, std::vector<float> v) {
  REQUIRE(writeNpy(path.c_str(), ScalarType::Float,
                   Span<const int64_t>(shape.data(), shape.size()), v.data(),
                   v.size() * sizeof(float)) == Error::Ok);
}

/// forward(x, y) = x + y on tensors of `sizes` (needs the portable
/// aten::add.out), each planned in a `slot`-byte piece of the arena.
void writeAddProgram(const std::string &path, std::vector<int32_t> sizes = {2, 3},
                     uint64_t slot = 32) {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  int x = b.plannedTensor(sizes, 1, 0), y = b.plannedTensor(sizes, 1, slot);
  int alpha = b.intValue(1), out = b.plannedTensor(sizes, 1, 2 * slot);
  b.kernelCall(b.op("aten::add", "out"), {x, y, alpha, out, out});
  b.plan().inputs = {x, y};
  b.plan().outputs = {out};
  emptyConstantSegment(p);
  writeFile(path, serialize(p, {{}}));
}

/// forward(x, y) = x + y on 0-d (scalar) tensors.
void writeScalarAddProgram(const std::string &path) { writeAddProgram(path, {}, 16); }

/// ptr_add.pte with its two [2, 3] inputs ptr_x.npy and ptr_y.npy.
void writeAddProgramAndInputs() {
  writeAddProgram("ptr_add.pte");
  writeNpyFloats("ptr_x.npy", {2, 3}, {1, 2, 3, 4, 5, 6});
  writeNpyFloats("ptr_y.npy", {2, 3}, {10, 20, 30, 40, 50, 60});
}

/// Expected outputs for ptr_add.pte on ptr_x.npy and ptr_y.npy: ptr_good.npy
/// is x + y, ptr_bad.npy differs from it in the last element.
void writeAddExpectations() {
  writeNpyFloats("ptr_good.npy", {2, 3}, {11, 22, 33, 44, 55, 66});
  writeNpyFloats("ptr_bad.npy", {2, 3}, {11, 22, 33, 44, 55, 70});
}

} // namespace

TEST_CASE("pte-run refuses an input of more dimensions than a tensor holds", "[pte-run]") {
  // A rank-17 array of one element fed to a scalar input used to run (the
  // failed tensor init was ignored) and print a result.
  writeScalarAddProgram("ptr_scalar_add.pte");
  writeNpyFloats("ptr_one.npy", {}, {1});
  writeNpyFloats("ptr_rank17.npy", std::vector<int64_t>(17, 1), {2});
  std::string out;
  REQUIRE(runTool("ptr_scalar_add.pte --input ptr_one.npy --input ptr_one.npy", out) == 0);
  REQUIRE(runTool("ptr_scalar_add.pte --input ptr_rank17.npy --input ptr_one.npy", out) == 1);
  REQUIRE_THAT(out, Contains("input 0: ptr_rank17.npy"));
  REQUIRE_THAT(out, Contains("rank 17"));
  // Any other input gets the same message, not one about rank 0 or dtypes.
  writeAddProgram("ptr_add.pte");
  writeNpyFloats("ptr_y.npy", {2, 3}, {10, 20, 30, 40, 50, 60});
  REQUIRE(runTool("ptr_add.pte --input ptr_y.npy --input ptr_rank17.npy", out) == 1);
  REQUIRE_THAT(out, Contains("input 1: ptr_rank17.npy"));
  REQUIRE_THAT(out, Contains("rank 17"));
}

TEST_CASE("pte-run runs, writes and compares outputs", "[pte-run]") {
  writeAddProgramAndInputs();
  writeAddExpectations();
  std::string out;

  REQUIRE(runTool("ptr_add.pte --list", out) == 0);
  REQUIRE_THAT(out, Contains("input 1: float32 [2, 3]"));

  REQUIRE(runTool("ptr_add.pte --input ptr_x.npy --input ptr_y.npy --expected ptr_good.npy "
                  "--output-dir . --repeat 3",
                  out) == 0);
  REQUIRE_THAT(out, Contains("output 0 vs expected: max abs err 0"));
  REQUIRE_THAT(out, Contains("p50"));
  REQUIRE_THAT(out, Contains("peak RSS"));
  auto written = readNpy("output_0.npy");
  REQUIRE(written.ok());
  REQUIRE(written->shape == std::vector<int64_t>{2, 3});
  REQUIRE(reinterpret_cast<const float *>(written->data.data())[5] == 66.0f);

  REQUIRE(runTool("ptr_add.pte --input ptr_x.npy --input ptr_y.npy --expected ptr_bad.npy", out) == 1);
  REQUIRE_THAT(out, Contains("MISMATCH"));
  REQUIRE(runTool("ptr_add.pte --input ptr_x.npy --input ptr_y.npy --expected ptr_bad.npy --atol 5",
                  out) == 0);

  REQUIRE(runTool("ptr_add.pte --input random --input ptr_y.npy", out) == 0);

  // Raw inputs: the bytes of the declared dtype and shape.
  std::vector<float> raw = {1, 1, 1, 1, 1, 1};
  writeFile("ptr_x.bin", std::vector<uint8_t>(reinterpret_cast<uint8_t *>(raw.data()),
                                              reinterpret_cast<uint8_t *>(raw.data()) + 24));
  REQUIRE(runTool("ptr_add.pte --input ptr_x.bin --input ptr_y.npy", out) == 0);
  REQUIRE_THAT(out, Contains("[11, 21, 31, 41, 51, 61]"));
  writeFile("ptr_short.bin", std::vector<uint8_t>(8, 0));
  REQUIRE(runTool("ptr_add.pte --input ptr_short.bin --input ptr_y.npy", out) == 1);
  REQUIRE_THAT(out, Contains("has 8 bytes, float32 [2, 3] needs 24"));
}

TEST_CASE("pte-run exit status: 1 for bad programs and data, 2 for usage", "[pte-run]") {
  writeAddProgram("ptr_add.pte");
  std::string out;
  // Each command line: its exit status and a part of what it prints.
  const struct {
    const char *args;
    int status;
    const char *says;
  } runs[] = {
      {"ptr_missing.pte", 1, "pte-run: ptr_missing.pte: error: cannot open file"},
      {"ptr_add.pte --method nope", 2, "no method named 'nope'"},
      {"ptr_add.pte --input ptr_x.npy", 2, "has 2 inputs, 1 --input given"},
      {"ptr_add.pte --repeat 0", 2, "pte-run: error:"},
      {"", 2, "no program given"},
      {"--help", 0, "Examples:"},
      {"--version", 0, "pte-run (ptec) "},
  };
  for (const auto &run : runs) {
    INFO("pte-run " << run.args);
    REQUIRE(runTool(run.args, out) == run.status);
    REQUIRE_THAT(out, Contains(run.says));
  }

  writeFile("ptr_garbage.pte", std::vector<uint8_t>(100, 0x41));
  REQUIRE(runTool("ptr_garbage.pte", out) == 1);
  REQUIRE_THAT(out, Contains("pte-run: ptr_garbage.pte: error:"));
  REQUIRE_THAT(out, Contains("ET12"));

  // A static input of another shape (same number of elements) is refused
  // before anything runs, naming both shapes.
  writeNpyFloats("ptr_x32.npy", {3, 2}, {1, 2, 3, 4, 5, 6});
  writeNpyFloats("ptr_y.npy", {2, 3}, {10, 20, 30, 40, 50, 60});
  REQUIRE(runTool("ptr_add.pte --input ptr_x32.npy --input ptr_y.npy", out) == 1);
  REQUIRE_THAT(out, Contains("input 0: shape [3, 2], the method expects [2, 3]"));
}

TEST_CASE("pte-run --json and --profile", "[pte-run]") {
  writeAddProgramAndInputs();
  writeAddExpectations();
  std::string out;
  REQUIRE(runTool("ptr_add.pte --input ptr_x.npy --input ptr_y.npy --expected ptr_good.npy "
                  "--json --profile --repeat 3",
                  out) == 0);
  // One JSON document and nothing else on stdout.
  REQUIRE(out.front() == '{');
  REQUIRE_THAT(out, Contains("\"label\": \"output 0\""));
  REQUIRE_THAT(out, Contains("\"max_abs_err\": 0.0"));
  REQUIRE_THAT(out, Contains("\"runs\": 3"));
  REQUIRE_THAT(out, Contains("\"what\": \"aten::add.out\""));
  REQUIRE_THAT(out, Contains("\"calls\": 3"));
  REQUIRE_THAT(out, Contains("\"ok\": true"));
  REQUIRE(out.find("vs expected") == std::string::npos);
  REQUIRE(runTool("ptr_add.pte --input ptr_x.npy --input ptr_y.npy --expected ptr_bad.npy --json",
                  out) == 1);
  REQUIRE_THAT(out, Contains("\"bad_elements\": 1"));
  REQUIRE_THAT(out, Contains("\"ok\": false"));
  // Text profile: per operator, then the slowest instructions.
  REQUIRE(runTool("ptr_add.pte --input ptr_x.npy --input ptr_y.npy --profile", out) == 0);
  REQUIRE_THAT(out, Contains("by operator:"));
  REQUIRE_THAT(out, Contains("[0] aten::add.out"));
}

/// forward() = (0.1, 1/3, "say \"hi\"\n"): values fixed by the program, no
/// instructions.
void writeScalarOutputsProgram(const std::string &path) {
  fb::ProgramT p;
  PlanBuilder b(addPlan(p, "forward"));
  int tenth = b.doubleValue(0.1), third = b.doubleValue(1.0 / 3.0);
  auto str = std::make_unique<fb::EValueT>();
  fb::StringT s;
  s.string_val = "say \"hi\"\n";
  str->val.Set(std::move(s));
  b.plan().values.push_back(std::move(str));
  int text = static_cast<int>(b.plan().values.size()) - 1;
  b.plan().outputs = {tenth, third, text};
  emptyConstantSegment(p);
  writeFile(path, serialize(p, {{}}));
}

TEST_CASE("pte-run prints doubles that read back and strings as strings", "[pte-run]") {
  writeScalarOutputsProgram("ptr_scalars.pte");
  std::string out;
  REQUIRE(runTool("ptr_scalars.pte", out) == 0);
  REQUIRE_THAT(out, Contains("output 0: double 0.1\n"));
  REQUIRE_THAT(out, Contains("output 1: double 0.3333333333333333\n"));
  REQUIRE_THAT(out, Contains("output 2: string \"say \\\"hi\\\"\\n\"\n"));
  REQUIRE(out.find("list") == std::string::npos);
  REQUIRE(runTool("ptr_scalars.pte --json", out) == 0);
  REQUIRE_THAT(out, Contains("\"value\": \"double 0.3333333333333333\""));
  REQUIRE_THAT(out, Contains("\"scalar\": 0.3333333333333333"));
  REQUIRE_THAT(out, Contains("\"string\": \"say \\\"hi\\\"\\n\""));
}

TEST_CASE("pte-run usage errors say 'pte-run: error:' and where the help is", "[pte-run]") {
  std::string out;
  REQUIRE(runTool("--bogus-flag x.pte", out) == 2);
  REQUIRE_THAT(out, Contains("pte-run: error: "));
  REQUIRE_THAT(out, Contains("--bogus-flag"));
  REQUIRE_THAT(out, Contains("run 'pte-run --help' for usage"));
  REQUIRE(runTool("", out) == 2);
  REQUIRE_THAT(out, Contains("pte-run: error: no program given"));
}

TEST_CASE("pte-run creates --output-dir and --state-dir", "[pte-run]") {
  writeAddProgramAndInputs();
  std::remove("ptr_new/deeper/output_0.npy");
  std::string out;
  REQUIRE(runTool("ptr_add.pte --input ptr_x.npy --input ptr_y.npy --output-dir ptr_new/deeper "
                  "--state-dir ptr_state",
                  out) == 0);
  auto written = readNpy("ptr_new/deeper/output_0.npy");
  REQUIRE(written.ok());
  REQUIRE(reinterpret_cast<const float *>(written->data.data())[0] == 11.0f);
}

TEST_CASE("pte-run --calls runs one loaded program several times", "[pte-run]") {
  writeAddProgram("ptr_add.pte");
  for (int c = 0; c < 3; ++c) {
    float k = static_cast<float>(c);
    writeNpyFloats("ptr_cx_" + std::to_string(c) + ".npy", {2, 3}, {k, k, k, k, k, k});
    writeNpyFloats("ptr_cz_" + std::to_string(c) + ".npy", {2, 3},
                   {k + 1, k + 1, k + 1, k + 1, k + 1, k + 1});
  }
  writeNpyFloats("ptr_one.npy", {2, 3}, {1, 1, 1, 1, 1, 1});
  std::string out;
  REQUIRE(runTool("ptr_add.pte --calls 3 --input ptr_cx_{call}.npy --input ptr_one.npy "
                  "--expected ptr_cz_{call}.npy",
                  out) == 0);
  REQUIRE_THAT(out, Contains("call 2 output 0 vs expected: max abs err 0"));
  // A wrong expectation for one call is found and named.
  writeNpyFloats("ptr_cz_1.npy", {2, 3}, {9, 9, 9, 9, 9, 9});
  REQUIRE(runTool("ptr_add.pte --calls 3 --input ptr_cx_{call}.npy --input ptr_one.npy "
                  "--expected ptr_cz_{call}.npy",
                  out) == 1);
  REQUIRE_THAT(out, Contains("call 1 output 0 vs expected"));
  REQUIRE_THAT(out, Contains("MISMATCH"));
  // The program names no state: asking for some says so.
  REQUIRE(runTool("ptr_add.pte --input ptr_one.npy --input ptr_one.npy "
                  "--expected-state cache=ptr_one.npy",
                  out) == 2);
  REQUIRE_THAT(out, Contains("has no mutable buffer named 'cache'"));
  REQUIRE_THAT(out, Contains("--emit-state-names"));
}

#if PTEC_HAVE_DEMO_BACKEND
TEST_CASE("pte-run runs a shared demo delegate", "[pte-run]") {
  fb::ProgramT p;
  uint32_t blob = addInlineBlob(
      p, "1version:0#op:demo::aten.sin.default, numel:2, dtype:torch.float32<debug_handle>1#");
  PlanBuilder b(addPlan(p, "forward"));
  int x = b.plannedTensor({2}, 1, 0), y = b.plannedTensor({2}, 1, 16), z = b.plannedTensor({2}, 1, 32);
  int d = b.delegate("BackendWithCompilerDemo", blob, {{"max_value", {4}}});
  b.delegateCall(d, {x, y});
  b.delegateCall(d, {y, z});
  b.plan().inputs = {x};
  b.plan().outputs = {y, z};
  emptyConstantSegment(p);
  writeFile("ptr_sin.pte", serialize(p, {{}}));
  writeNpyFloats("ptr_sx.npy", {2}, {1, 2});
  std::string out;
  REQUIRE(runTool("ptr_sin.pte --input ptr_sx.npy", out) == 0);
  REQUIRE_THAT(out, Contains("[0.833333, 0.666667]"));
}
#endif

// Bounded dynamic shapes: a DYNAMIC_BOUND input smaller than its bound runs,
// and outputs are printed, saved and compared at their current shape (here
// set by view_copy from a sym_size), not at the declared bound.
TEST_CASE("pte-run reports DYNAMIC_BOUND outputs at their current shape", "[pte-run]") {
  {
    // forward(x: f32[2, <=8]) = view_copy(x + x, [x.size(1), 2])
    fb::ProgramT p;
    PlanBuilder b(addPlan(p, "forward"));
    int x = b.plannedTensor({2, 8}, 1, 0), y = b.plannedTensor({2, 8}, 1, 64);
    int out = b.plannedTensor({8, 2}, 1, 128);
    for (int v : {x, y, out})
      b.tensorAt(v).shape_dynamism = fb::TensorShapeDynamism::DYNAMIC_BOUND;
    int alpha = b.intValue(1);
    b.kernelCall(b.op("aten::add", "out"), {x, x, alpha, y, y});
    int dim = b.intValue(1), s = b.intValue(0);
    b.kernelCall(b.op("aten::sym_size", "int"), {x, dim, s});
    int two = b.intValue(2);
    int size = b.intList({s, two});
    b.kernelCall(b.op("aten::view_copy", "out"), {y, size, out, out});
    b.plan().inputs = {x};
    b.plan().outputs = {out};
    emptyConstantSegment(p);
    writeFile("ptr_dyn.pte", serialize(p, {{}}));
  }
  writeNpyFloats("ptr_dyn_x.npy", {2, 3}, {1, 2, 3, 4, 5, 6});
  writeNpyFloats("ptr_dyn_want.npy", {3, 2}, {2, 4, 6, 8, 10, 12});
  writeNpyFloats("ptr_dyn_bound.npy", {8, 2}, std::vector<float>(16, 0.0f));
  writeNpyFloats("ptr_dyn_over.npy", {2, 9}, std::vector<float>(18, 0.0f));
  std::string out;
  REQUIRE(runTool("ptr_dyn.pte --input ptr_dyn_x.npy --expected ptr_dyn_want.npy "
                  "--output-dir ptr_dyn_out",
                  out) == 0);
  CHECK_THAT(out, Contains("output 0: float32 [3, 2]"));
  CHECK_THAT(out, Contains("output 0 vs expected: max abs err 0"));
  auto saved = readNpy("ptr_dyn_out/output_0.npy");
  REQUIRE(saved.ok());
  CHECK(saved->shape == std::vector<int64_t>{3, 2});
  // Compared against the bound's shape, it is a mismatch.
  REQUIRE(runTool("ptr_dyn.pte --input ptr_dyn_x.npy --expected ptr_dyn_bound.npy", out) == 1);
  CHECK_THAT(out, Contains("has shape [3, 2], expected [8, 2]"));
  // Above the bound: refused before anything runs.
  REQUIRE(runTool("ptr_dyn.pte --input ptr_dyn_over.npy", out) == 1);
  CHECK_THAT(out, Contains("input 0: dimension 1 is 9, above its bound 8"));
}
