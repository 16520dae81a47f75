#include "test/unit/pt2/OldSchemaArchives.h"

#include "test/unit/pt2/TestArchives.h"

namespace ptec::pt2::test {

using namespace std::string_literals;  // pickles hold NUL bytes

namespace {
// Field lists of the schema 3.1 schema.yaml, the oldest committed one; 1-2
// differ only in fields a reader never sees set.
const std::vector<std::string> kArgumentFields = {
    "as_none",        "as_tensor",      "as_tensors",     "as_int",           "as_ints",
    "as_float",       "as_floats",      "as_string",      "as_strings",       "as_sym_int",
    "as_sym_ints",    "as_scalar_type", "as_memory_format", "as_layout",      "as_device",
    "as_bool",        "as_bools",       "as_sym_bool",    "as_sym_bools",     "as_graph",
    "as_optional_tensors", "as_custom_obj"};
const std::vector<std::string> kSymIntFields = {"as_expr", "as_int"};
const std::vector<std::string> kOptionalTensorFields = {"as_tensor", "as_none"};
const std::vector<std::string> kInputSpecFields = {"user_input", "parameter", "buffer",
                                                   "tensor_constant", "custom_obj"};
const std::vector<std::string> kOutputSpecFields = {"user_output", "loss_output", "buffer_mutation",
                                                    "gradient_to_parameter",
                                                    "gradient_to_user_input"};

json arg(int m, const std::string &key, json value) { return unionAs(m, "Argument", key, std::move(value)); }
json tensor(int m, const std::string &name) { return arg(m, "as_tensor", {{"name", name}}); }
// as_none carried an empty tuple until 8.2, `true` since.
json noneValue(int m) { return m >= 8 ? json(true) : json::array(); }

json meta(int m, int dtype, const std::vector<int64_t> &sizes, bool requiresGrad = false) {
  json s = json::array(), t = json::array();
  int64_t step = 1;
  std::vector<int64_t> strides(sizes.size());
  for (size_t k = sizes.size(); k-- > 0;) {
    strides[k] = step;
    step *= sizes[k];
  }
  for (int64_t v : sizes)
    s.push_back(unionAs(m, "SymInt", "as_int", v));
  for (int64_t v : strides)
    t.push_back(unionAs(m, "SymInt", "as_int", v));
  // storage_offset was a plain int in the early schemas.
  json offset = m < 5 ? json(0) : unionAs(m, "SymInt", "as_int", 0);
  return {{"dtype", dtype},
          {"sizes", s},
          {"requires_grad", requiresGrad},
          {"device", {{"type", "cpu"}, {"index", nullptr}}},
          {"strides", t},
          {"storage_offset", offset},
          {"layout", 7}};
}

json named(int m, const std::string &name, json a) {
  json n = {{"name", name}, {"arg", std::move(a)}};
  if (m >= 8)
    n["kind"] = 1;  // ArgumentKind came with schema 8
  return n;
}

json node(const std::string &target, json inputs, const std::string &out, int m) {
  return {{"target", target}, {"inputs", std::move(inputs)}, {"outputs", {tensor(m, out)}},
          {"metadata", json::object()}};
}

const char *kInSpec = "[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": []}]";
const char *kOutSpec = "[1, {\"type\": null, \"context\": null, \"children_spec\": []}]";

json signature(int m, const HistoryNames &n) {
  if (m == 1)
    return {{"inputs_to_parameters", {{n.w, "w"}}},
            {"inputs_to_buffers", {{n.count, "count"}}},
            {"user_inputs", {n.x}},
            {"user_outputs", {"to_copy"}},
            {"buffers_to_mutate", {{"add", "count"}}},
            {"backward_signature", nullptr}};
  json buffer = {{"arg", {{"name", n.count}}}, {"buffer_name", "count"}};
  if (m >= 3)
    buffer["persistent"] = true;  // absent in torch 2.2: persistent by default
  json inputs = {unionAs(m, "InputSpec", "parameter", {{"arg", {{"name", n.w}}}, {"parameter_name", "w"}}),
                 unionAs(m, "InputSpec", "buffer", buffer),
                 unionAs(m, "InputSpec", "user_input", {{"arg", tensor(m, n.x)}})};
  json outputs = {
      unionAs(m, "OutputSpec", "buffer_mutation", {{"arg", {{"name", "add"}}}, {"buffer_name", "count"}}),
      unionAs(m, "OutputSpec", "user_output", {{"arg", tensor(m, "to_copy")}})};
  return {{"input_specs", inputs}, {"output_specs", outputs}};
}
}  // namespace

const std::vector<std::string> &legacyUnionFields(const std::string &unionName) {
  static const std::vector<std::string> none;
  if (unionName == "Argument")
    return kArgumentFields;
  if (unionName == "SymInt")
    return kSymIntFields;
  if (unionName == "OptionalTensorArgument")
    return kOptionalTensorFields;
  if (unionName == "InputSpec")
    return kInputSpecFields;
  if (unionName == "OutputSpec")
    return kOutputSpecFields;
  return none;
}

json unionAs(int major, const std::string &unionName, const std::string &key, json value) {
  if (major >= 5)
    return {{key, std::move(value)}};
  if (major >= 3)
    return {{"$type", key}, {"$value", std::move(value)}};
  json o = json::object();
  for (const std::string &f : legacyUnionFields(unionName))
    o[f] = nullptr;
  o[key] = std::move(value);
  return o;
}

HistoryNames historyNames(int major) {
  if (major <= 4)
    return {"arg0_1", "arg1_1", "arg2_1"};
  return {"p_w", "b_count", "x"};
}

int historyMinor(int major) {
  switch (major) {
  case 3: return 1;
  case 4: return 2;
  case 5: case 6: case 7: return 1;
  case 8: return 12;
  default: return 0;
  }
}

std::string historyVersionRecord(int major) {
  if (major <= 2)
    return std::to_string(major);
  return std::to_string(major) + "." + std::to_string(historyMinor(major));
}

json historyModel(int m) {
  HistoryNames n = historyNames(m);
  json optTensor = m < 5 ? json("clamp") : json({{"name", "clamp"}});
  json indices = {unionAs(m, "OptionalTensorArgument", "as_tensor", optTensor),
                  unionAs(m, "OptionalTensorArgument", "as_none", noneValue(m))};
  json nodes = json::array();
  nodes.push_back(node("torch.ops.aten.mm.default",
                       {named(m, "self", tensor(m, n.w)), named(m, "mat2", tensor(m, n.x))}, "mm", m));
  nodes.push_back(node("torch.ops.aten.clamp.default",
                       {named(m, "self", tensor(m, "mm")), named(m, "min", arg(m, "as_none", noneValue(m))),
                        named(m, "max", arg(m, "as_float", 6.0))},
                       "clamp", m));
  nodes.push_back(node("torch.ops.aten.index.Tensor",
                       {named(m, "self", tensor(m, "clamp")),
                        named(m, "indices", arg(m, "as_optional_tensors", indices))},
                       "index", m));
  nodes.push_back(node("torch.ops.aten._to_copy.default",
                       {named(m, "self", tensor(m, "index")), named(m, "dtype", arg(m, "as_scalar_type", 7)),
                        named(m, "layout", arg(m, "as_layout", 7)),
                        named(m, "device", arg(m, "as_device", {{"type", "cpu"}, {"index", nullptr}}))},
                       "to_copy", m));
  nodes.push_back(node("torch.ops.aten.add.Scalar",
                       {named(m, "self", tensor(m, n.count)), named(m, "other", arg(m, "as_int", 1))},
                       "add", m));
  json tv = {{n.w, meta(m, 7, {2, 3}, true)}, {n.count, meta(m, 5, {})}, {n.x, meta(m, 7, {3, 2})},
             {"mm", meta(m, 7, {2, 2})},      {"clamp", meta(m, 7, {2, 2})}, {"index", meta(m, 7, {2, 2})},
             {"to_copy", meta(m, 7, {2, 2})}, {"add", meta(m, 5, {})}};
  json graph = {{"inputs", {tensor(m, n.w), tensor(m, n.count), tensor(m, n.x)}},
                {"outputs", {tensor(m, "add"), tensor(m, "to_copy")}},
                {"nodes", nodes},
                {"tensor_values", tv},
                {"sym_int_values", json::object()},
                {"sym_bool_values", json::object()},
                {"is_single_tensor_return", false}};
  json gm = {{"graph", graph}, {"signature", signature(m, n)}};
  if (m == 1) {
    gm["call_spec"] = {{"in_spec", kInSpec}, {"out_spec", kOutSpec}};
  } else {
    json root = {{"inputs", json::array()}, {"outputs", json::array()},
                 {"in_spec", kInSpec}, {"out_spec", kOutSpec}};
    gm["module_call_graph"] = {{{"fqn", ""}, {"signature", root}}};
  }
  json doc = {{"graph_module", gm}, {"opset_version", {{"aten", 10}}}, {"range_constraints", json::object()}};
  if (m <= 2)
    doc["schema_version"] = m;
  else
    doc["schema_version"] = {{"major", m}, {"minor", historyMinor(m)}};
  if (m == 1) {
    doc["equality_constraints"] = json::array();
    doc["example_inputs"] = nullptr;
  } else if (m <= 6) {
    doc["dialect"] = "ATEN";
  } else {
    doc["verifiers"] = {"ATEN"};
  }
  if (m >= 8)
    doc["torch_version"] = "2.9.0";
  return doc;
}

std::string historyZip(const json &model, const std::string &version, int major) {
  // OrderedDict(w=<float32[2,3] in storage "0">, count=<int64[] in storage "1">), protocol 2.
  auto bin = [](const std::string &s) {
    std::string out = "X";
    for (int k = 0; k < 4; ++k)
      out += static_cast<char>((s.size() >> (8 * k)) & 0xFF);
    return out + s;
  };
  std::string p = "\x80\x02" "ccollections\nOrderedDict\nq\x00)Rq\x01"s;
  p += bin("w") + "ctorch._utils\n_rebuild_tensor_v2\nq\x02"s;
  p += "((" + bin("storage") + "ctorch\nFloatStorage\n" + bin("0") + bin("cpu") + "K\x06tQ";
  p += "K\x00K\x02K\x03\x86K\x03K\x01\x86\x89h\x00)RtRs"s;
  p += bin("count") + "h\x02((" + bin("storage") + "ctorch\nLongStorage\n" + bin("1") + bin("cpu") +
       "K\x01tQ";
  p += "K\x00))\x89h\x00)RtRs."s;
  std::string stateDict = writeZip({{"archive/data.pkl", p},
                                    {"archive/data/0", floatBytes({0, 1, 2, 3, 4, 5})},
                                    {"archive/data/1", int64Bytes({41})},
                                    {"archive/version", "3\n"}},
                                   ZipStyle::Torch);
  // torch 2.1 named the torch.save bytes .json (and had no constants file).
  std::vector<ZipEntry> entries = {{"serialized_exported_program.json", model.dump()},
                                   {major == 1 ? "serialized_state_dict.json" : "serialized_state_dict.pt",
                                    stateDict}};
  if (major != 1)
    entries.push_back({"serialized_constants.pt", torchSaveZip("\x80\x02}q\x00."s)});
  entries.push_back({"serialized_example_inputs.pt", "not read"});
  if (!version.empty())
    entries.push_back({"version", version});
  return writeZip(entries, ZipStyle::Libzip);
}

std::string historyZip(int major) {
  return historyZip(historyModel(major), historyVersionRecord(major), major);
}

}  // namespace ptec::pt2::test
