//===- Emitter.h - exir IR to an ExecuTorch program -------------*- C++ -*-===//
//
// Turns a fully lowered module (out-variants, write-back copies, planned
// memory, outlined delegates) into the flatbuffers object model of a .pte
// program. serde/pte/PteWriter lays the bytes out; this file decides what the
// program says.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "serde/pte/PteWriter.h"

#include "mlir/IR/BuiltinOps.h"

namespace ptec {

struct EmitOptions {
  /// Write ExtraTensorInfo.fully_qualified_name on mutable buffers (planned
  /// state), as upstream does on request (emit_mutable_buffer_names): tools
  /// and tests then find a method's state by name.
  bool emitStateNames = false;
  /// Write Chain.stacktrace: per instruction the user's source frames (the
  /// exported node's stack trace), so a runtime failure can name the line.
  bool emitStackTraces = false;
  /// Keep constant weights outside the program: their tensors are EXTERNAL,
  /// named by fully qualified name, and the bytes go to
  /// ProgramBuilder::external (written as a .ptd by the caller).
  bool externalWeights = false;
};

/// Per-method facts gathered while emitting, for reports and benchmarks.
struct EmitStats {
  struct Method {
    std::string name;
    size_t numValues = 0, numInstructions = 0, numDelegates = 0,
           numDelegateCalls = 0;
    std::vector<int64_t> arenaSizes;
    /// The location of the op each instruction was emitted for (a delegate
    /// call's fuses its ops'), in instruction order: debug handles and
    /// nodes per instruction (compiler/DebugMap).
    std::vector<mlir::Location> instructionLocs;
  };
  std::vector<Method> methods;
};

/// Emit every method (func.func, sorted by name) of `module` into `out`.
/// Reports problems as MLIR diagnostics at the offending op and fails.
mlir::LogicalResult emitProgram(mlir::ModuleOp module, pte::ProgramBuilder &out,
                                const EmitOptions &options = {},
                                EmitStats *stats = nullptr);

} // namespace ptec
