// libFuzzer target for the whole compiler: a .pt2 archive is read, imported,
// taken through every phase of Phases.def and emitted as .pte bytes, in
// memory, through the same CompileSession calls aot-compile makes; the
// program is then checked against the format spec (PteCheck) and run once by
// the reference runtime. Inputs are .pt2 files (the fixtures are the seeds),
// mutated by the structure-aware GraphMutator; compile options come from the
// zip comment (GraphMutator.h), so every input reproduces with
//   aot-compile input.pt2 <PipelineOptions::flags()> -o out.pte
//
// Bugs, each aborts: a crash or sanitizer report; a failure with no error
// diagnostic; an emitted program that breaks a format rule. With
// PTEC_FUZZ_STRICT=1 a program the compiler accepted but the runtime refuses
// or fails to run aborts too (what import-time verification must prevent).
#include "compiler/Import.h"
#include "compiler/Session.h"
#include "serde/pt2/Pt2Reader.h"
#include "serde/pte/PteCheck.h"
#include "test/fuzz/FuzzRun.h"
#include "test/fuzz/GraphMutator.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {
bool envFlag(const char *name) {
  const char *v = std::getenv(name);
  return v && *v && *v != '0';
}

[[noreturn]] void bug(const char *what, const std::string &detail,
                      const ptec::fuzz::PipelineOptions &o) {
  std::fprintf(stderr, "pipeline_fuzz: %s (aot-compile flags: %s)\n%s\n", what,
               o.flags().c_str(), detail.c_str());
  std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace ptec;
  pt2::ReadError readError;
  std::optional<pt2::ExportedProgram> program =
      pt2::readPt2FromMemory(data, size, "fuzz.pt2", &readError);
  if (!program)
    return 0; // the reader's own target (pt2_fuzz) covers its errors
  fuzz::PipelineOptions o = fuzz::readPipelineOptions(data, size);
  static const bool verbose = envFlag("PTEC_FUZZ_VERBOSE");
  static const bool strict = envFlag("PTEC_FUZZ_STRICT");

  CompileOptions options;
  options.compileTo = Phase::Emit;
  if (o.backend != "none")
    options.backends = {o.backend};
  options.planner = o.planner;
  options.writeBackAtEnd = o.writeBackAtEnd;
  options.reinplace = o.reinplace;
  options.shareDelegates = o.shareDelegates;
  std::string diagnostics;
  llvm::raw_string_ostream errs(diagnostics);
  std::vector<uint8_t> pte;
  {
    CompileSession session(options, errs, llvm::nulls());
    std::vector<MethodSource> sources;
    sources.push_back(MethodSource{std::move(*program), "forward"});
    bool ok = succeeded(session.loadPrograms(sources)) && succeeded(session.runPhases()) &&
              succeeded(session.emitPte(pte));
    errs.flush();
    if (!ok) {
      if (session.errorCount() == 0)
        bug("compile failed without an error", diagnostics, o);
      if (verbose)
        std::fprintf(stderr, "compile error: %s", diagnostics.c_str());
      return 0;
    }
  }

  std::vector<pte::Violation> violations = pte::checkPte(pte.data(), pte.size());
  std::string report;
  if (pte::formatViolations("emitted.pte", violations, &report) != 0)
    bug("the emitted program breaks the format", report, o);

  fuzz::RunReport run = fuzz::runProgramOnce(pte.data(), pte.size());
  if (verbose)
    std::fprintf(stderr, "compiled; runtime: %s %s\n", fuzz::outcomeName(run.outcome),
                 run.detail.c_str());
  if (strict && (run.outcome == fuzz::RunReport::Outcome::Rejected ||
                 run.outcome == fuzz::RunReport::Outcome::Failed))
    bug("a program the compiler accepted does not run", run.detail, o);
  return 0;
}

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize,
                                          unsigned int seed) {
  return ptec::fuzz::mutatePt2(data, size, maxSize, seed, &LLVMFuzzerMutate);
}
