// The exit codes every tool shares (docs/tools/README.md has the table).
#pragma once

namespace ptec::tooling {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1; ///< the input is bad, or outputs differ
constexpr int kExitUsage = 2;  ///< the command line asks for something impossible

} // namespace ptec::tooling
