//===- StateDiff.cpp - differential testing of mutable state --------------===//
//
// For each random program (ProgramGen) or saved regression program (.mlir):
// evaluate its functional meaning with the reference (RefEval) over several
// calls, then compile it under every combination of --write-back
// earliest|end, re-inplacing on|off, --backend none|demo:ops=mm_add|
// demo:ops=mm_add:scratch=32 and every --planner, run each program in the
// reference runtime for the same calls, and compare every output and every
// mutable buffer after every call. The caller's input buffers must be left
// as they were (planned inputs are copied in).
//
// A program with dynamic inputs (exir.dynamic_dims; --dynamic generates them)
// is called at different run-time sizes in one loaded program: a random
// size, 1, the bound, more random sizes; then a call above the bound that the
// runtime must refuse, and one more call that must still work. Outputs are
// compared at their run-time shapes.
//
// A program that writes in place (--inplace generates them: InplaceGen.cpp)
// is judged by AliasEval, PyTorch's aliasing meaning, against the convention
// of the functionalized program: one output per written user input (its
// final contents, argument order) before the user outputs; every written
// buffer or parameter is state. Those programs (and every program under
// --inplace) also run with --backend xnnpack when its runtime is built.
// Failures of an open bug (kOpenBugs) are counted apart unless --strict.
//
//   state_diff [--dynamic | --inplace] [--seeds N] [--first S] [--calls K] [--quick]
//              [--strict] [--save DIR] [-v]
//   state_diff [--inplace] [--strict] regression.mlir ...
//   state_diff [--dynamic | --inplace] --print [--seeds N] [--first S]  (the programs' text)
//
// Exit status: 0 all agree, 1 a disagreement or compile failure, 2 usage.
//
//===----------------------------------------------------------------------===//

#include "backends/demo/runtime/DemoBackend.h"
#include "compiler/Import.h"
#include "compiler/Session.h"
#include "dialects/exir/IR/ExirDialect.h"
#include "emitter/Emitter.h"
#include "runtime/executor/MethodState.h"
#include "runtime/executor/Module.h"
#include "runtime/kernels/KernelRegistry.h"
#include "serde/pte/PteWriter.h"
#include "test/differential/AliasEval.h"
#include "test/differential/ProgramGen.h"
#include "test/differential/RefEval.h"
#if PTEC_HAVE_XNNPACK_BACKEND
#include "backends/xnnpack/runtime/XnnpackBackend.h"
#endif

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

using namespace ptec;
using namespace mlir;
using difftest::Evaluator;
using Reference = difftest::Evaluator;
using difftest::RefTensor;

namespace {

struct Combo {
  bool atEnd, reinplace;
  std::string backend;
  std::string label() const {
    return std::string("--write-back ") + (atEnd ? "end" : "earliest") +
           (reinplace ? "" : " --no-reinplace") + " --backend " + backend;
  }
};

const char *kPlanners[] = {"best", "greedy", "best-fit", "first-fit"};

/// The backends of one mode: a program that writes in place (--inplace)
/// also runs with XnnpackBackend when its runtime is built.
std::vector<std::string> backendsFor(bool inplace) {
  std::vector<std::string> out = {"none", "demo:ops=mm_add"};
  if (!inplace)
    out.push_back("demo:ops=mm_add:scratch=32");
#if PTEC_HAVE_XNNPACK_BACKEND
  if (inplace)
    out.push_back("xnnpack");
#endif
  return out;
}

std::vector<Combo> allCombos(bool inplace) {
  std::vector<Combo> out;
  for (bool atEnd : {false, true})
    for (bool reinplace : {true, false})
      for (const std::string &b : backendsFor(inplace))
        out.push_back({atEnd, reinplace, b});
  return out;
}

/// Bugs the random programs find that are open (reported, not fixed yet),
/// each with its reduced program under regressions/open/. A failure whose
/// message has a signature below is counted under its bug instead of failing
/// the run (--strict: it fails), so that the test stays a test of
/// everything else. Drop an entry, and move its program to regressions/,
/// when the bug is fixed.
struct OpenBug {
  const char *signature, *program;
};
// None open now. The last one, "does not dominate this use" with --backend
// xnnpack --write-back end (regressions/xnnpack_write_back_end_dominance.mlir),
// was a cycle between two delegate groups through portable ops.
const std::vector<OpenBug> kOpenBugs = {};

struct Stats {
  size_t programs = 0, compiles = 0, calls = 0, failures = 0, refused = 0;
  size_t combos = 0; // option combinations tried, over all programs
  std::map<const OpenBug *, size_t> openRuns;                // failures per open bug
  std::map<const OpenBug *, std::set<std::string>> openPrograms;
  // Programs that write in place (AliasEval's coverage of their first call).
  size_t inplacePrograms = 0, inputWritten = 0, bufferWritten = 0, paramWritten = 0,
         freshWritten = 0, viewWrites = 0, chainWrites = 0, staleReads = 0, staleBaseReads = 0;
  int64_t writes = 0;
  std::set<int64_t> sizes; // run-time sizes of dynamic dims that were checked
};

/// One call: its user inputs, and whether the runtime must refuse them.
struct Call {
  std::vector<RefTensor> inputs;
  bool refuse = false;
};

struct Options {
  size_t seeds = 200, first = 0;
  int calls = 3;
  bool quick = false, verbose = false, dynamic = false, inplace = false;
  bool print = false; // --print: write the generated programs, check nothing
  bool strict = false; // --strict: open bugs (kOpenBugs) fail too
  std::string dumpFile; // --dump-reference: the reference's calls as JSON lines, nothing compiled
  std::string saveDir;
  std::vector<std::string> files;
  std::vector<int64_t> sizes; // --sizes: the dynamic calls' sizes (0 above the bound)
};

/// Runs the phases from `from` to `to` (both included; never import or emit).
LogicalResult runPhases(ModuleOp m, const CompileOptions &o, Phase from, Phase to) {
  for (Phase p : allPhases()) {
    if (p < from || p > to || p == Phase::Import || p == Phase::Emit)
      continue;
    PassManager pm(m.getContext(), ModuleOp::getOperationName());
    addPhasePasses(pm, p, o);
    if (failed(pm.run(m)))
      return failure();
  }
  return success();
}

bool close(double got, double want) {
  if (std::isnan(got) || std::isnan(want))
    return std::isnan(got) && std::isnan(want);
  if (std::isinf(got) || std::isinf(want))
    return got == want;
  // Values can grow over calls (products of products), and float rounding
  // then differs in the last digits between kernels and the reference.
  return std::fabs(got - want) <= 1e-4 + 1e-3 * std::fabs(want);
}

/// "" when `t` holds `want`, else what differs.
std::string compare(const rt::EValue *v, const RefTensor &want) {
  if (v == nullptr || !v->isTensor())
    return "not a tensor";
  const rt::Tensor &t = v->toTensor();
  std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());
  if (shape != want.shape) {
    std::string got, expected;
    for (int64_t d : shape)
      got += (got.empty() ? "" : ", ") + std::to_string(d);
    for (int64_t d : want.shape)
      expected += (expected.empty() ? "" : ", ") + std::to_string(d);
    return "shape [" + got + "], expected [" + expected + "]";
  }
  if (t.dtype() != rt::ScalarType::Float)
    return "dtype is not float32";
  const float *p = static_cast<const float *>(t.data());
  for (int64_t i = 0; i < want.numel(); ++i)
    if (!close(p[i], want.data[i])) {
      std::ostringstream os;
      os << "element " << i << " is " << p[i] << ", expected " << want.data[i];
      return os.str();
    }
  return "";
}

class Runner {
public:
  Runner(const Options &o, MLIRContext &ctx) : o_(o), ctx_(ctx) {}
  Stats stats;

  /// Checks one program; false when anything disagreed.
  bool check(const std::string &text, const std::string &label) {
    ++stats.programs;
    std::string diags;
    ScopedDiagnosticHandler handler(&ctx_, [&](Diagnostic &d) {
      llvm::raw_string_ostream os(diags);
      os << d.getLocation() << ": " << d.str() << "\n";
      return success();
    });
    OwningOpRef<ModuleOp> m0 = parseSourceString<ModuleOp>(text, &ctx_);
    if (!m0)
      return fail(label, "does not parse:\n" + diags, text);
    std::string why;
    // PyTorch's aliasing meaning for a program that writes in place, the
    // functional meaning otherwise.
    bool inplace = difftest::writesInPlace(*m0);
    std::unique_ptr<Reference> ref = difftest::createEvaluator(*m0, &why);
    if (!ref)
      return fail(label, "reference: " + why, text);

    // Inputs per call, then the reference results per call (none for a
    // refused call: it changes nothing).
    std::mt19937 rng(static_cast<uint32_t>(std::hash<std::string>{}(label)));
    std::vector<Call> calls = planCalls(*ref, rng);
    std::vector<Reference::Result> expected;
    for (const Call &call : calls) {
      if (call.refuse) {
        expected.emplace_back();
        continue;
      }
      std::optional<Reference::Result> r = ref->call(call.inputs, &why);
      if (!r)
        return fail(label, "reference: " + why, text);
      if (auto *alias = dynamic_cast<difftest::AliasMethod *>(ref.get()); alias && expected.empty())
        count(alias->coverage());
      expected.push_back(std::move(*r));
    }

    if (!o_.dumpFile.empty()) {
      dump(label, text, calls, expected);
      return true;
    }
    bool ok = true;
    // XnnpackBackend: for programs that write in place, and for every
    // program under --inplace.
    std::vector<Combo> combos = allCombos(inplace || o_.inplace);
    for (size_t ci = 0; ci < combos.size(); ++ci) {
      const Combo &combo = combos[ci];
      std::vector<const char *> planners(std::begin(kPlanners), std::end(kPlanners));
      if (o_.quick) { // one planner per combination, rotating with the program
        if ((ci + stats.programs) % 3 != 0)
          continue;
        planners = {kPlanners[(ci + stats.programs) % 4]};
      }
      CompileOptions co;
      co.writeBackAtEnd = combo.atEnd;
      co.reinplace = combo.reinplace;
      co.backends = {combo.backend};
      co.emitStateNames = true;
      OwningOpRef<ModuleOp> front = m0->clone();
      diags.clear();
      ++stats.combos;
      // Every phase after import (functionalize first, where it exists).
      if (failed(runPhases(*front, co, allPhases()[1], Phase::OutVariants))) {
        ok = fail(label, combo.label() + ": compile failed:\n" + diags, text);
        continue;
      }
      for (const char *planner : planners) {
        co.planner = planner;
        std::string where = combo.label() + " --planner " + planner;
        OwningOpRef<ModuleOp> m = front->clone();
        diags.clear();
        pte::ProgramBuilder builder;
        EmitOptions eo;
        eo.emitStateNames = true;
        std::vector<uint8_t> bytes;
        std::string error;
        if (failed(runPhases(*m, co, Phase::Plan, Phase::Plan)) ||
            failed(emitProgram(*m, builder, eo)) ||
            !pte::trySerializeProgram(builder, pte::WriteOptions{}, &bytes, &error)) {
          ok = fail(label, where + ": compile failed:\n" + diags + error, text);
          continue;
        }
        ++stats.compiles;
        std::string problem = runCalls(bytes, calls, expected, *ref);
        if (!problem.empty())
          ok = fail(label, where + ": " + problem, text);
      }
    }
    if (ok && o_.verbose)
      std::printf("ok   %s\n", label.c_str());
    return ok;
  }

private:
  /// One JSON line: the program, and per call its inputs and the reference's
  /// outputs and state (test/differential/torch_reference.py replays it in
  /// eager PyTorch).
  void dump(const std::string &label, const std::string &text, const std::vector<Call> &calls,
            const std::vector<Reference::Result> &expected) {
    if (!dump_.is_open())
      dump_.open(o_.dumpFile);
    auto quote = [](const std::string &str) {
      std::string q = "\"";
      for (char ch : str)
        q += ch == '"' ? "\\\"" : ch == '\\' ? "\\\\" : ch == '\n' ? "\\n" : std::string(1, ch);
      return q + "\"";
    };
    auto tensor = [](const RefTensor &t) {
      std::ostringstream os;
      os.precision(9);
      os << "{\"shape\": [";
      for (size_t i = 0; i < t.shape.size(); ++i)
        os << (i ? ", " : "") << t.shape[i];
      os << "], \"data\": [";
      for (size_t i = 0; i < t.data.size(); ++i)
        os << (i ? ", " : "") << t.data[i];
      os << "]}";
      return os.str();
    };
    dump_ << "{\"label\": " << quote(label) << ", \"program\": " << quote(text)
          << ", \"calls\": [";
    for (size_t c = 0; c < calls.size(); ++c) {
      dump_ << (c ? ", " : "") << "{\"inputs\": [";
      for (size_t i = 0; i < calls[c].inputs.size(); ++i)
        dump_ << (i ? ", " : "") << tensor(calls[c].inputs[i]);
      dump_ << "], \"outputs\": [";
      for (size_t i = 0; i < expected[c].outputs.size(); ++i)
        dump_ << (i ? ", " : "") << tensor(expected[c].outputs[i]);
      dump_ << "], \"state\": {";
      bool first = true;
      for (const auto &entry : expected[c].buffers) {
        dump_ << (first ? "" : ", ") << quote(entry.first) << ": " << tensor(entry.second);
        first = false;
      }
      dump_ << "}}";
    }
    dump_ << "]}\n";
  }

  void count(const difftest::AliasMethod::Coverage &c) {
    ++stats.inplacePrograms;
    stats.inputWritten += c.inputWritten;
    stats.bufferWritten += c.bufferWritten;
    stats.paramWritten += c.paramWritten;
    stats.freshWritten += c.freshWritten;
    stats.viewWrites += c.viewWrites > 0;
    stats.chainWrites += c.chainWrites > 0;
    stats.staleReads += c.staleReads > 0;
    stats.staleBaseReads += c.staleBaseReads > 0;
    stats.writes += c.writes;
  }

  /// The calls of one program: `o_.calls` at the declared shapes; with
  /// dynamic inputs, at least four at different sizes (a random one, 1, the
  /// bound, random ones) where every dynamic dim takes the same size capped
  /// at its bound, then one above the bounds (refused) and one more.
  std::vector<Call> planCalls(const Reference &ref, std::mt19937 &rng) {
    int64_t bound = 0;
    for (const Reference::Input &in : ref.userInputs())
      for (int64_t d : in.dynamicDims)
        bound = std::max(bound, in.shape.at(d));
    std::vector<int64_t> sizes; // 0: the declared shapes; -1: above the bounds
    auto random = [&] { return std::uniform_int_distribution<int64_t>(1, bound)(rng); };
    if (bound == 0) {
      sizes.assign(o_.calls, 0);
    } else if (!o_.sizes.empty()) { // as given (0: a refused call, above the bound)
      for (int64_t n : o_.sizes)
        sizes.push_back(n == 0 ? -1 : n);
    } else {
      sizes = {random(), 1, bound};
      for (int c = 3; c < std::max(o_.calls, 4); ++c)
        sizes.push_back(random());
      sizes.push_back(-1);
      sizes.push_back(random());
    }
    std::vector<Call> calls;
    for (int64_t size : sizes) {
      Call call;
      call.refuse = size < 0;
      for (const Reference::Input &in : ref.userInputs()) {
        RefTensor t;
        t.shape = in.shape;
        for (int64_t d : in.dynamicDims)
          t.shape[d] = size < 0 ? t.shape[d] + 1 : size == 0 ? t.shape[d] : std::min(size, t.shape[d]);
        for (int64_t i = 0; i < t.numel(); ++i)
          t.data.push_back(static_cast<float>(std::uniform_real_distribution<double>(-1, 1)(rng)));
        call.inputs.push_back(std::move(t));
      }
      calls.push_back(std::move(call));
    }
    return calls;
  }

  /// Loads the program and runs every call; "" when all outputs and states
  /// match.
  std::string runCalls(const std::vector<uint8_t> &bytes,
                       const std::vector<Call> &calls,
                       const std::vector<Reference::Result> &expected, const Reference &ref) {
    auto initial = [&](const std::string &name) -> const RefTensor & {
      static const RefTensor none;
      const RefTensor *t = ref.initial(name);
      return t ? *t : none;
    };
    rt::ModuleOptions mo;
    mo.kernels = rt::KernelResolver(&rt::findKernel);
    mo.tempAllocatorBytes = 1 << 16;
    std::string detail;
    auto loaded = rt::Module::fromBytes(bytes.data(), bytes.size(), mo, &detail);
    if (!loaded.ok())
      return "load: " + detail;
    rt::Module &module = *loaded.get();
    if (module.loadMethod("forward") != rt::Error::Ok)
      return "load method: " + module.errorDetail();
    rt::Method &method = *module.method("forward");
    std::vector<rt::NamedState> states = rt::listNamedState(module.program(), "forward");
    for (size_t c = 0; c < calls.size(); ++c) {
      const std::vector<RefTensor> &inputs = calls[c].inputs;
      std::string call = "call " + std::to_string(c) + " (input shapes";
      for (const RefTensor &t : inputs) {
        call += " [";
        for (size_t k = 0; k < t.shape.size(); ++k)
          call += (k ? ", " : "") + std::to_string(t.shape[k]);
        call += "]";
      }
      call += "): ";
      std::vector<std::vector<float>> host(inputs.size());
      std::vector<rt::Tensor> tensors(inputs.size());
      if (method.inputsSize() != inputs.size())
        return call + "the method has " + std::to_string(method.inputsSize()) + " inputs";
      bool refused = false;
      for (size_t i = 0; i < inputs.size() && !refused; ++i) {
        host[i].assign(inputs[i].data.begin(), inputs[i].data.end());
        if (tensors[i].init(rt::ScalarType::Float,
                            rt::Span<const int64_t>(inputs[i].shape.data(),
                                                    inputs[i].shape.size())) != rt::Error::Ok)
          return call + "input " + std::to_string(i) + " has a shape no tensor can take";
        tensors[i].setData(host[i].data(), host[i].size() * sizeof(float));
        if (method.setInput(i, tensors[i]) != rt::Error::Ok) {
          if (!calls[c].refuse)
            return call + "setInput: " + method.errorDetail();
          if (std::string(method.errorDetail()).find("above its bound") == std::string::npos)
            return call + "refused, but not for its bound: " + method.errorDetail();
          refused = true;
        }
      }
      if (calls[c].refuse) {
        if (!refused)
          return call + "inputs above their bounds were accepted";
        ++stats.refused;
        continue;
      }
      if (method.execute() != rt::Error::Ok)
        return call + "execute: " + method.errorDetail();
      ++stats.calls;
      for (const Reference::Input &in : ref.userInputs())
        for (int64_t d : in.dynamicDims)
          for (const RefTensor &t : inputs)
            stats.sizes.insert(t.shape.at(d));
      const Reference::Result &want = expected[c];
      if (method.outputsSize() != want.outputs.size())
        return call + std::to_string(method.outputsSize()) + " outputs, expected " +
               std::to_string(want.outputs.size());
      for (size_t i = 0; i < want.outputs.size(); ++i) {
        std::string d = compare(method.output(i), want.outputs[i]);
        if (!d.empty())
          return call + "output " + std::to_string(i) + ": " + d;
      }
      for (const rt::NamedState &st : states) {
        auto it = want.buffers.find(st.name);
        if (it == want.buffers.end())
          return call + "unexpected mutable buffer '" + st.name + "'";
        std::string d = compare(method.value(st.valueIndex), it->second);
        if (!d.empty())
          return call + "buffer '" + st.name + "': " + d;
      }
      // A buffer whose every write-back is a no-op (b <- b) may be emitted as
      // a constant: then it must never change.
      for (const auto &entry : want.buffers) {
        // (Not a structured binding: clang 14 cannot capture one in a lambda.)
        const std::string &name = entry.first;
        bool named = std::any_of(states.begin(), states.end(),
                                 [&](const rt::NamedState &st) { return st.name == name; });
        if (!named && entry.second.data != initial(name).data)
          return call + "buffer '" + name + "' changes but the program names no such state";
      }
      for (size_t i = 0; i < host.size(); ++i)
        for (size_t k = 0; k < host[i].size(); ++k)
          if (host[i][k] != static_cast<float>(inputs[i].data[k]))
            return call + "the caller's input " + std::to_string(i) + " was modified";
    }
    return "";
  }

  bool fail(const std::string &label, const std::string &what, const std::string &text) {
    if (!o_.strict)
      for (const OpenBug &bug : kOpenBugs)
        if (what.find(bug.signature) != std::string::npos) {
          ++stats.openRuns[&bug];
          stats.openPrograms[&bug].insert(label);
          if (o_.verbose)
            std::printf("open %s: %s\n", label.c_str(), what.c_str());
          return false;
        }
    ++stats.failures;
    std::printf("FAIL %s: %s\n", label.c_str(), what.c_str());
    if (printed_.insert(label).second) // the program, once per program
      std::printf("---- program of %s ----\n%s---- end of program ----\n", label.c_str(),
                  text.c_str());
    if (!o_.saveDir.empty() && saved_.insert(label).second) {
      std::string name = label;
      for (char &ch : name)
        if (!isalnum(static_cast<unsigned char>(ch)))
          ch = '_';
      std::ofstream(o_.saveDir + "/" + name + ".mlir") << "// " << label << ": " << what
                                                       << "\n" << text;
    }
    return false;
  }

  const Options &o_;
  MLIRContext &ctx_;
  std::set<std::string> saved_, printed_;
  std::ofstream dump_;
};

int usage(const char *msg) {
  std::fprintf(stderr,
               "state_diff: %s\nusage: state_diff [--seeds N] [--first S] [--calls K] "
               "[--quick] [--dynamic | --inplace] [--strict] [--print] [--save DIR] [-v] "
               "[program.mlir ...]\n",
               msg);
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  const std::map<std::string, bool *> flags = {
      {"--quick", &o.quick},   {"--dynamic", &o.dynamic}, {"--inplace", &o.inplace},
      {"--print", &o.print},   {"--strict", &o.strict},   {"-v", &o.verbose}};
  const std::set<std::string> withValue = {"--seeds", "--first",          "--calls",
                                           "--sizes", "--dump-reference", "--save"};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (auto flag = flags.find(a); flag != flags.end()) {
      *flag->second = true;
      continue;
    }
    const char *v = nullptr;
    if (withValue.count(a)) {
      if (i + 1 >= argc)
        return usage(("missing value for " + a).c_str());
      v = argv[++i];
    }
    if (a == "--seeds" || a == "--first" || a == "--calls") {
      char *end = nullptr;
      long n = std::strtol(v, &end, 10);
      if (*end != '\0' || n < 0 || (a == "--calls" && (n < 1 || n > 100)))
        return usage(("bad value for " + a).c_str());
      if (a == "--seeds")
        o.seeds = static_cast<size_t>(n);
      else if (a == "--first")
        o.first = static_cast<size_t>(n);
      else
        o.calls = static_cast<int>(n);
    } else if (a == "--sizes") {
      std::istringstream list(v);
      for (std::string item; std::getline(list, item, ',');) {
        char *end = nullptr;
        long n = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || n < 0)
          return usage("bad value for --sizes");
        o.sizes.push_back(n);
      }
    } else if (a == "--dump-reference") {
      o.dumpFile = v;
    } else if (a == "--save") {
      o.saveDir = v;
    } else if (a.size() > 5 && a.compare(a.size() - 5, 5, ".mlir") == 0) {
      o.files.push_back(a);
    } else {
      return usage(("unknown argument '" + a + "'").c_str());
    }
  }

  if (o.print) { // the programs of the seeds, as text (for ptec-opt, for reducing)
    for (size_t s = o.first; s < o.first + o.seeds; ++s)
      std::printf("// seed %zu\n%s", s,
                  (o.dynamic   ? difftest::generateDynamicProgram(s)
                   : o.inplace ? difftest::generateInplaceProgram(s)
                               : difftest::generateProgram(s))
                      .c_str());
    return 0;
  }
  demo::registerDemoBackend();
#if PTEC_HAVE_XNNPACK_BACKEND
  xnnpack::registerXnnpackBackend();
#endif
  DialectRegistry registry;
  registerImportDialects(registry);
  MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  // The random programs are valid: the shape rules must accept each of them
  // when parsed and after every pass of every combination.
  ctx.getOrLoadDialect<exir::ExirDialect>()->setSemanticChecks(true);
  Runner runner(o, ctx);
  auto start = std::chrono::steady_clock::now();
  if (!o.files.empty()) {
    for (const std::string &f : o.files) {
      std::ifstream in(f);
      if (!in)
        return usage(("cannot read " + f).c_str());
      std::stringstream ss;
      ss << in.rdbuf();
      runner.check(ss.str(), f);
    }
  } else {
    for (size_t s = o.first; s < o.first + o.seeds; ++s)
      if (o.dynamic)
        runner.check(difftest::generateDynamicProgram(s), "dynamic seed " + std::to_string(s));
      else if (o.inplace)
        runner.check(difftest::generateInplaceProgram(s), "inplace seed " + std::to_string(s));
      else
        runner.check(difftest::generateProgram(s), "seed " + std::to_string(s));
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const Stats &st = runner.stats;
  std::printf("state_diff: %zu programs, %zu compiled programs run (%zu option combinations "
              "each%s), %zu calls checked, %zu refused calls, %zu distinct run-time sizes, "
              "%zu failures, %.1f s\n",
              st.programs, st.compiles, allCombos(o.inplace).size() * 4,
              o.quick ? ", sampled" : "", st.calls, st.refused, st.sizes.size(), st.failures,
              secs);
  std::printf("state_diff: %zu programs x %zu option combinations (backends", st.programs,
              allCombos(o.inplace).size() * 4);
  for (const std::string &b : backendsFor(o.inplace))
    std::printf(" %s", b.c_str());
  std::printf("; 4 planners each) = %zu compiled and run\n", st.compiles);
  for (const auto &[bug, runs] : st.openRuns)
    std::printf("state_diff: open bug (not counted as a failure; --strict counts it): %zu runs "
                "of %zu programs: '%s' (%s)\n",
                runs, st.openPrograms.at(bug).size(), bug->signature, bug->program);
  if (st.inplacePrograms)
    std::printf("state_diff: %zu programs write in place (%lld in-place ops); they write a user "
                "input: %zu, a buffer: %zu, a parameter: %zu, a clone or intermediate: %zu; "
                "through a view: %zu, through a view of a view: %zu; read a view made before "
                "a later write: %zu, read a base after a write: %zu\n",
                st.inplacePrograms, static_cast<long long>(st.writes), st.inputWritten,
                st.bufferWritten, st.paramWritten, st.freshWritten, st.viewWrites,
                st.chainWrites, st.staleReads, st.staleBaseReads);
  return st.failures ? 1 : 0;
}
