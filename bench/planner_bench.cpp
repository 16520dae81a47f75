// planner_bench: plan size / peak-live lower bound per algorithm on synthetic
// workloads shaped like real graphs. Not a test: it prints numbers.
//
//   planner_bench [seed]
#include "passes/planning/MemoryPlanner.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace ptec::planning;

namespace {

using Workload = std::vector<PlanRequest>;

// A straight chain: each activation is read by the next op only.
Workload chain(std::mt19937_64 &rng, int n) {
  std::uniform_int_distribution<int64_t> size(1 << 10, 1 << 20);
  Workload w;
  for (int i = 0; i < n; ++i)
    w.push_back({size(rng), i, i + 1});
  return w;
}

// Transformer blocks: a residual stream read at the end of each block,
// plus short-lived intermediates (qkv, scores, mlp hidden).
Workload transformer(std::mt19937_64 &, int blocks) {
  const int64_t d = 4096 * 4, hidden = 4 * d, scores = 8 * 128 * 128 * 4;
  Workload w;
  int t = 0;
  for (int b = 0; b < blocks; ++b) {
    int start = t;
    w.push_back({d, t, t + 1});           // norm
    w.push_back({3 * d, t + 1, t + 2});   // qkv
    w.push_back({scores, t + 2, t + 3});  // scores
    w.push_back({scores, t + 3, t + 4});  // softmax
    w.push_back({d, t + 4, t + 5});       // attn out
    w.push_back({d, t + 5, t + 10});      // residual 1, read by the add at t+10
    w.push_back({d, t + 6, t + 7});       // norm 2
    w.push_back({hidden, t + 7, t + 8});  // up
    w.push_back({hidden, t + 8, t + 9});  // act
    w.push_back({d, t + 9, t + 10});      // down
    w.push_back({d, start, t + 5});       // block input, read by residual add
    t += 10;
  }
  return w;
}

// U-Net: encoder features stay live until the matching decoder stage.
Workload unet(std::mt19937_64 &, int levels) {
  Workload w;
  int t = 0;
  std::vector<std::pair<int64_t, int>> skips;
  int64_t size = int64_t{1} << 22;
  for (int l = 0; l < levels; ++l, size /= 2) {
    w.push_back({size, t, t + 1});
    skips.push_back({size, t + 1});
    t += 2;
  }
  for (int l = levels - 1; l >= 0; --l) {
    auto [s, born] = skips[static_cast<size_t>(l)];
    w.push_back({s, born, t + 1}); // skip connection
    w.push_back({s * 2, t, t + 1});
    t += 2;
  }
  return w;
}

// Decoder step with a KV cache: long-lived mutable buffers (whole method)
// plus per-layer temporaries.
Workload kvCache(std::mt19937_64 &rng, int layers) {
  std::uniform_int_distribution<int64_t> tmp(1 << 12, 1 << 16);
  Workload w;
  int end = layers * 4 + 1;
  for (int l = 0; l < layers; ++l) {
    w.push_back({int64_t{1} << 18, 0, end}); // k cache
    w.push_back({int64_t{1} << 18, 0, end}); // v cache
    for (int i = 0; i < 4; ++i)
      w.push_back({tmp(rng), l * 4 + i, l * 4 + i + 1 + (i == 3 ? 2 : 0)});
  }
  return w;
}

// Random lifetimes and sizes, some with 64-byte alignment.
Workload randomIntervals(std::mt19937_64 &rng, int n) {
  std::uniform_int_distribution<int> start(0, n), len(0, 12), coin(0, 9);
  std::uniform_int_distribution<int64_t> size(1, 1 << 16);
  Workload w;
  for (int i = 0; i < n; ++i) {
    int s = start(rng);
    PlanRequest r{size(rng), s, s + len(rng)};
    if (coin(rng) == 0)
      r.alignment = 64;
    w.push_back(r);
  }
  return w;
}

} // namespace

int main(int argc, char **argv) {
  uint64_t seed = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1;
  std::mt19937_64 rng(seed);
  struct Case {
    std::string name;
    Workload w;
  };
  std::vector<Case> cases = {
      {"chain-200", chain(rng, 200)},
      {"transformer-12", transformer(rng, 12)},
      {"unet-6", unet(rng, 6)},
      {"kv-cache-16", kvCache(rng, 16)},
      {"random-300", randomIntervals(rng, 300)},
      {"random-3000", randomIntervals(rng, 3000)},
      // Scale: per-request cost at 1k vs 100k shows how close to linear
      // each algorithm is (a LifetimeIndex instead of scanning every placed
      // tensor; the 100k chain used to take ~35 s in `best`).
      {"chain-1000", chain(rng, 1000)},
      {"chain-100000", chain(rng, 100000)},
  };
  struct Algo {
    const char *name;
    std::function<PlanResult(const Workload &)> run;
  };
  std::vector<Algo> algos = {{"greedy-by-size", planGreedyBySize},
                             {"best-fit", planBestFit},
                             {"in-order-first-fit", planInOrderFirstFit},
                             {"greedy-by-breadth", planGreedyByBreadth},
                             {"two-sided", planTwoSided},
                             {"best", planBest}};

  std::printf("%-16s %6s %14s  %-20s %14s %7s %9s %8s\n", "workload", "n",
              "lower bound", "algorithm", "plan bytes", "ratio", "time ms", "us/req");
  for (const Case &c : cases) {
    int64_t lb = peakLiveLowerBound(c.w);
    for (const Algo &a : algos) {
      auto t0 = std::chrono::steady_clock::now();
      PlanResult r = a.run(c.w);
      auto t1 = std::chrono::steady_clock::now();
      std::string why;
      bool ok = verifyPlan(c.w, r, &why);
      double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
      std::printf("%-16s %6zu %14lld  %-20s %14lld %7.3f %9.2f %8.2f%s%s\n",
                  c.name.c_str(), c.w.size(), static_cast<long long>(lb),
                  a.name, static_cast<long long>(r.totalSize()),
                  lb ? static_cast<double>(r.totalSize()) / static_cast<double>(lb)
                     : 1.0,
                  ms, 1000.0 * ms / static_cast<double>(std::max<size_t>(1, c.w.size())),
                  ok ? "" : "  INVALID: ", ok ? "" : why.c_str());
    }
  }
  return 0;
}
