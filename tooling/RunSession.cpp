// pte-run's run: load, set up, call, print, compare (see RunSession.h).
#include "tooling/RunSession.h"

#include "runtime/backend/BackendInterface.h"
#include "runtime/executor/FlatTensorData.h"
#include "runtime/executor/MethodState.h"
#include "runtime/executor/Npy.h"
#include "serde/io/ContentKind.h"
#include "serde/io/InputFile.h"
#include "serde/pte/OutputTarget.h"
#include "serde/pte/program_generated.h"
#include "tooling/CallSequence.h"
#include "tooling/ExitCodes.h"
#include "tooling/Profile.h"
#include "tooling/RunInputs.h"
#include "tooling/RunOutput.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>

namespace ptec::tooling {
using namespace ptec::rt;
namespace fb = executorch_flatbuffer;

void listMethods(const Program &program) {
  auto valueText = [](const fb::ExecutionPlan *plan, int32_t idx) -> std::string {
    if (!plan->values() || idx < 0 || static_cast<uint32_t>(idx) >= plan->values()->size())
      return "<bad index>";
    const fb::EValue *v = plan->values()->Get(idx);
    if (v == nullptr)
      return "<null>";
    if (const fb::Tensor *t = v->val_as_Tensor()) {
      std::string shape = "[";
      if (t->sizes())
        for (uint32_t i = 0; i < t->sizes()->size(); ++i)
          shape += (i ? ", " : "") + std::to_string(t->sizes()->Get(i));
      shape += "]";
      std::string s = toString(static_cast<ScalarType>(t->scalar_type()));
      // A dynamic tensor's sizes are its bound: any shape up to it runs.
      switch (t->shape_dynamism()) {
      case fb::TensorShapeDynamism::DYNAMIC_BOUND:
        return s + " up to " + shape + " (dynamic: any size up to this bound)";
      case fb::TensorShapeDynamism::DYNAMIC_UNBOUND:
        return s + " " + shape + " (dynamic, unbounded)";
      default:
        return s + " " + shape;
      }
    }
    return fb::EnumNameKernelTypes(v->val_type());
  };
  for (const std::string &name : program.methodNames()) {
    auto plan = program.plan(name.c_str());
    if (!plan.ok())
      continue;
    const fb::ExecutionPlan *p = plan.get();
    std::printf("%s\n", name.c_str());
    if (p->inputs())
      for (uint32_t i = 0; i < p->inputs()->size(); ++i)
        std::printf("  input %u: %s\n", i, valueText(p, p->inputs()->Get(i)).c_str());
    if (p->outputs())
      for (uint32_t i = 0; i < p->outputs()->size(); ++i)
        std::printf("  output %u: %s\n", i, valueText(p, p->outputs()->Get(i)).c_str());
    for (const NamedState &st : listNamedState(program, name.c_str()))
      std::printf("  state '%s': %s\n", st.name.c_str(), valueText(p, st.valueIndex).c_str());
    size_t instrs = 0;
    if (p->chains() && p->chains()->size() > 0 && p->chains()->Get(0)->instructions())
      instrs = p->chains()->Get(0)->instructions()->size();
    std::printf("  %zu instructions, %u delegates\n", instrs,
                p->delegates() ? p->delegates()->size() : 0u);
  }
}

namespace {

} // namespace

std::string inUserWords(std::string detail) {
  // The runtime's messages name its error codes ("init failed
  // (NotSupported)", "failed: InvalidArgument"): a user reads words.
  static const std::pair<Error, const char *> kWords[] = {
      {Error::Internal, "internal error"},
      {Error::InvalidArgument, "invalid argument"},
      {Error::InvalidProgram, "invalid program"},
      {Error::InvalidState, "invalid state"},
      {Error::NotFound, "not found"},
      {Error::NotSupported, "not supported"},
      {Error::NotImplemented, "not implemented"},
      {Error::OperatorMissing, "operator missing"},
      {Error::DelegateInvalidCompatibility, "the delegate is not compatible"},
      {Error::DelegateInvalidHandle, "invalid delegate handle"},
      {Error::MemoryAllocationFailed, "out of memory"},
      {Error::AccessFailed, "cannot be read"},
      {Error::OutOfResources, "out of resources"},
  };
  for (const auto &[code, words] : kWords) {
    const std::string name = toString(code);
    const std::pair<std::string, std::string> forms[] = {
        {"(" + name + ")", std::string("(") + words + ")"},
        {"failed: " + name, std::string("failed: ") + words}};
    for (const auto &[from, to] : forms) {
      for (size_t at = detail.find(from); at != std::string::npos;
           at = detail.find(from, at + to.size()))
        detail.replace(at, from.size(), to);
    }
  }
  return detail;
}

namespace {

/// What went wrong, in words: the runtime's detail, or (when it gave none)
/// what its error code means, never the code's C++ name.
std::string failure(const std::string &detail, Error e) {
  if (!detail.empty())
    return inUserWords(detail);
  switch (e) {
  case Error::InvalidArgument: return "an argument the method cannot take";
  case Error::InvalidProgram: return "the program is malformed";
  case Error::InvalidState: return "the method is not in a state to do this";
  case Error::NotFound: return "something the program names is not there";
  case Error::NotSupported:
  case Error::NotImplemented: return "the program needs something this runtime does not have";
  case Error::OperatorMissing: return "the program calls an operator this runtime has no kernel for";
  case Error::DelegateInvalidCompatibility:
  case Error::DelegateInvalidHandle: return "a delegate (backend) refused the program";
  case Error::MemoryAllocationFailed:
  case Error::OutOfResources: return "out of memory";
  case Error::AccessFailed: return "a file cannot be read";
  default: return "the runtime failed without saying why";
  }
}

/// One error line, "pte-run: model.pte: error: ...", and the exit code.
int error(const RunOptions &o, const std::string &msg, int code = kExitFailed) {
  std::fprintf(stderr, "pte-run: %s: error: %s\n", o.model.c_str(), msg.c_str());
  return code;
}

/// A loaded method of the run, with its inputs and the state it checks.
struct MethodRun {
  Method *method = nullptr;
  std::vector<NamedState> states;
  std::vector<std::pair<NamedState, std::string>> stateChecks; // state, file pattern
  std::vector<InputData> data;
};

/// Loads method `name` and checks the command line against it (inputs,
/// expected outputs, --expected-state names). False with `problem` set.
bool setUpMethod(const RunOptions &o, Module &m, const std::string &name, MethodRun &r,
                 double &initMs, std::string &problem, int &code) {
  code = kExitFailed;
  if (!m.program().plan(name.c_str()).ok()) {
    std::string names;
    for (const std::string &n : m.methodNames())
      names += (names.empty() ? "" : ", ") + n;
    problem = "no method named '" + name + "' (methods: " + names + ")";
    code = kExitUsage;
    return false;
  }
  // A program compiled with --external-weights reads its weights from a
  // .ptd: say so in pte-run's terms before the runtime says it in its own.
  if (o.data.empty()) {
    const fb::ExecutionPlan *p = m.program().plan(name.c_str()).get();
    std::vector<std::string> keys;
    for (uint32_t i = 0; p->values() && i < p->values()->size(); ++i) {
      const fb::Tensor *t = p->values()->Get(i)->val_as_Tensor();
      const fb::ExtraTensorInfo *x = t ? t->extra_tensor_info() : nullptr;
      if (x && x->location() == fb::TensorDataLocation::EXTERNAL)
        keys.push_back(x->fully_qualified_name() ? x->fully_qualified_name()->str() : "?");
    }
    if (!keys.empty()) {
      problem = "method '" + name + "' reads its weights from a .ptd file (external data '" +
                keys.front() + "'" +
                (keys.size() > 1 ? " and " + std::to_string(keys.size() - 1) + " more" : "") +
                "; the program was compiled with aot-compile --external-weights): give it "
                "with --data FILE.ptd";
      return false;
    }
  }
  auto t0 = std::chrono::steady_clock::now();
  Error e = m.loadMethod(name.c_str());
  initMs += msSince(t0);
  if (e != Error::Ok) {
    problem = failure(m.errorDetail(), e);
    return false;
  }
  r.method = m.method(name.c_str());
  // Inputs: one --input per method input ("random" generates), or none at all.
  const size_t nIn = r.method->inputsSize();
  code = kExitUsage;
  if (!o.inputs.empty() && o.inputs.size() != nIn) {
    problem = "method '" + name + "' has " + std::to_string(nIn) + " inputs, " +
              std::to_string(o.inputs.size()) +
              " --input given (use 'random' for generated ones)";
    return false;
  }
  if (!o.expected.empty() && o.expected.size() != r.method->outputsSize()) {
    problem = "method '" + name + "' has " + std::to_string(r.method->outputsSize()) +
              " outputs, " + std::to_string(o.expected.size()) + " --expected given";
    return false;
  }
  r.data.resize(nIn);
  r.states = listNamedState(m.program(), name.c_str());
  for (const std::string &spec : o.expectedState) {
    std::string state, file;
    if (!parseStateSpec(spec, state, file, problem))
      return false;
    auto it = std::find_if(r.states.begin(), r.states.end(),
                           [&](const NamedState &st) { return st.name == state; });
    if (it == r.states.end()) {
      std::string known;
      for (const NamedState &st : r.states)
        known += (known.empty() ? "" : ", ") + st.name;
      problem = "method '" + name + "' has no mutable buffer named '" + state + "' (" +
                (known.empty() ? "it names none; compile with aot-compile --emit-state-names"
                               : "named: " + known) +
                ")";
      return false;
    }
    r.stateChecks.push_back({*it, file});
  }
  return true;
}

/// Whether a method of `names` delegates to the backend `id`.
bool delegatesTo(const Module &m, const std::vector<std::string> &names, const char *id) {
  for (const std::string &name : names) {
    auto plan = m.program().plan(name.c_str());
    if (plan.ok() && plan.get()->delegates())
      for (const auto *d : *plan.get()->delegates())
        if (d->id() && d->id()->str() == id)
          return true;
  }
  return false;
}

/// The delegate entries of `method` and the init() calls the runtime made
/// (shared handles: one init per entry, not per call).
void reportDelegates(const Module &m, const std::string &name, const Method &method,
                     RunOutput &out) {
  auto plan = m.program().plan(name.c_str());
  if (!plan.ok() || !plan.get()->delegates() || plan.get()->delegates()->size() == 0)
    return;
  std::set<std::string> ids;
  for (const auto *d : *plan.get()->delegates())
    if (d->id())
      ids.insert(d->id()->str());
  std::vector<std::pair<std::string, size_t>> inits;
  for (const std::string &id : ids)
    inits.push_back({id, backendInitCount(id.c_str())});
  out.delegates(method.delegatesSize(), inits);
}

/// Compares `v` with the .npy `file`. "" when it could be compared (then
/// `allClose` is cleared if it differs), else the error to report.
std::string checkAgainst(RunOutput &out, const std::string &label, const std::string &what,
                         const EValue &v, const std::string &file, ToleranceRequest tol,
                         bool &allClose) {
  std::string why;
  size_t numel = v.isTensor() ? static_cast<size_t>(v.toTensor().numel()) : 1;
  auto want = readNpyFile(file, numel, &why);
  if (!want.ok())
    return what + ": " + why;
  if (!out.compare(label, v, want.get(), tol, why)) {
    if (!why.empty())
      out.mismatch(label, why);
    allClose = false;
  }
  return "";
}

/// The files call `call` of method `name` writes, each checked against
/// every file the run reads (the program, its .ptd, this call's inputs,
/// expected outputs and state): an output that would replace one of them
/// (so that a comparison would read back what was just written) is refused.
std::string checkWrittenFiles(const RunOptions &o, const MethodRun &r, const std::string &name,
                              int call, size_t steps) {
  std::vector<pte::NamedFile> outputs, inputs = {{"the program", o.model}};
  const std::string prefix = callFilePrefix(steps, call);
  for (size_t i = 0; i < r.method->outputsSize() && !o.outputDir.empty(); ++i)
    outputs.push_back(
        {"--output-dir", o.outputDir + "/" + prefix + "output_" + std::to_string(i) + ".npy"});
  for (const NamedState &st : r.states)
    if (!o.stateDir.empty())
      outputs.push_back({"--state-dir", o.stateDir + "/" + prefix + "state_" + st.name + ".npy"});
  if (outputs.empty())
    return "";
  if (!o.data.empty())
    inputs.push_back({"--data", o.data});
  for (const std::string &in : o.inputs)
    if (in != "random")
      inputs.push_back({"--input", forCall(forMethod(in, name), call)});
  for (const std::string &e : o.expected)
    inputs.push_back({"--expected", forCall(forMethod(e, name), call)});
  for (const auto &check : r.stateChecks)
    inputs.push_back({"--expected-state", forCall(forMethod(check.second, name), call)});
  return pte::checkDistinctFiles(outputs, inputs);
}

} // namespace

int runPte(const RunOptions &o, ModuleOptions mo) {
  mo.shareMutableArena = !o.noSharedState;
  mo.timeLimitSeconds = o.timeLimit;
  RunOutput out(o.json);
  std::string detail;
  auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<FlatTensorData> external;
  // The loaders map what they open; a FIFO would block them before they
  // could refuse it. Only regular files get that far.
  if (std::string why = io::checkInputFile(o.model); !why.empty())
    return error(o, why);
  // A file of another kind is named as what it is before a loader reads it
  // (serde/io/ContentKind.h); bytes of no known kind go to the loader,
  // which names the field at fault.
  auto knownOther = [](io::ContentKind kind, io::ContentKind wanted) {
    return kind != wanted && kind != io::ContentKind::Binary && kind != io::ContentKind::Empty &&
           kind != io::ContentKind::Text;
  };
  io::ContentKind kind = io::ContentKind::Binary;
  if (io::sniffFile(o.model, &kind, &detail) && knownOther(kind, io::ContentKind::Pte))
    return error(o, io::wrongContentMessage(o.model, kind, "an ExecuTorch program (.pte)",
                                            "this file"));
  if (!o.data.empty()) {
    if (std::string why = io::checkInputFile(o.data); !why.empty()) {
      std::fprintf(stderr, "pte-run: %s: error: %s\n", o.data.c_str(), why.c_str());
      return kExitFailed;
    }
    if (io::sniffFile(o.data, &kind, &detail) && knownOther(kind, io::ContentKind::Ptd)) {
      std::fprintf(stderr, "pte-run: %s: error: %s\n", o.data.c_str(),
                   io::wrongContentMessage(o.data, kind, "a weights file (.ptd) for --data",
                                           "this file")
                       .c_str());
      return kExitFailed;
    }
    detail.clear();
    auto ptd = FlatTensorData::load(o.data.c_str(), &detail);
    if (!ptd.ok()) {
      std::fprintf(stderr, "pte-run: %s: error: %s\n", o.data.c_str(), detail.c_str());
      return kExitFailed;
    }
    external = std::move(ptd.get());
    mo.externalData = external.get();
  }
  auto loaded = Module::load(o.model.c_str(), mo, &detail);
  double loadMs = msSince(t0);
  if (!loaded.ok())
    return error(o, failure(detail, loaded.error()));
  Module &m = *loaded.get();
  if (o.list) {
    listMethods(m.program());
    return kExitOk;
  }

  // All the methods called are loaded before the first call, into one
  // program (they share its memory_id 2 arena: state carries over).
  const std::vector<std::string> steps = callSteps(o.sequence, o.method, o.calls);
  const std::string &primary = steps.front(); // delegates report and --profile
  std::map<std::string, MethodRun> runs;
  double initMs = 0;
  for (const std::string &name : steps) {
    if (runs.count(name))
      continue;
    MethodRun r;
    int code = kExitFailed;
    std::string problem;
    if (!setUpMethod(o, m, name, r, initMs, problem, code))
      return error(o, problem, code);
    runs.emplace(name, std::move(r));
  }
  Method &method = *runs.at(primary).method;
  reportDelegates(m, primary, method, out);
  InstructionProfile profile(instructionNames(m.program(), primary));
  if (o.profile)
    method.setProfiler(&profile);

  std::mt19937 rng(o.seed);
  std::vector<double> runMs;
  bool allClose = true;
  const ToleranceRequest tol{o.rtol, o.atol};
  Error e = Error::Ok;
  for (size_t step = 0; step < steps.size(); ++step) {
    const int call = static_cast<int>(step);
    const std::string &name = steps[step];
    MethodRun &r = runs.at(name);
    Method &mt = *r.method;
    std::vector<std::string> inputs = o.inputs, expected = o.expected;
    for (auto *list : {&inputs, &expected})
      for (std::string &s : *list)
        s = forMethod(s, name);
    std::string problem, why;
    int code;
    if (std::string clash = checkWrittenFiles(o, r, name, call, steps.size()); !clash.empty())
      return error(o, clash, kExitUsage);
    if (!readInputs(inputs, mt, call, rng, r.data, problem, code))
      return error(o, problem, code);
    // Warm-up calls run first, untimed and unprofiled: the first calls pay
    // for page faults, cold caches and worker threads that start on demand.
    const int timed = std::max(1, o.repeat);
    for (int rep = -o.warmup; rep < timed; ++rep) {
      if (o.profile && &mt == &method)
        mt.setProfiler(rep < 0 ? nullptr : &profile);
      for (size_t i = 0; i < r.data.size() && e == Error::Ok; ++i)
        e = mt.input(i)->isTensor() ? mt.setInput(i, r.data[i].tensor)
                                    : mt.setInput(i, *mt.input(i));
      if (e != Error::Ok)
        return error(o, failure(mt.errorDetail(), e));
      auto start = std::chrono::steady_clock::now();
      e = mt.execute();
      if (rep >= 0)
        runMs.push_back(msSince(start));
      if (e != Error::Ok)
        return error(o, name + ": " + failure(mt.errorDetail(), e));
    }
    const std::string label = callLabel(steps.size(), !o.sequence.empty(), call, name);
    for (size_t i = 0; i < mt.outputsSize(); ++i)
      out.value(label + "output " + std::to_string(i), *mt.output(i));

    for (const std::string &dir : {o.outputDir, o.stateDir})
      if (!dir.empty() && !makeDirs(dir, why))
        return error(o, why);
    const std::string filePrefix = callFilePrefix(steps.size(), call);
    for (size_t i = 0; i < mt.outputsSize() && !o.outputDir.empty(); ++i)
      if (!writeTensor(o.outputDir + "/" + filePrefix + "output_" + std::to_string(i) + ".npy",
                       *mt.output(i), why))
        return error(o, why);
    for (const NamedState &st : r.states)
      if (!o.stateDir.empty() &&
          !writeTensor(o.stateDir + "/" + filePrefix + "state_" + st.name + ".npy",
                       *mt.value(st.valueIndex), why))
        return error(o, why);

    for (size_t i = 0; i < expected.size(); ++i)
      if (std::string bad = checkAgainst(out, label + "output " + std::to_string(i),
                                         "expected " + std::to_string(i), *mt.output(i),
                                         forCall(expected[i], call), tol, allClose);
          !bad.empty())
        return error(o, bad);
    for (const auto &[st, pattern] : r.stateChecks)
      if (std::string bad = checkAgainst(out, label + "state " + st.name,
                                         "expected state '" + st.name + "'",
                                         *mt.value(st.valueIndex),
                                         forCall(forMethod(pattern, name), call), tol, allClose);
          !bad.empty())
        return error(o, bad);
  }
  // XnnpackBackend's registered id (backends/xnnpack; tooling does not link it).
  const bool xnnpack = o.xnnpackThreads > 0 && delegatesTo(m, steps, "XnnpackBackend");
  out.timings(loadMs, initMs, runMs, peakRssKiB() / 1024.0, xnnpack ? o.xnnpackThreads : 0);
  if (o.profile)
    profile.report(out);
  std::string doc = out.finish(allClose);
  std::fwrite(doc.data(), 1, doc.size(), stdout);
  return allClose ? kExitOk : kExitFailed;
}

} // namespace ptec::tooling
