//===- ptec-opt.cpp - run ptec passes on textual IR -----------------------===//
//
// The mlir-opt convention: `ptec-opt file.mlir --exir-place-write-back`.
// --exir-verify-each adds the exir shape rules to every verification.
// All the standard MLIR options (--pass-pipeline, --split-input-file,
// --verify-diagnostics, --mlir-print-ir-after-all, ...) are available; the
// LLVM code-generation flags the shared libraries bring are hidden from
// --help (--help-hidden lists them). Passes that run here are recorded on a
// program module, so that aot-compile does not run them again.
// `-o x.mlirbc` writes bytecode, any other name text (as aot-compile).
// The output is written as every tool's (serde/pte/OutputTarget.h): `-` is
// stdout, links and devices are never replaced, nothing is written when a
// pass fails. Exit codes: tooling/ExitCodes.h (docs/tools/README.md).
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ExirDialect.h"
#include "dialects/exir/IR/GuardedParse.h"
#include "passes/PassRecord.h"
#include "passes/Passes.h"
#include "serde/io/ContentKind.h"
#include "serde/io/InputFile.h"
#include "serde/pte/FileChunks.h"
#include "tooling/CrashHandler.h"
#include "tooling/ExitCodes.h"
#include "tooling/LlvmCrashHandler.h"
#include "tooling/ToolCli.h"
#include "tooling/ToolHelp.h"
#include "tools/Version.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace cl = llvm::cl;

static cl::opt<bool> exirVerifyEach(
    "exir-verify-each",
    cl::desc("Check every exir.aten op against its shape rule whenever "
             "the IR is verified: after parsing and after every pass "
             "(default: on in debug builds)"),
    cl::init(ptec::exir::kSemanticChecksByDefault));

namespace tooling = ptec::tooling;

namespace {

/// The help page's parts besides the options (tooling/ToolHelp.h).
tooling::ToolHelp helpPage() {
  tooling::ToolHelp h;
  h.tool = "ptec-opt";
  h.usage = {"[options] [INPUT.mlir|INPUT.mlirbc|-] [--PASS ...] [-o OUTPUT]"};
  h.description =
      "Run ptec's passes (and MLIR's canonicalize, cse, symbol-dce) on exir IR, text or "
      "bytecode, the mlir-opt convention: one pass at a time, for tests and backend "
      "authors. The input defaults to standard input, the output to standard output; "
      "-o x.mlirbc writes bytecode. Passes run here are recorded on the IR, and aot-compile "
      "does not run them again when it resumes from the output.";
  h.examples = {
      {"aot-compile model.pt2 --compile-to=legalize -o legal.mlir", "IR to start from"},
      {"ptec-opt legal.mlir --exir-place-write-back -o out.mlir", "one pass"},
      {"ptec-opt lowered.mlir --exir-plan-memory=algorithm=first-fit", "a pass's options"},
      {"ptec-opt imported.mlir --pass-pipeline='builtin.module(exir-legalize-to-core)'", ""},
      {"ptec-opt legal.mlir --split-input-file --verify-diagnostics --exir-partition=backends=demo",
       ""},
      {"ptec-opt legal.mlir --exir-place-write-back --mlir-print-ir-after-all", ""}};
  h.failedMeans = "a pass failed, or the input is not IR this ptec reads";
  h.usageMeans = "an unknown flag or pass (with the closest one as a note), a bad value";
  h.docs = "docs/tools/ptec-opt.md";
  return h;
}

/// --help: the tools' layout around LLVM's list of the visible options,
/// grouped by category (General options, then the others by name).
void printHelp() {
  llvm::outs() << tooling::helpHead(helpPage());
  std::map<std::string, std::vector<cl::Option *>> byCategory;
  std::set<cl::Option *> seen;
  size_t width = 0;
  for (auto &entry : cl::getRegisteredOptions()) {
    cl::Option *o = entry.second;
    if (o->getOptionHiddenFlag() != cl::NotHidden || o->isPositional() || !seen.insert(o).second)
      continue;
    std::string category =
        o->Categories.empty() ? "General options" : o->Categories.front()->getName().str();
    if (category == "General options")
      category = " General options"; // first
    byCategory[category].push_back(o);
    width = std::max(width, o->getOptionWidth());
  }
  for (auto &[category, options] : byCategory) {
    llvm::outs() << llvm::StringRef(category).ltrim() << ":\n";
    llvm::sort(options, [](cl::Option *a, cl::Option *b) { return a->ArgStr < b->ArgStr; });
    for (cl::Option *o : options)
      o->printOptionInfo(width);
    llvm::outs() << "\n";
  }
  llvm::outs() << tooling::helpTail(helpPage());
  llvm::outs().flush();
}

} // namespace

int main(int argc, char **argv) {
  tooling::installLlvmCrashHandler("ptec-opt", argv[0]);
  // Everything registered so far comes from the LLVM libraries (code
  // generation flags for every target): keep it out of --help.
  for (auto &entry : cl::getRegisteredOptions())
    if (entry.second != &exirVerifyEach && entry.first() != "help" &&
        entry.first() != "version")
      entry.second->setHiddenFlag(cl::Hidden);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << PTEC_VERSION_LINE("ptec-opt") << "\n";
  });

  mlir::DialectRegistry registry;
  registry.insert<ptec::exir::ExirDialect, mlir::func::FuncDialect>();
  // Read when the dialect loads, after the command line is parsed.
  registry.addExtension(+[](mlir::MLIRContext *, ptec::exir::ExirDialect *d) {
    d->setSemanticChecks(exirVerifyEach);
  });
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  ptec::registerPasses();

  static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input file>"),
                                        cl::init("-"));
  static cl::opt<std::string> outputFile("o", cl::desc("Output filename"),
                                         cl::value_desc("filename"), cl::init("-"));
  mlir::MlirOptMainConfig::registerCLOptions(registry);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  // --help in the tools' layout (tooling/ToolHelp.h); --help-hidden and
  // --help-list stay LLVM's.
  for (int i = 1; i < argc && llvm::StringRef(argv[i]) != "--"; ++i)
    if (llvm::StringRef(argv[i]) == "--help" || llvm::StringRef(argv[i]) == "-help" ||
        llvm::StringRef(argv[i]) == "-h") {
      printHelp();
      return tooling::kExitOk;
    }
  // cl's own error lines are rewritten in the tools' style (tooling/ToolCli.h).
  std::string clErrors;
  llvm::raw_string_ostream clErrorStream(clErrors);
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "ptec-opt: run ptec (and MLIR) passes on exir IR\n\n"
                                   "  ptec-opt model.mlir --exir-place-write-back -o out.mlir\n"
                                   "  ptec-opt model.mlir --exir-plan-memory=algorithm=first-fit\n",
                                   &clErrorStream)) {
    llvm::errs() << tooling::rewriteLlvmUsageErrors("ptec-opt", clErrorStream.str());
    return tooling::kExitUsage;
  }
  tooling::setCrashContext("running passes on " + inputFile.getValue());
  tooling::crashIfAsked();

  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  // The name says the format, as for aot-compile: .mlirbc is bytecode.
  if (llvm::StringRef(outputFile.getValue()).ends_with(".mlirbc"))
    config.emitBytecode(true);
  const mlir::MlirOptMainConfig fromCommandLine = config; // builds the pipeline
  // Passes run here stick: aot-compile will not run them again on this IR.
  config.setPassPipelineSetupFn([fromCommandLine](mlir::PassManager &pm) {
    if (failed(fromCommandLine.setupPassPipeline(pm)))
      return mlir::failure();
    pm.addInstrumentation(std::make_unique<ptec::RecordExirPasses>());
    return mlir::success();
  });
  std::string error;
  // A FIFO or device would block or never end: only regular files (or
  // standard input, `-`).
  if (inputFile != "-")
    if (std::string why = ptec::io::checkInputFile(inputFile); !why.empty()) {
      llvm::errs() << "ptec-opt: error: " << inputFile << ": " << why << "\n";
      return tooling::kExitFailed;
    }
  std::unique_ptr<llvm::MemoryBuffer> input = mlir::openInputFile(inputFile, &error);
  if (!input) {
    llvm::errs() << "ptec-opt: error: " << error << "\n";
    return tooling::kExitFailed;
  }
  // A file of another kind (a .pt2, a .pte, ...) is named as what it is,
  // before a parser reads its bytes as text (serde/io/ContentKind.h).
  {
    llvm::StringRef bytes = input->getBuffer();
    std::string_view all(bytes.data(), bytes.size());
    ptec::io::ContentKind kind = ptec::io::sniffContent(
        all.substr(0, ptec::io::kSniffHeadBytes),
        all.substr(all.size() - std::min(all.size(), ptec::io::kSniffTailBytes)));
    if (kind != ptec::io::ContentKind::MlirText && kind != ptec::io::ContentKind::MlirBytecode &&
        kind != ptec::io::ContentKind::Text && kind != ptec::io::ContentKind::Empty) {
      std::string name = inputFile == "-" ? "standard input" : inputFile.getValue();
      std::string use =
          kind == ptec::io::ContentKind::Pt2
              ? "aot-compile " + name + " --compile-to=import -o model.mlir writes IR that "
                                        "ptec-opt reads"
              : "";
      llvm::errs() << "ptec-opt: error: "
                   << ptec::io::wrongContentMessage(name, kind, "MLIR (text or bytecode)", "", use)
                   << "\n";
      return tooling::kExitFailed;
    }
  }
  // MlirOptMain parses without limits; refuse what would exhaust its stack
  // first (a scan for text, a guarded parse for bytecode).
  {
    mlir::MLIRContext scratch(registry);
    llvm::SourceMgr sourceMgr;
    mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &scratch);
    llvm::StringRef bytes = input->getBuffer();
    if (ptec::exir::isMlirBytecode(bytes)) {
      sourceMgr.AddNewSourceBuffer(
          llvm::MemoryBuffer::getMemBuffer(bytes, input->getBufferIdentifier(), false),
          llvm::SMLoc());
      if (!ptec::exir::parseModuleGuarded(sourceMgr, scratch))
        return tooling::kExitFailed;
    } else if (failed(ptec::exir::checkTextNesting(bytes, input->getBufferIdentifier(),
                                                   scratch))) {
      return tooling::kExitFailed;
    }
  }
  // The result is kept until the passes are done, then written at once; a
  // file only when they succeed (standard output shows what there is).
  std::string result;
  llvm::raw_string_ostream os(result);
  bool ok = succeeded(mlir::MlirOptMain(os, std::move(input), registry, config));
  os.flush();
  if (!ok && outputFile != "-")
    return tooling::kExitFailed;
  if (!ptec::pte::writeFileAtomic(outputFile, std::vector<uint8_t>(result.begin(), result.end()),
                                  &error)) {
    llvm::errs() << "ptec-opt: error: cannot write " << outputFile.getValue() << ": " << error
                 << "\n";
    return tooling::kExitFailed;
  }
  return ok ? tooling::kExitOk : tooling::kExitFailed;
}
