// Usage errors of the four tools, in the tools' own style: one line
// "<tool>: error: <message>" on stderr, a hint "run '<tool> --help' for
// usage", and exit code 2 (docs/tools/README.md). aot-compile, pte-run and
// pte-inspect parse with CLI11 through parseCommandLine; ptec-opt parses
// with LLVM's cl and passes what it printed to rewriteLlvmUsageErrors.
#pragma once

#include <string>

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
/// after a usage error (printed by usageError).
int parseCommandLine(CLI::App &app, int argc, const char *const *argv, const std::string &tool);

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
