#include "serde/pt2/SchemaHistory.h"

#include "serde/pt2/Pt2Error.h"

#include <cctype>
#include <climits>
#include <map>
#include <set>

namespace ptec::pt2 {

namespace {
std::string versionText(int64_t major, int64_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

bool allDigits(const std::string &s) {
  if (s.empty() || s.size() > 9)
    return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  return true;
}

// {name: fqn} maps of schema 1, empty when the key is absent.
std::map<std::string, std::string> nameMap(const json &obj, const char *key, const Where &w) {
  std::map<std::string, std::string> out;
  const json *m = opt(obj, key);
  if (!m)
    return out;
  Where wk = w[key];
  expectObject(*m, wk);
  for (const JsonMember &e : *m)
    out[std::string(e.key)] = getString(e.value, wk.at(e.key));
  return out;
}

std::set<std::string> nameList(const json &obj, const char *key, const Where &w) {
  std::set<std::string> out;
  const json *l = opt(obj, key);
  if (!l)
    return out;
  Where wk = w[key];
  expectArray(*l, wk);
  for (size_t k = 0; k < l->size(); ++k)
    out.emplace(getString((*l)[k], wk[k]));
  return out;
}

// The value name a graph input or output refers to ("" for constants).
std::string valueName(const Argument &a) {
  if (!a.name.empty())
    return a.name;
  return a.names.size() == 1 ? a.names.front() : "";
}
}  // namespace

SchemaForm schemaFormFor(int64_t major, int64_t minor, const Where &w) {
  if (major < 0 || minor < 0 || minor > INT_MAX)
    failAt(w, "schema version " + versionText(major, minor) + " is not a valid version");
  if (major > kNewestSchemaMajor)
    fail("schema_version " + versionText(major, minor) + " is unsupported: majors " +
         std::to_string(kOldestSchemaMajor) + " to " + std::to_string(kNewestSchemaMajor) +
         " are read (torch 2.1 onwards); a newer major is a layout this reader does not know");
  SchemaForm form;
  form.major = static_cast<int>(major);
  form.minor = static_cast<int>(minor);
  if (major == 0)  // unversioned development build: the current form
    return form;
  form.unions = major <= 4 ? UnionStyle::Legacy : UnionStyle::SingleKey;
  form.optionalTensorMayBeName = major < 8;
  form.oldSpellings = major <= 2;
  return form;
}

bool parseVersionRecord(const std::string &text, int64_t &major, int64_t &minor) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin])))
    ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1])))
    --end;
  std::string t = text.substr(begin, end - begin);
  size_t dot = t.find('.');
  std::string majorText = t.substr(0, dot);
  std::string minorText = dot == std::string::npos ? "0" : t.substr(dot + 1);
  if (!allDigits(majorText) || !allDigits(minorText))
    return false;
  major = std::stoll(majorText);
  minor = std::stoll(minorText);
  return true;
}

void readNameMapSignature(const json &sig, const Where &w, const Graph &graph,
                          std::vector<InputSpec> &inputs, std::vector<OutputSpec> &outputs) {
  auto params = nameMap(sig, "inputs_to_parameters", w);
  auto buffers = nameMap(sig, "inputs_to_buffers", w);
  auto userInputs = nameList(sig, "user_inputs", w);
  auto userOutputs = nameList(sig, "user_outputs", w);
  auto mutations = nameMap(sig, "buffers_to_mutate", w);
  std::map<std::string, std::string> gradParams, gradInputs;
  std::string loss;
  if (const json *bw = opt(sig, "backward_signature")) {
    Where wb = w["backward_signature"];
    expectObject(*bw, wb);
    gradParams = nameMap(*bw, "gradients_to_parameters", wb);
    gradInputs = nameMap(*bw, "gradients_to_user_inputs", wb);
    loss = stringField(*bw, "loss_output", wb, "");
  }

  for (size_t k = 0; k < graph.inputs.size(); ++k) {
    const Argument &a = graph.inputs[k];
    std::string name = valueName(a);
    InputSpec s;
    s.arg = a;
    int found = 0;
    if (auto it = params.find(name); it != params.end()) {
      s.kind = InputKind::Parameter;
      s.target = it->second;
      ++found;
    }
    if (auto it = buffers.find(name); it != buffers.end()) {
      s.kind = InputKind::Buffer;
      s.target = it->second;  // schema 1 had no non-persistent buffers
      ++found;
    }
    if (userInputs.count(name)) {
      s.kind = InputKind::UserInput;
      ++found;
    }
    if (found != 1)
      failAt(w, "graph input " + std::to_string(k) + " ('" + name + "') is named by " +
                    (found ? std::to_string(found) : std::string("none")) +
                    " of inputs_to_parameters, inputs_to_buffers and user_inputs; exactly one "
                    "must name it");
    if (s.kind != InputKind::UserInput && a.kind != Argument::Kind::Tensor)
      failAt(w, "graph input " + std::to_string(k) + " ('" + name +
                    "') is a parameter or buffer but not a tensor");
    inputs.push_back(std::move(s));
  }

  // Graph outputs list the side outputs (buffer mutations, gradients) first,
  // then the user's; a value named in both groups is placed by position.
  size_t sideOutputs = mutations.size() + gradParams.size() + gradInputs.size();
  for (size_t k = 0; k < graph.outputs.size(); ++k) {
    const Argument &a = graph.outputs[k];
    std::string name = valueName(a);
    OutputSpec s;
    s.arg = a;
    bool side = false;
    if (auto it = mutations.find(name); it != mutations.end()) {
      s.kind = OutputKind::BufferMutation;
      s.target = it->second;
      side = true;
    } else if (auto g = gradParams.find(name); g != gradParams.end()) {
      s.kind = OutputKind::GradientToParameter;
      s.target = g->second;
      side = true;
    } else if (auto u = gradInputs.find(name); u != gradInputs.end()) {
      s.kind = OutputKind::GradientToUserInput;
      s.target = u->second;
      side = true;
    }
    bool user = name.empty() || userOutputs.count(name) || (!loss.empty() && name == loss);
    if (side && user && k >= sideOutputs)
      side = false;
    if (!side) {
      if (!user)
        failAt(w, "graph output " + std::to_string(k) + " ('" + name +
                      "') is named by none of buffers_to_mutate, backward_signature and "
                      "user_outputs");
      s.kind = !loss.empty() && name == loss ? OutputKind::LossOutput : OutputKind::UserOutput;
      s.target.clear();
    }
    if (s.kind != OutputKind::UserOutput && a.kind != Argument::Kind::Tensor)
      failAt(w, "graph output " + std::to_string(k) + " ('" + name +
                    "') is a buffer mutation, gradient or loss but not a tensor");
    outputs.push_back(std::move(s));
  }
}

std::string unknownDTypeMessage(int64_t code, const SchemaForm &form) {
  std::string msg = "unknown dtype code " + std::to_string(code);
  bool preFloat8 = form.major != 0 && (form.major < 8 || (form.major == 8 && form.minor < 3));
  if (preFloat8 && code >= 14 && code <= 27)
    msg += ": schema " + versionText(form.major, form.minor) +
           " predates float8 serialization (schema 8.3), and the float8 enum numbers declared "
           "before it differ between releases";
  return msg;
}

}  // namespace ptec::pt2
