//===- PartitionDot.h - the partitioned graph as Graphviz DOT ---*- C++ -*-===//
//
// aot-compile --partition-dot: one cluster per function; each top-level op
// a node labelled with its result shapes, each exir.delegate_region a
// cluster coloured per backend and numbered ("region k", program order per
// function, as in the compile report), ops left on portable kernels marked
// with exir-partition's reason, edges from producers to users, and a
// legend. Deterministic text.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace ptec {

std::string partitionGraphDot(mlir::ModuleOp module);

} // namespace ptec
