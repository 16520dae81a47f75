//===- GenRandom.h - the random choices of the program generators -*- C++ -*-===//
//
// One seeded engine and the few ways the generators (ProgramGen.cpp,
// DynamicGen.cpp) draw from it; the same seed gives the same program.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace ptec::difftest {

class GenRandom {
protected:
  explicit GenRandom(uint64_t seed) : rng_(seed) {}

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <typename T> const T &pick(const std::vector<T> &v) {
    return v[static_cast<size_t>(uniform(0, static_cast<int>(v.size()) - 1))];
  }
  /// A uniform float in [-1, 1) as text with three decimals.
  std::string randomFloat() {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", std::uniform_real_distribution<double>(-1, 1)(rng_));
    return buf;
  }
  /// "[x, y, ...]": `n` random floats.
  std::string randomRow(int64_t n) {
    std::string t = "[";
    for (int64_t i = 0; i < n; ++i)
      t += (i ? ", " : "") + randomFloat();
    return t + "]";
  }
  /// "[[...], [...]]": `rows` rows of `cols` random floats.
  std::string randomRows(int64_t rows, int64_t cols) {
    std::string t = "[";
    for (int64_t r = 0; r < rows; ++r)
      t += (r ? ", " : "") + randomRow(cols);
    return t + "]";
  }
  /// One of `choices`, uniformly.
  template <size_t N> const char *oneOf(const char *const (&choices)[N]) {
    return choices[uniform(0, static_cast<int>(N) - 1)];
  }
  /// Calls `f(i)` for i = 0, 1, ..., a uniform number of times in [lo, hi].
  template <typename F> void repeat(int lo, int hi, F f) {
    const int n = uniform(lo, hi);
    for (int i = 0; i < n; ++i)
      f(i);
  }

  std::mt19937_64 rng_;
};

} // namespace ptec::difftest
