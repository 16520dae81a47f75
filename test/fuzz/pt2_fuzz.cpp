// libFuzzer entry point for the .pt2 reader. Any input must either read or
// give a ReadError that starts with the name; a crash, hang or sanitizer
// report is a bug. Built as `pt2_fuzz` with -DPTEC_BUILD_FUZZERS=ON (clang),
// and linked into pt2_fuzz_corpus_driver so ctest runs it on a fixed corpus.
//
//   pt2_fuzz -max_len=65536 corpus_dir/
//   pt2_fuzz_corpus_driver --write-corpus corpus_dir   # seeds
#include "serde/pt2/Pt2Reader.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ptec::pt2::ReadError err;
  std::optional<ptec::pt2::ExportedProgram> ep =
      ptec::pt2::readPt2FromMemory(data, size, "fuzz.pt2", &err);
  if (!ep && err.message.rfind("fuzz.pt2: ", 0) != 0)
    __builtin_trap();  // every failure must say which file
  return 0;
}
