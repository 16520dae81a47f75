//===- Import.cpp - torch.export programs to exir -------------------------===//
//
// Each ExportedProgram becomes one func.func; each graph node one exir.aten
// op checked against the schema registry, with every omitted argument filled
// from its schema default. Lifted parameters, buffers and constants become
// module-level exir.weight ops (one per fqn, shared by all methods) whose
// bytes are dense_resource blobs.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import.h"

#include "compiler/ImportArguments.h"
#include "compiler/ImportControlFlow.h"
#include "compiler/ImportSymbolic.h"
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

using namespace mlir;
namespace pt2 = ptec::pt2;
namespace schema = ptec::schema;
namespace exir = ptec::exir;
using AK = pt2::Argument::Kind;

namespace ptec {

void registerImportDialects(DialectRegistry &registry) {
  registry.insert<exir::ExirDialect, func::FuncDialect>();
}

namespace {

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

bool isContiguous(const pt2::TensorMeta &meta) {
  if (meta.strides.empty())
    return true;
  if (meta.strides.size() != meta.sizes.size())
    return false;
  int64_t expected = 1;
  for (size_t d = meta.sizes.size(); d-- > 0;) {
    if (meta.sizes[d] != 1 && meta.strides[d] != expected)
      return false;
    expected *= meta.sizes[d];
  }
  return true;
}

/// "fc.weight" -> "fc_weight": resource keys print as bare identifiers.
std::string blobKey(StringRef fqn) {
  std::string key;
  for (char c : fqn)
    key.push_back(llvm::isAlnum(c) || c == '_' ? c : '_');
  if (key.empty() || llvm::isDigit(key.front()))
    key.insert(key.begin(), '_');
  return key;
}

/// The bytes of `w` as a blob. When the weight is its whole storage the blob
/// refers to it directly and keeps it alive; otherwise the contiguous copy the
/// reader made is copied once more into the blob.
AsmResourceBlob makeBlob(const pt2::WeightTensor &w) {
  const auto &storage = w.storage;
  if (storage && (w.wholeStorage || (storage->size() == w.data.size() &&
                                     w.meta.storageOffset == 0 && isContiguous(w.meta))) &&
      reinterpret_cast<uintptr_t>(storage->data()) % kBlobAlignment == 0) {
    ArrayRef<char> bytes(reinterpret_cast<const char *>(storage->data()),
                         storage->size());
    std::shared_ptr<const std::vector<uint8_t>> keep = storage;
    return AsmResourceBlob(
        bytes, kBlobAlignment,
        [keep](void *, size_t, size_t) mutable { keep.reset(); },
        /*dataIsMutable=*/false);
  }
  ArrayRef<char> bytes(reinterpret_cast<const char *>(w.bytes().data()),
                       w.bytes().size());
  return HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, kBlobAlignment,
                                                       /*dataIsMutable=*/false);
}

const char *inputKindName(pt2::InputKind kind) {
  switch (kind) {
  case pt2::InputKind::UserInput: return "user_input";
  case pt2::InputKind::Parameter: return "parameter";
  case pt2::InputKind::Buffer: return "buffer";
  case pt2::InputKind::TensorConstant: return "constant";
  case pt2::InputKind::CustomObj: return "custom_obj";
  case pt2::InputKind::Token: return "token";
  case pt2::InputKind::ConstantInput: return "constant_input";
  }
  return "unknown";
}

const char *outputKindName(pt2::OutputKind kind) {
  switch (kind) {
  case pt2::OutputKind::UserOutput: return "user_output";
  case pt2::OutputKind::LossOutput: return "loss_output";
  case pt2::OutputKind::BufferMutation: return "buffer_mutation";
  case pt2::OutputKind::GradientToParameter: return "gradient_to_parameter";
  case pt2::OutputKind::GradientToUserInput: return "gradient_to_user_input";
  case pt2::OutputKind::UserInputMutation: return "user_input_mutation";
  case pt2::OutputKind::Token: return "token";
  case pt2::OutputKind::ParameterMutation: return "parameter_mutation";
  }
  return "unknown";
}

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
    return tagged(FileLineColLoc::get(&ctx, program->path, 0, 0));
  }
  Location tagged(Location loc, int64_t handle = 0) const {
    return exir::tagInputLoc(loc, program->path, methodName, handle);
  }
  Location namedLoc(StringRef name) const {
    return NameLoc::get(StringAttr::get(&ctx, name), fileLoc());
  }
  /// The node's Python line (else the .pt2), named after the node and
  /// tagged with its debug handle: the next one of this method.
  Location nodeLoc(const pt2::Node &node) {
    auto [userFile, userLine] = userFrame(node);
    Location where = FileLineColLoc::get(&ctx, program->path, 0, 0);
    if (!userFile.empty() && userLine > 0)
      where = FileLineColLoc::get(&ctx, userFile, userLine, 0);
    return NameLoc::get(StringAttr::get(&ctx, node.name), tagged(where, ++lastHandle));
  }
  /// The frame of the node's stack trace a user wants an error at: the
  /// innermost one outside the torch package (a node made by nn.Linear has
  /// torch/nn/modules/linear.py as its innermost frame), else the reader's
  /// innermost frame.
  static std::pair<StringRef, int> userFrame(const pt2::Node &node);

  FailureOr<RankedTensorType> tensorType(const pt2::TensorMeta &meta,
                                         StringRef what, Location loc,
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

std::pair<StringRef, int> Importer::userFrame(const pt2::Node &node) {
  std::pair<StringRef, int> frame{node.sourceFile, node.sourceLine};
  if (!StringRef(node.sourceFile).contains("/torch/"))
    return frame;
  auto trace = node.metadata.find("stack_trace");
  if (trace == node.metadata.end())
    return frame;
  // Frames read `  File "path", line N, in name`, outermost first.
  StringRef rest(trace->second);
  for (size_t at = rest.find("File \""); at != StringRef::npos;
       at = rest.find("File \"")) {
    rest = rest.drop_front(at + 6);
    auto [path, tail] = rest.split('"');
    int line = 0;
    if (!tail.consume_front(", line ") || tail.consumeInteger(10, line) ||
        path.contains("/torch/") || path.starts_with("torch/"))
      continue;
    frame = {path, line};
  }
  return frame;
}

bool isNumber(const pt2::Argument &v) {
  switch (v.kind) {
  case AK::Int:
  case AK::Float:
  case AK::Bool:
    return true;
  case AK::SymInt:
  case AK::SymFloat:
  case AK::SymBool:
    return v.name.empty();
  default:
    return false;
  }
}

const schema::FunctionSchema *
Importer::scalarOverload(const schema::FunctionSchema &s, ArrayRef<bool> scalarFor) {
  if (overloads.empty())
    for (const schema::FunctionSchema *c : registry.all())
      overloads[c->ns + "::" + c->name].push_back(c);
  for (const schema::FunctionSchema *c : overloads.lookup(s.ns + "::" + s.name)) {
    if (c == &s || c->arguments.size() != s.arguments.size() ||
        c->returns.size() != s.returns.size())
      continue;
    bool same = true;
    for (size_t i = 0; same && i < s.arguments.size(); ++i) {
      const schema::Argument &a = s.arguments[i], &b = c->arguments[i];
      same = a.name == b.name &&
             (scalarFor[i] ? b.type.kind == schema::TypeKind::Scalar
                           : a.type.equals(b.type, /*withAlias=*/false));
    }
    if (same)
      return c;
  }
  return nullptr;
}

FailureOr<RankedTensorType> Importer::tensorType(const pt2::TensorMeta &meta,
                                                 StringRef what, Location loc,
                                                 SmallVectorImpl<int64_t> *dynamicDims) {
  Type elem = import::elementTypeFor(&ctx, meta.dtype);
  if (!elem)
    return emitError(loc) << what << " has dtype " << static_cast<int>(meta.dtype)
                          << ", which is not supported";
  if (static_cast<int64_t>(meta.sizes.size()) > exir::kMaxTensorRank)
    return emitError(loc) << what << " has " << meta.sizes.size()
                          << " dims; the runtime supports at most "
                          << exir::kMaxTensorRank;
  if (meta.layout != 7)
    return emitError(loc) << what << " is not a dense (strided) tensor";
  // Symbolic sizes: the type holds the size at the symbols' upper bounds.
  SmallVector<int64_t> sizes, dyn;
  std::string error;
  if (!shapes->boundSizes(meta, sizes, dyn, &error))
    return emitError(loc) << what << ": " << error;
  if (dynamicDims)
    dynamicDims->assign(dyn.begin(), dyn.end());
  return RankedTensorType::get(sizes, elem);
}

FailureOr<RankedTensorType> Importer::valueType(const pt2::Graph &graph,
                                                StringRef name, Location loc) {
  auto it = graph.tensorValues.find(name.str());
  if (it == graph.tensorValues.end())
    return emitError(loc) << "tensor '" << name
                          << "' has no entry in the graph's tensor_values";
  return tensorType(it->second, ("tensor '" + name + "'").str(), loc);
}

FailureOr<Value> Importer::lookup(Scope &scope, StringRef name,
                                  const pt2::Node &node, Location loc) {
  Value v = scope.values.lookup(name);
  if (!v)
    return emitError(loc) << "node '" << node.name << "' uses '" << name
                          << "', which is not defined before it";
  return v;
}

LogicalResult Importer::define(Scope &scope, StringRef name, Value value,
                               Location loc) {
  if (!scope.values.try_emplace(name, value).second)
    return emitError(loc) << "value '" << name << "' is defined twice";
  return success();
}

LogicalResult Importer::useWeight(const pt2::InputSpec &spec,
                                  RankedTensorType argType, Location loc) {
  const std::string &fqn = spec.target;
  const char *kind = inputKindName(spec.kind);
  const pt2::WeightTensor *tensor = nullptr;
  for (const auto *table : {&program->weights, &program->constants}) {
    auto it = table->find(fqn);
    if (it != table->end()) {
      tensor = &it->second;
      break;
    }
  }
  if (!tensor)
    return emitError(loc) << program->path << " has no data for " << kind
                          << " '" << fqn << "'";
  FailureOr<RankedTensorType> type =
      tensorType(tensor->meta, (llvm::Twine(kind) + " '" + fqn + "'").str(), loc);
  if (failed(type))
    return failure();
  if (*type != argType)
    return emitError(loc) << kind << " '" << fqn << "' holds " << *type
                          << " but the graph uses it as " << argType;

  auto [it, inserted] = weights.try_emplace(
      fqn, WeightUse{kind, tensor, program->path, *type, namedLoc(fqn), false});
  if (inserted)
    return success();
  WeightUse &prev = it->second;
  auto differ = [&](StringRef what) {
    return emitError(loc) << kind << " '" << fqn << "' differs between '"
                          << prev.file << "' and '" << program->path << "' ("
                          << what << "); methods can only share identical weights";
  };
  if (prev.kind != kind)
    return differ(prev.kind + " vs " + kind);
  if (prev.type != *type)
    return differ("type");
  if (prev.tensor->storage != tensor->storage &&
      prev.tensor->bytes() != tensor->bytes())
    return differ("bytes");
  return success();
}

void Importer::createWeights() {
  b.setInsertionPointToStart(module.getBody());
  for (auto &[fqn, w] : weights) {
    auto value = DenseResourceElementsAttr::get(w.type, blobKey(fqn),
                                                makeBlob(*w.tensor));
    b.create<exir::WeightOp>(w.loc, b.getStringAttr(fqn), b.getStringAttr(w.kind),
                             w.isMutable ? b.getUnitAttr() : UnitAttr(),
                             llvm::cast<ElementsAttr>(value));
  }
}

LogicalResult Importer::importMethod(const MethodSource &src) {
  program = &src.program;
  shapes = std::make_unique<import::SymbolicShapes>(src.program);
  methodName = src.methodName;
  lastHandle = 0;
  const pt2::Graph &graph = program->graph;
  Location funcLoc = fileLoc();
  if (!methodNames.insert(src.methodName).second)
    return emitError(funcLoc) << "method '" << src.methodName
                              << "' is defined twice; give each .pt2 its own "
                                 "method name (file.pt2:name)";
  if (graph.inputs.size() != program->inputSpecs.size())
    return emitError(funcLoc) << "the graph has " << graph.inputs.size()
                              << " inputs but the signature describes "
                              << program->inputSpecs.size();
  if (graph.outputs.size() != program->outputSpecs.size())
    return emitError(funcLoc) << "the graph has " << graph.outputs.size()
                              << " outputs but the signature describes "
                              << program->outputSpecs.size();

  // Arguments: one per graph input, with its kind and name.
  SmallVector<Type> argTypes;
  SmallVector<Attribute> argAttrs;
  SmallVector<Location> argLocs;
  llvm::StringSet<> userInputs, buffers;
  for (const pt2::InputSpec &spec : program->inputSpecs) {
    const pt2::Argument &arg = spec.arg;
    Location loc = namedLoc(arg.name.empty() ? spec.target : arg.name);
    switch (spec.kind) {
    case pt2::InputKind::CustomObj:
      return emitError(loc) << "custom object input '" << spec.target
                            << "' (class " << arg.s
                            << ") is not supported: torchbind objects cannot be "
                               "compiled ahead of time";
    case pt2::InputKind::Token:
      return emitError(loc) << "effect token input '" << arg.name
                            << "' is not supported (ops with side-effect "
                               "tokens are not supported)";
    case pt2::InputKind::ConstantInput:
      return emitError(loc) << "constant input '" << spec.target
                            << "' is not supported yet";
    default:
      break;
    }
    if (arg.kind != AK::Tensor) {
      if (arg.kind == AK::SymInt || arg.kind == AK::SymFloat ||
          arg.kind == AK::SymBool)
        return emitError(loc) << "input '" << arg.name
                              << "' is a symbolic scalar; only tensor inputs "
                                 "are supported (dynamic sizes come from tensor "
                                 "dims)";
      return emitError(loc) << "input '" << arg.name << "' is not a tensor ("
                            << import::argumentKindName(arg.kind)
                            << "); only tensor inputs are supported";
    }
    auto meta = graph.tensorValues.find(arg.name);
    if (meta == graph.tensorValues.end())
      return emitError(loc) << "tensor '" << arg.name
                            << "' has no entry in the graph's tensor_values";
    SmallVector<int64_t> dynamicDims;
    FailureOr<RankedTensorType> type = tensorType(
        meta->second, ("input '" + arg.name + "'"), loc, &dynamicDims);
    if (failed(type))
      return failure();
    if (!dynamicDims.empty() && spec.kind != pt2::InputKind::UserInput)
      return emitError(loc) << inputKindName(spec.kind) << " '" << spec.target
                            << "' has a symbolic size; only user inputs can be dynamic";
    StringRef kind = inputKindName(spec.kind);
    StringAttr name;
    if (spec.kind == pt2::InputKind::UserInput) {
      name = b.getStringAttr(arg.name);
      userInputs.insert(arg.name);
    } else {
      if (failed(useWeight(spec, *type, loc)))
        return failure();
      name = b.getStringAttr(spec.target);
      if (spec.kind == pt2::InputKind::Buffer)
        buffers.insert(spec.target);
    }
    argTypes.push_back(*type);
    argLocs.push_back(loc);
    SmallVector<NamedAttribute> attrs{b.getNamedAttr(
        exir::ExirDialect::kInputAttrName,
        exir::InputAttr::get(&ctx, b.getStringAttr(kind), name))};
    if (!dynamicDims.empty())
      attrs.push_back(b.getNamedAttr(exir::kDynamicDimsAttrName,
                                     b.getDenseI64ArrayAttr(dynamicDims)));
    argAttrs.push_back(b.getDictionaryAttr(attrs));
  }

  // Results: kinds first, so buffers written by any method become mutable.
  SmallVector<Attribute> resultAttrs;
  for (const pt2::OutputSpec &spec : program->outputSpecs) {
    Location loc = namedLoc(spec.arg.name.empty() ? spec.target : spec.arg.name);
    StringAttr target;
    switch (spec.kind) {
    case pt2::OutputKind::UserOutput:
      break;
    case pt2::OutputKind::BufferMutation:
      if (!buffers.contains(spec.target))
        return emitError(loc) << "output mutates buffer '" << spec.target
                              << "', which is not an input of this method";
      weights.find(spec.target)->second.isMutable = true;
      target = b.getStringAttr(spec.target);
      break;
    case pt2::OutputKind::UserInputMutation:
      if (!userInputs.contains(spec.target))
        return emitError(loc) << "output mutates user input '" << spec.target
                              << "', which is not an input of this method";
      target = b.getStringAttr(spec.target);
      break;
    default:
      return emitError(loc) << "outputs of kind '" << outputKindName(spec.kind)
                            << "' are not supported (only user outputs, buffer "
                               "mutations and user-input mutations)";
    }
    resultAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
        exir::ExirDialect::kOutputAttrName,
        exir::OutputAttr::get(&ctx,
                              b.getStringAttr(outputKindName(spec.kind)),
                              target))));
  }

  // The body.
  b.setInsertionPointToEnd(module.getBody());
  auto func = b.create<func::FuncOp>(funcLoc, src.methodName,
                                     b.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  Scope scope{graph, {}};
  scope.symInts = graph.symIntValues;
  for (auto [i, input] : llvm::enumerate(program->inputSpecs)) {
    entry->getArgument(i).setLoc(argLocs[i]);
    if (failed(define(scope, input.arg.name, entry->getArgument(i), argLocs[i])))
      return failure();
  }
  b.setInsertionPointToEnd(entry);
  repeatedModules.clear();
  for (const pt2::Node &node : graph.nodes)
    if (auto it = node.metadata.find("nn_module_stack"); it != node.metadata.end())
      for (StringRef entry : llvm::split(StringRef(it->second), ';')) {
        auto [base, index] = entry.split(',').second.split(',').first.rsplit('@');
        if (!index.empty() && llvm::all_of(index, llvm::isDigit))
          repeatedModules.insert(base);
      }
  if (failed(importNodes(scope)))
    return failure();

  SmallVector<Value> results;
  for (auto [i, out] : llvm::enumerate(graph.outputs)) {
    Location loc = namedLoc(out.name);
    if (out.kind != AK::Tensor)
      return emitError(loc) << "output " << i << " is not a tensor ("
                            << import::argumentKindName(out.kind)
                            << "); only tensor outputs are supported";
    Value v = scope.values.lookup(out.name);
    if (!v)
      return emitError(loc) << "output " << i << " names '" << out.name
                            << "', which the graph never defines";
    results.push_back(v);
  }
  b.create<func::ReturnOp>(funcLoc, results);
  func.setFunctionType(b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  func.setAllArgAttrs(argAttrs);
  func.setAllResultAttrs(resultAttrs);
  return success();
}

std::string Importer::repeatedScope(const pt2::Node &node) const {
  auto it = node.metadata.find("nn_module_stack");
  if (repeatedModules.empty() || it == node.metadata.end())
    return "";
  // Entries "key,path,type" joined by ';', outermost first.
  for (StringRef entry : llvm::split(StringRef(it->second), ';')) {
    StringRef path = entry.split(',').second.split(',').first;
    auto [base, index] = path.rsplit('@');
    bool indexed = !index.empty() && llvm::all_of(index, llvm::isDigit);
    if (repeatedModules.contains(indexed ? base : path))
      return path.str();
  }
  return "";
}

LogicalResult Importer::importNodes(Scope &scope) {
  // Every problem, not only the first: a node that fails poisons its
  // outputs, nodes that use a poisoned value are skipped (their error would
  // only repeat the first), and the rest go on being checked.
  bool ok = true;
  auto poison = [&](const pt2::Node &node) {
    for (const pt2::Argument &out : node.outputs)
      forEachName(out, [&](const std::string &n) { scope.poisoned.insert(n); });
  };
  for (const pt2::Node &node : scope.graph.nodes) {
    if (progress && ++nodesDone % 1024 == 0)
      progress(nodesDone, nodesTotal);
    bool usesPoison = false;
    for (const pt2::NamedArgument &in : node.inputs)
      forEachName(in.arg, [&](const std::string &n) {
        usesPoison |= scope.poisoned.contains(n);
      });
    if (usesPoison) {
      poison(node);
      continue;
    }
    if (succeeded(importNode(node, scope)))
      continue;
    ok = false;
    poison(node);
    if (++errors >= kMaxImportErrors) {
      emitError(fileLoc()) << "stopping after " << kMaxImportErrors << " errors";
      return failure();
    }
  }
  return success(ok);
}

LogicalResult Importer::nodeResults(const pt2::Node &node,
                                    const pt2::Graph &graph, Location loc,
                                    SmallVectorImpl<std::string> &names,
                                    SmallVectorImpl<Type> &types) {
  auto addTensor = [&](const std::string &name) -> LogicalResult {
    FailureOr<RankedTensorType> type = valueType(graph, name, loc);
    if (failed(type))
      return failure();
    names.push_back(name);
    types.push_back(*type);
    return success();
  };
  for (const pt2::Argument &out : node.outputs) {
    switch (out.kind) {
    case AK::Tensor:
      if (failed(addTensor(out.name)))
        return failure();
      break;
    case AK::Tensors:
      for (const std::string &name : out.names)
        if (failed(addTensor(name)))
          return failure();
      break;
    case AK::None: // an unused None element of a tuple return
      names.push_back("");
      types.push_back(b.getNoneType());
      break;
    case AK::SymInt:
    case AK::SymFloat:
    case AK::SymBool:
      return emitError(loc) << "node '" << node.name << "' (" << node.target
                            << ") computes the symbolic value '" << out.name
                            << "'; only sym_size.int and integer size arithmetic "
                               "make symbolic values";
    default:
      return emitError(loc) << "node '" << node.name << "' (" << node.target
                            << ") has a non-tensor output ("
                            << import::argumentKindName(out.kind)
                            << "), which is not supported";
    }
  }
  return success();
}

LogicalResult Importer::bindTensorArg(const schema::Argument &arg,
                                      const pt2::Argument *value,
                                      const pt2::Node &node, Scope &scope,
                                      Location loc,
                                      SmallVectorImpl<Value> &operands,
                                      SmallVectorImpl<int32_t> &segments,
                                      SmallVectorImpl<NamedAttribute> &attrs) {
  using K = schema::TypeKind;
  const schema::SchemaType &outer = arg.type;
  bool optional = outer.kind == K::Optional;
  const schema::SchemaType &t = optional ? outer.elems.front() : outer;
  auto mismatch = [&]() {
    return emitError(loc) << "node '" << node.name << "' (" << node.target
                          << "): argument '" << arg.name << "' expects "
                          << outer.str() << ", got "
                          << import::argumentKindName(value->kind);
  };
  auto add = [&](StringRef name) -> LogicalResult {
    FailureOr<Value> v = lookup(scope, name, node, loc);
    if (failed(v))
      return failure();
    operands.push_back(*v);
    return success();
  };
  bool absent = !value || value->kind == AK::None ||
                (value->kind == AK::OptionalTensor && !value->optTensors.empty() &&
                 value->optTensors.front().isNone);
  if (absent && !optional && !arg.defaultValue)
    return emitError(loc) << "node '" << node.name << "' (" << node.target
                          << "): missing tensor argument '" << arg.name << "'";

  if (t.kind == K::Tensor) {
    if (absent) {
      segments.push_back(0);
      return success();
    }
    StringRef name;
    if (value->kind == AK::Tensor)
      name = value->name;
    else if (value->kind == AK::OptionalTensor && !value->optTensors.empty())
      name = value->optTensors.front().name;
    else
      return mismatch();
    segments.push_back(1);
    return add(name);
  }

  // Tensor lists: Tensor[], Tensor?[] (with a presence mask), Tensor[]?.
  bool optionalElems = t.elems.front().kind == K::Optional;
  SmallVector<bool> mask;
  size_t before = operands.size();
  if (!absent) {
    switch (value->kind) {
    case AK::Tensors:
      for (const std::string &name : value->names) {
        if (failed(add(name)))
          return failure();
        mask.push_back(true);
      }
      break;
    case AK::OptionalTensors:
      if (!optionalElems)
        return mismatch();
      for (const pt2::OptionalTensor &o : value->optTensors) {
        mask.push_back(!o.isNone);
        if (!o.isNone && failed(add(o.name)))
          return failure();
      }
      break;
    case AK::Ints:
    case AK::Floats:
    case AK::Bools:
    case AK::Strings:
    case AK::SymInts:
      if (!value->ints.empty() || !value->floats.empty() ||
          !value->bools.empty() || !value->strings.empty() ||
          !value->names.empty())
        return mismatch();
      break; // an empty list written with another key
    default:
      return mismatch();
    }
  }
  segments.push_back(static_cast<int32_t>(operands.size() - before));
  if (optionalElems && !optional)
    attrs.push_back(b.getNamedAttr(arg.name, b.getDenseBoolArrayAttr(mask)));
  return success();
}

LogicalResult Importer::importNode(const pt2::Node &node, Scope &scope) {
  Location loc = nodeLoc(node);
  StringRef target = node.target;
  if (target.starts_with(kHopPrefix))
    return importHop(node, target.drop_front(kHopPrefix.size()), scope, loc);
  if (import::isSymbolicNode(target)) {
    std::string error;
    auto tensor = [&](StringRef name) { return scope.values.lookup(name); };
    if (!import::importSymbolicNode(b, loc, node, tensor, scope.syms, &error))
      return emitError(loc) << "node '" << node.name << "' (" << target << "): " << error;
    for (const pt2::Argument &out : node.outputs)
      if (auto it = scope.syms.find(out.name); it != scope.syms.end() && !it->second.checkOnly)
        scope.symInts[out.name] = it->second.bound;
    return success();
  }
  if (!target.starts_with(kOpsPrefix)) {
    // Size arithmetic (_operator.*, math.*, torch.sym_*) went to
    // importSymbolicNode above; anything else is an unknown call target.
    return emitError(loc) << "node '" << node.name << "' calls '" << target
                          << "', which is not an operator (torch.ops.<namespace>.<op>"
                             ".<overload>), a higher-order op or size arithmetic";
  }
  const schema::FunctionSchema *s = registry.lookupTarget(target.str());
  if (!s)
    return emitError(loc) << "unknown operator '" << target << "' (node '"
                          << node.name << "'): it is not in the operator schema "
                                          "registry";

  // Match inputs to schema arguments: by name, else by position.
  SmallVector<const pt2::Argument *> bound(s->arguments.size(), nullptr);
  size_t next = 0;
  for (const pt2::NamedArgument &in : node.inputs) {
    size_t idx = next;
    if (!in.name.empty()) {
      int found = s->findArgument(in.name);
      if (found < 0)
        return emitError(loc) << "node '" << node.name << "': '" << s->fullName()
                              << "' has no argument named '" << in.name << "'";
      idx = static_cast<size_t>(found);
    }
    if (idx >= bound.size())
      return emitError(loc) << "node '" << node.name << "' passes "
                            << node.inputs.size() << " arguments but '"
                            << s->fullName() << "' takes " << bound.size();
    if (bound[idx])
      return emitError(loc) << "node '" << node.name << "' passes argument '"
                            << s->arguments[idx].name << "' twice";
    bound[idx] = &in.arg;
    next = idx + 1;
  }

  // A Python number passed for a Tensor argument (`x + 1` is add.Tensor with
  // other=1) selects the overload that takes a Scalar there (add.Scalar).
  SmallVector<bool> scalarFor(bound.size(), false);
  for (auto [i, arg] : llvm::enumerate(s->arguments))
    scalarFor[i] = bound[i] && arg.type.kind == schema::TypeKind::Tensor &&
                   isNumber(*bound[i]);
  if (llvm::is_contained(scalarFor, true)) {
    const schema::FunctionSchema *alt = scalarOverload(*s, scalarFor);
    if (!alt) {
      size_t i = llvm::find(scalarFor, true) - scalarFor.begin();
      return emitError(loc) << "node '" << node.name << "' passes a number for "
                            << "tensor argument '" << s->arguments[i].name
                            << "' of '" << s->fullName()
                            << "', and no overload takes a Scalar there";
    }
    s = alt;
  }

  SmallVector<Value> operands, symOperands;
  SmallVector<int32_t> segments;
  SmallVector<NamedAttribute> attrs;
  SmallVector<std::string> symBindings;
  for (auto [i, arg] : llvm::enumerate(s->arguments)) {
    if (arg.type.isTensorLike()) {
      if (failed(bindTensorArg(arg, bound[i], node, scope, loc, operands,
                               segments, attrs)))
        return failure();
      continue;
    }
    std::string error;
    FailureOr<Attribute> attr =
        bound[i] ? import::convertArgument(&ctx, arg, *bound[i],
                                           scope.symInts, &error)
                 : import::defaultArgument(&ctx, arg, &error);
    if (failed(attr))
      return emitError(loc) << "node '" << node.name << "' (" << s->fullName()
                            << "): argument '" << arg.name << "': " << error;
    attrs.push_back(b.getNamedAttr(arg.name, *attr));
    // Symbolic ints in it become operands; the attribute keeps their values
    // at the upper bound.
    if (bound[i] &&
        !import::bindSymbolicArgument(arg.name, *bound[i], llvm::isa<FloatAttr>(*attr),
                                      scope.syms, scope.symInts, symOperands,
                                      symBindings, &error))
      return emitError(loc) << "node '" << node.name << "' (" << s->fullName()
                            << "): " << error;
  }
  operands.append(symOperands.begin(), symOperands.end());
  if (!symBindings.empty()) {
    SmallVector<Attribute> entries;
    for (const std::string &e : symBindings)
      entries.push_back(b.getStringAttr(e));
    attrs.push_back(b.getNamedAttr(exir::kSymArgsAttrName, b.getArrayAttr(entries)));
  }

  SmallVector<std::string> names;
  SmallVector<Type> types;
  if (failed(nodeResults(node, scope.graph, loc, names, types)))
    return failure();
  bool listReturn = s->returns.size() == 1 &&
                    s->returns.front().type.kind == schema::TypeKind::List;
  if (!listReturn && !s->varRets && types.size() != s->returns.size())
    return emitError(loc) << "node '" << node.name << "': '" << s->fullName()
                          << "' returns " << s->returns.size()
                          << " values but the node has " << types.size()
                          << " outputs";

  auto op = b.create<exir::AtenOp>(loc, s->fullName(), types, operands,
                                   segments, attrs);
  // Before any pass sees it: the node's arguments make sense for its
  // operator, and its declared outputs are what the operator computes.
  if (failed(exir::verifySemantics(op)))
    return failure();
  if (std::string scope = repeatedScope(node); !scope.empty())
    op->setAttr("exir.scope", b.getStringAttr(scope));
  for (auto [name, result] : llvm::zip(names, op->getResults()))
    if (!name.empty() && failed(define(scope, name, result, loc)))
      return failure();
  return success();
}

LogicalResult Importer::importSubgraph(const pt2::Graph &sub, Region &region,
                                       SmallVectorImpl<Value> &results) {
  Location loc = fileLoc();
  SmallVector<Type> types;
  SmallVector<Location> locs;
  for (const pt2::Argument &in : sub.inputs) {
    FailureOr<RankedTensorType> t = valueType(sub, in.name, loc);
    if (failed(t))
      return failure();
    types.push_back(*t);
    locs.push_back(namedLoc(in.name));
  }
  OpBuilder::InsertionGuard guard(b);
  Block *block = b.createBlock(&region, {}, types, locs);
  Scope inner{sub, {}};
  inner.symInts = sub.symIntValues;
  for (auto [in, arg] : llvm::zip(sub.inputs, block->getArguments()))
    if (failed(define(inner, in.name, arg, loc)))
      return failure();
  if (failed(importNodes(inner)))
    return failure();
  for (const pt2::Argument &out : sub.outputs) {
    SmallVector<std::string> outNames;
    if (out.kind == AK::Tensor)
      outNames.push_back(out.name);
    else if (out.kind == AK::Tensors)
      outNames.assign(out.names.begin(), out.names.end());
    else
      return emitError(loc) << "a subgraph returns a non-tensor value ("
                            << import::argumentKindName(out.kind) << ")";
    for (const std::string &name : outNames) {
      Value v = inner.values.lookup(name);
      if (!v)
        return emitError(loc) << "a subgraph returns '" << name
                              << "', which it never defines";
      results.push_back(v);
    }
  }
  return success();
}

LogicalResult Importer::importHop(const pt2::Node &node, StringRef hop,
                                  Scope &scope, Location loc) {
  if (import::isControlFlowHop(hop)) {
    import::ControlFlowHooks hooks;
    hooks.lookup = [&](StringRef name) { return lookup(scope, name, node, loc); };
    hooks.importGraph = [&](const pt2::Graph &g, Region &r, SmallVectorImpl<Value> &out) {
      return importSubgraph(g, r, out);
    };
    SmallVector<std::pair<std::string, Value>> defs;
    if (failed(import::importControlFlow(b, loc, node, hop, hooks, defs)))
      return failure();
    for (auto &[name, v] : defs)
      if (failed(define(scope, name, v, loc)))
        return failure();
    return success();
  }
  if (hop != "wrap_with_set_grad_enabled" && hop != "wrap_with_autocast")
    return emitError(loc) << "higher-order op '" << hop << "' (node '"
                          << node.name << "') is not supported yet";
  // The wrapper's subgraph is inlined: its inputs are the arguments after it.
  auto graphIt = llvm::find_if(node.inputs, [](const pt2::NamedArgument &in) {
    return in.arg.kind == AK::Graph && in.arg.graph;
  });
  if (graphIt == node.inputs.end())
    return emitError(loc) << "node '" << node.name << "' (" << hop
                          << ") has no subgraph";
  const pt2::Graph &sub = *graphIt->arg.graph;
  // wrap_with_autocast(device_type, dtype, enabled, cache_enabled, graph, ...):
  // the subgraph holds the ops as traced, without autocast's casts.
  if (hop == "wrap_with_autocast" && node.inputs.size() > 2 &&
      node.inputs[2].arg.kind == AK::Bool && node.inputs[2].arg.b)
    emitWarning(loc) << "node '" << node.name
                     << "': the autocast region is inlined without autocast; "
                        "its ops keep their exported dtypes";
  auto args = llvm::make_range(std::next(graphIt), node.inputs.end());
  if (static_cast<size_t>(llvm::size(args)) != sub.inputs.size())
    return emitError(loc) << "node '" << node.name << "' (" << hop << ") passes "
                          << llvm::size(args) << " values to a subgraph with "
                          << sub.inputs.size() << " inputs";

  Scope inner{sub, {}};
  for (auto [in, param] : llvm::zip(args, sub.inputs)) {
    if (in.arg.kind != AK::Tensor || param.kind != AK::Tensor)
      return emitError(loc) << "node '" << node.name << "' (" << hop
                            << ") passes a non-tensor value ("
                            << import::argumentKindName(in.arg.kind)
                            << ") to its subgraph; not supported yet";
    FailureOr<Value> v = lookup(scope, in.arg.name, node, loc);
    if (failed(v) || failed(define(inner, param.name, *v, loc)))
      return failure();
  }
  if (failed(importNodes(inner)))
    return failure();

  SmallVector<Value> results;
  for (const pt2::Argument &out : sub.outputs) {
    SmallVector<std::string> outNames;
    if (out.kind == AK::Tensor)
      outNames.push_back(out.name);
    else if (out.kind == AK::Tensors)
      outNames.assign(out.names.begin(), out.names.end());
    else
      return emitError(loc) << "the subgraph of node '" << node.name
                            << "' returns a non-tensor value ("
                            << import::argumentKindName(out.kind) << ")";
    for (const std::string &name : outNames) {
      FailureOr<Value> v = lookup(inner, name, node, loc);
      if (failed(v))
        return failure();
      results.push_back(*v);
    }
  }
  SmallVector<std::string> names;
  for (const pt2::Argument &out : node.outputs) {
    if (out.kind == AK::Tensor)
      names.push_back(out.name);
    else if (out.kind == AK::Tensors)
      names.append(out.names.begin(), out.names.end());
    else
      return emitError(loc) << "node '" << node.name << "' (" << hop
                            << ") has a non-tensor output ("
                            << import::argumentKindName(out.kind) << ")";
  }
  if (names.size() != results.size())
    return emitError(loc) << "node '" << node.name << "' (" << hop << ") has "
                          << names.size() << " outputs but its subgraph returns "
                          << results.size();
  for (auto [name, v] : llvm::zip(names, results))
    if (failed(define(scope, name, v, loc)))
      return failure();
  return success();
}

} // namespace

OwningOpRef<ModuleOp> importPrograms(MLIRContext &context,
                                     ArrayRef<MethodSource> sources,
                                     std::function<void(size_t, size_t)> progress) {
  context.loadDialect<exir::ExirDialect, func::FuncDialect>();
  Location loc = sources.empty()
                     ? UnknownLoc::get(&context)
                     : Location(FileLineColLoc::get(
                           &context, sources.front().program.path, 0, 0));
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  module->getOperation()->setAttr(
      exir::ExirDialect::kVersionAttrName,
      StringAttr::get(&context, std::to_string(exir::kIrVersionMajor) + "." +
                                    std::to_string(exir::kIrVersionMinor)));
  Importer importer(context, *module);
  importer.progress = std::move(progress);
  for (const MethodSource &src : sources)
    importer.nodesTotal += src.program.graph.nodes.size();
  // Each method is checked even when an earlier one failed.
  bool ok = true;
  for (const MethodSource &src : sources)
    ok &= succeeded(importer.importMethod(src));
  if (!ok)
    return nullptr;
  importer.createWeights();
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

} // namespace ptec
