// Every genuine .pt2 of the fixture zoo (test/models/*/) reads.
#include "serde/pt2/Pt2Reader.h"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace ptec::pt2;

TEST_CASE("every zoo model reads", "[pt2][zoo]") {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto &entry : fs::recursive_directory_iterator(PTEC_MODELS_DIR, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".pt2")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  if (files.empty())
    WARN("no zoo models found under " << PTEC_MODELS_DIR);
  for (const fs::path &file : files) {
    INFO(file.string());
    ReadError err;
    std::optional<ExportedProgram> ep = readPt2(file.string(), &err);
    INFO(err.message);
    REQUIRE(ep.has_value());
    CHECK(ep->schemaMajor == 8);
    CHECK_FALSE(ep->graph.nodes.empty());
    CHECK(ep->inputSpecs.size() == ep->graph.inputs.size());
    // Every lifted input has its bytes, materialized to its full size.
    for (const InputSpec &spec : ep->inputSpecs) {
      const WeightTensor *w = nullptr;
      if (spec.kind == InputKind::Parameter || (spec.kind == InputKind::Buffer && spec.persistent))
        w = &ep->weights.at(spec.target);
      else if (spec.kind == InputKind::TensorConstant || spec.kind == InputKind::Buffer)
        w = &ep->constants.at(spec.target);
      if (!w)
        continue;
      size_t numel = 1;
      for (int64_t s : w->meta.sizes)
        numel *= static_cast<size_t>(s);
      CHECK(w->bytes().size() == numel * dtypeSize(w->meta.dtype));
    }
  }
}

TEST_CASE("the mlp zoo model has its known layout", "[pt2][zoo]") {
  std::string path = std::string(PTEC_MODELS_DIR) + "/mlp/model.pt2";
  if (!std::filesystem::exists(path))
    return;
  ReadError err;
  std::optional<ExportedProgram> ep = readPt2(path, &err);
  INFO(err.message);
  REQUIRE(ep.has_value());
  const WeightTensor &w = ep->weights.at("fc1.weight");
  CHECK(w.isParam);
  CHECK(w.meta.dtype == DType::Float);
  CHECK(w.meta.sizes == std::vector<int64_t>{64, 32});
  CHECK(w.bytes().size() == 64 * 32 * 4);
  CHECK(ep->graph.tensorValues.at("x").sizes == std::vector<int64_t>{4, 32});
}

TEST_CASE("a Python-zipfile rewrite of the mlp reads the same", "[pt2][zoo]") {
  // data/python_zipfile_mlp.pt2: no root folder, no alignment, deflated JSON,
  // top-level `version` record (data/make_python_zipfile_pt2.py).
  std::string original = std::string(PTEC_MODELS_DIR) + "/mlp/model.pt2";
  std::string rewritten = std::string(PTEC_PT2_TEST_DATA_DIR) + "/python_zipfile_mlp.pt2";
  ReadError err;
  std::optional<ExportedProgram> a = readPt2(rewritten, &err);
  INFO(err.message);
  REQUIRE(a.has_value());
  CHECK(a->archiveRoot.empty());
  if (!std::filesystem::exists(original))
    return;
  std::optional<ExportedProgram> b = readPt2(original, &err);
  REQUIRE(b.has_value());
  CHECK(b->archiveRoot == "model/");
  CHECK(a->graph.nodes.size() == b->graph.nodes.size());
  REQUIRE(a->weights.size() == b->weights.size());
  for (const auto &[fqn, w] : b->weights)
    CHECK(a->weights.at(fqn).bytes() == w.bytes());
}
