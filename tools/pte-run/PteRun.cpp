// pte-run: load a .pte program, run one method on inputs from .npy files or
// generated ones, print/save the outputs, compare them with expected outputs
// and report load, init and run times and peak memory. A thin main: the
// command line here, the run in tooling/RunSession.h.
#include "tooling/CrashHandler.h"
#include "tooling/RunSession.h"
#include "tooling/ToolCli.h"
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

} // namespace

int main(int argc, char **argv) {
  ptec::tooling::installCrashHandler("pte-run");
  ptec::tooling::RunOptions o;
  int xnnpackThreads = -1; // not given: PTEC_XNNPACK_THREADS or the backend's default, 1
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
  using ptec::tooling::requireFinite;
  // Unset: torch.testing.assert_close's defaults for the dtypes compared.
  double rtol = 0, atol = 0;
  CLI::Option *rtolOption = requireFinite(
      app.add_option("--rtol", rtol,
                     "Relative tolerance for --expected (default: per dtype, as "
                     "torch.testing.assert_close: float32 1.3e-6, float16 1e-3, bfloat16 "
                     "1.6e-2, float64 1e-7, integers and bool 0)"),
      true);
  CLI::Option *atolOption = requireFinite(
      app.add_option("--atol", atol,
                     "Absolute tolerance for --expected (default: per dtype: float32, float16 "
                     "and bfloat16 1e-5, float64 1e-7, integers and bool 0)"),
      true);
  requireFinite(app.add_option("--time-limit", o.timeLimit,
                               "Seconds one call may run before it stops with an error (a "
                               "loop that does not end); 0 = no limit"))
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
  app.add_option("--xnnpack-threads", xnnpackThreads,
                 "Threads XnnpackBackend runs on; 0: one per core (default 1, fastest on a "
                 "shared or loaded machine; also PTEC_XNNPACK_THREADS)")
      ->check(CLI::Range(0, 1024));
#endif
  app.footer(R"(Examples:
  pte-run model.pte --list
  pte-run model.pte                                  # random inputs, print outputs
  pte-run model.pte --input x.npy --input random --output-dir out/
  pte-run model.pte --input x.npy --expected y.npy   # tolerances per dtype
  pte-run model.pte --method decode --repeat 100     # timing p50/p90/p99
  pte-run model.pte --warmup 5 --repeat 50           # ... after five untimed calls
  pte-run model.pte --repeat 20 --profile            # where the time goes
  pte-run model.pte --input x.npy --expected y.npy --json > run.json
  pte-run model.pte --calls 3 --input x_{call}.npy --expected y_{call}.npy \
          --expected-state cache=cache_{call}.npy      # state over three calls
  pte-run llm.pte --sequence prefill,decode,decode --input tok_{call}.npy \
          --input pos_{call}.npy --expected logits_{call}.npy  # methods share state

Exit status: 0 ok; 1 outputs differ, or the program or an input file is bad (message on
stderr); 2 usage error; 3 internal error (a crash: a bug in ptec).)");
  if (int rc = ptec::tooling::parseCommandLine(app, argc, argv, "pte-run"); rc >= 0)
    return rc;
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
