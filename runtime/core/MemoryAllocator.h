// MemoryAllocator: a bump allocator over a caller-provided buffer. The runtime
// never calls malloc on the execute path; method set-up allocates from here.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ptec::rt {

class MemoryAllocator {
public:
  MemoryAllocator() = default;
  MemoryAllocator(void *base, size_t size)
      : base_(static_cast<uint8_t *>(base)), size_(size) {}
  virtual ~MemoryAllocator() = default;

  /// Returns nullptr when the request does not fit. `alignment` must be a
  /// power of two.
  virtual void *allocate(size_t nbytes, size_t alignment = alignof(std::max_align_t)) {
    uintptr_t start = reinterpret_cast<uintptr_t>(base_) + used_;
    uintptr_t aligned = (start + alignment - 1) & ~(uintptr_t(alignment) - 1);
    size_t pad = aligned - start;
    if (pad > size_ - used_ || nbytes > size_ - used_ - pad)
      return nullptr;
    used_ += pad + nbytes;
    return reinterpret_cast<void *>(aligned);
  }
  template <typename T> T *allocateArray(size_t n) {
    if (n != 0 && n > SIZE_MAX / sizeof(T))
      return nullptr;
    return static_cast<T *>(allocate(n * sizeof(T), alignof(T)));
  }
  virtual void reset() { used_ = 0; }

  size_t used() const { return used_; }
  size_t capacity() const { return size_; }

private:
  uint8_t *base_ = nullptr;
  size_t size_ = 0;
  size_t used_ = 0;
};

} // namespace ptec::rt
