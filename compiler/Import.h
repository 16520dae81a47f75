//===- Import.h - torch.export programs to exir -----------------*- C++ -*-===//
//
// The importer: one or more ExportedPrograms (read from .pt2 files) become the
// methods of ONE exir module. Weights with the same fully qualified name are
// shared by all methods (one exir.weight each). Errors are MLIR diagnostics at
// the node's source location (the user's Python line when the .pt2 has it).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "serde/pt2/ExportedProgram.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <functional>
#include "llvm/ADT/ArrayRef.h"

#include <string>

namespace ptec {

/// One method of the program to build: a program read from a .pt2 file and
/// the name its function gets ("forward", "prefill", ...).
struct MethodSource {
  pt2::ExportedProgram program;
  std::string methodName;
};

/// Dialects the importer creates ops of (exir, func).
void registerImportDialects(mlir::DialectRegistry &registry);

/// Builds one module with a func.func per source (in order) and one
/// exir.weight per distinct fqn. Returns null after emitting diagnostics on
/// `context` when any source cannot be imported. Weight bytes are referenced,
/// not copied, when a weight covers its whole shared storage; the blobs keep
/// that storage alive.
///
/// `progress`, when set, is called with (nodes imported, nodes in all
/// sources) every 1024 nodes, for a status line.
mlir::OwningOpRef<mlir::ModuleOp>
importPrograms(mlir::MLIRContext &context, llvm::ArrayRef<MethodSource> sources,
               std::function<void(size_t, size_t)> progress = nullptr);

} // namespace ptec
