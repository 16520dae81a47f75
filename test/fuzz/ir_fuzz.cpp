// libFuzzer target for saved IR: bytes are read as a program saved with
// --compile-to (textual .mlir or .mlirbc bytecode, told apart by the
// bytecode magic as the MLIR parser does) through CompileSession::loadSavedIr,
// the same code that resumes `aot-compile saved.mlir`, then the remaining
// phases run and the .pte is emitted in memory. Errors are fine; a crash, a
// sanitizer report or a failure without an error diagnostic is a bug.
//
// Seeds: the lit tests' .mlir files and the zoo saved after each phase
// (run_fuzzer.py makes those with aot-compile --compile-to, both formats).
#include "compiler/Session.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace ptec;
  // Keep units small: a huge textual module only measures the parser.
  if (size > (1u << 20))
    return 0;
  CompileOptions options;
  options.compileTo = Phase::Emit;
  std::string diagnostics;
  llvm::raw_string_ostream errs(diagnostics);
  CompileSession session(options, errs, llvm::nulls());
  std::unique_ptr<llvm::MemoryBuffer> buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.mlir");
  std::vector<uint8_t> pte;
  bool ok = succeeded(session.loadSavedIr(std::move(buffer))) &&
            succeeded(session.runPhases()) && succeeded(session.emitPte(pte));
  errs.flush();
  if (!ok && session.errorCount() == 0) {
    std::fprintf(stderr, "ir_fuzz: failed without an error\n%s\n", diagnostics.c_str());
    std::abort();
  }
  return 0;
}
