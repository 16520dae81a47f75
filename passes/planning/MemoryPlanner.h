// Memory-planning algorithms over tensor lifetimes (no MLIR here): the
// planning pass turns the IR into PlanRequests and calls planBest.
//
// Conventions (spec/pte-format.md section 6): sizes are rounded up to 16,
// offsets are multiples of 16 (or of a larger requested alignment), lifetimes
// are inclusive so touching lifetimes overlap, memory id 0 is reserved, and
// ties are broken by request index so results are deterministic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ptec::planning {

struct PlanRequest {
  int64_t size;      // bytes; rounded up to 16 when planned
  int64_t firstUse;  // instruction index of the definition
  int64_t lastUse;   // inclusive
  int32_t memId = 1; // arena; 0 is reserved
  int64_t alignment = 16; // power of two; 16 is the minimum applied
};

struct PlanResult {
  std::vector<int64_t> offsets;    // per request, within its arena
  std::vector<int64_t> arenaSizes; // index = memId; [0] = 0; at least [0, 0]
  std::string algorithm;
  int64_t peakLiveLowerBound = 0;
  // Non-empty when the requests were invalid; offsets are then all -1.
  std::string error;

  int64_t totalSize() const;
};

// Upstream's default: largest first, reuse shared objects (section 6).
PlanResult planGreedyBySize(const std::vector<PlanRequest> &requests);
// Largest first; each tensor goes into the smallest gap between the offsets of
// lifetime-overlapping tensors that already hold memory, else on top.
PlanResult planBestFit(const std::vector<PlanRequest> &requests);
// By first use; each tensor goes to the lowest offset where it fits.
PlanResult planInOrderFirstFit(const std::vector<PlanRequest> &requests);
// The tensors live at the busiest instruction first, then the next busiest,
// each into its best-fitting gap (after TFLite's "greedy by breadth").
PlanResult planGreedyByBreadth(const std::vector<PlanRequest> &requests);
// By first use, under a target size starting at the lower bound: lowest or
// highest place that fits, preferring one flush against the arena's edge.
PlanResult planTwoSided(const std::vector<PlanRequest> &requests);
// Runs every algorithm above and keeps the smallest total; ties -> first.
PlanResult planBest(const std::vector<PlanRequest> &requests);

// Sum over arenas of the maximum, over time, of the live aligned bytes. No
// plan can be smaller.
int64_t peakLiveLowerBound(const std::vector<PlanRequest> &requests);

// Checks that the requests are plannable (memId >= 1, size >= 0,
// firstUse <= lastUse, alignment a power of two); names the first bad one.
bool validateRequests(const std::vector<PlanRequest> &requests,
                      std::string *why);

// Checks a plan: every offset aligned and inside its arena, arena 0 empty,
// and no two lifetime-overlapping requests share a byte.
bool verifyPlan(const std::vector<PlanRequest> &requests,
                const PlanResult &result, std::string *why);

} // namespace ptec::planning
