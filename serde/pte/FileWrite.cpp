// Writing output files, every file every tool writes: where the bytes go is
// resolveOutput's decision (OutputTarget.h); a regular file is written to a
// temporary and renamed over the target, several as one (OutputFiles); a
// descriptor (`-`), FIFO or device is written in place.
#include "serde/io/MappedFile.h"
#include "serde/pte/FileChunks.h"
#include "serde/pte/OutputTarget.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ptec::pte {

namespace {

/// Writes the chunks to `fd`; false with errno set.
bool writeChunksTo(int fd, const std::vector<FileChunk> &chunks) {
  static const uint8_t kZeros[4096] = {};
  constexpr size_t kWriteSlice = size_t(32) << 20;
  for (const FileChunk &c : chunks) {
    size_t done = 0;
    // Bytes that lie in a mapped input file (weights read in place from the
    // .pt2) are copied file to file by the kernel: they never pass through,
    // or stay resident in, this process.
    io::MappedSource src;
    if (c.data && c.size && io::findMappedSource(c.data, c.size, &src)) {
      loff_t from = static_cast<loff_t>(src.offset);
      while (done < c.size) {
        ssize_t n = ::copy_file_range(src.fd, &from, fd, nullptr, c.size - done, 0);
        if (n < 0 && errno == EINTR)
          continue;
        if (n <= 0)
          break; // unsupported here (EXDEV, EINVAL, a device, ...) or short: write() the rest
        done += static_cast<size_t>(n);
      }
    }
    while (done < c.size) {
      const uint8_t *from = c.data ? c.data + done : kZeros;
      size_t want = c.data ? std::min(c.size - done, kWriteSlice)
                           : std::min(c.size - done, sizeof kZeros);
      ssize_t n = ::write(fd, from, want);
      if (n > 0 && c.data)
        io::releasePages(from, static_cast<size_t>(n)); // a mapping's pages, once written
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        if (n == 0)
          errno = ENOSPC;
        return false;
      }
      done += static_cast<size_t>(n);
    }
  }
  return true;
}

bool failWith(std::string *err, const std::string &what) {
  int e = errno;
  if (err)
    *err = what + ": " + std::strerror(e);
  return false;
}

/// Writes a FIFO or device in place (no temporary, no rename).
bool writeInPlace(const std::string &path, const std::vector<FileChunk> &chunks,
                  std::string *err) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return failWith(err, "cannot open '" + path + "'");
  if (!writeChunksTo(fd, chunks)) {
    int e = errno;
    ::close(fd);
    errno = e;
    return failWith(err, "cannot write '" + path + "'");
  }
  if (::close(fd) != 0)
    return failWith(err, "cannot close '" + path + "'");
  return true;
}

/// Writes to an open descriptor (standard output for `-`), after what
/// stdio holds for it.
bool writeDescriptor(int fd, const std::vector<FileChunk> &chunks, std::string *err) {
  std::fflush(fd == 1 ? stdout : fd == 2 ? stderr : nullptr);
  if (!writeChunksTo(fd, chunks))
    return failWith(err, fd == 1 ? "cannot write to standard output"
                                 : "cannot write to descriptor " + std::to_string(fd));
  return true;
}

/// Writes the chunks to a fresh temporary next to `path`; *tmp names it.
/// A replaced file keeps its permission bits (`mode`, or the umask's for a
/// new one: mode 0).
bool writeTemporary(const std::string &path, const std::vector<FileChunk> &chunks,
                    unsigned mode, std::string *tmp, std::string *err) {
  // Unique name in the same directory, so the rename is atomic.
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    *tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(attempt);
    fd = ::open(tmp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST)
      return failWith(err, "cannot create temporary file for '" + path + "'");
  }
  if (fd < 0)
    return failWith(err, "cannot create temporary file for '" + path + "'");
  if (mode != 0)
    (void)::fchmod(fd, mode & 07777);
  if (!writeChunksTo(fd, chunks)) {
    int e = errno;
    ::close(fd);
    ::unlink(tmp->c_str());
    errno = e;
    return failWith(err, "cannot write '" + *tmp + "'");
  }
  // No fsync: see docs/pte-format-notes.md "Determinism and atomic writes".
  if (::close(fd) != 0) {
    int e = errno;
    ::unlink(tmp->c_str());
    errno = e;
    return failWith(err, "cannot close '" + *tmp + "'");
  }
  return true;
}

} // namespace

bool writeFileAtomic(const std::string &path, const std::vector<uint8_t> &bytes,
                     std::string *err) {
  return writeChunksAtomic(path, {{bytes.data(), bytes.size()}}, err);
}

bool writeChunksAtomic(const std::string &path, const std::vector<FileChunk> &chunks,
                       std::string *err) {
  OutputFiles out;
  return out.stage(path, chunks, err) && out.commit(err);
}

bool OutputFiles::stage(const std::string &path, const std::vector<FileChunk> &chunks,
                        std::string *err) {
  OutputTarget target;
  std::string why;
  if (!resolveOutput(path, &target, &why)) {
    if (err)
      *err = "cannot write '" + path + "': " + why;
    return false;
  }
  // A descriptor, FIFO or device is written where it is: a rename would
  // replace it.
  if (target.kind == OutputTarget::Kind::Descriptor)
    return writeDescriptor(target.fd, chunks, err);
  if (target.kind == OutputTarget::Kind::InPlace)
    return writeInPlace(target.file, chunks, err);
  unsigned mode = 0;
  struct stat st;
  if (target.exists && ::stat(target.file.c_str(), &st) == 0)
    mode = st.st_mode;
  std::string tmp;
  if (!writeTemporary(target.file, chunks, mode, &tmp, err))
    return false;
  staged_.push_back({path, target.file, tmp});
  return true;
}

bool OutputFiles::stage(const std::string &path, const std::string &bytes, std::string *err) {
  return stage(path, {{reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()}}, err);
}

std::string OutputFiles::stagedPath(const std::string &path) const {
  for (auto it = staged_.rbegin(); it != staged_.rend(); ++it)
    if (it->path == path)
      return it->tmp;
  return "";
}

bool OutputFiles::commit(std::string *err) {
  for (size_t i = 0; i < staged_.size(); ++i)
    if (::rename(staged_[i].tmp.c_str(), staged_[i].file.c_str()) != 0) {
      failWith(err, "cannot rename '" + staged_[i].tmp + "' to '" + staged_[i].file + "'");
      staged_.erase(staged_.begin(), staged_.begin() + static_cast<std::ptrdiff_t>(i));
      abandon();
      return false;
    }
  staged_.clear();
  return true;
}

void OutputFiles::abandon() {
  for (const Staged &s : staged_)
    ::unlink(s.tmp.c_str());
  staged_.clear();
}

} // namespace ptec::pte
