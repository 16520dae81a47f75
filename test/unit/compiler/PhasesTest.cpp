// The one phase list (compiler/Phases.def) and input-spec parsing.

#include "compiler/Session.h"

#include <catch2/catch.hpp>

using ptec::Phase;

TEST_CASE("phases are listed once, in pipeline order", "[session]") {
  std::vector<std::string> names;
  for (Phase p : ptec::allPhases())
    names.push_back(ptec::phaseName(p).str());
  CHECK(names == std::vector<std::string>{"import", "functionalize", "legalize",
                                          "write-back", "partition",
                                          "outline", "out-variants", "plan", "emit"});
  for (Phase p : ptec::allPhases()) {
    CHECK(ptec::parsePhase(ptec::phaseName(p)) == p);
    CHECK(!ptec::phaseDescription(p).empty());
  }
  CHECK(!ptec::parsePhase("codegen"));
}

TEST_CASE("phase passes", "[session]") {
  mlir::MLIRContext ctx;
  ptec::CompileOptions options;
  auto count = [&](Phase p) {
    mlir::PassManager pm(&ctx);
    ptec::addPhasePasses(pm, p, options);
    return std::distance(pm.begin(), pm.end());
  };
  CHECK(count(Phase::Import) == 0);
  CHECK(count(Phase::Legalize) >= 1);
  CHECK(count(Phase::WriteBack) >= 1);
  CHECK(count(Phase::Partition) == 0); // no backend: nothing to delegate
  CHECK(count(Phase::Outline) == 0);
  options.backends = {"none"};
  CHECK(count(Phase::Partition) == 0);
  options.backends = {"demo"};
  CHECK(count(Phase::Partition) >= 1);
  CHECK(count(Phase::Outline) >= 1);
  CHECK(count(Phase::OutVariants) >= 1);
  CHECK(count(Phase::Plan) >= 1);
  CHECK(count(Phase::Emit) == 0);
}

TEST_CASE("input specs: path and method", "[session]") {
  auto in = ptec::parseInputSpec("model.pt2");
  CHECK(in.path == "model.pt2");
  CHECK(in.method == "forward");
  in = ptec::parseInputSpec("dir/model.pt2:prefill");
  CHECK(in.path == "dir/model.pt2");
  CHECK(in.method == "prefill");
  CHECK(ptec::parseEmitFormat("mlirbc") == ptec::EmitFormat::MlirBytecode);
  CHECK(!ptec::parseEmitFormat("json"));
}
