// Comparing a value the runtime produced with an expected .npy array,
// element by element within atol + rtol * |expected| (NaN equals NaN, an
// infinity equals the same infinity and nothing else). pte-run --expected
// and --expected-state use it; RunOutput prints the result.
//
// Tolerances not given take torch.testing.assert_close's defaults for the
// dtypes compared (the looser of the two, as assert_close does): float32
// rtol 1.3e-6 / atol 1e-5, float16 1e-3 / 1e-5, bfloat16 1.6e-2 / 1e-5,
// float64 1e-7 / 1e-7, integers and bool exact. A comparison also says
// what a pass is worth (every expected value within atol of 0: any output
// that small passes) and, when it fails, which elements and the smallest
// tolerances that would have passed.
#pragma once

#include "runtime/core/EValue.h"
#include "runtime/executor/Npy.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptec::tooling {

struct Tolerance {
  double rtol, atol;
};

/// The tolerances asked for; an unset one takes the dtypes' default.
struct ToleranceRequest {
  std::optional<double> rtol, atol;
};

/// torch.testing.assert_close's default (rtol, atol) for one dtype; (0, 0)
/// for integers, bool and anything it has no entry for.
Tolerance defaultTolerance(rt::ScalarType dtype);
/// The tolerance a comparison of an `actual` tensor with an `expected` one
/// uses: each value given in `req`, else the looser default of the two
/// dtypes.
Tolerance resolveTolerance(const ToleranceRequest &req, rt::ScalarType actual,
                           rt::ScalarType expected);

/// One element outside the tolerance.
struct BadElement {
  std::vector<int64_t> index; ///< per dimension
  double expected = 0, actual = 0;
  double absErr = 0, relErr = 0; ///< relErr is inf for an expected 0
};

struct Comparison {
  Tolerance tol{0, 0};    ///< what was used
  bool rtolGiven = false, atolGiven = false; ///< else the dtypes' defaults
  std::string dtypes;     ///< "float32", or "float32 vs float64" when they differ
  bool float64 = false;   ///< either side is float64 (values need 17 digits)
  double maxAbs = 0, maxRel = 0;
  double maxAbsExpected = 0; ///< the largest finite |expected|
  int64_t bad = 0;           ///< elements outside the tolerance
  int64_t elements = 0;
  int64_t firstBad = -1;            ///< row-major index of the first one, -1 when none
  std::vector<BadElement> badShown; ///< the first kShownBad of them
  /// The smallest atol that passes at this rtol, and the smallest rtol that
  /// passes at this atol (rounded up to two significant digits); inf when
  /// none does (a NaN or infinity mismatch; for rtol also an expected 0
  /// off by more than atol).
  double passingAtol = 0, passingRtol = 0;

  static constexpr size_t kShownBad = 5;
  bool ok() const { return bad == 0; }
  /// Every expected value is within atol of zero: an output of all zeros
  /// (or any small enough one) would pass too, so a pass proves nothing.
  bool vacuous() const { return elements > 0 && tol.atol > 0 && maxAbsExpected <= tol.atol; }
  /// What would make a vacuous check mean something ("" when not vacuous).
  std::string vacuousAdvice() const;
  /// Where the tolerances came from: "float32 defaults", "as given", "rtol
  /// given, atol float32 default".
  std::string toleranceSource() const;
};

/// Whether |actual - expected| is within the tolerance; the difference
/// (0 for equal NaNs or infinities, inf when one side is NaN) in `diff`.
bool closeEnough(double actual, double expected, Tolerance tol, double &diff);

/// `x` rounded up to two significant digits (0 stays 0, inf stays inf):
/// the tolerances a comparison suggests, which then do pass.
double roundUpTwoDigits(double x);

/// Compares `v` with `want` into `result`. False with `problem` set when
/// they cannot be compared at all: a phrase that follows the value's label
/// ("is not a tensor", "has shape [2], expected [3]").
bool compareWithExpected(const rt::EValue &v, const rt::NpyArray &want, ToleranceRequest tol,
                         Comparison &result, std::string &problem);

} // namespace ptec::tooling
