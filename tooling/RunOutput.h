// What pte-run says, as text lines (the default) or as one JSON document
// (--json): outputs' summaries, comparisons with expected values, delegate
// init counts, timings and the per-instruction profile. The run logic calls
// these; the format is decided here, in one place.
#pragma once

#include "runtime/core/EValue.h"
#include "runtime/executor/Npy.h"
#include "tooling/Compare.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace ptec::tooling {

/// One profiled instruction (or operator) line.
struct ProfileRow {
  std::string what; // "[3] aten::addmm.out" or "aten::addmm.out"
  uint64_t calls = 0;
  double totalMs = 0;
};

class RunOutput {
public:
  /// Text lines go to `text` as they come (stdout by default).
  explicit RunOutput(bool json, std::FILE *text = stdout) : json_(json), text_(text) {}

  void delegates(size_t entries, const std::vector<std::pair<std::string, size_t>> &inits);
  /// An output or state value: dtype, shape, min/max/mean, first elements;
  /// a scalar, string or list with its value.
  void value(const std::string &label, const rt::EValue &v);
  /// Compares `v` with `want`; one line (or JSON entry). True when close;
  /// false with `problem` set when they cannot be compared at all.
  bool compare(const std::string &label, const rt::EValue &v, const rt::NpyArray &want,
               ToleranceRequest tol, std::string &problem);
  void mismatch(const std::string &label, const std::string &why);
  /// `xnnpackThreads`: XnnpackBackend's pool size when the run used it, 0
  /// when it did not (then not shown).
  void timings(double loadMs, double initMs, std::vector<double> runMs, double peakRssMiB,
               size_t xnnpackThreads = 0);
  void profile(const std::vector<ProfileRow> &byInstruction,
               const std::vector<ProfileRow> &byOperator, double totalMs);
  /// The JSON document (with `ok`), or "" in text mode (already printed).
  std::string finish(bool ok);

  /// The JSON entry value() adds for `v` (label, value text, and the
  /// value itself or a tensor's summary).
  static nlohmann::ordered_json valueJson(const std::string &label, const rt::EValue &v);
  /// The text line value() prints for `v`, without the newline.
  static std::string valueText(const std::string &label, const rt::EValue &v);

private:
  void line(const std::string &text);

  bool json_;
  std::FILE *text_;
  nlohmann::ordered_json doc_ = nlohmann::ordered_json::object();
};

} // namespace ptec::tooling
