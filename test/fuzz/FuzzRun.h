// Shared by the fuzz targets that end in the runtime (pte_fuzz and
// pipeline_fuzz): load a .pte from memory, init every method, set every
// input to a deterministic pattern and execute once, all within bounds so
// that one input costs milliseconds, not the host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ptec::fuzz {

struct RunLimits {
  /// ModuleOptions::maxPlannedBytes: plans asking for more are refused.
  uint64_t maxPlannedBytes = 64u << 20;
  /// Inputs larger than this are not allocated; the method is not executed.
  size_t maxInputBytes = 16u << 20;
  /// Methods with more instructions are loaded but not executed.
  size_t maxInstructions = 20000;
  /// ModuleOptions::timeLimitSeconds: a loop that never ends stops here.
  double timeLimitSeconds = 0.25;
  /// Methods loaded and run per program.
  size_t maxMethods = 4;
};

struct RunReport {
  enum class Outcome {
    Rejected, ///< the loader or a method's init refused it (with a reason)
    Skipped,  ///< loaded, but past a RunLimits bound, so not executed
    Failed,   ///< setInput or execute returned an error (with a reason)
    Ran       ///< every method loaded and executed
  };
  Outcome outcome = Outcome::Rejected;
  std::string detail; ///< the first reason, naming the method
};

/// Registers the demo and cachetest backends (idempotent).
void registerFuzzBackends();

/// Loads `data` as a program and runs each method once. Never aborts on
/// its own: an error return is an outcome, a crash is a bug.
RunReport runProgramOnce(const uint8_t *data, size_t size, const RunLimits &limits = {});

const char *outcomeName(RunReport::Outcome outcome);

} // namespace ptec::fuzz
