//===- XnnCapability.h - what XnnpackBackend runs, per node kind -*- C++ -*-===//
//
// One table both halves of XnnpackBackend ask, so that what the
// ahead-of-time partitioner takes is what the runtime half loads: per node
// kind of the schema, where it runs (an operator of the installed XNNPACK,
// one of the runtime's own kernels, or nowhere, with the reason), which
// value datatypes it takes, its largest rank, and whether a 0-d value may
// be an operand (the runtime computes a 0-d value as [1]: XNNPACK shapes
// have at least one dim). No dependency on XNNPACK or MLIR.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "backends/xnnpack/schema/xnnpack_graph_generated.h"

#include <cstdint>

namespace ptec::xnnpack {

enum class RunsOn : uint8_t {
  Xnnpack,     ///< an operator of Debian 12's XNNPACK (2022)
  OwnKernel,   ///< the runtime's own loop (XnnOwnKernels.h, layout copies)
  Unsupported, ///< neither; `why` says so
};

/// Bit of one XNNDatatype in NodeCapability::dtypes.
constexpr uint32_t dtypeBit(fb_xnnpack::XNNDatatype d) { return 1u << static_cast<uint32_t>(d); }
inline constexpr uint32_t kFloat32Only = dtypeBit(fb_xnnpack::XNNDatatype::xnn_datatype_fp32);
/// float32 and float16: the runtime computes float16 values in float32 and
/// rounds each float16 result to float16 (ValueInfo::half in XnnFormat.h),
/// so every float node kind takes them.
inline constexpr uint32_t kFloat =
    kFloat32Only | dtypeBit(fb_xnnpack::XNNDatatype::xnn_datatype_fp16);

struct NodeCapability {
  RunsOn runsOn = RunsOn::Unsupported;
  uint32_t dtypes = 0;  ///< dtypeBit of every datatype its values may have
  uint8_t minRank = 0;  ///< fewest dims of its first input (after 0-d -> [1])
  uint8_t maxRank = 0;  ///< most dims of any operand
  bool zeroDim = false; ///< a 0-d operand is taken (computed as [1])
  const char *why = ""; ///< for Unsupported: why
};

/// The row of `kind`; kinds this schema does not know are Unsupported.
const NodeCapability &nodeCapability(fb_xnnpack::XNodeUnion kind);

/// True when the capability takes a value of this datatype and rank.
bool capabilityTakes(const NodeCapability &c, fb_xnnpack::XNNDatatype dtype, size_t rank);

} // namespace ptec::xnnpack
