//===- SessionDiagnostics.h - how a compile says what went wrong -*- C++ -*-===//
//
// Private to the compile session (Session.cpp, SessionOutput.cpp). Every
// diagnostic of the session's context is taken here, counted at once, and
// printed when the step that reported it ends:
//
//   In model.pt2, method forward:
//   model.py:94: error: 13 nodes (chunk, chunk_1, chunk_2, chunk_3, chunk_4, chunk_5 and
//       7 more) (aten::chunk): not supported yet: ptec has no CPU kernel for this operator
//   note: ptec does not support aten::chunk yet; 'aot-compile --list-ops aten::chunk' says
//       why, 'aot-compile --list-ops' lists every operator ptec supports
//
// Identical diagnostics (same severity, place, input and text but for the
// node they name) are one line naming the nodes; an error that does not name
// its node gets it from its location; the notes at the end say what to do
// (re-export for inference, a backend that takes the op, or that the op is
// not supported yet). The groups are kept as data for the report.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/Report.h"
#include "compiler/Session.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>
#include <vector>

namespace ptec {

/// The node name and the operator a diagnostic's message is about: what the
/// printer reads out of "node 'x' (aten::op): ..." (exposed for tests).
struct MessageSubject {
  std::string node; ///< "" when the message names none
  std::string op;   ///< the first "aten::op.overload" named, "" when none
};
MessageSubject subjectOf(llvm::StringRef message);

/// What a user can do about an error with this message ("" when there is
/// nothing to suggest): re-export for inference, or know that the operator
/// is not supported yet. `backends` are those that take the nodes.
std::string hintFor(llvm::StringRef message, llvm::ArrayRef<std::string> backends);

/// The node list of a group: "13 nodes (a, b, c, d, e, f and 7 more)".
std::string nodeList(llvm::ArrayRef<std::string> nodes);

class CompileSession::DiagnosticPrinter {
public:
  DiagnosticPrinter(mlir::MLIRContext &ctx, llvm::raw_ostream &os);
  ~DiagnosticPrinter();

  /// With a report: warnings are also listed there.
  CompileReport *report = nullptr;
  /// Refusal remarks are dropped (with --report or --partition-dot).
  bool swallowRefusals = false;
  /// The backends (short names) that take every node named, asked for an
  /// error about an operator ptec cannot run when no backend was requested;
  /// unset: never asked.
  std::function<std::vector<std::string>(const std::vector<std::string> &nodes)> backendsTaking;

  unsigned errors = 0, warnings = 0;
  /// A progress line (no newline) is on the terminal.
  bool statusShown = false;
  /// Every group printed so far.
  std::vector<DiagnosticGroup> printed;

  /// Prints, grouped, what was reported since the last flush.
  void flush();

private:
  struct Pending {
    DiagnosticGroup group;          ///< one diagnostic, as a group of one
    std::string where;              ///< "file:line:col: " or ""
    std::vector<std::string> notes; ///< rendered note lines
  };
  void take(mlir::Diagnostic &d);
  bool capture(mlir::Diagnostic &d);

  mlir::MLIRContext &ctx;
  llvm::raw_ostream &os;
  mlir::DiagnosticEngine::HandlerID id;
  std::vector<Pending> pending;
  std::pair<std::string, std::string> lastInput;
};

} // namespace ptec
