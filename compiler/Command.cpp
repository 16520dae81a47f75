//===- Command.cpp - one aot-compile command, outputs and all -------------===//
//
// See Command.h.
//
//===----------------------------------------------------------------------===//

#include "compiler/Command.h"

#include "serde/pte/PteInspect.h"
#include "serde/pte/PteListing.h"
#include "serde/pte/PteWriter.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

namespace ptec {

std::string checkOutputName(const CompileOptions &o, const std::string &emitFlag) {
  if (o.outputPath.empty())
    return "";
  llvm::StringRef out = o.outputPath;
  for (const CompileInput &in : o.inputs)
    if (llvm::sys::fs::equivalent(in.path, o.outputPath) || in.path == o.outputPath)
      return "-o " + o.outputPath + " names an input file; it would be overwritten";
  bool writesPte = o.compileTo == Phase::Emit && o.emitFormat == EmitFormat::Pte;
  llvm::StringRef ext = llvm::sys::path::extension(out);
  if (!writesPte && ext == ".pte")
    return "this command writes IR (--compile-to=" + phaseName(o.compileTo).str() +
           (emitFlag == "pte" ? "" : ", --emit=" + emitFlag) + "), but -o " + o.outputPath +
           " names a .pte program; use a .mlir (text) or .mlirbc (bytecode) name";
  if (writesPte && (ext == ".mlir" || ext == ".mlirbc"))
    return "this command writes a .pte program, but -o " + o.outputPath +
           " names IR; use --emit=mlir/mlirbc or --compile-to=<phase> for IR";
  if (o.emitFormat == EmitFormat::Mlir && ext == ".mlirbc")
    return "--emit=mlir writes text IR, but -o " + o.outputPath +
           " names bytecode; use --emit=mlirbc or a .mlir name";
  if (o.emitFormat == EmitFormat::MlirBytecode && ext == ".mlir")
    return "--emit=mlirbc writes bytecode, but -o " + o.outputPath +
           " names text IR; use --emit=mlir or a .mlirbc name";
  return "";
}

std::string defaultExternalWeightsPath(const std::string &outputPath) {
  llvm::StringRef out(outputPath);
  return (out.ends_with(".pte") ? out.drop_back(4) : out).str() + ".ptd";
}

namespace {

/// Writes `text` to `path` atomically; reports and returns false on error.
bool writeText(const std::string &path, const std::string &text) {
  std::string error;
  if (pte::writeFileAtomic(path, std::vector<uint8_t>(text.begin(), text.end()), &error))
    return true;
  llvm::errs() << "aot-compile: error: cannot write " << path << ": " << error << "\n";
  return false;
}

/// FILE.svg next to a DOT file when Graphviz is installed (quietly nothing
/// otherwise: the DOT file is the output that was asked for).
void renderDotToSvg(const std::string &dotPath) {
  llvm::ErrorOr<std::string> dot = llvm::sys::findProgramByName("dot");
  if (!dot)
    return;
  std::string svg = dotPath + ".svg";
  llvm::StringRef args[] = {*dot, "-Tsvg", dotPath, "-o", svg};
  if (llvm::sys::ExecuteAndWait(*dot, args) != 0)
    llvm::errs() << "aot-compile: warning: 'dot' could not render " << dotPath << "\n";
}

} // namespace

int runCompileCommand(CompileOptions options, const ExtraOutputs &extra) {
  options.collectReport = !extra.reportFormat.empty();
  options.collectPartitionDot = !extra.partitionDotFile.empty();
  options.collectDebugMap = !extra.debugMapFile.empty();
  options.keepPteBytes = !extra.planSvgFile.empty();
  // Every output of the command (the .pte or IR, the .ptd, the report file,
  // the pictures, the debug map) is staged first and renamed into place
  // together: a failing one leaves none of them.
  options.holdOutputs = true;
  CompileSession session(std::move(options));
  bool ok = mlir::succeeded(session.run());
  std::string report;
  if (!extra.reportFormat.empty()) {
    const CompileReport &r = session.report();
    report = extra.reportFormat == "json" ? r.toJson() : r.toText();
  }
  if (!ok) {
    // The report also tells what happened when the compile failed: the one
    // output such a run writes.
    if (!report.empty()) {
      if (extra.reportFile.empty())
        llvm::errs() << report;
      else
        writeText(extra.reportFile, report);
    }
    return session.hadInternalError() ? 3 : 1;
  }
  pte::OutputFiles &outputs = session.outputs();
  auto fail = [&](const std::string &what, int rc) {
    outputs.abandon();
    llvm::errs() << "aot-compile: error: " << what << "\n";
    return rc;
  };
  // Stages `text` at `path`; false (reported) when it cannot.
  auto stage = [&](const std::string &path, const std::string &text) {
    std::string error;
    if (outputs.stage(path, text, &error))
      return true;
    llvm::errs() << "aot-compile: error: cannot write " << path << ": " << error << "\n";
    return false;
  };
  if (!report.empty()) {
    if (extra.reportFile.empty())
      llvm::errs() << report;
    else if (!stage(extra.reportFile, report))
      return fail("nothing was written", 1);
  }
  if (!extra.partitionDotFile.empty()) {
    if (session.partitionDot().empty())
      return fail("--partition-dot: the partition phase did not run", 2);
    if (!stage(extra.partitionDotFile, session.partitionDot()))
      return fail("nothing was written", 1);
  }
  if (!extra.debugMapFile.empty()) {
    if (session.debugMap().empty())
      return fail("--debug-map needs a .pte output", 2);
    if (!stage(extra.debugMapFile, session.debugMap()))
      return fail("nothing was written", 1);
  }
  if (!extra.planSvgFile.empty()) {
    std::string svg, err;
    pte::PteView view;
    llvm::ArrayRef<uint8_t> bytes = session.pteBytes();
    if (bytes.empty())
      return fail("--plan-svg needs a .pte output", 2);
    if (!pte::openPte(bytes.data(), bytes.size(), &view, &err) ||
        !pte::planSvg(view, extra.planSvgMethod, &svg, &err))
      return fail("--plan-svg: " + err, extra.planSvgMethod.empty() ? 1 : 2);
    if (!stage(extra.planSvgFile, svg))
      return fail("nothing was written", 1);
  }
  if (mlir::failed(session.commitOutputs()))
    return 1;
  if (!extra.partitionDotFile.empty())
    renderDotToSvg(extra.partitionDotFile);
  return 0;
}

} // namespace ptec
