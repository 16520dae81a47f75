// The memory plan of a .pte read back from the program alone (ours or
// upstream's), and THE lower bound of a plan (docs/memory-planning.md, "The
// lower bound"). One definition, one implementation: the compile report
// (aot-compile --report), pte-inspect --plan and the plan pictures (both
// --plan-svg) all call planLowerBound on the written program, so the three
// cannot disagree.
#pragma once

#include "serde/pte/PteInspect.h"

#include <cstdint>
#include <map>
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
  std::string stateName;           // a mutable buffer's name, when the program has it
};

/// "tensor", "input", "output", "state" or "scratch": the listing's column
/// and the plan picture's CSS class.
const char *kindName(PlannedRange::Kind k);

/// The planned tensors of method `m` with lifetimes: from the first to the
/// last instruction that names the value (directly or in a tensor list);
/// inputs from the start, outputs and mutable state to the end; a value no
/// instruction defines (a static view: same place as its base, no
/// instruction, only returned) from the definition of the last value placed
/// at its offset; a value used inside a loop (a backward jump) until the
/// jump.
std::vector<PlannedRange> plannedRanges(const PteView &view, uint32_t m);

/// A method's plan against its lower bound.
struct PlanBound {
  /// Arena id (1, 2, ...) -> its planned size (non_const_buffer_sizes).
  std::map<uint32_t, uint64_t> arenaBytes;
  /// Arena id -> the most bytes of it that hold a live value at one
  /// instruction: the union of the live ranges' byte intervals, so views
  /// (which share their base's bytes) count once.
  std::map<uint32_t, uint64_t> peakBytes;
  /// Arena id -> the first instruction at which the peak is reached.
  std::map<uint32_t, int64_t> peakAt;
  uint64_t planned = 0;    // sum of arenaBytes
  uint64_t lowerBound = 0; // sum of peakBytes: no plan of these lifetimes is smaller
};

/// The plan of method `m` and its lower bound, from the ranges above.
PlanBound planLowerBound(const PteView &view, uint32_t m);
/// The same over ranges already computed (plannedRanges(view, m)).
PlanBound planLowerBound(const PteView &view, uint32_t m,
                         const std::vector<PlannedRange> &ranges);

} // namespace ptec::pte
