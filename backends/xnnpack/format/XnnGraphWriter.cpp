//===- XnnGraphWriter.cpp - writing XnnpackBackend blobs ------------------===//

#include "backends/xnnpack/format/XnnGraphWriter.h"

#include <algorithm>

namespace ptec::xnnpack {

namespace fb = fb_xnnpack;
using Kind = fb::XNodeUnion;

struct GraphWriter::Impl {
  flatbuffers::FlatBufferBuilder fbb{4096};
};

GraphWriter::GraphWriter() : impl_(new Impl) {}
GraphWriter::~GraphWriter() { delete impl_; }

uint32_t GraphWriter::addValue(const std::vector<uint64_t> &dims, uint32_t constantIndex) {
  values_.push_back(Value{dims, constantIndex, kInvalidValueId, 0});
  return static_cast<uint32_t>(values_.size() - 1);
}

uint32_t GraphWriter::addFloatValue(const std::vector<uint64_t> &dims, fb::XNNDatatype dtype,
                                    uint32_t constantIndex) {
  Value v{dims, constantIndex, kInvalidValueId, 0};
  v.dtype = dtype;
  values_.push_back(std::move(v));
  return static_cast<uint32_t>(values_.size() - 1);
}

uint32_t GraphWriter::addQuantizedValue(const std::vector<uint64_t> &dims, fb::XNNDatatype dtype,
                                        const QuantParams &q, uint32_t constantIndex) {
  Value v{dims, constantIndex, kInvalidValueId, 0};
  v.dtype = dtype;
  v.quantized = true;
  v.quant = q;
  values_.push_back(std::move(v));
  return static_cast<uint32_t>(values_.size() - 1);
}

uint32_t GraphWriter::addQuantizedValue(const std::vector<uint64_t> &dims, fb::XNNDatatype dtype,
                                        float scale, int32_t zeroPoint, uint32_t constantIndex) {
  QuantParams q;
  q.scale = scale;
  q.zeroPoint = zeroPoint;
  return addQuantizedValue(dims, dtype, q, constantIndex);
}

uint32_t GraphWriter::addPerChannelQuantizedValue(const std::vector<uint64_t> &dims,
                                                  fb::XNNDatatype dtype,
                                                  const std::vector<float> &scales,
                                                  int32_t channelDim, uint32_t constantIndex) {
  QuantParams q;
  q.perChannel = true;
  q.scales = scales;
  q.channelDim = channelDim;
  return addQuantizedValue(dims, dtype, q, constantIndex);
}

uint32_t GraphWriter::addDynamicQuantizedValue(const std::vector<uint64_t> &dims,
                                               int32_t nonBatchDims) {
  QuantParams q;
  q.nonBatchDims = nonBatchDims;
  return addQuantizedValue(dims, fb::XNNDatatype::xnn_datatype_qdint8, q);
}

void GraphWriter::setExternal(uint32_t id, uint32_t externalId, uint32_t flag) {
  values_.at(id).externalId = externalId;
  values_.at(id).flags = flag;
}

bool GraphWriter::isExternal(uint32_t id) const { return values_.at(id).flags != 0; }
bool GraphWriter::isConstant(uint32_t id) const { return values_.at(id).constantIndex != 0; }
const std::vector<uint64_t> &GraphWriter::dims(uint32_t id) const { return values_.at(id).dims; }

uint32_t GraphWriter::addConstant(const void *data, size_t bytes) {
  const uint64_t offset = constants_.size();
  constants_.append(static_cast<const char *>(data), bytes);
  // Each constant is padded to 16 bytes, as upstream's serializer does.
  constants_.resize((constants_.size() + kConstantAlignment - 1) / kConstantAlignment *
                        kConstantAlignment,
                    '\0');
  constantTable_.push_back({offset, bytes, {}});
  return static_cast<uint32_t>(constantTable_.size()); // index 0 is the placeholder
}

uint32_t GraphWriter::addNamedConstant(const std::string &key, size_t bytes) {
  constantTable_.push_back({UINT64_MAX, bytes, key});
  return static_cast<uint32_t>(constantTable_.size());
}

uint32_t GraphWriter::addConstantValue(const std::vector<uint64_t> &dims, const float *data) {
  uint64_t numel = 1;
  for (uint64_t d : dims)
    numel *= d;
  return addValue(dims, addConstant(data, numel * sizeof(float)));
}

void GraphWriter::addNode(Kind kind, uint32_t body, OutputClamp clamp, uint32_t debug) {
  auto &fbb = impl_->fbb;
  flatbuffers::Offset<fb::OutputMinMax> mm = 0;
  if (!clamp.none())
    mm = fb::CreateOutputMinMax(fbb, clamp.lo, clamp.hi);
  nodes_.push_back(
      fb::CreateXNode(fbb, kind, flatbuffers::Offset<void>(body), debug, mm).o);
}

void GraphWriter::addBinary(Kind kind, uint32_t a, uint32_t b, uint32_t out, OutputClamp clamp,
                            uint32_t debug) {
  addNode(kind, fb::Create_XNNNode2x1(impl_->fbb, a, b, out, 0).o, clamp, debug);
}

void GraphWriter::addUnary(Kind kind, uint32_t in, uint32_t out, OutputClamp clamp,
                           uint32_t debug) {
  addNode(kind, fb::Create_XNNNode1x1(impl_->fbb, in, out, 0).o, clamp, debug);
}

void GraphWriter::addGlobalAvgPooling(uint32_t in, uint32_t out, uint32_t debug) {
  addNode(Kind::XNNGlobalAvgPooling2d, fb::Create_XNNNode1x1(impl_->fbb, in, out, kFlagKeepDims).o,
          {}, debug);
}

void GraphWriter::addLeakyRelu(uint32_t in, uint32_t out, float slope, uint32_t debug) {
  addNode(Kind::XNNLeakyReLU, fb::CreateXNNLeakyReLU(impl_->fbb, slope, in, out, 0).o, {},
          debug);
}

void GraphWriter::addElu(uint32_t in, uint32_t out, float alpha, uint32_t debug) {
  addNode(Kind::XNNELU, fb::CreateXNNELU(impl_->fbb, alpha, in, out, 0).o, {}, debug);
}

void GraphWriter::addFullyConnected(uint32_t in, uint32_t filter, uint32_t bias, uint32_t out,
                                    uint32_t flags, OutputClamp clamp, uint32_t debug) {
  addNode(Kind::XNNFullyConnected,
          fb::CreateXNNFullyConnected(impl_->fbb, in, filter, bias, out, flags).o, clamp, debug);
}

void GraphWriter::addConv(Kind kind, const ConvParams &p, uint32_t in, uint32_t filter,
                          uint32_t bias, uint32_t out, OutputClamp clamp, uint32_t debug) {
  addNode(kind,
          fb::Create_XNNNodeConv(impl_->fbb, p.padTop, p.padRight, p.padBottom, p.padLeft,
                                 p.kernelH, p.kernelW, p.strideH, p.strideW, p.dilationH,
                                 p.dilationW, p.groupInputChannels, p.groupOutputChannels,
                                 p.groups, p.adjustH, p.adjustW, in, filter, bias, out, p.flags)
              .o,
          clamp, debug);
}

void GraphWriter::addPooling(Kind kind, const PoolParams &p, uint32_t in, uint32_t out,
                             OutputClamp clamp, uint32_t debug) {
  addNode(kind,
          fb::Create_XNNPooling2D(impl_->fbb, p.padTop, p.padRight, p.padBottom, p.padLeft,
                                  p.poolH, p.poolW, p.strideH, p.strideW, p.dilationH,
                                  p.dilationW, in, out, p.flags)
              .o,
          clamp, debug);
}

void GraphWriter::addReshape(uint32_t in, uint32_t out, uint32_t debug) {
  std::vector<uint32_t> shape;
  for (uint64_t d : values_.at(out).dims)
    shape.push_back(static_cast<uint32_t>(d));
  addReshapeTo(in, out, shape, debug);
}

void GraphWriter::addTranspose(uint32_t in, uint32_t out, const std::vector<uint32_t> &perm,
                               uint32_t debug) {
  addNode(Kind::XNNStaticTranspose,
          fb::CreateXNNStaticTransposeDirect(impl_->fbb, static_cast<uint32_t>(perm.size()),
                                             &perm, in, out, 0)
              .o,
          {}, debug);
}

void GraphWriter::addPad(uint32_t in, uint32_t out, const std::vector<uint32_t> &pre,
                         const std::vector<uint32_t> &post, float value, uint32_t debug) {
  addNode(Kind::XNNStaticConstantPad,
          fb::CreateXNNStaticConstantPadDirect(impl_->fbb, &pre, &post, value, in, out, 0).o, {},
          debug);
}

void GraphWriter::addSlice(uint32_t in, uint32_t out, const std::vector<uint32_t> &offsets,
                           const std::vector<uint32_t> &sizes, uint32_t debug) {
  addNode(Kind::XNNStaticSlice,
          fb::CreateXNNStaticSliceDirect(impl_->fbb, static_cast<uint32_t>(offsets.size()),
                                         &offsets, &sizes, in, out, 0)
              .o,
          {}, debug);
}

void GraphWriter::addBatchMatMul(uint32_t a, uint32_t b, uint32_t out, uint32_t flags,
                                 uint32_t debug) {
  addNode(Kind::XNNBatchMatrixMultiply, fb::Create_XNNNode2x1(impl_->fbb, a, b, out, flags).o,
          {}, debug);
}

void GraphWriter::addAttention(uint32_t query, uint32_t key, uint32_t value, uint32_t scale,
                               uint32_t mask, uint32_t out, uint32_t debug) {
  addNode(Kind::XNNScaledDotProductAttention,
          fb::CreateXNNScaledDotProductAttention(impl_->fbb, query, key, value, scale, mask, out,
                                                 0)
              .o,
          {}, debug);
}

void GraphWriter::addReshapeTo(uint32_t in, uint32_t out, const std::vector<uint32_t> &newShape,
                               uint32_t debug) {
  addNode(Kind::XNNStaticReshape,
          fb::CreateXNNStaticReshapeDirect(impl_->fbb, static_cast<uint32_t>(newShape.size()),
                                           &newShape, in, out, 0)
              .o,
          {}, debug);
}

void GraphWriter::addConcat(uint32_t axis, const std::vector<uint32_t> &in, uint32_t out,
                            uint32_t debug) {
  static const Kind kinds[] = {Kind::XNNConcatenate2, Kind::XNNConcatenate3,
                               Kind::XNNConcatenate4, Kind::XNNConcatenate5};
  // Unused operands hold the invalid id, as upstream's serializer writes them.
  uint32_t ids[5] = {kInvalidValueId, kInvalidValueId, kInvalidValueId, kInvalidValueId,
                     kInvalidValueId};
  for (size_t i = 0; i < in.size() && i < 5; ++i)
    ids[i] = in[i];
  const size_t n = std::min<size_t>(std::max<size_t>(in.size(), 2), 5);
  addNode(kinds[n - 2],
          fb::Create_XNNCat(impl_->fbb, axis, ids[0], ids[1], ids[2], ids[3], out, 0, ids[4]).o,
          {}, debug);
}

std::string GraphWriter::finish(uint32_t numExterns, const char *identifier) {
  auto &fbb = impl_->fbb;
  std::vector<flatbuffers::Offset<fb::XValue>> values;
  std::vector<uint32_t> inputIds, outputIds;
  uint32_t externs = 0;
  for (size_t i = 0; i < values_.size(); ++i) {
    const Value &v = values_[i];
    std::vector<uint32_t> dims;
    for (uint64_t d : v.dims)
      dims.push_back(static_cast<uint32_t>(d));
    auto tv = fb::CreateXNNTensorValueDirect(
        fbb, v.dtype, static_cast<uint32_t>(dims.size()), &dims,
        v.constantIndex, v.externalId, v.flags, static_cast<uint32_t>(i));
    if (!v.quantized) {
      values.push_back(fb::CreateXValue(fbb, fb::XValueUnion::XNNTensorValue, tv.Union()));
    } else if (v.quant.nonBatchDims > 0) {
      auto pt = fb::CreatePerTokenDynamicQuant(fbb, v.quant.nonBatchDims);
      auto qv = fb::CreateXNNQuantizedTensorValue(
          fbb, tv, fb::XNNQuantParams::PerTokenDynamicQuant, pt.Union());
      values.push_back(
          fb::CreateXValue(fbb, fb::XValueUnion::XNNQuantizedTensorValue, qv.Union()));
    } else if (v.quant.perChannel) {
      const std::vector<float> none;
      auto pc = fb::CreatePerChannelQuantDirect(
          fbb, v.quant.scaleConstantIndex ? &none : &v.quant.scales, v.quant.channelDim,
          v.quant.scaleConstantIndex, static_cast<uint32_t>(v.quant.scales.size()));
      auto qv = fb::CreateXNNQuantizedTensorValue(fbb, tv, fb::XNNQuantParams::PerChannelQuant,
                                                  pc.Union());
      values.push_back(
          fb::CreateXValue(fbb, fb::XValueUnion::XNNQuantizedTensorValue, qv.Union()));
    } else {
      auto pt = fb::CreatePerTensorQuant(fbb, v.quant.scale, v.quant.zeroPoint);
      auto qv = fb::CreateXNNQuantizedTensorValue(fbb, tv, fb::XNNQuantParams::PerTensorQuant,
                                                  pt.Union());
      values.push_back(
          fb::CreateXValue(fbb, fb::XValueUnion::XNNQuantizedTensorValue, qv.Union()));
    }
    if (v.flags & kFlagExternalInput)
      inputIds.push_back(static_cast<uint32_t>(i));
    if (v.flags & kFlagExternalOutput)
      outputIds.push_back(static_cast<uint32_t>(i));
    if (v.flags != 0)
      externs = std::max(externs, v.externalId + 1);
  }
  std::vector<flatbuffers::Offset<fb::ConstantDataOffset>> constants{
      fb::CreateConstantDataOffset(fbb, uint64_t(0), uint64_t(0))};
  for (const Constant &c : constantTable_)
    constants.push_back(fb::CreateConstantDataOffsetDirect(
        fbb, c.offset, c.size, c.key.empty() ? nullptr : c.key.c_str()));
  std::vector<flatbuffers::Offset<fb::XNode>> nodes;
  for (uint32_t n : nodes_)
    nodes.push_back(flatbuffers::Offset<fb::XNode>(n));
  auto graph = fb::CreateXNNGraphDirect(fbb, "0", &nodes, &values,
                                        numExterns ? numExterns : externs, &inputIds,
                                        &outputIds, nullptr, nullptr, &constants);
  fbb.Finish(graph, identifier);
  std::string blob = writeBlob(fbb.GetBufferPointer(), fbb.GetSize(), constants_);
  fbb.Clear();
  nodes_.clear();
  return blob;
}

} // namespace ptec::xnnpack
