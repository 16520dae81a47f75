//===- ptec-opt.cpp - run ptec passes on textual IR -----------------------===//
//
// The mlir-opt convention: `ptec-opt file.mlir --exir-place-write-back`.
// --exir-verify-each adds the exir shape rules to every verification.
// All the standard MLIR options (--pass-pipeline, --split-input-file,
// --verify-diagnostics, --mlir-print-ir-after-all, ...) are available.
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ExirDialect.h"
#include "passes/PassRecord.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

static llvm::cl::opt<bool> exirVerifyEach(
    "exir-verify-each",
    llvm::cl::desc("Check every exir.aten op against its shape rule whenever "
                   "the IR is verified: after parsing and after every pass "
                   "(default: on in debug builds)"),
    llvm::cl::init(ptec::exir::kSemanticChecksByDefault));

int main(int argc, char **argv) {
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

  auto [inputFile, outputFile] =
      mlir::registerAndParseCLIOptions(argc, argv, "ptec optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  // Passes run here stick: aot-compile will not run them again on this IR.
  const mlir::MlirOptMainConfig fromCommandLine = config; // builds the pipeline
  config.setPassPipelineSetupFn([fromCommandLine](mlir::PassManager &pm) {
    if (failed(fromCommandLine.setupPassPipeline(pm)))
      return mlir::failure();
    pm.addInstrumentation(std::make_unique<ptec::RecordExirPasses>());
    return mlir::success();
  });
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = mlir::openInputFile(inputFile, &error);
  if (!input) {
    llvm::errs() << "ptec-opt: error: " << error << "\n";
    return 2;
  }
  std::unique_ptr<llvm::ToolOutputFile> output = mlir::openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "ptec-opt: error: " << error << "\n";
    return 2;
  }
  if (failed(mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
