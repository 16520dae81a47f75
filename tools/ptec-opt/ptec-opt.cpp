//===- ptec-opt.cpp - run ptec passes on textual IR -----------------------===//
//
// The mlir-opt convention: `ptec-opt file.mlir --exir-place-write-back`.
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

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<ptec::exir::ExirDialect, mlir::func::FuncDialect>();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  ptec::registerPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "ptec optimizer driver\n", registry));
}
