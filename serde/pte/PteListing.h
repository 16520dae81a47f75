// Listings of a checked .pte for people (pte-inspect --instructions, --plan,
// --plan-svg): every instruction with its operator and argument values, and
// the memory plan as a table and as a picture (tensors as boxes over time x
// arena offset). Lifetimes are read back from the instructions, so the
// listings work on any .pte, ours or upstream's.
#pragma once

#include "serde/pte/PteInspect.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ptec::pte {

/// One planned tensor (or delegate scratch) of a method and when it is live.
struct PlannedRange {
  enum class Kind { Tensor, Input, Output, State, Scratch };
  Kind kind = Kind::Tensor;
  int64_t value = -1; // EValue index (delegate index for scratch)
  uint32_t memId = 0;
  uint64_t offset = 0, size = 0;   // bytes, rounded up to 16 as planned
  int64_t first = 0, last = 0;     // instruction indices, inclusive
  std::string label;               // "%12 float32[4, 16]"
};

/// The planned tensors of method `m` with lifetimes: from the first to the
/// last instruction that names the value (directly or in a tensor list);
/// inputs from the start, outputs and mutable state to the end.
std::vector<PlannedRange> plannedRanges(const PteView &view, uint32_t m);

/// Every instruction of every method: index, kind, operator or delegate, and
/// each argument value.
std::string listInstructions(const PteView &view);
/// Per method, per planned tensor: lifetime, arena, offset, size and kind,
/// plus each arena's size and the peak of live bytes (the lower bound).
std::string listPlan(const PteView &view);
/// The plan of method `method` (empty: the first) as an SVG picture; false
/// with *err when there is no such method.
bool planSvg(const PteView &view, const std::string &method, std::string *svg,
             std::string *err);

} // namespace ptec::pte
