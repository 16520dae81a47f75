//===- Dynamism.h - which values have run-time shapes ----------*- C++ -*-===//
//
// Dynamic shapes keep every tensor type at its upper bound (the program at
// the largest sizes the export allows). Which values may be smaller at run
// time follows from the user inputs marked `exir.dynamic_dims` and the
// symbolic-int values: any op that reads one of them produces results whose
// shapes are only known at run time (conservatively: a reduction over a
// dynamic dim may in fact be static). The emitter writes those tensors as
// DYNAMIC_BOUND, backends decline them, and passes that derive constants from
// static shapes refuse them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseSet.h"

namespace ptec::exir {
/// A unit attribute on an op that reads a symbolic int but whose result
/// shapes are static all the same (the importer sets it when the exported
/// metadata gives every result a concrete size: `x[u0:u0 + 8]` is 8 long
/// whatever u0 is). Its results are dynamic only when a tensor operand is.
constexpr llvm::StringLiteral kStaticShapeAttrName = "exir.static_shape";


/// Tensor values of `func` whose run-time shape may be below their type's:
/// dynamic inputs, results of ops that use a dynamic value or a symbolic int,
/// and the storage (exir.alloc) those results are written to.
llvm::DenseSet<mlir::Value> findDynamicValues(mlir::func::FuncOp func);

/// True when `func` has dynamic inputs or symbolic-int values.
bool hasDynamicShapes(mlir::func::FuncOp func);

/// True when `op` reads a value in `dynamic` or a symbolic int.
bool usesDynamicValue(mlir::Operation *op,
                      const llvm::DenseSet<mlir::Value> &dynamic);

} // namespace ptec::exir
