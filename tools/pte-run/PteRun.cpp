// pte-run: load a .pte program, run one method on inputs from .npy files or
// generated ones, print/save the outputs, compare them with expected outputs
// and report load, init and run times and peak memory. A thin main: the
// command line here, the run in tooling/RunSession.h.
#include "tooling/CrashHandler.h"
#include "tooling/RunSession.h"
#include "tooling/RunnerSpellings.h"
#include "tooling/ToolCli.h"
#include "tooling/ToolHelp.h"
#include "tools/Version.h"

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

#include <string>
#include <vector>

namespace {

/// The kernels and backends this build of pte-run has.
ptec::rt::ModuleOptions registerKernelsAndBackends(int xnnpackThreads) {
  ptec::rt::ModuleOptions mo;
#if PTEC_HAVE_DEMO_BACKEND
  ptec::demo::registerDemoBackend();
#endif
#if PTEC_HAVE_CACHETEST_BACKEND
  ptec::cachetest::registerCacheTestBackend();
#endif
#if PTEC_HAVE_XNNPACK_BACKEND
  ptec::xnnpack::registerXnnpackBackend();
  if (xnnpackThreads >= 0) // given: it overrides PTEC_XNNPACK_THREADS
    (void)ptec::xnnpack::xnnpackBackend().setThreads(static_cast<size_t>(xnnpackThreads));
#else
  (void)xnnpackThreads;
#endif
#if PTEC_HAVE_PORTABLE_KERNELS
  mo.kernels = ptec::rt::KernelResolver(&ptec::rt::findKernel);
#endif
  return mo;
}

/// The help page's parts besides the options (tooling/ToolHelp.h).
ptec::tooling::ToolHelp helpPage() {
  ptec::tooling::ToolHelp h;
  h.tool = "pte-run";
  h.usage = {"[options] MODEL.pte", "--list MODEL.pte"};
  h.description =
      "Run a method of an ExecuTorch program (.pte) with ptec's reference runtime: inputs "
      "from .npy or raw files or random ones, outputs printed, saved or compared with "
      "expected ones, state checked over several calls, timings and a profile.";
  h.groups = {"Arguments", "Inputs", "Checks", "Outputs", "Calls and timing"};
  ptec::tooling::HelpSection spellings{"ExecuTorch executor_runner's flags, taken as well", {}};
  for (const ptec::tooling::RunnerSpelling &s : ptec::tooling::runnerSpellings())
    spellings.rows.push_back({std::string("--") + s.theirs,
                              *s.ours ? std::string("as ") + s.ours + " (" + s.what + ")"
                                      : std::string("no such flag: ") + s.what});
  h.sections = {spellings};
  h.examples = {
      {"pte-run model.pte --list", "methods, their inputs and outputs"},
      {"pte-run model.pte", "random inputs, outputs printed"},
      {"pte-run model.pte --input x.npy --input random --output-dir out/", ""},
      {"pte-run model.pte --input x.npy --expected y.npy", "tolerances per dtype"},
      {"pte-run model.pte --method decode --repeat 100", "timing percentiles p50/p90/p99"},
      {"pte-run model.pte --warmup 5 --repeat 50", "... after five untimed calls"},
      {"pte-run model.pte --repeat 20 --profile", "where the time goes"},
      {"pte-run model.pte --input x.npy --expected y.npy --json > run.json", ""},
      {"pte-run model.pte --calls 3 --input x_{call}.npy --expected y_{call}.npy "
       "--expected-state cache=cache_{call}.npy",
       "state over three calls"},
      {"pte-run llm.pte --sequence prefill,decode,decode --input tok_{call}.npy",
       "methods that share state"},
      {"pte-run --model_path=model.pte --inputs=x.bin --num_executions=10",
       "executor_runner's spellings"}};
  h.failedMeans = "outputs differ from --expected, or the program or an input file is bad "
                  "(it does not load, an input has the wrong shape, the method fails)";
  h.usageMeans = "a bad flag or value, the wrong number of --input, an unknown --method, an "
                 "output that would replace an input";
  h.docs = "docs/tools/pte-run.md";
  return h;
}

} // namespace

int main(int argc, char **argv) {
  ptec::tooling::installCrashHandler("pte-run");
  ptec::tooling::RunOptions o;
  int xnnpackThreads = -1; // not given: PTEC_XNNPACK_THREADS or the backend's default, 1
  CLI::App app{"pte-run"};
  ptec::tooling::installHelp(app, helpPage());
  app.set_version_flag("--version", PTEC_VERSION_LINE("pte-run"), "Print the version");
  using ptec::tooling::requireFinite;
  using ptec::tooling::wholeNumber;
  CLI::Option *modelOpt = app.add_option("model", o.model, "The .pte program")
                              ->type_name("MODEL.pte")
                              ->group("Arguments");
  app.add_option("--method", o.method, "Method to run")
      ->type_name("NAME")
      ->capture_default_str()
      ->group("Inputs");
  app.add_option("--input", o.inputs,
                 "One per method input, in order: an .npy file, a raw file (bytes of the "
                 "declared dtype and shape) or 'random'. Without any --input every input is "
                 "random")
      ->type_name("FILE|random")
      ->group("Inputs");
  app.add_option("--seed", o.seed, "Seed of the random inputs")
      ->type_name("N")
      ->capture_default_str()
      ->group("Inputs");
  app.add_option("--data", o.data,
                 "A .ptd file with the program's external weights (aot-compile "
                 "--external-weights)")
      ->type_name("FILE.ptd")
      ->group("Inputs");
  app.add_option("--expected", o.expected, "Expected output .npy files, one per output")
      ->type_name("FILE.npy")
      ->group("Checks");
  // Unset: torch.testing.assert_close's defaults for the dtypes compared.
  double rtol = 0, atol = 0;
  CLI::Option *rtolOption =
      requireFinite(app.add_option("--rtol", rtol,
                                   "Relative tolerance for --expected (default: per dtype, as "
                                   "torch.testing.assert_close: float32 1.3e-6, float16 1e-3, "
                                   "bfloat16 1.6e-2, float64 1e-7, integers and bool 0)"),
                    true)
          ->type_name("R")
          ->group("Checks");
  CLI::Option *atolOption =
      requireFinite(app.add_option("--atol", atol,
                                   "Absolute tolerance for --expected (default: per dtype: "
                                   "float32, float16 and bfloat16 1e-5, float64 1e-7, integers "
                                   "and bool 0)"),
                    true)
          ->type_name("A")
          ->group("Checks");
  app.add_option("--expected-state", o.expectedState,
                 "NAME=FILE.npy: after each call, the mutable buffer NAME must equal FILE "
                 "(needs a program compiled with --emit-state-names)")
      ->type_name("NAME=FILE.npy")
      ->group("Checks");
  app.add_option("--output-dir", o.outputDir, "Write output_<i>.npy files here")
      ->type_name("DIR")
      ->group("Outputs");
  app.add_option("--state-dir", o.stateDir,
                 "Write every named mutable buffer after each call here "
                 "(state_<name>.npy, call<k>_state_<name>.npy with --calls)")
      ->type_name("DIR")
      ->group("Outputs");
  app.add_flag("--json", o.json,
               "Print one JSON document instead of text: outputs' summaries, comparisons, "
               "delegate init counts, timings (and the profile)")
      ->group("Outputs");
  app.add_flag("--list", o.list,
               "List the methods with their inputs, outputs (a dynamic one with its bound) and "
               "named state, then exit")
      ->group("Outputs");
  wholeNumber(app.add_option("--calls", o.calls,
                             "Call the method N times in one loaded program (state carries "
                             "over); '{call}' in --input/--expected/--expected-state paths "
                             "becomes the call index, and every call is checked"),
              1, 1000000)
      ->type_name("N")
      ->capture_default_str()
      ->group("Calls and timing");
  app.add_option("--sequence", o.sequence,
                 "Call these methods in this order, each once, in one loaded program "
                 "(comma-separated or repeated: prefill,decode,decode); the methods share "
                 "their state through arena memory_id 2. '{call}' in file paths becomes the "
                 "call's index and '{method}' its method")
      ->type_name("M1,M2,...")
      ->delimiter(',')
      ->excludes("--method")
      ->excludes("--calls")
      ->group("Calls and timing");
  app.add_flag("--no-shared-state", o.noSharedState,
               "Give every method its own memory_id 2 arena instead of the program's "
               "shared one (for comparison: methods then do not see each other's state)")
      ->group("Calls and timing");
  wholeNumber(app.add_option("--repeat", o.repeat, "Run the method N times (timing percentiles)"),
              1, 1000000000)
      ->type_name("N")
      ->capture_default_str()
      ->group("Calls and timing");
  wholeNumber(app.add_option("--warmup", o.warmup,
                             "Run the method N times more before the timed runs, untimed and "
                             "not profiled (state carries over as with --repeat)"),
              0, 1000000)
      ->type_name("N")
      ->group("Calls and timing");
  requireFinite(app.add_option("--time-limit", o.timeLimit,
                               "Seconds one call may run before it stops with an error (a "
                               "loop that does not end); 0 = no limit"),
                true)
      ->type_name("SECONDS")
      ->check(CLI::Range(0.0, 1e9).description(""))
      ->capture_default_str()
      ->group("Calls and timing");
  app.add_flag("--profile", o.profile,
               "Time every instruction over all runs and print the totals per operator and "
               "the slowest instructions")
      ->group("Calls and timing");
#if PTEC_HAVE_XNNPACK_BACKEND
  wholeNumber(app.add_option("--xnnpack-threads", xnnpackThreads,
                             "Threads XnnpackBackend runs on; 0: one per core (default 1, "
                             "fastest on a shared or loaded machine; also PTEC_XNNPACK_THREADS)"),
              0, 1024)
      ->type_name("T")
      ->group("Calls and timing");
#endif

  // executor_runner's spellings become pte-run's (tooling/RunnerSpellings.h).
  std::vector<std::string> args(argv + 1, argv + argc), translated;
  std::string spellingError;
  if (!ptec::tooling::translateRunnerSpellings(args, &translated, &spellingError))
    return ptec::tooling::usageError("pte-run", spellingError);
  std::vector<const char *> cargv = {argv[0]};
  for (const std::string &a : translated)
    cargv.push_back(a.c_str());
  if (int rc = ptec::tooling::parseCommandLine(app, static_cast<int>(cargv.size()), cargv.data(),
                                               "pte-run");
      rc >= 0)
    return rc;
  if (modelOpt->count() == 0)
    return ptec::tooling::usageError("pte-run", "no program given: pte-run MODEL.pte");
  if (rtolOption->count() > 0)
    o.rtol = rtol;
  if (atolOption->count() > 0)
    o.atol = atol;
  ptec::tooling::setCrashContext("running " + o.model);
  ptec::tooling::crashIfAsked();
  ptec::rt::ModuleOptions mo = registerKernelsAndBackends(xnnpackThreads);
#if PTEC_HAVE_XNNPACK_BACKEND
  o.xnnpackThreads = ptec::xnnpack::xnnpackBackend().threads();
#endif
  return ptec::tooling::runPte(o, mo);
}
