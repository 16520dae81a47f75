// MemoryManager: the memory a method runs in. Planned buffers back the
// memory-planned arenas (non_const_buffer_sizes[1..]; entry 0 is reserved and
// ignored), the method allocator holds everything built at load time (values,
// tensors, argument arrays, backend handles), and the temp allocator is
// scratch for one instruction, reset after each.
#pragma once

#include "runtime/core/MemoryAllocator.h"
#include "runtime/core/Result.h"
#include "runtime/core/Span.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ptec::rt {

class MemoryManager {
public:
  /// `planned[j]` backs arena memory_id j+1. None of the pointers are owned.
  MemoryManager(MemoryAllocator *methodAllocator, Span<const Span<uint8_t>> planned,
                MemoryAllocator *tempAllocator = nullptr)
      : methodAllocator_(methodAllocator), planned_(planned), tempAllocator_(tempAllocator) {}

  MemoryAllocator *methodAllocator() const { return methodAllocator_; }
  Span<const Span<uint8_t>> plannedBuffers() const { return planned_; }
  MemoryAllocator *tempAllocator() const { return tempAllocator_; }
  /// What backends receive as BackendInitContext::runtimeAllocator: its
  /// identity scopes cached backend contexts. Module sets one per loaded
  /// program (shared by its methods, outliving them); unset, it is the
  /// method allocator (contexts then shared by nothing but that method).
  void setRuntimeAllocator(MemoryAllocator *a) { runtimeAllocator_ = a; }
  MemoryAllocator *runtimeAllocator() const {
    return runtimeAllocator_ != nullptr ? runtimeAllocator_ : methodAllocator_;
  }
  /// Arena j (memory_id j+1) already holds live state, shared with another
  /// method (Module's mutable-buffer arena): loading a method leaves its
  /// bytes alone instead of copying the program's initial values in.
  void setArenaHoldsState(size_t j, bool holds) {
    const uint64_t bit = j < 64 ? uint64_t(1) << j : 0;
    stateArenas_ = holds ? stateArenas_ | bit : stateArenas_ & ~bit;
  }
  bool arenaHoldsState(size_t j) const { return j < 64 && ((stateArenas_ >> j) & 1) != 0; }

private:
  MemoryAllocator *methodAllocator_;
  Span<const Span<uint8_t>> planned_;
  MemoryAllocator *tempAllocator_;
  MemoryAllocator *runtimeAllocator_ = nullptr;
  uint64_t stateArenas_ = 0;
};

/// A method allocator that grows in heap chunks; used only while a method
/// loads, so growing is fine. Everything is freed with the allocator.
class GrowingAllocator : public MemoryAllocator {
public:
  /// Requests that would take the total past `maxBytes` fail (nullptr), so
  /// a size read from a hostile file cannot exhaust the host.
  explicit GrowingAllocator(size_t chunkBytes = 64 * 1024, size_t maxBytes = size_t(1) << 34)
      : chunkBytes_(chunkBytes), maxBytes_(maxBytes) {}
  void *allocate(size_t nbytes, size_t alignment = alignof(std::max_align_t)) override;
  void reset() override;
  size_t bytesAllocated() const { return total_; }

private:
  struct Chunk {
    std::unique_ptr<uint8_t[]> data;
    size_t size = 0;
    size_t used = 0;
  };
  size_t chunkBytes_;
  size_t maxBytes_;
  size_t total_ = 0;
  std::vector<Chunk> chunks_;
};

/// Owned memory for one method: arenas sized from the plan's
/// non_const_buffer_sizes, a growing method allocator and a fixed temp buffer.
/// Module creates one per loaded method.
class OwnedMemory {
public:
  /// Every arena starts at a multiple of this many bytes (a cache line, and
  /// the largest alignment a backend may ask for its scratch).
  static constexpr size_t kArenaAlignment = 64;
  /// `arenaSizes` is non_const_buffer_sizes without entry 0.
  static Result<std::unique_ptr<OwnedMemory>> create(Span<const int64_t> arenaSizes,
                                                     size_t tempBytes);
  MemoryManager &manager() { return manager_; }
  /// Back arena j with `buffer` (not owned; at least as large as the arena,
  /// aligned to kArenaAlignment) instead of memory of its own.
  void useArena(size_t j, Span<uint8_t> buffer) {
    if (j < spans_.size())
      spans_[j] = buffer;
  }
  size_t plannedBytes() const;

private:
  OwnedMemory() : manager_(nullptr, {}, nullptr) {}
  struct FreeDeleter {
    void operator()(uint8_t *p) const;
  };
  std::vector<std::unique_ptr<uint8_t, FreeDeleter>> arenas_;
  std::vector<Span<uint8_t>> spans_;
  std::unique_ptr<uint8_t[]> temp_;
  GrowingAllocator methodAlloc_;
  MemoryAllocator tempAlloc_;
  MemoryManager manager_;
};

} // namespace ptec::rt
