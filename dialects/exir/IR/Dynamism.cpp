//===- Dynamism.cpp - which values have run-time shapes -------------------===//

#include "dialects/exir/IR/Dynamism.h"

#include "dialects/exir/IR/ExirDialect.h"

using namespace mlir;

namespace ptec::exir {

namespace {

bool isSymInt(Value v) { return v.getType().isInteger(64); }

/// Ops whose result shapes do not depend on their symbolic-int operands:
/// those marked static by the importer, and writes into a copy of self
/// (what writes through a view become), whose result has self's shape: a
/// run-time start or index moves where they write. Only a dynamic tensor
/// operand makes their results dynamic.
bool shapeFollowsSelf(Operation *op) {
  if (op->hasAttr(kStaticShapeAttrName))
    return true;
  auto aten = llvm::dyn_cast<AtenOp>(op);
  if (!aten)
    return false;
  StringRef base = aten.getOpName().split('.').first;
  return llvm::is_contained({"aten::slice_scatter", "aten::select_scatter",
                             "aten::diagonal_scatter", "aten::as_strided_scatter",
                             "aten::index_put", "aten::index_put_", "aten::copy",
                             "aten::copy_"},
                            base);
}

} // namespace

bool usesDynamicValue(Operation *op, const llvm::DenseSet<Value> &dynamic) {
  bool found = false;
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      found |= isSymInt(v) || dynamic.contains(v);
  });
  return found;
}

llvm::DenseSet<Value> findDynamicValues(func::FuncOp func) {
  llvm::DenseSet<Value> dynamic;
  if (func.isExternal())
    return dynamic;
  for (BlockArgument arg : func.getArguments())
    if (func.getArgAttr(arg.getArgNumber(), kDynamicDimsAttrName))
      dynamic.insert(arg);
  // Ops are visited in order, so every operand is classified before its users.
  for (Operation &op : func.getBody().front()) {
    if (!usesDynamicValue(&op, dynamic))
      continue;
    if (shapeFollowsSelf(&op) &&
        llvm::none_of(op.getOperands(), [&](Value v) { return dynamic.contains(v); }))
      continue;
    for (Value r : op.getResults()) {
      if (!llvm::isa<TensorType>(r.getType()))
        continue;
      dynamic.insert(r);
      // An out-variant or in-place result lives in an operand's storage.
      dynamic.insert(getStorageRoot(r));
    }
    // Out arguments an op writes without returning them (`Tensor(a!)[] out
    // -> ()`: split_with_sizes_copy.out's pieces) are written at run-time
    // shapes too, and so is whatever reads them next.
    auto aten = llvm::dyn_cast<AtenOp>(&op);
    const schema::FunctionSchema *s = aten ? aten.getSchema() : nullptr;
    if (!s)
      continue;
    for (unsigned i = 0, n = aten.getNumTensorInputs(); i < n; ++i) {
      int arg = aten.getSchemaArgForOperand(i);
      Value v = op.getOperand(i);
      if (arg >= 0 && s->arguments[arg].isOut() && llvm::isa<TensorType>(v.getType())) {
        dynamic.insert(v);
        dynamic.insert(getStorageRoot(v));
      }
    }
  }
  return dynamic;
}

bool hasDynamicShapes(func::FuncOp func) {
  if (func.isExternal())
    return false;
  for (BlockArgument arg : func.getArguments())
    if (func.getArgAttr(arg.getArgNumber(), kDynamicDimsAttrName))
      return true;
  bool sym = false;
  func.walk([&](Operation *op) {
    for (Value r : op->getResults())
      sym |= isSymInt(r);
  });
  return sym;
}

} // namespace ptec::exir
