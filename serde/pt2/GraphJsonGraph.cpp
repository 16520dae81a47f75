// Graph JSON, graph level: nodes, their arguments in every Argument union
// form, tensor metadata and subgraphs, across the schema versions
// SchemaHistory.h describes. The signature, range constraints and the
// document around the graph are read in GraphJson.cpp.
#include "serde/pt2/GraphJsonInternal.h"

#include "serde/pt2/Pt2Error.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace ptec::pt2 {
namespace graphjson {
namespace {

std::string deviceString(const json &j, const Where &w) {
  if (j.isString())  // tolerated: some writers flatten devices
    return std::string(j.str());
  expectObject(j, w);
  std::string type = stringField(j, "type", w, "cpu");
  const json *index = opt(j, "index");
  if (index)
    type += ":" + std::to_string(getInt(*index, w["index"]));
  return type;
}

// "Symbol('s0', integer=True, positive=True)" -> "s0"; other exprs as written.
std::string symbolText(const std::string &expr) {
  const std::string head = "Symbol('";
  if (expr.compare(0, head.size(), head) == 0) {
    size_t end = expr.find('\'', head.size());
    if (end != std::string::npos)
      return expr.substr(head.size(), end - head.size());
  }
  return expr.size() > 80 ? expr.substr(0, 77) + "..." : expr;
}

// A SymInt union: {"as_int": n} or {"as_expr": {...}} (a plain string
// before schema 3). Returns nullopt and sets `expr` for a symbolic value.
std::optional<int64_t> symInt(const json &j, const Where &w, const SchemaForm &form,
                              std::string &expr, std::string *raw = nullptr) {
  if (j.isInteger())  // TensorMeta.storage_offset before schema 5; tolerated elsewhere
    return getInt(j, w);
  UnionValue u = unionOf(j, w, form.unions);
  if (u.key == "as_int")
    return getInt(*u.value, u.payload(w));
  if (u.key == "as_expr" || (form.oldSpellings && u.key == "as_symbol")) {
    expr = "?";
    std::string text;
    if (u.value->isObject()) {
      if (const json *e = opt(*u.value, "expr_str"); e && e->isString())
        text = e->str();
    } else if (u.value->isString()) {
      text = u.value->str();
    }
    if (!text.empty())
      expr = symbolText(text);
    if (raw)
      *raw = text;
    return std::nullopt;
  }
  failAt(w, "unknown SymInt kind '" + std::string(u.key) + "'");
}

DType dtypeFrom(const json &j, const Where &w, const SchemaForm &form) {
  int64_t code = getInt(j, w);
  if (!isKnownDType(code))
    failAt(w, unknownDTypeMessage(code, form));
  return static_cast<DType>(code);
}

// Real HOP nesting is a handful of levels; this only stops hostile recursion.
constexpr int kMaxGraphDepth = 64;

}  // namespace

// Returns false and fills `use` when some size/stride/offset is symbolic.
bool tensorMeta(const json &j, const Where &w, const SchemaForm &form, TensorMeta &meta,
                SymbolicUse &use, bool symbolicSizesRejected) {
  expectObject(j, w);
  meta.dtype = dtypeFrom(req(j, "dtype", w), w["dtype"], form);
  bool isStatic = true;
  auto dims = [&](const char *key, const char *word, std::vector<int64_t> &out) {
    const json *arr = opt(j, key);
    if (!arr)
      return;
    Where wk = w[key];
    expectArray(*arr, wk);
    out.reserve(arr->size());
    bool isSizes = std::strcmp(key, "sizes") == 0;
    for (size_t d = 0; d < arr->size(); ++d) {
      std::string expr, raw;
      std::optional<int64_t> v = symInt((*arr)[d], wk[d], form, expr, &raw);
      if (v && *v < 0 && isSizes)
        failAt(wk[d], "dimension " + std::to_string(d) + " has size " + std::to_string(*v) +
                          "; sizes are never negative");
      // Symbolic sizes are kept (dynamic shapes; the importer bounds them);
      // symbolic strides of a dense tensor follow from its sizes.
      if (!v && isSizes) {
        if (raw.empty())
          failAt(wk[d], "dimension " + std::to_string(d) + " is symbolic but has no expression");
        meta.symSizes.resize(arr->size());
        meta.symSizes[d] = raw;
        if (symbolicSizesRejected && isStatic) {
          isStatic = false;
          use.what = std::string(word) + " " + std::to_string(d);
          use.expr = expr;
        }
      }
      out.push_back(v.value_or(-1));
    }
  };
  dims("sizes", "dimension", meta.sizes);
  dims("strides", "stride", meta.strides);
  if (const json *off = opt(j, "storage_offset")) {
    std::string expr;
    std::optional<int64_t> v = symInt(*off, w["storage_offset"], form, expr);
    if (!v && isStatic) {
      isStatic = false;
      use.what = "storage offset";
      use.expr = expr;
    }
    meta.storageOffset = v.value_or(0);
  }
  meta.requiresGrad = boolField(j, "requires_grad", w, false);
  if (const json *dev = opt(j, "device"))
    meta.device = deviceString(*dev, w["device"]);
  meta.layout = static_cast<int>(intField(j, "layout", w, 7));
  return isStatic;
}

namespace {

// Sym*Argument: {"as_name": s} or {"as_int"/"as_float"/"as_bool": v}.
void symScalar(const json &j, const Where &w, const char *valueKey, const SchemaForm &form,
               Argument &a) {
  UnionValue u = unionOf(j, w, form.unions);
  Where wv = u.payload(w);
  if (u.key == "as_name") {
    a.name = getString(*u.value, wv);
    return;
  }
  if (u.key != valueKey)
    failAt(w, "unknown symbolic value kind '" + std::string(u.key) + "'");
  if (a.kind == Argument::Kind::SymInt)
    a.i = getInt(*u.value, wv);
  else if (a.kind == Argument::Kind::SymFloat)
    a.f = getFloat(*u.value, wv);
  else
    a.b = getBool(*u.value, wv);
}

}  // namespace

std::string tensorName(const json &j, const Where &w) {
  expectObject(j, w);
  return reqString(j, "name", w);
}

namespace {

OptionalTensor optionalTensor(const json &j, const Where &w, const SchemaForm &form) {
  UnionValue u = unionOf(j, w, form.unions);
  Where wv = u.payload(w);
  OptionalTensor t;
  if (u.key == "as_tensor") {
    t.isNone = false;
    // Before schema 8 the payload could be the bare name instead of a TensorArgument.
    if (form.optionalTensorMayBeName && u.value->isString())
      t.name = u.value->str();
    else
      t.name = tensorName(*u.value, wv);
  } else if (u.key != "as_none") {
    failAt(w, "unknown optional tensor kind '" + std::string(u.key) + "'");
  }
  return t;
}

/// A reader of one row of a list of lists: an array whose items `get` reads.
template <typename T, typename Get> auto rowsOf(Get get) {
  return [get](const json &x, const Where &wx) {
    expectArray(x, wx);
    std::vector<T> row;
    for (size_t k = 0; k < x.size(); ++k)
      row.push_back(get(x[k], wx[k]));
    return row;
  };
}

}  // namespace

Argument parseArgument(const json &j, const Where &w, ParseState &st) {
  using K = Argument::Kind;
  Argument a;
  UnionValue u = unionOf(j, w, st.form.unions);
  std::string_view key = u.key;
  const json &v = *u.value;
  Where wv = u.payload(w);
  auto eachOf = [&](auto &&fn) {
    expectArray(v, wv);
    for (size_t k = 0; k < v.size(); ++k)
      fn(v[k], wv[k]);
  };
  // A payload of one value that `get` reads into `field`.
  auto one = [&](K kind, auto &field, auto get) {
    a.kind = kind;
    field = get(v, wv);
  };
  // A list payload: `get` reads each item, appended to `items`.
  auto list = [&](K kind, auto &items, auto get) {
    a.kind = kind;
    eachOf([&](const json &x, const Where &wx) { items.emplace_back(get(x, wx)); });
  };
  auto optTensor = [&](const json &x, const Where &wx) { return optionalTensor(x, wx, st.form); };
  auto nestedRow = rowsOf<std::string>(tensorName);
  // as_none's payload is `true` since 8.2, `[]` before: it carries nothing.
  if (key == "as_none") a.kind = K::None;
  else if (key == "as_tensor") one(K::Tensor, a.name, tensorName);
  else if (key == "as_tensors") list(K::Tensors, a.names, tensorName);
  else if (key == "as_int") one(K::Int, a.i, getInt);
  else if (key == "as_ints") list(K::Ints, a.ints, getInt);
  else if (key == "as_float") one(K::Float, a.f, getFloat);
  else if (key == "as_floats") list(K::Floats, a.floats, getFloat);
  else if (key == "as_string") one(K::String, a.s, getString);
  else if (key == "as_strings") list(K::Strings, a.strings, getString);
  else if (key == "as_bool") one(K::Bool, a.b, getBool);
  else if (key == "as_bools") list(K::Bools, a.bools, getBool);
  else if (key == "as_scalar_type") one(K::ScalarType, a.i, getInt);
  else if (key == "as_memory_format") one(K::MemoryFormat, a.i, getInt);
  else if (key == "as_layout") one(K::Layout, a.i, getInt);
  else if (key == "as_operator") one(K::Operator, a.name, getString);
  else if (key == "as_int_lists") list(K::IntLists, a.intLists, rowsOf<int64_t>(getInt));
  else if (key == "as_float_lists") list(K::FloatLists, a.floatLists, rowsOf<double>(getFloat));
  else if (key == "as_nested_tensors") list(K::NestedTensors, a.nestedNames, nestedRow);
  else if (key == "as_device") one(K::Device, a.device, deviceString);
  else if (key == "as_optional_tensors") list(K::OptionalTensors, a.optTensors, optTensor);
  else if (key == "as_token") one(K::Tensor, a.name, tensorName); // a tensor at run time
  else if (key == "as_sym_int" || key == "as_sym_float" || key == "as_sym_bool") {
    a.kind = key == "as_sym_int" ? K::SymInt : key == "as_sym_float" ? K::SymFloat : K::SymBool;
    symScalar(v, wv, key == "as_sym_int" ? "as_int" : key == "as_sym_float" ? "as_float" : "as_bool",
              st.form, a);
  } else if (key == "as_sym_ints" || key == "as_sym_floats" || key == "as_sym_bools") {
    K item = key == "as_sym_ints" ? K::SymInt : key == "as_sym_floats" ? K::SymFloat : K::SymBool;
    a.kind = item == K::SymInt ? K::SymInts : item == K::SymFloat ? K::SymFloats : K::SymBools;
    eachOf([&](const json &x, const Where &wx) {
      Argument e;
      e.kind = item;
      symScalar(x, wx, item == K::SymInt ? "as_int" : item == K::SymFloat ? "as_float" : "as_bool",
                st.form, e);
      a.names.push_back(e.name);
      a.symIsName.push_back(!e.name.empty());
      if (item == K::SymInt)
        a.ints.push_back(e.i);
      else if (item == K::SymFloat)
        a.floats.push_back(e.f);
      else
        a.bools.push_back(e.b);
    });
  } else if (key == "as_optional_tensor") {
    a.kind = K::OptionalTensor;
    a.optTensors.push_back(optionalTensor(v, wv, st.form));
    a.name = a.optTensors.back().name;
  } else if (key == "as_graph") {
    a.kind = K::Graph;
    expectObject(v, wv);
    a.name = stringField(v, "name", wv, "");
    if (st.graphDepth >= kMaxGraphDepth)
      failAt(wv, "subgraphs nested deeper than " + std::to_string(kMaxGraphDepth) + " levels");
    ++st.graphDepth;
    a.graph = std::make_shared<Graph>(parseGraph(req(v, "graph", wv), wv["graph"], st));
    --st.graphDepth;
  } else if (key == "as_custom_obj") {
    a.kind = K::CustomObj;
    expectObject(v, wv);
    a.name = reqString(v, "name", wv);
    a.s = stringField(v, "class_fqn", wv, "");
  } else if (key == "as_complex") {
    a.kind = K::Complex;
    expectObject(v, wv);
    a.f = getFloat(req(v, "real", wv), wv["real"]);
    a.imag = getFloat(req(v, "imag", wv), wv["imag"]);
  } else {
    failAt(w, "unsupported argument kind '" + std::string(key) + "'");
  }
  return a;
}

namespace {

std::vector<Argument> argumentList(const json &obj, const char *key, const Where &w,
                                   ParseState &st) {
  std::vector<Argument> out;
  const json *arr = opt(obj, key);
  if (!arr)
    return out;
  Where wk = w[key];
  expectArray(*arr, wk);
  out.reserve(arr->size());
  for (size_t k = 0; k < arr->size(); ++k)
    out.push_back(parseArgument((*arr)[k], wk[k], st));
  return out;
}

std::string firstOutputName(const std::vector<Argument> &outputs) {
  for (const Argument &o : outputs) {
    if (!o.name.empty())
      return o.name;
    if (!o.names.empty() && !o.names.front().empty())
      return o.names.front();
  }
  return "";
}

Node parseNode(const json &j, const Where &w, ParseState &st) {
  expectObject(j, w);
  Node n;
  n.target = reqString(j, "target", w);
  try {
    if (const json *ins = opt(j, "inputs")) {
      Where wi = w["inputs"];
      expectArray(*ins, wi);
      n.inputs.reserve(ins->size());
      for (size_t k = 0; k < ins->size(); ++k) {
        const json &x = (*ins)[k];
        Where wx = wi[k];
        expectObject(x, wx);
        NamedArgument na;
        na.name = stringField(x, "name", wx, "");
        na.arg = parseArgument(req(x, "arg", wx), wx["arg"], st);
        na.kind = static_cast<int>(intField(x, "kind", wx, 0));
        n.inputs.push_back(std::move(na));
      }
    }
    n.outputs = argumentList(j, "outputs", w, st);
    if (const json *md = opt(j, "metadata")) {
      expectObject(*md, w["metadata"]);
      // Members come sorted and unique: each goes in at the map's end.
      for (const JsonMember &m : *md)
        if (m.value.isString())
          n.metadata.emplace_hint(n.metadata.end(), m.key, m.value.str());
        else if (m.value.isPrimitive())  // informational only; never dump nested values
          n.metadata.emplace_hint(n.metadata.end(), m.key, m.value.dump());
    }
    n.name = stringField(j, "name", w, "");
    if (n.name.empty())
      n.name = firstOutputName(n.outputs);
    bool single = n.outputs.size() == 1 && n.outputs[0].kind == Argument::Kind::Tensor;
    n.isHopSingleTensorReturn = boolField(j, "is_hop_single_tensor_return", w, single);
  } catch (const Pt2Error &e) {
    std::string msg = e.what();
    if (msg.find(" (node ") != std::string::npos)  // an inner node already said
      throw;
    fail(msg + " (node " + (n.name.empty() ? "" : "'" + n.name + "' ") + n.target + ")");
  }
  auto trace = n.metadata.find("stack_trace");
  if (trace != n.metadata.end())
    parseStackTrace(trace->second, n.sourceFile, n.sourceLine);
  return n;
}

}  // namespace

Graph parseGraph(const json &j, const Where &w, ParseState &st) {
  expectObject(j, w);
  Graph g;
  g.inputs = argumentList(j, "inputs", w, st);
  g.outputs = argumentList(j, "outputs", w, st);
  if (const json *nodes = opt(j, "nodes")) {
    Where wn = w["nodes"];
    expectArray(*nodes, wn);
    g.nodes.reserve(nodes->size());
    for (size_t k = 0; k < nodes->size(); ++k)
      g.nodes.push_back(parseNode((*nodes)[k], wn[k], st));
  }
  if (const json *tv = opt(j, "tensor_values")) {
    Where wt = w["tensor_values"];
    expectObject(*tv, wt);
    for (const JsonMember &m : *tv) {
      TensorMeta meta;
      SymbolicUse use;
      if (!tensorMeta(m.value, wt.at(m.key), st.form, meta, use)) {
        // An intermediate's storage offset is unreliable metadata (spec
        // section 2.4) that nothing reads; a data-dependent one (a KV-cache
        // slice at `pos.item()`) must not make the graph unreadable.
        bool isGraphInput = std::any_of(g.inputs.begin(), g.inputs.end(), [&](const Argument &a) {
          return a.kind == Argument::Kind::Tensor && a.name == m.key;
        });
        if (use.what != "storage offset" || isGraphInput) {
          use.tensor = m.key;
          st.symbolic.push_back(use);
        }
      }
      g.tensorValues.emplace_hint(g.tensorValues.end(), m.key, std::move(meta));
    }
  }
  if (const json *sv = opt(j, "sym_int_values")) {
    Where ws = w["sym_int_values"];
    expectObject(*sv, ws);
    for (const JsonMember &m : *sv) {
      std::string expr;
      std::string raw;
      if (std::optional<int64_t> v = symInt(m.value, ws.at(m.key), st.form, expr, &raw))
        g.symIntValues[std::string(m.key)] = *v;
      else
        g.symIntExprs[std::string(m.key)] = raw;
    }
  }
  g.isSingleTensorReturn = boolField(j, "is_single_tensor_return", w, false);
  return g;
}

}  // namespace graphjson
}  // namespace ptec::pt2
