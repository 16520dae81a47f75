//===- Command.h - one aot-compile command, outputs and all -----*- C++ -*-===//
//
// What aot-compile does besides parsing its arguments: check the output name
// against what the flags write, check the inputs (regular files) and the
// outputs (writable, none an input or another output, compared as files:
// serde/pte/OutputTarget.h) before compiling, run a CompileSession, then
// write the extra files the command asked for (report, partition DOT and its
// SVG, debug map, plan SVG) together with the .pte or IR, so that a failing
// one leaves none of them.
//
//===----------------------------------------------------------------------===//

#ifndef PTEC_COMPILER_COMMAND_H
#define PTEC_COMPILER_COMMAND_H

#include "compiler/Session.h"

#include <string>

namespace ptec {

/// The files an aot-compile command writes besides its main output.
struct ExtraOutputs {
  std::string reportFormat;     ///< "" (no report), "text" or "json"
  std::string reportFile;       ///< "": the report goes to stderr
  std::string planSvgFile;      ///< the memory plan of the written .pte
  std::string planSvgMethod;    ///< "": every method
  std::string partitionDotFile; ///< also FILE.svg when Graphviz is installed
  std::string debugMapFile;
};

/// Why the output name cannot be what was asked for ("" when it is fine):
/// the file written is decided by the flags, and a name that says
/// otherwise is a mistake, not a cue. `emitFlag` is --emit as given.
std::string checkOutputName(const CompileOptions &o, const std::string &emitFlag);

/// The .ptd --external-weights writes when it names none: the -o name with
/// .ptd instead of .pte.
std::string defaultExternalWeightsPath(const std::string &outputPath);

/// Compiles and writes every output; returns aot-compile's exit code
/// (tooling/ExitCodes.h: kExitFailed for a compile error, an input that is
/// not a regular file or an unwritable output; kExitUsage for an output the
/// command cannot have or one that names an input or another output;
/// kExitInternal for an internal error). Errors are printed on stderr.
int runCompileCommand(CompileOptions options, const ExtraOutputs &extra);

} // namespace ptec

#endif // PTEC_COMPILER_COMMAND_H
