//===- xnnpack_bench.cpp - one measurement of a program, as JSON ----------===//
//
// The measuring half of bench/xnnpack_bench.py, which runs it once per
// configuration (a fresh process each, so peak RSS is that configuration's)
// and prints the comparisons.
//
//   xnnpack_bench run PTE [--method M] [--repeat R] [--threads T]
//       one warm-up execute, then R timed ones: wall and process CPU medians
//   xnnpack_bench load PTE --methods a,b [--threads T] [--no-cache]
//       load the program and the methods; load/init time, XnnpackBackend
//       init() calls, weight-bearing operators packed, weight bytes packed,
//       RSS before loading and peak RSS
//
// Float inputs are filled with a fixed pseudo-random sequence.
//
//===----------------------------------------------------------------------===//

#include "backends/xnnpack/runtime/XnnpackBackend.h"
#include "runtime/executor/Module.h"
#include "runtime/kernels/KernelRegistry.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <sys/resource.h>
#include <vector>

using namespace ptec;

namespace {

double nowMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double cpuMs() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

long rssKiB(const char *field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(field, 0) == 0)
      return std::strtol(line.c_str() + std::strlen(field), nullptr, 10);
  return -1;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

int fail(const std::string &why) {
  std::fprintf(stderr, "xnnpack_bench: %s\n", why.c_str());
  return 2;
}

/// Inputs of `method` with the declared shapes, filled deterministically.
struct Inputs {
  std::vector<std::vector<uint8_t>> data;
  std::vector<rt::Tensor> tensors;
};

bool setInputs(rt::Module &m, const char *method, Inputs &in) {
  rt::Method *meth = m.method(method);
  const size_t n = meth->inputsSize();
  in.data.resize(n);
  in.tensors.resize(n);
  uint32_t seed = 12345;
  for (size_t i = 0; i < n; ++i) {
    const rt::Tensor &decl = meth->input(i)->toTensor();
    in.data[i].assign(decl.nbytes(), 0);
    if (decl.dtype() == rt::ScalarType::Float) {
      float *f = reinterpret_cast<float *>(in.data[i].data());
      for (size_t k = 0; k < size_t(decl.numel()); ++k) {
        seed = seed * 1103515245u + 12345u;
        f[k] = float(seed >> 8) / float(1u << 24) - 0.5f;
      }
    }
    if (in.tensors[i].init(decl.dtype(), decl.sizes()) != rt::Error::Ok)
      return false;
    in.tensors[i].setData(in.data[i].data(), in.data[i].size());
    if (m.setInput(method, i, in.tensors[i]) != rt::Error::Ok)
      return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3)
    return fail("usage: xnnpack_bench run|load PTE [options]");
  const std::string mode = argv[1], pte = argv[2];
  std::string method = "forward", methods = "forward";
  int repeat = 10;
  size_t threads = 1;
  bool cache = true;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--method")
      method = value();
    else if (a == "--methods")
      methods = value();
    else if (a == "--repeat")
      repeat = std::max(1, std::atoi(value().c_str()));
    else if (a == "--threads")
      threads = size_t(std::max(0, std::atoi(value().c_str())));
    else if (a == "--no-cache")
      cache = false;
    else
      return fail("unknown option " + a);
  }
  xnnpack::registerXnnpackBackend();
  xnnpack::XnnpackBackend &b = xnnpack::xnnpackBackend();
  if (b.setThreads(threads) != rt::Error::Ok || b.setWeightCache(cache) != rt::Error::Ok)
    return fail("cannot configure the backend");
  const long rssBefore = rssKiB("VmRSS:");

  rt::ModuleOptions o;
  o.kernels = rt::KernelResolver(&rt::findKernel);
  std::string detail;
  const double t0 = nowMs();
  auto loaded = rt::Module::load(pte.c_str(), o, &detail);
  if (!loaded.ok())
    return fail(detail);
  rt::Module &m = *loaded.get();
  const double loadMs = nowMs() - t0;

  if (mode == "load") {
    const double t1 = nowMs();
    size_t start = 0;
    while (start <= methods.size()) {
      size_t end = methods.find(',', start);
      if (end == std::string::npos)
        end = methods.size();
      const std::string name = methods.substr(start, end - start);
      if (m.loadMethod(name.c_str()) != rt::Error::Ok)
        return fail(m.errorDetail());
      start = end + 1;
    }
    const double initMs = nowMs() - t1;
    std::printf("{\"load_ms\": %.3f, \"init_ms\": %.3f, \"inits\": %llu, \"packs\": %llu, "
                "\"weight_bytes\": %llu, \"cache_entries\": %zu, \"rss_before_kib\": %ld, "
                "\"rss_peak_kib\": %ld}\n",
                loadMs, initMs, (unsigned long long)b.stats().inits.load(),
                (unsigned long long)b.stats().packs.load(),
                (unsigned long long)b.stats().weightBytesPacked.load(), b.cache().size(),
                rssBefore, rssKiB("VmHWM:"));
    return 0;
  }
  if (mode != "run")
    return fail("unknown mode " + mode);
  if (m.loadMethod(method.c_str()) != rt::Error::Ok)
    return fail(m.errorDetail());
  Inputs in;
  if (!setInputs(m, method.c_str(), in))
    return fail("cannot set the inputs: " + m.errorDetail());
  std::vector<double> wall, cpu;
  for (int r = -1; r < repeat; ++r) {
    const double w0 = nowMs(), c0 = cpuMs();
    if (m.execute(method.c_str()) != rt::Error::Ok)
      return fail(m.errorDetail());
    if (r >= 0) { // the first run warms caches and the pool up
      wall.push_back(nowMs() - w0);
      cpu.push_back(cpuMs() - c0);
    }
  }
  std::printf("{\"wall_ms\": %.4f, \"cpu_ms\": %.4f, \"inits\": %llu}\n", median(wall),
              median(cpu), (unsigned long long)b.stats().inits.load());
  return 0;
}
