//===- Session.h - one compile: inputs, phases, output ----------*- C++ -*-===//
//
// The compiler's one entry point (the IREE shape): options in, a CompileSession
// runs import (or parses saved IR), the phases of Phases.def up to
// --compile-to, and writes the .pte or the IR. aot-compile is a thin main over
// it; tests drive it directly.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/PartitionDot.h"
#include "compiler/Report.h"
#include "serde/io/MappedFile.h"
#include "serde/pte/FileChunks.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace ptec::pte {
struct ProgramBuilder;
} // namespace ptec::pte

namespace ptec {

struct MethodSource; // compiler/Import.h

/// The compile phases, in pipeline order (compiler/Phases.def).
enum class Phase {
#define PTEC_PHASE(id, name, description) id,
#include "compiler/Phases.def"
};

/// Every phase, in order.
llvm::ArrayRef<Phase> allPhases();
/// "import", "write-back", ...
llvm::StringRef phaseName(Phase phase);
llvm::StringRef phaseDescription(Phase phase);
/// The phase named `name`, or nullopt.
std::optional<Phase> parsePhase(llvm::StringRef name);

/// Module attribute recording the last phase a saved program went through,
/// so that compiling saved IR resumes after it.
constexpr llvm::StringLiteral kPhaseAttrName = "exir.phase";

enum class EmitFormat { Pte, Mlir, MlirBytecode };
/// "pte", "mlir", "mlirbc" -> the format, or nullopt.
std::optional<EmitFormat> parseEmitFormat(llvm::StringRef name);

/// One input: a .pt2 file and the method it becomes, or saved IR (.mlir /
/// .mlirbc, method ignored) to resume from.
struct CompileInput {
  std::string path;
  std::string method = "forward";
};

struct CompileOptions {
  std::vector<CompileInput> inputs;
  /// Where to write; empty prints IR to the output stream (not allowed for
  /// --emit=pte).
  std::string outputPath;
  /// Stop after this phase. Before `emit` the IR is written, not a .pte.
  Phase compileTo = Phase::Emit;
  /// Backends to partition for, in priority order; empty: no delegation.
  std::vector<std::string> backends;
  /// Let calls of one lowered module share a delegate entry when its
  /// backend opts in (false: one entry per call site, for comparison).
  bool shareDelegates = true;
  /// Memory planner: best, greedy, best-fit or first-fit.
  std::string planner = "best";
  /// Plan the mutable buffers of all methods into arena 2, one place per
  /// FQN, so that the methods share them (prefill/decode KV caches).
  bool shareMutableBuffers = false;
  /// Place every write-back copy at the end of the method (baseline).
  bool writeBackAtEnd = false;
  /// Make functional updates of mutated state in place (exir-reinplace-state).
  bool reinplace = true;
  /// Name mutable buffers in the program (ExtraTensorInfo.fully_qualified_name,
  /// upstream's emit_mutable_buffer_names) so runtimes can find state by name.
  bool emitStateNames = false;
  /// Write each instruction's source frames into the program (Chain.stacktrace)
  /// so runtime failures name the user's line.
  bool emitStackTraces = false;
  EmitFormat emitFormat = EmitFormat::Pte;
  /// Dump the IR after each phase to the error stream.
  bool printIrAfterAll = false;
  /// Print weights in full when IR goes to the output stream (no output
  /// path); otherwise blobs larger than kElideWeightsLargerThan bytes are
  /// elided there. Saved IR (-o) always keeps them.
  bool printWeights = false;
  /// Report each phase and its time on the error stream.
  bool verbose = false;
  /// Keep one status line on the error stream (a terminal): the phase being
  /// run, ops in the module, elapsed time; cleared before any diagnostic and
  /// at the end. aot-compile turns it on when stderr is a terminal.
  bool progress = false;
  /// Build debugMap() when emitting a .pte (aot-compile --debug-map).
  bool collectDebugMap = false;
  /// Keep constant weights in this .ptd file (FlatTensor named data) instead
  /// of the .pte; empty: weights stay in the program.
  std::string externalWeightsPath;
  /// Keep the written .pte's bytes for pteBytes() (aot-compile --plan-svg);
  /// otherwise the file is written without building it in memory.
  bool keepPteBytes = false;
  /// Fill CompileSession::report() while compiling (aot-compile --report):
  /// partitioning then also says why each op stayed portable, into the
  /// report instead of the error stream.
  bool collectReport = false;
  /// Keep the Graphviz DOT text of the partitioned graph
  /// (CompileSession::partitionDot(); aot-compile --partition-dot).
  bool collectPartitionDot = false;
  /// What the DOT draws (compiler/PartitionDot.h).
  DotView partitionDotView = DotView::Auto;
  /// Check every exir.aten op against its shape rule (ShapeRules.h) each
  /// time the IR is verified: after loading and after every pass. Import
  /// and saved-IR loading check them either way. Unset: the build's
  /// default (on in debug builds).
  std::optional<bool> verifyEach;
  /// Print on stderr, at the end, the time of each step: reading the .pt2,
  /// import, every pass, the verifier, emission, writing (MLIR's timing
  /// report, one line per name; aot-compile --time-passes).
  bool timePasses = false;
  /// Leave the written outputs staged after run() (temporaries next to
  /// them): the caller stages its own side outputs in outputs() and calls
  /// commitOutputs(), so that all are written or none (aot-compile).
  bool holdOutputs = false;
  /// Apply MLIR's command-line options, which the tool registered and parsed
  /// (--mlir-print-ir-after-all, --mlir-timing-display, ...), to every pass
  /// manager and to the --time-passes report (aot-compile takes them as
  /// ptec-opt does). Printing IR from the pass manager turns threads off.
  bool mlirCommandLine = false;
  /// Let MLIR use threads (parallel verification, nested pass managers).
  /// The output is the same either way (the zoo_determinism test).
  bool threading = false;
};

/// Decides whether a pass of a phase is added (see CompileSession::runPhases:
/// passes already recorded on the IR are not run again).
using PassFilter = std::function<bool(mlir::Pass &)>;

/// Adds the passes of `phase` (nothing for import and emit) to `pm`, those
/// `keep` accepts when it is given. `ir`, when given, is the module they
/// will run on: the outline phase then also runs for what it holds
/// (delegate regions and calls left by a saved, partially lowered IR).
void addPhasePasses(mlir::OpPassManager &pm, Phase phase,
                    const CompileOptions &options, const PassFilter &keep = {},
                    mlir::ModuleOp ir = {});

/// Splits "model.pt2:prefill" into path and method ("forward" when absent).
/// A path that exists as written is never split.
CompileInput parseInputSpec(llvm::StringRef spec);

/// A diagnostic as the session prints it. Identical diagnostics (same
/// severity, place, input and text but for the node they name) are one
/// group: a model that repeats a block repeats its errors, and one line
/// with the nodes says it once (compiler/SessionDiagnostics.cpp).
struct DiagnosticGroup {
  std::string severity; ///< "error", "warning", "remark" or "note"
  std::string file;     ///< the innermost file of the location ("" when none)
  unsigned line = 0, column = 0;
  std::string input, method; ///< the .pt2 and method it comes from, when known
  /// The line as printed, after "file:line: severity: ": for a group, the
  /// count of nodes and their names in place of the one node.
  std::string text;
  /// The first diagnostic's own text (naming its node).
  std::string firstText;
  std::vector<std::string> nodes; ///< every node named, in order, once each
  unsigned count = 1;             ///< diagnostics in the group
  std::vector<std::string> notes; ///< the first diagnostic's notes
  /// What the user can do about it ("re-export ...", "--backend ...",
  /// "not supported yet ..."), or "" when there is nothing to suggest.
  std::string hint;
};

/// Resource blobs longer than this are elided when IR is printed for reading.
constexpr int64_t kElideWeightsLargerThan = 64;

class CompileSession {
public:
  /// Diagnostics go to `errs` as `file:line:col: error: message`; IR printed
  /// without an output path goes to `out`.
  explicit CompileSession(CompileOptions options,
                          llvm::raw_ostream &errs = llvm::errs(),
                          llvm::raw_ostream &out = llvm::outs());
  ~CompileSession();

  /// Load, run the phases, write the output. Failure means at least one
  /// error was reported.
  mlir::LogicalResult run();

  /// The steps of run(), for tests and tools that stop in between.
  /// writeOutput() stages the files (outputs()); commitOutputs() writes them.
  mlir::LogicalResult load();
  mlir::LogicalResult runPhases();
  mlir::LogicalResult writeOutput();

  /// load() from memory instead of options().inputs (fuzzers, tests): the
  /// programs already read, or saved IR (text or bytecode) whose buffer
  /// identifier names it in diagnostics. Same checks as load().
  mlir::LogicalResult loadPrograms(llvm::ArrayRef<MethodSource> sources);
  mlir::LogicalResult loadSavedIr(std::unique_ptr<llvm::MemoryBuffer> buffer);
  /// The .pte bytes writeOutput() would write, after runPhases() (not the
  /// .ptd of --external-weights).
  mlir::LogicalResult emitPte(std::vector<uint8_t> &bytes);

  mlir::MLIRContext &context() { return *context_; }
  /// The program (null before load() or after it failed).
  mlir::ModuleOp module() { return module_ ? *module_ : mlir::ModuleOp(); }
  const CompileOptions &options() const { return options_; }
  /// Errors reported so far.
  unsigned errorCount() const;
  /// Warnings reported so far (printed, or taken by the report).
  unsigned warningCount() const;
  /// Every diagnostic printed so far, grouped as printed (in order of
  /// first appearance). A step's diagnostics are printed when it ends.
  const std::vector<DiagnosticGroup> &diagnostics() const;
  /// True when a step failed without saying why (a bug, not the input's
  /// fault: aot-compile exits 3).
  bool hadInternalError() const { return internalError_; }
  /// What the compile did (with CompileOptions::collectReport).
  const CompileReport &report() const { return report_; }
  /// The partitioned graph as Graphviz DOT (with collectPartitionDot; empty
  /// when the partition phase did not run).
  const std::string &partitionDot() const { return partitionDot_; }
  /// The debug map JSON (CompileOptions::collectDebugMap; compiler/DebugMap.h),
  /// empty when no .pte was emitted.
  const std::string &debugMap() const { return debugMap_; }
  /// The outputs written so far, staged until commitOutputs() (run() commits
  /// unless CompileOptions::holdOutputs).
  pte::OutputFiles &outputs() { return outputs_; }
  /// Renames every staged output into place; an error says which and why.
  mlir::LogicalResult commitOutputs();
  /// The .pte bytes written last (empty before, and unless
  /// CompileOptions::keepPteBytes or collectReport): the written file, mapped.
  llvm::ArrayRef<uint8_t> pteBytes() const {
    if (written_)
      return {written_->data(), static_cast<size_t>(written_->size())};
    return pteBytes_;
  }

private:
  class DiagnosticPrinter;
  mlir::LogicalResult loadSavedIr(const std::string &path);
  mlir::LogicalResult writeIr(bool bytecode);
  mlir::LogicalResult writePte();
  mlir::LogicalResult writeBytes(const std::string &bytes);
  /// False for a pass already recorded on the IR (warns when its options
  /// differ from ours).
  bool shouldRun(mlir::Pass &pass);
  /// Emits the module into `builder` (plus the debug map and .ptd bytes).
  mlir::LogicalResult emitBuilder(pte::ProgramBuilder &builder);
  /// The progress line (CompileOptions::progress): `step`, ops, elapsed.
  void showProgress(llvm::StringRef step);
  /// run() without recording where a failure stopped.
  mlir::LogicalResult runSteps();
  /// The step the compile is in (named as on the status line).
  std::string lastStep_;
  void clearProgress();

  /// A step of --time-passes (inert without it).
  mlir::TimingScope timeStep(llvm::StringRef name);

  CompileOptions options_;
  /// With timePasses, the scope of the whole run (steps nest under it).
  mlir::TimingScope *timingRoot_ = nullptr;
  /// With timePasses, every phase's pass manager until the report prints.
  std::vector<std::unique_ptr<mlir::PassManager>> timedPassManagers_;
  std::chrono::steady_clock::time_point progressStart_;
  llvm::raw_ostream &errs_;
  llvm::raw_ostream &out_;
  std::unique_ptr<mlir::MLIRContext> context_;
  std::unique_ptr<DiagnosticPrinter> diagnostics_;
  mlir::OwningOpRef<mlir::ModuleOp> module_;
  /// The last phase the loaded IR went through.
  Phase reached_ = Phase::Import;
  bool internalError_ = false;
  CompileReport report_;
  std::string partitionDot_;
  std::string debugMap_;
  std::vector<uint8_t> pteBytes_;
  std::shared_ptr<const io::MappedFile> written_;
  pte::OutputFiles outputs_;
};

} // namespace ptec
