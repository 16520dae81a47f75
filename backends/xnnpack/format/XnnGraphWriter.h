//===- XnnGraphWriter.h - writing XnnpackBackend blobs ----------*- C++ -*-===//
//
// Builds an XNNGraph and its constant data into a finished blob (header,
// flatbuffer, 16-byte aligned constants), the way ExecuTorch's XNNPACK
// serializer lays them out: version "0", constant_data[0] a (0, 0)
// placeholder, each constant padded to 16 bytes, value ids dense from 0,
// external inputs and outputs named by their delegate argument index. The
// ahead-of-time half writes through it; tests use it to hand-build blobs.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "backends/xnnpack/format/XnnFormat.h"

#include <limits>
#include <string>
#include <vector>

namespace ptec::xnnpack {

/// The clamp a node applies to its result.
struct OutputClamp {
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();
  bool none() const {
    return lo == -std::numeric_limits<float>::infinity() &&
           hi == std::numeric_limits<float>::infinity();
  }
};

struct ConvParams {
  uint32_t padTop = 0, padRight = 0, padBottom = 0, padLeft = 0;
  uint32_t kernelH = 1, kernelW = 1, strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
  uint32_t groupInputChannels = 1, groupOutputChannels = 1, groups = 1;
  uint32_t adjustH = 0, adjustW = 0, flags = 0;
};

/// Quantization parameters of an int8 / int32 value, as upstream's XNNPACK
/// serializer writes them (XNNQuantizedTensorValue): per-tensor (scale,
/// zero point) or per-channel (one scale per index of `channelDim`, zero
/// point 0).
struct QuantParams {
  bool perChannel = false;
  float scale = 1.0f;         ///< per-tensor
  int32_t zeroPoint = 0;      ///< per-tensor
  std::vector<float> scales;  ///< per-channel
  int32_t channelDim = 0;     ///< per-channel
  /// Per-channel, non-zero: the scales live in this constant (as float32,
  /// `scale_buffer_idx`, the way upstream 1.5.1 writes them) and the
  /// inline list stays empty; `scales` still gives their number.
  uint32_t scaleConstantIndex = 0;
  int32_t nonBatchDims = 0;   ///< > 0: dynamic (PerTokenDynamicQuant)
};

struct PoolParams {
  uint32_t padTop = 0, padRight = 0, padBottom = 0, padLeft = 0;
  uint32_t poolH = 1, poolW = 1, strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
  uint32_t flags = 0;
};

class GraphWriter {
public:
  GraphWriter();
  ~GraphWriter();
  GraphWriter(const GraphWriter &) = delete;
  GraphWriter &operator=(const GraphWriter &) = delete;

  /// A float32 value; returns its id.
  uint32_t addValue(const std::vector<uint64_t> &dims, uint32_t constantIndex = 0);
  /// A float value of another float datatype (xnn_datatype_fp16, as
  /// upstream writes a float16 program); a constant's bytes are then of
  /// that datatype. Returns its id.
  uint32_t addFloatValue(const std::vector<uint64_t> &dims, fb_xnnpack::XNNDatatype dtype,
                         uint32_t constantIndex = 0);
  /// A quantized value (XNNQuantizedTensorValue); returns its id. Datatypes
  /// as upstream uses them: xnn_datatype_qint8 for per-tensor activations
  /// and weights, xnn_datatype_qcint8 for per-channel weights (channelDim 0
  /// for conv / FC filters [O, ...], 3 for depthwise filters [1, H, W, C]),
  /// xnn_datatype_qint32 / qcint32 for int32 biases (scale = input scale *
  /// weight scale, zero point 0). `constantIndex` from addConstant (raw
  /// int8 / int32 bytes, row-major), 0 for a non-constant value.
  /// Per-channel scales are written into PerChannelQuant.scale.
  uint32_t addQuantizedValue(const std::vector<uint64_t> &dims, fb_xnnpack::XNNDatatype dtype,
                             const QuantParams &q, uint32_t constantIndex = 0);
  /// Per-tensor shorthand of addQuantizedValue.
  uint32_t addQuantizedValue(const std::vector<uint64_t> &dims, fb_xnnpack::XNNDatatype dtype,
                             float scale, int32_t zeroPoint, uint32_t constantIndex = 0);
  /// Per-channel shorthand of addQuantizedValue (zero point 0).
  uint32_t addPerChannelQuantizedValue(const std::vector<uint64_t> &dims,
                                       fb_xnnpack::XNNDatatype dtype,
                                       const std::vector<float> &scales, int32_t channelDim,
                                       uint32_t constantIndex = 0);
  /// A dynamically quantized int8 value (xnn_datatype_qdint8 with
  /// PerTokenDynamicQuant): each row of its last `nonBatchDims` dims gets its
  /// scale and zero point when the producing Convert runs.
  uint32_t addDynamicQuantizedValue(const std::vector<uint64_t> &dims, int32_t nonBatchDims = 1);
  /// Makes value `id` delegate argument `externalId` (input or output).
  void setExternal(uint32_t id, uint32_t externalId, uint32_t flag);
  bool isExternal(uint32_t id) const;
  bool isConstant(uint32_t id) const;
  const std::vector<uint64_t> &dims(uint32_t id) const;
  /// Appends constant bytes to the blob's constant data; returns the index.
  uint32_t addConstant(const void *data, size_t bytes);
  /// A constant that lives in the program's named data under `key`.
  uint32_t addNamedConstant(const std::string &key, size_t bytes);
  /// addValue + addConstant for float data in row-major order of `dims`.
  uint32_t addConstantValue(const std::vector<uint64_t> &dims, const float *data);

  void addBinary(fb_xnnpack::XNodeUnion kind, uint32_t a, uint32_t b, uint32_t out,
                 OutputClamp clamp = {}, uint32_t debug = 0);
  /// Any one-input kind of the _XNNNode1x1 table (clamp, sigmoid, softmax,
  /// global average pooling, ...).
  void addUnary(fb_xnnpack::XNodeUnion kind, uint32_t in, uint32_t out, OutputClamp clamp = {},
                uint32_t debug = 0);
  /// XNNGlobalAvgPooling2d [N, H, W, C] -> [N, 1, 1, C], marked keep-dims
  /// as upstream writes it (kFlagKeepDims).
  void addGlobalAvgPooling(uint32_t in, uint32_t out, uint32_t debug = 0);
  void addLeakyRelu(uint32_t in, uint32_t out, float slope, uint32_t debug = 0);
  void addElu(uint32_t in, uint32_t out, float alpha, uint32_t debug = 0);
  void addFullyConnected(uint32_t in, uint32_t filter, uint32_t bias, uint32_t out,
                         uint32_t flags = 0, OutputClamp clamp = {}, uint32_t debug = 0);
  void addConv(fb_xnnpack::XNodeUnion kind, const ConvParams &p, uint32_t in, uint32_t filter,
               uint32_t bias, uint32_t out, OutputClamp clamp = {}, uint32_t debug = 0);
  void addPooling(fb_xnnpack::XNodeUnion kind, const PoolParams &p, uint32_t in, uint32_t out,
                  OutputClamp clamp = {}, uint32_t debug = 0);
  void addReshape(uint32_t in, uint32_t out, uint32_t debug = 0);
  void addTranspose(uint32_t in, uint32_t out, const std::vector<uint32_t> &perm,
                    uint32_t debug = 0);
  void addPad(uint32_t in, uint32_t out, const std::vector<uint32_t> &pre,
              const std::vector<uint32_t> &post, float value, uint32_t debug = 0);
  /// Concatenate2..5 along `axis`.
  void addConcat(uint32_t axis, const std::vector<uint32_t> &inputs, uint32_t out,
                 uint32_t debug = 0);
  /// StaticSlice: `offsets` and `sizes` per input dim.
  void addSlice(uint32_t in, uint32_t out, const std::vector<uint32_t> &offsets,
                const std::vector<uint32_t> &sizes, uint32_t debug = 0);
  /// BatchMatrixMultiply; flags 1 (XNN_FLAG_TRANSPOSE_B): b is [.., N, K].
  void addBatchMatMul(uint32_t a, uint32_t b, uint32_t out, uint32_t flags = 0,
                      uint32_t debug = 0);
  /// ScaledDotProductAttention; `mask` kInvalidValueId for none.
  void addAttention(uint32_t query, uint32_t key, uint32_t value, uint32_t scale, uint32_t mask,
                    uint32_t out, uint32_t debug = 0);
  /// StaticReshape with an explicit new_shape (0: the one inferred dim, as
  /// upstream writes a -1).
  void addReshapeTo(uint32_t in, uint32_t out, const std::vector<uint32_t> &newShape,
                    uint32_t debug = 0);

  size_t numNodes() const { return nodes_.size(); }
  /// The finished blob. `numExterns` 0: one past the largest external id.
  std::string finish(uint32_t numExterns = 0, const char *identifier = kWriteIdentifier);

private:
  struct Value {
    std::vector<uint64_t> dims;
    uint32_t constantIndex = 0, externalId = kInvalidValueId, flags = 0;
    fb_xnnpack::XNNDatatype dtype = fb_xnnpack::XNNDatatype::xnn_datatype_fp32;
    bool quantized = false;
    QuantParams quant;
  };
  void addNode(fb_xnnpack::XNodeUnion kind, uint32_t body, OutputClamp clamp, uint32_t debug);

  struct Impl;
  Impl *impl_;
  std::vector<Value> values_;
  std::vector<uint32_t> nodes_; ///< node offsets in the builder
  std::string constants_;
  struct Constant {
    uint64_t offset, size;
    std::string key;
  };
  std::vector<Constant> constantTable_;
};

} // namespace ptec::xnnpack
