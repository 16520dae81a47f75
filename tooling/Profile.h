// Timing for pte-run: wall-clock milliseconds, run-time percentiles, peak
// memory, and the per-instruction profile of --profile (times per
// instruction and per operator, slowest first).
#pragma once

#include "runtime/executor/Method.h"
#include "runtime/executor/Program.h"
#include "tooling/RunOutput.h"

#include <chrono>
#include <string>
#include <vector>

namespace ptec::tooling {

double msSince(std::chrono::steady_clock::time_point t0);
/// The process's peak resident set in KiB (-1 when unknown).
long peakRssKiB();

struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0;
};
/// Nearest-rank percentiles of `v` (all 0 when empty).
Percentiles percentiles(std::vector<double> v);

/// What each instruction of a method's first chain is, for the profile:
/// "aten::add.out", "delegate XnnpackBackend", "MoveCall", ...
std::vector<std::string> instructionNames(const rt::Program &program, const std::string &method);

/// Per-instruction times over every run (pte-run --profile).
class InstructionProfile final : public rt::Method::Profiler {
public:
  explicit InstructionProfile(std::vector<std::string> names);
  void instructionDone(size_t pc, uint64_t ns) override;
  /// Rows per instruction and per operator, slowest first; the total in ms.
  void rows(std::vector<ProfileRow> &byInstruction, std::vector<ProfileRow> &byOperator,
            double &totalMs) const;
  void report(RunOutput &out) const;

private:
  std::vector<std::string> names_;
  std::vector<uint64_t> ns_, calls_;
};

} // namespace ptec::tooling
