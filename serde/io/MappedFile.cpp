#include "serde/io/MappedFile.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>

namespace ptec::io {

namespace {
struct Live {
  uintptr_t end;
  int fd;
};

// Live mappings by start address. Mappings are few (one per open archive),
// lookups are per written chunk: a mutex is plenty.
std::mutex gMutex;
std::map<uintptr_t, Live> &registry() {
  static std::map<uintptr_t, Live> live;
  return live;
}
std::atomic<uint64_t> gReleased{0};

/// The live mapping holding [p, p + n), or null.
const std::pair<const uintptr_t, Live> *lookup(const void *p, size_t n) {
  uintptr_t at = reinterpret_cast<uintptr_t>(p);
  auto &live = registry();
  auto it = live.upper_bound(at);
  if (it == live.begin())
    return nullptr;
  --it;
  // Past this mapping's end (also when `at` lies above every mapping): not
  // ours. Without the first test `end - at` would wrap around.
  if (at < it->first || at >= it->second.end || n > it->second.end - at)
    return nullptr;
  return &*it;
}
}  // namespace

std::shared_ptr<const MappedFile> MappedFile::open(const std::string &path, std::string *err) {
  auto fail = [&](const char *what) -> std::shared_ptr<const MappedFile> {
    if (err)
      *err = std::string(what) + ": " + std::strerror(errno);
    return nullptr;
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fail("cannot open file");
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    errno = e;
    return fail("cannot stat file");
  }
  std::shared_ptr<MappedFile> m(new MappedFile());
  m->fd_ = fd;
  m->size_ = static_cast<uint64_t>(st.st_size);
  if (!S_ISREG(st.st_mode) || m->size_ == 0)
    return m;  // not mappable (or empty): data() is null, callers fall back
  void *p = ::mmap(nullptr, m->size_, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED)
    return fail("cannot map file");
  // Readers walk payloads front to back once; let the kernel read ahead.
  ::madvise(p, m->size_, MADV_SEQUENTIAL);
  m->data_ = static_cast<const uint8_t *>(p);
  std::lock_guard<std::mutex> lock(gMutex);
  registry()[reinterpret_cast<uintptr_t>(p)] = Live{reinterpret_cast<uintptr_t>(p) + m->size_, fd};
  return m;
}

MappedFile::~MappedFile() {
  if (data_) {
    {
      std::lock_guard<std::mutex> lock(gMutex);
      registry().erase(reinterpret_cast<uintptr_t>(data_));
    }
    ::munmap(const_cast<uint8_t *>(data_), size_);
  }
  if (fd_ >= 0)
    ::close(fd_);
}

bool findMappedSource(const void *p, size_t n, MappedSource *out) {
  std::lock_guard<std::mutex> lock(gMutex);
  const auto *hit = lookup(p, n);
  if (!hit)
    return false;
  out->fd = hit->second.fd;
  out->offset = reinterpret_cast<uintptr_t>(p) - hit->first;
  return true;
}

void releasePages(const void *p, size_t n) {
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  std::lock_guard<std::mutex> lock(gMutex);
  if (!lookup(p, n))
    return;
  uintptr_t b = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
  uintptr_t e = (reinterpret_cast<uintptr_t>(p) + n) & ~(page - 1);
  if (e <= b)
    return;
  // A private read-only file mapping: dropping pages loses nothing, the next
  // access reads them from the file again.
  if (::madvise(reinterpret_cast<void *>(b), e - b, MADV_DONTNEED) == 0)
    gReleased += e - b;
}

uint64_t releasedBytes() { return gReleased.load(); }

}  // namespace ptec::io
