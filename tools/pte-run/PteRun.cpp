// pte-run: load a .pte program, run one method on inputs from .npy files or
// generated ones, print/save the outputs, compare them with expected outputs
// and report load, init and run times and peak memory.
#include "runtime/executor/MethodState.h"
#include "runtime/executor/FlatTensorData.h"
#include "runtime/executor/Module.h"
#include "runtime/executor/Npy.h"
#include "tools/pte-run/RunOutput.h"
#include "tooling/ToolCli.h"
#include "tools/Version.h"
#include "serde/pte/program_generated.h"

#if PTEC_HAVE_PORTABLE_KERNELS
#include "runtime/kernels/KernelRegistry.h"
#endif
#if PTEC_HAVE_DEMO_BACKEND
#include "backends/demo/runtime/DemoBackend.h"
#endif
#if PTEC_HAVE_CACHETEST_BACKEND
#include "backends/cachetest/runtime/CacheTestBackend.h"
#endif
#if PTEC_HAVE_XNNPACK_BACKEND
#include "backends/xnnpack/runtime/XnnpackBackend.h"
#endif

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <sys/resource.h>
#include <vector>

using namespace ptec::rt;
using namespace ptec::pterun;
namespace fb = executorch_flatbuffer;

namespace {

// docs/tools/README.md: one table for every tool.
constexpr int kExitFailed = 1; // outputs differ, or the program or data is bad
constexpr int kExitUsage = 2;  // the command line asks for something impossible

struct Options {
  std::string model;
  std::string data; // .ptd with the program's external weights
  std::string method = "forward";
  std::vector<std::string> inputs;
  std::string outputDir;
  std::vector<std::string> expected;
  double rtol = 1e-5;
  double atol = 1e-6;
  std::vector<std::string> expectedState; // NAME=FILE
  std::string stateDir;
  int repeat = 1;
  int warmup = 0;
  double timeLimit = Method::kDefaultTimeLimitSeconds;
  int calls = 1;
  std::vector<std::string> sequence; ///< methods to call in order (one program)
  bool noSharedState = false;        ///< every method gets its own arena 2
  unsigned seed = 0;
  bool list = false;
  bool json = false;    ///< one JSON document on stdout instead of text lines
  bool profile = false; ///< time per instruction and per operator
  int xnnpackThreads = 0; ///< 0: one per core
};

/// `pattern` with every "{call}" replaced by the call index.
std::string forCall(std::string pattern, int call) {
  const std::string key = "{call}";
  for (size_t at = pattern.find(key); at != std::string::npos; at = pattern.find(key, at))
    pattern.replace(at, key.size(), std::to_string(call));
  return pattern;
}

/// `pattern` with every "{method}" replaced by the method's name.
std::string forMethod(std::string pattern, const std::string &method) {
  const std::string key = "{method}";
  for (size_t at = pattern.find(key); at != std::string::npos;
       at = pattern.find(key, at + method.size()))
    pattern.replace(at, key.size(), method);
  return pattern;
}

/// One error line, "pte-run: model.pte: error: ...", and the exit code.
int error(const Options &o, const std::string &msg, int code = kExitFailed) {
  std::fprintf(stderr, "pte-run: %s: error: %s\n", o.model.c_str(), msg.c_str());
  return code;
}

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// Print methods with their input/output signatures, read from the plan.
void listMethods(const Program &program) {
  auto valueText = [](const fb::ExecutionPlan *plan, int32_t idx) -> std::string {
    if (!plan->values() || idx < 0 || static_cast<uint32_t>(idx) >= plan->values()->size())
      return "<bad index>";
    const fb::EValue *v = plan->values()->Get(idx);
    if (v == nullptr)
      return "<null>";
    if (const fb::Tensor *t = v->val_as_Tensor()) {
      std::string s = toString(static_cast<ScalarType>(t->scalar_type()));
      s += " [";
      if (t->sizes())
        for (uint32_t i = 0; i < t->sizes()->size(); ++i)
          s += (i ? ", " : "") + std::to_string(t->sizes()->Get(i));
      return s + "]";
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
    size_t instrs = 0;
    if (p->chains() && p->chains()->size() > 0 && p->chains()->Get(0)->instructions())
      instrs = p->chains()->Get(0)->instructions()->size();
    std::printf("  %zu instructions, %u delegates\n", instrs,
                p->delegates() ? p->delegates()->size() : 0u);
  }
}

/// Host storage for one input: random values or an .npy file's bytes.
struct InputData {
  std::vector<uint8_t> bytes;
  std::vector<int64_t> sizes;
  Tensor tensor;
};

void fillRandom(ScalarType dtype, size_t numel, std::vector<uint8_t> &bytes, std::mt19937 &rng) {
  bytes.assign(numel * elementSize(dtype), 0);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> small(0, 9);
  for (size_t i = 0; i < numel; ++i) {
    switch (dtype) {
    case ScalarType::Float: reinterpret_cast<float *>(bytes.data())[i] = float(real(rng)); break;
    case ScalarType::Double: reinterpret_cast<double *>(bytes.data())[i] = real(rng); break;
    case ScalarType::Long: reinterpret_cast<int64_t *>(bytes.data())[i] = small(rng); break;
    case ScalarType::Int: reinterpret_cast<int32_t *>(bytes.data())[i] = small(rng); break;
    case ScalarType::Bool: bytes[i] = uint8_t(small(rng) & 1); break;
    default: bytes[i * elementSize(dtype)] = uint8_t(small(rng)); break;
    }
  }
}

/// Creates `dir` and its parents when missing (--output-dir, --state-dir).
bool makeDirs(const std::string &dir, std::string &why) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    why = "cannot create directory '" + dir + "': " + ec.message();
    return false;
  }
  return true;
}

/// Writes a tensor value as .npy; non-tensors are skipped.
bool writeTensor(const std::string &path, const EValue &v, std::string &why) {
  if (!v.isTensor())
    return true;
  const Tensor &t = v.toTensor();
  if (!t.isContiguous()) {
    // .npy is row-major: convert a channels-last (or other) output first.
    std::vector<uint8_t> bytes(t.nbytes());
    Tensor c;
    if (c.init(t.dtype(), t.sizes()) != Error::Ok) {
      why = "shape " + shapeString(t.sizes()) + " cannot be converted";
      return false;
    }
    c.setData(bytes.data(), bytes.size());
    c.copyElementsFrom(t);
    return writeNpy(path.c_str(), c.dtype(), c.sizes(), c.data(), c.nbytes(), &why) == Error::Ok;
  }
  return writeNpy(path.c_str(), t.dtype(), t.sizes(), t.data(), t.nbytes(), &why) == Error::Ok;
}

/// Reads (or generates) the inputs of call `call` into `data`: .npy files,
/// raw files of the declared dtype and shape, or "random". Paths may say
/// "{call}". False with `problem` set on error.
bool readInputs(const Options &o, const Method &method, int call, std::mt19937 &rng,
                std::vector<InputData> &data, std::string &problem, int &code) {
  code = kExitFailed;
  for (size_t i = 0; i < data.size(); ++i) {
    const EValue &decl = *method.input(i);
    std::string src = o.inputs.empty() ? "random" : forCall(o.inputs[i], call);
    std::string what = "input " + std::to_string(i);
    if (!decl.isTensor()) {
      if (src != "random") {
        problem = what + " is a " + describeValue(decl) +
                  ", fixed by the program; pass 'random' for it";
        code = kExitUsage;
        return false;
      }
      continue;
    }
    const Tensor &t = decl.toTensor();
    InputData &d = data[i];
    if (src == "random") {
      if (call > 0 && !d.bytes.empty())
        continue; // random inputs are drawn once and reused by every call
      d.sizes.assign(t.sizes().begin(), t.sizes().end());
      fillRandom(t.dtype(), static_cast<size_t>(t.numel()), d.bytes, rng);
    } else if (src.size() < 4 || src.compare(src.size() - 4, 4, ".npy") != 0) {
      // Raw little-endian bytes with the input's declared dtype and shape.
      std::ifstream f(src, std::ios::binary);
      if (!f) {
        problem = what + ": cannot open '" + src + "'";
        return false;
      }
      d.bytes.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
      if (d.bytes.size() != t.nbytes()) {
        problem = what + ": raw file '" + src + "' has " + std::to_string(d.bytes.size()) +
                  " bytes, " + toString(t.dtype()) + " " + shapeString(t.sizes()) + " needs " +
                  std::to_string(t.nbytes());
        return false;
      }
      d.sizes.assign(t.sizes().begin(), t.sizes().end());
    } else {
      std::string why;
      auto arr = readNpy(src.c_str(), &why);
      if (!arr.ok()) {
        problem = what + ": " + why;
        return false;
      }
      if (arr->dtype != t.dtype()) {
        problem = what + ": " + src + " holds " + toString(arr->dtype) +
                  ", the method expects " + toString(t.dtype());
        return false;
      }
      d.sizes = arr->shape;
      d.bytes = std::move(arr->data);
    }
    Span<const int64_t> sizes(d.sizes.data(), d.sizes.size());
    if (d.tensor.init(t.dtype(), sizes) != Error::Ok) {
      // Never bind a half-initialised tensor: it would run with another shape.
      problem = what + ": " + src + ": shape " + shapeString(sizes) + " (rank " +
                std::to_string(d.sizes.size()) + ") cannot be a tensor of this runtime (at most " +
                std::to_string(kTensorMaxRank) + " dimensions, no negative size)";
      return false;
    }
    d.tensor.setData(d.bytes.data(), d.bytes.size());
  }
  return true;
}

long peakRssKiB() {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

/// Per-instruction times over every run (pte-run --profile).
class InstructionProfile final : public Method::Profiler {
public:
  InstructionProfile(const Program &program, const std::string &method) {
    auto plan = program.plan(method.c_str());
    if (!plan.ok() || !plan.get()->chains() || plan.get()->chains()->size() == 0 ||
        !plan.get()->chains()->Get(0)->instructions())
      return;
    const fb::ExecutionPlan *p = plan.get();
    for (const fb::Instruction *in : *p->chains()->Get(0)->instructions()) {
      std::string what = "other";
      if (auto *k = in->instr_args_as_KernelCall()) {
        const fb::Operator *op =
            p->operators() && k->op_index() >= 0 &&
                    static_cast<uint32_t>(k->op_index()) < p->operators()->size()
                ? p->operators()->Get(static_cast<uint32_t>(k->op_index()))
                : nullptr;
        what = op && op->name() ? op->name()->str() : "?";
        if (op && op->overload() && op->overload()->size())
          what += "." + op->overload()->str();
      } else if (auto *d = in->instr_args_as_DelegateCall()) {
        const fb::BackendDelegate *bd =
            p->delegates() && d->delegate_index() >= 0 &&
                    static_cast<uint32_t>(d->delegate_index()) < p->delegates()->size()
                ? p->delegates()->Get(static_cast<uint32_t>(d->delegate_index()))
                : nullptr;
        what = "delegate " + std::string(bd && bd->id() ? bd->id()->c_str() : "?");
      } else if (in->instr_args_as_MoveCall()) {
        what = "MoveCall";
      } else if (in->instr_args_as_JumpFalseCall()) {
        what = "JumpFalseCall";
      } else if (in->instr_args_as_FreeCall()) {
        what = "FreeCall";
      }
      names_.push_back(what);
    }
    ns_.assign(names_.size(), 0);
    calls_.assign(names_.size(), 0);
  }
  void instructionDone(size_t pc, uint64_t ns) override {
    if (pc < ns_.size()) {
      ns_[pc] += ns;
      ++calls_[pc];
    }
  }
  void report(RunOutput &out) const {
    std::vector<ProfileRow> byInstr, byOp;
    std::map<std::string, ProfileRow> ops;
    double total = 0;
    for (size_t i = 0; i < ns_.size(); ++i) {
      double ms = static_cast<double>(ns_[i]) / 1e6;
      total += ms;
      byInstr.push_back({"[" + std::to_string(i) + "] " + names_[i], calls_[i], ms});
      ProfileRow &r = ops[names_[i]];
      r.what = names_[i];
      r.calls += calls_[i];
      r.totalMs += ms;
    }
    for (auto &[name, r] : ops)
      byOp.push_back(r);
    auto slowest = [](const ProfileRow &a, const ProfileRow &b) { return a.totalMs > b.totalMs; };
    std::stable_sort(byInstr.begin(), byInstr.end(), slowest);
    std::stable_sort(byOp.begin(), byOp.end(), slowest);
    out.profile(byInstr, byOp, total);
  }

private:
  std::vector<std::string> names_;
  std::vector<uint64_t> ns_, calls_;
};

/// A loaded method of the run, with its inputs and the state it checks.
struct MethodRun {
  Method *method = nullptr;
  std::vector<NamedState> states;
  std::vector<std::pair<NamedState, std::string>> stateChecks; // state, file pattern
  std::vector<InputData> data;
};

/// Loads method `name` and checks the command line against it (inputs,
/// expected outputs, --expected-state names). False with `problem` set.
bool setUpMethod(const Options &o, Module &m, const std::string &name, MethodRun &r,
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
  auto t0 = std::chrono::steady_clock::now();
  Error e = m.loadMethod(name.c_str());
  initMs += msSince(t0);
  if (e != Error::Ok) {
    problem = m.errorDetail() + " (" + toString(e) + ")";
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
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0) {
      problem = "--expected-state '" + spec + "': expected NAME=FILE.npy";
      return false;
    }
    std::string state = spec.substr(0, eq);
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
    r.stateChecks.push_back({*it, spec.substr(eq + 1)});
  }
  return true;
}

int run(const Options &o) {
#if PTEC_HAVE_DEMO_BACKEND
  ptec::demo::registerDemoBackend();
#endif
#if PTEC_HAVE_CACHETEST_BACKEND
  ptec::cachetest::registerCacheTestBackend();
#endif
#if PTEC_HAVE_XNNPACK_BACKEND
  ptec::xnnpack::registerXnnpackBackend();
  if (o.xnnpackThreads > 0)
    (void)ptec::xnnpack::xnnpackBackend().setThreads(static_cast<size_t>(o.xnnpackThreads));
#endif
  ModuleOptions mo;
  mo.shareMutableArena = !o.noSharedState;
  mo.timeLimitSeconds = o.timeLimit;
#if PTEC_HAVE_PORTABLE_KERNELS
  mo.kernels = KernelResolver(&findKernel);
#endif
  RunOutput out(o.json);
  std::string detail;
  auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<FlatTensorData> external;
  if (!o.data.empty()) {
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
    return error(o, detail + " (" + toString(loaded.error()) + ")");
  Module &m = *loaded.get();
  if (o.list) {
    listMethods(m.program());
    return 0;
  }

  // The methods to call, in order: --sequence, or --method --calls times. All
  // of them are loaded before the first call, into one program (they share
  // its memory_id 2 arena: state carries over from method to method).
  std::vector<std::string> steps = o.sequence;
  if (steps.empty())
    steps.assign(static_cast<size_t>(o.calls), o.method);
  const std::string &primary = steps.front(); // delegates report and --profile
  const bool several = steps.size() > 1;
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
  // Delegate entries and the init() calls the runtime made (shared handles:
  // one init per entry, not per call).
  if (auto plan = m.program().plan(primary.c_str());
      plan.ok() && plan.get()->delegates() && plan.get()->delegates()->size() > 0) {
    std::set<std::string> ids;
    for (const auto *d : *plan.get()->delegates())
      if (d->id())
        ids.insert(d->id()->str());
    std::vector<std::pair<std::string, size_t>> inits;
    for (const std::string &id : ids)
      inits.push_back({id, backendInitCount(id.c_str())});
    out.delegates(method.delegatesSize(), inits);
  }
  InstructionProfile profile(m.program(), primary);
  if (o.profile)
    method.setProfiler(&profile);

  std::mt19937 rng(o.seed);
  std::vector<double> runMs;
  bool allClose = true;
  Error e = Error::Ok;
  for (size_t step = 0; step < steps.size(); ++step) {
    const int call = static_cast<int>(step);
    MethodRun &r = runs.at(steps[step]);
    Method &mt = *r.method;
    const std::string &name = steps[step];
    Options oc = o; // "{method}" resolved for this call
    for (auto *list : {&oc.inputs, &oc.expected})
      for (std::string &s : *list)
        s = forMethod(s, name);
    std::string problem;
    int code;
    if (!readInputs(oc, mt, call, rng, r.data, problem, code))
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
        return error(o, std::string(mt.errorDetail()) + " (" + toString(e) + ")");
      auto t0 = std::chrono::steady_clock::now();
      e = mt.execute();
      if (rep >= 0)
        runMs.push_back(msSince(t0));
      if (e != Error::Ok)
        return error(o, name + ": " + mt.errorDetail());
    }
    // One call: the plain output format; several: each line says its call
    // (and its method, for --sequence).
    std::string prefix = !several ? ""
                         : o.sequence.empty()
                             ? "call " + std::to_string(call) + " "
                             : "call " + std::to_string(call) + " " + name + " ";
    for (size_t i = 0; i < mt.outputsSize(); ++i)
      out.value(prefix + "output " + std::to_string(i), *mt.output(i));

    std::string why;
    for (const std::string &dir : {o.outputDir, o.stateDir})
      if (!dir.empty() && !makeDirs(dir, why))
        return error(o, why);
    const std::string filePrefix = several ? "call" + std::to_string(call) + "_" : "";
    for (size_t i = 0; i < mt.outputsSize() && !o.outputDir.empty(); ++i)
      if (!writeTensor(o.outputDir + "/" + filePrefix + "output_" + std::to_string(i) + ".npy",
                       *mt.output(i), why))
        return error(o, why);
    for (const NamedState &st : r.states)
      if (!o.stateDir.empty() &&
          !writeTensor(o.stateDir + "/" + filePrefix + "state_" + st.name + ".npy",
                       *mt.value(st.valueIndex), why))
        return error(o, why);

    for (size_t i = 0; i < oc.expected.size(); ++i) {
      std::string file = forCall(oc.expected[i], call);
      auto want = readNpy(file.c_str(), &why);
      if (!want.ok())
        return error(o, "expected " + std::to_string(i) + ": " + why);
      std::string label = prefix + "output " + std::to_string(i);
      if (!out.compare(label, *mt.output(i), want.get(), {o.rtol, o.atol}, why)) {
        if (!why.empty())
          out.mismatch(label, why);
        allClose = false;
      }
    }
    for (const auto &[st, pattern] : r.stateChecks) {
      std::string file = forCall(forMethod(pattern, name), call);
      auto want = readNpy(file.c_str(), &why);
      if (!want.ok())
        return error(o, "expected state '" + st.name + "': " + why);
      std::string label = prefix + "state " + st.name;
      if (!out.compare(label, *mt.value(st.valueIndex), want.get(), {o.rtol, o.atol},
                       why)) {
        if (!why.empty())
          out.mismatch(label, why);
        allClose = false;
      }
    }
  }
  out.timings(loadMs, initMs, runMs, peakRssKiB() / 1024.0);
  if (o.profile)
    profile.report(out);
  std::string doc = out.finish(allClose);
  std::fwrite(doc.data(), 1, doc.size(), stdout);
  return allClose ? 0 : kExitFailed;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  CLI::App app{"pte-run: run a method of an ExecuTorch .pte program with the ptec reference "
               "runtime"};
  app.set_version_flag("--version", PTEC_VERSION_LINE("pte-run"));
  app.add_option("model", o.model, "The .pte program")->required();
  app.add_option("--method", o.method, "Method to run")->capture_default_str();
  app.add_option("--input", o.inputs,
                 "One per method input, in order: an .npy file, a raw file (bytes of the "
                 "declared dtype and shape) or 'random'. Without any --input every input is "
                 "random");
  app.add_option("--output-dir", o.outputDir, "Write output_<i>.npy files here");
  app.add_option("--expected", o.expected, "Expected output .npy files, one per output");
  app.add_option("--rtol", o.rtol, "Relative tolerance for --expected")->capture_default_str();
  app.add_option("--atol", o.atol, "Absolute tolerance for --expected")->capture_default_str();
  app.add_option("--time-limit", o.timeLimit,
                 "Seconds one call may run before it stops with an error (a loop that does "
                 "not end); 0 = no limit")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
  app.add_option("--warmup", o.warmup,
                 "Run the method N times more before the timed runs, untimed and not profiled "
                 "(state carries over as with --repeat)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--repeat", o.repeat, "Run the method N times (timing percentiles)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000000));
  app.add_option("--seed", o.seed, "Seed of the random inputs")->capture_default_str();
  app.add_option("--calls", o.calls,
                 "Call the method N times in one loaded program (state carries over); "
                 "'{call}' in --input/--expected/--expected-state paths becomes the call "
                 "index, and every call is checked")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  app.add_option("--sequence", o.sequence,
                 "Call these methods in this order, each once, in one loaded program "
                 "(comma-separated or repeated: prefill,decode,decode); the methods share "
                 "their state through arena memory_id 2. '{call}' in file paths becomes the "
                 "call's index and '{method}' its method")
      ->delimiter(',')
      ->excludes("--method")
      ->excludes("--calls");
  app.add_flag("--no-shared-state", o.noSharedState,
               "Give every method its own memory_id 2 arena instead of the program's "
               "shared one (for comparison: methods then do not see each other's state)");
  app.add_option("--expected-state", o.expectedState,
                 "NAME=FILE.npy: after each call, the mutable buffer NAME must equal FILE "
                 "(needs a program compiled with --emit-state-names)");
  app.add_option("--state-dir", o.stateDir,
                 "Write every named mutable buffer after each call here "
                 "(state_<name>.npy, call<k>_state_<name>.npy with --calls)");
  app.add_flag("--list", o.list, "List the methods with their inputs and outputs, then exit");
  app.add_option("--data", o.data,
                 "A .ptd file with the program's external weights (aot-compile "
                 "--external-weights)");
  app.add_flag("--json", o.json,
               "Print one JSON document instead of text: outputs' summaries, comparisons, "
               "delegate init counts, timings (and the profile)");
  app.add_flag("--profile", o.profile,
               "Time every instruction over all runs and print the totals per operator and "
               "the slowest instructions");
#if PTEC_HAVE_XNNPACK_BACKEND
  app.add_option("--xnnpack-threads", o.xnnpackThreads,
                 "Threads XnnpackBackend runs on (default: one per core; also "
                 "PTEC_XNNPACK_THREADS)")
      ->check(CLI::Range(0, 1024));
#endif
  app.footer(R"(Examples:
  pte-run model.pte --list
  pte-run model.pte                                  # random inputs, print outputs
  pte-run model.pte --input x.npy --input random --output-dir out/
  pte-run model.pte --input x.npy --expected y.npy --rtol 1e-4 --atol 1e-5
  pte-run model.pte --method decode --repeat 100     # timing p50/p90/p99
  pte-run model.pte --warmup 5 --repeat 50           # ... after five untimed calls
  pte-run model.pte --repeat 20 --profile            # where the time goes
  pte-run model.pte --input x.npy --expected y.npy --json > run.json
  pte-run model.pte --calls 3 --input x_{call}.npy --expected y_{call}.npy \
          --expected-state cache=cache_{call}.npy      # state over three calls
  pte-run llm.pte --sequence prefill,decode,decode --input tok_{call}.npy \
          --input pos_{call}.npy --expected logits_{call}.npy  # methods share state

Exit status: 0 ok; 1 outputs differ, or the program or an input file is bad (message on
stderr); 2 usage error.)");
  if (int rc = ptec::tooling::parseCommandLine(app, argc, argv, "pte-run"); rc >= 0)
    return rc;
  return run(o);
}
