//===- PartitionDot.h - the partitioned graph as Graphviz DOT ---*- C++ -*-===//
//
// aot-compile --partition-dot: one digraph per method; each top-level op a
// node, each exir.delegate_region a cluster coloured per backend with its
// ops inside, edges from producers to users. Deterministic text.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace ptec {

std::string partitionGraphDot(mlir::ModuleOp module);

} // namespace ptec
