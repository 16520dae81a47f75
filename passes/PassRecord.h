//===- PassRecord.h - which exir passes already ran on a module -*- C++ -*-===//
//
// A pass run by ptec-opt must stick: when aot-compile resumes that IR it
// must not run the pass again (with its own options). Every exir pass that
// runs on a module is therefore recorded on it, with its options, as
// `exir.passes = ["exir-plan-memory{algorithm=first-fit}", ...]`, by a pass
// instrumentation that ptec-opt and the compile session both install; the
// session skips the passes it finds there (docs/ir.md).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassInstrumentation.h"

#include <string>
#include <vector>

namespace ptec {

/// The module attribute holding the record.
constexpr llvm::StringLiteral kPassesAttrName = "exir.passes";

/// Records each `exir-*` pass after it ran on a module.
class RecordExirPasses : public mlir::PassInstrumentation {
public:
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override;
};

/// The textual form of `pass` with its options: `exir-plan-memory{algorithm=best}`.
std::string passText(mlir::Pass &pass);
/// The passes recorded on `module`, in the order they ran.
std::vector<std::string> recordedPasses(mlir::ModuleOp module);

} // namespace ptec
