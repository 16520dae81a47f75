//===- PartitionDot.h - the partitioned graph as Graphviz DOT ---*- C++ -*-===//
//
// aot-compile --partition-dot: one cluster per function, a legend, and one
// of two views.
// - ops: each op a node labelled with its result shapes and the weights it
//   reads (parameters, buffers and constants are folded into their users'
//   labels, not drawn; unused inputs are left out), each
//   exir.delegate_region a cluster coloured per backend and numbered
//   ("region k", program order per function, as in the compile report), ops
//   left on portable kernels marked with exir-partition's reason, edges
//   from producers to users.
// - regions: one node per delegate region (its op kinds and result shapes)
//   and one per run of consecutive ops between regions that stay on
//   portable kernels (their kinds and the most common reason), the user
//   inputs and the results, edges between them. Real models (hundreds of
//   ops, a weight per op) stay a picture of a few nodes.
// `auto` draws ops up to kCollapseAbove nodes and regions above.
// Deterministic text.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ptec {

enum class DotView { Auto, Ops, Regions };

/// "auto", "ops", "regions" -> the view, or nullopt.
std::optional<DotView> parseDotView(llvm::StringRef name);

/// The ops view is the default up to this many nodes (ops, inputs and
/// results drawn); larger graphs get the regions view.
constexpr int64_t kCollapseAbove = 200;

std::string partitionGraphDot(mlir::ModuleOp module, DotView view = DotView::Auto);

} // namespace ptec
