// The shape rules as a whole: every operator of the schema registry has one
// (its own, or its functional form's), the rank limit is the runtime's, and
// the rules judge small parsed programs as PyTorch would.

#include "dialects/exir/IR/ExirDialect.h"
#include "dialects/exir/IR/ShapeRules.h"
#include "runtime/core/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace mlir;
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
