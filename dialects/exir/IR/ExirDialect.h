//===- ExirDialect.h - the exir dialect -------------------------*- C++ -*-===//
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/RWMutex.h"

#include "dialects/exir/schema/OperatorSchema.h"

namespace ptec::exir {
/// The default of ExirDialect::semanticChecksEnabled: shape rules run in
/// every exir.aten verification of debug builds; release builds check them
/// at import (and wherever a tool or test turns them on).
#ifdef NDEBUG
constexpr bool kSemanticChecksByDefault = false;
#else
constexpr bool kSemanticChecksByDefault = true;
#endif
} // namespace ptec::exir

#include "dialects/exir/IR/ExirDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/exir/IR/ExirAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/exir/IR/ExirOps.h.inc"

namespace ptec::exir {

/// Version of the textual/bytecode IR schema written into saved programs
/// (module attribute `exir.version`). Minor bumps only add things; see
/// docs/ir-versioning.md. 1.0: lowered modules without sharing or scratch;
/// 1.1: `share_handle_across_calls` and `scratch` on exir.lowered_module;
/// 1.2: dynamic shapes (exir.sym_size/sym_const/sym, `exir.sym_args`,
/// `exir.dynamic_dims`).
constexpr int kIrVersionMajor = 1;
constexpr int kIrVersionMinor = 2;

/// Known graph-input kinds of #exir.input.
bool isValidInputKind(llvm::StringRef kind);
/// Known output kinds of #exir.output.
bool isValidOutputKind(llvm::StringRef kind);

/// Checks that a resource blob holds as many bytes as its type needs (a
/// missing blob passes); the error names the blob and both sizes.
mlir::LogicalResult checkBlobSize(mlir::Operation *at,
                                  mlir::DenseResourceElementsAttr value);

/// Raw little-endian bytes of a weight value: resource blobs as they are,
/// dense attributes expanded (splats) with bools widened to one byte.
/// Reports at `at` and fails when the data is missing or unsupported (or a
/// blob's size is not its type's).
mlir::LogicalResult getElementsBytes(mlir::Operation *at,
                                     mlir::ElementsAttr value,
                                     std::vector<uint8_t> &out);

/// A `dense_resource` elements attribute of `type` owning a copy of `bytes`
/// under resource key `key` (made unique by MLIR if taken).
mlir::ElementsAttr makeResourceElements(mlir::ShapedType type,
                                        llvm::StringRef key,
                                        llvm::ArrayRef<uint8_t> bytes);

/// The value whose storage `v` lives in: follows out-variant, in-place and
/// view results to the operand they alias (AtenOp::getAliasedOperand) and
/// results that re-inplacing made share an operand's storage;
/// `v` itself for fresh values.
mlir::Value getStorageRoot(mlir::Value v);

/// Re-inplacing's storage-sharing annotation: `exir.inplace_of = i : i64` on
/// an op with one result means the op writes its result into operand i (a
/// write to operand i's storage, visible to every effect query).
constexpr llvm::StringLiteral kInplaceOfAttrName = "exir.inplace_of";
/// Binds the symbolic-int operands of an exir.aten to its SymInt arguments:
/// ["size[1]", "end"], one entry per operand after the tensor operands.
constexpr llvm::StringLiteral kSymArgsAttrName = "exir.sym_args";
/// User inputs with run-time sizes: `exir.dynamic_dims = array<i64: 1>` on
/// the function argument lists the dims whose type size is an upper bound.
constexpr llvm::StringLiteral kDynamicDimsAttrName = "exir.dynamic_dims";
/// Splits one `exir.sym_args` entry: "size[1]" -> ("size", 1), "end" ->
/// ("end", -1). False when malformed.
bool parseSymArg(llvm::StringRef entry, llvm::StringRef &name, int64_t &index);
/// The operand index named by a well-formed `exir.inplace_of` on `op`
/// (one result, index in range), or -1.
int getInplaceOperand(mlir::Operation *op);

/// Source-location tagging of imported IR: `loc` wrapped in a FusedLoc whose
/// metadata is ["file.pt2", "method"] or, for a graph node, ["file.pt2",
/// "method", debug handle]: the input an op was imported from and the node's
/// debug handle (1, 2, ... in graph order per method, as upstream numbers
/// nodes). Being part of the location, the handle follows the node through
/// every rewrite (new ops take the old op's location) and into partitions
/// (a delegate call's location fuses its ops'). Diagnostics name the input
/// with it; location walks that look through FusedLoc (file:line, stack
/// traces) are unaffected.
mlir::Location tagInputLoc(mlir::Location loc, llvm::StringRef file,
                           llvm::StringRef method, int64_t debugHandle = 0);
/// The same, with the names already made (an importer tags every node).
mlir::Location tagInputLoc(mlir::Location loc, mlir::StringAttr file,
                           mlir::StringAttr method, int64_t debugHandle = 0);
/// Every debug handle tagged inside `loc`, sorted and unique.
llvm::SmallVector<int64_t> debugHandlesOf(mlir::Location loc);
/// (debug handle, node name, innermost "file:line" or "") of every tagged
/// node location inside `loc`.
struct TaggedNode {
  int64_t handle = 0;
  std::string name, source;
};
void collectTaggedNodes(mlir::Location loc, llvm::SmallVectorImpl<TaggedNode> &out);
/// The (file, method) a tagInputLoc tag inside `loc` names (searched through
/// name, call-site and fused locations), or nullopt.
std::optional<std::pair<std::string, std::string>> inputOfLoc(mlir::Location loc);

/// The #exir.input of argument `i` of `func`, or null.
InputAttr getInputAttr(mlir::Operation *func, unsigned i);
/// The #exir.output of result `i` of `func`, or null.
OutputAttr getOutputAttr(mlir::Operation *func, unsigned i);

} // namespace ptec::exir
