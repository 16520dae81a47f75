// Helpers shared by the context-cache tests: a reusable thread barrier and a
// count of heap allocations (global operator new is replaced in
// AllocationCounter.cpp) used to prove that a cache hit allocates nothing.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace ptec::test {

class Barrier {
public:
  explicit Barrier(size_t count) : count_(count) {}
  void arriveAndWait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const size_t generation = generation_;
    if (++waiting_ == count_) {
      waiting_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return generation != generation_; });
  }

private:
  std::mutex mutex_;
  std::condition_variable cv_;
  size_t count_;
  size_t waiting_ = 0;
  size_t generation_ = 0;
};

/// Heap allocations (operator new, all forms) made by the calling thread.
size_t threadHeapAllocations();

} // namespace ptec::test
