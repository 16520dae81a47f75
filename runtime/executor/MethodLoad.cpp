// Method::load and the loader's first steps: finding the plan, checking that
// its required tables are present and that the memory manager supplies the
// planned arenas, then running the per-table steps (MethodLoad*.cpp) in order.
// Also the Method's teardown, which undoes what loading initialised.
#include "runtime/executor/MethodLoader.h"

#include "serde/pte/FlatbufferGet.h"

#include <memory>

namespace ptec::rt {

Error Method::Loader::checkPresence() {
  if (plan_.values() == nullptr)
    return fail(Error::InvalidProgram, "values is missing");
  if (plan_.inputs() == nullptr)
    return fail(Error::InvalidProgram, "inputs is missing");
  if (plan_.outputs() == nullptr)
    return fail(Error::InvalidProgram, "outputs is missing");
  if (plan_.chains() == nullptr || plan_.chains()->size() == 0)
    return fail(Error::InvalidProgram, "chains is missing or empty");
  if (plan_.chains()->size() > 1)
    return fail(Error::NotSupported, "has %u chains; only one chain is supported",
                plan_.chains()->size());
  if (plan_.non_const_buffer_sizes() == nullptr)
    return fail(Error::InvalidProgram, "non_const_buffer_sizes is missing");
  if (plan_.delegates() == nullptr)
    return fail(Error::InvalidProgram,
                "delegates is missing (an empty vector is required even with no delegates)");
  return Error::Ok;
}

Error Method::Loader::loadArenas() {
  const auto *sizes = plan_.non_const_buffer_sizes();
  Span<const Span<uint8_t>> buffers = m_.memory_->plannedBuffers();
  for (flatbuffers::uoffset_t j = 1; j < sizes->size(); ++j) {
    int64_t n = pte::get8(sizes, j);
    if (n < 0)
      return fail(Error::InvalidProgram, "non_const_buffer_sizes[%u] is negative (%lld)", j,
                  (long long)n);
    size_t arena = j - 1;
    if (arena >= buffers.size())
      return fail(Error::InvalidArgument,
                  "needs %u planned buffers, the memory manager supplies %zu",
                  sizes->size() - 1, buffers.size());
    if (buffers[arena].size() < static_cast<uint64_t>(n))
      return fail(Error::InvalidArgument,
                  "planned buffer for memory_id %u has %zu bytes, the plan needs %lld", j,
                  buffers[arena].size(), (long long)n);
    arenaSizes_.push_back(static_cast<uint64_t>(n));
  }
  return Error::Ok;
}

Error Method::Loader::run() {
  PTEC_TRY(checkPresence());
  PTEC_TRY(loadArenas());
  PTEC_TRY(loadValues());
  PTEC_TRY(loadInputsOutputs());
  PTEC_TRY(loadInstructions());
  return loadDelegates();
}

Result<std::unique_ptr<Method>> Method::load(const Program &program, const char *name,
                                             MemoryManager &memory,
                                             const KernelResolver &kernels,
                                             std::string *detail) {
  if (name == nullptr)
    return failWith(detail, Error::InvalidArgument, "method name is null");
  auto plan = program.plan(name);
  if (!plan.ok()) {
    std::string names;
    for (const std::string &n : program.methodNames())
      names += (names.empty() ? "" : ", ") + n;
    return failWith(detail, Error::NotFound, "no method named '%s' (the program has: %s)", name,
                    names.empty() ? "none" : names.c_str());
  }
  if (memory.methodAllocator() == nullptr)
    return failWith(detail, Error::InvalidArgument, "memory manager has no method allocator");
  std::unique_ptr<Method> m(new (std::nothrow) Method());
  if (!m)
    return Error::MemoryAllocationFailed;
  m->program_ = &program;
  m->memory_ = &memory;
  std::snprintf(m->name_, sizeof(m->name_), "%s", name);
  Loader loader(*m, *plan.get(), kernels, detail);
  PTEC_TRY(loader.run());
  return m;
}

Method::~Method() { destroyDelegates(); }

void Method::destroyDelegates() {
  for (size_t d = numDelegates_; d-- > 0;) {
    Delegate &del = delegates_[d];
    if (del.initialized) {
      del.backend->destroy(del.handle);
      del.initialized = false;
      del.handle = nullptr;
    }
  }
}

} // namespace ptec::rt
