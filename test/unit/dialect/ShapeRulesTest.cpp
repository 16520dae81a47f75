// The shape rules as a whole: every operator of the schema registry has one
// (its own, or its functional form's), every rule is documented, and the
// rank limit is the runtime's. The rules themselves are tested on programs in
// test/lit/dialect/shape-rules*.mlir.

#include "dialects/exir/IR/ExirDialect.h"
#include "dialects/exir/IR/ShapeRules.h"
#include "runtime/core/Tensor.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace exir = ptec::exir;
namespace schema = ptec::schema;

TEST_CASE("every registry operator has a shape rule") {
  std::string missing;
  for (const schema::FunctionSchema *s : schema::OperatorRegistry::builtin().all())
    if (!exir::hasShapeRule(s->fullName()))
      missing += " " + s->fullName();
  INFO("operators without a shape rule:" << missing);
  CHECK(missing.empty());
}

TEST_CASE("every rule names a registry operator") {
  for (const std::string &name : exir::shapeRuleNames()) {
    INFO(name);
    CHECK(schema::OperatorRegistry::builtin().lookup(name) != nullptr);
  }
}

TEST_CASE("the rank limit is the runtime's") {
  STATIC_REQUIRE(exir::kMaxTensorRank == ptec::rt::kTensorMaxRank);
}

TEST_CASE("docs/shape-rules.md lists every rule") {
  std::ifstream in(std::string(PTEC_SOURCE_DIR) + "/docs/shape-rules.md");
  REQUIRE(in);
  std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string missing;
  for (std::string name : exir::shapeRuleNames()) {
    if (name.rfind("aten::", 0) == 0)
      name = name.substr(6);
    if (doc.find("`" + name + "`") == std::string::npos)
      missing += " " + name;
  }
  INFO("rules missing from docs/shape-rules.md:" << missing);
  CHECK(missing.empty());
}
