//===- ImportWrappers.cpp - auto_functionalized and with_effects unwrapped -===//
//
// A graph after run_decompositions() wraps an op that writes its arguments
// and has no functional form (custom ops, in practice) in
//
//   auto_functionalized(op, **kwargs)          -> (op's results..., new args...)
//   auto_functionalized_v2(op, **kwargs, _all_bases=[b...], _<arg>_base_index,
//                          view info per written arg) -> (op's results..., new bases...)
//
// and an op with a side effect in
//
//   with_effects(token, op, *args) -> (token, op's results...)
//
// with token inputs and outputs threading the order. The importer unwraps
// both back into the op itself, in the form the training IR writes:
//
//   auto_functionalized: clone each written argument, call the op on the
//   clones (an exir.aten that writes, as its schema says), and the wrapper's
//   new values are the clones. v2 clones the bases instead and regenerates
//   each written argument as a view of its cloned base (alias, slice or
//   as_strided, exactly as torch's ViewInfo does), so the op writes through
//   the view into the clone. exir-functionalize then makes all of it
//   functional like any other in-place write.
//
//   with_effects: the op is imported as a plain node; tokens carry no data,
//   so token inputs and outputs are dropped from the method's signature
//   (the importer checks that they only thread with_effects nodes).
//
// aten::_print has no ExecuTorch kernel and no effect on any value; it is
// dropped with a warning, wrapped or not.
//
//===----------------------------------------------------------------------===//

#include "compiler/Importer.h"

namespace ptec::import_detail {

namespace {

/// The wrapped operator: the first input, an `as_operator` argument.
const pt2::NamedArgument *wrappedOperator(const pt2::Node &node) {
  for (const pt2::NamedArgument &in : node.inputs)
    if (in.arg.kind == AK::Operator)
      return &in;
  return nullptr;
}

pt2::Argument tensorArg(const std::string &name) {
  pt2::Argument a;
  a.kind = AK::Tensor;
  a.name = name;
  return a;
}

pt2::NamedArgument named(const std::string &name, pt2::Argument arg) {
  pt2::NamedArgument n;
  n.name = name;
  n.arg = std::move(arg);
  n.kind = 2;
  return n;
}

/// A plain integer argument (an int, or a symbolic int with a concrete value).
std::optional<int64_t> plainInt(const pt2::Argument &a) {
  if (a.kind == AK::Int || (a.kind == AK::SymInt && a.name.empty()))
    return a.i;
  return std::nullopt;
}

std::optional<SmallVector<int64_t>> plainInts(const pt2::Argument &a) {
  if (a.kind == AK::Ints)
    return SmallVector<int64_t>(a.ints.begin(), a.ints.end());
  if (a.kind == AK::SymInts && llvm::none_of(a.symIsName, [](bool n) { return n; }))
    return SmallVector<int64_t>(a.ints.begin(), a.ints.end());
  return std::nullopt;
}

} // namespace

bool isPrintTarget(StringRef target) {
  return target == "torch.ops.aten._print.default";
}

LogicalResult Importer::dropPrint(const pt2::Node &node, Location loc) {
  emitWarning(loc) << "node '" << node.name
                   << "' (aten::_print) is dropped: ExecuTorch programs have no "
                      "print, and it computes nothing";
  return success();
}

LogicalResult Importer::importWithEffects(const pt2::Node &node, Scope &scope,
                                          Location loc) {
  auto error = [&]() {
    return emitError(loc) << "node '" << node.name << "' (with_effects): ";
  };
  if (node.inputs.size() < 2 || node.inputs[0].arg.kind != AK::Tensor ||
      node.inputs[1].arg.kind != AK::Operator)
    return error() << "expected (token, operator, arguments...)";
  if (!scope.tokens.contains(node.inputs[0].arg.name))
    return error() << "its first input '" << node.inputs[0].arg.name
                   << "' is not an effect token";
  if (node.outputs.empty() || node.outputs[0].kind != AK::Tensor)
    return error() << "its first output is not the new effect token";
  scope.tokens.insert(node.outputs[0].name);

  pt2::Node inner;
  inner.target = node.inputs[1].arg.name;
  inner.name = node.name;
  inner.metadata = node.metadata;
  inner.inputs.assign(node.inputs.begin() + 2, node.inputs.end());
  inner.outputs.assign(node.outputs.begin() + 1, node.outputs.end());
  if (isPrintTarget(inner.target))
    return dropPrint(node, loc);
  if (StringRef(inner.target).starts_with(kHopPrefix))
    return error() << "it wraps the higher-order op '" << inner.target
                   << "', which is not supported";
  return importNode(inner, scope);
}

LogicalResult Importer::importAutoFunctionalized(const pt2::Node &node, bool v2,
                                                 Scope &scope, Location loc) {
  StringRef hop = v2 ? "auto_functionalized_v2" : "auto_functionalized";
  auto error = [&]() {
    return emitError(loc) << "node '" << node.name << "' (" << hop << "): ";
  };
  const pt2::NamedArgument *opArg = wrappedOperator(node);
  if (!opArg)
    return error() << "it names no operator to call";
  const schema::FunctionSchema *s = registry.lookupTarget(opArg->arg.name);
  if (!s)
    return error() << "it wraps '" << opArg->arg.name
                   << "', which ptec does not know (custom operators have no kernel in "
                      "ptec)";

  // The wrapper's keyword arguments by name.
  llvm::StringMap<const pt2::Argument *> kwargs;
  for (const pt2::NamedArgument &in : node.inputs)
    if (&in != opArg && !in.name.empty())
      kwargs[in.name] = &in.arg;
  auto take = [&](StringRef name) -> const pt2::Argument * {
    auto it = kwargs.find(name);
    if (it == kwargs.end())
      return nullptr;
    const pt2::Argument *a = it->second;
    kwargs.erase(it);
    return a;
  };

  // The op's results come first in the wrapper's outputs: one entry for an
  // op returning nothing (None), else one per return.
  size_t opResults = std::max<size_t>(1, s->returns.size());
  SmallVector<Value> newValues; // the wrapper's outputs after the op's
  pt2::Node call;
  call.target = opArg->arg.name;
  call.name = node.name;
  call.metadata = node.metadata;

  // A value the importer makes (clone, view) under a name no graph uses.
  unsigned made = 0;
  auto make = [&](StringRef target, std::vector<pt2::NamedArgument> inputs,
                  RankedTensorType type) -> FailureOr<std::string> {
    std::string name = node.name + "#" + std::to_string(made++);
    synthesizedTypes[name] = type;
    pt2::Node n;
    n.target = target.str();
    n.name = node.name;
    n.metadata = node.metadata;
    n.inputs = std::move(inputs);
    n.outputs.push_back(tensorArg(name));
    if (failed(importNode(n, scope)))
      return failure();
    return name;
  };
  auto typeOf = [&](StringRef name) -> FailureOr<RankedTensorType> {
    FailureOr<Value> v = lookup(scope, name, node, loc);
    if (failed(v))
      return failure();
    auto t = llvm::dyn_cast<RankedTensorType>(v->getType());
    if (!t)
      return error() << "'" << name << "' is not a tensor";
    return t;
  };
  auto clone = [&](StringRef name) -> FailureOr<std::string> {
    FailureOr<RankedTensorType> t = typeOf(name);
    if (failed(t))
      return failure();
    return make("torch.ops.aten.clone.default",
                {named("self", tensorArg(name.str()))}, *t);
  };

  // v2: clone every base; written arguments are regenerated from the clones.
  SmallVector<std::string> bases;
  if (v2) {
    const pt2::Argument *all = take("_all_bases");
    if (!all || all->kind != AK::Tensors)
      return error() << "it has no _all_bases list (an out= operator's form is "
                        "not supported)";
    for (const std::string &b : all->names) {
      FailureOr<std::string> c = clone(b);
      if (failed(c))
        return failure();
      bases.push_back(*c);
    }
  }
  // One written argument (or list element) as a view of its cloned base.
  auto regenerate = [&](const std::string &prefix) -> FailureOr<pt2::Argument> {
    const pt2::Argument *index = take(prefix + "_base_index");
    if (!index)
      return error() << "no '" << prefix << "_base_index' for a written argument";
    if (index->kind == AK::None)
      return pt2::Argument{};
    std::optional<int64_t> i = plainInt(*index);
    if (!i || *i < 0 || static_cast<size_t>(*i) >= bases.size())
      return error() << "'" << prefix << "_base_index' is not an index into _all_bases";
    const std::string &base = bases[*i];
    FailureOr<RankedTensorType> bt = typeOf(base);
    if (failed(bt))
      return failure();
    if (take(prefix + "_alias")) {
      FailureOr<std::string> v =
          make("torch.ops.aten.alias.default", {named("self", tensorArg(base))}, *bt);
      if (failed(v))
        return failure();
      return tensorArg(*v);
    }
    if (const pt2::Argument *offset = take(prefix + "_storage_offset")) {
      const pt2::Argument *size = take(prefix + "_size"), *stride = take(prefix + "_stride");
      std::optional<SmallVector<int64_t>> sizes = size ? plainInts(*size) : std::nullopt;
      if (!sizes || !stride || !plainInts(*stride) || !plainInt(*offset))
        return error() << "the as_strided view of '" << prefix
                       << "' has symbolic or missing sizes; not supported";
      auto t = RankedTensorType::get(*sizes, bt->getElementType());
      FailureOr<std::string> v = make(
          "torch.ops.aten.as_strided.default",
          {named("self", tensorArg(base)), named("size", *size),
           named("stride", *stride), named("storage_offset", *offset)},
          t);
      if (failed(v))
        return failure();
      return tensorArg(*v);
    }
    if (const pt2::Argument *dimArg = take(prefix + "_slice_dim")) {
      const pt2::Argument *start = take(prefix + "_slice_start"),
                          *end = take(prefix + "_slice_end");
      std::optional<int64_t> dim = plainInt(*dimArg);
      int64_t rank = bt->getRank();
      if (!dim || !start || !end || (start->kind != AK::None && !plainInt(*start)) ||
          (end->kind != AK::None && !plainInt(*end)))
        return error() << "the slice view of '" << prefix
                       << "' has symbolic or missing bounds; not supported";
      int64_t d = *dim < 0 ? *dim + rank : *dim;
      if (d < 0 || d >= rank)
        return error() << "'" << prefix << "_slice_dim' is out of range";
      int64_t n = bt->getDimSize(d);
      auto norm = [&](const pt2::Argument &a, int64_t dflt) {
        int64_t v = a.kind == AK::None ? dflt : *plainInt(a);
        if (v < 0)
          v += n;
        return std::clamp<int64_t>(v, 0, n);
      };
      int64_t lo = norm(*start, 0), hi = norm(*end, n);
      SmallVector<int64_t> shape(bt->getShape());
      shape[d] = std::max<int64_t>(0, hi - lo);
      FailureOr<std::string> v = make(
          "torch.ops.aten.slice.Tensor",
          {named("self", tensorArg(base)), named("dim", *dimArg), named("start", *start),
           named("end", *end)},
          RankedTensorType::get(shape, bt->getElementType()));
      if (failed(v))
        return failure();
      return tensorArg(*v);
    }
    return tensorArg(base); // the base itself
  };

  for (const schema::Argument &arg : s->arguments) {
    if (!arg.isWrite()) {
      if (const pt2::Argument *a = take(arg.name))
        call.inputs.push_back(named(arg.name, *a));
      continue;
    }
    bool list = arg.type.kind == schema::TypeKind::List ||
                (arg.type.kind == schema::TypeKind::Optional &&
                 arg.type.elems.front().kind == schema::TypeKind::List);
    if (!v2) {
      // v1: the argument itself, cloned; the clone is the new value.
      const pt2::Argument *a = take(arg.name);
      if (!a || a->kind == AK::None) {
        call.inputs.push_back(named(arg.name, pt2::Argument{}));
        newValues.push_back(Value());
        continue;
      }
      if (a->kind != AK::Tensor)
        return error() << "written argument '" << arg.name
                       << "' is not a tensor (lists are not supported in this form)";
      FailureOr<std::string> c = clone(a->name);
      if (failed(c))
        return failure();
      call.inputs.push_back(named(arg.name, tensorArg(*c)));
      newValues.push_back(scope.values.lookup(*c));
      continue;
    }
    if (!list) {
      FailureOr<pt2::Argument> v = regenerate("_" + arg.name);
      if (failed(v))
        return failure();
      call.inputs.push_back(named(arg.name, *v));
      continue;
    }
    const pt2::Argument *length = take("_" + arg.name + "_length");
    if (!length)
      return error() << "no '_" << arg.name << "_length' for a written list";
    if (length->kind == AK::None) {
      call.inputs.push_back(named(arg.name, pt2::Argument{}));
      continue;
    }
    std::optional<int64_t> count = plainInt(*length);
    if (!count || *count < 0)
      return error() << "'_" << arg.name << "_length' is not a length";
    pt2::Argument elems;
    elems.kind = AK::Tensors;
    for (int64_t k = 0; k < *count; ++k) {
      FailureOr<pt2::Argument> v = regenerate("_" + arg.name + "_" + std::to_string(k));
      if (failed(v))
        return failure();
      if (v->kind != AK::Tensor)
        return error() << "element " << k << " of written list '" << arg.name
                       << "' is None; not supported";
      elems.names.push_back(v->name);
    }
    call.inputs.push_back(named(arg.name, elems));
  }
  if (v2)
    for (const std::string &b : bases)
      newValues.push_back(scope.values.lookup(b));
  if (!kwargs.empty())
    return error() << "argument '" << kwargs.begin()->first() << "' is neither an argument of '"
                   << s->fullName() << "' nor view information";
  if (node.outputs.size() != opResults + newValues.size())
    return error() << "it has " << node.outputs.size() << " outputs; '" << s->fullName()
                   << "' gives " << opResults << " and " << newValues.size()
                   << " written value(s) follow";

  // The op's own results. torch never wraps an op that returns an alias of
  // an argument, but a file may: such a result left unused (None) still
  // needs a type, the written argument's.
  for (auto [j, ret] : llvm::enumerate(s->returns)) {
    const pt2::Argument &out = node.outputs[j];
    if (out.kind != AK::None) {
      call.outputs.push_back(out);
      continue;
    }
    const schema::AliasInfo *alias = ret.alias();
    const pt2::NamedArgument *same = nullptr;
    for (const schema::Argument &arg : s->arguments)
      if (alias && arg.alias() && *arg.alias() == *alias)
        for (const pt2::NamedArgument &in : call.inputs)
          if (in.name == arg.name)
            same = &in;
    if (!same || same->arg.kind != AK::Tensor)
      return error() << "result " << j << " of '" << s->fullName()
                     << "' is unused but has no type";
    std::string name = node.name + "#" + std::to_string(made++);
    FailureOr<RankedTensorType> t = typeOf(same->arg.name);
    if (failed(t))
      return failure();
    synthesizedTypes[name] = *t;
    call.outputs.push_back(tensorArg(name));
  }

  // The op itself, writing the clones (or views of them) in place.
  if (failed(importNode(call, scope)))
    return failure();
  for (auto [out, value] : llvm::zip(ArrayRef(node.outputs).drop_front(opResults), newValues)) {
    if (out.kind == AK::None)
      continue;
    if (out.kind != AK::Tensor || !value)
      return error() << "a written value's output is not a tensor";
    if (failed(define(scope, out.name, value, loc)))
      return failure();
  }
  return success();
}

} // namespace ptec::import_detail
