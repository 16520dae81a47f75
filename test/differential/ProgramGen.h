//===- ProgramGen.h - random small stateful programs ------------*- C++ -*-===//
//
// Differential testing of mutable state (the Csmith idea, for write-back and
// re-inplacing): a seed gives a small exported program, as import-level exir
// text, with mutable buffers, a mutated user input, update chains of
// slice/select scatters and index_put, views (slice, select, t, permute,
// alias), elementwise ops, mm (and the mm-then-add pattern the demo backend
// takes), intermediate values returned as outputs, and mutations that read
// each other's old values (swaps included). The same seed always gives the
// same text.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>

namespace ptec::difftest {

/// The program of `seed`, as exir text at the import phase (method forward).
std::string generateProgram(uint64_t seed);

/// A program of `seed` with run-time sizes (DynamicGen.cpp): a user input
/// whose rows are dynamic up to a bound, symbolic sizes and the ops that read
/// them; at most one static buffer. Same text for the same seed.
std::string generateDynamicProgram(uint64_t seed);

/// A non-functional program of `seed` (InplaceGen.cpp): in-place ops on
/// inputs, buffers, parameters and intermediates, directly and through views
/// of views, with only user outputs in the signature (the mutations are
/// implicit, as torch.export writes them). Same text for the same seed.
std::string generateInplaceProgram(uint64_t seed);

} // namespace ptec::difftest
