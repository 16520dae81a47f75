// One pte-run: load the program (and its .ptd), set up the methods it calls,
// feed inputs, call them in order with warm-up and repeats, print, write and
// compare outputs and state, time and profile. The tool's main only parses
// the command line into RunOptions and registers kernels and backends.
#pragma once

#include "runtime/executor/Method.h"
#include "runtime/executor/Module.h"
#include "runtime/executor/Program.h"

#include <optional>
#include <string>
#include <vector>

namespace ptec::tooling {

struct RunOptions {
  std::string model;
  std::string data; ///< .ptd with the program's external weights
  std::string method = "forward";
  std::vector<std::string> inputs;
  std::string outputDir;
  std::vector<std::string> expected;
  /// Unset: torch.testing.assert_close's default for the dtypes compared
  /// (tooling/Compare.h).
  std::optional<double> rtol, atol;
  std::vector<std::string> expectedState; ///< NAME=FILE
  std::string stateDir;
  int repeat = 1;
  int warmup = 0;
  double timeLimit = rt::Method::kDefaultTimeLimitSeconds;
  int calls = 1;
  std::vector<std::string> sequence; ///< methods to call in order (one program)
  bool noSharedState = false;        ///< every method gets its own arena 2
  unsigned seed = 0;
  bool list = false;
  bool json = false;    ///< one JSON document on stdout instead of text lines
  bool profile = false; ///< time per instruction and per operator
  /// Threads of XnnpackBackend's pool, shown with the timings when a method
  /// called has XnnpackBackend delegates (0: this build has no XNNPACK).
  size_t xnnpackThreads = 0;
};

/// The runtime's message with its error codes in words: "init failed
/// (NotSupported)" becomes "init failed (not supported)", "failed:
/// InvalidArgument" "failed: invalid argument".
std::string inUserWords(std::string runtimeMessage);

/// Prints methods with their input/output signatures, read from the plan.
void listMethods(const rt::Program &program);

/// Runs as pte-run does; `base` brings the kernels (the rest is set from
/// `o`). Returns the exit code; errors are printed on stderr as
/// "pte-run: model.pte: error: ...".
int runPte(const RunOptions &o, rt::ModuleOptions base);

} // namespace ptec::tooling
