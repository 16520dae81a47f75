#include "runtime/executor/Module.h"

#include "serde/pte/program_generated.h"
#include "serde/pte/FlatbufferGet.h"

#include <algorithm>
#include <new>

namespace ptec::rt {

Result<std::unique_ptr<Module>> Module::finish(DataLoader loader, const ModuleOptions &options,
                                               std::string *detail) {
  std::unique_ptr<Module> m(new Module(std::move(loader), options));
  auto program = Program::load(m->loader_, options.verification, detail);
  if (!program.ok())
    return program.error();
  m->program_ = std::move(program.get());
  m->program_->setExternalData(options.externalData);
  return m;
}

Result<std::unique_ptr<Module>> Module::load(const char *path, const ModuleOptions &options,
                                             std::string *detail) {
  auto loader = DataLoader::fromFile(path, detail);
  if (!loader.ok())
    return loader.error();
  return finish(std::move(loader.get()), options, detail);
}

Result<std::unique_ptr<Module>> Module::fromBytes(const void *data, size_t size,
                                                  const ModuleOptions &options,
                                                  std::string *detail) {
  auto loader = DataLoader::fromBufferCopy(data, size);
  if (!loader.ok()) {
    if (detail)
      *detail = "cannot allocate a copy of the program bytes";
    return loader.error();
  }
  return finish(std::move(loader.get()), options, detail);
}

Module::~Module() {
  // Methods (and their delegate handles) go before the program they view.
  methods_.clear();
}

std::vector<std::string> Module::methodNames() const { return program_->methodNames(); }

Error Module::loadMethod(const char *name) {
  detail_.clear();
  if (name == nullptr) {
    detail_ = "method name is null";
    return Error::InvalidArgument;
  }
  if (methods_.count(name) != 0) {
    detail_ = std::string("method '") + name + "' is already loaded";
    return Error::InvalidState;
  }
  auto plan = program_->plan(name);
  if (!plan.ok()) {
    // Method::load words the error (with the list of methods).
    GrowingAllocator scratch;
    MemoryManager mm(&scratch, {}, nullptr);
    auto m = Method::load(*program_, name, mm, options_.kernels, &detail_);
    return m.ok() ? Error::Internal : m.error();
  }
  std::vector<int64_t> arenas;
  if (const auto *sizes = plan.get()->non_const_buffer_sizes()) {
    for (flatbuffers::uoffset_t j = 1; j < sizes->size(); ++j) {
      int64_t n = pte::get8(sizes, j);
      if (n < 0) {
        detail_ = std::string("plan '") + name + "' non_const_buffer_sizes[" +
                  std::to_string(j) + "] is negative";
        return Error::InvalidProgram;
      }
      arenas.push_back(n);
    }
  }
  uint64_t total = 0;
  for (int64_t n : arenas) {
    total += static_cast<uint64_t>(n);
    if (total > options_.maxPlannedBytes || static_cast<uint64_t>(n) > options_.maxPlannedBytes) {
      detail_ = std::string("plan '") + name + "' needs more planned memory than the " +
                std::to_string(options_.maxPlannedBytes) + "-byte limit (maxPlannedBytes)";
      return Error::MemoryAllocationFailed;
    }
  }
  // Arena memory_id 2 shared by all methods: this method gets no memory of
  // its own for it.
  const bool shared = options_.shareMutableArena && arenas.size() >= 2 && arenas[1] > 0;
  if (shared) {
    if (Error e = allocateSharedArena(); e != Error::Ok)
      return e;
    arenas[1] = 0;
  }
  auto memory = OwnedMemory::create(Span<const int64_t>(arenas.data(), arenas.size()),
                                    options_.tempAllocatorBytes);
  if (!memory.ok()) {
    detail_ = std::string("plan '") + name + "': cannot allocate its planned memory";
    return memory.error();
  }
  Loaded entry;
  entry.memory = std::move(memory.get());
  if (shared) {
    entry.memory->useArena(1, sharedArena_);
    entry.memory->manager().setArenaHoldsState(1, sharedArenaHoldsState_);
  }
  // One runtime allocator for all methods of this program (cached backend
  // contexts are shared across its methods, not across programs).
  entry.memory->manager().setRuntimeAllocator(&runtimeAllocator_);
  auto method = Method::load(*program_, name, entry.memory->manager(), options_.kernels, &detail_);
  if (!method.ok())
    return method.error();
  entry.method = std::move(method.get());
  entry.method->setTimeLimit(options_.timeLimitSeconds);
  methods_.emplace(name, std::move(entry));
  // The first method to load has copied the initial values: from now on the
  // shared arena holds the program's state, which later loads must keep.
  if (shared)
    sharedArenaHoldsState_ = true;
  return Error::Ok;
}

Error Module::allocateSharedArena() {
  if (sharedStorage_)
    return Error::Ok;
  // One size for every method: the largest memory_id 2 of any plan.
  uint64_t size = 0;
  for (const std::string &n : program_->methodNames()) {
    auto plan = program_->plan(n.c_str());
    const auto *sizes = plan.ok() ? plan.get()->non_const_buffer_sizes() : nullptr;
    if (sizes != nullptr && sizes->size() > 2 && pte::get8(sizes, 2) > 0)
      size = std::max(size, static_cast<uint64_t>(pte::get8(sizes, 2)));
  }
  if (size > options_.maxPlannedBytes) {
    detail_ = "the shared mutable-buffer arena (memory_id 2) needs more than the " +
              std::to_string(options_.maxPlannedBytes) + "-byte limit (maxPlannedBytes)";
    return Error::MemoryAllocationFailed;
  }
  const size_t align = OwnedMemory::kArenaAlignment;
  sharedStorage_.reset(new (std::nothrow) uint8_t[size + align - 1]());
  if (!sharedStorage_) {
    detail_ = "cannot allocate the shared mutable-buffer arena (memory_id 2)";
    return Error::MemoryAllocationFailed;
  }
  uintptr_t raw = reinterpret_cast<uintptr_t>(sharedStorage_.get());
  uintptr_t aligned = (raw + align - 1) & ~uintptr_t(align - 1);
  sharedArena_ = Span<uint8_t>(sharedStorage_.get() + (aligned - raw), size);
  return Error::Ok;
}

Error Module::unloadMethod(const char *name) {
  detail_.clear();
  auto it = name ? methods_.find(name) : methods_.end();
  if (it == methods_.end()) {
    detail_ = std::string("method '") + (name ? name : "") + "' is not loaded";
    return Error::NotFound;
  }
  methods_.erase(it);
  return Error::Ok;
}

bool Module::isMethodLoaded(const char *name) const {
  return name != nullptr && methods_.count(name) != 0;
}

Method *Module::method(const char *name) {
  if (name == nullptr)
    return nullptr;
  auto it = methods_.find(name);
  return it == methods_.end() ? nullptr : it->second.method.get();
}

Method *Module::methodOrFail(const char *name) {
  Method *m = method(name);
  if (m == nullptr)
    detail_ = std::string("method '") + (name ? name : "") + "' is not loaded";
  return m;
}

Error Module::setInput(const char *name, size_t i, const Tensor &t) {
  return onMethod(name, false, [&](Method &m) { return m.setInput(i, t); });
}

Error Module::setInput(const char *name, size_t i, const EValue &v) {
  return onMethod(name, false, [&](Method &m) { return m.setInput(i, v); });
}

Error Module::execute(const char *name) {
  return onMethod(name, true, [](Method &m) { return m.execute(); });
}

const EValue *Module::output(const char *name, size_t i) {
  Method *m = method(name);
  return m ? m->output(i) : nullptr;
}

} // namespace ptec::rt
