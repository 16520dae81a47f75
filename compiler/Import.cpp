//===- Import.cpp - torch.export programs to exir -------------------------===//
//
// Each ExportedProgram becomes one func.func; each graph node one exir.aten
// op checked against the schema registry, with every omitted argument filled
// from its schema default. Lifted parameters, buffers and constants become
// module-level exir.weight ops (one per fqn, shared by all methods) whose
// bytes are dense_resource blobs.
//
//===----------------------------------------------------------------------===//


#include "compiler/Importer.h"

#include "serde/io/MappedFile.h"

using namespace mlir;
namespace pt2 = ptec::pt2;
namespace schema = ptec::schema;
namespace exir = ptec::exir;
using AK = pt2::Argument::Kind;

namespace ptec {

void registerImportDialects(DialectRegistry &registry) {
  registry.insert<exir::ExirDialect, func::FuncDialect>();
}

namespace import_detail {

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
    std::shared_ptr<const pt2::ByteStorage> keep = storage;
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

FailureOr<RankedTensorType> Importer::tensorType(const pt2::TensorMeta &meta,
                                                 const llvm::Twine &what, Location loc,
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
  if (auto made = synthesizedTypes.find(name); made != synthesizedTypes.end())
    return made->second;
  auto it = graph.tensorValues.find(name.str());
  if (it == graph.tensorValues.end())
    return emitError(loc) << "tensor '" << name
                          << "' has no entry in the graph's tensor_values";
  return tensorType(it->second, "tensor '" + name + "'", loc);
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
  if (prev.tensor->storage != tensor->storage) {
    // Two archives' copies of one weight: compared whole, then their pages
    // (when mapped) given back, so a shared model is not made resident here.
    pt2::ByteView a = prev.tensor->bytes(), b2 = tensor->bytes();
    bool same = a == b2;
    io::releasePages(a.data(), a.size());
    io::releasePages(b2.data(), b2.size());
    if (!same)
      return differ("bytes");
  }
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
  pathAttr = StringAttr::get(&ctx, program->path);
  methodAttr = StringAttr::get(&ctx, methodName);
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
  llvm::StringSet<> userInputs, buffers, tokens;
  SmallVector<const pt2::InputSpec *> argSpecs; // the inputs that are arguments
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
      // Order only, no data: not an argument of the method.
      if (arg.kind != AK::Tensor || arg.name.empty())
        return emitError(loc) << "effect token input has no name";
      tokens.insert(arg.name);
      continue;
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
    argSpecs.push_back(&spec);
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
    case pt2::OutputKind::Token:
      continue; // checked below: it must be a token the graph threads
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
  scope.tokens = std::move(tokens);
  for (auto [i, input] : llvm::enumerate(argSpecs)) {
    entry->getArgument(i).setLoc(argLocs[i]);
    if (failed(define(scope, input->arg.name, entry->getArgument(i), argLocs[i])))
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
    if (program->outputSpecs[i].kind == pt2::OutputKind::Token) {
      if (out.kind != AK::Tensor || !scope.tokens.contains(out.name))
        return emitError(loc) << "output " << i << " is a token output but '"
                              << out.name << "' is not an effect token";
      continue;
    }
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
  if (repeatedModules.empty())
    return "";
  auto it = node.metadata.find("nn_module_stack");
  if (it == node.metadata.end())
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

} // namespace import_detail

using import_detail::Importer;

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
