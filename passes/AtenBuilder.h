//===- AtenBuilder.h - build exir.aten ops by schema ------------*- C++ -*-===//
//
// Passes that create ATen ops (decompositions, re-inplacing) describe them by
// name: tensor operands per tensor-like schema argument and other arguments
// by schema name. Missing non-tensor arguments get their schema defaults, so
// every op a pass creates verifies like an imported one.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/IR/Builders.h"

namespace ptec {

/// Schema default of `arg` as the attribute exir.aten uses, or null when the
/// argument has no default.
mlir::Attribute defaultAttr(mlir::MLIRContext *ctx, const schema::Argument &arg);

/// Creates `name` (e.g. "aten::addmm") with `tensorArgs[i]` the operands of the
/// i-th tensor-like schema argument (empty = None) and `attrs` the other
/// arguments by schema name. Reports (at `loc`) and fails for unknown ops or
/// a wrong number of tensor arguments.
mlir::FailureOr<exir::AtenOp>
buildAten(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
          mlir::TypeRange resultTypes,
          llvm::ArrayRef<llvm::SmallVector<mlir::Value, 1>> tensorArgs,
          llvm::ArrayRef<mlir::NamedAttribute> attrs);

/// The same with the result types the operator's shape rule gives
/// (exir::inferResultTypes): decompositions name an op and its arguments,
/// not the shapes it produces. The operands must have static shapes.
mlir::FailureOr<exir::AtenOp>
buildAtenInferred(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
                  llvm::ArrayRef<llvm::SmallVector<mlir::Value, 1>> tensorArgs,
                  llvm::ArrayRef<mlir::NamedAttribute> attrs = {});

/// Single-result convenience form.
mlir::FailureOr<mlir::Value>
buildAtenValue(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
               mlir::Type resultType,
               llvm::ArrayRef<llvm::SmallVector<mlir::Value, 1>> tensorArgs,
               llvm::ArrayRef<mlir::NamedAttribute> attrs = {});

} // namespace ptec
