//===- DemoAot.h - ahead-of-time half of BackendWithCompilerDemo -*- C++ -*-===//
//
// Blob-compatible with upstream's backend_with_compiler_demo.py (spec section
// 8). The runtime half has fixed argument conventions, so this half accepts
// only the regions it can compute:
//   - one aten::sin                         args [x, y]
//   - aten::mm (2x2 @ 2x2) then aten::add.Tensor consuming it
//                                           args [a, x, b, out] (a@x + b)
// all float32, leading dimension of the first input at most 4 (compile spec
// 0, `max_value`). It opts in to handle sharing: the runtime handle is
// read-only after init.
//
// Options ("demo:<opt>:<opt>", e.g. "demo:scratch=64:ops=sin"):
//   scratch=N   test mode: declare N bytes of scratch per call and the
//               `scratch_bytes` compile spec (after max_value); scratch
//               disables sharing.
//   ops=sin     only these patterns ('+'-separated: sin, mm_add).
//   group=whole keep the partitioner's maximal groups uncut (tests of the
//               partitioner only: preprocess refuses what it cannot compute).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "backends/AotBackend.h"

namespace ptec::aot::demo {

constexpr const char *kDemoAotName = "demo";
constexpr const char *kDemoAotId = "BackendWithCompilerDemo";
/// Largest value of compile spec 0 the runtime accepts.
constexpr int64_t kDemoMaxValue = 4;

struct DemoAotOptions {
  int64_t scratchBytes = 0;
  bool sin = true;
  bool mmAdd = true;
  bool wholeGroups = false;
};

/// Parses "scratch=64:ops=sin"; false and `error` set on a bad option.
bool parseDemoAotOptions(llvm::StringRef text, DemoAotOptions &options, std::string *error);

std::unique_ptr<AotBackend> createDemoAotBackend(llvm::StringRef options, std::string *error);

/// Upstream's dotted edge-op name: "aten::add.Tensor" -> "aten.add.Tensor",
/// "aten::sin" -> "aten.sin.default".
std::string dottedOpName(llvm::StringRef opName);

} // namespace ptec::aot::demo
