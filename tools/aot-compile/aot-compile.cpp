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
#include "tooling/ToolHelp.h"
#include "tools/Version.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace {

/// What each backend is, for --help (a backend registered without a line
/// here is listed by name).
std::string backendLine(const std::string &name) {
  if (name == "xnnpack")
    return "XNNPACK on the CPU, blob-compatible with ExecuTorch's XNNPACK delegate: float32 "
           "convolutions, linear layers, pooling, elementwise ops (option 'scratch': its "
           "workspace as planned memory)";
  if (name == "demo")
    return "ExecuTorch's BackendWithCompilerDemo, for tests (options scratch=N, "
           "ops=sin|mm_add)";
  if (name == "cachetest")
    return "a test backend with an expensive cached context (linear layers over constant "
           "weights)";
  return "";
}

/// The help page's parts besides the options (tooling/ToolHelp.h).
ptec::tooling::ToolHelp helpPage() {
  ptec::tooling::ToolHelp h;
  h.tool = "aot-compile";
  h.usage = {"[options] MODEL.pt2[:METHOD]... -o MODEL.pte",
             "[options] SAVED.mlir -o MODEL.pte",
             "[options] MODEL.pt2 --compile-to=PHASE [-o SAVED.mlir]",
             "--list-ops [OP...]"};
  h.description =
      "Compile PyTorch exported programs (.pt2, written by torch.export.save) to an "
      "ExecuTorch program (.pte), or to the IR of any phase. Several .pt2 files become "
      "several methods of one program; saved IR resumes a compile.";
  h.groups = {"Arguments", "Output", "Backends and memory", "State", "Report and pictures",
              "Debugging", "MLIR's options"};
  ptec::tooling::HelpSection backends{"Backends (--backend NAME[:OPTIONS], repeatable)", {}};
  backends.rows.push_back({"none", "no delegation (the default): every op runs on ptec's CPU "
                                   "kernels"});
  for (const std::string &name : ptec::aot::registeredAotBackends())
    backends.rows.push_back({name, backendLine(name)});
  ptec::tooling::HelpSection phases{"Phases (--compile-to PHASE)", {}};
  for (ptec::Phase p : ptec::allPhases())
    phases.rows.push_back({ptec::phaseName(p).str(), ptec::phaseDescription(p).str()});
  h.sections = {backends, phases};
  h.examples = {
      {"aot-compile model.pt2 -o model.pte", "compile the program's forward method"},
      {"aot-compile model.pt2 --backend xnnpack -o model.pte", "delegate to XNNPACK"},
      {"aot-compile model.pt2 --compile-to=import", "print the imported IR"},
      {"aot-compile prefill.pt2:prefill decode.pt2:decode -o llm.pte",
       "two exported programs as two methods of one program (shared weights)"},
      {"aot-compile prefill.pt2:prefill decode.pt2:decode --share-mutable-buffers -o llm.pte",
       "... that also share their state (KV caches) through arena 2"},
      {"aot-compile model.pt2 --compile-to=legalize -o model.mlir",
       "save the IR after a phase; aot-compile model.mlir -o model.pte resumes"},
      {"aot-compile model.pt2 -o model.pte --report", "what the compile did, on stderr"},
      {"aot-compile model.pt2 -o model.pte --mlir-timing", "MLIR's flags work as in ptec-opt"},
      {"aot-compile --list-ops aten::pad", "what ptec does with an operator"}};
  h.failedMeans = "the compile failed on the input (the errors are printed, then "
                  "'aot-compile: N errors'), or an input or output file is not usable";
  h.usageMeans = "a bad flag or value, no input, no -o for a .pte, an output name that "
                 "contradicts the flags or names an input";
  h.docs = "docs/tools/aot-compile.md";
  return h;
}

/// Takes MLIR's own flags (--mlir-print-ir-after-all, --mlir-timing, ...:
/// those ptec-opt takes for the context, the pass manager, IR printing and
/// timing) out of `args` and parses them with LLVM's parser. -1 to go on,
/// else the exit code (a usage error was printed). `timing` is set for
/// --mlir-timing, `any` when there was one.
int takeMlirFlags(std::vector<std::string> &args, bool *timing, bool *any) {
  std::vector<std::string> mlir = {"aot-compile"}, rest;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {
      rest.insert(rest.end(), args.begin() + static_cast<long>(i), args.end());
      break;
    }
    llvm::StringRef a(args[i]);
    if (a.starts_with("--mlir-") || a.starts_with("-mlir-")) {
      mlir.push_back(args[i]);
      *timing |= a.ltrim('-') == "mlir-timing";
    } else {
      rest.push_back(args[i]);
    }
  }
  args = rest;
  *any = mlir.size() > 1;
  if (!*any)
    return -1;
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerAsmPrinterCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  std::vector<const char *> argv;
  for (const std::string &m : mlir)
    argv.push_back(m.c_str());
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (!llvm::cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data(), "",
                                         &errorStream)) {
    llvm::errs() << ptec::tooling::rewriteLlvmUsageErrors("aot-compile", errorStream.str());
    return ptec::tooling::kExitUsage;
  }
  return -1;
}

} // namespace

int main(int argc, char **argv) {
  ptec::tooling::installLlvmCrashHandler("aot-compile", argv[0]);
  CLI::App app{"aot-compile"};
  ptec::tooling::installHelp(app, helpPage());
  app.set_version_flag("--version", PTEC_VERSION_LINE("aot-compile"), "Print the version");

  std::vector<std::string> inputs;
  std::string output, compileTo = "emit", emit = "pte", planner = "best",
                      writeBack = "earliest";
  std::vector<std::string> backends;
  bool printIr = false, verbose = false;
  using ptec::tooling::oneOf;

  CLI::Option *inputsOpt =
      app.add_option("inputs", inputs,
                     "model.pt2[:method] (method defaults to forward), or saved IR "
                     "(.mlir/.mlirbc) to resume from")
          ->type_name("INPUT...")
          ->group("Arguments");
  bool listOps = false;
  app.add_flag("--list-ops", listOps,
               "Print what ptec does with each operator named as an input (\"aten::pad\"), "
               "or with every operator it knows: legalized, kernel, refused (with the "
               "reason) or missing, one per line; then exit")
      ->group("Arguments");
  app.add_option("-o,--output", output,
                 "Output file (.pte, or IR with --emit=mlir|mlirbc or --compile-to); IR goes "
                 "to stdout when omitted; '-' is stdout")
      ->type_name("FILE")
      ->group("Output");
  std::vector<std::string> phaseNames;
  for (ptec::Phase p : ptec::allPhases())
    phaseNames.push_back(ptec::phaseName(p).str());
  oneOf(app.add_option("--compile-to", compileTo,
                       "Stop after this phase and write (or print) the IR (the phases are "
                       "listed below)"),
        phaseNames)
      ->type_name("PHASE")
      ->group("Output");
  oneOf(app.add_option("--emit", emit,
                       "Output format: the .pte program, or the final IR as text or bytecode"),
        {"pte", "mlir", "mlirbc"})
      ->type_name("pte|mlir|mlirbc")
      ->group("Output");
  std::string externalWeights;
  auto *externalOpt =
      app.add_option("--external-weights", externalWeights,
                     "Keep constant weights outside the program, in a .ptd file (default: "
                     "the -o name with .ptd); run with pte-run --data FILE.ptd")
          ->expected(0, 1)
          ->type_name("[=FILE.ptd]")
          ->group("Output");
  bool printWeights = false;
  app.add_flag("--print-weights", printWeights,
               "Print weight blobs in full when IR goes to stdout (by default larger ones "
               "are elided there; IR saved with -o always keeps them)")
      ->group("Output");
  app.add_option("--backend", backends,
                 "Delegate to this backend (repeatable, priority order; the backends are "
                 "listed below; 'none' = no delegation, the default)")
      ->type_name("NAME[:OPTIONS]")
      ->check(CLI::Validator(
          [](std::string &spec) -> std::string {
            std::string error;
            if (spec == "none" || ptec::aot::createAotBackend(spec, &error))
              return "";
            std::vector<std::string> names = ptec::aot::registeredAotBackends();
            names.push_back("none");
            if (std::string near = ptec::tooling::closestName(
                    llvm::StringRef(spec).split(':').first.str(), names);
                !near.empty())
              error += " (did you mean '" + near + "'?)";
            return error;
          },
          ""))
      ->group("Backends and memory");
  bool noShare = false;
  app.add_flag("--no-share-delegates", noShare,
               "One delegate entry per call site even when the backend allows sharing (for "
               "comparison)")
      ->group("Backends and memory");
  oneOf(app.add_option("--planner", planner,
                       "Memory planning algorithm (best: the smallest of all)"),
        {"best", "greedy", "best-fit", "first-fit"})
      ->type_name("best|greedy|best-fit|first-fit")
      ->capture_default_str()
      ->group("Backends and memory");
  bool noReinplace = false, stateNames = false, stackTraces = false, shareState = false;
  oneOf(app.add_option("--write-back", writeBack,
                       "Where mutated state is copied back: at the earliest safe point, or "
                       "at the end of the method"),
        {"earliest", "end"})
      ->type_name("earliest|end")
      ->capture_default_str()
      ->group("State");
  app.add_flag("--share-mutable-buffers", shareState,
               "Methods share their mutable buffers (a KV cache filled by prefill and read by "
               "decode): each buffer gets one place in arena 2, the same in every method")
      ->group("State");
  app.add_flag("--no-reinplace", noReinplace,
               "Keep functional updates of mutated state (KV caches) as they are: write-back "
               "copies each new value (for comparison)")
      ->group("State");
  app.add_flag("--emit-state-names", stateNames,
               "Name mutable buffers in the .pte (their fully qualified names), so that "
               "pte-run --expected-state, pte-run --list and pte-inspect show and find them")
      ->group("State");
  std::string reportFormat, reportFile, planSvgFile, partitionDotFile, debugMapFile;
  oneOf(app.add_flag("--report{text}", reportFormat,
                     "Report what the compile did: phases, ops (delegated or not, and why), "
                     "delegate regions, write-back copies, the memory plan, segments, "
                     "warnings (docs/report.md)"),
        {"text", "json"})
      ->type_name("[=text|json]")
      ->group("Report and pictures");
  app.add_option("--report-file", reportFile, "Write the report here (default: stderr)")
      ->type_name("FILE")
      ->group("Report and pictures");
  app.add_option("--plan-svg", planSvgFile,
                 "Write the memory plan of the written .pte as an SVG picture, every method "
                 "(pte-inspect --plan-svg)")
      ->type_name("FILE")
      ->group("Report and pictures");
  std::string planSvgMethod;
  app.add_option("--plan-svg-method", planSvgMethod, "Draw only this method in --plan-svg")
      ->type_name("NAME")
      ->group("Report and pictures");
  app.add_option("--partition-dot", partitionDotFile,
                 "Write the partitioned graph as Graphviz DOT (delegate regions coloured per "
                 "backend); also FILE.svg when 'dot' is installed")
      ->type_name("FILE")
      ->group("Report and pictures");
  app.add_option("--debug-map", debugMapFile,
                 "Write which exported nodes (debug handles, names, Python lines) each "
                 "instruction of the .pte came from, as JSON (docs/report.md#debug-map)")
      ->type_name("FILE")
      ->group("Report and pictures");
  std::string partitionDotView = "auto";
  oneOf(app.add_option("--partition-dot-view", partitionDotView,
                       "What --partition-dot draws: ops (one node per op, weights in their "
                       "labels), regions (one node per delegate region and per run of "
                       "portable ops) or auto (ops up to 200 nodes, regions above)"),
        {"auto", "ops", "regions"})
      ->type_name("VIEW")
      ->capture_default_str()
      ->group("Report and pictures");
  app.add_flag("--emit-stacktraces", stackTraces,
               "Write each instruction's source frames (from the exported nodes' stack "
               "traces) into the .pte, so a runtime failure names the user's line")
      ->group("Debugging");
  app.add_flag("--print-ir-after-all", printIr, "Print the IR after every phase to stderr")
      ->group("Debugging");
  app.add_flag("-v,--verbose", verbose, "Report each phase and its time on stderr")
      ->group("Debugging");
  // CLI11 stores false into a flag's std::optional<bool> when the flag is
  // absent, so "not given" is read from the option's count instead.
  bool progress = false;
  CLI::Option *progressOpt =
      app.add_flag("--progress,!--no-progress", progress,
                   "A status line on stderr while compiling: reading, phase, ops, elapsed "
                   "time (default: on when stderr is a terminal and --verbose is off)")
          ->group("Debugging");
  bool verifyEach = false;
  CLI::Option *verifyEachOpt =
      app.add_flag("--exir-verify-each,!--no-exir-verify-each", verifyEach,
                   "Check every ATen op against its shape rule after every pass, not only at "
                   "import (default: on in debug builds)")
          ->group("Debugging");
  bool timePasses = false;
  app.add_flag("--time-passes", timePasses,
               "At the end, print on stderr the time of each step: reading the .pt2, "
               "import, every pass, the verifier, emission, writing (also --mlir-timing)")
      ->group("Debugging");
  bool threads = false;
  app.add_flag("--threads", threads, "Let MLIR use threads; the output is the same either way")
      ->group("Debugging");
  // Shown in help only: the flags are taken out before CLI11 parses.
  bool mlirShown = false;
  app.add_flag("--mlir-print-ir-after-all,--mlir-print-ir-before-all,--mlir-timing,"
               "--mlir-print-debuginfo",
               mlirShown,
               "MLIR's flags for the context, the pass manager, IR printing and timing, as "
               "ptec-opt takes them (ptec-opt --help lists them all)")
      ->group("MLIR's options");

  // MLIR's flags go to LLVM's parser, the rest to CLI11.
  std::vector<std::string> args(argv + 1, argv + argc);
  bool mlirTiming = false, mlirFlags = false;
  if (int rc = takeMlirFlags(args, &mlirTiming, &mlirFlags); rc >= 0)
    return rc;
  std::vector<const char *> cargv = {argv[0]};
  for (const std::string &a : args)
    cargv.push_back(a.c_str());
  if (int rc = ptec::tooling::parseCommandLine(app, static_cast<int>(cargv.size()), cargv.data(),
                                               "aot-compile");
      rc >= 0)
    return rc;
  if (listOps) {
    ptec::printOperatorSupport(llvm::outs(), inputs);
    return ptec::tooling::kExitOk;
  }
  if (inputsOpt->count() == 0)
    return ptec::tooling::usageError("aot-compile", "no input given: aot-compile MODEL.pt2 -o "
                                                    "MODEL.pte");
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
  options.timePasses = timePasses || mlirTiming;
  options.mlirCommandLine = mlirFlags;

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
