//===- AliasEval.h - PyTorch's meaning of a program that writes in place -*- C++ -*-===//
//
// The reference for non-functional programs (the form torch.export writes
// before functionalization): in-place ops (`add_`, `copy_`, `index_put_`,
// ...) applied to inputs, buffers, parameters and intermediates, directly or
// through views of views, with no mutation outputs in the signature.
//
// Evaluated the way eager PyTorch runs it, and nothing like a compiler pass
// does: every tensor is a view (storage, sizes, strides, storage offset) of a
// storage; a view op (slice, select, view, t, permute, transpose, unsqueeze,
// squeeze, diagonal, alias, expand) makes a new view of its operand's
// storage; an in-place op computes its value from what its operands hold now
// and writes it through its self's view into the storage, so every other
// view of that storage, made before or after, sees it; its result is that
// same view. Functional ops read their operands' current contents (RefEval's
// evaluateOp) into a fresh storage. Outputs are read when the method returns.
//
// What a call returns follows the functionalized program's convention: the
// final contents of every user input whose storage was written (argument
// order), then the user outputs; every buffer or parameter whose storage
// was ever written is state (Result::buffers, by fqn) and carries over to
// the next call; user inputs are fresh each call.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "test/differential/RefEval.h"

namespace ptec::difftest {

class AliasMethod : public Evaluator {
public:
  /// Reads `forward` of `module`; error when an op or input kind is outside
  /// what this reference evaluates.
  static std::unique_ptr<AliasMethod> create(mlir::ModuleOp module, std::string *error);

  std::optional<Result> call(const std::vector<RefTensor> &inputs, std::string *error) override;

  struct Storage {
    std::vector<double> data;
    bool isInt = false;
    bool written = false; ///< by an in-place op, in any call so far
    int64_t writes = 0;   ///< in-place ops that wrote it in this call
  };

  /// What the last call did, for the coverage the test reports.
  struct Coverage {
    bool inputWritten = false, bufferWritten = false, paramWritten = false,
         freshWritten = false; ///< a clone / intermediate
    int64_t writes = 0;        ///< in-place ops
    int64_t viewWrites = 0;    ///< ... whose self is a view
    int64_t chainWrites = 0;   ///< ... a view of a view (or deeper)
    int64_t staleReads = 0;    ///< reads of a view made before a later write of its storage
    int64_t staleBaseReads = 0; ///< reads of a base (argument, fresh value) after such a write
  };
  const Coverage &coverage() const { return coverage_; }

private:
  Coverage coverage_;
  mlir::func::FuncOp func_;
  /// Buffers, parameters and constants by fqn: one storage each, for the
  /// life of the method (so written ones carry over).
  std::map<std::string, std::shared_ptr<Storage>> weights_;
};

/// PyTorch's computeStride (aten/src/ATen/TensorUtils.cpp): the strides of
/// `newShape` viewing a tensor of `oldShape` / `oldStrides`, or nullopt when
/// no view can (view() raises; reshape() would copy).
std::optional<std::vector<int64_t>> computeStride(const std::vector<int64_t> &oldShape,
                                                  const std::vector<int64_t> &oldStrides,
                                                  const std::vector<int64_t> &newShape);

/// True when `module`'s `forward` has an op whose schema writes an argument
/// in place (the program is not functional).
bool writesInPlace(mlir::ModuleOp module);

} // namespace ptec::difftest
