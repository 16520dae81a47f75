// Reading every ExportedProgram schema major torch.export.save has written
// (torch 2.1 onwards) into the same structs, and refusing what cannot be read
// with the JSON path of the field. Archives come from OldSchemaArchives.cpp.
#include "serde/pt2/Pt2Reader.h"
#include "test/unit/pt2/OldSchemaArchives.h"
#include "test/unit/pt2/TestArchives.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace ptec::pt2;
using namespace ptec::pt2::test;

namespace {
ExportedProgram mustRead(const std::string &bytes) {
  ReadError err;
  std::optional<ExportedProgram> ep = readPt2FromMemory(bytes.data(), bytes.size(), "old.pt2", &err);
  INFO(err.message);
  REQUIRE(ep.has_value());
  return std::move(*ep);
}

std::string mustFail(const std::string &bytes) {
  ReadError err;
  std::optional<ExportedProgram> ep = readPt2FromMemory(bytes.data(), bytes.size(), "old.pt2", &err);
  CHECK_FALSE(ep.has_value());
  return err.message;
}

template <typename T>
std::vector<T> values(ptec::pt2::ByteView bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

const char *kJson = "old.pt2: serialized_exported_program.json: ";

// The whole program of historyModel(), checked field by field.
void checkHistoryProgram(const ExportedProgram &ep, int major) {
  HistoryNames n = historyNames(major);
  CHECK(ep.container == ExportedProgram::Container::LegacyZip);
  CHECK(ep.schemaMajor == major);
  CHECK(ep.schemaMinor == historyMinor(major));
  CHECK(ep.torchVersion == (major >= 8 ? "2.9.0" : "<=2.4"));
  CHECK(ep.opsetVersion == std::map<std::string, int64_t>{{"aten", 10}});
  // torch 2.1 had neither `dialect` nor `verifiers`; 2.2 to 6.x wrote `dialect`.
  CHECK(ep.verifiers == (major == 1 ? std::vector<std::string>{} : std::vector<std::string>{"ATEN"}));
  CHECK(ep.inSpec.find("builtins.tuple") != std::string::npos);
  CHECK(ep.outSpec.find("\"type\": null") != std::string::npos);

  const Graph &g = ep.graph;
  REQUIRE(g.inputs.size() == 3);
  CHECK(g.inputs[0].kind == Argument::Kind::Tensor);
  CHECK(g.inputs[0].name == n.w);
  CHECK(g.inputs[2].name == n.x);
  REQUIRE(g.outputs.size() == 2);
  CHECK(g.outputs[0].name == "add");
  CHECK(g.outputs[1].name == "to_copy");

  REQUIRE(ep.inputSpecs.size() == 3);
  CHECK(ep.inputSpecs[0].kind == InputKind::Parameter);
  CHECK(ep.inputSpecs[0].target == "w");
  CHECK(ep.inputSpecs[0].arg.kind == Argument::Kind::Tensor);
  CHECK(ep.inputSpecs[0].arg.name == n.w);
  CHECK(ep.inputSpecs[1].kind == InputKind::Buffer);
  CHECK(ep.inputSpecs[1].target == "count");
  CHECK(ep.inputSpecs[1].arg.name == n.count);
  CHECK(ep.inputSpecs[1].persistent);  // missing before schema 3: persistent
  CHECK(ep.inputSpecs[2].kind == InputKind::UserInput);
  CHECK(ep.inputSpecs[2].arg.kind == Argument::Kind::Tensor);
  CHECK(ep.inputSpecs[2].arg.name == n.x);
  CHECK(ep.inputSpecs[2].target.empty());
  REQUIRE(ep.outputSpecs.size() == 2);
  CHECK(ep.outputSpecs[0].kind == OutputKind::BufferMutation);
  CHECK(ep.outputSpecs[0].target == "count");
  CHECK(ep.outputSpecs[0].arg.name == "add");
  CHECK(ep.outputSpecs[1].kind == OutputKind::UserOutput);
  CHECK(ep.outputSpecs[1].arg.kind == Argument::Kind::Tensor);
  CHECK(ep.outputSpecs[1].arg.name == "to_copy");

  REQUIRE(g.nodes.size() == 5);
  const Node &mm = g.nodes[0];
  CHECK(mm.target == "torch.ops.aten.mm.default");
  CHECK(mm.name == "mm");
  REQUIRE(mm.inputs.size() == 2);
  CHECK(mm.inputs[0].name == "self");
  CHECK(mm.inputs[0].arg.kind == Argument::Kind::Tensor);
  CHECK(mm.inputs[0].arg.name == n.w);
  CHECK(mm.inputs[1].arg.name == n.x);
  CHECK(mm.inputs[0].kind == (major >= 8 ? 1 : 0));  // ArgumentKind came with schema 8
  CHECK(mm.isHopSingleTensorReturn);                 // missing: one tensor output

  const Node &clamp = g.nodes[1];
  REQUIRE(clamp.inputs.size() == 3);
  CHECK(clamp.inputs[1].name == "min");
  CHECK(clamp.inputs[1].arg.kind == Argument::Kind::None);  // [] before 8.2, true since
  CHECK(clamp.inputs[2].arg.kind == Argument::Kind::Float);
  CHECK(clamp.inputs[2].arg.f == 6.0);

  const Node &index = g.nodes[2];
  REQUIRE(index.inputs.size() == 2);
  const Argument &indices = index.inputs[1].arg;
  CHECK(indices.kind == Argument::Kind::OptionalTensors);
  REQUIRE(indices.optTensors.size() == 2);
  CHECK_FALSE(indices.optTensors[0].isNone);
  CHECK(indices.optTensors[0].name == "clamp");  // a bare name before schema 5 here
  CHECK(indices.optTensors[1].isNone);

  const Node &toCopy = g.nodes[3];
  REQUIRE(toCopy.inputs.size() == 4);
  CHECK(toCopy.inputs[1].arg.kind == Argument::Kind::ScalarType);
  CHECK(toCopy.inputs[1].arg.i == 7);
  CHECK(toCopy.inputs[2].arg.kind == Argument::Kind::Layout);
  CHECK(toCopy.inputs[2].arg.i == 7);
  CHECK(toCopy.inputs[3].arg.kind == Argument::Kind::Device);
  CHECK(toCopy.inputs[3].arg.device == "cpu");

  const Node &add = g.nodes[4];
  CHECK(add.target == "torch.ops.aten.add.Scalar");
  REQUIRE(add.inputs.size() == 2);
  CHECK(add.inputs[0].arg.name == n.count);
  CHECK(add.inputs[1].arg.kind == Argument::Kind::Int);
  CHECK(add.inputs[1].arg.i == 1);

  REQUIRE(g.tensorValues.size() == 8);
  const TensorMeta &w = g.tensorValues.at(n.w);
  CHECK(w.dtype == DType::Float);
  CHECK(w.sizes == std::vector<int64_t>{2, 3});
  CHECK(w.strides == std::vector<int64_t>{3, 1});
  CHECK(w.storageOffset == 0);  // a plain int before schema 5
  CHECK(w.requiresGrad);
  CHECK(w.device == "cpu");
  CHECK(w.layout == 7);
  const TensorMeta &count = g.tensorValues.at(n.count);
  CHECK(count.dtype == DType::Long);
  CHECK(count.sizes.empty());
  CHECK(g.tensorValues.at("to_copy").sizes == std::vector<int64_t>{2, 2});

  REQUIRE(ep.weights.size() == 2);
  const WeightTensor &wt = ep.weights.at("w");
  CHECK(wt.isParam);
  CHECK(wt.meta.sizes == std::vector<int64_t>{2, 3});
  CHECK(values<float>(wt.bytes()) == std::vector<float>{0, 1, 2, 3, 4, 5});
  CHECK(values<int64_t>(ep.weights.at("count").bytes()) == std::vector<int64_t>{41});
  CHECK(ep.constants.empty());
}
}  // namespace

TEST_CASE("every schema major since torch 2.1 reads into the same program", "[pt2][history]") {
  int major = GENERATE(range(1, 9));
  INFO("schema major " << major);
  checkHistoryProgram(mustRead(historyZip(major)), major);
}

TEST_CASE("the union spellings of each era", "[pt2][history]") {
  // Every field, null except one (schema 1-2); tagged (3-4); one key (5+).
  nlohmann::json all = unionAs(2, "Argument", "as_int", 3);
  CHECK(all.size() == 22);
  CHECK(all.at("as_int") == 3);
  CHECK(all.at("as_tensor").is_null());
  CHECK(unionAs(3, "Argument", "as_int", 3) == nlohmann::json({{"$type", "as_int"}, {"$value", 3}}));
  CHECK(unionAs(5, "Argument", "as_int", 3) == nlohmann::json({{"as_int", 3}}));
  // Schema 3-4 archives may also hold the every-field form of early 3.x builds.
  nlohmann::json m = historyModel(3);
  m["graph_module"]["graph"]["nodes"][4]["inputs"][1]["arg"] = unionAs(2, "Argument", "as_int", 9);
  ExportedProgram ep = mustRead(historyZip(m, "3.1", 3));
  CHECK(ep.graph.nodes[4].inputs[1].arg.i == 9);
}

TEST_CASE("schema 1 without schema_version takes the version record", "[pt2][history]") {
  nlohmann::json m = historyModel(1);
  m.erase("schema_version");
  ExportedProgram ep = mustRead(historyZip(m, "1", 1));
  CHECK(ep.schemaMajor == 1);
  CHECK(ep.inputSpecs.at(0).kind == InputKind::Parameter);
  CHECK(ep.weights.at("w").isParam);
}

TEST_CASE("the JSON's schema_version wins over the version record", "[pt2][history]") {
  // The archive of the issue: a torch 2.2 file says version 2 in both places.
  ExportedProgram ep2 = mustRead(historyZip(historyModel(2), "2", 2));
  CHECK(ep2.schemaMajor == 2);
  // A record that disagrees does not change how the JSON is read.
  ExportedProgram ep = mustRead(historyZip(historyModel(5), "2", 5));
  CHECK(ep.schemaMajor == 5);
  CHECK(ep.schemaMinor == 1);
}

TEST_CASE("schema 1 name-map signatures", "[pt2][history]") {
  SECTION("a value that is both a buffer mutation and a user output is placed by position") {
    nlohmann::json m = historyModel(1);
    m["graph_module"]["graph"]["outputs"][1] = unionAs(1, "Argument", "as_tensor", {{"name", "add"}});
    m["graph_module"]["signature"]["user_outputs"] = {"add"};
    ExportedProgram ep = mustRead(historyZip(m, "1", 1));
    REQUIRE(ep.outputSpecs.size() == 2);
    CHECK(ep.outputSpecs[0].kind == OutputKind::BufferMutation);
    CHECK(ep.outputSpecs[0].target == "count");
    CHECK(ep.outputSpecs[1].kind == OutputKind::UserOutput);
    CHECK(ep.outputSpecs[1].target.empty());
    CHECK(ep.outputSpecs[1].arg.name == "add");
  }
  SECTION("backward signatures give the loss and the gradients") {
    nlohmann::json m = historyModel(1);
    auto &g = m["graph_module"]["graph"];
    g["outputs"] = {unionAs(1, "Argument", "as_tensor", {{"name", "add"}}),
                    unionAs(1, "Argument", "as_tensor", {{"name", "mm"}}),
                    unionAs(1, "Argument", "as_tensor", {{"name", "clamp"}}),
                    unionAs(1, "Argument", "as_tensor", {{"name", "to_copy"}})};
    auto &sig = m["graph_module"]["signature"];
    sig["user_outputs"] = {"to_copy"};
    sig["backward_signature"] = {{"gradients_to_parameters", {{"mm", "w"}}},
                                 {"gradients_to_user_inputs", {{"clamp", "arg2_1"}}},
                                 {"loss_output", "to_copy"}};
    ExportedProgram ep = mustRead(historyZip(m, "1", 1));
    REQUIRE(ep.outputSpecs.size() == 4);
    CHECK(ep.outputSpecs[0].kind == OutputKind::BufferMutation);
    CHECK(ep.outputSpecs[1].kind == OutputKind::GradientToParameter);
    CHECK(ep.outputSpecs[1].target == "w");
    CHECK(ep.outputSpecs[2].kind == OutputKind::GradientToUserInput);
    CHECK(ep.outputSpecs[2].target == "arg2_1");
    CHECK(ep.outputSpecs[3].kind == OutputKind::LossOutput);
    CHECK(ep.outputSpecs[3].arg.name == "to_copy");
  }
  SECTION("development builds between 2.1 and 2.2: spec lists with loss_outout") {
    nlohmann::json m = historyModel(2);
    m["schema_version"] = 1;
    m["graph_module"]["signature"]["output_specs"][1] =
        unionAs(1, "OutputSpec", "loss_outout", {{"arg", {{"name", "to_copy"}}}});
    ExportedProgram ep = mustRead(historyZip(m, "1", 2));
    CHECK(ep.schemaMajor == 1);
    CHECK(ep.outputSpecs.at(1).kind == OutputKind::LossOutput);
    CHECK(ep.outputSpecs.at(1).arg.name == "to_copy");
  }
}

TEST_CASE("upgrades that belong to their era only", "[pt2][history]") {
  SECTION("a bare-name optional tensor is read up to schema 7") {
    nlohmann::json m = historyModel(7);
    m["graph_module"]["graph"]["nodes"][2]["inputs"][1]["arg"]["as_optional_tensors"][0] = {
        {"as_tensor", "clamp"}};
    ExportedProgram ep = mustRead(historyZip(m, "7.1", 7));
    CHECK(ep.graph.nodes[2].inputs[1].arg.optTensors.at(0).name == "clamp");
  }
  SECTION("and refused in schema 8") {
    nlohmann::json m = historyModel(8);
    m["graph_module"]["graph"]["nodes"][2]["inputs"][1]["arg"]["as_optional_tensors"][0] = {
        {"as_tensor", "clamp"}};
    CHECK(mustFail(historyZip(m, "8.12", 8)) ==
          std::string(kJson) +
              "graph_module.graph.nodes[2].inputs[1].arg.as_optional_tensors[0].as_tensor: expected "
              "an object, got a string (node torch.ops.aten.index.Tensor)");
  }
  SECTION("loss_outout is refused in schema 8") {
    nlohmann::json m = historyModel(8);
    m["graph_module"]["signature"]["output_specs"][1] = {{"loss_outout", {{"arg", {{"name", "to_copy"}}}}}};
    CHECK(mustFail(historyZip(m, "8.12", 8)) ==
          std::string(kJson) +
              "graph_module.signature.output_specs[1]: unknown output spec kind 'loss_outout'");
  }
  SECTION("an every-field union is refused from schema 5 on") {
    nlohmann::json m = historyModel(5);
    m["graph_module"]["graph"]["nodes"][4]["inputs"][1]["arg"] = unionAs(2, "Argument", "as_int", 1);
    std::string msg = mustFail(historyZip(m, "5.1", 5));
    CHECK(msg.rfind(std::string(kJson) +
                        "graph_module.graph.nodes[4].inputs[1].arg: a union must have exactly one "
                        "key, found 22 (as_bool, as_bools,",
                    0) == 0);
  }
}

TEST_CASE("unreadable old forms name the JSON path and the reason", "[pt2][history]") {
  struct Case {
    const char *name;
    int major;
    void (*edit)(nlohmann::json &);
    const char *expect;  // the message after "old.pt2: serialized_exported_program.json: "
  };
  const Case cases[] = {
      {"every-field union with two fields set", 2,
       [](nlohmann::json &m) { m["graph_module"]["graph"]["nodes"][0]["inputs"][0]["arg"]["as_int"] = 1; },
       "graph_module.graph.nodes[0].inputs[0].arg: a union must have exactly one field set, found 2 "
       "(as_int, as_tensor) (node torch.ops.aten.mm.default)"},
      {"every-field union with no field set", 2,
       [](nlohmann::json &m) { m["graph_module"]["graph"]["nodes"][0]["inputs"][0]["arg"]["as_tensor"] = nullptr; },
       "graph_module.graph.nodes[0].inputs[0].arg: a union must have one field set, but all 22 of "
       "its fields are null (node torch.ops.aten.mm.default)"},
      {"tagged union without a value", 3,
       [](nlohmann::json &m) { m["graph_module"]["graph"]["nodes"][0]["inputs"][1]["arg"].erase("$value"); },
       "graph_module.graph.nodes[0].inputs[1].arg: tagged union 'as_tensor' has no '$value' (node "
       "torch.ops.aten.mm.default)"},
      {"tagged union whose tag is not a string", 4,
       [](nlohmann::json &m) { m["graph_module"]["graph"]["inputs"][2]["$type"] = 20; },
       "graph_module.graph.inputs[2].$type: expected a string, got an integer"},
      {"tagged payload of the wrong shape", 3,
       [](nlohmann::json &m) { m["graph_module"]["graph"]["outputs"][0]["$value"] = "add"; },
       "graph_module.graph.outputs[0].$value: expected an object, got a string"},
      {"schema 1 input named by no map", 1,
       [](nlohmann::json &m) { m["graph_module"]["signature"]["user_inputs"] = nlohmann::json::array(); },
       "graph_module.signature: graph input 2 ('arg2_1') is named by none of inputs_to_parameters, "
       "inputs_to_buffers and user_inputs; exactly one must name it"},
      {"schema 1 input named twice", 1,
       [](nlohmann::json &m) { m["graph_module"]["signature"]["user_inputs"].push_back("arg0_1"); },
       "graph_module.signature: graph input 0 ('arg0_1') is named by 2 of inputs_to_parameters, "
       "inputs_to_buffers and user_inputs; exactly one must name it"},
      {"schema 1 output named by nothing", 1,
       [](nlohmann::json &m) { m["graph_module"]["signature"]["user_outputs"] = nlohmann::json::array(); },
       "graph_module.signature: graph output 1 ('to_copy') is named by none of buffers_to_mutate, "
       "backward_signature and user_outputs"},
      {"schema 1 map of the wrong type", 1,
       [](nlohmann::json &m) { m["graph_module"]["signature"]["inputs_to_parameters"] = {{"arg0_1", 3}}; },
       "graph_module.signature.inputs_to_parameters['arg0_1']: expected a string, got an integer"},
      {"schema 1 parameter that is not a tensor", 1,
       [](nlohmann::json &m) {
         m["graph_module"]["graph"]["inputs"][0] = unionAs(1, "Argument", "as_sym_int", {{"as_name", "arg0_1"}, {"as_int", nullptr}});
       },
       "graph_module.signature: graph input 0 ('arg0_1') is a parameter or buffer but not a tensor"},
      {"float8 code of the pre-8.3 enum", 7,
       [](nlohmann::json &m) { m["graph_module"]["graph"]["tensor_values"]["x"]["dtype"] = 24; },
       "graph_module.graph.tensor_values['x'].dtype: unknown dtype code 24: schema 7.1 predates "
       "float8 serialization (schema 8.3), and the float8 enum numbers declared before it differ "
       "between releases"},
      {"a major newer than the reader", 8,
       [](nlohmann::json &m) { m["schema_version"] = {{"major", 9}, {"minor", 0}}; },
       "schema_version 9.0 is unsupported: majors 1 to 8 are read (torch 2.1 onwards); a newer "
       "major is a layout this reader does not know"},
      {"a negative version", 2, [](nlohmann::json &m) { m["schema_version"] = -2; },
       "schema_version: schema version -2.0 is not a valid version"},
      {"a version of the wrong type", 3, [](nlohmann::json &m) { m["schema_version"]["major"] = "3"; },
       "schema_version.major: expected an integer, got a string"},
  };
  for (const Case &c : cases) {
    SECTION(c.name) {
      nlohmann::json m = historyModel(c.major);
      c.edit(m);
      CHECK(mustFail(historyZip(m, historyVersionRecord(c.major), c.major)) == std::string(kJson) + c.expect);
    }
  }
}

TEST_CASE("version records that say nothing readable", "[pt2][history]") {
  nlohmann::json m = historyModel(2);
  SECTION("garbage record") {
    CHECK(mustFail(historyZip(m, "two", 2)) ==
          "old.pt2: version: 'two' is not a schema version (<major> or <major>.<minor>)");
  }
  SECTION("no schema_version and no record") {
    m.erase("schema_version");
    CHECK(mustFail(historyZip(m, "", 2)) == std::string(kJson) + "missing required field 'schema_version'");
  }
  SECTION("no schema_version and a record of an unknown major") {
    m.erase("schema_version");
    CHECK(mustFail(historyZip(m, "12.1", 2)) ==
          std::string(kJson) +
              "schema_version 12.1 is unsupported: majors 1 to 8 are read (torch 2.1 onwards); a "
              "newer major is a layout this reader does not know");
  }
}
