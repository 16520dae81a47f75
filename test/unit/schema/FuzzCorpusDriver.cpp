// Runs the libFuzzer entry point of test/fuzz/schema_fuzz.cpp over every file
// of a corpus directory. The entry aborts on a broken invariant, so a zero
// exit status means every input was handled.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus-dir>\n", argv[0]);
    return 2;
  }
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto &entry : std::filesystem::directory_iterator(argv[1], ec))
    if (entry.is_regular_file())
      files.push_back(entry.path());
  if (ec || files.empty()) {
    std::fprintf(stderr, "error: no corpus files in '%s'\n", argv[1]);
    return 1;
  }
  std::sort(files.begin(), files.end());
  for (const auto &path : files) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  }
  std::printf("ran %zu corpus inputs\n", files.size());
  return 0;
}
