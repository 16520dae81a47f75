#include "test/fuzz/FuzzRun.h"

#include "backends/cachetest/runtime/CacheTestBackend.h"
#include "backends/demo/runtime/DemoBackend.h"
#include "runtime/executor/Module.h"
#include "runtime/kernels/KernelRegistry.h"

#include <cstring>
#include <memory>
#include <vector>

namespace ptec::fuzz {

using namespace ptec::rt;

void registerFuzzBackends() {
  static const bool once = [] {
    demo::registerDemoBackend();
    cachetest::registerCacheTestBackend();
    return true;
  }();
  (void)once;
}

const char *outcomeName(RunReport::Outcome outcome) {
  switch (outcome) {
  case RunReport::Outcome::Rejected:
    return "rejected";
  case RunReport::Outcome::Skipped:
    return "skipped";
  case RunReport::Outcome::Failed:
    return "failed";
  case RunReport::Outcome::Ran:
    return "ran";
  }
  return "?";
}

namespace {
/// Small, varied values: no all-zero inputs (a division by a zero input is
/// legal) but nothing that overflows an int8 either.
void fillPattern(ScalarType dtype, std::vector<uint8_t> &bytes, size_t numel) {
  size_t es = elementSize(dtype);
  for (size_t k = 0; k < numel; ++k) {
    uint8_t *p = bytes.data() + k * es;
    int64_t i = static_cast<int64_t>(k % 7) - 2;
    switch (dtype) {
    case ScalarType::Float: {
      float f = static_cast<float>(i) * 0.375f;
      std::memcpy(p, &f, 4);
      break;
    }
    case ScalarType::Double: {
      double d = static_cast<double>(i) * 0.375;
      std::memcpy(p, &d, 8);
      break;
    }
    case ScalarType::Bool:
      *p = static_cast<uint8_t>(k & 1);
      break;
    default:
      // Integers (and 16-bit floats, whose bit patterns stay finite here):
      // little-endian i, sign-extended to the element size.
      for (size_t b = 0; b < es; ++b)
        p[b] = static_cast<uint8_t>(static_cast<uint64_t>(i) >> (8 * (b < 8 ? b : 7)));
      if (es == 2 && dtype != ScalarType::Short && dtype != ScalarType::UInt16)
        p[1] &= 0x3F; // half/bfloat16: keep the exponent small
      break;
    }
  }
}

/// Reads every byte of each output tensor so that a tensor whose metadata
/// promises more than its memory holds is caught by ASan here.
uint64_t touchOutputs(Method &method) {
  uint64_t sum = 0;
  for (size_t i = 0; i < method.outputsSize(); ++i) {
    const EValue *v = method.output(i);
    if (!v || !v->isTensor())
      continue;
    const Tensor &t = v->toTensor();
    if (!t.data())
      continue;
    size_t n = t.nbytes();
    if (n > (64u << 20))
      continue;
    const auto *p = static_cast<const uint8_t *>(t.data());
    for (size_t k = 0; k < n; ++k)
      sum += p[k];
  }
  return sum;
}

/// Keeps the first problem, except that a refusal or a failure outranks a
/// skip (strict pipeline fuzzing looks for those).
void note(RunReport &r, RunReport::Outcome outcome, const std::string &detail) {
  using O = RunReport::Outcome;
  if (r.outcome == O::Ran || (r.outcome == O::Skipped && outcome != O::Skipped)) {
    r.outcome = outcome;
    r.detail = detail;
  }
}
} // namespace

RunReport runProgramOnce(const uint8_t *data, size_t size, const RunLimits &limits) {
  registerFuzzBackends();
  RunReport report;
  ModuleOptions options;
  options.kernels = KernelResolver(&findKernel);
  options.maxPlannedBytes = limits.maxPlannedBytes;
  options.timeLimitSeconds = limits.timeLimitSeconds;
  options.tempAllocatorBytes = 1u << 20;
  std::string detail;
  auto loaded = Module::fromBytes(data, size, options, &detail);
  if (!loaded.ok()) {
    report.detail = "load: " + detail;
    return report;
  }
  Module &module = *loaded.get();
  report.outcome = RunReport::Outcome::Ran;
  std::vector<std::string> names = module.methodNames();
  if (names.size() > limits.maxMethods)
    names.resize(limits.maxMethods);
  for (const std::string &name : names) {
    const char *m = name.c_str();
    if (Error e = module.loadMethod(m); e != Error::Ok) {
      note(report, RunReport::Outcome::Rejected,
           name + ": init: " + module.errorDetail() + " (" + toString(e) + ")");
      continue;
    }
    Method &method = *module.method(m);
    if (method.instructionsSize() > limits.maxInstructions) {
      note(report, RunReport::Outcome::Skipped, name + ": too many instructions");
      continue;
    }
    // Inputs: fresh buffers with a pattern, or the program's own value for
    // non-tensor inputs.
    std::vector<std::vector<uint8_t>> buffers(method.inputsSize());
    std::vector<Tensor> tensors(method.inputsSize());
    bool ok = true;
    for (size_t i = 0; i < method.inputsSize() && ok; ++i) {
      const EValue &decl = *method.input(i);
      Error e = Error::Ok;
      if (decl.isTensor()) {
        const Tensor &t = decl.toTensor();
        size_t es = t.elementSize();
        int64_t numel = t.numel();
        if (es == 0 || numel < 0 || static_cast<uint64_t>(numel) > limits.maxInputBytes / es) {
          note(report, RunReport::Outcome::Skipped, name + ": input too large");
          ok = false;
          break;
        }
        buffers[i].assign(static_cast<size_t>(numel) * es, 0);
        fillPattern(t.dtype(), buffers[i], static_cast<size_t>(numel));
        e = tensors[i].init(t.dtype(), t.sizes(), t.dimOrder());
        if (e == Error::Ok) {
          tensors[i].setData(buffers[i].data(), buffers[i].size());
          e = method.setInput(i, tensors[i]);
        }
      } else {
        e = method.setInput(i, decl);
      }
      if (e != Error::Ok) {
        note(report, RunReport::Outcome::Failed,
             name + ": setInput " + std::to_string(i) + ": " + method.errorDetail());
        ok = false;
      }
    }
    if (!ok)
      continue;
    if (Error e = method.execute(); e != Error::Ok) {
      note(report, RunReport::Outcome::Failed,
           name + ": execute: " + method.errorDetail() + " (" + toString(e) + ")");
      continue;
    }
    volatile uint64_t sink = touchOutputs(method);
    (void)sink;
  }
  return report;
}

} // namespace ptec::fuzz
