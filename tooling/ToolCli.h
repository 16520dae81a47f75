// Usage errors of the four tools, in the tools' own style: one line
// "<tool>: error: <message>" on stderr, a hint "run '<tool> --help' for
// usage", and exit code 2 (docs/tools/README.md). aot-compile, pte-run and
// pte-inspect parse with CLI11 through parseCommandLine; ptec-opt parses
// with LLVM's cl and passes what it printed to rewriteLlvmUsageErrors.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
} // namespace CLI

namespace ptec::tooling {

/// The text usageError prints: the error line and the hint, each ending
/// in a newline.
std::string usageErrorText(const std::string &tool, const std::string &message);
/// Prints usageErrorText on stderr; returns the usage exit code.
int usageError(const std::string &tool, const std::string &message);

/// Parses the command line. -1 when the tool goes on; otherwise the exit
/// code to return: 0 after --help or --version (printed on stdout), 2
/// after a usage error (printed by usageError). An option the tool does
/// not have is named before anything is parsed, with the closest one it
/// has ("pte-run: note: did you mean '--repeat'?"); CLI11's messages are
/// put in the tools' words (cliMessage).
int parseCommandLine(CLI::App &app, int argc, const char *const *argv, const std::string &tool);

/// Levenshtein distance (insertions, deletions, substitutions).
size_t editDistance(const std::string &a, const std::string &b);

/// The name in `known` closest to `given` by editDistance ("--repeat" for
/// "--repaet"), or "" when none is close (more than a third of the longer
/// name, and at least 2 edits, away). Dashes and '_' / '-' differences
/// count as nothing ("--model_path" is close to "--model-path").
std::string closestName(const std::string &given, const std::vector<std::string> &known);

/// Every name `app` takes: "-o", "--output", "--no-progress", ...
std::vector<std::string> optionNames(const CLI::App &app);

/// The first argument that names no option of `app` (values of options and
/// everything after "--" are skipped), and the usage error for it, with the
/// closest name as a note; "" when every option is known.
std::string unknownOptionText(const CLI::App &app, int argc, const char *const *argv,
                              const std::string &tool);

/// CLI11's message for a parse error in the tools' words: "--input needs a
/// value", "--sequence and --method cannot be used together", "unexpected
/// argument 'x'" (CLI11 says "1 required TEXT missing", "excludes", ...).
std::string cliMessage(const std::string &cli11Message);

/// A value that must be one of `values` ("--planner: 'greedy-by-size' is
/// not one of best, greedy, best-fit, first-fit"; with a "did you mean"
/// when one is close). Returns `option`.
CLI::Option *oneOf(CLI::Option *option, const std::vector<std::string> &values);

/// A whole number in [lo, hi] ("--repeat: 'x' is not a whole number",
/// "--repeat: 0 is out of range: 1 to 1000000000"). Returns `option`.
CLI::Option *wholeNumber(CLI::Option *option, long long lo, long long hi);

/// Refuses a value of `option` that is not a finite number: CLI11 reads
/// "nan" and "inf" as doubles, and NaN passes every range check (each
/// comparison is false). Add it before any range check; `nonNegative`
/// refuses negative values too. Returns `option`.
CLI::Option *requireFinite(CLI::Option *option, bool nonNegative = false);

/// Why `text` is not a finite number ("" when it is one; then *value holds
/// it). The rule requireFinite applies, for numbers read elsewhere
/// (environment variables).
std::string parseFinite(const std::string &text, double *value);

/// What LLVM's cl::ParseCommandLineOptions wrote on its error stream
/// ("prog: Unknown command line argument '--x'.  Try: 'prog --help'",
/// "prog: Did you mean '--y'?") in the tools' style: usage errors as
/// "<tool>: error: ...", suggestions as "<tool>: note: ...", then the hint.
std::string rewriteLlvmUsageErrors(const std::string &tool, const std::string &clOutput);

} // namespace ptec::tooling
