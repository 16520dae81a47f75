// Runs a fuzz target's LLVMFuzzerTestOneInput without libFuzzer, so that
// every build (gcc included) replays the committed regression inputs and
// the fixture seeds through the exact same entry point:
//
//   <target>_replay [--mutants N] [--min-inputs K] [--ext .pt2] PATH...
//
// PATHs are files or directories (searched recursively; with --ext only
// files with that extension). --mutants N also feeds N deterministic
// mutants of each input, made by the target's LLVMFuzzerCustomMutator when
// it has one (a byte flipper otherwise). Exit 0 when every input returned;
// a bug aborts, as under libFuzzer. Fewer than K inputs is an error, so a
// wrong path cannot make the test pass vacuously.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);
extern "C" __attribute__((weak)) size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                                               size_t maxSize, unsigned int seed);

namespace {
unsigned gSeed = 1;

size_t flipBytes(uint8_t *data, size_t size, size_t maxSize) {
  gSeed = gSeed * 1103515245u + 12345u;
  if (size == 0)
    return 0;
  for (unsigned k = 0, n = 1 + (gSeed >> 28) % 3; k < n; ++k) {
    gSeed = gSeed * 1103515245u + 12345u;
    data[(gSeed >> 8) % size] ^= static_cast<uint8_t>(1u << ((gSeed >> 4) % 8));
  }
  return std::min(size, maxSize);
}

void runOne(const std::string &bytes) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
}
} // namespace

/// libFuzzer's byte-level mutator, for custom mutators that fall back to it.
extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize) {
  return flipBytes(data, size, maxSize);
}

int main(int argc, char **argv) {
  namespace fs = std::filesystem;
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  size_t mutants = 0, minInputs = 1;
  std::string ext;
  std::vector<fs::path> files;
  for (int k = 1; k < argc; ++k) {
    std::string a = argv[k];
    if (a == "--mutants" && k + 1 < argc) {
      mutants = std::strtoul(argv[++k], nullptr, 10);
    } else if (a == "--min-inputs" && k + 1 < argc) {
      minInputs = std::strtoul(argv[++k], nullptr, 10);
    } else if (a == "--ext" && k + 1 < argc) {
      ext = argv[++k];
    } else {
      std::error_code ec;
      if (fs::is_regular_file(a, ec)) {
        files.push_back(a);
        continue;
      }
      for (const auto &e : fs::recursive_directory_iterator(a, ec))
        if (e.is_regular_file() && (ext.empty() || e.path().extension() == ext) &&
            e.path().filename().string()[0] != '.')
          files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  size_t runs = 0, mutantRuns = 0;
  for (const fs::path &path : files) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    runOne(bytes);
    ++runs;
    std::string current = bytes;
    for (size_t m = 0; m < mutants; ++m) {
      // Chains of mutations, as libFuzzer makes them; restart now and then.
      if (m % 8 == 0)
        current = bytes;
      size_t size = current.size(), maxSize = size + size / 4 + 4096;
      std::string buf = current;
      buf.resize(maxSize);
      auto *p = reinterpret_cast<uint8_t *>(&buf[0]);
      unsigned seed = static_cast<unsigned>(m * 7919 + runs * 104729);
      gSeed = seed;
      size_t used = LLVMFuzzerCustomMutator ? LLVMFuzzerCustomMutator(p, size, maxSize, seed)
                                            : flipBytes(p, size, maxSize);
      buf.resize(std::min(used, maxSize));
      runOne(buf);
      ++mutantRuns;
      current = std::move(buf);
    }
  }
  if (runs < minInputs) {
    std::fprintf(stderr, "error: %zu inputs found, expected at least %zu\n", runs, minInputs);
    return 1;
  }
  std::printf("replayed %zu inputs and %zu mutants of them, no crash\n", runs, mutantRuns);
  return 0;
}
