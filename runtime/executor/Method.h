// Method: one execution plan of a Program, fully validated and ready to run.
// load() checks everything a later step relies on (values, tensors, list
// indices, inputs/outputs, every instruction operand, operator resolution,
// delegate indices and scratch use) before it initialises any backend, so a
// malformed file fails here with a message naming the field and index.
// execute() allocates nothing.
#pragma once

#include "runtime/backend/BackendInterface.h"
#include "runtime/core/EValue.h"
#include "runtime/core/Error.h"
#include "runtime/core/Result.h"
#include "runtime/core/Span.h"
#include "runtime/core/Tensor.h"
#include "runtime/executor/MemoryManager.h"
#include "runtime/executor/Program.h"
#include "runtime/kernels/KernelRegistry.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace ptec::rt {

using KernelLookupFn = const KernelEntry *(*)(const char *fullName);

/// Where a method finds kernels: a table searched by exact name, then an
/// optional lookup function (e.g. the portable library's findKernel).
class KernelResolver {
public:
  KernelResolver() = default;
  explicit KernelResolver(Span<const KernelEntry> table, KernelLookupFn fallback = nullptr)
      : table_(table), fallback_(fallback) {}
  explicit KernelResolver(KernelLookupFn fn) : fallback_(fn) {}
  /// nullptr when neither the table nor the function knows `fullName`.
  const KernelEntry *find(const char *fullName) const;

private:
  Span<const KernelEntry> table_;
  KernelLookupFn fallback_ = nullptr;
};

class Method {
public:
  /// How long one execute() may run before it gives up, by default: a
  /// program whose loop never ends stops with an error instead of hanging.
  /// A time budget rather than an instruction count: a count either stops
  /// long, legitimate loops or lets heavy iterations run for minutes.
  static constexpr double kDefaultTimeLimitSeconds = 300.0;

  /// Build method `name` of `program` in `memory`. Both must outlive the
  /// Method. `detail` receives e.g. "plan 'forward' value 12: IntList item 40
  /// out of range (31 values)".
  static Result<std::unique_ptr<Method>> load(const Program &program, const char *name,
                                              MemoryManager &memory,
                                              const KernelResolver &kernels,
                                              std::string *detail = nullptr);
  ~Method();
  Method(const Method &) = delete;
  Method &operator=(const Method &) = delete;

  const char *name() const { return name_; }
  size_t inputsSize() const { return numInputs_; }
  size_t outputsSize() const { return numOutputs_; }
  size_t valuesSize() const { return numValues_; }
  size_t instructionsSize() const { return numInstrs_; }
  size_t delegatesSize() const { return numDelegates_; }

  /// The input's current value (for a tensor: dtype and shape as declared or
  /// last set); nullptr when `i` is out of range.
  const EValue *input(size_t i) const;
  /// True when input `i` is a memory-planned tensor (setInput copies into it).
  bool inputIsPlanned(size_t i) const;
  /// Set a tensor input: copied into planned memory when the input is planned,
  /// otherwise the method borrows `t`'s data pointer until the next setInput.
  /// The shape may change as long as it fits the planned capacity.
  Error setInput(size_t i, const Tensor &t);
  /// Set any input. A non-tensor input must equal the value in the program.
  Error setInput(size_t i, const EValue &v);

  /// Run the instructions. Every input must have been set.
  Error execute();
  /// Output `i` after execute(); nullptr when out of range.
  const EValue *output(size_t i) const;
  /// Value `i` of the plan's values table as the method holds it now (e.g.
  /// a mutable buffer between calls); nullptr when out of range.
  const EValue *value(size_t i) const { return i < numValues_ ? &values_[i] : nullptr; }
  /// Instructions the last execute() ran (jumps included).
  size_t lastInstructionCount() const { return lastSteps_; }
  /// The budget of each execute() in seconds; 0 means none. It is checked
  /// at every backward jump (only loops can run without end), so a
  /// straight-line program is never stopped mid-way.
  void setTimeLimit(double seconds) { timeLimitSeconds_ = seconds > 0 ? seconds : 0; }
  double timeLimit() const { return timeLimitSeconds_; }

  /// Called after each instruction execute() runs, with its index and how
  /// long it took (pte-run --profile). Null (the default) costs one branch.
  class Profiler {
  public:
    virtual ~Profiler() = default;
    virtual void instructionDone(size_t pc, uint64_t nanoseconds) = 0;
  };
  void setProfiler(Profiler *p) { profiler_ = p; }

  /// Why the last setInput()/execute() failed, naming the instruction index
  /// and operator plus the kernel's or backend's message.
  const char *errorDetail() const { return errorDetail_; }

private:
  enum class Kind : uint8_t { Kernel, Delegate, Move, JumpFalse, Free };
  struct Instr {
    Kind kind;
    uint32_t a = 0; ///< op index / delegate index / move_from / cond / value
    uint32_t b = 0; ///< move_to / jump destination
    Span<EValue *> args;
  };
  struct Op {
    const char *fullName = nullptr;
    KernelFn fn = nullptr;
    bool used = false;
  };
  struct Delegate {
    const char *id = nullptr;
    Backend *backend = nullptr;
    void *handle = nullptr;
    bool initialized = false;
  };

  Method() = default;
  class Loader;
  friend class Loader;
  Error fail(Error e, const char *fmt, ...)
#if defined(__GNUC__)
      __attribute__((format(printf, 3, 4)))
#endif
      ;
  void destroyDelegates();
  Error runKernel(size_t pc, const Instr &in);
  Error runDelegate(size_t pc, const Instr &in);
  Error evalCondition(size_t pc, const EValue &cond, bool &out);
  /// Adds " (from file:line, node name)" to errorDetail_ when the program
  /// has source frames for instruction `pc`.
  void appendSourceOf(size_t pc);

  const Program *program_ = nullptr;
  MemoryManager *memory_ = nullptr;
  char name_[128] = {};

  EValue *values_ = nullptr;
  size_t numValues_ = 0;
  uint32_t *inputs_ = nullptr;
  uint8_t *inputSet_ = nullptr;
  uint8_t *inputPlanned_ = nullptr;
  size_t numInputs_ = 0;
  uint32_t *outputs_ = nullptr;
  size_t numOutputs_ = 0;
  Instr *instrs_ = nullptr;
  size_t numInstrs_ = 0;
  Op *ops_ = nullptr;
  size_t numOps_ = 0;
  Delegate *delegates_ = nullptr;
  size_t numDelegates_ = 0;
  size_t lastSteps_ = 0;
  double timeLimitSeconds_ = kDefaultTimeLimitSeconds;
  Profiler *profiler_ = nullptr;
  char errorDetail_[512] = {};
};

} // namespace ptec::rt
