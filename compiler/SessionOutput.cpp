//===- SessionOutput.cpp - what a compile session writes ------------------===//
//
// The IR or the .pte (and .ptd) of a CompileSession, staged in its
// OutputFiles: nothing is renamed into place until every output of the
// command is ready (commitOutputs), so a failure leaves no output behind.
//
//===----------------------------------------------------------------------===//

#include "compiler/Session.h"
#include "compiler/SessionDiagnostics.h"

#include "llvm/ADT/ScopeExit.h"

#include "compiler/DebugMap.h"
#include "emitter/Emitter.h"
#include "serde/pte/PteWriter.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

using namespace mlir;

namespace ptec {

/// Where a whole file is at fault.
static Location fileLocation(MLIRContext &ctx, llvm::StringRef path) {
  return FileLineColLoc::get(&ctx, path, 0, 0);
}

LogicalResult CompileSession::writeBytes(const std::string &bytes) {
  if (options_.outputPath.empty()) {
    out_ << bytes;
    out_.flush();
    return success();
  }
  std::string error;
  if (!outputs_.stage(options_.outputPath, bytes, &error))
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
  // Every file is staged and renamed at commit (.ptd first: a .pte never
  // exists without the data it names), so a failure leaves none of them.
  auto cannotWrite = [&](const std::string &path) {
    return emitError(fileLocation(*context_, path)) << "cannot write: " << error;
  };
  // Weights go from the builder (and the .ptd's from its entries) straight
  // to the files; MLIR's blobs are the only copy of a weight. The report and
  // --plan-svg read the staged file back through a mapping (the flatbuffer's
  // pages, not the segments').
  pte::ProgramBuilder builder;
  TimingScope emitTime = timeStep("emit");
  if (failed(emitBuilder(builder)))
    return failure();
  emitTime.stop();
  TimingScope writeTime = timeStep("write .pte");
  if (!options_.externalWeightsPath.empty() &&
      !pte::stagePtdFile(builder.external, options_.externalWeightsPath, outputs_, &error))
    return cannotWrite(options_.externalWeightsPath);
  if (!pte::stageProgramFile(builder, pte::WriteOptions{}, options_.outputPath, outputs_,
                             &error))
    return cannotWrite(options_.outputPath);
  writeTime.stop();
  if (!options_.collectReport && !options_.keepPteBytes)
    return success();
  std::string staged = outputs_.stagedPath(options_.outputPath);
  if (staged.empty()) {
    // Written straight into a device: nothing to map, build the bytes.
    if (!pte::trySerializeProgram(builder, pte::WriteOptions{}, &pteBytes_, &error))
      return emitError(module_->getLoc()) << "cannot serialize the program: " << error;
  } else {
    written_ = io::MappedFile::open(staged, &error);
    if (!written_ || !written_->data())
      return emitError(fileLocation(*context_, options_.outputPath))
             << "cannot read back the .pte just written: " << error;
  }
  if (options_.collectReport)
    report_.recordProgram(pteBytes().data(), pteBytes().size());
  return success();
}

LogicalResult CompileSession::commitOutputs() {
  auto flushed = llvm::make_scope_exit([this] { diagnostics_->flush(); });
  std::string error;
  if (outputs_.commit(&error))
    return success();
  return emitError(NameLoc::get(StringAttr::get(context_.get(), "aot-compile")))
         << "cannot write the outputs: " << error;
}

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

LogicalResult CompileSession::emitPte(std::vector<uint8_t> &bytes) {
  auto flushed = llvm::make_scope_exit([this] { diagnostics_->flush(); });
  pte::ProgramBuilder builder;
  if (failed(emitBuilder(builder)))
    return failure();
  std::string error;
  if (!pte::trySerializeProgram(builder, pte::WriteOptions{}, &bytes, &error))
    return emitError(module_->getLoc()) << "cannot serialize the program: " << error;
  if (options_.collectReport)
    report_.recordProgram(bytes.data(), bytes.size());
  return success();
}

LogicalResult CompileSession::writeOutput() {
  auto flushed = llvm::make_scope_exit([this] { diagnostics_->flush(); });
  bool pte = options_.compileTo == Phase::Emit &&
             options_.emitFormat == EmitFormat::Pte;
  if (pte)
    return writePte();
  bool bytecode = options_.emitFormat == EmitFormat::MlirBytecode ||
                  llvm::StringRef(options_.outputPath).ends_with(".mlirbc");
  return writeIr(bytecode);
}

} // namespace ptec
