//===- Session.cpp - one compile: inputs, phases, output ------------------===//

#include "compiler/Session.h"

#include "backends/AotBackend.h"
#include "compiler/Import.h"
#include "compiler/PartitionDot.h"
#include "compiler/Report.h"
#include "compiler/SessionDiagnostics.h"
#include "dialects/exir/IR/ExirDialect.h"
#include "dialects/exir/IR/GuardedParse.h"
#include "dialects/exir/IR/ShapeRules.h"
#include "passes/PassRecord.h"
#include "passes/Passes.h"
#include "serde/io/ContentKind.h"
#include "serde/pt2/Pt2Reader.h"
#include "serde/pte/PteWriter.h"
#include "compiler/DebugMap.h"
#include "emitter/Emitter.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/Format.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace mlir;

namespace ptec {

//===----------------------------------------------------------------------===//
// Phases
//===----------------------------------------------------------------------===//

namespace {
struct PhaseInfo {
  Phase phase;
  llvm::StringLiteral name;
  llvm::StringLiteral description;
};
constexpr PhaseInfo kPhases[] = {
#define PTEC_PHASE(id, name, description) {Phase::id, name, description},
#include "compiler/Phases.def"
};
constexpr Phase kPhaseList[] = {
#define PTEC_PHASE(id, name, description) Phase::id,
#include "compiler/Phases.def"
};
} // namespace

llvm::ArrayRef<Phase> allPhases() { return kPhaseList; }

llvm::StringRef phaseName(Phase phase) {
  return kPhases[static_cast<size_t>(phase)].name;
}

llvm::StringRef phaseDescription(Phase phase) {
  return kPhases[static_cast<size_t>(phase)].description;
}

std::optional<Phase> parsePhase(llvm::StringRef name) {
  for (const PhaseInfo &info : kPhases)
    if (info.name == name)
      return info.phase;
  return std::nullopt;
}

std::optional<EmitFormat> parseEmitFormat(llvm::StringRef name) {
  if (name == "pte")
    return EmitFormat::Pte;
  if (name == "mlir")
    return EmitFormat::Mlir;
  if (name == "mlirbc")
    return EmitFormat::MlirBytecode;
  return std::nullopt;
}

static bool delegates(const CompileOptions &options) {
  return llvm::any_of(options.backends,
                      [](const std::string &b) { return b != "none"; });
}

/// Whether `module` holds an op of type T (stops at the first).
template <typename T> static bool holds(ModuleOp module) {
  return module && module.walk([](T) { return WalkResult::interrupt(); }).wasInterrupted();
}

void addPhasePasses(OpPassManager &pm, Phase phase, const CompileOptions &options,
                    const PassFilter &keep, ModuleOp ir) {
  auto add = [&](std::unique_ptr<Pass> pass) {
    if (!keep || keep(*pass))
      pm.addPass(std::move(pass));
  };
  switch (phase) {
  case Phase::Import:
  case Phase::Emit:
    return;
  case Phase::Functionalize:
    add(createFunctionalize());
    return;
  case Phase::Legalize:
    add(createLegalizeToCoreAten());
    add(createFoldConstants());
    return;
  case Phase::WriteBack:
    if (options.reinplace)
      add(createReinplaceState());
    add(createPlaceWriteBack(PlaceWriteBackOptions{options.writeBackAtEnd}));
    return;
  case Phase::Partition: {
    if (!delegates(options))
      return; // nothing to partition for
    std::vector<std::string> backends;
    for (const std::string &b : options.backends)
      if (b != "none")
        backends.push_back(b);
    PartitionOptions partition;
    // The report and the partition picture say why each op stays portable.
    partition.reportRefusals = options.collectReport || options.collectPartitionDot;
    partition.backends = backends; // copied by the pass option
    add(createExtractCalls()); // lower once, call many
    add(createPartition(partition));
    return;
  }
  case Phase::Outline:
    // With --backend, or for saved IR that still holds delegate regions or
    // calls (partitioned, or outlined by ptec-opt without inlining): the
    // regions name their backend, and emission needs the calls inlined.
    if (delegates(options) || holds<exir::DelegateRegionOp>(ir))
      add(createOutlineDelegates(
          OutlineDelegatesOptions{options.shareDelegates}));
    if (delegates(options) || holds<exir::DelegateRegionOp>(ir) || holds<func::CallOp>(ir))
      add(createInlineCalls());
    return;
  case Phase::OutVariants:
    add(createAliasViews());
    add(createToOutVariants());
    return;
  case Phase::Plan:
    add(createPlanMemory(PlanMemoryOptions{options.planner, options.shareMutableBuffers}));
    return;
  }
}

CompileInput parseInputSpec(llvm::StringRef spec) {
  CompileInput input;
  input.path = spec.str();
  if (llvm::sys::fs::exists(spec))
    return input;
  auto [path, method] = spec.rsplit(':');
  if (!method.empty() && !path.empty() && !method.contains('/')) {
    input.path = path.str();
    input.method = method.str();
  }
  return input;
}

//===----------------------------------------------------------------------===//
// Progress
//===----------------------------------------------------------------------===//

namespace {
/// Calls `tick` every 200 ms on a thread of its own until destroyed: keeps
/// the status line's elapsed time moving through a step that reports
/// nothing (reading a .pt2). The step writes nothing to the error stream
/// meanwhile, so the two never interleave.
class ProgressTicker {
public:
  explicit ProgressTicker(std::function<void()> tick)
      : tick_(std::move(tick)), thread_([this] { loop(); }) {}
  ~ProgressTicker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stop_; }))
      tick_();
  }
  std::function<void()> tick_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};
} // namespace

//===----------------------------------------------------------------------===//
// CompileSession
//===----------------------------------------------------------------------===//

/// The backends meant for users (not the test backends) that take every op
/// of `module` made from one of `nodes`; none when no such op is there.
static std::vector<std::string> backendsTaking(ModuleOp module,
                                               const std::vector<std::string> &nodes) {
  std::vector<std::string> takers;
  if (!module)
    return takers;
  llvm::SmallVector<exir::AtenOp> ops;
  module.walk([&](exir::AtenOp op) {
    llvm::SmallVector<exir::TaggedNode> tagged;
    exir::collectTaggedNodes(op.getLoc(), tagged);
    if (tagged.size() == 1 && llvm::is_contained(nodes, tagged.front().name))
      ops.push_back(op);
  });
  if (ops.empty())
    return takers;
  for (const std::string &name : aot::registeredAotBackends()) {
    if (name == "demo" || name == "cachetest") // test backends
      continue;
    std::string error;
    std::unique_ptr<aot::AotBackend> backend = aot::createAotBackend(name, &error);
    if (backend && llvm::all_of(ops, [&](exir::AtenOp op) { return !backend->refuse(op); }))
      takers.push_back(name);
  }
  return takers;
}

CompileSession::CompileSession(CompileOptions options, llvm::raw_ostream &errs,
                               llvm::raw_ostream &out)
    : options_(std::move(options)), errs_(errs), out_(out) {
  DialectRegistry registry;
  registerImportDialects(registry);
  context_ = std::make_unique<MLIRContext>(
      registry, options_.threading ? MLIRContext::Threading::ENABLED
                                   : MLIRContext::Threading::DISABLED);
  context_->loadAllAvailableDialects();
  if (options_.verifyEach)
    context_->getOrLoadDialect<exir::ExirDialect>()->setSemanticChecks(
        *options_.verifyEach);
  context_->printOpOnDiagnostic(options_.verbose);
  report_ = CompileReport();
  diagnostics_ = std::make_unique<DiagnosticPrinter>(*context_, errs_);
  if (options_.collectReport)
    diagnostics_->report = &report_;
  diagnostics_->swallowRefusals = options_.collectReport || options_.collectPartitionDot;
  // An op ptec cannot run: say which backend would take it, when the user
  // asked for none.
  if (!delegates(options_))
    diagnostics_->backendsTaking = [this](const std::vector<std::string> &nodes) {
      return backendsTaking(module(), nodes);
    };
}

CompileSession::~CompileSession() {
  module_ = nullptr; // before the context goes
  diagnostics_.reset();
}

unsigned CompileSession::errorCount() const { return diagnostics_->errors; }

unsigned CompileSession::warningCount() const { return diagnostics_->warnings; }

const std::vector<DiagnosticGroup> &CompileSession::diagnostics() const {
  return diagnostics_->printed;
}

static bool isSavedIr(llvm::StringRef path) {
  return path.ends_with(".mlir") || path.ends_with(".mlirbc");
}

/// Where a whole file is at fault.
static Location fileLocation(MLIRContext &ctx, llvm::StringRef path) {
  return FileLineColLoc::get(&ctx, path, 0, 0);
}

/// What aot-compile takes, for the line that refuses anything else.
constexpr const char *kCompileInputs = "a PyTorch exported program (.pt2) or saved IR (.mlir)";

/// How an input is read: as a .pt2, as saved IR, or not at all (`why` set,
/// the line saying what the file is and which tool takes it). The content
/// decides; the name only where the content says nothing (text that is not
/// MLIR, other bytes, a file that cannot be read: the reader then says why).
enum class InputRead { Pt2, SavedIr, Refused };
static InputRead classifyInput(llvm::StringRef path, std::string *why) {
  io::ContentKind kind = io::ContentKind::Binary;
  std::string err;
  if (!io::sniffFile(path.str(), &kind, &err))
    return isSavedIr(path) ? InputRead::SavedIr : InputRead::Pt2;
  switch (kind) {
  case io::ContentKind::Pt2:
    return InputRead::Pt2;
  case io::ContentKind::MlirText:
  case io::ContentKind::MlirBytecode:
    return InputRead::SavedIr;
  case io::ContentKind::Empty:
  case io::ContentKind::Text:
  case io::ContentKind::Binary:
    return isSavedIr(path) ? InputRead::SavedIr : InputRead::Pt2;
  default:
    *why = io::wrongContentMessage(path.str(), kind, kCompileInputs, "this file");
    return InputRead::Refused;
  }
}

LogicalResult CompileSession::load() {
  auto flushed = llvm::make_scope_exit([this] { diagnostics_->flush(); });
  MLIRContext &ctx = *context_;
  Location cli = NameLoc::get(StringAttr::get(&ctx, "aot-compile"));
  if (options_.inputs.empty())
    return emitError(cli) << "no input files";
  bool anyIr = false;
  for (const CompileInput &in : options_.inputs) {
    std::string why;
    InputRead read = classifyInput(in.path, &why);
    if (read == InputRead::Refused)
      return emitError(fileLocation(ctx, in.path)) << why;
    anyIr |= read == InputRead::SavedIr;
  }
  if (anyIr) {
    if (options_.inputs.size() != 1)
      return emitError(cli) << "saved IR (.mlir/.mlirbc) must be the only input";
    return loadSavedIr(options_.inputs.front().path);
  }

  std::vector<MethodSource> sources;
  sources.reserve(options_.inputs.size());
  for (const CompileInput &in : options_.inputs) {
    pt2::ReadError error;
    TimingScope readTime = timeStep("read .pt2");
    std::optional<pt2::ExportedProgram> program;
    {
      // The reader says nothing until it is done: the line names the file
      // and its size, and a ticker keeps its time moving.
      uint64_t size = 0;
      llvm::sys::fs::file_size(in.path, size);
      std::string step = "read " + llvm::sys::path::filename(in.path).str() +
                         llvm::formatv(" ({0:F1} MiB)", size / 1048576.0).str();
      showProgress(step);
      std::optional<ProgressTicker> ticker;
      if (options_.progress)
        ticker.emplace([this, step] { showProgress(step); });
      program = pt2::readPt2(in.path, &error);
    }
    readTime.stop();
    if (!program) {
      // The reader's messages start with the path; print it once.
      llvm::StringRef message(error.message);
      message.consume_front(in.path + ": ");
      InFlightDiagnostic d = emitError(fileLocation(ctx, in.path)) << message;
      io::ContentKind kind = io::ContentKind::Pt2;
      std::string err;
      if (io::sniffFile(in.path, &kind, &err) && kind != io::ContentKind::Pt2)
        d << " (this file is " << io::describeContent(kind) << ")";
      return d;
    }
    sources.push_back(MethodSource{std::move(*program), in.method});
  }
  return loadPrograms(sources);
}

LogicalResult CompileSession::loadPrograms(llvm::ArrayRef<MethodSource> sources) {
  auto flushed = llvm::make_scope_exit([this] { diagnostics_->flush(); });
  std::function<void(size_t, size_t)> progress;
  if (options_.progress)
    progress = [this](size_t done, size_t total) {
      showProgress("import: " + std::to_string(done) + " of " + std::to_string(total) +
                   " nodes");
    };
  showProgress("import");
  TimingScope importTime = timeStep("import");
  module_ = importPrograms(*context_, sources, progress);
  reached_ = Phase::Import;
  return success(static_cast<bool>(module_));
}

LogicalResult CompileSession::loadSavedIr(const std::string &path) {
  MLIRContext &ctx = *context_;
  showProgress("read " + llvm::sys::path::filename(path).str());
  if (!llvm::sys::fs::exists(path))
    return emitError(fileLocation(ctx, path)) << "no such file";
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return emitError(fileLocation(ctx, path))
           << "cannot read: " << buffer.getError().message();
  return loadSavedIr(std::move(*buffer));
}

LogicalResult CompileSession::loadSavedIr(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  auto flushed = llvm::make_scope_exit([this] { diagnostics_->flush(); });
  MLIRContext &ctx = *context_;
  std::string path = buffer->getBufferIdentifier().str();
  // One clear line instead of parser errors quoting binary bytes.
  llvm::StringRef bytes = buffer->getBuffer();
  switch (io::ContentKind kind = io::sniffContent(
              std::string_view(bytes.data(), std::min(bytes.size(), io::kSniffHeadBytes)),
              std::string_view(bytes.data(), bytes.size()).substr(
                  bytes.size() - std::min(bytes.size(), io::kSniffTailBytes)))) {
  case io::ContentKind::MlirText:
  case io::ContentKind::MlirBytecode:
  case io::ContentKind::Text:
  case io::ContentKind::Empty:
    break; // the parser says what is wrong with text
  default:
    return emitError(fileLocation(ctx, path))
           << io::wrongContentMessage(path, kind, "saved IR (.mlir, .mlirbc)", "this file");
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  module_ = exir::parseModuleGuarded(sourceMgr, ctx);
  if (!module_)
    return failure();
  ModuleOp m = *module_;

  // Version: a newer major means things this build cannot know; an older
  // minor simply lacks additions, which keep their defaults.
  std::string current = std::to_string(exir::kIrVersionMajor) + "." +
                        std::to_string(exir::kIrVersionMinor);
  if (auto version =
          m->getAttrOfType<StringAttr>(exir::ExirDialect::kVersionAttrName)) {
    auto [majorText, minorText] = version.getValue().split('.');
    unsigned major = 0, minor = 0;
    if (!llvm::to_integer(majorText, major) ||
        (!minorText.empty() && !llvm::to_integer(minorText, minor)))
      return emitError(m.getLoc())
             << "malformed IR version '" << version.getValue() << "' in "
             << exir::ExirDialect::kVersionAttrName;
    if (major != static_cast<unsigned>(exir::kIrVersionMajor))
      return emitError(m.getLoc())
             << path << " holds exir IR version " << version.getValue()
             << ", but this ptec reads version " << exir::kIrVersionMajor
             << ".x" << (major > static_cast<unsigned>(exir::kIrVersionMajor)
                             ? "; use the ptec that saved it or a newer one"
                             : "");
  }
  m->setAttr(exir::ExirDialect::kVersionAttrName,
             StringAttr::get(&ctx, current));

  reached_ = Phase::Import;
  if (auto phase = m->getAttrOfType<StringAttr>(kPhaseAttrName)) {
    std::optional<Phase> p = parsePhase(phase.getValue());
    if (!p)
      return emitError(m.getLoc()) << "unknown phase '" << phase.getValue()
                                   << "' in " << kPhaseAttrName;
    reached_ = *p;
  }
  // Saved IR is input too: the shape rules hold before any pass runs.
  return exir::verifySemanticsIn(m);
}

LogicalResult CompileSession::runPhases() {
  auto flushed = llvm::make_scope_exit([this] { diagnostics_->flush(); });
  MLIRContext &ctx = *context_;
  auto dump = [&](Phase phase) {
    if (!options_.printIrAfterAll)
      return;
    errs_ << "// -----// IR after phase '" << phaseName(phase) << "' //----- //\n";
    module_->print(errs_, OpPrintingFlags().elideLargeResourceString(64));
    errs_ << "\n";
  };
  if (reached_ > options_.compileTo)
    return emitError(module_->getLoc())
           << "the input was saved after phase '" << phaseName(reached_)
           << "', which is past --compile-to=" << phaseName(options_.compileTo);
  if (reached_ == Phase::Import)
    dump(Phase::Import);
  for (Phase phase : allPhases()) {
    if (phase <= reached_ || phase > options_.compileTo || phase == Phase::Emit)
      continue;
    showProgress(phaseName(phase));
    auto start = std::chrono::steady_clock::now();
    if (options_.collectReport && phase == Phase::Partition)
      report_.recordOpsBeforePartition(*module_);
    auto owned = std::make_unique<PassManager>(&ctx, ModuleOp::getOperationName());
    PassManager &pm = *owned;
    pm.addInstrumentation(std::make_unique<RecordExirPasses>());
    addPhasePasses(pm, phase, options_, [&](Pass &pass) { return shouldRun(pass); },
                   *module_);
    if (options_.mlirCommandLine) {
      // IR printing needs one thread (the output is the same either way).
      if (ctx.isMultithreadingEnabled())
        ctx.disableMultithreading();
      if (failed(applyPassManagerCLOptions(pm)))
        return emitError(module_->getLoc()) << "MLIR's pass manager options cannot be applied";
    }
    if (timingRoot_) {
      pm.enableTiming(*timingRoot_);
      // MLIR keys a pass's timer by the pass object's address: a later
      // phase's pass allocated where a freed one lived would be booked under
      // the freed one's name. Keeping every timed pass alive until the
      // report prints keeps the addresses, so each pass gets its own line.
      timedPassManagers_.push_back(std::move(owned));
    }
    bool passed = succeeded(pm.run(*module_));
    diagnostics_->flush(); // a phase's diagnostics before the next phase's lines
    if (!passed) {
      if (errorCount() == 0) { // a pass that failed without saying why
        internalError_ = true;
        emitError(module_->getLoc()) << "internal error: phase '" << phaseName(phase)
                                     << "' failed without a diagnostic";
      }
      return failure();
    }
    reached_ = phase;
    (*module_)->setAttr(kPhaseAttrName, StringAttr::get(&ctx, phaseName(phase)));
    // The picture first: it shows exir-partition's reasons, which the
    // report then takes off the IR.
    if (options_.collectPartitionDot && phase == Phase::Partition)
      partitionDot_ = partitionGraphDot(*module_, options_.partitionDotView);
    if (options_.collectReport) {
      report_.recordPhase(*module_, phaseName(phase).str(),
                          std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - start)
                              .count());
      if (phase == Phase::WriteBack)
        report_.recordWriteBack(*module_);
      else if (phase == Phase::Partition) {
        report_.recordPartition(*module_);
        report_.recordOps(*module_, delegates(options_)
                                        ? "no backend was asked about it"
                                        : "no backend was given (--backend)");
      }
      else if (phase == Phase::Plan)
        report_.recordPlan(*module_);
    }
    else if (phase == Phase::Partition)
      dropRefusalReasons(*module_);
    if (options_.verbose) {
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now() - start)
                    .count();
      errs_ << "aot-compile: phase '" << phaseName(phase) << "' done in " << ms
            << " ms\n";
    }
    dump(phase);
  }
  return success();
}

bool CompileSession::shouldRun(Pass &pass) {
  // A pass already recorded on the IR (run by ptec-opt, or by the compile
  // that saved it) sticks: it is not run again, whatever our options say.
  std::string wanted = passText(pass);
  for (const std::string &done : recordedPasses(*module_)) {
    if (llvm::StringRef(done).split('{').first != pass.getArgument())
      continue;
    if (done != wanted)
      emitWarning(module_->getLoc())
          << "'" << done << "' already ran on this IR; not running it again as '"
          << wanted << "'";
    return false;
  }
  return true;
}

void CompileSession::showProgress(llvm::StringRef step) {
  lastStep_ = step.str(); // the report's "failed during", with or without a status line
  if (!options_.progress)
    return;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                 progressStart_)
                       .count();
  size_t ops = 0;
  if (module_)
    module_->walk([&](Operation *) { ++ops; });
  errs_ << "\r\033[Kaot-compile: " << step;
  if (ops)
    errs_ << " (" << ops << " ops)";
  errs_ << llvm::format(", %.1f s", seconds);
  errs_.flush();
  diagnostics_->statusShown = true;
}

void CompileSession::clearProgress() {
  if (!diagnostics_->statusShown)
    return;
  errs_ << "\r\033[K";
  errs_.flush();
  diagnostics_->statusShown = false;
}

TimingScope CompileSession::timeStep(llvm::StringRef name) {
  return timingRoot_ ? timingRoot_->nest(name) : TimingScope();
}

LogicalResult CompileSession::run() {
  auto flushed = llvm::make_scope_exit([this] { diagnostics_->flush(); });
  LogicalResult result = runSteps();
  // A failed compile's report says where it stopped; the phases it lists
  // are the ones that completed.
  if (failed(result))
    report_.failedDuring = lastStep_.empty() ? "start" : lastStep_;
  return result;
}

LogicalResult CompileSession::runSteps() {
  progressStart_ = std::chrono::steady_clock::now();
  // --time-passes: the report prints when `timing` goes, after the run.
  DefaultTimingManager timing;
  std::optional<TimingScope> root;
  if (options_.timePasses) {
    timing.setEnabled(true);
    timing.setDisplayMode(DefaultTimingManager::DisplayMode::List);
    if (options_.mlirCommandLine) { // --mlir-timing-display=tree
      applyDefaultTimingManagerCLOptions(timing);
      timing.setEnabled(true);
    }
    root = timing.getRootScope();
    timingRoot_ = &*root;
  }
  auto stopTiming = llvm::make_scope_exit([&] {
    timedPassManagers_.clear();
    timingRoot_ = nullptr;
    root.reset();
  });
  // The status line never outlives the run, whichever way it ends.
  auto clear = llvm::make_scope_exit([&] { clearProgress(); });
  if (options_.compileTo == Phase::Emit &&
      options_.emitFormat == EmitFormat::Pte && options_.outputPath.empty())
    return emitError(NameLoc::get(StringAttr::get(context_.get(), "aot-compile")))
           << "writing a .pte needs an output path (-o)";
  auto start = std::chrono::steady_clock::now();
  if (failed(load()))
    return failure();
  if (options_.collectReport) {
    report_.recordPhase(*module_, std::string(phaseName(reached_)) + " (load)",
                        std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - start)
                            .count());
    // Resumed IR: what the phases it went through left in it.
    report_.recordLoaded(*module_, reached_ >= Phase::WriteBack,
                         reached_ >= Phase::Partition);
    if (reached_ >= Phase::Partition)
      report_.loadedAfter = phaseName(reached_).str();
  }
  if (options_.verbose) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - start)
                  .count();
    errs_ << "aot-compile: phase '" << phaseName(reached_) << "' (load) done in "
          << ms << " ms\n";
  }
  if (failed(runPhases()))
    return failure();
  start = std::chrono::steady_clock::now();
  showProgress(options_.compileTo == Phase::Emit ? "emit" : "write");
  if (failed(writeOutput()))
    return failure();
  if (!options_.holdOutputs && failed(commitOutputs()))
    return failure();
  if (options_.verbose) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - start)
                  .count();
    errs_ << "aot-compile: wrote "
          << (options_.outputPath.empty() ? "<stdout>" : options_.outputPath)
          << " in " << ms << " ms\n";
  }
  return success(errorCount() == 0);
}

} // namespace ptec
