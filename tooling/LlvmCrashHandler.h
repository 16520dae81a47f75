// installCrashHandler (tooling/CrashHandler.h) for the tools built on LLVM
// (aot-compile, ptec-opt): LLVM's signal handling is set up as
// llvm::InitLLVM would (its pretty stack entries, its stack printer, which
// symbolizes with llvm-symbolizer when one is on PATH), and our handler takes
// the fatal signals over, so the report and the exit code are the ones every
// tool has. LLVM registers its handlers once; later LLVM code (a
// ToolOutputFile, RemoveFileOnSignal) does not take them back.
#pragma once

namespace ptec::tooling {

/// Call first thing in main. `argv0` lets LLVM find llvm-symbolizer.
void installLlvmCrashHandler(const char *tool, const char *argv0);

} // namespace ptec::tooling
