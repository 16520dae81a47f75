// What a tool does when it crashes: one line that says it is an internal
// error (a bug in ptec, not in the input) and what the tool was working on,
// the stack, and the internal-error exit code (docs/tools/README.md), instead
// of a bare signal status. All four tools install it first thing in main;
// aot-compile and ptec-opt through installLlvmCrashHandler
// (tooling/LlvmCrashHandler.h), which prints LLVM's symbolized stack.
// LLVM-free: pte-run and pte-inspect are built without LLVM too.
#pragma once

#include <string>

namespace ptec::tooling {

/// Prints the stack on stderr from inside the signal handler.
using CrashStackPrinter = void (*)();

/// Handles the fatal signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
/// SIGTRAP, SIGSYS; on an alternate stack, so a stack overflow is reported
/// too) and std::terminate (an uncaught exception): prints
///   <tool>: internal error: crashed (SIGSEGV: segmentation fault) while <context>
///   <tool>: note: this is a bug in ptec, not in the input; please report it ...
/// then the stack (`printStack`, or glibc's backtrace when null), and exits
/// with kExitInternal.
void installCrashHandler(const char *tool, CrashStackPrinter printStack = nullptr);

/// What the tool is working on, for the crash message ("compiling
/// model.pt2"). Kept in a fixed buffer (long texts are cut).
void setCrashContext(const std::string &context);

/// The first line of a crash report for `signal` (0: an uncaught
/// exception), as the handler writes it (for tests).
std::string crashHeadline(int signal);

/// For tests of the handler: when PTEC_DEBUG_CRASH is `segv` (a write
/// through a null pointer), `abort`, `throw` (an uncaught exception) or
/// `stack-overflow`, faults here on purpose; otherwise returns. Any other
/// value is ignored.
void crashIfAsked();

} // namespace ptec::tooling
