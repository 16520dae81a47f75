//===- ImportControlFlow.h - cond / while_loop in the importer --*- C++ -*-===//
//
// torch.ops.higher_order.cond and .while_loop become exir.cond and
// exir.while, region-holding ops whose regions are the HOP's subgraphs
// (spec/pt2-format.md section 6.6: each subgraph is a whole Graph with its
// own name space; captured values are passed explicitly as operands). The
// importer proper provides the hooks: looking up a value of the enclosing
// graph and importing a subgraph's nodes into a block.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "serde/pt2/ExportedProgram.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <string>
#include <utility>

namespace ptec::import {

struct ControlFlowHooks {
  /// A value of the enclosing graph by name (reports an error naming the node
  /// when there is none).
  std::function<mlir::FailureOr<mlir::Value>(llvm::StringRef)> lookup;
  /// Imports `graph` into a new entry block of `region` whose arguments are
  /// the graph's inputs, and returns the values the graph outputs (the block
  /// still lacks its terminator). The builder's insertion point is restored.
  std::function<mlir::LogicalResult(const pt2::Graph &, mlir::Region &,
                                    llvm::SmallVectorImpl<mlir::Value> &)>
      importGraph;
};

/// True for the HOPs this file imports.
bool isControlFlowHop(llvm::StringRef hop);

/// Creates the exir.cond / exir.while for `node` at the builder's insertion
/// point. `defs` receives each output name of the node with its value.
mlir::LogicalResult
importControlFlow(mlir::OpBuilder &b, mlir::Location loc, const pt2::Node &node,
                  llvm::StringRef hop, const ControlFlowHooks &hooks,
                  llvm::SmallVectorImpl<std::pair<std::string, mlir::Value>> &defs);

} // namespace ptec::import
