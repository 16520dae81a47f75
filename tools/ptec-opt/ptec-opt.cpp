//===- ptec-opt.cpp - run ptec passes on textual IR -----------------------===//
//
// The mlir-opt convention: `ptec-opt file.mlir --exir-place-write-back`.
// --exir-verify-each adds the exir shape rules to every verification.
// All the standard MLIR options (--pass-pipeline, --split-input-file,
// --verify-diagnostics, --mlir-print-ir-after-all, ...) are available.
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ExirDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

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
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "ptec optimizer driver\n", registry));
}
