// libFuzzer target for the runtime: any bytes are loaded as a .pte program
// (Module::fromBytes: header, flatbuffer verification, segments), every
// method is initialised (full validation, kernel resolution, delegate init)
// and executed once with bounded, patterned inputs (FuzzRun.h). The format
// checker (pte-inspect --check) reads the same bytes. Any error return is
// fine; a crash, hang, leak or sanitizer report is a bug.
//
// Seeds: the compiled zoo and the conformance corpus (run_fuzzer.py makes
// both), plus test/fuzz/corpus/pte.
#include "serde/pte/PteCheck.h"
#include "test/fuzz/FuzzRun.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const bool verbose = [] {
    const char *v = std::getenv("PTEC_FUZZ_VERBOSE");
    return v && *v && *v != '0';
  }();
  ptec::fuzz::RunReport report = ptec::fuzz::runProgramOnce(data, size);
  if (verbose)
    std::fprintf(stderr, "runtime: %s %s\n", ptec::fuzz::outcomeName(report.outcome),
                 report.detail.c_str());
  std::vector<ptec::pte::Violation> violations = ptec::pte::checkPte(data, size);
  (void)violations;
  return 0;
}
