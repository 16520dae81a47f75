//===- aot-compile.cpp - .pt2 to .pte ---------------------------------------===//
//
// A thin main over ptec::CompileSession: parse the command line, run, map the
// result to an exit code (tooling/ExitCodes.h; docs/tools/README.md).
//
//===----------------------------------------------------------------------===//

#include "backends/AotBackend.h"
#include "compiler/Command.h"
#include "passes/OpSupport.h"
#include "tooling/CrashHandler.h"
#include "tooling/ExitCodes.h"
#include "tooling/LlvmCrashHandler.h"
#include "tooling/ToolCli.h"
#include "tools/Version.h"

#include "llvm/Support/Process.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace {

std::string phaseHelp() {
  std::string help = "Stop after this phase and write (or print) the IR:\n";
  for (ptec::Phase p : ptec::allPhases())
    help += "  " + ptec::phaseName(p).str() + ": " +
            ptec::phaseDescription(p).str() + "\n";
  return help;
}

constexpr const char *kExamples = R"(
Examples:
  aot-compile model.pt2 -o model.pte
      compile the program's forward method
  aot-compile model.pt2 --compile-to=import
      print the imported IR
  aot-compile prefill.pt2:prefill decode.pt2:decode -o llm.pte
      two exported programs as two methods of one program (shared weights)
  aot-compile prefill.pt2:prefill decode.pt2:decode --share-mutable-buffers -o llm.pte
      ... that also share their state (KV caches) through arena 2
  aot-compile model.pt2 --compile-to=legalize -o model.mlir
      save the IR after a phase; `aot-compile model.mlir -o model.pte` resumes
  aot-compile model.pt2 --backend demo --planner greedy -o model.pte
      delegate what the demo backend accepts, plan memory greedily
  aot-compile model.pt2 --backend demo:scratch=64 --no-share-delegates -o m.pte
      backend options after ':'; one delegate entry per call site
)";

} // namespace

int main(int argc, char **argv) {
  ptec::tooling::installLlvmCrashHandler("aot-compile", argv[0]);
  CLI::App app{"aot-compile: compile torch.export programs (.pt2) to ExecuTorch "
               "programs (.pte)"};
  app.set_version_flag("--version", PTEC_VERSION_LINE("aot-compile"));
  app.footer(kExamples);
  app.get_formatter()->column_width(34);

  std::vector<std::string> inputs;
  std::string output, compileTo = "emit", emit = "pte", planner = "best",
                      writeBack = "earliest";
  std::vector<std::string> backends;
  bool printIr = false, verbose = false;

  CLI::Option *inputsOpt =
      app.add_option("inputs", inputs,
                     "model.pt2[:method] (method defaults to forward), or saved IR "
                     "(.mlir/.mlirbc) to resume from");
  bool listOps = false;
  app.add_flag("--list-ops", listOps,
               "Print what ptec does with each operator named as an input (\"aten::pad\"), "
               "or with every operator it knows: legalized, kernel, refused (with the "
               "reason) or missing, one per line; then exit");
  app.add_option("-o,--output", output,
                 "Output file (.pte, or IR with --emit=mlir|mlirbc or "
                 "--compile-to); IR goes to stdout when omitted");
  app.add_option("--compile-to", compileTo, phaseHelp())
      ->check(CLI::IsMember(
          [] {
            std::vector<std::string> v;
            for (ptec::Phase p : ptec::allPhases())
              v.push_back(ptec::phaseName(p).str());
            return v;
          }()));
  app.add_option("--emit", emit, "Output format: the .pte program, or the final IR "
                                 "as text or bytecode")
      ->check(CLI::IsMember({"pte", "mlir", "mlirbc"}));
  app.add_option("--backend", backends,
                 "Delegate to this backend (repeatable, priority order; "
                 "'none' = no delegation, the default)")
      ->check(CLI::Validator(
          [](std::string &spec) -> std::string {
            std::string error;
            if (spec == "none" || ptec::aot::createAotBackend(spec, &error))
              return "";
            return error;
          },
          "BACKEND[:OPTIONS]"));
  bool noShare = false;
  app.add_flag("--no-share-delegates", noShare,
               "One delegate entry per call site even when the backend allows "
               "sharing (for comparison)");
  app.add_option("--planner", planner, "Memory planning algorithm (best = smallest of all)")
      ->check(CLI::IsMember({"best", "greedy", "best-fit", "first-fit"}));
  app.add_option("--write-back", writeBack,
                 "Where mutated state is copied back: at the earliest safe "
                 "point, or at the end of the method")
      ->check(CLI::IsMember({"earliest", "end"}));
  bool noReinplace = false, stateNames = false, stackTraces = false, shareState = false;
  app.add_flag("--share-mutable-buffers", shareState,
               "Methods share their mutable buffers (a KV cache filled by prefill and "
               "read by decode): each buffer gets one place in arena 2, the same in "
               "every method, and runtimes give all methods one arena 2");
  app.add_flag("--emit-stacktraces", stackTraces,
               "Write each instruction's source frames (from the exported nodes' stack "
               "traces) into the .pte, so a runtime failure names the user's line");
  app.add_flag("--no-reinplace", noReinplace,
               "Keep functional updates of mutated state (KV caches) as they are: "
               "write-back copies each new value (for comparison)");
  app.add_flag("--emit-state-names", stateNames,
               "Name mutable buffers in the .pte (their fully qualified names), so "
               "pte-run --expected-state and other tools can find them");
  app.add_flag("--print-ir-after-all", printIr, "Print the IR after every phase to stderr");
  std::string reportFormat, reportFile, planSvgFile, partitionDotFile, debugMapFile;
  app.add_flag("--report{text}", reportFormat,
               "Report what the compile did (phases; per op: count, delegated, left on "
               "portable kernels and why, kernel; delegate regions, sharing and scratch; "
               "write-back copies; the memory plan against its lower bound; output "
               "segments; warnings): --report or --report=text, --report=json "
               "(docs/report.md)")
      ->check(CLI::IsMember({"text", "json"}));
  app.add_option("--report-file", reportFile,
                 "Write the report here (default: stderr)");
  app.add_option("--plan-svg", planSvgFile,
                 "Write the memory plan of the written .pte as an SVG picture, every "
                 "method (pte-inspect --plan-svg)");
  std::string planSvgMethod;
  app.add_option("--plan-svg-method", planSvgMethod,
                 "Draw only this method in --plan-svg");
  std::string externalWeights;
  auto *externalOpt =
      app.add_option("--external-weights", externalWeights,
                     "Keep constant weights outside the program, in a .ptd file (ExecuTorch's "
                     "FlatTensor named data; default: the -o name with .ptd); run with "
                     "pte-run --data FILE.ptd")
          ->expected(0, 1);
  app.add_option("--debug-map", debugMapFile,
                 "Write which exported nodes (debug handles, names, Python lines) each "
                 "instruction of the .pte came from, as JSON (docs/report.md#debug-map)");
  app.add_option("--partition-dot", partitionDotFile,
                 "Write the partitioned graph as Graphviz DOT (delegate regions coloured "
                 "per backend); also FILE.svg when 'dot' is installed");
  std::string partitionDotView = "auto";
  app.add_option("--partition-dot-view", partitionDotView,
                 "What --partition-dot draws: ops (one node per op, weights in their "
                 "labels), regions (one node per delegate region and per run of portable "
                 "ops) or auto (ops up to 200 nodes, regions above)")
      ->check(CLI::IsMember({"auto", "ops", "regions"}))
      ->capture_default_str();
  bool printWeights = false;
  app.add_flag("--print-weights", printWeights,
               "Print weight blobs in full when IR goes to stdout (by default larger ones "
               "are elided there; IR saved with -o always keeps them)");
  app.add_flag("-v,--verbose", verbose, "Report each phase and its time on stderr");
  // CLI11 stores false into a flag's std::optional<bool> when the flag is
  // absent, so "not given" is read from the option's count instead.
  bool progress = false;
  CLI::Option *progressOpt = app.add_flag(
      "--progress,!--no-progress", progress,
      "A status line on stderr while compiling: reading, phase, ops, elapsed time "
      "(default: on when stderr is a terminal and --verbose is off)");
  bool verifyEach = false;
  CLI::Option *verifyEachOpt = app.add_flag("--exir-verify-each,!--no-exir-verify-each", verifyEach,
               "Check every ATen op against its shape rule after every pass, not "
               "only at import (default: on in debug builds)");
  bool timePasses = false;
  app.add_flag("--time-passes", timePasses,
               "At the end, print on stderr the time of each step: reading the .pt2, "
               "import, every pass, the verifier, emission, writing");
  bool threads = false;
  app.add_flag("--threads", threads,
               "Let MLIR use threads; the output is the same either way");

  if (int rc = ptec::tooling::parseCommandLine(app, argc, argv, "aot-compile"); rc >= 0)
    return rc;
  if (listOps) {
    ptec::printOperatorSupport(llvm::outs(), inputs);
    return ptec::tooling::kExitOk;
  }
  if (inputsOpt->count() == 0)
    return ptec::tooling::usageError("aot-compile", "inputs is required");
  {
    std::string names;
    for (const std::string &in : inputs)
      names += (names.empty() ? "" : " ") + in;
    ptec::tooling::setCrashContext("compiling " + names);
  }
  ptec::tooling::crashIfAsked();

  ptec::CompileOptions options;
  for (const std::string &in : inputs)
    options.inputs.push_back(ptec::parseInputSpec(in));
  options.outputPath = output;
  options.compileTo = *ptec::parsePhase(compileTo);
  options.emitFormat = *ptec::parseEmitFormat(emit);
  options.backends = backends;
  options.shareDelegates = !noShare;
  options.planner = planner;
  options.shareMutableBuffers = shareState;
  options.writeBackAtEnd = writeBack == "end";
  options.reinplace = !noReinplace;
  options.emitStateNames = stateNames;
  options.emitStackTraces = stackTraces;
  options.printIrAfterAll = printIr;
  options.printWeights = printWeights;
  if (externalOpt->count() > 0) {
    if (externalWeights.empty() && options.outputPath == "-") {
      llvm::errs() << "aot-compile: error: --external-weights needs a file name when the "
                      ".pte goes to standard output (-o -)\n";
      return ptec::tooling::kExitUsage;
    }
    if (externalWeights.empty())
      externalWeights = ptec::defaultExternalWeightsPath(options.outputPath);
    if (options.compileTo != ptec::Phase::Emit || options.emitFormat != ptec::EmitFormat::Pte) {
      llvm::errs() << "aot-compile: error: --external-weights needs a .pte output\n";
      return ptec::tooling::kExitUsage;
    }
    options.externalWeightsPath = externalWeights;
  }
  options.verbose = verbose;
  options.progress = progressOpt->count() > 0
                         ? progress
                         : !verbose && llvm::sys::Process::StandardErrIsDisplayed();
  if (verifyEachOpt->count() > 0)
    options.verifyEach = verifyEach;
  options.threading = threads;
  options.partitionDotView = *ptec::parseDotView(partitionDotView);
  options.timePasses = timePasses;

  if (options.compileTo == ptec::Phase::Emit &&
      options.emitFormat == ptec::EmitFormat::Pte && output.empty()) {
    llvm::errs() << "aot-compile: error: writing a .pte needs -o <file> "
                    "(or use --compile-to=<phase> / --emit=mlir to print IR)\n";
    return ptec::tooling::kExitUsage;
  }

  if (std::string why = ptec::checkOutputName(options, emit); !why.empty()) {
    llvm::errs() << "aot-compile: error: " << why << "\n";
    return ptec::tooling::kExitUsage;
  }
  return ptec::runCompileCommand(std::move(options), {reportFormat, reportFile, planSvgFile,
                                                      planSvgMethod, partitionDotFile,
                                                      debugMapFile});
}
