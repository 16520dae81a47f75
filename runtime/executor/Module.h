// Module: the convenient front door. Owns the file (mapped or copied), the
// verified Program and each loaded Method together with that method's own
// memory (planned arenas, method allocator, temp allocator). Several methods
// may be loaded at once; unloading one leaves the others running.
//
// One runtime allocator per Module (per loaded program), shared by all its
// methods and outliving them, is what backends receive as
// BackendInitContext::runtimeAllocator. Backend contexts cached under it
// (runtime/backend/cache) are therefore shared by the methods of one program
// and never by two Modules, even ones loaded from identical bytes.
// loadMethod runs every delegate's init() (acquire), unloadMethod its
// destroy() (release). Memory a backend takes from the runtime allocator
// lives until the Module is destroyed.
#pragma once

#include "runtime/core/EValue.h"
#include "runtime/core/Error.h"
#include "runtime/core/Result.h"
#include "runtime/core/Tensor.h"
#include "runtime/executor/DataLoader.h"
#include "runtime/executor/MemoryManager.h"
#include "runtime/executor/Method.h"
#include "runtime/executor/Program.h"

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ptec::rt {

struct ModuleOptions {
  /// Kernels for KernelCalls (tests inject tables; pte-run uses the portable
  /// library's findKernel).
  KernelResolver kernels;
  Verification verification = Verification::Full;
  /// Bytes of per-instruction scratch for kernels and backends.
  size_t tempAllocatorBytes = 16u << 20;
  /// Upper bound on one method's planned arenas together; a plan asking for
  /// more fails with MemoryAllocationFailed instead of exhausting the host.
  uint64_t maxPlannedBytes = uint64_t(64) << 30;
  /// Data kept outside the program (a .ptd: FlatTensorData), for EXTERNAL
  /// tensors and backends' named data; must outlive the Module.
  const NamedDataMap *externalData = nullptr;
  /// Back arena memory_id 2 of every method with ONE buffer the Module owns
  /// (spec section 6: mutable buffers shared across methods live there, at
  /// the same offsets in every method). Its initial values are copied in
  /// when the first method using it loads; later loads keep the state.
  bool shareMutableArena = true;
  /// Method::setTimeLimit of every method loaded (seconds, 0 = none).
  double timeLimitSeconds = Method::kDefaultTimeLimitSeconds;
};

class Module {
public:
  /// Map `path` and verify it as a program.
  static Result<std::unique_ptr<Module>> load(const char *path, const ModuleOptions &options = {},
                                              std::string *detail = nullptr);
  /// Copy `size` bytes (into aligned memory) and verify them as a program.
  static Result<std::unique_ptr<Module>> fromBytes(const void *data, size_t size,
                                                   const ModuleOptions &options = {},
                                                   std::string *detail = nullptr);
  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  const Program &program() const { return *program_; }
  /// Names of all methods in the program, in file order.
  std::vector<std::string> methodNames() const;

  /// Load method `name` with memory of its own. InvalidState when it is
  /// already loaded.
  Error loadMethod(const char *name);
  /// Destroy the method (its delegates' handles included) and its memory.
  Error unloadMethod(const char *name);
  bool isMethodLoaded(const char *name) const;
  /// The loaded method, or nullptr.
  Method *method(const char *name);

  Error setInput(const char *method, size_t i, const Tensor &t);
  Error setInput(const char *method, size_t i, const EValue &v);
  Error execute(const char *method);
  /// Output `i` of a loaded method after execute(); nullptr when absent.
  const EValue *output(const char *method, size_t i);

  /// Why the last failing call failed (field, index, instruction, kernel).
  const std::string &errorDetail() const { return detail_; }

  /// The program's runtime allocator (its identity keys cached contexts).
  const MemoryAllocator *runtimeAllocator() const { return &runtimeAllocator_; }

  /// The arena shared by all methods (memory_id 2, shareMutableArena): empty
  /// until a method using it loads. It lives as long as the Module, so the
  /// state in it survives unloading and reloading methods.
  Span<uint8_t> sharedArena() const { return sharedArena_; }

private:
  struct Loaded {
    std::unique_ptr<OwnedMemory> memory; // destroyed after the method
    std::unique_ptr<Method> method;
  };
  Module(DataLoader loader, ModuleOptions options)
      : loader_(std::move(loader)), options_(options) {}
  static Result<std::unique_ptr<Module>> finish(DataLoader loader, const ModuleOptions &options,
                                                std::string *detail);
  Method *methodOrFail(const char *name);
  /// Runs `call` on method `name` and keeps its error detail (after
  /// "<name>: " when `nameDetail`); InvalidState when it is not loaded.
  template <typename Call> Error onMethod(const char *name, bool nameDetail, Call call) {
    Method *m = methodOrFail(name);
    if (m == nullptr)
      return Error::InvalidState;
    Error e = call(*m);
    if (e != Error::Ok)
      detail_ = (nameDetail ? std::string(name) + ": " : std::string()) + m->errorDetail();
    return e;
  }
  Error allocateSharedArena();

  DataLoader loader_;
  ModuleOptions options_;
  std::unique_ptr<Program> program_;
  // Declared before methods_: outlives every method and its delegates.
  GrowingAllocator runtimeAllocator_;
  // Declared before methods_ (they point into it). Zero-filled, aligned to
  // OwnedMemory::kArenaAlignment inside sharedStorage_.
  std::unique_ptr<uint8_t[]> sharedStorage_;
  Span<uint8_t> sharedArena_;
  bool sharedArenaHoldsState_ = false;
  std::map<std::string, Loaded> methods_;
  std::string detail_;
};

} // namespace ptec::rt
