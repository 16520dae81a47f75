//===- CacheTestAot.h - ahead-of-time half of PtecCacheTestBackend -*- C++ -*-===//
//
// Takes linear layers whose weights are constants and bakes the weights into
// a blob that the runtime half (../runtime/CacheTestBackend.h) turns into a
// cached context. After legalize and fold-constants a linear is
//
//   exir.aten "aten::addmm"(%bias, %x, %wT)    y = bias + x @ wT
//   exir.aten "aten::mm"(%x, %wT)              y = x @ wT
//
// with %x f32 [M, K], %wT f32 [K, N] and %bias f32 [N], where %wT and %bias
// are method arguments with #exir.input<parameter|constant, "fqn"> backed by
// an immutable exir.weight. Each such op becomes its own region.
//
// Blob: the context signature header (runtime/backend/cache/
// ContextBlobHeader.h) then the payload the runtime half reads:
//   uint32 N, uint32 K, uint32 workspaceBytes (4*N), uint32 0,
//   float32 W[N*K] (W = wT transposed, row-major), float32 b[N] (zeros for mm).
// The signature is fnv1a64 over that payload, i.e. over the weight bytes and
// shapes only: two methods (or two lowered modules) that use the same
// weights get the same signature, so the runtime shares one context.
//
// Delegate arguments (what OutlineDelegates passes, in first-use order):
//   addmm: [bias, x, wT, out]      mm: [x, wT, out]
// The weights stay arguments (they are graph constants the region captured),
// but execute() reads the context's copies and only checks their shapes.
//
// preprocess() finds the weight bytes through the region function's argument
// attributes: OutlineDelegates copies each captured method argument's
// `exir.input` and, for one backed by an immutable exir.weight, puts that
// weight's value under `exir.weight_value` (kWeightValueAttrName).
//
// Shares handles across calls: execute() keeps no per-call state.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "backends/AotBackend.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ptec::aot::cachetest {

constexpr const char *kCacheTestAotName = "cachetest";
constexpr const char *kCacheTestAotId = "PtecCacheTestBackend";
/// Argument attribute of a region function: the exir.weight value behind a
/// captured constant argument (set by OutlineDelegates).
constexpr const char *kWeightValueAttrName = "exir.weight_value";

std::unique_ptr<AotBackend> createCacheTestAotBackend(llvm::StringRef options,
                                                      std::string *error);

/// The blob for W [N, K] (row-major) and b [N]: header + payload, signature
/// fnv1a64(payload). Same bytes as the runtime's makeCacheTestBlob with that
/// signature. Empty when the sizes do not match.
std::string makeCacheTestAotBlob(const std::vector<float> &weight,
                                 const std::vector<float> &bias, uint32_t inFeatures);

} // namespace ptec::aot::cachetest
