//===- GuardedParse.h - parse saved IR without trusting it ------*- C++ -*-===//
//
// MLIR's parsers recurse: the text parser once per bracket level, the
// bytecode reader once per attribute or type an entry refers to, with no limit
// of its own in MLIR 19. A saved .mlir or .mlirbc from elsewhere (or a mutated
// one) could therefore exhaust the stack, and a cyclic bytecode entry always
// does. These entry points put limits in front of MLIR so that such input gets
// an error naming the file and place, never a crash:
//  - text: brackets ( [ { < may nest at most kMaxIrNesting deep (a scan
//    before MLIR sees the text; strings and comments are skipped), and no
//    string may run to the end of the file (MLIR 19's lexer then reads past
//    the buffer);
//  - bytecode: attribute and type entries are read with a stack budget
//    (kBytecodeStackBudget bytes from the start of the parse); a cyclic entry
//    or one nested too deep fails with "nest too deeply";
//  - bytecode, before that: MLIR 19's reader also trusts the counts in the
//    file (a mutated count became a multi-terabyte allocation), so bytecode
//    is first read in a forked probe process (POSIX); if the probe dies, the
//    file is refused and this process never reads it. Bytecode is therefore
//    read twice; text, which MLIR's parser checks as it goes, once.
//
//===----------------------------------------------------------------------===//
#ifndef PTEC_DIALECTS_EXIR_IR_GUARDEDPARSE_H
#define PTEC_DIALECTS_EXIR_IR_GUARDEDPARSE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace ptec::exir {

/// Deepest bracket nesting accepted in textual IR. Programs ptec writes nest
/// a few levels (module, func, region, type, attribute).
inline constexpr unsigned kMaxIrNesting = 256;

/// Stack a bytecode parse may use for nested attributes and types before it
/// is refused. Callers need this much stack plus MLIR's own frames free.
inline constexpr size_t kBytecodeStackBudget = size_t(1) << 20;

/// True when the buffer starts with the MLIR bytecode magic.
bool isMlirBytecode(llvm::StringRef bytes);

/// Checks the bracket nesting of textual IR and that every string is closed
/// before the end of the file. On failure emits an error at name:line:col
/// (the first bracket past the limit, or the unclosed string's quote).
mlir::LogicalResult checkTextNesting(llvm::StringRef text, llvm::StringRef name,
                                     mlir::MLIRContext &ctx);

/// Parses the main buffer of `sourceMgr` (text or bytecode) into a module
/// with the guards above. Errors go to the context's diagnostic handlers.
mlir::OwningOpRef<mlir::ModuleOp> parseModuleGuarded(llvm::SourceMgr &sourceMgr,
                                                     mlir::MLIRContext &ctx);

} // namespace ptec::exir

#endif // PTEC_DIALECTS_EXIR_IR_GUARDEDPARSE_H
