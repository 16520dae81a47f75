// Runs the pt2 fuzz entry point over a fixed corpus: the malformed suite,
// deterministic mutations (truncations, byte flips) of valid archives, and
// every file under the directories given on the command line. Exit 0 when
// nothing crashed. `--write-corpus DIR` writes the built-in inputs as seeds
// for the libFuzzer binary instead.
#include "test/unit/pt2/OldSchemaArchives.h"
#include "test/unit/pt2/TestArchives.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace {
std::vector<std::string> builtinInputs() {
  using namespace ptec::pt2::test;
  std::vector<std::string> inputs;
  for (const MalformedCase &c : malformedCases())
    inputs.push_back(c.bytes);
  // Bare JSON and pickles: the entry point wraps them into archives.
  std::string model = basicModel().dump();
  inputs.push_back(model);
  for (size_t cut = 1; cut < model.size(); cut += 1 + model.size() / 53)
    inputs.push_back(model.substr(0, cut));
  // The same as each older schema major spelled it (OldSchemaArchives.h).
  for (int major = 1; major <= 8; ++major) {
    std::string old = historyModel(major).dump();
    inputs.push_back(old);
    for (size_t cut = 1; cut < old.size(); cut += 1 + old.size() / 17)
      inputs.push_back(old.substr(0, cut));
  }
  std::string pickle = stateDictPickle();
  for (size_t cut = 2; cut <= pickle.size(); ++cut)
    inputs.push_back(pickle.substr(0, cut));
  for (size_t at = 2; at < pickle.size(); ++at) {
    std::string m = pickle;
    m[at] = static_cast<char>(m[at] ^ 0x40);
    inputs.push_back(std::move(m));
  }
  for (const std::string &valid : validSamples()) {
    inputs.push_back(valid);
    // Truncations at a spread of lengths, then single-byte corruptions.
    for (size_t cut = 0; cut < valid.size(); cut += 1 + valid.size() / 41)
      inputs.push_back(valid.substr(0, cut));
    for (size_t at = 0; at < valid.size(); at += 1 + valid.size() / 97) {
      for (uint8_t flip : {0x01, 0x80, 0xFF}) {
        std::string m = valid;
        m[at] = static_cast<char>(static_cast<uint8_t>(m[at]) ^ flip);
        inputs.push_back(std::move(m));
      }
    }
  }
  return inputs;
}

void run(const std::string &bytes) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
}
}  // namespace

int main(int argc, char **argv) {
  namespace fs = std::filesystem;
  if (argc == 3 && std::string(argv[1]) == "--write-corpus") {
    fs::create_directories(argv[2]);
    std::vector<std::string> inputs = builtinInputs();
    for (size_t k = 0; k < inputs.size(); ++k) {
      std::ofstream out(fs::path(argv[2]) / ("seed_" + std::to_string(k)), std::ios::binary);
      out.write(inputs[k].data(), static_cast<std::streamsize>(inputs[k].size()));
    }
    std::printf("wrote %zu seeds to %s\n", inputs.size(), argv[2]);
    return 0;
  }
  size_t count = 0;
  for (const std::string &input : builtinInputs()) {
    run(input);
    ++count;
  }
  for (int k = 1; k < argc; ++k) {
    std::error_code ec;
    if (!fs::exists(argv[k], ec))
      continue;
    for (const auto &entry : fs::recursive_directory_iterator(argv[k], ec)) {
      if (!entry.is_regular_file() || entry.file_size() > (64u << 20))
        continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      run(bytes);
      ++count;
    }
  }
  std::printf("pt2_fuzz_corpus: %zu inputs, no crash\n", count);
  return 0;
}
