// The exit codes every tool shares (docs/tools/README.md has the table).
// Tools and the libraries that choose a tool's exit code use these names,
// never the numbers.
#pragma once

namespace ptec::tooling {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;   ///< the input is bad, or outputs differ
constexpr int kExitUsage = 2;    ///< the command line asks for something impossible
constexpr int kExitInternal = 3; ///< a bug in ptec: a crash, or a step that failed silently

} // namespace ptec::tooling
