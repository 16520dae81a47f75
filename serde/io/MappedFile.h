// Read-only memory mappings of whole files, and what the writers need to know
// about a pointer into one.
//
// Weights are the bulk of a model. The .pt2 reader maps the archive and hands
// out windows of it (STORED entries need no copy); the importer's blobs point
// into those windows; the writers find that a chunk they are asked to write
// lies in a live mapping and copy it file to file. Pages a reader touched
// (to check a CRC, to hash for dedup) are given back with releasePages(), so
// the process holds about one tensor at a time instead of the whole model:
// the bytes stay in the page cache, not in the process's resident set.
#ifndef PTEC_SERDE_IO_MAPPEDFILE_H
#define PTEC_SERDE_IO_MAPPEDFILE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace ptec::io {

class MappedFile {
public:
  /// Maps `path` read-only. Null with *err set ("cannot open file: ...") on
  /// failure. An empty file maps to an empty view.
  static std::shared_ptr<const MappedFile> open(const std::string &path, std::string *err);
  ~MappedFile();
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;

  const uint8_t *data() const { return data_; }
  uint64_t size() const { return size_; }
  /// The open file: reading it with pread() copies from the page cache
  /// without mapping pages into the process (no page faults, no RSS).
  int fd() const { return fd_; }

private:
  MappedFile() = default;
  const uint8_t *data_ = nullptr;
  uint64_t size_ = 0;
  int fd_ = -1;
};

/// Where the bytes at [p, p + n) come from, when they lie wholly inside one
/// live MappedFile: its descriptor (valid while the mapping lives) and the
/// file offset of `p`.
struct MappedSource {
  int fd = -1;
  uint64_t offset = 0;
};
bool findMappedSource(const void *p, size_t n, MappedSource *out);

/// Drops the process's resident pages that lie wholly inside [p, p + n) when
/// that range is inside a live MappedFile (the file's page cache keeps them;
/// a later read faults them back in). A no-op for any other memory.
void releasePages(const void *p, size_t n);

/// Pages mapped so far that releasePages() gave back, for tests and reports.
uint64_t releasedBytes();

}  // namespace ptec::io

#endif  // PTEC_SERDE_IO_MAPPEDFILE_H
