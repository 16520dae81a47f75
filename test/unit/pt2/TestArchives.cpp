#include "test/unit/pt2/TestArchives.h"

#include "test/unit/pt2/OldSchemaArchives.h"

#include <cstring>

namespace ptec::pt2::test {

using namespace std::string_literals;  // pickles hold NUL bytes

namespace {
json tensorArg(const std::string &name) { return {{"as_tensor", {{"name", name}}}}; }
json namedArg(const std::string &name, json arg, int kind = 1) {
  return {{"name", name}, {"arg", std::move(arg)}, {"kind", kind}};
}
std::string u32(uint32_t v) {
  std::string s(4, '\0');
  for (int k = 0; k < 4; ++k)
    s[k] = static_cast<char>((v >> (8 * k)) & 0xFF);
  return s;
}
std::string binunicode(const std::string &s) { return "X" + u32(static_cast<uint32_t>(s.size())) + s; }

std::vector<int64_t> contiguous(const std::vector<int64_t> &sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  int64_t running = 1;
  for (size_t k = sizes.size(); k-- > 0;) {
    strides[k] = running;
    running *= sizes[k];
  }
  return strides;
}

std::string build(std::vector<ZipEntry> entries, ZipStyle style = ZipStyle::Libzip) {
  return writeZip(entries, style);
}

std::vector<ZipEntry> withModel(const json &model) {
  std::vector<ZipEntry> e = basicEntries();
  setEntry(e, "m/models/model.json", model.dump());
  return e;
}

std::vector<ZipEntry> withWeightsConfig(const json &config) {
  std::vector<ZipEntry> e = basicEntries();
  setEntry(e, "m/data/weights/model_weights_config.json", config.dump());
  return e;
}
}  // namespace

json tensorMeta(int dtype, const std::vector<int64_t> &sizes, std::vector<int64_t> strides,
                int64_t offset, bool requiresGrad) {
  if (strides.empty())
    strides = contiguous(sizes);
  json s = json::array(), t = json::array();
  for (int64_t v : sizes)
    s.push_back({{"as_int", v}});
  for (int64_t v : strides)
    t.push_back({{"as_int", v}});
  return {{"dtype", dtype},
          {"sizes", s},
          {"requires_grad", requiresGrad},
          {"device", {{"type", "cpu"}, {"index", nullptr}}},
          {"strides", t},
          {"storage_offset", {{"as_int", offset}}},
          {"layout", 7}};
}

json basicModel() {
  json nodes = json::array();
  nodes.push_back(
      {{"target", "torch.ops.aten.permute.default"},
       {"inputs", {namedArg("self", tensorArg("p_fc_weight")), namedArg("dims", {{"as_ints", {1, 0}}})}},
       {"outputs", {tensorArg("permute")}},
       {"metadata",
        {{"stack_trace", "  File \"/home/u/model.py\", line 12, in forward\n    y = self.fc(x)\n"
                         "  File \"/home/u/torch/nn/modules/linear.py\", line 125, in forward\n"
                         "    return F.linear(input, self.weight, self.bias)\n"},
         {"nn_module_stack", "L__self__,,Model"}}}});
  nodes.push_back({{"target", "torch.ops.aten.mm.default"},
                   {"inputs", {namedArg("self", tensorArg("x")), namedArg("mat2", tensorArg("permute"))}},
                   {"outputs", {tensorArg("mm")}},
                   {"metadata", json::object()}});
  // No `kind`, no `metadata`: older writers; a float given as a string.
  nodes.push_back({{"target", "torch.ops.aten.add.Scalar"},
                   {"inputs",
                    {{{"name", "self"}, {"arg", tensorArg("b_count")}},
                     {{"name", "other"}, {"arg", {{"as_int", 1}}}},
                     {{"name", "alpha"}, {"arg", {{"as_float", "Infinity"}}}, {"kind", 2}}}},
                   {"outputs", {tensorArg("add")}},
                   {"name", "add_node"},
                   {"a_future_field", {1, 2, 3}}});
  json tv = {{"p_fc_weight", tensorMeta(7, {2, 3}, {}, 0, true)},
             {"b_count", tensorMeta(5, {})},
             {"x", tensorMeta(7, {4, 3})},
             {"permute", tensorMeta(7, {3, 2}, {1, 3})},
             {"mm", tensorMeta(7, {4, 2})},
             {"add", tensorMeta(5, {})}};
  json graph = {{"inputs", {tensorArg("p_fc_weight"), tensorArg("b_count"), tensorArg("x")}},
                {"outputs", {tensorArg("add"), tensorArg("mm")}},
                {"nodes", nodes},
                {"tensor_values", tv},
                {"sym_int_values", json::object()},
                {"sym_bool_values", json::object()},
                {"is_single_tensor_return", false},
                {"custom_obj_values", json::object()}};
  json inputSpecs = {
      {{"parameter", {{"arg", {{"name", "p_fc_weight"}}}, {"parameter_name", "fc.weight"}}}},
      {{"buffer", {{"arg", {{"name", "b_count"}}}, {"buffer_name", "count"}, {"persistent", true}}}},
      {{"user_input", {{"arg", tensorArg("x")}}}}};
  json outputSpecs = {
      {{"buffer_mutation", {{"arg", {{"name", "add"}}}, {"buffer_name", "count"}}}},
      {{"user_output", {{"arg", tensorArg("mm")}}}}};
  json signature = {{"input_specs", inputSpecs}, {"output_specs", outputSpecs}};
  json mcg = {{{"fqn", ""},
               {"signature",
                {{"inputs", json::array()},
                 {"outputs", json::array()},
                 {"in_spec", "[1, {\"type\": \"builtins.tuple\"}]"},
                 {"out_spec", "[1, {\"type\": null}]"},
                 {"forward_arg_names", {"x"}}}}},
              {{"fqn", "fc"}, {"signature", nullptr}}};
  return {{"graph_module",
           {{"graph", graph},
            {"signature", signature},
            {"module_call_graph", mcg},
            {"metadata", json::object()},
            {"treespec_namedtuple_fields", json::object()}}},
          {"opset_version", {{"aten", 10}}},
          {"range_constraints", json::object()},
          {"schema_version", {{"major", 8}, {"minor", 12}}},
          {"verifiers", {"TRAINING"}},
          {"torch_version", "2.9.0"}};
}

json basicWeightsConfig() {
  return {{"config",
           {{"fc.weight",
             {{"path_name", "weight_0"},
              {"is_param", true},
              {"use_pickle", false},
              {"tensor_meta", tensorMeta(7, {2, 3}, {}, 0, true)}}},
            {"count",
             {{"path_name", "weight_1"},
              {"is_param", false},
              {"use_pickle", false},
              {"tensor_meta", tensorMeta(5, {})}}}}}};
}

std::string floatBytes(const std::vector<float> &v) {
  std::string s(v.size() * 4, '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}

std::string int64Bytes(const std::vector<int64_t> &v) {
  std::string s(v.size() * 8, '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}

std::vector<ZipEntry> basicEntries(const std::string &root) {
  // Record order as torch 2.9 writes it.
  return {
      {root + "data/weights/weight_0", floatBytes({0, 1, 2, 3, 4, 5})},
      {root + "data/weights/weight_1", int64Bytes({41})},
      {root + "data/weights/model_weights_config.json", basicWeightsConfig().dump()},
      {root + "data/constants/model_constants_config.json", "{\"config\": {}}"},
      {root + "models/model.json", basicModel().dump()},
      {root + "data/sample_inputs/model.pt", "not read"},
      {root + "archive_format", "pt2"},
      {root + "archive_version", "0"},
      {root + ".data/version", "6\n"},
      {root + "byteorder", "little"},
      {root + ".data/serialization_id", "1234567890123456789012345678901234567890"},
  };
}

void setEntry(std::vector<ZipEntry> &entries, const std::string &name, const std::string &data) {
  for (ZipEntry &e : entries)
    if (e.name == name) {
      e.data = data;
      return;
    }
  entries.push_back({name, data});
}

void removeEntry(std::vector<ZipEntry> &entries, const std::string &name) {
  for (size_t k = 0; k < entries.size(); ++k)
    if (entries[k].name == name) {
      entries.erase(entries.begin() + static_cast<long>(k));
      return;
    }
}

std::string stateDictPickle() {
  std::string p = "\x80\x02"s;
  p += "ccollections\nOrderedDict\nq\x00)Rq\x01"s;
  p += binunicode("w") + "q\x02"s;
  p += "ctorch._utils\n_rebuild_tensor_v2\nq\x03"s;
  p += "(("s + binunicode("storage") + "ctorch\nFloatStorage\n"s + binunicode("0") + binunicode("cpu") +
       "K\x06tQ"s;
  p += "K\x00K\x02K\x03\x86K\x03K\x01\x86\x89h\x00)R"s;
  p += "tRs."s;
  return p;
}

std::string torchSaveZip(const std::string &pickle) {
  return writeZip({{"archive/data.pkl", pickle},
                   {"archive/data/0", floatBytes({0, 1, 2, 3, 4, 5})},
                   {"archive/version", "3\n"}},
                  ZipStyle::Torch);
}

json legacyModel() {
  json graph = {
      {"inputs", {tensorArg("p_w"), tensorArg("x")}},
      {"outputs", {tensorArg("mm")}},
      {"nodes",
       {{{"target", "torch.ops.aten.mm.default"},
         {"inputs", {namedArg("self", tensorArg("p_w")), namedArg("mat2", tensorArg("x"))}},
         {"outputs", {tensorArg("mm")}},
         {"metadata", json::object()}}}},
      {"tensor_values",
       {{"p_w", tensorMeta(7, {2, 3})}, {"x", tensorMeta(7, {3, 2})}, {"mm", tensorMeta(7, {2, 2})}}},
      {"sym_int_values", json::object()},
      {"sym_bool_values", json::object()}};
  json signature = {
      {"input_specs",
       {{{"parameter", {{"arg", {{"name", "p_w"}}}, {"parameter_name", "w"}}}},
        {{"user_input", {{"arg", tensorArg("x")}}}}}},
      {"output_specs", {{{"user_output", {{"arg", tensorArg("mm")}}}}}}};
  return {{"graph_module", {{"graph", graph}, {"signature", signature}, {"module_call_graph", json::array()}}},
          {"opset_version", {{"aten", 10}}},
          {"range_constraints", json::object()},
          {"schema_version", {{"major", 8}, {"minor", 3}}},
          {"dialect", "ATEN"}};
}

std::string legacyZip(const std::string &stateDict, const std::string &stateDictName) {
  // Python zipfile defaults: stored, no root folder, no alignment.
  return writeZip({{"serialized_exported_program.json", legacyModel().dump()},
                   {stateDictName, stateDict},
                   {"serialized_constants.pt", torchSaveZip("\x80\x02}q\x00."s)},
                   {"serialized_example_inputs.pt", "unused"},
                   {"version", "8.3"}},
                  ZipStyle::Libzip);
}

std::vector<MalformedCase> malformedCases() {
  std::vector<MalformedCase> cases;
  const std::string good = build(basicEntries(), ZipStyle::Torch);

  cases.push_back({"empty file", "", "not a zip archive"});
  cases.push_back({"truncated zip", good.substr(0, good.size() / 2), "not a zip archive"});
  cases.push_back({"truncated tail", good.substr(0, good.size() - 30), "zip"});
  {
    // Break the signature of the first central directory entry.
    std::string bad = good;
    size_t cd = bad.find(std::string("PK\x01\x02", 4));
    bad[cd + 2] = 'X';
    cases.push_back({"bad central directory", bad, "zip archive"});
  }
  {
    // A central entry whose local header offset points past the data.
    std::string bad = good;
    size_t cd = bad.find(std::string("PK\x01\x02", 4));
    bad[cd + 42] = '\xF0';
    bad[cd + 43] = '\xFF';
    bad[cd + 44] = '\x0F';
    cases.push_back({"bad local header offset", bad, "weight_0"});
  }
  {
    auto e = basicEntries();
    setEntry(e, "m/models/model.json", "{\"graph_module\": [1, 2,");
    cases.push_back({"bad JSON", build(e), "m/models/model.json: invalid JSON"});
  }
  {
    json m = basicModel();
    m["graph_module"]["graph"]["nodes"] = "oops";
    cases.push_back({"nodes not an array", build(withModel(m)),
                     "graph_module.graph.nodes: expected an array, got a string"});
  }
  {
    json m = basicModel();
    m["graph_module"]["graph"]["nodes"][1]["inputs"][0]["arg"] = {{"as_banana", 1}};
    cases.push_back({"unknown argument kind", build(withModel(m)),
                     "nodes[1].inputs[0].arg: unsupported argument kind 'as_banana' (node torch.ops.aten.mm.default)"});
  }
  {
    json m = basicModel();
    m["graph_module"]["graph"]["nodes"][1]["inputs"][0]["arg"] = {{"as_int", 1}, {"as_float", 2.0}};
    cases.push_back({"union with two keys", build(withModel(m)), "exactly one key, found 2"});
  }
  {
    // A HOP whose subgraph holds a HOP whose subgraph ... 100 levels deep.
    json inner = {{"nodes", json::array()}};
    for (int k = 0; k < 100; ++k) {
      json arg;
      arg["as_graph"]["name"] = "g";
      arg["as_graph"]["graph"] = inner;
      json node = {{"target", "torch.ops.higher_order.wrap"}, {"outputs", json::array()}};
      node["inputs"] = json::array();
      node["inputs"].push_back({{"name", ""}, {"arg", arg}});
      inner = {{"nodes", json::array({node})}};
    }
    json m = basicModel();
    m["graph_module"]["graph"]["nodes"].push_back(inner["nodes"][0]);
    cases.push_back({"deeply nested subgraphs", build(withModel(m)), "subgraphs nested deeper than 64 levels"});
  }
  {
    json m = basicModel();
    m["schema_version"] = {{"major", 9}, {"minor", 0}};
    cases.push_back({"unknown schema major", build(withModel(m)),
                     "schema_version 9.0 is unsupported: majors 1 to 8 are read"});
  }
  {
    json m = basicModel();
    m["graph_module"]["graph"]["tensor_values"]["x"]["storage_offset"] = {
        {"as_expr", {{"expr_str", "Symbol('s0', integer=True, positive=True)"}, {"hint", {{"as_int", 4}}}}}};
    cases.push_back({"symbolic input storage offset", build(withModel(m)),
                     "m.pt2: input 'x' storage offset is symbolic (s0); symbolic storage offsets are not supported"});
  }
  {
    json m = basicModel();
    m["graph_module"]["graph"]["tensor_values"]["x"]["dtype"] = 20;
    cases.push_back({"unknown dtype code", build(withModel(m)), "unknown dtype code 20"});
  }
  {
    json m = basicModel();
    m["graph_module"]["signature"]["input_specs"].erase(2);
    cases.push_back({"signature length mismatch", build(withModel(m)), "graph has 3 inputs but 2 input specs"});
  }
  {
    auto e = basicEntries();
    removeEntry(e, "m/data/weights/weight_0");
    cases.push_back({"missing weight file", build(e),
                     "weight 'fc.weight' (m/data/weights/weight_0): payload file is missing"});
  }
  {
    auto e = basicEntries();
    setEntry(e, "m/data/weights/weight_0", floatBytes({0, 1, 2, 3}));
    cases.push_back({"short weight file", build(e), "payload holds only 4 elements"});
  }
  {
    auto e = basicEntries();
    setEntry(e, "m/data/weights/weight_0", std::string(22, '\1'));
    cases.push_back({"wrong dtype size", build(e), "22 bytes is not a multiple of the float32 element size 4"});
  }
  {
    json c = basicWeightsConfig();
    c["config"]["fc.weight"]["tensor_meta"] = tensorMeta(7, {2, 3}, {4, 1}, 0, true);
    cases.push_back({"strides beyond payload", build(withWeightsConfig(c)),
                     "weight 'fc.weight' (m/data/weights/weight_0): as_strided view (sizes [2, 3], "
                     "strides [4, 1], offset 0) reaches element 6"});
  }
  {
    json c = basicWeightsConfig();
    c["config"]["fc.weight"]["tensor_meta"] = tensorMeta(7, {2, 3}, {}, 1, true);
    cases.push_back({"offset beyond payload", build(withWeightsConfig(c)), "offset 1) reaches element 6"});
  }
  {
    json c = basicWeightsConfig();
    c["config"]["fc.weight"]["tensor_meta"] = tensorMeta(7, {1 << 20, 1 << 20}, {0, 0}, 0, true);
    cases.push_back({"huge broadcast view", build(withWeightsConfig(c)), "refusing to expand it"});
  }
  {
    json c = basicWeightsConfig();
    c["config"]["fc.weight"]["tensor_meta"] = tensorMeta(7, {3, 2}, {}, 0, true);
    cases.push_back({"weight shape differs from graph", build(withWeightsConfig(c)),
                     "parameter 'fc.weight': stored tensor is float32[3, 2] but graph input "
                     "'p_fc_weight' is float32[2, 3]"});
  }
  {
    json c = basicWeightsConfig();
    c["config"].erase("fc.weight");
    cases.push_back({"parameter missing from config", build(withWeightsConfig(c)),
                     "parameter 'fc.weight' (graph input 'p_fc_weight') has no stored data"});
  }
  {
    json c = basicWeightsConfig();
    c["config"]["fc.weight"]["use_pickle"] = true;
    cases.push_back({"pickled subclass entry", build(withWeightsConfig(c)),
                     "weight 'fc.weight' (m/data/weights/weight_0) is a pickled tensor subclass; unsupported"});
  }
  {
    auto e = basicEntries();
    setEntry(e, "m/data/constants/model_constants_config.json",
             json({{"config",
                    {{"obj", {{"path_name", "custom_obj_0"}, {"is_param", false}, {"use_pickle", true},
                              {"tensor_meta", nullptr}}}}}})
                 .dump());
    cases.push_back({"pickled custom object", build(e),
                     "constant 'obj' (m/data/constants/custom_obj_0) is a pickled custom object"});
  }
  {
    auto e = basicEntries();
    removeEntry(e, "m/data/weights/model_weights_config.json");
    setEntry(e, "m/data/weights/model.pt", "PK...");
    cases.push_back({"torch 2.8 pickled weights", build(e),
                     "m/data/weights/model.pt: weights are a pickled torch.save dict"});
  }
  {
    auto e = basicEntries();
    removeEntry(e, "m/archive_format");
    cases.push_back({"missing archive_format", build(e), "no archive_format record (found 'm/models/model.json')"});
  }
  {
    auto e = basicEntries();
    setEntry(e, "m/archive_format", "pt3");
    cases.push_back({"wrong archive_format", build(e), "m/archive_format: says 'pt3', expected 'pt2'"});
  }
  {
    auto e = basicEntries();
    setEntry(e, "m/archive_version", "1");
    cases.push_back({"unknown archive_version", build(e), "archive_version: version '1' is unsupported"});
  }
  {
    auto e = basicEntries();
    setEntry(e, "m/byteorder", "big");
    cases.push_back({"big-endian payloads", build(e), "byte order 'big' is unsupported"});
  }
  {
    auto e = basicEntries();
    removeEntry(e, "m/models/model.json");
    cases.push_back({"no model json", build(e), "PT2 archive has no m/models/*.json"});
  }
  {
    auto e = basicEntries();
    for (ZipEntry &z : e)
      if (z.name == "m/models/model.json")
        z.methodOverride = 12;  // bzip2
    cases.push_back({"unsupported compression method", build(e, ZipStyle::Torch),
                     "m/models/model.json: compression method 12 is unsupported"});
  }
  cases.push_back({"not a torch archive", build({{"hello.txt", "hi"}}),
                   "not a torch.export archive"});

  // Legacy container and the restricted unpickler.
  cases.push_back({"legacy: hostile global os.system",
                   legacyZip(torchSaveZip("\x80\x02" "cos\nsystem\nX\x02\0\0\0idtR."s)),
                   "serialized_state_dict.pt: archive/data.pkl: refusing pickle global 'os.system'"});
  cases.push_back({"legacy: hostile builtins.eval via STACK_GLOBAL",
                   legacyZip(torchSaveZip("\x80\x04\x8c\x08" "builtins\x8c\x04" "eval\x93."s)),
                   "refusing pickle global 'builtins.eval'"});
  cases.push_back({"legacy: huge memo index",
                   legacyZip(torchSaveZip("\x80\x02j\xff\xff\xff\xff.")),
                   "pickle memo index 4294967295 was never set"});
  {
    std::string deep = "\x80\x02)";
    deep += std::string(100000, '\x85');
    deep += ".";
    cases.push_back({"legacy: deep nesting", legacyZip(torchSaveZip(deep)), "pickle nesting deeper than"});
  }
  cases.push_back({"legacy: NEWOBJ opcode",
                   legacyZip(torchSaveZip("\x80\x02" "ccollections\nOrderedDict\n)\x81.")),
                   "refusing pickle opcode 'NEWOBJ'"});
  cases.push_back({"legacy: truncated pickle", legacyZip(torchSaveZip(stateDictPickle().substr(0, 60))),
                   "pickle is truncated"});
  cases.push_back({"legacy: not a dict", legacyZip(torchSaveZip("\x80\x02K\x05.")),
                   "expected a dict of tensors, got a int"});
  cases.push_back({"legacy: nested zip is garbage", legacyZip("garbage"),
                   "serialized_state_dict.pt: nested torch.save archive: not a zip archive"});
  {
    std::string z = writeZip({{"archive/data.pkl", stateDictPickle()}, {"archive/version", "3"}}, ZipStyle::Torch);
    cases.push_back({"legacy: missing storage", legacyZip(z),
                     "tensor 'w' (serialized_state_dict.pt: archive/data/0): storage file is missing"});
  }
  {
    std::string z = writeZip({{"archive/data.pkl", stateDictPickle()}, {"archive/data/0", floatBytes({1, 2})}},
                             ZipStyle::Torch);
    cases.push_back({"legacy: short storage", legacyZip(z), "storage file has 8 bytes, expected 24"});
  }
  {
    auto e = std::vector<ZipEntry>{{"serialized_exported_program.json", legacyModel().dump()}, {"version", "v8"}};
    cases.push_back({"legacy: version record is not a version", build(e),
                     "version: 'v8' is not a schema version (<major> or <major>.<minor>)"});
  }
  // Older schema majors (OldSchemaArchives.h): forms that cannot be read.
  {
    json m = historyModel(2);
    m["graph_module"]["graph"]["nodes"][0]["inputs"][0]["arg"]["as_int"] = 1;
    cases.push_back({"schema 2: union with two fields set", historyZip(m, "2", 2),
                     "nodes[0].inputs[0].arg: a union must have exactly one field set, found 2"});
  }
  {
    json m = historyModel(3);
    m["graph_module"]["graph"]["nodes"][0]["inputs"][1]["arg"].erase("$value");
    cases.push_back({"schema 3: tagged union without value", historyZip(m, "3.1", 3),
                     "tagged union 'as_tensor' has no '$value'"});
  }
  {
    json m = historyModel(1);
    m["graph_module"]["signature"]["user_inputs"] = json::array();
    cases.push_back({"schema 1: input in no name map", historyZip(m, "1", 1),
                     "graph input 2 ('arg2_1') is named by none of inputs_to_parameters"});
  }
  {
    json m = historyModel(7);
    m["graph_module"]["graph"]["tensor_values"]["x"]["dtype"] = 24;
    cases.push_back({"schema 7: float8 code of the old enum", historyZip(m, "7.1", 7),
                     "unknown dtype code 24: schema 7.1 predates float8 serialization"});
  }
  return cases;
}

std::vector<std::string> validSamples() {
  std::vector<std::string> out;
  for (ZipStyle s : {ZipStyle::Libzip, ZipStyle::LibzipDeflate, ZipStyle::Torch, ZipStyle::TorchZip64Extra})
    out.push_back(build(basicEntries(), s));
  out.push_back(build(basicEntries(""), ZipStyle::Libzip));
  out.push_back(legacyZip(torchSaveZip(stateDictPickle())));
  for (int major = 1; major <= 8; ++major)  // every schema major's spelling
    out.push_back(historyZip(major));
  return out;
}

}  // namespace ptec::pt2::test
