//===- XnnFormat.h - the XnnpackBackend blob: header, graph, plan -*- C++ -*-===//
//
// What both halves of the XNNPACK backend agree on, with no dependency on the
// XNNPACK library or on MLIR: the blob layout ExecuTorch's XNNPACK delegate
// uses (a 30-byte header padded to 32, the XNNGraph flatbuffer of
// ../schema/xnnpack_graph.fbs, then 16-byte aligned constant data), the
// operands of every node kind, and the plan of the delegate's workspace
// (where intermediate values live during execute). The ahead-of-time half
// writes blobs and sizes planned scratch with the same plan the runtime
// half uses, so the two always agree on the workspace size.
//
// Blob layout (all little-endian):
//   [0, 4)    zero
//   [4, 8)    magic "XH00" (where a bare flatbuffer has its identifier)
//   [8, 10)   header length, uint16 (30)
//   [10, 14)  flatbuffer offset, uint32      [14, 18) flatbuffer size, uint32
//   [18, 22)  constant data offset, uint32   [22, 30) constant data size, uint64
// A blob whose bytes 4..8 are not "XH00" is a bare flatbuffer (old files).
// The flatbuffer identifier must be XN00 or XN01 (same wire layout);
// anything else is DelegateInvalidCompatibility.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "backends/xnnpack/schema/xnnpack_graph_generated.h"
#include "runtime/core/Error.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ptec::xnnpack {

inline constexpr char kHeaderMagic[4] = {'X', 'H', '0', '0'};
inline constexpr size_t kHeaderMagicOffset = 4;
inline constexpr size_t kHeaderLength = 30;     ///< bytes of header fields
inline constexpr size_t kHeaderPaddedLength = 32; ///< where ptec puts the graph
inline constexpr size_t kConstantAlignment = 16;
/// The identifier ptec writes, and the ones it reads.
inline constexpr char kWriteIdentifier[5] = "XN01";
inline constexpr uint32_t kInvalidValueId = 0xFFFFFFFFu;
inline constexpr uint32_t kFlagExternalInput = 1;
inline constexpr uint32_t kFlagExternalOutput = 2;
/// XNN_FLAG_KEEP_DIMS of newer XNNPACK (upstream's runtime): a global
/// pooling node keeps the pooled dims as 1s. Without it, upstream's runtime
/// reduces [N, H, W, C] to [N, C], which no longer broadcasts against an
/// [N, H, W, C] operand when N > 1.
inline constexpr uint32_t kFlagKeepDims = 0x40;
inline constexpr uint32_t kMaxDims = 6;
/// XNNPACK may read this many bytes past the end of an input (never writes).
inline constexpr size_t kExtraReadBytes = 16;
/// Alignment of every slot of the workspace.
inline constexpr size_t kWorkspaceAlignment = 64;

/// A parsed blob. Pointers point into the blob's bytes.
struct BlobView {
  const fb_xnnpack::XNNGraph *graph = nullptr;
  const uint8_t *constantData = nullptr; ///< null for a bare flatbuffer
  uint64_t constantDataSize = 0;
  bool hasHeader = false;
  char identifier[5] = {};
};

/// Finds the header (or a bare flatbuffer), checks every offset against
/// `size`, checks the identifier and runs the FlatBuffers verifier.
/// InvalidArgument for malformed bytes, DelegateInvalidCompatibility for an
/// identifier other than XN00/XN01; `why` says which.
rt::Error parseBlob(const void *data, size_t size, BlobView *out, std::string *why);

/// Header + flatbuffer (padded to 16) + constant data, as upstream lays it.
std::string writeBlob(const uint8_t *flatbuffer, size_t flatbufferSize,
                      const std::string &constantData);

/// "XNNConv2d", or "node type <tag>" for a tag this schema does not know.
std::string nodeKindName(fb_xnnpack::XNodeUnion kind);

/// The value ids a node reads (`inputs`, in operand order; an absent bias is
/// left out) and writes.
struct NodeOperands {
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
};
/// False when the node has no body or a kind this schema does not know.
bool nodeOperands(const fb_xnnpack::XNode *node, NodeOperands *out);

/// True for node kinds the runtime computes with its own loops (RunsOn::
/// OwnKernel in XnnCapability.h), which read exactly their input's bytes;
/// every other kind runs on XNNPACK, which may read kExtraReadBytes past an
/// input.
bool isOwnKernel(fb_xnnpack::XNodeUnion kind);

/// One tensor value of the graph.
struct ValueInfo {
  uint32_t id = 0;                 ///< id_out
  fb_xnnpack::XNNDatatype dtype = fb_xnnpack::XNNDatatype::xnn_datatype_invalid;
  std::vector<uint64_t> dims;
  uint64_t numel = 1;
  uint32_t constantIndex = 0;      ///< into constant_data; 0: none
  uint32_t externalId = kInvalidValueId;
  uint32_t flags = 0;
  /// Bytes per element: 4 for float32 and int32, 1 for int8 (XnnQuant.h).
  /// A float16 value counts 4 too: the runtime holds it as float32.
  uint32_t elementSize = 4;
  /// A float16 value (xnn_datatype_fp16). This XNNPACK's f16 operators need
  /// hardware support and cover few kinds, so the runtime computes such a
  /// value in float32: `dtype` reads fp32, the constant's bytes and the
  /// external tensors are float16 (converted at init and at each call), and
  /// each step rounds its float16 result to float16 precision, as upstream's
  /// float16 storage does between nodes.
  bool half = false;
  /// An XNNQuantizedTensorValue: per-tensor (scale, zeroPoint) or, with
  /// channelDim >= 0, per-channel (`scales`, or scaleBufferIndex > 0 when
  /// the scales live in constant data; zero point 0).
  bool quantized = false;
  float scale = 1.0f;
  int32_t zeroPoint = 0;
  int32_t channelDim = -1;
  std::vector<float> scales;
  uint32_t scaleBufferIndex = 0;
  /// Dynamically quantized (qdint8, per row of the last num_nonbatch_dims
  /// dims): the producer picks each row's scale and zero point per call and
  /// stores them after the elements, `extraBytes` (8 per row: float scale,
  /// int32 zero point).
  bool dynamicQuant = false;
  uint64_t dynamicRows = 0;
  uint64_t extraBytes = 0;
  bool isInput() const { return (flags & kFlagExternalInput) != 0; }
  bool isOutput() const { return (flags & kFlagExternalOutput) != 0; }
  bool isConstant() const { return constantIndex != 0; }
  bool perChannel() const { return channelDim >= 0; }
  uint64_t bytes() const { return numel * elementSize + extraBytes; }
  /// Bytes outside the runtime: in a constant or an external tensor.
  uint64_t storedBytes() const { return half ? numel * 2 : bytes(); }
  /// The datatype the blob declares (fp16 for a `half` value).
  fb_xnnpack::XNNDatatype declaredDtype() const {
    return half ? fb_xnnpack::XNNDatatype::xnn_datatype_fp16 : dtype;
  }
};

/// The checked graph and its workspace plan.
struct GraphPlan {
  std::vector<ValueInfo> values;                 ///< in xvalues order
  std::unordered_map<uint32_t, uint32_t> indexOf; ///< id_out -> values index
  std::vector<NodeOperands> operands;            ///< per node, value indices
  /// Per value: byte offset in the workspace, or -1. Intermediates live in
  /// the workspace; so does a staged copy of each external input that an
  /// XNNPACK operator reads (inputs come from arbitrary memory, and XNNPACK
  /// may read past their end) or that is float16 (converted to float32);
  /// a float16 output is computed in the workspace and converted after the
  /// last step.
  std::vector<int64_t> workspaceOffset;
  std::vector<int64_t> stagingOffset;
  uint64_t workspaceBytes = 0;
  uint32_t numExterns = 0;
};

/// Checks the graph's structure (float32 or float16 values of at most 6 dims, unique
/// ids, external ids below num_externs and used once, every node known with
/// operands that exist, each value produced once and before it is read,
/// every external output produced) and plans the workspace: values whose
/// lifetimes (first write to last read) are disjoint share bytes, largest
/// first, each slot 64-byte aligned with kExtraReadBytes of slack.
/// NotSupported for node kinds or types outside the schema, InvalidArgument
/// for a malformed graph; `why` names the node or value.
rt::Error planGraph(const fb_xnnpack::XNNGraph *graph, GraphPlan *out, std::string *why);

/// The bytes of constant `index` (> 0): from the blob's constant data region,
/// from the program's named data (`named` looks a key up; may be empty when
/// the program has none) or, in old files, from constant_buffer.
struct ConstantBytes {
  const uint8_t *data = nullptr;
  uint64_t size = 0;
  std::string namedKey; ///< non-empty when it came from named data
};
using NamedDataLookup =
    std::function<bool(const char *key, const uint8_t **data, size_t *size)>;
rt::Error constantBytes(const BlobView &blob, uint32_t index, const NamedDataLookup &named,
                        ConstantBytes *out, std::string *why);

/// A 64-bit hash of bytes (4 independent multiply-rotate lanes over 8-byte
/// words, then mixed). Fast enough to run over every weight at init; used to
/// key packed weights.
uint64_t hashBytes(const void *data, size_t size, uint64_t seed = 0);

} // namespace ptec::xnnpack
