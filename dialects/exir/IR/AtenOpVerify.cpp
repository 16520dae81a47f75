//===- AtenOpVerify.cpp - exir.aten's verifier ----------------------------===//
//
// AtenOp::verify: the schema checks (ExirOps.cpp), then the shape rules
// (ShapeRules.cpp) when the dialect's semantic checks are on. It is the one
// place that uses both, so it sits above them: ShapeRules depends on ExirOps
// (it reads ops through their accessors and schema), this file depends on
// both, and neither depends back on it or on each other the other way. MLIR
// reaches it only through the op's generated verifier hook.
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ExirDialect.h"
#include "dialects/exir/IR/ShapeRules.h"

using namespace mlir;
using namespace ptec::exir;

LogicalResult AtenOp::verify() {
  if (failed(verifySchema()))
    return failure();
  // Shape rules cost more than the schema checks; they run here only when
  // asked for (debug builds, tests, --exir-verify-each). The importer runs
  // them on every op either way.
  auto *dialect = static_cast<ExirDialect *>((*this)->getDialect());
  if (dialect && dialect->semanticChecksEnabled())
    return verifySemantics(*this);
  return success();
}
