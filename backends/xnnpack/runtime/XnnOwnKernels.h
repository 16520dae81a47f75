//===- XnnOwnKernels.h - node kinds this XNNPACK lacks, as plain loops -*- C++ -*-===//
//
// Debian 12's XNNPACK (2022) has no operator for several node kinds that
// upstream's serializer writes: concatenate (2 to 5 inputs), static slice,
// batch matrix multiply, scaled dot-product attention, and the unary
// tanh, gelu, exp, log, sin, cos and reciprocal square root. The handle runs
// them as steps of its own between XNNPACK operators (XnnCapability.h says
// which kinds). Each computes what upstream's XNNPACK computes, in float32:
//   - gelu is the erf form, 0.5 x (1 + erf(x / sqrt 2));
//   - batch matrix multiply is [.., M, K] x [.., K, N] (with flag 1,
//     XNN_FLAG_TRANSPOSE_B: [.., N, K]); batch dims are equal or 1
//     (broadcast);
//   - attention is softmax((q * scale) k^T + mask) v over query
//     [.., H, T, C], key and value [.., H, U, C|D] or, multi-query,
//     [.., U, C|D], scale [C] (per channel, as XNNPACK takes it) and an
//     optional mask [T, U].
// Shapes were checked by XnnShapes.h; the kernels trust them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "backends/xnnpack/runtime/XnnShapes.h"

namespace ptec::xnnpack {

/// One input of an own-kernel step: its bytes and this call's dims.
struct OwnOperand {
  const float *data = nullptr;
  const Dims *dims = nullptr;
};

/// Runs node `node` (a kind whose capability is RunsOn::OwnKernel, other
/// than the layout copies the handle does itself) on `in` (NodeOperands
/// order) into `out` of dims `outDims`. NotSupported for other kinds.
rt::Error runOwnKernel(const fb_xnnpack::XNode *node, const OwnOperand *in, size_t numIn,
                       float *out, const Dims &outDims);

/// The unary functions, element by element (tests and the kernels).
float ownUnary(fb_xnnpack::XNodeUnion kind, float x);

} // namespace ptec::xnnpack
