#include "serde/io/InputFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ptec::io {

const char *fileKindName(unsigned mode) {
  switch (mode & S_IFMT) {
  case S_IFREG: return "a regular file";
  case S_IFDIR: return "a directory";
  case S_IFIFO: return "a FIFO (named pipe)";
  case S_IFCHR: return "a character device";
  case S_IFBLK: return "a block device";
  case S_IFSOCK: return "a socket";
  case S_IFLNK: return "a symbolic link";
  default: return "not a regular file";
  }
}

namespace {

/// The checks on an open descriptor's status.
std::string checkStat(const struct stat &st, uint64_t maxBytes) {
  if (!S_ISREG(st.st_mode))
    return std::string("not a regular file: it is ") + fileKindName(st.st_mode);
  if (static_cast<uint64_t>(st.st_size) > maxBytes)
    return "the file has " + std::to_string(st.st_size) + " bytes, more than the " +
           std::to_string(maxBytes) + " it may have";
  return "";
}

} // namespace

std::string checkInputFile(const std::string &path, uint64_t maxBytes, uint64_t *size) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return std::string("cannot open file: ") + std::strerror(errno);
  if (std::string why = checkStat(st, maxBytes); !why.empty())
    return why;
  if (::access(path.c_str(), R_OK) != 0)
    return std::string("cannot open file: ") + std::strerror(errno);
  if (size)
    *size = static_cast<uint64_t>(st.st_size);
  return "";
}

bool readInputFile(const std::string &path, uint64_t maxBytes, std::vector<uint8_t> *out,
                   std::string *err) {
  out->clear();
  auto fail = [&](const std::string &why) {
    *err = why;
    return false;
  };
  // O_NONBLOCK: opening a FIFO must not wait for a writer before we can say no.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return fail(std::string("cannot open file: ") + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return fail(std::string("cannot stat file: ") + std::strerror(e));
  }
  if (std::string why = checkStat(st, maxBytes); !why.empty()) {
    ::close(fd);
    return fail(why);
  }
  const size_t size = static_cast<size_t>(st.st_size);
  out->resize(size);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, out->data() + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int e = errno;
      ::close(fd);
      out->clear();
      return fail(n == 0 ? "the file got shorter while it was read"
                         : std::string("cannot read file: ") + std::strerror(e));
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return true;
}

} // namespace ptec::io
