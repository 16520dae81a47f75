//===- GenRandom.h - the random choices of the program generators -*- C++ -*-===//
//
// One seeded engine and the few ways the generators (ProgramGen.cpp,
// DynamicGen.cpp) draw from it; the same seed gives the same program.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <random>
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

  std::mt19937_64 rng_;
};

} // namespace ptec::difftest
