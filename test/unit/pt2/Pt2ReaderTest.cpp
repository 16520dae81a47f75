// Reading valid PT2 archives: every zip layout, the graph JSON encoding rules,
// signature, weights and the as_strided payload rules.
#include "serde/pt2/Pt2Reader.h"
#include "test/unit/pt2/TestArchives.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

using namespace ptec::pt2;
using namespace ptec::pt2::test;

namespace {
ExportedProgram mustRead(const std::string &bytes, const std::string &name = "m.pt2") {
  ReadError err;
  std::optional<ExportedProgram> ep = readPt2FromMemory(bytes.data(), bytes.size(), name, &err);
  INFO(err.message);
  REQUIRE(ep.has_value());
  return std::move(*ep);
}

template <typename T>
std::vector<T> values(ptec::pt2::ByteView bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

void checkBasic(const ExportedProgram &ep) {
  CHECK(ep.container == ExportedProgram::Container::Pt2Archive);
  CHECK(ep.schemaMajor == 8);
  CHECK(ep.schemaMinor == 12);
  CHECK(ep.torchVersion == "2.9.0");
  CHECK(ep.opsetVersion.at("aten") == 10);
  CHECK(ep.verifiers == std::vector<std::string>{"TRAINING"});
  CHECK(ep.inSpec == "[1, {\"type\": \"builtins.tuple\"}]");

  REQUIRE(ep.inputSpecs.size() == 3);
  CHECK(ep.inputSpecs[0].kind == InputKind::Parameter);
  CHECK(ep.inputSpecs[0].target == "fc.weight");
  CHECK(ep.inputSpecs[0].arg.name == "p_fc_weight");
  CHECK(ep.inputSpecs[1].kind == InputKind::Buffer);
  CHECK(ep.inputSpecs[1].persistent);
  CHECK(ep.inputSpecs[2].kind == InputKind::UserInput);
  CHECK(ep.inputSpecs[2].arg.kind == Argument::Kind::Tensor);
  REQUIRE(ep.outputSpecs.size() == 2);
  CHECK(ep.outputSpecs[0].kind == OutputKind::BufferMutation);
  CHECK(ep.outputSpecs[0].target == "count");
  CHECK(ep.outputSpecs[1].kind == OutputKind::UserOutput);

  const Graph &g = ep.graph;
  REQUIRE(g.nodes.size() == 3);
  const Node &permute = g.nodes[0];
  CHECK(permute.target == "torch.ops.aten.permute.default");
  CHECK(permute.name == "permute");  // derived from the first output
  CHECK(permute.sourceFile == "/home/u/torch/nn/modules/linear.py");
  CHECK(permute.sourceLine == 125);
  CHECK(permute.metadata.at("nn_module_stack") == "L__self__,,Model");
  REQUIRE(permute.inputs.size() == 2);
  CHECK(permute.inputs[1].name == "dims");
  CHECK(permute.inputs[1].kind == 1);
  CHECK(permute.inputs[1].arg.kind == Argument::Kind::Ints);
  CHECK(permute.inputs[1].arg.ints == std::vector<int64_t>{1, 0});
  const Node &add = g.nodes[2];
  CHECK(add.name == "add_node");
  CHECK(add.inputs[0].kind == 0);  // missing kind
  CHECK(add.inputs[1].arg.i == 1);
  CHECK(add.inputs[2].kind == 2);
  CHECK(std::isinf(add.inputs[2].arg.f));
  CHECK(add.metadata.empty());

  const TensorMeta &perm = g.tensorValues.at("permute");
  CHECK(perm.dtype == DType::Float);
  CHECK(perm.sizes == std::vector<int64_t>{3, 2});
  CHECK(perm.strides == std::vector<int64_t>{1, 3});
  CHECK(g.tensorValues.at("b_count").sizes.empty());

  REQUIRE(ep.weights.size() == 2);
  const WeightTensor &w = ep.weights.at("fc.weight");
  CHECK(w.isParam);
  CHECK(w.meta.requiresGrad);
  CHECK(w.meta.dtype == DType::Float);
  CHECK(w.meta.device == "cpu");
  CHECK(values<float>(w.bytes()) == std::vector<float>{0, 1, 2, 3, 4, 5});
  CHECK(w.storage->size() == 24);
  // A weight that is its whole payload in order is not copied: the reader
  // holds its bytes once.
  CHECK(w.wholeStorage);
  CHECK(w.data.empty());
  CHECK(w.bytes().data() == w.storage->data());
  const WeightTensor &count = ep.weights.at("count");
  CHECK_FALSE(count.isParam);
  CHECK(values<int64_t>(count.bytes()) == std::vector<int64_t>{41});
  CHECK(ep.constants.empty());
}
}  // namespace

TEST_CASE("dtype table follows the serialization numbering", "[pt2]") {
  CHECK(dtypeSize(DType::Float) == 4);
  CHECK(std::string(dtypeName(DType::Float)) == "float32");
  CHECK(dtypeSize(DType::ComplexDouble) == 16);
  CHECK(std::string(dtypeName(DType::BFloat16)) == "bfloat16");
  CHECK(dtypeSize(DType::UInt64) == 8);
  CHECK(dtypeSize(DType::Float8E8M0FNU) == 1);
  CHECK(dtypeSize(DType::Unknown) == 0);
  CHECK(isKnownDType(7));
  CHECK_FALSE(isKnownDType(14));
}

TEST_CASE("PT2 archive reads the same from every zip layout", "[pt2]") {
  ZipStyle style = GENERATE(ZipStyle::Libzip, ZipStyle::LibzipDeflate, ZipStyle::Torch,
                            ZipStyle::TorchZip64Extra);
  INFO("style " << static_cast<int>(style));
  ExportedProgram ep = mustRead(writeZip(basicEntries(), style));
  CHECK(ep.path == "m.pt2");
  CHECK(ep.archiveRoot == "m/");
  checkBasic(ep);
}

TEST_CASE("torch-style archive has aligned data and still reads", "[pt2]") {
  std::string bytes = writeZip(basicEntries(), ZipStyle::Torch);
  // The first record's data starts on a 64-byte boundary after the FB padding.
  CHECK(bytes.find("FB") == 30 + std::string("m/data/weights/weight_0").size());
  CHECK(bytes.find(floatBytes({0, 1, 2, 3, 4, 5})) % 64 == 0);
  checkBasic(mustRead(bytes));
}

TEST_CASE("root folder is found by archive_format, not by file name", "[pt2]") {
  ExportedProgram ep = mustRead(writeZip(basicEntries("linear_3/"), ZipStyle::Torch), "linear.pt2");
  CHECK(ep.archiveRoot == "linear_3/");
  checkBasic(ep);
}

TEST_CASE("pre-root-folder and Python-zipfile archives are accepted", "[pt2]") {
  std::vector<ZipEntry> entries = basicEntries("");
  removeEntry(entries, "archive_version");
  setEntry(entries, "version", "8.12");  // Python-zipfile packages write this instead
  ExportedProgram ep = mustRead(writeZip(entries, ZipStyle::Libzip));
  CHECK(ep.archiveRoot.empty());
  checkBasic(ep);
}

TEST_CASE("one DEFLATE entry among stored ones", "[pt2]") {
  std::vector<ZipEntry> entries = basicEntries();
  for (ZipEntry &e : entries)
    if (e.name == "m/data/weights/weight_0")
      e.deflate = true;
  checkBasic(mustRead(writeZip(entries, ZipStyle::Libzip)));
}

TEST_CASE("readPt2 reads a file and names it in errors", "[pt2]") {
  std::string path = "pt2_reader_test_tmp.pt2";
  {
    std::string bytes = writeZip(basicEntries(), ZipStyle::Torch);
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  ReadError err;
  std::optional<ExportedProgram> ep = readPt2(path, &err);
  REQUIRE(ep.has_value());
  CHECK(ep->path == path);
  checkBasic(*ep);
  std::remove(path.c_str());

  CHECK_FALSE(readPt2("does_not_exist.pt2", &err).has_value());
  CHECK(err.message == "does_not_exist.pt2: cannot open file: No such file or directory");
  CHECK_FALSE(readPt2("does_not_exist.pt2", nullptr).has_value());  // err is optional
  CHECK_FALSE(readPt2(".", &err).has_value());
  CHECK(err.message == ".: cannot open file: not a regular file");
}

TEST_CASE("JSON encoding rules: as_none forms, NaN, defaults, unknown keys", "[pt2]") {
  json m = basicModel();
  json &node = m["graph_module"]["graph"]["nodes"][1];
  node["inputs"].push_back({{"name", "a"}, {"arg", {{"as_none", true}}}});
  node["inputs"].push_back({{"name", "b"}, {"arg", {{"as_none", json::array()}}}});
  node["inputs"].push_back({{"name", "c"}, {"arg", {{"as_float", "NaN"}}}});
  node["inputs"].push_back({{"name", "d"}, {"arg", {{"as_float", 3}}}});  // int where a float goes
  node["inputs"].push_back({{"name", "e"}, {"arg", {{"as_floats", {"-Infinity", 0.5}}}}});
  node["inputs"].push_back({{"name", "f"}, {"arg", {{"as_int", 9007199254740993LL}}}});
  m["graph_module"]["graph"].erase("sym_int_values");
  m["graph_module"]["graph"]["some_new_field"] = {{"x", 1}};
  m.erase("verifiers");
  m.erase("torch_version");
  std::vector<ZipEntry> entries = basicEntries();
  setEntry(entries, "m/models/model.json", m.dump());
  ExportedProgram ep = mustRead(writeZip(entries, ZipStyle::Libzip));
  const auto &in = ep.graph.nodes[1].inputs;
  REQUIRE(in.size() == 8);
  CHECK(in[2].arg.kind == Argument::Kind::None);
  CHECK(in[3].arg.kind == Argument::Kind::None);
  CHECK(std::isnan(in[4].arg.f));
  CHECK(in[5].arg.f == 3.0);
  CHECK(in[6].arg.floats.size() == 2);
  CHECK(std::isinf(in[6].arg.floats[0]));
  CHECK(in[6].arg.floats[0] < 0);
  CHECK(in[7].arg.i == 9007199254740993LL);
  CHECK(ep.verifiers.empty());
  CHECK(ep.torchVersion == "<=2.4");
}

TEST_CASE("every argument kind maps to its field", "[pt2]") {
  json m = basicModel();
  json &inputs = m["graph_module"]["graph"]["nodes"][1]["inputs"];
  auto add = [&](const char *name, json arg) { inputs.push_back({{"name", name}, {"arg", arg}, {"kind", 2}}); };
  add("tensors", {{"as_tensors", {{{"name", "x"}}, {{"name", "permute"}}}}});
  add("sym_int", {{"as_sym_int", {{"as_name", "s0"}}}});
  add("sym_int_c", {{"as_sym_int", {{"as_int", 5}}}});
  add("sym_ints", {{"as_sym_ints", {{{"as_int", 2}}, {{"as_name", "s1"}}}}});
  add("sym_bool", {{"as_sym_bool", {{"as_bool", true}}}});
  add("sym_float", {{"as_sym_float", {{"as_float", 1.5}}}});
  add("dtype", {{"as_scalar_type", 6}});
  add("mf", {{"as_memory_format", 1}});
  add("layout", {{"as_layout", 7}});
  add("device", {{"as_device", {{"type", "cuda"}, {"index", 1}}}});
  add("opt", {{"as_optional_tensors", {{{"as_tensor", {{"name", "x"}}}}, {{"as_none", true}}}}});
  add("opt1", {{"as_optional_tensor", {{"as_tensor", {{"name", "x"}}}}}});
  add("str", {{"as_string", "tanh"}});
  add("strs", {{"as_strings", {"a", "b"}}});
  add("bools", {{"as_bools", {true, false}}});
  add("op", {{"as_operator", "torch.ops.aten.add_.Tensor"}});
  add("cplx", {{"as_complex", {{"real", 1.0}, {"imag", -2.0}}}});
  add("lists", {{"as_int_lists", {{1, 2}, {3}}}});
  add("obj", {{"as_custom_obj", {{"name", "obj0"}, {"class_fqn", "__torch__.torch.classes.m.Foo"}}}});
  std::vector<ZipEntry> entries = basicEntries();
  setEntry(entries, "m/models/model.json", m.dump());
  ExportedProgram ep = mustRead(writeZip(entries, ZipStyle::Libzip));
  std::map<std::string, Argument> args;
  for (const NamedArgument &na : ep.graph.nodes[1].inputs)
    args[na.name] = na.arg;
  using K = Argument::Kind;
  CHECK(args["tensors"].kind == K::Tensors);
  CHECK(args["tensors"].names == std::vector<std::string>{"x", "permute"});
  CHECK(args["sym_int"].kind == K::SymInt);
  CHECK(args["sym_int"].name == "s0");
  CHECK(args["sym_int_c"].name.empty());
  CHECK(args["sym_int_c"].i == 5);
  CHECK(args["sym_ints"].kind == K::SymInts);
  CHECK(args["sym_ints"].symIsName == std::vector<bool>{false, true});
  CHECK(args["sym_ints"].ints[0] == 2);
  CHECK(args["sym_ints"].names[1] == "s1");
  CHECK(args["sym_bool"].b);
  CHECK(args["sym_float"].f == 1.5);
  CHECK(args["dtype"].kind == K::ScalarType);
  CHECK(args["dtype"].i == 6);
  CHECK(args["mf"].kind == K::MemoryFormat);
  CHECK(args["layout"].kind == K::Layout);
  CHECK(args["device"].device == "cuda:1");
  REQUIRE(args["opt"].optTensors.size() == 2);
  CHECK_FALSE(args["opt"].optTensors[0].isNone);
  CHECK(args["opt"].optTensors[0].name == "x");
  CHECK(args["opt"].optTensors[1].isNone);
  CHECK(args["opt1"].kind == K::OptionalTensor);
  CHECK(args["opt1"].name == "x");
  CHECK(args["str"].s == "tanh");
  CHECK(args["strs"].strings == std::vector<std::string>{"a", "b"});
  CHECK(args["bools"].bools == std::vector<bool>{true, false});
  CHECK(args["op"].kind == K::Operator);
  CHECK(args["op"].name == "torch.ops.aten.add_.Tensor");
  CHECK(args["cplx"].f == 1.0);
  CHECK(args["cplx"].imag == -2.0);
  CHECK(args["lists"].intLists == std::vector<std::vector<int64_t>>{{1, 2}, {3}});
  CHECK(args["obj"].kind == K::CustomObj);
  CHECK(args["obj"].name == "obj0");
  CHECK(args["obj"].s == "__torch__.torch.classes.m.Foo");
}

TEST_CASE("HOP nodes keep their subgraphs as Graph arguments", "[pt2]") {
  json m = basicModel();
  json sub = {{"inputs", {{{"as_tensor", {{"name", "arg0_1"}}}}}},
              {"outputs", {{{"as_tensor", {{"name", "sin"}}}}}},
              {"nodes",
               {{{"target", "torch.ops.aten.sin.default"},
                 {"inputs", {{{"name", "self"}, {"arg", {{"as_tensor", {{"name", "arg0_1"}}}}}, {"kind", 1}}}},
                 {"outputs", {{{"as_tensor", {{"name", "sin"}}}}}},
                 {"metadata", json::object()}}}},
              {"tensor_values", {{"arg0_1", tensorMeta(7, {4, 2})}, {"sin", tensorMeta(7, {4, 2})}}},
              {"is_single_tensor_return", true}};
  json hop = {{"target", "torch.ops.higher_order.wrap_with_set_grad_enabled"},
              {"inputs",
               {{{"name", ""}, {"arg", {{"as_bool", false}}}, {"kind", 1}},
                {{"name", ""}, {"arg", {{"as_graph", {{"name", "submod_0"}, {"graph", sub}}}}}, {"kind", 1}},
                {{"name", ""}, {"arg", {{"as_tensor", {{"name", "mm"}}}}}, {"kind", 1}}}},
              {"outputs", {{{"as_tensor", {{"name", "wrap"}}}}}},
              {"metadata", json::object()}};
  m["graph_module"]["graph"]["nodes"].push_back(hop);
  m["graph_module"]["graph"]["tensor_values"]["wrap"] = tensorMeta(7, {4, 2});
  std::vector<ZipEntry> entries = basicEntries();
  setEntry(entries, "m/models/model.json", m.dump());
  ExportedProgram ep = mustRead(writeZip(entries, ZipStyle::Libzip));
  const Node &n = ep.graph.nodes.back();
  CHECK(n.target == "torch.ops.higher_order.wrap_with_set_grad_enabled");
  CHECK(n.isHopSingleTensorReturn);
  REQUIRE(n.inputs.size() == 3);
  const Argument &g = n.inputs[1].arg;
  CHECK(g.kind == Argument::Kind::Graph);
  CHECK(g.name == "submod_0");
  REQUIRE(g.graph);
  CHECK(g.graph->isSingleTensorReturn);
  REQUIRE(g.graph->nodes.size() == 1);
  CHECK(g.graph->nodes[0].target == "torch.ops.aten.sin.default");
  CHECK(g.graph->tensorValues.at("arg0_1").sizes == std::vector<int64_t>{4, 2});
}

TEST_CASE("shared path_names stay aliased; views are materialized", "[pt2]") {
  // One 12-float storage seen as a [3,4] matrix, its transpose, and row 1.
  json m = basicModel();
  json &g = m["graph_module"]["graph"];
  json &specs = m["graph_module"]["signature"]["input_specs"];
  const char *names[] = {"mat", "mat_t", "row"};
  std::vector<std::vector<int64_t>> sizes = {{3, 4}, {4, 3}, {4}};
  for (int k = 0; k < 3; ++k) {
    std::string ph = std::string("c_") + names[k];
    json in, spec;
    in["as_tensor"]["name"] = ph;
    spec["tensor_constant"]["arg"]["name"] = ph;
    spec["tensor_constant"]["tensor_constant_name"] = names[k];
    g["inputs"].insert(g["inputs"].begin(), in);
    specs.insert(specs.begin(), spec);
    g["tensor_values"][ph] = tensorMeta(7, sizes[k]);
  }
  json consts = {{"config",
                  {{"mat", {{"path_name", "tensor_0"}, {"is_param", false}, {"use_pickle", false},
                            {"tensor_meta", tensorMeta(7, {3, 4})}}},
                   {"mat_t", {{"path_name", "tensor_0"}, {"is_param", false}, {"use_pickle", false},
                              {"tensor_meta", tensorMeta(7, {4, 3}, {1, 4})}}},
                   {"row", {{"path_name", "tensor_0"}, {"is_param", false}, {"use_pickle", false},
                            {"tensor_meta", tensorMeta(7, {4}, {1}, 4)}}},
                   {"empty", {{"path_name", "tensor_1"}, {"is_param", false}, {"use_pickle", false},
                              {"tensor_meta", tensorMeta(4, {0, 2})}}}}}};
  std::vector<ZipEntry> entries = basicEntries();
  setEntry(entries, "m/models/model.json", m.dump());
  setEntry(entries, "m/data/constants/model_constants_config.json", consts.dump());
  setEntry(entries, "m/data/constants/tensor_0", floatBytes({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  setEntry(entries, "m/data/constants/tensor_1", "");
  ExportedProgram ep = mustRead(writeZip(entries, ZipStyle::Torch));
  REQUIRE(ep.constants.size() == 4);
  const WeightTensor &mat = ep.constants.at("mat");
  const WeightTensor &t = ep.constants.at("mat_t");
  const WeightTensor &row = ep.constants.at("row");
  CHECK(mat.storage == t.storage);
  CHECK(mat.storage == row.storage);
  CHECK(values<float>(t.bytes()) == std::vector<float>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  CHECK(values<float>(row.bytes()) == std::vector<float>{4, 5, 6, 7});
  CHECK(row.meta.storageOffset == 4);
  // Views of part of a payload, or out of order, are materialized.
  CHECK(mat.wholeStorage);
  CHECK_FALSE(t.wholeStorage);
  CHECK_FALSE(row.wholeStorage);
  // A 0-byte payload is right for a tensor without elements (one with
  // elements is refused: PayloadCheckTest.cpp).
  const WeightTensor &z = ep.constants.at("empty");
  CHECK(z.storage->empty());
  CHECK(z.bytes().empty());
}

TEST_CASE("non-persistent buffers live in constants", "[pt2]") {
  json m = basicModel();
  m["graph_module"]["signature"]["input_specs"][1]["buffer"]["persistent"] = false;
  json w = basicWeightsConfig();
  json c = {{"config", {{"count", w["config"]["count"]}}}};
  w["config"].erase("count");
  c["config"]["count"]["path_name"] = "tensor_0";
  std::vector<ZipEntry> entries = basicEntries();
  setEntry(entries, "m/models/model.json", m.dump());
  setEntry(entries, "m/data/weights/model_weights_config.json", w.dump());
  setEntry(entries, "m/data/constants/model_constants_config.json", c.dump());
  setEntry(entries, "m/data/constants/tensor_0", int64Bytes({7}));
  ExportedProgram ep = mustRead(writeZip(entries, ZipStyle::Libzip));
  CHECK(ep.weights.count("count") == 0);
  CHECK(values<int64_t>(ep.constants.at("count").bytes()) == std::vector<int64_t>{7});
  CHECK_FALSE(ep.inputSpecs[1].persistent);
}

TEST_CASE("symbolic sizes are kept for the importer to bound", "[pt2]") {
  json m = basicModel();
  m["graph_module"]["graph"]["tensor_values"]["mm"]["sizes"][1] = {
      {"as_expr", {{"expr_str", "s0 + 1"}, {"hint", nullptr}}}};
  m["graph_module"]["graph"]["sym_int_values"]["sym_size"] = {{"as_expr", {{"expr_str", "s0"}}}};
  m["graph_module"]["graph"]["sym_int_values"]["five"] = {{"as_int", 5}};
  m["range_constraints"] = {{"s0", {{"min_val", 2}, {"max_val", 31}}},
                            {"s1", {{"min_val", 1}, {"max_val", nullptr}}},
                            {"s2", {{"min_val", 0}, {"max_val", 9223372036854775807ull}}},
                            {"s3", {{"min_val", 0}, {"max_val", 18446744073709551615ull}}}};
  std::vector<ZipEntry> entries = basicEntries();
  setEntry(entries, "m/models/model.json", m.dump());
  ExportedProgram sym = mustRead(writeZip(entries, ZipStyle::Libzip));
  const TensorMeta &mm = sym.graph.tensorValues.at("mm");
  CHECK(mm.sizes[1] == -1);
  REQUIRE(mm.symSizes.size() == mm.sizes.size());
  CHECK(mm.symSizes[0].empty());
  CHECK(mm.symSizes[1] == "s0 + 1");
  CHECK(sym.graph.symIntExprs.at("sym_size") == "s0");
  CHECK(sym.graph.symIntValues.at("five") == 5);
  CHECK(sym.graph.symIntValues.count("sym_size") == 0);
  CHECK(sym.rangeConstraints.at("s0").min == 2);
  CHECK(sym.rangeConstraints.at("s0").max == 31);
  CHECK_FALSE(sym.rangeConstraints.at("s1").max.has_value());
  CHECK(sym.rangeConstraints.at("s2").max == INT64_MAX);
  CHECK_FALSE(sym.rangeConstraints.at("s3").max.has_value()); // beyond int64: unbounded

  // An intermediate's symbolic storage offset (a slice at a data-dependent
  // position) is unreliable metadata that nothing reads: accepted. An
  // input's is refused (TestArchives), naming it.
  m["graph_module"]["graph"]["tensor_values"]["mm"]["sizes"][1] = {{"as_int", 2}};
  m["graph_module"]["graph"]["tensor_values"]["mm"]["storage_offset"] = {
      {"as_expr", {{"expr_str", "s0 + 1"}, {"hint", nullptr}}}};
  setEntry(entries, "m/models/model.json", m.dump());
  std::string bytes = writeZip(entries, ZipStyle::Libzip);
  ReadError err;
  CHECK(readPt2FromMemory(bytes.data(), bytes.size(), "m.pt2", &err).has_value());

  m["graph_module"]["graph"]["tensor_values"]["mm"] = tensorMeta(7, {4, 2});
  setEntry(entries, "m/models/model.json", m.dump());
  ExportedProgram ep = mustRead(writeZip(entries, ZipStyle::Libzip));
  CHECK(ep.graph.symIntValues.size() == 1);
  CHECK(ep.graph.symIntValues.at("five") == 5);
}
