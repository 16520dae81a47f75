// Replaces the global allocation functions of the test binary to count, per
// thread, how many heap allocations happen.
#include "test/unit/backends/TestSupport.h"

#include <cstdlib>
#include <new>

namespace {
thread_local size_t tAllocations = 0;

void *countedAlloc(size_t n) {
  ++tAllocations;
  return std::malloc(n == 0 ? 1 : n);
}
} // namespace

size_t ptec::test::threadHeapAllocations() { return tAllocations; }

void *operator new(size_t n) {
  if (void *p = countedAlloc(n))
    return p;
  throw std::bad_alloc();
}
void *operator new[](size_t n) {
  if (void *p = countedAlloc(n))
    return p;
  throw std::bad_alloc();
}
void *operator new(size_t n, const std::nothrow_t &) noexcept { return countedAlloc(n); }
void *operator new[](size_t n, const std::nothrow_t &) noexcept { return countedAlloc(n); }
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, size_t) noexcept { std::free(p); }
void operator delete[](void *p, size_t) noexcept { std::free(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { std::free(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { std::free(p); }
