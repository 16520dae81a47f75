//===- Report.h - what a compile did, for people and for CI ------*- C++ -*-===//
//
// aot-compile --report[=text|json]: per phase its time and op counts; per
// backend the ops it took and each op it refused with every backend's
// reason; delegate entries and which call sites share them, and their
// scratch; every write-back copy and how far it moved up from the end; the
// memory plan against its lower bound; the output's size by segment; the
// warnings. The JSON form is versioned (docs/report.md); the session fills
// the report as it runs (CompileSession::report()).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ptec {

struct CompileReport {
  /// Bumped when a field changes meaning or goes away (adding one is fine).
  static constexpr int kVersion = 1;

  struct Phase {
    std::string name;
    double ms = 0;
    int64_t atenOps = 0, delegateCalls = 0, copies = 0; // after the phase
  };
  struct Refusal {
    std::string method, op, location, reasons;
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
  struct Segment {
    std::string kind;
    uint64_t size = 0;
  };

  std::vector<Phase> phases;
  std::vector<Refusal> refusals;
  std::vector<Method> methods;
  uint64_t fileSize = 0, programSize = 0;
  std::vector<Segment> segments;
  std::vector<std::string> warnings;

  /// Finds or adds the method `name`.
  Method &method(const std::string &name);

  /// Counts after a phase (aten ops, delegate calls, write-back copies).
  void recordPhase(mlir::ModuleOp module, const std::string &name, double ms);
  /// Write-back copies and in-place updates (after the write-back phase).
  void recordWriteBack(mlir::ModuleOp module);
  /// Ops per method before partitioning and per backend after it.
  void recordOpsBeforePartition(mlir::ModuleOp module);
  void recordPartition(mlir::ModuleOp module);
  /// The memory plan of every method (after the plan phase).
  void recordPlan(mlir::ModuleOp module);
  /// Instructions, delegate entries and segments of the written program.
  void recordProgram(const uint8_t *pte, size_t size);

  std::string toText() const;
  std::string toJson() const;
};

} // namespace ptec
