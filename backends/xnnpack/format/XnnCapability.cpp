//===- XnnCapability.cpp - the per-node-kind capability table -------------===//
//
// Ranks: XNNPACK's limit is 6 dims; window operators are NHWC 4-d; batch
// matrix multiply needs [.., M, K] and attention [.., H, T, C]. 0-d values
// are taken where the node is elementwise (the result of a 0-d operand is
// 0-d, and the runtime computes it as one element).
//
//===----------------------------------------------------------------------===//

#include "backends/xnnpack/format/XnnCapability.h"

namespace ptec::xnnpack {

namespace fb = fb_xnnpack;
using Kind = fb::XNodeUnion;

namespace {

constexpr NodeCapability xnn(uint8_t minRank, uint8_t maxRank, bool zeroDim) {
  return {RunsOn::Xnnpack, kFloat, minRank, maxRank, zeroDim, ""};
}
constexpr NodeCapability own(uint8_t minRank, uint8_t maxRank, bool zeroDim) {
  return {RunsOn::OwnKernel, kFloat, minRank, maxRank, zeroDim, ""};
}
constexpr NodeCapability none(const char *why) {
  return {RunsOn::Unsupported, 0, 0, 0, false, why};
}

} // namespace

const NodeCapability &nodeCapability(Kind kind) {
  static const NodeCapability elementwise = xnn(1, 6, true);
  static const NodeCapability lastDim = xnn(1, 6, false);
  static const NodeCapability window = xnn(4, 4, false);
  static const NodeCapability ownElementwise = own(1, 6, true);
  static const NodeCapability ownLayout = own(1, 6, false);
  static const NodeCapability reshape = own(1, 6, true);
  static const NodeCapability bmm = own(2, 6, false);
  static const NodeCapability sdpa = own(3, 6, false);
  static const NodeCapability convert =
      none("type conversions need quantized values; this table lists float graphs only");
  static const NodeCapability argmax =
      none("its index output is uint32, a datatype the schema does not have (upstream's "
           "serializer never writes this node)");
  static const NodeCapability unknown = none("a node kind this schema does not know");
  switch (kind) {
  case Kind::XNNAdd: case Kind::XNNSubtract: case Kind::XNNMultiply: case Kind::XNNDiv:
  case Kind::XNNMinimum: case Kind::XNNMaximum:
  case Kind::XNNClamp: case Kind::XNNSigmoid: case Kind::XNNHardswish: case Kind::XNNAbs:
  case Kind::XNNNegate: case Kind::XNNSquare: case Kind::XNNSquareRoot: case Kind::XNNCeiling:
  case Kind::XNNFloor: case Kind::XNNLeakyReLU: case Kind::XNNELU:
    return elementwise;
  case Kind::XNNFullyConnected: case Kind::XNNSoftmax: case Kind::XNNPReLU:
  case Kind::XNNStaticConstantPad:
    return lastDim;
  case Kind::XNNConv2d: case Kind::XNNDepthwiseConv2d: case Kind::XNNConvTranspose2d:
  case Kind::XNNMaxPooling2d: case Kind::XNNAvgPooling2d: case Kind::XNNGlobalAvgPooling2d:
  case Kind::XNNStaticResizeBilinear2D:
    return window;
  case Kind::XNNTanh: case Kind::XNNGelu: case Kind::XNNExp: case Kind::XNNLog:
  case Kind::XNNSin: case Kind::XNNReciprocalSquareRoot: case Kind::XNNCos:
    return ownElementwise;
  case Kind::XNNStaticTranspose: case Kind::XNNStaticSlice: case Kind::XNNConcatenate2:
  case Kind::XNNConcatenate3: case Kind::XNNConcatenate4: case Kind::XNNConcatenate5:
    return ownLayout;
  case Kind::XNNStaticReshape: case Kind::XNNCopy:
    return reshape;
  case Kind::XNNBatchMatrixMultiply:
    return bmm;
  case Kind::XNNScaledDotProductAttention:
    return sdpa;
  case Kind::XNNConvert:
    return convert;
  case Kind::XNNArgMaxPooling2d:
    return argmax;
  default:
    return unknown;
  }
}

bool capabilityTakes(const NodeCapability &c, fb::XNNDatatype dtype, size_t rank) {
  if (c.runsOn == RunsOn::Unsupported || (c.dtypes & dtypeBit(dtype)) == 0)
    return false;
  if (rank == 0)
    return c.zeroDim;
  return rank <= c.maxRank;
}

} // namespace ptec::xnnpack
