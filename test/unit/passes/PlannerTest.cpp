#include "passes/planning/MemoryPlanner.h"

#include <catch2/catch.hpp>

#include <random>

using namespace ptec::planning;

namespace {

using Planner = PlanResult (*)(const std::vector<PlanRequest> &);
const std::vector<std::pair<const char *, Planner>> kPlanners = {
    {"greedy-by-size", planGreedyBySize},
    {"best-fit", planBestFit},
    {"in-order-first-fit", planInOrderFirstFit},
    {"best", planBest},
};

PlanRequest req(int64_t size, int64_t first, int64_t last, int32_t mem = 1,
                int64_t align = 16) {
  return PlanRequest{size, first, last, mem, align};
}

std::vector<PlanRequest> randomInstance(std::mt19937_64 &rng) {
  std::uniform_int_distribution<int> count(0, 40), time(0, 60),
      mem(1, 3), small(0, 9);
  std::uniform_int_distribution<int64_t> size(0, 5000);
  std::vector<PlanRequest> reqs(static_cast<size_t>(count(rng)));
  for (auto &r : reqs) {
    int a = time(rng), b = time(rng);
    r.size = small(rng) == 0 ? 0 : size(rng);
    r.firstUse = std::min(a, b);
    r.lastUse = std::max(a, b);
    r.memId = small(rng) < 7 ? 1 : mem(rng);
    r.alignment = small(rng) == 1 ? 64 : 16;
  }
  return reqs;
}

} // namespace

TEST_CASE("planner: disjoint lifetimes share offset 0", "[planner]") {
  std::vector<PlanRequest> reqs = {req(100, 0, 1), req(64, 2, 3)};
  for (auto &[name, plan] : kPlanners) {
    INFO(name);
    PlanResult r = plan(reqs);
    CHECK(r.error.empty());
    CHECK(r.offsets == std::vector<int64_t>{0, 0});
    CHECK(r.arenaSizes == std::vector<int64_t>{0, 112});
    CHECK(r.peakLiveLowerBound == 112);
  }
}

TEST_CASE("planner: touching lifetimes overlap", "[planner]") {
  std::vector<PlanRequest> reqs = {req(16, 0, 1), req(16, 1, 2)};
  for (auto &[name, plan] : kPlanners) {
    INFO(name);
    PlanResult r = plan(reqs);
    CHECK(r.arenaSizes == std::vector<int64_t>{0, 32});
    CHECK(r.offsets[0] != r.offsets[1]);
    std::string why;
    CHECK(verifyPlan(reqs, r, &why));
  }
  CHECK(peakLiveLowerBound(reqs) == 32);
}

TEST_CASE("planner: a chain needs two buffers", "[planner]") {
  // a -> b -> c -> d, each consumed by the next op only.
  std::vector<PlanRequest> reqs = {req(32, 0, 1), req(32, 1, 2),
                                   req(32, 2, 3), req(32, 3, 4)};
  for (auto &[name, plan] : kPlanners) {
    INFO(name);
    PlanResult r = plan(reqs);
    CHECK(r.arenaSizes == std::vector<int64_t>{0, 64});
    CHECK(r.offsets[0] == r.offsets[2]);
    CHECK(r.offsets[1] == r.offsets[3]);
  }
}

TEST_CASE("planner: large tensor reused by two smaller ones", "[planner]") {
  // Optimal: 256 bytes. The big one dies before the two small ones that live
  // together.
  std::vector<PlanRequest> reqs = {req(256, 0, 2), req(128, 3, 5),
                                   req(128, 4, 6), req(16, 0, 0)};
  CHECK(peakLiveLowerBound(reqs) == 272);
  for (auto &[name, plan] : kPlanners) {
    INFO(name);
    PlanResult r = plan(reqs);
    std::string why;
    CHECK(verifyPlan(reqs, r, &why));
    CHECK(r.totalSize() == 272);
  }
}

TEST_CASE("planner: sizes round up to 16, larger alignments honoured",
          "[planner]") {
  std::vector<PlanRequest> reqs = {req(1, 0, 3), req(17, 0, 3),
                                   req(10, 0, 3, 1, 64)};
  for (auto &[name, plan] : kPlanners) {
    INFO(name);
    PlanResult r = plan(reqs);
    std::string why;
    REQUIRE(verifyPlan(reqs, r, &why));
    CHECK(r.offsets[2] % 64 == 0);
    for (int64_t off : r.offsets)
      CHECK(off % 16 == 0);
  }
  CHECK(peakLiveLowerBound(reqs) == 16 + 32 + 16);
}

TEST_CASE("planner: arenas by memId, id 0 reserved", "[planner]") {
  std::vector<PlanRequest> reqs = {req(32, 0, 5, 1), req(48, 0, 5, 3),
                                   req(16, 1, 2, 3)};
  PlanResult r = planBest(reqs);
  CHECK(r.arenaSizes == std::vector<int64_t>{0, 32, 0, 64});
  CHECK(r.peakLiveLowerBound == 96);

  PlanResult empty = planBest({});
  CHECK(empty.arenaSizes == std::vector<int64_t>{0, 0});
  CHECK(empty.offsets.empty());

  PlanResult bad = planBestFit({req(16, 0, 1, 0)});
  CHECK(bad.error == "request 0: memId 0 (0 is reserved)");
  CHECK(bad.offsets == std::vector<int64_t>{-1});
  std::string why;
  CHECK_FALSE(validateRequests({req(16, 3, 1)}, &why));
  CHECK(why == "request 0: lastUse 1 before firstUse 3");
  CHECK_FALSE(validateRequests({req(16, 0, 1, 1, 24)}, &why));
  CHECK(why == "request 0: alignment 24 is not a power of two");
}

TEST_CASE("planner: verifyPlan rejects overlaps and misalignment",
          "[planner]") {
  std::vector<PlanRequest> reqs = {req(32, 0, 2), req(32, 2, 4)};
  PlanResult r;
  r.offsets = {0, 16};
  r.arenaSizes = {0, 48};
  std::string why;
  CHECK_FALSE(verifyPlan(reqs, r, &why));
  CHECK(why == "requests 0 and 1 are live together and share bytes at offset 16");
  r.offsets = {0, 40};
  r.arenaSizes = {0, 80};
  CHECK_FALSE(verifyPlan(reqs, r, &why));
  CHECK(why == "request 1: offset 40 is not a non-negative multiple of 16");
  r.offsets = {0, 32};
  r.arenaSizes = {0, 48};
  CHECK_FALSE(verifyPlan(reqs, r, &why));
  CHECK(why == "request 1: bytes [32, 64) exceed arena 1 of size 48");
  r.arenaSizes = {0, 64};
  CHECK(verifyPlan(reqs, r, &why));
  r.arenaSizes = {8, 64};
  CHECK_FALSE(verifyPlan(reqs, r, &why));
}

TEST_CASE("planner: random instances are valid, bounded and deterministic",
          "[planner][property]") {
  std::mt19937_64 rng(12345);
  for (int iter = 0; iter < 1000; ++iter) {
    std::vector<PlanRequest> reqs = randomInstance(rng);
    int64_t lb = peakLiveLowerBound(reqs);
    PlanResult best = planBest(reqs);
    for (auto &[name, plan] : kPlanners) {
      PlanResult r = plan(reqs);
      std::string why;
      INFO("instance " << iter << " " << name);
      REQUIRE(verifyPlan(reqs, r, &why));
      REQUIRE(r.totalSize() >= lb);
      REQUIRE(r.peakLiveLowerBound == lb);
      REQUIRE(best.totalSize() <= r.totalSize());
      PlanResult again = plan(reqs);
      REQUIRE(again.offsets == r.offsets);
      REQUIRE(again.arenaSizes == r.arenaSizes);
      REQUIRE(again.algorithm == r.algorithm);
    }
  }
}

TEST_CASE("planner: planBest breaks ties by algorithm order", "[planner]") {
  std::vector<PlanRequest> reqs = {req(64, 0, 1)};
  PlanResult r = planBest(reqs);
  CHECK(r.algorithm == "greedy-by-size");
  CHECK(r.totalSize() == 64);
}
