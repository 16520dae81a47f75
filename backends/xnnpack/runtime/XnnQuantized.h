//===- XnnQuantized.h - int8 steps of an XnnpackBackend handle --*- C++ -*-===//
//
// Upstream's PT2E + XNNPACKQuantizer flow writes graphs of int8 values
// (../format/XnnQuant.h): XNNConvert nodes at the edges (float -> int8 at
// the inputs, int8 -> float at the outputs) and int8 convolution, fully
// connected, add, multiply, pooling, clamp and layout nodes in between.
// Every node that reads or writes a quantized value becomes a step here:
//   - on XNNPACK (2022): convert_nc_f32_qs8 / qs8_f32, convolution2d_nhwc
//     _qs8 (per-tensor weights) and _qc8 (per-channel weights, depthwise
//     too), fully_connected_nc_qs8 (per-tensor; per-channel weights run as
//     a qc8 1x1 convolution over [1, 1, M, K], since this library's fully
//     connected takes one weight scale only), add / subtract / multiply_nd
//     _qs8, max_pooling2d_nhwc_s8, clamp_nc_s8, sigmoid / tanh_nc_qs8,
//     constant_pad_nd_x8;
//   - own loops on 1-byte elements: transpose, reshape, concatenate, slice,
//     average pooling (this library has it for uint8 only), global average
//     pooling (this library's rounds ties unlike upstream's), add / subtract /
//     multiply whose scale ratios this library refuses, and int8 -> int8
//     requantization (a clamp or layout move whose input and output are
//     quantized differently);
//   - dynamic quantization (upstream's dynamic int8 linear: a float -> qdint8
//     Convert, then a fully connected layer with int8 weights, float bias
//     and float output) as own loops, since this library has no qd8
//     kernels: each row gets XNNPACK's asymmetric scale / zero point from
//     its min and max, the layer accumulates in int32 and scales to float
//     as XNNPACK's qd8_f32_qc8w GEMM does.
// Own loops requantize as XNNPACK's reference does: round to nearest even
// of real / scale + zero point, clamped to the int8 range (quantizeS8).
// The fused activation of a node (output_min_max, e.g. a fused relu) is
// quantized with the output's parameters into int8 bounds.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "backends/xnnpack/runtime/XnnDelegate.h"

#include <memory>
#include <string>
#include <vector>

namespace ptec::xnnpack {

/// What a quantized step runs; the part of a Step only int8 steps use.
struct QuantStep {
  enum class Op : uint8_t {
    ToInt8, ToFloat, ConvQs8, ConvQc8, FullyConnectedQs8, Add, Subtract, Multiply, MaxPool,
    Clamp, Sigmoid, Tanh, Pad,
    // Own loops.
    Requantize, AvgPool, Transpose, Copy, Concat, Slice, ToDynamic, DynamicFullyConnected,
    BinaryLoop, GlobalAvgLoop,
  };
  Op op = Op::Copy;
  /// Requantization from the input's to the output's parameters after an
  /// own layout move (or as the whole step for Requantize).
  bool requantize = false;
  float inScale = 1.0f, outScale = 1.0f;
  int32_t inZeroPoint = 0, outZeroPoint = 0;
  int8_t lo = -128, hi = 127;
  /// BinaryLoop (an add, subtract or multiply whose scales this XNNPACK
  /// refuses): the second input's parameters.
  float in2Scale = 1.0f;
  int32_t in2ZeroPoint = 0;
  /// Average pooling window (NHWC).
  uint32_t padTop = 0, padLeft = 0, poolH = 1, poolW = 1, strideH = 1, strideW = 1;
  size_t outH = 0, outW = 0, channels = 0;
  /// Concatenate: every input (value indices), the elements each copies per
  /// outer index, and the outer count; slice: offsets and output sizes.
  std::vector<uint32_t> inputs;
  std::vector<size_t> chunk;
  size_t outer = 0;
  size_t offsets[kMaxDims] = {};
  size_t sizes[kMaxDims] = {};
  size_t numel = 0;
  /// Dynamic quantization: rows of `depth` elements; the fully connected
  /// layer's own copies of its int8 weights [outputs, depth], per-output
  /// weight scales and float bias, and its float output clamp.
  size_t rows = 0, depth = 0, outputs = 0;
  std::vector<int8_t> weights;
  std::vector<float> weightScales, bias;
  float flo = 0.0f, fhi = 0.0f;
};

/// True when node `ops` reads or writes a quantized value, so that its
/// step is built by createQuantizedStep.
bool touchesQuantized(const GraphPlan &plan, const NodeOperands &ops);

/// Fills the per-channel scales of values whose scales live in constant
/// data (scale_buffer_idx, what upstream writes), so that every per-channel
/// value has `scales` before steps are created.
rt::Error resolveChannelScales(const BlobView &blob, const NamedDataLookup &named,
                               GraphPlan *plan, std::string *why);

/// Checks node `index` (operands `ops`, which touch quantized values) and
/// creates its step: an XNNPACK operator (packing int8 weights) or one of
/// the own loops. `pointers` holds the constants' bytes. Convolutions and
/// fully connected layers are packed through `backend`'s packed-weight
/// cache (keyed with `allocator`, the loading program's runtime allocator)
/// as the float ones are. NotSupported names what this runtime does not
/// run, InvalidArgument a malformed node.
rt::Error createQuantizedStep(const fb_xnnpack::XNode *node, uint32_t index,
                              const GraphPlan &plan, const std::vector<uint8_t *> &pointers,
                              XnnpackBackend &backend, const void *allocator, Step *s,
                              std::string *why);

/// Recomputes the setup sizes and loop counts of int8 step `s` (of `node`)
/// for the call's value dims `dims` (XnnShapes.h has checked them against
/// the node). InvalidArgument when the step cannot take them (why: the
/// reason, without the node's name). XnnQuantizedShapes.cpp.
rt::Error reshapeQuantizedStep(Step &s, const fb_xnnpack::XNode *node, const GraphPlan &plan,
                               const std::vector<std::vector<uint64_t>> &dims,
                               std::string *why);

/// Sets up and runs a step createQuantizedStep made.
rt::Error runQuantizedStep(const Step &s, const std::vector<uint8_t *> &pointers,
                           pthreadpool_t pool);

/// True when a tensor of `dtype` can stand for `v`'s elements: float32 for
/// float values (float16 for a float16 value), int8 (Char or QInt8) for int8
/// values, int32 for int32.
bool externalDtypeMatches(rt::ScalarType dtype, const ValueInfo &v);

} // namespace ptec::xnnpack
