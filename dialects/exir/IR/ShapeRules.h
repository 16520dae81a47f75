//===- ShapeRules.h - what each ATen operator computes ----------*- C++ -*-===//
//
// The semantic half of exir.aten verification. AtenOp::verify checks an op
// against its schema (arguments present and of the right kind); the shape
// rules check it against what the operator computes: dims in range,
// permutations that are permutations, element counts that agree, shapes
// that broadcast, and above all that the declared result types are the ones
// the operator produces for these operands. One implementation, used by the
// importer on every node and by the dialect verifier (AtenOpVerify.cpp)
// when semantic checks are on (ExirDialect::setSemanticChecks).
// docs/shape-rules.md lists the rule of every operator.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace ptec::exir {

class AtenOp;

/// The most dims a tensor may have: the runtime's kTensorMaxRank
/// (runtime/core/Tensor.h; a unit test keeps the two equal).
constexpr int64_t kMaxTensorRank = 16;

/// Checks `op`'s arguments and declared result types against the shape rule
/// of its operator. Reports every problem at the op's location, naming the
/// graph node (the NameLoc the importer sets) and the operator. Assumes the
/// op passed AtenOp's schema checks; never crashes on one that did not.
mlir::LogicalResult verifySemantics(AtenOp op);

/// verifySemantics on every exir.aten nested under `root`; fails when any
/// of them does (all are checked, so every problem is reported).
mlir::LogicalResult verifySemanticsIn(mlir::Operation *root);

/// The result types the shape rule of `op`'s operator gives for its operands
/// and arguments: how passes that build ops (decompositions) get their
/// types. Every operand must have a static shape; the op's own result types
/// are ignored (build it with none). Fails, reporting at the op, when the
/// rule refuses the arguments or leaves a result undetermined (data-dependent
/// sizes, unknown rank or dtype, a number instead of a tensor).
mlir::FailureOr<llvm::SmallVector<mlir::Type>> inferResultTypes(AtenOp op);

/// True when operator `opName` ("aten::add.Tensor", "aten::add.out",
/// "aten::add_.Tensor") has a shape rule: its own, or that of the
/// functional form of an out-variant or in-place op.
bool hasShapeRule(llvm::StringRef opName);

/// Names of the operators with a rule of their own (functional forms and a
/// few mutating ops), sorted; for the documentation test.
std::vector<std::string> shapeRuleNames();

} // namespace ptec::exir
