#include "runtime/executor/DataLoader.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ptec::rt {

Result<DataLoader> DataLoader::fromFile(const char *path, std::string *detail) {
  auto osError = [&](const char *what) {
    if (detail)
      *detail = std::string(what) + ": " + std::strerror(errno);
  };
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    osError("cannot open file");
    return Error::AccessFailed;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    osError("cannot stat file");
    ::close(fd);
    return Error::AccessFailed;
  }
  if (!S_ISREG(st.st_mode)) {
    if (detail)
      *detail = "not a regular file";
    ::close(fd);
    return Error::AccessFailed;
  }
  DataLoader l;
  l.kind_ = Kind::Mapped;
  l.size_ = static_cast<size_t>(st.st_size);
  if (l.size_ == 0) {
    // mmap of zero bytes fails; an empty file is simply an empty view.
    ::close(fd);
    return l;
  }
  void *p = ::mmap(nullptr, l.size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) {
    osError("cannot map file");
    return Error::AccessFailed;
  }
  l.owned_ = p;
  l.ownedSize_ = l.size_;
  l.data_ = static_cast<const uint8_t *>(p);
  return l;
}

DataLoader DataLoader::fromBuffer(const void *data, size_t size) {
  DataLoader l;
  l.kind_ = Kind::Borrowed;
  l.data_ = static_cast<const uint8_t *>(data);
  l.size_ = data ? size : 0;
  return l;
}

Result<DataLoader> DataLoader::fromBufferCopy(const void *data, size_t size) {
  DataLoader l;
  l.kind_ = Kind::Owned;
  if (size == 0 || data == nullptr)
    return l;
  void *p = std::malloc(size); // malloc is aligned to max_align_t
  if (p == nullptr)
    return Error::MemoryAllocationFailed;
  std::memcpy(p, data, size);
  l.owned_ = p;
  l.ownedSize_ = size;
  l.data_ = static_cast<const uint8_t *>(p);
  l.size_ = size;
  return l;
}

DataLoader::DataLoader(DataLoader &&o) noexcept
    : kind_(o.kind_), data_(o.data_), size_(o.size_), owned_(o.owned_),
      ownedSize_(o.ownedSize_) {
  o.owned_ = nullptr;
  o.data_ = nullptr;
  o.size_ = o.ownedSize_ = 0;
}

DataLoader &DataLoader::operator=(DataLoader &&o) noexcept {
  if (this != &o) {
    release();
    kind_ = o.kind_;
    data_ = o.data_;
    size_ = o.size_;
    owned_ = o.owned_;
    ownedSize_ = o.ownedSize_;
    o.owned_ = nullptr;
    o.data_ = nullptr;
    o.size_ = o.ownedSize_ = 0;
  }
  return *this;
}

DataLoader::~DataLoader() { release(); }

void DataLoader::release() {
  if (owned_ != nullptr) {
    if (kind_ == Kind::Mapped)
      ::munmap(owned_, ownedSize_);
    else if (kind_ == Kind::Owned)
      std::free(owned_);
  }
  owned_ = nullptr;
  data_ = nullptr;
  size_ = ownedSize_ = 0;
}

Result<Span<const uint8_t>> DataLoader::load(uint64_t offset, uint64_t nbytes) const {
  if (offset > size_ || nbytes > size_ - offset)
    return Error::InvalidArgument;
  return Span<const uint8_t>(data_ + offset, static_cast<size_t>(nbytes));
}

} // namespace ptec::rt
