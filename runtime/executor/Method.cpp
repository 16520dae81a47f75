// Method at run time: kernel lookup, setting inputs, reading outputs and the
// instruction loop of execute(). Loading (Method::load) lives in
// MethodLoad*.cpp; here the plan is read only for declared input shapes and
// source frames in error messages.
#include "runtime/executor/Method.h"

#include "runtime/executor/DimOrderCheck.h"
#include "runtime/executor/InputShape.h"
#include "serde/pte/program_generated.h"

#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace ptec::rt {
namespace fb = executorch_flatbuffer;

const KernelEntry *KernelResolver::find(const char *fullName) const {
  for (const KernelEntry &e : table_)
    if (e.name != nullptr && std::strcmp(e.name, fullName) == 0)
      return &e;
  return fallback_ ? fallback_(fullName) : nullptr;
}

// ---------------------------------------------------------------------------
// Inputs, execution, outputs
// ---------------------------------------------------------------------------

Error Method::fail(Error e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(errorDetail_, sizeof(errorDetail_), fmt, ap);
  va_end(ap);
  return e;
}

const EValue *Method::input(size_t i) const {
  return i < numInputs_ ? &values_[inputs_[i]] : nullptr;
}

bool Method::inputIsPlanned(size_t i) const { return i < numInputs_ && inputPlanned_[i] != 0; }

const EValue *Method::output(size_t i) const {
  return i < numOutputs_ ? &values_[outputs_[i]] : nullptr;
}

Error Method::setInput(size_t i, const Tensor &t) {
  if (i >= numInputs_)
    return fail(Error::InvalidArgument, "input %zu out of range (%zu inputs)", i, numInputs_);
  EValue &v = values_[inputs_[i]];
  if (!v.isTensor())
    return fail(Error::InvalidArgument, "input %zu is not a tensor", i);
  Tensor &dst = v.toTensor();
  if (dst.dtype() != t.dtype())
    return fail(Error::InvalidArgument, "input %zu: dtype %s, the method expects %s", i,
                toString(t.dtype()), toString(dst.dtype()));
  // A STATIC input takes exactly its declared shape (as upstream's resize of
  // a static tensor does); a DYNAMIC_BOUND one any shape of the same rank
  // within its declared upper bounds (InputShape.h). Refused before anything
  // runs, naming the input, the dimension and both sizes.
  if (auto plan = program_->plan(name_); plan.ok()) {
    const fb::Tensor *decl = plan.get()->values()->Get(inputs_[i])->val_as_Tensor();
    if (decl) {
      std::string why = inputShapeProblem(i, *decl, t.sizes());
      if (!why.empty())
        return fail(Error::InvalidArgument, "%s", why.c_str());
    }
  }
  if (inputPlanned_[i]) {
    size_t need = t.nbytes();
    if (need > dst.capacityBytes())
      return fail(Error::InvalidArgument,
                  "input %zu: %zu bytes do not fit the %zu planned bytes", i, need,
                  dst.capacityBytes());
    if (need > 0 && t.data() == nullptr)
      return fail(Error::InvalidArgument, "input %zu: tensor has no data", i);
    if (dst.resize(t.sizes()) != Error::Ok)
      return fail(Error::InvalidArgument, "input %zu: cannot resize to the given shape", i);
    // Converts from the caller's dim order to the program's when they differ.
    if (need > 0)
      dst.copyElementsFrom(t);
  } else {
    // A borrowed pointer is read in the program's dim order.
    if (t.dim() == dst.dim() && !t.sameDimOrder(dst))
      return fail(Error::InvalidArgument,
                  "input %zu: dim_order %s differs from the program's %s (only planned "
                  "inputs are converted)",
                  i, dimOrderString(t).c_str(), dimOrderString(dst).c_str());
    dst.setData(t.mutableData(), t.nbytes());
    if (dst.resize(t.sizes()) != Error::Ok)
      return fail(Error::InvalidArgument, "input %zu: cannot resize to the given shape", i);
  }
  inputSet_[i] = 1;
  return Error::Ok;
}

Error Method::setInput(size_t i, const EValue &v) {
  if (i >= numInputs_)
    return fail(Error::InvalidArgument, "input %zu out of range (%zu inputs)", i, numInputs_);
  if (v.isTensor())
    return setInput(i, v.toTensor());
  const EValue &cur = values_[inputs_[i]];
  if (cur.tag() != v.tag())
    return fail(Error::InvalidArgument, "input %zu: value kind differs from the program's", i);
  bool same = true;
  switch (v.tag()) {
  case EValue::Tag::None: break;
  case EValue::Tag::Int: same = v.toInt() == cur.toInt(); break;
  case EValue::Tag::Bool: same = v.toBool() == cur.toBool(); break;
  case EValue::Tag::Double: {
    double a = v.toDouble(), b = cur.toDouble();
    same = a == b || std::fabs(a - b) <= 1e-5 * std::fmax(1.0, std::fabs(b));
    break;
  }
  case EValue::Tag::String:
    same = v.stringSize() == cur.stringSize() &&
           std::memcmp(v.stringData(), cur.stringData(), v.stringSize()) == 0;
    break;
  default:
    return fail(Error::NotSupported, "input %zu: list inputs are not supported", i);
  }
  if (!same)
    return fail(Error::InvalidArgument,
                "input %zu: a non-tensor input must equal the value the program was "
                "compiled with",
                i);
  inputSet_[i] = 1;
  return Error::Ok;
}

Error Method::runKernel(size_t pc, const Instr &in) {
  const Op &op = ops_[in.a];
  KernelContext ctx(memory_->tempAllocator());
  Error e = op.fn(ctx, in.args);
  if (e != Error::Ok)
    return fail(e, "instruction %zu (%s) failed: %s%s%s", pc, op.fullName, toString(e),
                ctx.message()[0] ? ": " : "", ctx.message());
  return Error::Ok;
}

Error Method::runDelegate(size_t pc, const Instr &in) {
  const Delegate &d = delegates_[in.a];
  BackendExecuteContext ctx;
  ctx.tempAllocator = memory_->tempAllocator();
  ctx.methodName = name_;
  char why[512] = "";
  ctx.errorMessage = why;
  ctx.errorMessageSize = sizeof why;
  Error e = d.backend->execute(ctx, d.handle, in.args);
  if (e != Error::Ok) {
    why[sizeof why - 1] = '\0';
    return fail(e, "instruction %zu (delegate %u, backend %s) failed: %s%s%s", pc, in.a, d.id,
                toString(e), why[0] ? ": " : "", why);
  }
  return Error::Ok;
}

Error Method::evalCondition(size_t pc, const EValue &c, bool &out) {
  if (c.isBool()) {
    out = c.toBool();
    return Error::Ok;
  }
  if (c.isTensor() && c.toTensor().dtype() == ScalarType::Bool) {
    const Tensor &t = c.toTensor();
    int64_t n = t.numel();
    if (n > 0 && t.data() == nullptr)
      return fail(Error::InvalidState, "instruction %zu (JumpFalseCall): condition tensor has no data", pc);
    const uint8_t *p = t.dataAs<const uint8_t>();
    out = true;
    for (int64_t k = 0; k < n && out; ++k)
      out = p[k] != 0;
    return Error::Ok;
  }
  return fail(Error::InvalidProgram,
              "instruction %zu (JumpFalseCall): condition is not a Bool or bool tensor", pc);
}

void Method::appendSourceOf(size_t pc) {
  // The program's Chain.stacktrace (aot-compile --emit-stacktraces, or
  // upstream's stacktraces): the innermost frame is the user's line.
  auto plan = program_->plan(name_);
  if (!plan.ok() || !plan.get()->chains() || plan.get()->chains()->size() == 0)
    return;
  const auto *frames = plan.get()->chains()->Get(0)->stacktrace();
  if (!frames || pc >= frames->size())
    return;
  const fb::FrameList *list = frames->Get(static_cast<uint32_t>(pc));
  if (!list || !list->items() || list->items()->size() == 0)
    return;
  const fb::Frame *f = list->items()->Get(list->items()->size() - 1);
  size_t used = std::strlen(errorDetail_);
  const char *node = f->name() ? f->name()->c_str() : "";
  if (f->filename() && f->filename()->size())
    std::snprintf(errorDetail_ + used, sizeof errorDetail_ - used, " (from %s:%d%s%s)",
                  f->filename()->c_str(), f->lineno(), *node ? ", node " : "", node);
  else if (*node)
    std::snprintf(errorDetail_ + used, sizeof errorDetail_ - used, " (from node %s)", node);
}

Error Method::execute() {
  errorDetail_[0] = '\0';
  for (size_t i = 0; i < numInputs_; ++i)
    if (!inputSet_[i])
      return fail(Error::InvalidArgument, "input %zu has not been set", i);
  MemoryAllocator *temp = memory_->tempAllocator();
  if (temp)
    temp->reset();
  size_t pc = 0, steps = 0;
  const auto start = std::chrono::steady_clock::now();
  const auto budget = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(timeLimitSeconds_));
  while (pc < numInstrs_) {
    ++steps;
    const Instr &in = instrs_[pc];
    size_t next = pc + 1;
    Error e = Error::Ok;
    std::chrono::steady_clock::time_point started;
    if (profiler_)
      started = std::chrono::steady_clock::now();
    switch (in.kind) {
    case Kind::Kernel: e = runKernel(pc, in); break;
    case Kind::Delegate: e = runDelegate(pc, in); break;
    case Kind::Move: values_[in.b] = values_[in.a]; break;
    case Kind::JumpFalse: {
      bool c = false;
      e = evalCondition(pc, values_[in.a], c);
      if (e == Error::Ok && !c)
        next = in.b;
      break;
    }
    case Kind::Free:
      // A MoveCall may have replaced the value since load; check again.
      if (values_[in.a].isTensor())
        values_[in.a].toTensor().setData(nullptr, 0);
      else
        e = fail(Error::InvalidProgram, "instruction %zu (FreeCall): value %u is not a tensor",
                 pc, in.a);
      break;
    }
    if (profiler_)
      profiler_->instructionDone(
          pc, static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now() - started)
                                        .count()));
    if (temp)
      temp->reset();
    if (e != Error::Ok) {
      lastSteps_ = steps;
      appendSourceOf(pc);
      return e;
    }
    if (next <= pc && timeLimitSeconds_ > 0 &&
        std::chrono::steady_clock::now() - start > budget) {
      lastSteps_ = steps;
      return fail(Error::InvalidProgram,
                  "stopped after %.3g s, the time limit (%zu instructions run, at the jump of "
                  "instruction %zu): the program does not terminate in time",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                  steps, pc);
    }
    pc = next;
  }
  lastSteps_ = steps;
  return Error::Ok;
}

} // namespace ptec::rt
