// Graph JSON, document level: the schema version, the graph signature (input
// and output specs), range constraints, call specs and the payload config;
// the graph itself is parsed in GraphJsonGraph.cpp.
#include "serde/pt2/GraphJson.h"
#include "serde/pt2/GraphJsonInternal.h"

#include "serde/pt2/JsonRead.h"
#include "serde/pt2/Pt2Error.h"
#include "serde/pt2/SchemaHistory.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace ptec::pt2 {

using namespace graphjson;

namespace {

Argument tensorArg(const json &spec, const Where &w) {
  Argument a;
  a.kind = Argument::Kind::Tensor;
  a.name = tensorName(req(spec, "arg", w), w["arg"]);
  return a;
}

InputSpec parseInputSpec(const json &j, const Where &w, ParseState &st) {
  UnionValue u = unionOf(j, w, st.form.unions);
  std::string_view key = u.key;
  const json &v = *u.value;
  Where wv = u.payload(w);
  expectObject(v, wv);
  InputSpec s;
  if (key == "user_input") {
    s.kind = InputKind::UserInput;
    s.arg = parseArgument(req(v, "arg", wv), wv["arg"], st);
  } else if (key == "parameter" || key == "buffer" || key == "tensor_constant") {
    // A weight: its tensor and its name in the state dict (`<kind>_name`).
    s.kind = key == "parameter" ? InputKind::Parameter
             : key == "buffer"  ? InputKind::Buffer
                                : InputKind::TensorConstant;
    s.arg = tensorArg(v, wv);
    s.target = reqString(v, (std::string(key) + "_name").c_str(), wv);
    if (s.kind == InputKind::Buffer)
      s.persistent = boolField(v, "persistent", wv, true);
  } else if (key == "custom_obj") {
    s.kind = InputKind::CustomObj;
    const json &arg = req(v, "arg", wv);
    expectObject(arg, wv["arg"]);
    s.arg.kind = Argument::Kind::CustomObj;
    s.arg.name = reqString(arg, "name", wv["arg"]);
    s.arg.s = stringField(arg, "class_fqn", wv["arg"], "");
    s.target = reqString(v, "custom_obj_name", wv);
  } else if (key == "token") {
    s.kind = InputKind::Token;
    s.arg = tensorArg(v, wv);
  } else if (key == "constant_input") {
    s.kind = InputKind::ConstantInput;
    s.target = stringField(v, "name", wv, "");
    const json &value = req(v, "value", wv);
    s.arg = parseArgument(value, wv["value"], st);  // ConstantValue keys are Argument keys
    using K = Argument::Kind;
    if (s.arg.kind != K::None && s.arg.kind != K::Int && s.arg.kind != K::Float &&
        s.arg.kind != K::String && s.arg.kind != K::Bool)
      failAt(wv["value"], "constant input must be none, int, float, string or bool");
  } else {
    failAt(w, "unknown input spec kind '" + std::string(key) + "'");
  }
  return s;
}

OutputSpec parseOutputSpec(const json &j, const Where &w, ParseState &st) {
  UnionValue u = unionOf(j, w, st.form.unions);
  // Development builds between torch 2.1 and 2.2 misspelled the loss output.
  std::string_view key = st.form.oldSpellings && u.key == "loss_outout" ? "loss_output" : u.key;
  const json &v = *u.value;
  Where wv = u.payload(w);
  expectObject(v, wv);
  OutputSpec s;
  struct KindInfo {
    const char *key;
    OutputKind kind;
    const char *targetField;  // null: no target
  };
  static const KindInfo kinds[] = {
      {"user_output", OutputKind::UserOutput, nullptr},
      {"loss_output", OutputKind::LossOutput, nullptr},
      {"buffer_mutation", OutputKind::BufferMutation, "buffer_name"},
      {"gradient_to_parameter", OutputKind::GradientToParameter, "parameter_name"},
      {"gradient_to_user_input", OutputKind::GradientToUserInput, "user_input_name"},
      {"user_input_mutation", OutputKind::UserInputMutation, "user_input_name"},
      {"token", OutputKind::Token, nullptr},
      {"parameter_mutation", OutputKind::ParameterMutation, "parameter_name"},
  };
  for (const KindInfo &k : kinds) {
    if (key != k.key)
      continue;
    s.kind = k.kind;
    if (k.kind == OutputKind::UserOutput)
      s.arg = parseArgument(req(v, "arg", wv), wv["arg"], st);
    else
      s.arg = tensorArg(v, wv);
    if (k.targetField)
      s.target = reqString(v, k.targetField, wv);
    return s;
  }
  failAt(w, "unknown output spec kind '" + std::string(key) + "'");
}

const Argument *findInputArg(const ExportedProgram &ep, const std::string &tensor) {
  for (const Argument &a : ep.graph.inputs)
    if (a.kind == Argument::Kind::Tensor && a.name == tensor)
      return &a;
  return nullptr;
}

// {"s0": {"min_val": 2, "max_val": 32}}; null, missing or beyond-int64 (or
// float, as torch writes infinity) bounds are unbounded.
void readRangeConstraints(const json &j, const Where &w, ExportedProgram &ep) {
  expectObject(j, w);
  for (const JsonMember &m : j) {
    Where wr = w.at(m.key);
    expectObject(m.value, wr);
    auto bound = [&](const char *key) -> std::optional<int64_t> {
      const json *v = opt(m.value, key);
      if (!v || !v->isInteger())
        return std::nullopt;
      if (v->isUnsigned() &&
          v->uintValue() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return std::nullopt;
      return v->intValue();
    };
    ExportedProgram::Range r;
    r.min = bound("min_val").value_or(0);
    r.max = bound("max_val");
    ep.rangeConstraints[std::string(m.key)] = r;
  }
}

void rejectSymbolic(const ParseState &st, const ExportedProgram &ep) {
  if (st.symbolic.empty())
    return;
  // Prefer naming a graph input, in input order: that is what the user controls.
  const SymbolicUse *pick = &st.symbolic.front();
  for (const Argument &in : ep.graph.inputs) {
    bool found = false;
    for (const SymbolicUse &u : st.symbolic)
      if (in.kind == Argument::Kind::Tensor && u.tensor == in.name) {
        pick = &u;
        found = true;
        break;
      }
    if (found)
      break;
  }
  bool isInput = findInputArg(ep, pick->tensor) != nullptr;
  fail(std::string(isInput ? "input" : "tensor") + " '" + pick->tensor + "' " + pick->what +
       " is symbolic (" + pick->expr + "); symbolic storage offsets are not supported");
}
}  // namespace

bool parseStackTrace(const std::string &trace, std::string &file, int &line) {
  const std::string marker = "File \"";
  size_t pos = trace.rfind(marker);
  while (pos != std::string::npos) {
    size_t nameStart = pos + marker.size();
    size_t nameEnd = trace.find('"', nameStart);
    const std::string lineMarker = ", line ";
    if (nameEnd != std::string::npos && trace.compare(nameEnd + 1, lineMarker.size(), lineMarker) == 0) {
      size_t digits = nameEnd + 1 + lineMarker.size();
      long value = 0;
      size_t k = digits;
      while (k < trace.size() && k - digits < 9 && trace[k] >= '0' && trace[k] <= '9')
        value = value * 10 + (trace[k++] - '0');
      if (k > digits) {
        file = trace.substr(nameStart, nameEnd - nameStart);
        line = static_cast<int>(value);
        return true;
      }
    }
    if (pos == 0)
      break;
    pos = trace.rfind(marker, pos - 1);
  }
  return false;
}

namespace {
// schema_version: {"major": m, "minor": n} since schema 3, a plain integer in
// schema 1-2; a file without one takes the container's version record.
SchemaForm readSchemaVersion(const json &doc, const Where &root,
                             const ExternalSchemaVersion *external) {
  Where wv = root["schema_version"];
  int64_t major = 0, minor = 0;
  const json *version = opt(doc, "schema_version");
  if (!version && external) {
    major = external->major;
    minor = external->minor;
  } else if (!version) {
    failAt(root, "missing required field 'schema_version'");
  } else if (version->isObject()) {
    major = getInt(req(*version, "major", wv), wv["major"]);
    minor = intField(*version, "minor", wv, 0);
  } else {
    major = getInt(*version, wv);
  }
  return schemaFormFor(major, minor, wv);
}

void readSignature(const json &gm, const Where &wgm, ParseState &st, ExportedProgram &ep) {
  Where wsig = wgm["signature"];
  const json &sig = req(gm, "signature", wgm);
  expectObject(sig, wsig);
  const json *ins = opt(sig, "input_specs");
  const json *outs = opt(sig, "output_specs");
  if (st.form.oldSpellings && !ins && !outs) {
    // torch 2.1: name maps instead of spec lists.
    readNameMapSignature(sig, wsig, ep.graph, ep.inputSpecs, ep.outputSpecs);
    return;
  }
  if (ins) {
    expectArray(*ins, wsig["input_specs"]);
    for (size_t k = 0; k < ins->size(); ++k)
      ep.inputSpecs.push_back(parseInputSpec((*ins)[k], wsig["input_specs"][k], st));
  }
  if (outs) {
    expectArray(*outs, wsig["output_specs"]);
    for (size_t k = 0; k < outs->size(); ++k)
      ep.outputSpecs.push_back(parseOutputSpec((*outs)[k], wsig["output_specs"][k], st));
  }
  if (ep.inputSpecs.size() != ep.graph.inputs.size())
    failAt(wsig, "graph has " + std::to_string(ep.graph.inputs.size()) + " inputs but " +
                     std::to_string(ep.inputSpecs.size()) + " input specs");
  if (ep.outputSpecs.size() != ep.graph.outputs.size())
    failAt(wsig, "graph has " + std::to_string(ep.graph.outputs.size()) + " outputs but " +
                     std::to_string(ep.outputSpecs.size()) + " output specs");
}

// The root call's pytree specs: the module_call_graph entry with fqn "", or
// torch 2.1's GraphModule.call_spec.
void readCallSpecs(const json &gm, const Where &wgm, const SchemaForm &form, ExportedProgram &ep) {
  if (const json *mcg = opt(gm, "module_call_graph")) {
    Where wm = wgm["module_call_graph"];
    expectArray(*mcg, wm);
    for (size_t k = 0; k < mcg->size(); ++k) {
      const json &entry = (*mcg)[k];
      expectObject(entry, wm[k]);
      if (stringField(entry, "fqn", wm[k], "") != "")
        continue;
      if (const json *s = opt(entry, "signature")) {
        expectObject(*s, wm[k]["signature"]);
        ep.inSpec = stringField(*s, "in_spec", wm[k]["signature"], "");
        ep.outSpec = stringField(*s, "out_spec", wm[k]["signature"], "");
      }
      break;
    }
  }
  const json *callSpec = form.oldSpellings ? opt(gm, "call_spec") : nullptr;
  if (callSpec && ep.inSpec.empty() && ep.outSpec.empty()) {
    Where wc = wgm["call_spec"];
    expectObject(*callSpec, wc);
    ep.inSpec = stringField(*callSpec, "in_spec", wc, "");
    ep.outSpec = stringField(*callSpec, "out_spec", wc, "");
  }
}
// The document's root; a malformed one fails with "invalid JSON: " and what is wrong.
const json &parseDocument(ByteView text, JsonDocument &dom) {
  std::string error;
  if (!dom.parse(text.data(), text.size(), error))
    fail("invalid JSON: " + error);
  return dom.root();
}
}  // namespace

void parseExportedProgramJson(ByteView text, const std::string &entryName,
                              ExportedProgram &ep, const ExternalSchemaVersion *external) {
  ParseState st;
  try {
    JsonDocument dom;
    const json &doc = parseDocument(text, dom);
    Where root;
    expectObject(doc, root);
    // Version first: it decides how everything else is spelled.
    st.form = readSchemaVersion(doc, root, external);
    ep.schemaMajor = st.form.major;
    ep.schemaMinor = st.form.minor;
    ep.torchVersion = stringField(doc, "torch_version", root, "<=2.4");
    if (const json *ops = opt(doc, "opset_version")) {
      expectObject(*ops, root["opset_version"]);
      for (const JsonMember &m : *ops)
        ep.opsetVersion[std::string(m.key)] = getInt(m.value, root["opset_version"].at(m.key));
    }
    if (const json *vs = opt(doc, "verifiers")) {
      expectArray(*vs, root["verifiers"]);
      for (size_t k = 0; k < vs->size(); ++k)
        ep.verifiers.emplace_back(getString((*vs)[k], root["verifiers"][k]));
    } else if (const json *dialect = opt(doc, "dialect")) {  // schema 2 to 6 or so
      ep.verifiers.emplace_back(getString(*dialect, root["dialect"]));
    }

    Where wgm = root["graph_module"];
    const json &gm = req(doc, "graph_module", root);
    expectObject(gm, wgm);
    ep.graph = parseGraph(req(gm, "graph", wgm), wgm["graph"], st);
    readSignature(gm, wgm, st, ep);
    readCallSpecs(gm, wgm, st.form, ep);
    if (const json *rc = opt(doc, "range_constraints"))
      readRangeConstraints(*rc, root["range_constraints"], ep);
  } catch (const Pt2Error &e) {
    fail(entryName + ": " + e.what());
  }
  rejectSymbolic(st, ep);
}

std::vector<PayloadMeta> parsePayloadConfigJson(ByteView text,
                                                const std::string &entryName) {
  std::vector<PayloadMeta> out;
  try {
    JsonDocument dom;
    const json &doc = parseDocument(text, dom);
    Where root;
    expectObject(doc, root);
    const json *config = opt(doc, "config");
    if (!config)
      return out;
    Where wc = root["config"];
    expectObject(*config, wc);
    for (const JsonMember &entry : *config) {
      Where we = wc.at(entry.key);
      expectObject(entry.value, we);
      PayloadMeta m;
      m.fqn = entry.key;
      m.pathName = reqString(entry.value, "path_name", we);
      m.isParam = boolField(entry.value, "is_param", we, false);
      m.usePickle = boolField(entry.value, "use_pickle", we, false);
      if (const json *tm = opt(entry.value, "tensor_meta")) {
        SymbolicUse use;
        if (!tensorMeta(*tm, we["tensor_meta"], SchemaForm{}, m.meta, use,
                        /*symbolicSizesRejected=*/true))
          failAt(we["tensor_meta"], use.what + " is symbolic (" + use.expr +
                                        "); a stored tensor must have static sizes");
        m.hasTensorMeta = true;
      }
      out.push_back(std::move(m));
    }
  } catch (const Pt2Error &e) {
    fail(entryName + ": " + e.what());
  }
  return out;
}

}  // namespace ptec::pt2
