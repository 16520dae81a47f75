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

// Writes the file `path` as OutputTarget.h says: `-` (and /dev/stdout) is
// standard output; links are followed, never replaced; a FIFO or device is
// written directly; a regular file (or a new name) is written to a
// temporary next to it, then renamed over it, keeping its permission bits;
// a directory is refused. On failure nothing is left behind (an existing
// file is as it was) and *err says why. Every file a tool writes is
// written by this function or by OutputFiles, which share one code path.
bool writeFileAtomic(const std::string &path, const std::vector<uint8_t> &bytes,
                     std::string *err);

// writeFileAtomic of the chunks, in order.
bool writeChunksAtomic(const std::string &path, const std::vector<FileChunk> &chunks,
                       std::string *err);

// Several outputs written as one: every file is first written to a
// temporary next to it (stage), and commit() renames them all, in staging
// order. Until then, and after any failure, the temporaries are removed
// (abandon(), or the destructor), so a failed compile leaves no output. A
// stream (`-`, a FIFO, a device: see OutputTarget.h) cannot be staged: it
// is written at stage() directly. Errors name the file and say why.
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
    std::string path; ///< as given
    std::string file; ///< what the rename replaces (links followed)
    std::string tmp;
  };
  std::vector<Staged> staged_;
};

} // namespace ptec::pte
