//===- StateOutputs.h - mutation outputs of a method ------------*- C++ -*-===//
//
// The outputs of kind buffer_mutation / user_input_mutation of a method and
// the argument each writes back to. Shared by re-inplacing and write-back
// placement so both match outputs to state the same way.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace ptec {

struct StateOutput {
  enum class Kind { Buffer, UserInput };
  unsigned resultIndex;      // in the function's results
  mlir::BlockArgument state; // the buffer or user input written back
  mlir::Value value;         // the returned new contents
  Kind kind;                 // buffer_mutation or user_input_mutation
};

/// Collects the mutation outputs of `func` (single-block body), in output
/// order. A buffer_mutation names its buffer by fqn (`#exir.input<buffer,
/// "fqn">`); a user_input_mutation names the user input as the importer does
/// (`#exir.input<user_input, "name">`) or by the `exir.name` argument
/// attribute. Reports and fails when no argument or several match, when two
/// outputs mutate the same state (which one would win is not defined), or
/// when the value's type cannot be copied into the state.
mlir::LogicalResult
getStateOutputs(mlir::func::FuncOp func,
                llvm::SmallVectorImpl<StateOutput> &outputs);

/// Calls `fn(func, outputs)` for every function with a body in `module`
/// that has mutation outputs; fails as soon as collecting them or `fn`
/// fails. The functions are listed first, so `fn` may add or erase others.
template <typename Fn> mlir::LogicalResult forEachStatefulFunc(mlir::ModuleOp module, Fn fn) {
  llvm::SmallVector<mlir::func::FuncOp> funcs(module.getOps<mlir::func::FuncOp>());
  for (mlir::func::FuncOp func : funcs) {
    if (func.isDeclaration())
      continue;
    llvm::SmallVector<StateOutput> outputs;
    if (mlir::failed(getStateOutputs(func, outputs)))
      return mlir::failure();
    if (!outputs.empty() && mlir::failed(fn(func, llvm::ArrayRef<StateOutput>(outputs))))
      return mlir::failure();
  }
  return mlir::success();
}

} // namespace ptec
