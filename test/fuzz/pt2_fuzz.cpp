// libFuzzer entry point for the .pt2 reader. Any input must either read or
// give a ReadError that starts with the name; a crash, hang or sanitizer
// report is a bug. Built as `pt2_fuzz` with -DPTEC_BUILD_FUZZERS=ON (clang),
// and linked into pt2_fuzz_corpus_driver so ctest runs it on a fixed corpus.
//
// Raw bytes are read as a whole archive. So that mutations get past the zip
// layer (and its CRCs), an input that looks like JSON is also read as the
// model.json of a valid archive, and one that looks like a pickle as the
// data.pkl of a legacy archive's state dict.
//
//   pt2_fuzz_corpus_driver --write-corpus seeds/
//   pt2_fuzz -max_len=65536 corpus/ seeds/
#include "serde/pt2/Pt2Reader.h"
#include "test/unit/pt2/TestArchives.h"

#include <cstddef>
#include <cstdint>

namespace {
void readOne(const std::string &bytes) {
  ptec::pt2::ReadError err;
  std::optional<ptec::pt2::ExportedProgram> ep =
      ptec::pt2::readPt2FromMemory(bytes.data(), bytes.size(), "fuzz.pt2", &err);
  if (!ep && err.message.rfind("fuzz.pt2: ", 0) != 0)
    __builtin_trap();  // every failure must say which file
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace ptec::pt2::test;
  std::string bytes(reinterpret_cast<const char *>(data), size);
  readOne(bytes);
  if (size > 0 && data[0] == '{') {
    std::vector<ZipEntry> entries = basicEntries();
    setEntry(entries, "m/models/model.json", bytes);
    readOne(writeZip(entries, ZipStyle::Torch));
  } else if (size > 1 && data[0] == 0x80) {
    readOne(legacyZip(torchSaveZip(bytes)));
  }
  return 0;
}
