//===- Importer.h - the importer's state, shared by its files --*- C++ -*-===//
//
// Internal to compiler/: the Importer class that Import.cpp (methods,
// signatures, weights) and ImportNode.cpp (nodes, arguments, higher-order
// ops) implement together. Not part of the library's interface (Import.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/Import.h"

#include "compiler/ImportArguments.h"
#include "compiler/ImportControlFlow.h"
#include "compiler/ImportSymbolic.h"
#include "dialects/exir/IR/Dynamism.h"
#include "dialects/exir/IR/ExirDialect.h"
#include "dialects/exir/IR/ShapeRules.h"
#include "dialects/exir/schema/OperatorSchema.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <cstring>

namespace ptec::import_detail {

using namespace mlir;
namespace pt2 = ptec::pt2;
namespace schema = ptec::schema;
namespace exir = ptec::exir;
using AK = pt2::Argument::Kind;

constexpr llvm::StringLiteral kOpsPrefix = "torch.ops.";
constexpr llvm::StringLiteral kHopPrefix = "torch.ops.higher_order.";
constexpr size_t kBlobAlignment = 16;

/// The values of one graph (a method body or an inlined subgraph), by name.
struct Scope {
  const pt2::Graph &graph;
  llvm::StringMap<Value> values;
  /// Symbolic ints defined so far, and every symbolic int's value at the
  /// upper bound (concrete ones from the file included) for attributes.
  llvm::StringMap<import::SymValue> syms;
  std::map<std::string, int64_t> symInts;
  /// Outputs of nodes that failed to import (and of nodes using them):
  /// their users are skipped silently, so one bad node gives one error.
  llvm::StringSet<> poisoned;
  /// Effect tokens (token inputs and with_effects' new tokens): no data,
  /// only order, so they are never values.
  llvm::StringSet<> tokens;
};

/// Every value name `a` refers to (tensors, optional tensors, symbolic ints).
template <typename F>
void forEachName(const pt2::Argument &a, F &&f) {
  if (!a.name.empty())
    f(a.name);
  for (const std::string &n : a.names)
    if (!n.empty())
      f(n);
  for (const pt2::OptionalTensor &o : a.optTensors)
    if (!o.isNone)
      f(o.name);
  for (const auto &list : a.nestedNames)
    for (const std::string &n : list)
      f(n);
}

/// Import errors reported before the importer stops listing more.
constexpr unsigned kMaxImportErrors = 20;

/// A weight some method uses, before its exir.weight op exists.
struct WeightUse {
  std::string kind; // parameter, buffer, constant
  const pt2::WeightTensor *tensor = nullptr;
  std::string file; // the .pt2 that first provided it
  RankedTensorType type;
  Location loc;
  bool isMutable = false;
};

bool isContiguous(const pt2::TensorMeta &meta);
std::string blobKey(StringRef fqn);
AsmResourceBlob makeBlob(const pt2::WeightTensor &w);
const char *inputKindName(pt2::InputKind kind);
const char *outputKindName(pt2::OutputKind kind);
/// A number (not a symbolic name) passed as an argument.
bool isNumber(const pt2::Argument &v);
/// aten::_print, which the importer drops (ImportWrappers.cpp).
bool isPrintTarget(StringRef target);

class Importer {
public:
  Importer(MLIRContext &ctx, ModuleOp module)
      : ctx(ctx), module(module), b(&ctx),
        registry(schema::OperatorRegistry::builtin()) {}

  LogicalResult importMethod(const MethodSource &src);
  /// Creates the exir.weight ops, in order of first use, before the methods.
  void createWeights();

private:
  /// The .pt2 file (line 0: the whole file), tagged with the input it is
  /// (exir::inputOfLoc), so every diagnostic can say which .pt2 and method
  /// it comes from even when it points at the user's source line.
  Location fileLoc() const {
    return tagged(FileLineColLoc::get(pathAttr, 0, 0));
  }
  Location tagged(Location loc, int64_t handle = 0) const {
    return exir::tagInputLoc(loc, pathAttr, methodAttr, handle);
  }
  Location namedLoc(StringRef name) const {
    return NameLoc::get(StringAttr::get(&ctx, name), fileLoc());
  }
  /// The node's Python line (else the .pt2), named after the node and
  /// tagged with its debug handle: the next one of this method.
  Location nodeLoc(const pt2::Node &node) {
    auto [userFile, userLine] = userFrame(node);
    Location where = FileLineColLoc::get(pathAttr, 0, 0);
    if (!userFile.empty() && userLine > 0)
      where = FileLineColLoc::get(sourceFileAttr(userFile), userLine, 0);
    return NameLoc::get(StringAttr::get(&ctx, node.name), tagged(where, ++lastHandle));
  }
  /// The frame of the node's stack trace a user wants an error at: the
  /// innermost one outside the torch package (a node made by nn.Linear has
  /// torch/nn/modules/linear.py as its innermost frame), else the reader's
  /// innermost frame.
  static std::pair<StringRef, int> userFrame(const pt2::Node &node);

  FailureOr<RankedTensorType> tensorType(const pt2::TensorMeta &meta,
                                         const llvm::Twine &what, Location loc,
                                         SmallVectorImpl<int64_t> *dynamicDims = nullptr);
  FailureOr<RankedTensorType> valueType(const pt2::Graph &graph,
                                        StringRef name, Location loc);
  FailureOr<Value> lookup(Scope &scope, StringRef name, const pt2::Node &node,
                          Location loc);
  LogicalResult define(Scope &scope, StringRef name, Value value, Location loc);

  LogicalResult useWeight(const pt2::InputSpec &spec, RankedTensorType argType,
                          Location loc);
  LogicalResult importNodes(Scope &scope);
  LogicalResult importNode(const pt2::Node &node, Scope &scope);
  LogicalResult importHop(const pt2::Node &node, StringRef hop, Scope &scope,
                          Location loc);
  /// Wrappers unwrapped back into the op they call (ImportWrappers.cpp).
  LogicalResult importAutoFunctionalized(const pt2::Node &node, bool v2, Scope &scope,
                                         Location loc);
  LogicalResult importWithEffects(const pt2::Node &node, Scope &scope, Location loc);
  LogicalResult dropPrint(const pt2::Node &node, Location loc);
  /// `x.item()` (aten::item / _local_scalar_dense): a data-dependent
  /// symbolic int, bounded by the graph's range constraints.
  LogicalResult importItem(const pt2::Node &node, Scope &scope, Location loc);
  /// Whether every tensor `node` outputs has concrete sizes in the metadata.
  bool staticResults(const pt2::Node &node, const pt2::Graph &graph);
  /// A cond / while_loop subgraph into a new entry block of `region`.
  LogicalResult importSubgraph(const pt2::Graph &sub, Region &region,
                               SmallVectorImpl<Value> &results);
  LogicalResult bindTensorArg(const schema::Argument &arg,
                              const pt2::Argument *value, const pt2::Node &node,
                              Scope &scope, Location loc,
                              SmallVectorImpl<Value> &operands,
                              SmallVectorImpl<int32_t> &segments,
                              SmallVectorImpl<NamedAttribute> &attrs);
  /// Result names and types of a node's outputs, flattened.
  LogicalResult nodeResults(const pt2::Node &node, const pt2::Graph &graph,
                            Location loc, SmallVectorImpl<std::string> &names,
                            SmallVectorImpl<Type> &types);

  /// The overload of `s` that takes a Scalar exactly where `scalarFor` is
  /// set and is otherwise identical (same names, same types), or null.
  const schema::FunctionSchema *scalarOverload(const schema::FunctionSchema &s,
                                               ArrayRef<bool> scalarFor);

  MLIRContext &ctx;
  ModuleOp module;
  OpBuilder b;
  const schema::OperatorRegistry &registry;
  const pt2::ExportedProgram *program = nullptr;
  std::unique_ptr<import::SymbolicShapes> shapes; // of `program`
  std::string methodName;
  /// program->path and methodName, made once per method (every node's
  /// location names them).
  StringAttr pathAttr, methodAttr;
  /// Source file names of stack traces, made once each.
  llvm::StringMap<StringAttr> sourceFiles;
  StringAttr sourceFileAttr(StringRef file) {
    StringAttr &attr = sourceFiles[file];
    if (!attr)
      attr = StringAttr::get(&ctx, file);
    return attr;
  }
  /// exir.aten op names by schema, made once each.
  llvm::DenseMap<const schema::FunctionSchema *, StringAttr> opNames;
  /// Types of the values the importer makes itself (unwrapping), which the
  /// graph's tensor_values does not list; named "<node>#<k>".
  llvm::StringMap<RankedTensorType> synthesizedTypes;
  int64_t lastHandle = 0; // debug handles given in this method
  unsigned errors = 0; // nodes that failed, over all methods
public:
  std::function<void(size_t, size_t)> progress;
  size_t nodesDone = 0, nodesTotal = 0;
private:
  llvm::MapVector<StringRef, WeightUse> weights; // keys live in the programs
  llvm::StringSet<> methodNames;
  /// Submodules of this method called more than once (nn_module_stack paths
  /// "step", "step@1", ... -> "step"); their ops get `exir.scope`.
  llvm::StringSet<> repeatedModules;
  /// The instance path ("step@3") of the outermost repeated submodule that
  /// `node` belongs to, or empty.
  std::string repeatedScope(const pt2::Node &node) const;
  /// Overloads by "ns::name", built on first use.
  llvm::StringMap<SmallVector<const schema::FunctionSchema *>> overloads;
};

} // namespace ptec::import_detail
