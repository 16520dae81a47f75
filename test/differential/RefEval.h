//===- RefEval.h - reference evaluation of a stateful method ----*- C++ -*-===//
//
// The functional meaning of an import-level exir method, evaluated directly
// with plain loops: every op makes a fresh value (views are copies), and
// after a call every mutated state takes the value its mutation output
// computed from the OLD states. Written independently of the passes and of
// the runtime's kernels, so that it can judge both. Covers the operators the
// random program generator uses (and refuses anything else by name).
//
// Dynamic shapes: the inputs may be smaller than their types (the bounds);
// exir.sym_size reads the run-time size, exir.sym computes with Python
// semantics, an argument bound by exir.sym_args takes its operand's run-time
// value instead of the attribute, and every result's shape is derived from
// its operands' run-time shapes (never from its type, which must only bound
// it).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptec::difftest {

struct RefTensor {
  std::vector<int64_t> shape;
  std::vector<double> data; // float32 values (rounded at every op) or integers
  bool isInt = false;
  int64_t numel() const;
};

/// A reference evaluation of one method and its state across calls: the
/// functional meaning (RefMethod, below) or PyTorch's aliasing meaning of a
/// program that writes in place (AliasMethod, AliasEval.h).
class Evaluator {
public:
  virtual ~Evaluator() = default;

  struct Input {
    std::string name;
    std::vector<int64_t> shape;       ///< at the bound when dynamic
    std::vector<int64_t> dynamicDims; ///< exir.dynamic_dims (empty: static)
  };
  /// The user inputs, in argument order.
  const std::vector<Input> &userInputs() const { return inputs_; }

  struct Result {
    std::vector<RefTensor> outputs;           ///< the .pte's outputs, in order
    std::map<std::string, RefTensor> buffers; ///< every mutable buffer after the call
  };
  /// The initial value of weight or buffer `fqn` (nullptr if none).
  const RefTensor *initial(const std::string &fqn) const {
    auto it = initial_.find(fqn);
    return it == initial_.end() ? nullptr : &it->second;
  }
  /// One call with `inputs` (one per user input); the state carries over.
  virtual std::optional<Result> call(const std::vector<RefTensor> &inputs,
                                     std::string *error) = 0;

protected:
  /// Reads the weights (initial_) and the user inputs (inputs_) of `func`.
  bool readSignature(mlir::ModuleOp module, mlir::func::FuncOp func, std::string *error);

  std::vector<Input> inputs_;
  std::map<std::string, RefTensor> initial_; // as the program declares them
};

/// The evaluator of `forward` in `module`: AliasMethod when the program
/// writes in place (an op whose schema writes its self), else RefMethod.
std::unique_ptr<Evaluator> createEvaluator(mlir::ModuleOp module, std::string *error);

/// One method's functional meaning and its state across calls.
class RefMethod : public Evaluator {
public:
  /// Reads `forward` of `module`; error when an op or input kind is outside
  /// what the reference evaluates.
  static std::optional<RefMethod> create(mlir::ModuleOp module, std::string *error);

  std::optional<Result> call(const std::vector<RefTensor> &inputs, std::string *error) override;

private:
  mlir::func::FuncOp func_;
  std::map<std::string, RefTensor> weights_; // constants and buffer states by fqn
};

/// The value of functional op `op` (a fresh tensor: views are copies) from
/// its operands' values `in(i)`; `bound` holds the run-time values of the
/// arguments bound by exir.sym_args ("end", "size[1]"). Error (nullopt) for
/// an op outside the reference's list, or a negative run-time size.
std::optional<RefTensor> evaluateOp(mlir::Operation *op,
                                    llvm::function_ref<const RefTensor &(unsigned)> in,
                                    const std::map<std::string, int64_t> &bound,
                                    std::string *error);

} // namespace ptec::difftest
