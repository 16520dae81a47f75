//===- Session.cpp - one compile: inputs, phases, output ------------------===//

#include "compiler/Session.h"

#include "compiler/Import.h"
#include "compiler/PartitionDot.h"
#include "dialects/exir/IR/ExirDialect.h"
#include "dialects/exir/IR/GuardedParse.h"
#include "dialects/exir/IR/ShapeRules.h"
#include "passes/PassRecord.h"
#include "passes/Passes.h"
#include "serde/pt2/Pt2Reader.h"
#include "serde/pte/PteWriter.h"
#ifdef PTEC_HAVE_EMITTER
#include "compiler/DebugMap.h"
#include "emitter/Emitter.h"
#endif

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
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <chrono>

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

/// Module attribute recording the last phase a saved program went through,
/// so that compiling saved IR resumes after it.
constexpr llvm::StringLiteral kPhaseAttrName = "exir.phase";
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

void addPhasePasses(OpPassManager &pm, Phase phase,
                    const CompileOptions &options, const PassFilter &keep) {
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
    partition.reportRefusals = options.collectReport;
    partition.backends = backends; // copied by the pass option
    add(createExtractCalls()); // lower once, call many
    add(createPartition(partition));
    return;
  }
  case Phase::Outline:
    if (delegates(options)) {
      add(createOutlineDelegates(
          OutlineDelegatesOptions{options.shareDelegates}));
      add(createInlineCalls());
    }
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
// Diagnostics
//===----------------------------------------------------------------------===//

/// Prints `file:line:col: error: message` (line and column left out when the
/// location has none) and counts errors.
class CompileSession::DiagnosticPrinter {
public:
  DiagnosticPrinter(MLIRContext &ctx, llvm::raw_ostream &os) : ctx(ctx), os(os) {
    id = ctx.getDiagEngine().registerHandler([this](Diagnostic &d) {
      if (report && capture(d))
        return success();
      print(d);
      return success();
    });
  }
  /// With a report: partitioning's "not delegated" remarks go into it
  /// instead of the stream, and warnings are also listed there.
  CompileReport *report = nullptr;

  bool capture(Diagnostic &d) {
    std::string where;
    if (std::optional<FileLineColLoc> f = fileLoc(d.getLocation()))
      where = f->getFilename().str() + ":" + std::to_string(f->getLine());
    if (d.getSeverity() == DiagnosticSeverity::Warning)
      report->warnings.push_back((where.empty() ? "" : where + ": ") + d.str());
    // exir-partition: "'aten::mm' in @forward not delegated (demo: why; ...)".
    std::string message = d.str();
    llvm::StringRef text = message;
    size_t at = text.find(" not delegated (");
    if (d.getSeverity() != DiagnosticSeverity::Remark || at == llvm::StringRef::npos)
      return false;
    CompileReport::Refusal r;
    r.location = where.empty() ? "unknown location" : where;
    auto [op, method] = text.take_front(at).split(" in @");
    r.op = op.trim("'").str();
    r.method = method.str();
    llvm::StringRef reasons = text.drop_front(at + strlen(" not delegated ("));
    r.reasons = reasons.drop_back(reasons.ends_with(")") ? 1 : 0).str();
    report->refusals.push_back(r);
    return true;
  }
  ~DiagnosticPrinter() { ctx.getDiagEngine().eraseHandler(id); }

  unsigned errors = 0;
  /// A progress line (no newline) is on the terminal.
  bool statusShown = false;

private:
  static std::optional<FileLineColLoc> fileLoc(Location loc) {
    if (auto f = llvm::dyn_cast<FileLineColLoc>(loc))
      return f;
    if (auto n = llvm::dyn_cast<NameLoc>(loc))
      return fileLoc(n.getChildLoc());
    if (auto c = llvm::dyn_cast<CallSiteLoc>(loc))
      return fileLoc(c.getCallee());
    if (auto f = llvm::dyn_cast<FusedLoc>(loc))
      for (Location l : f.getLocations())
        if (auto found = fileLoc(l))
          return found;
    return std::nullopt;
  }

  void print(Diagnostic &d) {
    const char *severity = "error";
    switch (d.getSeverity()) {
    case DiagnosticSeverity::Error:
      ++errors;
      break;
    case DiagnosticSeverity::Warning:
      severity = "warning";
      break;
    case DiagnosticSeverity::Note:
      severity = "note";
      break;
    case DiagnosticSeverity::Remark:
      severity = "remark";
      break;
    }
    if (statusShown) { // the progress line goes away before any message
      os << "\r\033[K";
      statusShown = false;
    }
    // GCC's "In function" convention: a line naming the input (.pt2 and
    // method) before the first diagnostic from it, so errors that point at
    // the user's Python line still say which exported program they are in.
    if (auto input = exir::inputOfLoc(d.getLocation())) {
      if (*input != lastInput)
        os << "In " << input->first << ", method " << input->second << ":\n";
      lastInput = *input;
    }
    printOne(d.getLocation(), severity, d.str());
    for (Diagnostic &note : d.getNotes())
      printOne(note.getLocation(), "note", note.str());
    os.flush();
  }

  void printOne(Location loc, const char *severity, const std::string &message) {
    if (std::optional<FileLineColLoc> f = fileLoc(loc)) {
      os << f->getFilename().getValue();
      if (f->getLine() > 0) {
        os << ':' << f->getLine();
        if (f->getColumn() > 0)
          os << ':' << f->getColumn();
      }
      os << ": ";
    }
    os << severity << ": " << message << '\n';
  }

  MLIRContext &ctx;
  llvm::raw_ostream &os;
  DiagnosticEngine::HandlerID id;
  std::pair<std::string, std::string> lastInput;
};

//===----------------------------------------------------------------------===//
// CompileSession
//===----------------------------------------------------------------------===//

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
}

CompileSession::~CompileSession() {
  module_ = nullptr; // before the context goes
  diagnostics_.reset();
}

unsigned CompileSession::errorCount() const { return diagnostics_->errors; }

static bool isSavedIr(llvm::StringRef path) {
  return path.ends_with(".mlir") || path.ends_with(".mlirbc");
}

/// Where a whole file is at fault.
static Location fileLocation(MLIRContext &ctx, llvm::StringRef path) {
  return FileLineColLoc::get(&ctx, path, 0, 0);
}

/// What a file that is not what its name says seems to be, from its first
/// bytes ("" when it may well be what it claims).
static std::string guessKind(llvm::StringRef bytes) {
  if (bytes.size() >= 8 && bytes.substr(4, 4) == "ET12")
    return "an ExecuTorch program (.pte), which is compiled output, not input";
  if (bytes.starts_with("PK\x03\x04"))
    return "a zip archive (a .pt2? give it a .pt2 name)";
  if (exir::isMlirBytecode(bytes))
    return "";
  llvm::StringRef head = bytes.take_front(512);
  size_t odd = llvm::count_if(head, [](char c) {
    unsigned char u = static_cast<unsigned char>(c);
    return u == 0 || (u < 32 && c != '\n' && c != '\r' && c != '\t');
  });
  return odd * 20 > head.size() ? "binary data, neither exir text IR nor MLIR bytecode"
                                : "";
}

LogicalResult CompileSession::load() {
  MLIRContext &ctx = *context_;
  Location cli = NameLoc::get(StringAttr::get(&ctx, "aot-compile"));
  if (options_.inputs.empty())
    return emitError(cli) << "no input files";
  bool anyIr = llvm::any_of(options_.inputs, [](const CompileInput &in) {
    return isSavedIr(in.path);
  });
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
    std::optional<pt2::ExportedProgram> program = pt2::readPt2(in.path, &error);
    readTime.stop();
    if (!program) {
      // The reader's messages start with the path; print it once.
      llvm::StringRef message(error.message);
      message.consume_front(in.path + ": ");
      InFlightDiagnostic d = emitError(fileLocation(ctx, in.path)) << message;
      if (auto head = llvm::MemoryBuffer::getFileSlice(in.path, 512, 0))
        if (std::string kind = guessKind((*head)->getBuffer());
            !kind.empty() && !llvm::StringRef(kind).starts_with("a zip"))
          d << " (this file is " << kind << ")";
      return d;
    }
    sources.push_back(MethodSource{std::move(*program), in.method});
  }
  return loadPrograms(sources);
}

LogicalResult CompileSession::loadPrograms(llvm::ArrayRef<MethodSource> sources) {
  std::function<void(size_t, size_t)> progress;
  if (options_.progress)
    progress = [this](size_t done, size_t total) {
      showProgress("import: " + std::to_string(done) + " of " + std::to_string(total) +
                   " nodes");
    };
  TimingScope importTime = timeStep("import");
  module_ = importPrograms(*context_, sources, progress);
  reached_ = Phase::Import;
  return success(static_cast<bool>(module_));
}

LogicalResult CompileSession::loadSavedIr(const std::string &path) {
  MLIRContext &ctx = *context_;
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
  MLIRContext &ctx = *context_;
  std::string path = buffer->getBufferIdentifier().str();
  // One clear line instead of parser errors quoting binary bytes.
  if (std::string kind = guessKind(buffer->getBuffer()); !kind.empty())
    return emitError(fileLocation(ctx, path)) << "this file is " << kind;
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
    PassManager pm(&ctx, ModuleOp::getOperationName());
    pm.addInstrumentation(std::make_unique<RecordExirPasses>());
    addPhasePasses(pm, phase, options_, [&](Pass &pass) { return shouldRun(pass); });
    if (timingRoot_)
      pm.enableTiming(*timingRoot_);
    if (failed(pm.run(*module_))) {
      if (errorCount() == 0) { // a pass that failed without saying why
        internalError_ = true;
        emitError(module_->getLoc()) << "internal error: phase '" << phaseName(phase)
                                     << "' failed without a diagnostic";
      }
      return failure();
    }
    reached_ = phase;
    (*module_)->setAttr(kPhaseAttrName, StringAttr::get(&ctx, phaseName(phase)));
    if (options_.collectReport) {
      report_.recordPhase(*module_, phaseName(phase).str(),
                          std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - start)
                              .count());
      if (phase == Phase::WriteBack)
        report_.recordWriteBack(*module_);
      else if (phase == Phase::Partition)
        report_.recordPartition(*module_);
      else if (phase == Phase::Plan)
        report_.recordPlan(*module_);
    }
    if (options_.collectPartitionDot && phase == Phase::Partition)
      partitionDot_ = partitionGraphDot(*module_);
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

LogicalResult CompileSession::writeBytes(const std::string &bytes) {
  if (options_.outputPath.empty()) {
    out_ << bytes;
    out_.flush();
    return success();
  }
  std::string error;
  std::vector<uint8_t> data(bytes.begin(), bytes.end());
  if (!pte::writeFileAtomic(options_.outputPath, data, &error))
    return emitError(fileLocation(*context_, options_.outputPath))
           << "cannot write: " << error;
  return success();
}

LogicalResult CompileSession::writeIr(bool bytecode) {
  if (!(*module_)->hasAttr(kPhaseAttrName))
    (*module_)->setAttr(kPhaseAttrName,
                        StringAttr::get(context_.get(), phaseName(reached_)));
  std::string text;
  llvm::raw_string_ostream os(text);
  if (bytecode) {
    if (failed(writeBytecodeToFile(*module_, os)))
      return emitError(module_->getLoc()) << "cannot write bytecode";
  } else {
    // IR printed for reading (no -o) shows weights as a short hex prefix,
    // MLIR's elide-if-larger convention, unless asked; saved IR keeps them
    // whole so that it can be resumed.
    OpPrintingFlags flags;
    if (options_.outputPath.empty() && !options_.printWeights)
      flags.elideLargeResourceString(kElideWeightsLargerThan);
    module_->print(os, flags);
    os << '\n';
  }
  os.flush();
  return writeBytes(text);
}

LogicalResult CompileSession::writePte() {
  if (options_.outputPath.empty())
    return emitError(NameLoc::get(StringAttr::get(context_.get(), "aot-compile")))
           << "writing a .pte needs an output path (-o)";
  std::string error;
  // The .ptd first: a .pte never exists without the data it names.
  auto ptdWritten = [&](bool ok) -> LogicalResult {
    if (ok)
      return success();
    return emitError(fileLocation(*context_, options_.externalWeightsPath))
           << "cannot write: " << error;
  };
  auto writePtd = [&]() -> LogicalResult {
    if (options_.externalWeightsPath.empty())
      return success();
    return ptdWritten(pte::writeFileAtomic(options_.externalWeightsPath, ptdBytes_, &error));
  };
#ifdef PTEC_HAVE_EMITTER
  {
    // Weights go from the builder (and the .ptd's from its entries) straight
    // to the files; MLIR's blobs are the only copy of a weight. The report
    // and --plan-svg read the written file back through a mapping (the
    // flatbuffer's pages, not the segments').
    pte::ProgramBuilder builder;
    TimingScope emitTime = timeStep("emit");
    if (failed(emitBuilder(builder)))
      return failure();
    emitTime.stop();
    TimingScope writeTime = timeStep("write .pte");
    if (!options_.externalWeightsPath.empty() &&
        failed(ptdWritten(
            pte::writePtdFile(builder.external, options_.externalWeightsPath, &error))))
      return failure();
    if (!pte::writeProgramFile(builder, pte::WriteOptions{}, options_.outputPath, &error))
      return emitError(fileLocation(*context_, options_.outputPath)) << "cannot write: " << error;
    writeTime.stop();
    if (options_.collectReport || options_.keepPteBytes) {
      written_ = io::MappedFile::open(options_.outputPath, &error);
      if (!written_ || !written_->data())
        return emitError(fileLocation(*context_, options_.outputPath))
               << "cannot read back the .pte just written: " << error;
      if (options_.collectReport)
        report_.recordProgram(written_->data(), written_->size());
    }
    return success();
  }
#endif
  std::vector<uint8_t> bytes;
  TimingScope emitTime = timeStep("emit");
  if (failed(emitPte(bytes)) || failed(writePtd()))
    return failure();
  emitTime.stop();
  TimingScope writeTime = timeStep("write .pte");
  if (!pte::writeFileAtomic(options_.outputPath, bytes, &error))
    return emitError(fileLocation(*context_, options_.outputPath))
           << "cannot write: " << error;
  pteBytes_ = std::move(bytes); // kept for --plan-svg, not copied
  return success();
}

#ifdef PTEC_HAVE_EMITTER
LogicalResult CompileSession::emitBuilder(pte::ProgramBuilder &builder) {
  EmitOptions emitOptions;
  emitOptions.emitStateNames = options_.emitStateNames;
  emitOptions.emitStackTraces = options_.emitStackTraces;
  emitOptions.externalWeights = !options_.externalWeightsPath.empty();
  EmitStats stats;
  if (failed(emitProgram(*module_, builder, emitOptions, &stats)))
    return failure();
  if (options_.collectDebugMap)
    debugMap_ = debugMapJson(stats);
  return success();
}
#endif

LogicalResult CompileSession::emitPte(std::vector<uint8_t> &bytes) {
#ifdef PTEC_HAVE_EMITTER
  pte::ProgramBuilder builder;
  if (failed(emitBuilder(builder)))
    return failure();
  if (!options_.externalWeightsPath.empty())
    ptdBytes_ = pte::serializePtd(builder.external);
  std::string error;
  if (!pte::trySerializeProgram(builder, pte::WriteOptions{}, &bytes, &error))
    return emitError(module_->getLoc()) << "cannot serialize the program: " << error;
  if (options_.collectReport)
    report_.recordProgram(bytes.data(), bytes.size());
  return success();
#else
  (void)bytes;
  return emitError(module_->getLoc())
         << "this build has no .pte emitter; use --emit=mlir or --compile-to";
#endif
}

LogicalResult CompileSession::writeOutput() {
  bool pte = options_.compileTo == Phase::Emit &&
             options_.emitFormat == EmitFormat::Pte;
  if (pte)
    return writePte();
  bool bytecode = options_.emitFormat == EmitFormat::MlirBytecode ||
                  llvm::StringRef(options_.outputPath).ends_with(".mlirbc");
  return writeIr(bytecode);
}

void CompileSession::showProgress(llvm::StringRef step) {
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
  progressStart_ = std::chrono::steady_clock::now();
  // --time-passes: the report prints when `timing` goes, after the run.
  DefaultTimingManager timing;
  std::optional<TimingScope> root;
  if (options_.timePasses) {
    timing.setEnabled(true);
    timing.setDisplayMode(DefaultTimingManager::DisplayMode::List);
    root = timing.getRootScope();
    timingRoot_ = &*root;
  }
  auto stopTiming = llvm::make_scope_exit([&] {
    timingRoot_ = nullptr;
    root.reset();
  });
  // The status line never outlives the run, whichever way it ends.
  auto clear = llvm::make_scope_exit([&] { clearProgress(); });
  showProgress("import");
  if (options_.compileTo == Phase::Emit &&
      options_.emitFormat == EmitFormat::Pte && options_.outputPath.empty())
    return emitError(NameLoc::get(StringAttr::get(context_.get(), "aot-compile")))
           << "writing a .pte needs an output path (-o)";
  auto start = std::chrono::steady_clock::now();
  if (failed(load()))
    return failure();
  if (options_.collectReport)
    report_.recordPhase(*module_, std::string(phaseName(reached_)) + " (load)",
                        std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - start)
                            .count());
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
