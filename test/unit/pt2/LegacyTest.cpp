// Legacy (torch 2.1-2.7) zips: graph JSON at top level, weights in nested
// torch.save zips read by the restricted unpickler. data/ holds genuine
// torch.save output (torch 1.13, pickle protocol 2).
#include "serde/pt2/Pt2Reader.h"
#include "serde/pt2/Pt2Error.h"
#include "serde/pt2/TorchSave.h"
#include "test/unit/pt2/TestArchives.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <iterator>

using namespace ptec::pt2;
using namespace ptec::pt2::test;

namespace {
std::string readData(const std::string &name) {
  std::ifstream in(std::string(PTEC_PT2_TEST_DATA_DIR) + "/" + name, std::ios::binary);
  REQUIRE(in.good());
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

template <typename T>
std::vector<T> values(ptec::pt2::ByteView bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

std::map<std::string, WeightTensor> readTensors(const std::string &bytes) {
  std::vector<uint8_t> v(bytes.begin(), bytes.end());
  return readTorchSaveTensors(v, "state.pt");
}
}  // namespace

TEST_CASE("legacy zip with a genuine torch.save state dict", "[pt2][legacy]") {
  std::string name = GENERATE(std::string("serialized_state_dict.pt"), std::string("serialized_state_dict.json"));
  std::string bytes = legacyZip(readData("legacy_state_dict.pt"), name);
  ReadError err;
  std::optional<ExportedProgram> ep = readPt2FromMemory(bytes.data(), bytes.size(), "old.pt2", &err);
  INFO(err.message);
  REQUIRE(ep.has_value());
  CHECK(ep->container == ExportedProgram::Container::LegacyZip);
  CHECK(ep->schemaMajor == 8);
  CHECK(ep->schemaMinor == 3);
  CHECK(ep->verifiers == std::vector<std::string>{"ATEN"});  // from the old `dialect` field
  REQUIRE(ep->weights.size() == 1);
  const WeightTensor &w = ep->weights.at("w");
  CHECK(w.isParam);  // from the signature
  CHECK(w.meta.dtype == DType::Float);
  CHECK(w.meta.sizes == std::vector<int64_t>{2, 3});
  CHECK(w.meta.strides == std::vector<int64_t>{3, 1});
  CHECK(values<float>(w.bytes()) == std::vector<float>{0, 1, 2, 3, 4, 5});
  CHECK(ep->constants.empty());
  REQUIRE(ep->graph.nodes.size() == 1);
  CHECK(ep->graph.nodes[0].target == "torch.ops.aten.mm.default");
}

TEST_CASE("hand-written pickle matches what torch.save writes", "[pt2][legacy]") {
  std::map<std::string, WeightTensor> mine = readTensors(torchSaveZip(stateDictPickle()));
  std::map<std::string, WeightTensor> real = readTensors(readData("legacy_state_dict.pt"));
  REQUIRE(mine.size() == 1);
  REQUIRE(real.size() == 1);
  CHECK(mine.at("w").bytes() == real.at("w").bytes());
  CHECK(mine.at("w").meta.sizes == real.at("w").meta.sizes);
}

TEST_CASE("torch.save views, parameters, tied storages and dtypes", "[pt2][legacy]") {
  std::map<std::string, WeightTensor> t = readTensors(readData("legacy_rich_state_dict.pt"));
  REQUIRE(t.size() == 7);
  const WeightTensor &p = t.at("p");
  CHECK(p.isParam);
  CHECK(p.meta.requiresGrad);
  CHECK(values<float>(p.bytes()) == std::vector<float>{1.5f, -2.0f, 3.25f});
  const WeightTensor &tr = t.at("t");
  CHECK(tr.meta.sizes == std::vector<int64_t>{4, 3});
  CHECK(tr.meta.strides == std::vector<int64_t>{1, 4});
  CHECK(values<float>(tr.bytes()) == std::vector<float>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  const WeightTensor &row = t.at("row");
  CHECK(row.meta.storageOffset == 4);
  CHECK(values<float>(row.bytes()) == std::vector<float>{4, 5, 6, 7});
  CHECK(t.at("tied_a").storage == t.at("tied_b").storage);
  CHECK(t.at("tied_a").storage == row.storage);  // one storage behind base, its row and transpose
  CHECK(values<int64_t>(t.at("ids").bytes()) == std::vector<int64_t>{7, -1, int64_t(1) << 40});
  CHECK(t.at("mask").meta.dtype == DType::Bool);
  CHECK(t.at("mask").bytes() == std::vector<uint8_t>{1, 0, 1});
}

TEST_CASE("torch.save errors name the entry", "[pt2][legacy]") {
  try {
    readTensors(torchSaveZip("\x80\x02" "cposix\nsystem\n."));
    FAIL("expected an error");
  } catch (const Pt2Error &e) {
    CHECK(std::string(e.what()) ==
          "state.pt: archive/data.pkl: refusing pickle global 'posix.system'; only plain tensors "
          "in a (ordered) dict can be loaded");
  }
}
