//===- Command.cpp - one aot-compile command, outputs and all -------------===//
//
// See Command.h.
//
//===----------------------------------------------------------------------===//

#include "compiler/Command.h"

#include "serde/io/InputFile.h"
#include "serde/pte/OutputTarget.h"
#include "serde/pte/PteInspect.h"
#include "serde/pte/PteListing.h"
#include "serde/pte/PteWriter.h"
#include "tooling/ExitCodes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <csignal>
#include <optional>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace ptec {

std::string checkOutputName(const CompileOptions &o, const std::string &emitFlag) {
  if (o.outputPath.empty())
    return "";
  llvm::StringRef out = o.outputPath;
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

using tooling::kExitFailed;
using tooling::kExitInternal;
using tooling::kExitOk;
using tooling::kExitUsage;

/// Writes `text` to `path` atomically; reports and returns false on error.
bool writeText(const std::string &path, const std::string &text) {
  std::string error;
  if (pte::writeFileAtomic(path, std::vector<uint8_t>(text.begin(), text.end()), &error))
    return true;
  llvm::errs() << "aot-compile: error: cannot write " << path << ": " << error << "\n";
  return false;
}

/// FILE.svg next to a DOT file when Graphviz is installed and the DOT goes
/// to a file of that name ("" otherwise: the DOT file is the output that was
/// asked for).
std::string svgNextToDot(const std::string &dotPath) {
  pte::OutputTarget t;
  if (dotPath.empty() || !pte::resolveOutput(dotPath, &t, nullptr) ||
      t.kind != pte::OutputTarget::Kind::Replace || !llvm::sys::findProgramByName("dot"))
    return "";
  return dotPath + ".svg";
}

/// Runs `dot -Tsvg` on `dot` (its standard input) and returns what it
/// printed (its standard output), so that the picture is written as every
/// other output is. False when it fails.
bool renderSvg(const std::string &dot, std::string *svg) {
  llvm::ErrorOr<std::string> program = llvm::sys::findProgramByName("dot");
  if (!program)
    return false;
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0)
    return false;
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  std::string arg0 = *program, arg1 = "-Tsvg";
  char *argv[] = {arg0.data(), arg1.data(), nullptr};
  pid_t pid;
  bool spawned = posix_spawn(&pid, arg0.c_str(), &actions, nullptr, argv, environ) == 0;
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  if (!spawned) {
    ::close(in[1]);
    ::close(out[0]);
    return false;
  }
  // Feed and drain together: dot may write before it has read everything.
  // A dot that stops reading must not end aot-compile with SIGPIPE.
  ::fcntl(in[1], F_SETFL, O_NONBLOCK);
  struct sigaction ignore {}, before {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &before);
  size_t fed = 0;
  bool inOpen = true, ok = true;
  char buf[1 << 16];
  while (true) {
    if (inOpen && fed == dot.size()) {
      ::close(in[1]);
      inOpen = false;
    }
    pollfd fds[2] = {{out[0], POLLIN, 0}, {inOpen ? in[1] : -1, POLLOUT, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      ok = false;
      break;
    }
    if (inOpen && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = ::write(in[1], dot.data() + fed, dot.size() - fed);
      if (n > 0)
        fed += static_cast<size_t>(n);
      else if (n < 0 && errno != EAGAIN && errno != EINTR)
        fed = dot.size(); // dot stopped reading; its exit status decides
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = ::read(out[0], buf, sizeof buf);
      if (n > 0)
        svg->append(buf, static_cast<size_t>(n));
      else if (n == 0 || errno != EINTR)
        break;
    }
  }
  if (inOpen)
    ::close(in[1]);
  ::close(out[0]);
  ::sigaction(SIGPIPE, &before, nullptr);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/// Every file the command writes, with the flag that names it.
std::vector<pte::NamedFile> outputFiles(const CompileOptions &o, const ExtraOutputs &extra,
                                        const std::string &dotSvg) {
  std::vector<pte::NamedFile> files;
  auto add = [&](const char *flag, const std::string &path) {
    if (!path.empty())
      files.push_back({flag, path});
  };
  add("-o", o.outputPath);
  add("--external-weights", o.externalWeightsPath);
  if (!extra.reportFormat.empty())
    add("--report-file", extra.reportFile);
  add("--debug-map", extra.debugMapFile);
  add("--plan-svg", extra.planSvgFile);
  add("--partition-dot", extra.partitionDotFile);
  add("--partition-dot's picture", dotSvg);
  return files;
}

/// Before compiling: every input is a regular file (a FIFO or device would
/// block the reader or never end), every output can be written (exit 1
/// otherwise, as a read or write failure would), and no output is an input
/// or another output (a usage error). kExitOk when the command may go on.
int checkFiles(const CompileOptions &o, const std::vector<pte::NamedFile> &outputs) {
  for (const CompileInput &in : o.inputs)
    if (std::string why = io::checkInputFile(in.path); !why.empty()) {
      llvm::errs() << in.path << ": error: " << why << "\n";
      return kExitFailed;
    }
  for (const pte::NamedFile &f : outputs) {
    pte::OutputTarget t;
    std::string why;
    if (!pte::resolveOutput(f.path, &t, &why)) {
      llvm::errs() << "aot-compile: error: cannot write " << f.path << ": " << why << "\n";
      return kExitFailed;
    }
  }
  std::vector<pte::NamedFile> inputs;
  for (const CompileInput &in : o.inputs)
    inputs.push_back({"input", in.path});
  if (std::string why = pte::checkDistinctFiles(outputs, inputs); !why.empty()) {
    llvm::errs() << "aot-compile: error: " << why << "\n";
    return kExitUsage;
  }
  return kExitOk;
}

} // namespace

int runCompileCommand(CompileOptions options, const ExtraOutputs &extra) {
  const std::string dotSvg = svgNextToDot(extra.partitionDotFile);
  if (int rc = checkFiles(options, outputFiles(options, extra, dotSvg)); rc != kExitOk)
    return rc;
  options.collectReport = !extra.reportFormat.empty();
  options.collectPartitionDot = !extra.partitionDotFile.empty();
  options.collectDebugMap = !extra.debugMapFile.empty();
  options.keepPteBytes = !extra.planSvgFile.empty();
  // Every output of the command (the .pte or IR, the .ptd, the report file,
  // the pictures, the debug map) is staged first and renamed into place
  // together: a failing one leaves none of them.
  options.holdOutputs = true;
  const std::string plannerAsked = options.planner;
  const bool backendAsked = llvm::any_of(options.backends,
                                         [](const std::string &b) { return b != "none"; });
  CompileSession session(std::move(options));
  // Every diagnostic goes into the report too (the printer still prints it).
  std::vector<CompileReport::Diagnostic> diagnostics;
  std::optional<ReportDiagnostics> collect;
  if (!extra.reportFormat.empty())
    collect.emplace(session.context(), diagnostics);
  bool ok = mlir::succeeded(session.run());
  collect.reset();
  std::string report;
  if (!extra.reportFormat.empty()) {
    CompileReport r = session.report();
    r.diagnostics = std::move(diagnostics);
    r.plannerAsked = plannerAsked;
    r.backendAsked = backendAsked;
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
    // The closing count: the grouped lines above may stand for many errors.
    if (unsigned n = session.errorCount(); n > 0) {
      llvm::errs() << "aot-compile: " << n << (n == 1 ? " error" : " errors");
      if (unsigned w = session.warningCount(); w > 0)
        llvm::errs() << ", " << w << (w == 1 ? " warning" : " warnings");
      llvm::errs() << "\n";
    }
    return session.hadInternalError() ? kExitInternal : kExitFailed;
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
      return fail("nothing was written", kExitFailed);
  }
  if (!extra.partitionDotFile.empty()) {
    if (session.partitionDot().empty())
      return fail("--partition-dot: the partition phase did not run", kExitUsage);
    if (!stage(extra.partitionDotFile, session.partitionDot()))
      return fail("nothing was written", kExitFailed);
    std::string svg;
    if (!dotSvg.empty() && !renderSvg(session.partitionDot(), &svg))
      llvm::errs() << "aot-compile: warning: 'dot' could not render " << extra.partitionDotFile
                   << "\n";
    else if (!dotSvg.empty() && !stage(dotSvg, svg))
      return fail("nothing was written", kExitFailed);
  }
  if (!extra.debugMapFile.empty()) {
    if (session.debugMap().empty())
      return fail("--debug-map needs a .pte output", kExitUsage);
    if (!stage(extra.debugMapFile, session.debugMap()))
      return fail("nothing was written", kExitFailed);
  }
  if (!extra.planSvgFile.empty()) {
    std::string svg, err;
    pte::PteView view;
    llvm::ArrayRef<uint8_t> bytes = session.pteBytes();
    if (bytes.empty())
      return fail("--plan-svg needs a .pte output", kExitUsage);
    if (!pte::openPte(bytes.data(), bytes.size(), &view, &err) ||
        !pte::planSvg(view, extra.planSvgMethod, &svg, &err))
      return fail("--plan-svg: " + err, extra.planSvgMethod.empty() ? kExitFailed : kExitUsage);
    if (!stage(extra.planSvgFile, svg))
      return fail("nothing was written", kExitFailed);
  }
  if (mlir::failed(session.commitOutputs()))
    return kExitFailed;
  return kExitOk;
}

} // namespace ptec
