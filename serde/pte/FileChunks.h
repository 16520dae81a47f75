// Writing a file atomically from pieces that live elsewhere (the .pte's and
// the .ptd's weights stay where the emitter lent them from; no file image is
// built in memory). Implemented in PteWriter.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ptec::pte {

// A piece of a file to write: `size` bytes at `data`, or zeros when null.
struct FileChunk {
  const uint8_t *data;
  size_t size;
};

// Writes a temporary file in the same directory, then renames it over
// `path`; on failure nothing is left behind and *err says why.
bool writeFileAtomic(const std::string &path, const std::vector<uint8_t> &bytes,
                     std::string *err);

// writeFileAtomic of the chunks, in order.
bool writeChunksAtomic(const std::string &path, const std::vector<FileChunk> &chunks,
                       std::string *err);

} // namespace ptec::pte
