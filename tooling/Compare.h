// Comparing a value the runtime produced with an expected .npy array,
// element by element within atol + rtol * |expected| (NaN equals NaN, an
// infinity equals the same infinity and nothing else). pte-run --expected
// and --expected-state use it; RunOutput prints the result.
#pragma once

#include "runtime/core/EValue.h"
#include "runtime/executor/Npy.h"

#include <cstdint>
#include <string>

namespace ptec::tooling {

struct Tolerance {
  double rtol, atol;
};

struct Comparison {
  double maxAbs = 0, maxRel = 0;
  int64_t bad = 0;       ///< elements outside the tolerance
  int64_t elements = 0;
  int64_t firstBad = -1; ///< row-major index of the first one, -1 when none
  bool ok() const { return bad == 0; }
};

/// Whether |actual - expected| is within the tolerance; the difference
/// (0 for equal NaNs or infinities, inf when one side is NaN) in `diff`.
bool closeEnough(double actual, double expected, Tolerance tol, double &diff);

/// Compares `v` with `want` into `result`. False with `problem` set when
/// they cannot be compared at all: a phrase that follows the value's label
/// ("is not a tensor", "has shape [2], expected [3]").
bool compareWithExpected(const rt::EValue &v, const rt::NpyArray &want, Tolerance tol,
                         Comparison &result, std::string &problem);

} // namespace ptec::tooling
