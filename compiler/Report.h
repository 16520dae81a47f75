//===- Report.h - what a compile did, for people and for CI ------*- C++ -*-===//
//
// aot-compile --report[=text|json]: per phase its time and op counts; per
// ATen op its count, how many each backend took, how many stay on portable
// kernels and why, and the kernel they run as; delegate entries and which
// call sites share them, and their scratch; every write-back copy and how
// far it moved up from the end; the memory plan against its lower bound
// (serde/pte/PlanBound.h, computed on the written program); the output's
// size by segment; the warnings. The JSON form is versioned
// (docs/report.md); the session fills the report as it runs
// (CompileSession::report()). Recording is linear in the IR's size.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ptec {

/// Removes exir-partition's `exir.refused` reasons from `module` (when no
/// report reads them).
void dropRefusalReasons(mlir::ModuleOp module);

/// The innermost file location in `loc` (through names, call sites and the
/// first of fused locations that has one).
std::optional<mlir::FileLineColLoc> innermostFileLoc(mlir::Location loc);

struct CompileReport {
  /// Bumped when a field changes meaning or goes away (adding one is fine).
  static constexpr int kVersion = 1;

  struct Phase {
    std::string name;
    double ms = 0;
    int64_t atenOps = 0, delegateCalls = 0, copies = 0; // after the phase
  };
  /// One ATen op left on portable kernels (the JSON's detail).
  struct Refusal {
    std::string method, op, location, reasons;
  };
  /// Per ATen op name, over the whole program.
  struct OpStats {
    int64_t count = 0;                        // in the IR when partitioned
    std::map<std::string, int64_t> delegated; // backend id -> ops it took
    int64_t portable = 0;
    std::map<std::string, int64_t> reasons;   // why portable -> ops
    std::string kernel;                       // the portable kernel they run as
  };
  struct Copy {
    std::string state;
    int64_t movedUp = 0; // top-level ops between the copy and the return
  };
  struct Delegate {
    std::string backend;
    int64_t callSites = 0;
    std::vector<uint64_t> scratchBytes;
  };
  struct Method {
    std::string name;
    int64_t atenOps = 0;                         // before partitioning
    std::map<std::string, int64_t> delegatedOps; // backend id -> ops
    std::vector<Copy> copies;
    int64_t inPlace = 0, snapshots = 0;
    std::string planner;
    int64_t lowerBound = 0, planned = 0;
    std::vector<int64_t> arenas;
    int64_t instructions = 0;
    std::vector<Delegate> delegates;
  };
  /// A delegate region after partitioning, numbered per function in
  /// program order ("region k" in --partition-dot).
  struct Region {
    std::string function;
    int64_t index = 0;
    std::string backend;
    int64_t ops = 0;
  };
  struct Segment {
    std::string kind;
    uint64_t size = 0;
  };
  /// One diagnostic of the compile: "error", "warning", "note" or "remark";
  /// `location` is the user's `file:line` (or the input file), `node` the
  /// exported node it is about ("" when none), and its attached notes.
  struct Diagnostic {
    std::string severity, location, node, text;
    std::vector<std::pair<std::string, std::string>> notes; // location, text
  };

  std::vector<Phase> phases;
  std::vector<Refusal> refusals;
  std::vector<Region> regions;
  std::map<std::string, OpStats> ops;
  /// Whether the per-op census ran (after partitioning, or on loaded IR).
  bool opsRecorded = false;
  /// The phase saved IR had gone through when it was loaded, when that is
  /// partition or later (its op counts are then what the IR held).
  std::string loadedAfter;
  std::vector<Method> methods;
  uint64_t fileSize = 0, programSize = 0;
  std::vector<Segment> segments;
  std::vector<std::string> warnings;
  /// Every diagnostic, errors included (filled by a ReportDiagnostics).
  std::vector<Diagnostic> diagnostics;
  /// What the command asked for, when known: the --planner value ("best",
  /// "greedy", ...) and whether any --backend was given (other than none).
  std::string plannerAsked;
  std::optional<bool> backendAsked;
  /// Empty when the compile succeeded; else the step it failed in (`read
  /// model.pt2 (1.2 MiB)`, `import`, a phase name, `emit`/`write`).
  std::string failedDuring;

  /// Finds or adds the method `name`.
  Method &method(const std::string &name);

  /// Counts after a phase (aten ops, delegate calls, write-back copies).
  void recordPhase(mlir::ModuleOp module, const std::string &name, double ms);
  /// Write-back copies and in-place updates (after the write-back phase).
  void recordWriteBack(mlir::ModuleOp module);
  /// Ops per method before partitioning and per backend after it.
  void recordOpsBeforePartition(mlir::ModuleOp module);
  void recordPartition(mlir::ModuleOp module);
  /// Every ATen op, delegated or left on portable kernels and why (after
  /// partitioning): the per-op statistics and the refusals. Reads and drops
  /// exir-partition's `exir.refused` reasons; an op outside any region with
  /// none (and not in a cond/while branch) gets `otherwise`.
  void recordOps(mlir::ModuleOp module, llvm::StringRef otherwise);
  /// What saved IR already holds when it resumes after the write-back
  /// and/or the partition phase (copies and in-place updates; ops, delegate
  /// regions and the per-op census), so a resumed report is not empty.
  void recordLoaded(mlir::ModuleOp module, bool afterWriteBack, bool afterPartition);
  /// The memory plan of every method (after the plan phase).
  void recordPlan(mlir::ModuleOp module);
  /// Instructions, delegate entries, segments and the memory plan against
  /// its lower bound, from the written program.
  void recordProgram(const uint8_t *pte, size_t size);

  /// At most about 60 lines whatever the program's size: segments,
  /// delegates, regions, op kinds and refusals are aggregated, and the
  /// lists are cut (the JSON keeps every entry).
  std::string toText() const;
  /// The per-op table and the grouped refusals of toText().
  void writeOps(llvm::raw_ostream &os) const;
  std::string toJson() const;
};

/// "0 B", "512 B", "51.6 KiB", "20.0 MiB", "1.20 GiB".
std::string humanBytes(uint64_t bytes);

/// The --planner value that names a planner algorithm ("greedy-by-size" ->
/// "greedy", "in-order-first-fit" -> "first-fit"); the candidates only
/// `best` tries keep their names.
std::string plannerFlagName(llvm::StringRef algorithm);

/// While alive, records every diagnostic of `ctx` into `out` (severity,
/// location, node, text and notes) and passes it on to the handlers
/// registered before it, which print it. TODO: the session's diagnostic
/// printer will expose its diagnostics as data (grouped); this handler
/// goes away then.
class ReportDiagnostics {
public:
  ReportDiagnostics(mlir::MLIRContext &ctx, std::vector<CompileReport::Diagnostic> &out);
  ~ReportDiagnostics();
  ReportDiagnostics(const ReportDiagnostics &) = delete;
  ReportDiagnostics &operator=(const ReportDiagnostics &) = delete;

private:
  mlir::MLIRContext &ctx_;
  uint64_t id_;
};

} // namespace ptec
