#include "runtime/executor/MemoryManager.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace ptec::rt {

void *GrowingAllocator::allocate(size_t nbytes, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    return nullptr;
  if (!chunks_.empty()) {
    Chunk &c = chunks_.back();
    uintptr_t start = reinterpret_cast<uintptr_t>(c.data.get()) + c.used;
    uintptr_t aligned = (start + alignment - 1) & ~(uintptr_t(alignment) - 1);
    size_t pad = aligned - start;
    if (pad <= c.size - c.used && nbytes <= c.size - c.used - pad) {
      c.used += pad + nbytes;
      return reinterpret_cast<void *>(aligned);
    }
  }
  if (nbytes > SIZE_MAX - alignment)
    return nullptr;
  size_t need = nbytes + alignment;
  size_t size = need > chunkBytes_ ? need : chunkBytes_;
  if (size > maxBytes_ - std::min(total_, maxBytes_))
    return nullptr;
  Chunk c;
  c.data.reset(new (std::nothrow) uint8_t[size]);
  if (!c.data)
    return nullptr;
  c.size = size;
  total_ += size;
  chunks_.push_back(std::move(c));
  return allocate(nbytes, alignment);
}

void GrowingAllocator::reset() {
  chunks_.clear();
  total_ = 0;
}

Result<std::unique_ptr<OwnedMemory>> OwnedMemory::create(Span<const int64_t> arenaSizes,
                                                         size_t tempBytes) {
  std::unique_ptr<OwnedMemory> m(new OwnedMemory());
  for (size_t i = 0; i < arenaSizes.size(); ++i) {
    int64_t n = arenaSizes[i];
    if (n < 0)
      return Error::InvalidProgram;
    size_t bytes = static_cast<size_t>(n);
    // calloc: planned memory starts as zeros, and a large arena costs nothing
    // until it is touched. calloc only promises 16-byte alignment, so take
    // kArenaAlignment - 1 bytes more and start the arena at the first aligned
    // address (planned offsets, and the alignment backends ask for their
    // scratch, are relative to an aligned base).
    if (bytes > SIZE_MAX - kArenaAlignment)
      return Error::MemoryAllocationFailed;
    std::unique_ptr<uint8_t, FreeDeleter> a(
        static_cast<uint8_t *>(std::calloc(bytes + kArenaAlignment - 1, 1)));
    if (!a)
      return Error::MemoryAllocationFailed;
    uintptr_t raw = reinterpret_cast<uintptr_t>(a.get());
    uintptr_t aligned = (raw + kArenaAlignment - 1) & ~uintptr_t(kArenaAlignment - 1);
    m->spans_.emplace_back(a.get() + (aligned - raw), bytes);
    m->arenas_.push_back(std::move(a));
  }
  m->temp_.reset(new (std::nothrow) uint8_t[tempBytes == 0 ? 1 : tempBytes]);
  if (!m->temp_)
    return Error::MemoryAllocationFailed;
  m->tempAlloc_ = MemoryAllocator(m->temp_.get(), tempBytes);
  m->manager_ = MemoryManager(&m->methodAlloc_,
                              Span<const Span<uint8_t>>(m->spans_.data(), m->spans_.size()),
                              &m->tempAlloc_);
  return m;
}

void OwnedMemory::FreeDeleter::operator()(uint8_t *p) const { std::free(p); }

size_t OwnedMemory::plannedBytes() const {
  size_t total = 0;
  for (const auto &s : spans_)
    total += s.size();
  return total;
}

} // namespace ptec::rt
