//===- ImportArguments.h - schema-typed argument conversion ----*- C++ -*-===//
//
// How the importer turns a non-tensor argument of a node (or the schema's
// default for an omitted one) into the typed attribute exir.aten carries:
// i64 IntegerAttr, f64 FloatAttr, BoolAttr, StringAttr (str, layout, memory
// format, device), DenseI64/F64/BoolArrayAttr (lists), TypeAttr (dtype),
// #exir.none. Every conversion checks the value against the schema type.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "dialects/exir/schema/OperatorSchema.h"
#include "serde/pt2/ExportedProgram.h"

#include "llvm/ADT/SmallVector.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Types.h"
#include "mlir/Support/LogicalResult.h"

#include <cstdint>
#include <map>
#include <string>

namespace ptec::import {

/// MLIR element type of a .pt2 dtype (serialization numbering): f32, f64,
/// f16, bf16, i64, i32, i16, i8, ui8, i1, ... Null when it has none.
mlir::Type elementTypeFor(mlir::MLIRContext *ctx, pt2::DType dtype);

/// MLIR element type of a schema dtype identifier ("float", "long",
/// "float32", "int64", "bool", ...). Null when unknown.
mlir::Type elementTypeForName(mlir::MLIRContext *ctx, llvm::StringRef name);

/// The names torch gives Layout / MemoryFormat values (serialization
/// numbering): 7 -> "strided", 1 -> "contiguous_format". Empty when unknown.
llvm::StringRef layoutName(int64_t layout);
llvm::StringRef memoryFormatName(int64_t format);

/// The attribute for schema argument `arg` when a node omits it: its default
/// converted to the argument's type. Fails with a message in `*error` when
/// the argument has no default or the default does not fit the type.
mlir::FailureOr<mlir::Attribute>
defaultArgument(mlir::MLIRContext *ctx, const schema::Argument &arg,
                std::string *error);

/// The attribute for a non-tensor value `value` passed for schema argument
/// `arg`. `symInts` resolves named symbolic ints that have a concrete value;
/// any other symbolic value fails. Fails with a message in `*error` when the
/// value's kind does not match the schema type.
mlir::FailureOr<mlir::Attribute>
convertArgument(mlir::MLIRContext *ctx, const schema::Argument &arg,
                const pt2::Argument &value,
                const std::map<std::string, int64_t> &symInts,
                std::string *error);

/// Appends the tensor names of `a` (one for as_tensor, each of as_tensors);
/// false when `a` is not a tensor or a tensor list.
bool appendTensorNames(const pt2::Argument &a, llvm::SmallVectorImpl<std::string> &out);

/// Spelling of a .pt2 argument's kind for messages ("as_ints", "as_none").
const char *argumentKindName(pt2::Argument::Kind kind);

} // namespace ptec::import
