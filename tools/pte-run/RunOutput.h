// What pte-run says, as text lines (the default) or as one JSON document
// (--json): outputs' summaries, comparisons with expected values, delegate
// init counts, timings and the per-instruction profile. The run logic calls
// these; the format is decided here, in one place.
#pragma once

#include "runtime/core/EValue.h"
#include "runtime/executor/Npy.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ptec::pterun {

/// "[2, 3]".
std::string shapeString(rt::Span<const int64_t> sizes);
/// "float32 [2, 3]", "int 4", ...
std::string describeValue(const rt::EValue &v);

struct Tolerance {
  double rtol, atol;
};

/// One profiled instruction (or operator) line.
struct ProfileRow {
  std::string what; // "[3] aten::addmm.out" or "aten::addmm.out"
  uint64_t calls = 0;
  double totalMs = 0;
};

class RunOutput {
public:
  explicit RunOutput(bool json) : json_(json) {}

  void delegates(size_t entries, const std::vector<std::pair<std::string, size_t>> &inits);
  /// An output or state value: dtype, shape, min/max/mean, first elements.
  void value(const std::string &label, const rt::EValue &v);
  /// Compares `v` with `want`; one line (or JSON entry). True when close;
  /// false with `problem` set when they cannot be compared at all.
  bool compare(const std::string &label, const rt::EValue &v, const rt::NpyArray &want,
               Tolerance tol, std::string &problem);
  void mismatch(const std::string &label, const std::string &why);
  void timings(double loadMs, double initMs, std::vector<double> runMs, double peakRssMiB);
  void profile(const std::vector<ProfileRow> &byInstruction,
               const std::vector<ProfileRow> &byOperator, double totalMs);
  /// The JSON document (with `ok`), or "" in text mode (already printed).
  std::string finish(bool ok);

private:
  bool json_;
  nlohmann::ordered_json doc_ = nlohmann::ordered_json::object();
};

} // namespace ptec::pterun
