// pte-inspect --check's rule checker (serde/pte/PteCheck) on programs our
// writer produces: clean as written, and each rule fires on its corruption.
// The hand-built corpus (test/conformance) covers every rule end to end.
#include "serde/pte/PteCheck.h"
#include "serde/pte/PteWriter.h"
#include "test/unit/emitter/TestPrograms.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <set>

using namespace ptec::pte;
using namespace ptec::pte::testing;

namespace {

std::vector<uint8_t> write(ProgramBuilder &b) {
  std::vector<uint8_t> out;
  std::string err;
  REQUIRE(trySerializeProgram(b, {}, &out, &err));
  return out;
}

/// forward (a constant in segment 0) and prefill (a shared demo delegate).
std::vector<uint8_t> sample() {
  ProgramBuilder b;
  addSampleMethods(b, std::vector<uint8_t>(24, 5), {}, "prefill", 3);
  return write(b);
}

std::set<std::string> rules(const std::vector<uint8_t> &bytes) {
  std::set<std::string> r;
  for (const Violation &v : checkPte(bytes.data(), bytes.size()))
    r.insert(v.rule + "@" + v.where);
  return r;
}

void put64(std::vector<uint8_t> &b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

} // namespace

TEST_CASE("check: our writer's programs are clean", "[check]") {
  std::vector<uint8_t> bytes = sample();
  auto v = checkPte(bytes.data(), bytes.size());
  for (const Violation &x : v)
    INFO(x.rule << " " << x.where << ": " << x.message);
  CHECK(v.empty());
  std::string out;
  CHECK(formatViolations("s.pte", v, &out) == 0);
  CHECK(out == "s.pte: ok\n");
}

TEST_CASE("check: rules fire on corruptions", "[check]") {
  std::vector<uint8_t> good = sample();
  SECTION("24-byte header: a warning, not an error") {
    auto b = good;
    b[12] = 24;
    put64(b, 32, 0);
    CHECK(rules(b) == std::set<std::string>{"header.legacy-length@header"});
  }
  SECTION("segment_data_size that is not the end of the last segment") {
    auto b = good;
    uint64_t dsize;
    std::memcpy(&dsize, b.data() + 32, 8);
    put64(b, 32, dsize - 1);
    CHECK(rules(b) == std::set<std::string>{"header.data-size@header"});
  }
  SECTION("a truncated file") {
    std::vector<uint8_t> b(good.begin(), good.end() - 1);
    CHECK(rules(b) == std::set<std::string>{"header.file-size@header", "segment.bounds@segments[1]"});
  }
  SECTION("segment data that starts inside the program") {
    auto b = good;
    put64(b, 24, 16);
    CHECK(rules(b) == std::set<std::string>{"header.segment-base@header"});
  }
  SECTION("too small and not a .pte") {
    std::vector<uint8_t> tiny(good.begin(), good.begin() + 63);
    CHECK(rules(tiny) == std::set<std::string>{"file.size@file"});
    auto b = good;
    std::memcpy(b.data() + 4, "ET99", 4);
    CHECK(rules(b) == std::set<std::string>{"file.identifier@file"});
  }
  SECTION("KernelCall argument count and return entry") {
    ProgramBuilder pb;
    std::vector<uint8_t> w(24, 5);
    uint32_t wi = pb.addConstant(w.data(), w.size());
    auto plan = addPlan("forward", wi);
    auto &args = plan->chains[0]->instructions[0]->instr_args.AsKernelCall()->args;
    args.pop_back(); // [self, other, alpha, out]: the return entry is missing
    pb.program.execution_plan.push_back(std::move(plan));
    auto b = write(pb);
    auto v = checkPte(b.data(), b.size());
    REQUIRE(v.size() == 1);
    CHECK(v[0].rule == "kernel.arg-count");
    CHECK(v[0].where == "execution_plan[0].chains[0].instructions[0]");
    CHECK(v[0].message == "aten::add.out has 4 args, expected 5 (4 schema arguments + 1)");
    std::string out;
    CHECK(formatViolations("f.pte", v, &out) == 1);
    CHECK(out == "f.pte: error: [kernel.arg-count] execution_plan[0].chains[0].instructions[0]: "
                 "aten::add.out has 4 args, expected 5 (4 schema arguments + 1)\n"
                 "f.pte: 1 error, 0 warnings\n");
  }
}

TEST_CASE("check: corrupted files never crash the checker", "[check]") {
  std::vector<uint8_t> good = sample();
  size_t withFindings = 0;
  // Every single-byte corruption of the program, and every truncation.
  for (size_t at = 0; at < good.size(); ++at) {
    std::vector<uint8_t> c = good;
    c[at] ^= 0xA5;
    withFindings += checkPte(c.data(), c.size()).empty() ? 0 : 1;
  }
  for (size_t n = 0; n < good.size(); n += 5) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<long>(n));
    CHECK_FALSE(checkPte(cut.data(), cut.size()).empty());
  }
  // Most corruptions are noticed (some hit padding or free-form bytes).
  CHECK(withFindings > good.size() / 2);
}
