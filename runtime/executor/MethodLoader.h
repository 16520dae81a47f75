// MethodLoader: the private class that builds a Method from its execution
// plan (Method::load). Its steps live in MethodLoad*.cpp by what they load
// (plan entry and arenas, values, instructions, delegates); this header is
// what those files share and is not part of the runtime's API.
#pragma once

#include "runtime/executor/ErrorDetail.h"
#include "runtime/executor/Method.h"
#include "serde/pte/program_generated.h"

#include <cstdio>
#include <new>
#include <string>
#include <vector>

namespace ptec::rt {
namespace fb = executorch_flatbuffer;

/// Builds a Method from its plan; every failure names the plan and the field.
class Method::Loader {
public:
  Loader(Method &m, const fb::ExecutionPlan &plan, const KernelResolver &kernels,
         std::string *detail)
      : m_(m), plan_(plan), kernels_(kernels), detail_(detail) {}

  Error run();

private:
  template <typename... Args> Error fail(Error e, const char *fmt, Args... args) {
    char buf[448];
    std::snprintf(buf, sizeof(buf), fmt, args...);
    return failWith(detail_, e, "plan '%s' %s", m_.name_, buf);
  }
  Error fail(Error e, const char *msg) { return fail(e, "%s", msg); }

  template <typename T> T *alloc(size_t n) {
    if (n == 0)
      n = 1; // keep pointers non-null for empty tables
    T *p = m_.memory_->methodAllocator()->allocateArray<T>(n);
    if (p != nullptr)
      for (size_t i = 0; i < n; ++i)
        new (&p[i]) T();
    return p;
  }
  Error outOfMemory(const char *what) {
    return fail(Error::MemoryAllocationFailed, "%s: method allocator is exhausted", what);
  }

  Error checkPresence();
  Error loadArenas();
  Error loadValues();
  Error loadValue(size_t i, const fb::EValue *ev);
  Error loadTensor(size_t i, const fb::Tensor *t, Tensor *&out, bool &planned);
  Error loadIndexList(size_t i, const char *kind, const flatbuffers::Vector<int32_t> *items32,
                      const flatbuffers::Vector<int64_t> *items64, EValue::Tag want);
  /// Value `i` as a list of scalars copied out of the flatbuffer:
  /// `read(items, k)` is item k, `wrap` makes the EValue of the copy.
  template <typename Items, typename Read, typename Wrap>
  Error loadScalarList(size_t i, const char *kind, const Items *items, Read read, Wrap wrap);
  Error loadInputsOutputs();
  Error loadInstructions();
  Error checkArgs(size_t pc, const char *what, const flatbuffers::Vector<int32_t> *args,
                  Span<EValue *> &out);
  Error loadDelegates();

  Method &m_;
  const fb::ExecutionPlan &plan_;
  const KernelResolver &kernels_;
  std::string *detail_;
  // Arena sizes from the plan (entry 0 dropped) and their memory.
  std::vector<uint64_t> arenaSizes_;
  // Planned-ness of each value, for inputs.
  std::vector<uint8_t> plannedValue_;
  // DelegateCall sites per delegate entry (first two instruction indices).
  std::vector<uint32_t> delegateUses_;
  std::vector<size_t> delegateFirstUse_, delegateSecondUse_;
};

} // namespace ptec::rt
