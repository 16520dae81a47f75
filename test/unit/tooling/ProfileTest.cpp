// Run-time percentiles and the per-instruction profile (tooling/Profile.h).
#include "tooling/Profile.h"

#include <catch2/catch.hpp>

using namespace ptec::tooling;

TEST_CASE("percentiles are nearest-rank", "[tooling]") {
  Percentiles none = percentiles({});
  REQUIRE(none.p50 == 0);
  REQUIRE(none.p99 == 0);
  Percentiles one = percentiles({7});
  REQUIRE(one.p50 == 7);
  REQUIRE(one.p99 == 7);
  std::vector<double> v;
  for (int i = 100; i >= 1; --i)
    v.push_back(i);
  Percentiles s = percentiles(v);
  REQUIRE(s.p50 == 50);
  REQUIRE(s.p90 == 90);
  REQUIRE(s.p99 == 99);
}

TEST_CASE("InstructionProfile sums per instruction and per operator", "[tooling]") {
  InstructionProfile p({"aten::add.out", "aten::mul.out", "aten::add.out"});
  p.instructionDone(0, 1'000'000);
  p.instructionDone(1, 5'000'000);
  p.instructionDone(2, 4'000'000);
  p.instructionDone(0, 1'000'000);
  p.instructionDone(9, 1'000'000); // out of range: ignored
  std::vector<ProfileRow> byInstr, byOp;
  double total = 0;
  p.rows(byInstr, byOp, total);
  REQUIRE(total == Approx(11.0));
  REQUIRE(byInstr.size() == 3);
  REQUIRE(byInstr[0].what == "[1] aten::mul.out");
  REQUIRE(byInstr[1].what == "[2] aten::add.out");
  REQUIRE(byInstr[2].what == "[0] aten::add.out");
  REQUIRE(byInstr[2].calls == 2);
  REQUIRE(byOp.size() == 2);
  REQUIRE(byOp[0].what == "aten::add.out");
  REQUIRE(byOp[0].totalMs == Approx(6.0));
  REQUIRE(byOp[0].calls == 3);
  REQUIRE(byOp[1].what == "aten::mul.out");
}
