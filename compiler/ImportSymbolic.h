//===- ImportSymbolic.h - dynamic shapes in the importer -------*- C++ -*-===//
//
// How the importer reads a program exported with dynamic shapes. Every
// symbol has a range (range_constraints); the program is imported at the
// point where every symbol takes its upper bound, so tensor types are the
// largest shapes (what memory planning reserves) and every static check sees
// one consistent program. What changes at run time is carried explicitly:
// user inputs list their dynamic dims (`exir.dynamic_dims`), symbolic ints
// are i64 SSA values (exir.sym_size, exir.sym, exir.sym_const), and an op
// argument that depends on one gets it as an operand bound by
// `exir.sym_args`.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "serde/pt2/ExportedProgram.h"
#include "serde/pt2/SymExpr.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <map>
#include <optional>
#include <string>

namespace ptec::import {

/// A symbolic int of a graph: its SSA value and its value when every symbol
/// is at its upper bound.
struct SymValue {
  mlir::Value value;
  int64_t bound = 0;
  /// A comparison (SymBool) kept only for the shape asserts that use it;
  /// it has no value.
  bool checkOnly = false;
};

/// The symbols of one exported program and their upper-bound instance.
class SymbolicShapes {
public:
  explicit SymbolicShapes(const pt2::ExportedProgram &program);

  /// Sizes of `meta` at the upper bound; the dims that are symbolic go to
  /// `dynamicDims`. Fails with `*error` when a size's expression does not
  /// parse, names a symbol without an upper bound, or is not increasing in
  /// its symbols (its value at the bound would not be its largest).
  bool boundSizes(const pt2::TensorMeta &meta, llvm::SmallVectorImpl<int64_t> &sizes,
                  llvm::SmallVectorImpl<int64_t> &dynamicDims, std::string *error);

  /// The largest value of the symbolic expression `text` under the range
  /// constraints (`symbolic` false when it is a constant). Fails with
  /// `*error` as boundSizes does.
  bool upperBound(const std::string &text, int64_t &value, bool &symbolic,
                  std::string *error);

private:
  std::optional<pt2::SymExpr> parse(const std::string &text, std::string *error);

  std::map<std::string, pt2::SymRange> ranges_;
  std::map<std::string, int64_t> atBound_;
  std::map<std::string, pt2::SymExpr> parsed_;
};

/// Nodes that compute or check symbolic ints rather than tensors:
/// aten::sym_size.int, Python size arithmetic (_operator.*, torch.sym_*),
/// and the shape asserts torch.export leaves in the graph.
bool isSymbolicNode(llvm::StringRef target);

/// Imports one such node at the builder's insertion point. `tensor` looks a
/// tensor up by name; `syms` holds (and receives) the graph's symbolic ints.
/// Asserts and the comparisons that only feed them produce nothing: the
/// runtime checks inputs against their bounds instead. Fails with `*error`.
bool importSymbolicNode(mlir::OpBuilder &b, mlir::Location loc, const pt2::Node &node,
                        llvm::function_ref<mlir::Value(llvm::StringRef)> tensor,
                        llvm::StringMap<SymValue> &syms, std::string *error);

/// The symbolic ints a node passes for its non-tensor argument `argName`:
/// appends their values to `operands` and "name" / "name[k]" entries to
/// `bindings`. Fails when a name is neither a symbolic int of the graph nor
/// one with a concrete value (`concrete`).
bool bindSymbolicArgument(llvm::StringRef argName, const pt2::Argument &value,
                          bool floatTyped, const llvm::StringMap<SymValue> &syms,
                          const std::map<std::string, int64_t> &concrete,
                          llvm::SmallVectorImpl<mlir::Value> &operands,
                          llvm::SmallVectorImpl<std::string> &bindings,
                          std::string *error);

} // namespace ptec::import
