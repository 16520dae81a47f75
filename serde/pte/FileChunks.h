// Writing a file atomically from pieces that live elsewhere (the .pte's and
// the .ptd's weights stay where the emitter lent them from; no file image is
// built in memory), and several files as one (OutputFiles). Implemented in
// FileWrite.cpp.
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
// `path`; on failure nothing is left behind and *err says why. A path that
// names something other than a regular file (a character device such as
// /dev/null, a FIFO) is written directly, never replaced.
bool writeFileAtomic(const std::string &path, const std::vector<uint8_t> &bytes,
                     std::string *err);

// writeFileAtomic of the chunks, in order.
bool writeChunksAtomic(const std::string &path, const std::vector<FileChunk> &chunks,
                       std::string *err);

// Whether `path` exists and is not a regular file (or a link to one): such a
// target is written in place, not replaced by a rename.
bool isSpecialFile(const std::string &path);

// Several outputs written as one: every file is first written to a
// temporary next to it (stage), and commit() renames them all, in staging
// order. Until then, and after any failure, the temporaries are removed
// (abandon(), or the destructor), so a failed compile leaves no output. A
// special file (isSpecialFile) cannot be staged: it is written at stage()
// directly. Errors name the file and say why.
class OutputFiles {
public:
  OutputFiles() = default;
  OutputFiles(const OutputFiles &) = delete;
  OutputFiles &operator=(const OutputFiles &) = delete;
  ~OutputFiles() { abandon(); }

  bool stage(const std::string &path, const std::vector<FileChunk> &chunks, std::string *err);
  bool stage(const std::string &path, const std::string &bytes, std::string *err);
  // Where the bytes staged for `path` can be read back before commit (the
  // temporary); "" when `path` was not staged (or was written directly).
  std::string stagedPath(const std::string &path) const;
  bool empty() const { return staged_.empty(); }
  // Renames every temporary over its path; on a failure the remaining
  // temporaries are removed and *err says which file and why.
  bool commit(std::string *err);
  // Removes every temporary not yet committed.
  void abandon();

private:
  struct Staged {
    std::string path, tmp;
  };
  std::vector<Staged> staged_;
};

} // namespace ptec::pte
