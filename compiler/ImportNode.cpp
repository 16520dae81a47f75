//===- ImportNode.cpp - graph nodes to exir ops ----------------------------===//
//
// The importer's node half: each node's schema, its tensor operands and
// non-tensor attributes (schema defaults filled in, symbolic ints bound),
// its results; symbolic-size nodes; higher-order ops (wrappers inlined,
// cond / while_loop as region ops).
//
//===----------------------------------------------------------------------===//

#include "compiler/Importer.h"
#include "dialects/exir/schema/Unsupported.h"

using namespace mlir;
namespace pt2 = ptec::pt2;
namespace schema = ptec::schema;
namespace exir = ptec::exir;
using AK = pt2::Argument::Kind;

namespace ptec::import_detail {

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
  if (target == "torch.ops.aten.item.default" ||
      target == "torch.ops.aten._local_scalar_dense.default")
    return importItem(node, scope, loc);
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
  if (isPrintTarget(target))
    return dropPrint(node, loc);
  if (!target.starts_with(kOpsPrefix)) {
    // Size arithmetic (_operator.*, math.*, torch.sym_*) went to
    // importSymbolicNode above; anything else is an unknown call target.
    return emitError(loc) << "node '" << node.name << "' calls '" << target
                          << "', which is not an operator (torch.ops.<namespace>.<op>"
                             ".<overload>), a higher-order op or size arithmetic";
  }
  const schema::FunctionSchema *s = registry.lookupTarget(target.str());
  if (!s) {
    std::string opName = schema::operatorNameOfTarget(target);
    std::string why = schema::unsupportedReason(opName);
    if (!why.empty())
      return emitError(loc) << "node '" << node.name << "': '" << opName
                            << "' is not supported: " << why;
    return emitError(loc) << "unknown operator '" << target << "' (node '" << node.name
                          << "'): ptec does not know it (a custom operator, or one newer "
                             "than this ptec)";
  }

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

  StringAttr &opName = opNames[s];
  if (!opName)
    opName = b.getStringAttr(s->fullName());
  auto op = b.create<exir::AtenOp>(loc, opName, types, operands, segments, attrs);
  // Before any pass sees it: the node's arguments make sense for its
  // operator, and its declared outputs are what the operator computes.
  if (failed(exir::verifySemantics(op)))
    return failure();
  if (std::string scope = repeatedScope(node); !scope.empty())
    op->setAttr("exir.scope", b.getStringAttr(scope));
  // A symbolic start or index with results whose exported sizes are all
  // concrete (x[u0:u0 + 8]): the shapes are static, only the data moves.
  if (!symBindings.empty() && staticResults(node, scope.graph))
    op->setAttr(exir::kStaticShapeAttrName, b.getUnitAttr());
  for (auto [name, result] : llvm::zip(names, op->getResults()))
    if (!name.empty() && failed(define(scope, name, result, loc)))
      return failure();
  return success();
}

bool Importer::staticResults(const pt2::Node &node, const pt2::Graph &graph) {
  bool all = true;
  for (const pt2::Argument &out : node.outputs)
    forEachName(out, [&](const std::string &name) {
      auto it = graph.tensorValues.find(name);
      if (it == graph.tensorValues.end()) {
        all = false;
        return;
      }
      for (const std::string &text : it->second.symSizes) {
        int64_t v = 0;
        bool symbolic = true;
        std::string why;
        if (!text.empty() && (!shapes->upperBound(text, v, symbolic, &why) || symbolic))
          all = false;
      }
    });
  return all;
}

LogicalResult Importer::importItem(const pt2::Node &node, Scope &scope, Location loc) {
  auto error = [&]() {
    return emitError(loc) << "node '" << node.name << "' (" << node.target << "): ";
  };
  if (node.inputs.size() != 1 || node.inputs[0].arg.kind != AK::Tensor ||
      node.outputs.size() != 1)
    return error() << "expected one tensor in and one value out";
  const pt2::Argument &out = node.outputs[0];
  if (out.kind != AK::SymInt || out.name.empty())
    return error() << "reads a " << import::argumentKindName(out.kind)
                   << "; only integer values (symbolic ints) read from tensors are supported";
  FailureOr<Value> x = lookup(scope, node.inputs[0].arg.name, node, loc);
  if (failed(x))
    return failure();
  auto type = llvm::dyn_cast<RankedTensorType>(x->getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() != 1 ||
      !type.getElementType().isSignlessInteger() || type.getElementType().isInteger(1))
    return error() << "reads '" << node.inputs[0].arg.name
                   << "', which is not a one-element integer tensor";
  // The value is data-dependent (an unbacked symbol, u0); sizes and
  // attributes use its upper bound, which torch._check calls give
  // (range_constraints). Without one there is nothing to plan memory by.
  auto expr = scope.graph.symIntExprs.find(out.name);
  if (expr == scope.graph.symIntExprs.end())
    return error() << "its result '" << out.name << "' has no entry in sym_int_values";
  int64_t bound = 0;
  bool symbolic = false;
  std::string why;
  if (!shapes->upperBound(expr->second, bound, symbolic, &why))
    return error() << "the value it reads has no known upper bound (" << why
                   << "); bound it with torch._check(value <= N) before use";
  Value v = b.create<exir::SymItemOp>(loc, b.getI64Type(), *x);
  scope.syms[out.name] = import::SymValue{v, bound};
  scope.symInts[out.name] = bound;
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
    if (!import::appendTensorNames(out, outNames))
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
  if (hop == "auto_functionalized" || hop == "auto_functionalized_v2")
    return importAutoFunctionalized(node, hop.ends_with("_v2"), scope, loc);
  if (hop == "with_effects")
    return importWithEffects(node, scope, loc);
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
    if (!import::appendTensorNames(out, outNames))
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
    if (!import::appendTensorNames(out, names))
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

} // namespace ptec::import_detail
