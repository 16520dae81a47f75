//===- XnnQuantized.cpp - int8 steps of an XnnpackBackend handle ----------===//
//
// Shapes are checked here as the float steps check theirs: XNNPACK writes
// what its own shape arithmetic says, so a declared output smaller than that
// must be refused before an operator is created.
//
//===----------------------------------------------------------------------===//

#include "backends/xnnpack/runtime/XnnQuantized.h"
#include "backends/xnnpack/runtime/XnnQuantizedLoops.h"
#include "backends/xnnpack/runtime/XnnShapes.h"

#include "backends/xnnpack/format/XnnQuant.h"
#include "backends/xnnpack/format/XnnQuantLimits.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>

namespace ptec::xnnpack {

using rt::Error;
namespace fb = fb_xnnpack;
using Kind = fb::XNodeUnion;
using DT = fb::XNNDatatype;
using Op = QuantStep::Op;

namespace {

constexpr uint32_t kFlagSamePadding = XNN_FLAG_TENSORFLOW_SAME_PADDING;
constexpr uint32_t kFlagTransposeWeights = XNN_FLAG_TRANSPOSE_WEIGHTS;
// Upstream marks pooling nodes "keep dims" (kFlagKeepDims, XnnFormat.h); a
// 4-d pooling keeps its dims anyway.

bool isInt8(const ValueInfo &v) { return v.quantized && v.elementSize == 1 && !v.dynamicQuant; }
bool isFloat(const ValueInfo &v) { return !v.quantized && v.dtype == DT::xnn_datatype_fp32; }
bool sameQuant(const ValueInfo &a, const ValueInfo &b) {
  return a.scale == b.scale && a.zeroPoint == b.zeroPoint;
}


void putF32(std::vector<uint64_t> &key, float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  key.push_back(bits);
}

/// Creates a weight-bearing operator with `create`, shared through the
/// backend's packed-weight cache when it is on: the key hashes `key` (kind
/// and every parameter), the weight and the bias bytes.
template <typename Create>
Error packOperator(XnnpackBackend &backend, const void *allocator, std::vector<uint64_t> key,
                   const void *w, uint64_t wBytes, const void *b, uint64_t bBytes,
                   Create create, Step &s, xnn_status *status) {
  if (!backend.weightCache()) {
    *status = create(&s.op);
    return *status == xnn_status_success ? Error::Ok : Error::NotSupported;
  }
  return acquirePackedOperator(backend, allocator, 0x51e8, key, w, wBytes, b, bBytes, create, s,
                               status);
}

} // namespace

bool touchesQuantized(const GraphPlan &plan, const NodeOperands &ops) {
  for (uint32_t v : ops.inputs)
    if (plan.values[v].quantized)
      return true;
  for (uint32_t v : ops.outputs)
    if (plan.values[v].quantized)
      return true;
  return false;
}

bool externalDtypeMatches(rt::ScalarType dtype, const ValueInfo &v) {
  if (!v.quantized)
    return dtype == (v.half ? rt::ScalarType::Half : rt::ScalarType::Float);
  if (v.elementSize == 1)
    return dtype == rt::ScalarType::Char || dtype == rt::ScalarType::QInt8;
  return dtype == rt::ScalarType::Int || dtype == rt::ScalarType::QInt32;
}

Error resolveChannelScales(const BlobView &blob, const NamedDataLookup &named, GraphPlan *plan,
                           std::string *why) {
  for (ValueInfo &v : plan->values) {
    if (!v.perChannel() || !v.scales.empty() || v.scaleBufferIndex == 0)
      continue;
    const uint64_t channels = v.dims[size_t(v.channelDim)];
    ConstantBytes c;
    PTEC_TRY(constantBytes(blob, v.scaleBufferIndex, named, &c, why));
    if (c.size < channels * sizeof(float)) {
      *why = "value " + std::to_string(v.id) + ": its scales constant has " +
             std::to_string(c.size) + " bytes for " + std::to_string(channels) + " scales";
      return Error::InvalidArgument;
    }
    v.scales.resize(channels);
    std::memcpy(v.scales.data(), c.data, channels * sizeof(float));
    for (float f : v.scales)
      if (!(std::isnormal(f) && f > 0.0f)) {
        *why = "value " + std::to_string(v.id) +
               " has a scale that is not a positive normal float";
        return Error::InvalidArgument;
      }
  }
  return Error::Ok;
}

Error createQuantizedStep(const fb::XNode *node, uint32_t index, const GraphPlan &plan,
                          const std::vector<uint8_t *> &pointers, XnnpackBackend &backend,
                          const void *allocator, Step *out, std::string *why) {
  const NodeOperands &ops = plan.operands[index];
  const std::vector<ValueInfo> &V = plan.values;
  const Kind kind = node->xnode_union_type();
  auto bad = [&](Error e, const std::string &text) {
    *why = describeNode(node, index) + ": " + text;
    return e;
  };
  auto created = [&](xnn_status st) {
    if (st == xnn_status_success)
      return Error::Ok;
    return bad(Error::NotSupported,
               "XNNPACK refused the int8 operator (status " + std::to_string(int(st)) + ")");
  };
  auto q = std::make_shared<QuantStep>();
  Step s;
  s.kind = kind;
  s.node = index;
  s.exec = Exec::Quantized;
  s.in0 = ops.inputs.empty() ? ~0u : ops.inputs[0];
  s.out = ops.outputs.empty() ? ~0u : ops.outputs[0];
  if (s.in0 == ~0u || s.out == ~0u || ops.outputs.size() != 1)
    return bad(Error::NotSupported, "this node kind has no int8 implementation here");
  const ValueInfo &in = V[s.in0], &res = V[s.out];
  float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  if (const fb::OutputMinMax *mm = node->output_min_max())
    lo = mm->output_min(), hi = mm->output_max();
  if (isInt8(res))
    quantizedBounds(lo, hi, res.scale, res.zeroPoint, &q->lo, &q->hi);
  q->inScale = in.scale, q->inZeroPoint = in.zeroPoint;
  q->outScale = res.scale, q->outZeroPoint = res.zeroPoint;
  q->requantize = isInt8(in) && isInt8(res) && !sameQuant(in, res);
  auto needInt8 = [&](std::initializer_list<uint32_t> vs) {
    for (uint32_t v : vs)
      if (!isInt8(V[v]) || V[v].perChannel())
        return bad(Error::NotSupported, "value " + std::to_string(V[v].id) +
                                            " should be per-tensor int8 (qint8)");
    return Error::Ok;
  };
  auto outIs = [&](const std::vector<uint64_t> &want) {
    if (res.dims == want)
      return Error::Ok;
    return bad(Error::InvalidArgument, "the output is declared " + dimsText(res.dims) +
                                           ", the operator produces " + dimsText(want));
  };
  auto sameNumel = [&]() {
    if (in.numel == res.numel)
      return Error::Ok;
    return bad(Error::InvalidArgument, "input " + dimsText(in.dims) + " and output " +
                                           dimsText(res.dims) + " differ in size");
  };
  xnn_operator_t *op = &s.op;

  switch (kind) {
  case Kind::XNNConvert: {
    PTEC_TRY(sameNumel());
    s.batch = in.numel;
    if (isFloat(in) && res.dynamicQuant) {
      q->op = Op::ToDynamic;
      q->rows = res.dynamicRows;
      q->depth = q->rows ? res.numel / q->rows : 0;
    } else if (isFloat(in) && isInt8(res) && !res.perChannel()) {
      q->op = Op::ToInt8;
      PTEC_TRY(created(xnn_create_convert_nc_f32_qs8(1, 1, 1, res.scale, int8_t(res.zeroPoint),
                                                     -128, 127, 0, op)));
    } else if (isInt8(in) && !in.perChannel() && isFloat(res)) {
      q->op = Op::ToFloat;
      PTEC_TRY(created(
          xnn_create_convert_nc_qs8_f32(1, 1, 1, in.scale, int8_t(in.zeroPoint), 0, op)));
    } else if (isInt8(in) && isInt8(res)) {
      q->op = Op::Requantize;
      q->requantize = true;
      q->numel = in.numel;
    } else {
      return bad(Error::NotSupported, "converts between datatypes this runtime does not run");
    }
    break;
  }
  case Kind::XNNConv2d: case Kind::XNNDepthwiseConv2d: case Kind::XNNFullyConnected: {
    const uint32_t wIdx = ops.inputs.size() > 1 ? ops.inputs[1] : ~0u;
    if (kind == Kind::XNNFullyConnected && in.dynamicQuant) {
      // Dynamic int8 linear: int8 weights, float bias and output.
      const auto *f = static_cast<const fb::XNNFullyConnected *>(node->xnode_union());
      if (wIdx == ~0u || !V[wIdx].isConstant() || !isInt8(V[wIdx]) || V[wIdx].dims.size() != 2 ||
          (V[wIdx].perChannel() ? V[wIdx].channelDim != 0 : V[wIdx].zeroPoint != 0) ||
          f->flags() != 0 || !isFloat(res))
        return bad(Error::NotSupported, "a dynamically quantized fully connected layer needs "
                                        "constant [outputs, inputs] int8 weights (zero point 0), "
                                        "no flags and a float output");
      const ValueInfo &w = V[wIdx];
      q->op = Op::DynamicFullyConnected;
      q->outputs = w.dims[0], q->depth = w.dims[1];
      q->rows = in.dynamicRows;
      if (q->depth == 0 || in.numel != q->rows * q->depth || res.numel != q->rows * q->outputs)
        return bad(Error::InvalidArgument, "input " + dimsText(in.dims) + ", filter " +
                                               dimsText(w.dims) + " and output " +
                                               dimsText(res.dims) + " do not agree");
      const auto *wData = reinterpret_cast<const int8_t *>(pointers[wIdx]);
      q->weights.assign(wData, wData + w.numel);
      q->weightScales = w.perChannel() ? w.scales : std::vector<float>(q->outputs, w.scale);
      if (ops.inputs.size() > 2) {
        const ValueInfo &b = V[ops.inputs[2]];
        if (!b.isConstant() || !isFloat(b) || b.numel != q->outputs)
          return bad(Error::NotSupported, "the bias must be a float constant of " +
                                              std::to_string(q->outputs) + " elements");
        q->bias.resize(q->outputs);
        std::memcpy(q->bias.data(), pointers[ops.inputs[2]], q->outputs * sizeof(float));
      }
      q->flo = lo, q->fhi = hi;
      q->requantize = false;
      break;
    }
    PTEC_TRY(needInt8({s.in0, s.out}));
    if (wIdx == ~0u || !V[wIdx].isConstant() || V[wIdx].elementSize != 1 || !V[wIdx].quantized)
      return bad(Error::NotSupported, "the filter must be a constant int8 tensor");
    const ValueInfo &w = V[wIdx];
    const bool perChannel = w.perChannel();
    if (!perChannel && w.zeroPoint != 0)
      return bad(Error::NotSupported, "the filter has zero point " +
                                          std::to_string(w.zeroPoint) + " (XNNPACK takes 0)");
    const int32_t *bias = nullptr;
    uint64_t biasNumel = 0;
    if (ops.inputs.size() > 2) {
      const ValueInfo &b = V[ops.inputs[2]];
      if (!b.isConstant() || b.elementSize != 4 || !b.quantized)
        return bad(Error::NotSupported, "the bias must be a constant int32 tensor");
      bias = reinterpret_cast<const int32_t *>(pointers[ops.inputs[2]]);
      biasNumel = b.numel;
    }
    // XNNPACK's checks, asked first: its parameter setup asserts (aborts the
    // process) on a per-tensor requantization scale below 2^-32.
    const std::vector<float> wScales = perChannel ? w.scales : std::vector<float>{w.scale};
    if (std::string wrong = requantProblem(in.scale, wScales, res.scale); !wrong.empty())
      return bad(Error::NotSupported, wrong);
    if (std::string wrong = rangeProblem(q->lo, q->hi); !wrong.empty())
      return bad(Error::NotSupported, wrong);
    const auto *wData = reinterpret_cast<const int8_t *>(pointers[wIdx]);
    // Shared through the packed-weight cache, keyed by every parameter.
    auto pack = [&](std::vector<uint64_t> key, const int8_t *weights, uint64_t wBytes,
                    auto create) -> Error {
      key.insert(key.end(), {uint64_t(kind), uint64_t(q->op), uint64_t(in.zeroPoint + 128),
                             uint64_t(res.zeroPoint + 128), uint64_t(q->lo + 128),
                             uint64_t(q->hi + 128), bias != nullptr, w.numel});
      putF32(key, in.scale), putF32(key, res.scale), putF32(key, w.scale);
      for (float f : w.scales)
        putF32(key, f);
      xnn_status st = xnn_status_success;
      const Error e = packOperator(backend, allocator, std::move(key), weights, wBytes, bias,
                                   bias ? biasNumel * 4 : 0, create, s, &st);
      return e == Error::NotSupported && st != xnn_status_success ? created(st) : e;
    };
    if (kind == Kind::XNNFullyConnected) {
      const auto *f = static_cast<const fb::XNNFullyConnected *>(node->xnode_union());
      if ((f->flags() & ~kFlagTransposeWeights) != 0 || w.dims.size() != 2)
        return bad(Error::NotSupported, "needs a 2-d filter and no flags but transpose");
      const bool transposed = (f->flags() & kFlagTransposeWeights) != 0;
      const uint64_t outC = transposed ? w.dims[1] : w.dims[0];
      const uint64_t inC = transposed ? w.dims[0] : w.dims[1];
      if (perChannel && w.channelDim != (transposed ? 1 : 0))
        return bad(Error::NotSupported, "per-channel filter scales must follow output channels");
      if (in.dims.empty() || in.dims.back() != inC || inC == 0)
        return bad(Error::InvalidArgument, "input " + dimsText(in.dims) +
                                               " does not end in the filter's " +
                                               std::to_string(inC) + " input channels");
      if (bias != nullptr && biasNumel != outC)
        return bad(Error::InvalidArgument, "the bias should have " + std::to_string(outC) +
                                               " elements");
      s.batch = in.numel / inC;
      if (res.numel != s.batch * outC)
        return bad(Error::InvalidArgument, "the output " + dimsText(res.dims) + " is not " +
                                               std::to_string(s.batch) + " x " +
                                               std::to_string(outC));
      std::vector<int8_t> rowMajor; // [outC, inC]
      if (transposed) {
        rowMajor.resize(inC * outC);
        for (uint64_t k = 0; k < inC; ++k)
          for (uint64_t n = 0; n < outC; ++n)
            rowMajor[n * inC + k] = wData[k * outC + n];
        wData = rowMajor.data();
      }
      if (perChannel) {
        // This library's fully connected takes one weight scale; a 1x1
        // convolution over [1, 1, M, K] takes one per output channel.
        q->op = Op::ConvQc8;
        s.height = 1, s.width = s.batch, s.batch = 1;
        PTEC_TRY(pack({inC, outC}, wData, w.numel, [&](xnn_operator_t *o) {
          return xnn_create_convolution2d_nhwc_qc8(
              0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, inC, outC, inC, outC, int8_t(in.zeroPoint),
              in.scale, w.scales.data(), wData, bias, int8_t(res.zeroPoint), res.scale, q->lo,
              q->hi, 0, o);
        }));
      } else {
        q->op = Op::FullyConnectedQs8;
        PTEC_TRY(pack({inC, outC}, wData, w.numel, [&](xnn_operator_t *o) {
          return xnn_create_fully_connected_nc_qs8(
              inC, outC, inC, outC, int8_t(in.zeroPoint), in.scale, w.scale, wData, bias,
              int8_t(res.zeroPoint), res.scale, q->lo, q->hi, 0, o);
        }));
      }
      q->requantize = false;
      break;
    }
    const auto *c = static_cast<const fb::_XNNNodeConv *>(node->xnode_union());
    if (in.dims.size() != 4)
      return bad(Error::InvalidArgument, "input " + dimsText(in.dims) + " must have 4 dims");
    if ((c->flags() & ~kFlagSamePadding) != 0)
      return bad(Error::NotSupported, "flags " + std::to_string(c->flags()) + " are not supported");
    const bool depthwise = kind == Kind::XNNDepthwiseConv2d;
    ConvChannels ch;
    if (std::string wrong = convChannels(c, depthwise, in.dims, &ch); !wrong.empty())
      return bad(Error::InvalidArgument, wrong);
    const uint64_t groups = ch.groups, gic = ch.gic, goc = ch.goc, mult = ch.mult, inC = ch.inC,
                   outC = ch.outC;
    const uint64_t wNumel = ch.filterNumel;
    if (w.numel != wNumel)
      return bad(Error::InvalidArgument, "the filter should have " + std::to_string(wNumel) +
                                             " elements");
    if (perChannel && (w.scales.size() != outC ||
                       w.channelDim != (depthwise ? int32_t(w.dims.size()) - 1 : 0)))
      return bad(Error::NotSupported, "per-channel filter scales must follow output channels");
    if (bias != nullptr && biasNumel != outC)
      return bad(Error::InvalidArgument, "the bias should have " + std::to_string(outC) +
                                             " elements");
    uint64_t oh = 0, ow = 0;
    if (!convWindowOut(c, in.dims, &oh, &ow))
      return bad(Error::InvalidArgument, "the kernel does not fit the padded input " +
                                             dimsText(in.dims));
    PTEC_TRY(outIs({in.dims[0], oh, ow, outC}));
    s.batch = in.dims[0], s.height = in.dims[1], s.width = in.dims[2];
    const uint32_t dh = std::max(1u, c->dilation_height()), dw = std::max(1u, c->dilation_width());
    const uint32_t g = uint32_t(groups);
    const size_t gi = depthwise ? 1 : gic, go = depthwise ? mult : goc;
    const uint32_t flags = c->flags() | (depthwise ? XNN_FLAG_DEPTHWISE_CONVOLUTION : 0);
    q->requantize = false;
    q->op = perChannel ? Op::ConvQc8 : Op::ConvQs8;
    const std::vector<uint64_t> key{c->padding_top(), c->padding_right(), c->padding_bottom(),
                                    c->padding_left(), c->kernel_height(), c->kernel_width(),
                                    c->subsampling_height(), c->subsampling_width(), dh, dw, groups,
                                    gi, go, flags};
    PTEC_TRY(pack(key, wData, w.numel, [&](xnn_operator_t *o) {
      return perChannel
                 ? xnn_create_convolution2d_nhwc_qc8(
                       c->padding_top(), c->padding_right(), c->padding_bottom(),
                       c->padding_left(), c->kernel_height(), c->kernel_width(),
                       c->subsampling_height(), c->subsampling_width(), dh, dw, g, gi, go, inC,
                       outC, int8_t(in.zeroPoint), in.scale, w.scales.data(), wData, bias,
                       int8_t(res.zeroPoint), res.scale, q->lo, q->hi, flags, o)
                 : xnn_create_convolution2d_nhwc_qs8(
                       c->padding_top(), c->padding_right(), c->padding_bottom(),
                       c->padding_left(), c->kernel_height(), c->kernel_width(),
                       c->subsampling_height(), c->subsampling_width(), dh, dw, g, gi, go, inC,
                       outC, int8_t(in.zeroPoint), in.scale, w.scale, wData, bias,
                       int8_t(res.zeroPoint), res.scale, q->lo, q->hi, flags, o);
    }));
    break;
  }
  case Kind::XNNAdd: case Kind::XNNSubtract: case Kind::XNNMultiply: {
    const uint32_t bIdx = ops.inputs[1];
    PTEC_TRY(needInt8({s.in0, bIdx, s.out}));
    const ValueInfo &a = in, &b = V[bIdx];
    s.in1 = bIdx;
    const size_t rank = std::max(a.dims.size(), b.dims.size());
    std::vector<uint64_t> outDims(rank);
    for (size_t k = 0; k < rank; ++k) {
      const uint64_t da = k < rank - a.dims.size() ? 1 : a.dims[k - (rank - a.dims.size())];
      const uint64_t db = k < rank - b.dims.size() ? 1 : b.dims[k - (rank - b.dims.size())];
      if (da != db && da != 1 && db != 1)
        return bad(Error::InvalidArgument,
                   "inputs " + dimsText(a.dims) + " and " + dimsText(b.dims) + " do not broadcast");
      outDims[k] = da == 1 ? db : da;
    }
    PTEC_TRY(outIs(outDims));
    s.rank0 = a.dims.size(), s.rank1 = b.dims.size();
    for (size_t k = 0; k < s.rank0; ++k)
      s.shape0[k] = a.dims[k];
    for (size_t k = 0; k < s.rank1; ++k)
      s.shape1[k] = b.dims[k];
    q->requantize = false;
    q->in2Scale = b.scale, q->in2ZeroPoint = b.zeroPoint;
    const int8_t za = int8_t(a.zeroPoint), zb = int8_t(b.zeroPoint), zy = int8_t(res.zeroPoint);
    xnn_status st;
    if (kind == Kind::XNNAdd) {
      q->op = Op::Add;
      st = xnn_create_add_nd_qs8(za, a.scale, zb, b.scale, zy, res.scale, q->lo, q->hi, 0, op);
    } else if (kind == Kind::XNNSubtract) {
      q->op = Op::Subtract;
      st = xnn_create_subtract_nd_qs8(za, a.scale, zb, b.scale, zy, res.scale, q->lo, q->hi, 0,
                                      op);
    } else {
      q->op = Op::Multiply;
      st = xnn_create_multiply_nd_qs8(za, a.scale, zb, b.scale, zy, res.scale, q->lo, q->hi, 0,
                                      op);
    }
    // This library bounds the ratios of input to output scales (newer
    // XNNPACK takes more); outside them, our loop.
    if (st == xnn_status_unsupported_parameter || st == xnn_status_invalid_parameter) {
      *op = nullptr;
      q->op = Op::BinaryLoop;
    } else {
      PTEC_TRY(created(st));
    }
    break;
  }
  case Kind::XNNMaxPooling2d: case Kind::XNNAvgPooling2d: {
    const auto *p = static_cast<const fb::_XNNPooling2D *>(node->xnode_union());
    PTEC_TRY(needInt8({s.in0, s.out}));
    if (in.dims.size() != 4)
      return bad(Error::InvalidArgument, "input " + dimsText(in.dims) + " must have 4 dims");
    const bool maxPool = kind == Kind::XNNMaxPooling2d;
    const uint32_t allowed = kFlagKeepDims | (maxPool ? kFlagSamePadding : 0u);
    Dims outDims;
    std::string why;
    if (Error e = poolingOut(p, maxPool, allowed, in.dims, &outDims, &why); e != Error::Ok)
      return bad(e, why);
    const uint64_t ch = in.dims[3];
    PTEC_TRY(outIs(outDims));
    s.batch = in.dims[0], s.height = in.dims[1], s.width = in.dims[2];
    if (!maxPool) {
      // This library has average pooling for uint8 only: our loop.
      q->op = Op::AvgPool;
      q->padTop = p->padding_top(), q->padLeft = p->padding_left();
      q->poolH = p->pooling_height(), q->poolW = p->pooling_width();
      q->strideH = p->stride_height(), q->strideW = p->stride_width();
      q->outH = outDims[1], q->outW = outDims[2], q->channels = ch;
      q->requantize = false;
      break;
    }
    q->op = Op::MaxPool;
    // Max commutes with a monotonic requantization: pool in the input's
    // parameters, then requantize (and clamp) when the output's differ.
    int8_t plo = q->lo, phi = q->hi;
    if (q->requantize)
      plo = -128, phi = 127;
    q->numel = res.numel;
    const uint32_t dh = std::max(1u, p->dilation_height()), dw = std::max(1u, p->dilation_width());
    PTEC_TRY(created(xnn_create_max_pooling2d_nhwc_s8(
        p->padding_top(), p->padding_right(), p->padding_bottom(), p->padding_left(),
        p->pooling_height(), p->pooling_width(), p->stride_height(), p->stride_width(), dh, dw,
        ch, ch, ch, plo, phi, p->flags() & kFlagSamePadding, op)));
    break;
  }
  case Kind::XNNGlobalAvgPooling2d: {
    PTEC_TRY(needInt8({s.in0, s.out}));
    if (in.dims.size() != 4)
      return bad(Error::InvalidArgument, "input " + dimsText(in.dims) + " must have 4 dims");
    const uint64_t ch = in.dims[3];
    if (res.numel != in.dims[0] * ch)
      return bad(Error::InvalidArgument, "the output " + dimsText(res.dims) +
                                             " is not one value per image and channel");
    // Our loop: this library's global average pooling rounds ties unlike
    // upstream's newer XNNPACK (XnnQuantizedLoops.cpp).
    s.batch = in.dims[0], s.width = in.dims[1] * in.dims[2];
    q->op = Op::GlobalAvgLoop;
    q->channels = ch;
    q->requantize = false;
    break;
  }
  case Kind::XNNClamp: case Kind::XNNSigmoid: case Kind::XNNTanh: {
    PTEC_TRY(needInt8({s.in0, s.out}));
    PTEC_TRY(sameNumel());
    s.batch = in.numel;
    q->numel = in.numel;
    const int8_t zi = int8_t(in.zeroPoint), zo = int8_t(res.zeroPoint);
    if (kind == Kind::XNNSigmoid || kind == Kind::XNNTanh) {
      q->requantize = false;
      q->op = kind == Kind::XNNSigmoid ? Op::Sigmoid : Op::Tanh;
      PTEC_TRY(created(kind == Kind::XNNSigmoid
                           ? xnn_create_sigmoid_nc_qs8(1, 1, 1, zi, in.scale, zo, res.scale,
                                                       q->lo, q->hi, 0, op)
                           : xnn_create_tanh_nc_qs8(1, 1, 1, zi, in.scale, zo, res.scale, q->lo,
                                                    q->hi, 0, op)));
    } else if (q->requantize) {
      q->op = Op::Requantize;
    } else {
      q->op = Op::Clamp;
      PTEC_TRY(created(xnn_create_clamp_nc_s8(1, 1, 1, q->lo, q->hi, 0, op)));
    }
    break;
  }
  case Kind::XNNStaticConstantPad: {
    const auto *p = static_cast<const fb::XNNStaticConstantPad *>(node->xnode_union());
    PTEC_TRY(needInt8({s.in0, s.out}));
    std::vector<uint64_t> outDims;
    if (const char *wrong = setPadDims(p, in.dims, s, &outDims))
      return bad(Error::InvalidArgument, wrong);
    if (q->requantize)
      return bad(Error::NotSupported, "pads between differently quantized values");
    PTEC_TRY(outIs(outDims));
    q->op = Op::Pad;
    const int8_t fill = quantizeS8(p->padding_value(), res.scale, res.zeroPoint);
    PTEC_TRY(created(xnn_create_constant_pad_nd_x8(&fill, 0, op)));
    break;
  }
  case Kind::XNNStaticReshape:
    PTEC_TRY(needInt8({s.in0, s.out}));
    PTEC_TRY(sameNumel());
    q->op = Op::Copy;
    q->numel = in.numel;
    break;
  case Kind::XNNStaticTranspose: {
    const auto *t = static_cast<const fb::XNNStaticTranspose *>(node->xnode_union());
    PTEC_TRY(needInt8({s.in0, s.out}));
    std::vector<uint64_t> outDims;
    if (const char *wrong = setTransposeDims(t, in.dims, s, &outDims))
      return bad(Error::InvalidArgument, wrong);
    PTEC_TRY(outIs(outDims));
    q->op = Op::Transpose;
    q->numel = in.numel;
    break;
  }
  case Kind::XNNStaticSlice: {
    const auto *sl = static_cast<const fb::XNNStaticSlice *>(node->xnode_union());
    PTEC_TRY(needInt8({s.in0, s.out}));
    const size_t rank = in.dims.size();
    if (!sl->offsets() || !sl->sizes() || sl->offsets()->size() != rank ||
        sl->sizes()->size() != rank || rank == 0)
      return bad(Error::InvalidArgument, "needs one offset and size per input dim");
    std::vector<uint64_t> outDims(rank);
    s.rank0 = rank;
    for (size_t k = 0; k < rank; ++k) {
      s.shape0[k] = in.dims[k];
      q->offsets[k] = sl->offsets()->Get(uint32_t(k));
      q->sizes[k] = sl->sizes()->Get(uint32_t(k));
      if (q->sizes[k] == 0) // upstream: 0 means "to the end"
        q->sizes[k] = in.dims[k] - std::min<uint64_t>(q->offsets[k], in.dims[k]);
      if (q->offsets[k] + q->sizes[k] > in.dims[k])
        return bad(Error::InvalidArgument, "the slice runs past input " + dimsText(in.dims));
      outDims[k] = q->sizes[k];
    }
    PTEC_TRY(outIs(outDims));
    q->op = Op::Slice;
    q->numel = res.numel;
    break;
  }
  case Kind::XNNConcatenate2: case Kind::XNNConcatenate3: case Kind::XNNConcatenate4:
  case Kind::XNNConcatenate5: {
    const auto *cat = static_cast<const fb::_XNNCat *>(node->xnode_union());
    const size_t rank = res.dims.size();
    const uint32_t axis = cat->axis();
    if (axis >= rank)
      return bad(Error::InvalidArgument, "axis " + std::to_string(axis) + " is past the output's dims");
    for (uint32_t v : ops.inputs) {
      PTEC_TRY(needInt8({v}));
      if (!sameQuant(V[v], res))
        return bad(Error::NotSupported, "inputs quantized unlike the output");
    }
    PTEC_TRY(needInt8({s.out}));
    uint64_t along = 0;
    q->outer = 1;
    for (size_t k = 0; k < axis; ++k)
      q->outer *= res.dims[k];
    for (uint32_t v : ops.inputs) {
      const ValueInfo &x = V[v];
      if (x.dims.size() != rank)
        return bad(Error::InvalidArgument, "inputs must have the output's rank");
      for (size_t k = 0; k < rank; ++k)
        if (k != axis && x.dims[k] != res.dims[k])
          return bad(Error::InvalidArgument, "input " + dimsText(x.dims) +
                                                 " does not match output " + dimsText(res.dims));
      along += x.dims[axis];
      q->inputs.push_back(v);
      q->chunk.push_back(q->outer ? x.numel / q->outer : 0);
    }
    if (along != res.dims[axis])
      return bad(Error::InvalidArgument, "the inputs do not add up to output " + dimsText(res.dims));
    q->op = Op::Concat;
    q->requantize = false;
    break;
  }
  default:
    return bad(Error::NotSupported, "this runtime has no int8 implementation of it");
  }
  s.quant = std::move(q);
  *out = std::move(s);
  return Error::Ok;
}

Error runQuantizedStep(const Step &s, const std::vector<uint8_t *> &pointers,
                       pthreadpool_t pool) {
  const QuantStep &q = *s.quant;
  const void *a = pointers[s.in0];
  const void *b = s.in1 == ~0u ? nullptr : pointers[s.in1];
  void *y = pointers[s.out];
  const auto *x8 = static_cast<const int8_t *>(a);
  auto *y8 = static_cast<int8_t *>(y);
  xnn_status st = xnn_status_success;
  switch (q.op) {
  case Op::ToInt8:
    st = xnn_setup_convert_nc_f32_qs8(s.op, s.batch, static_cast<const float *>(a), y8, pool);
    break;
  case Op::ToFloat:
    st = xnn_setup_convert_nc_qs8_f32(s.op, s.batch, x8, static_cast<float *>(y), pool);
    break;
  case Op::ConvQs8:
    st = xnn_setup_convolution2d_nhwc_qs8(s.op, s.batch, s.height, s.width, x8, y8, pool);
    break;
  case Op::ConvQc8:
    st = xnn_setup_convolution2d_nhwc_qc8(s.op, s.batch, s.height, s.width, x8, y8, pool);
    break;
  case Op::FullyConnectedQs8:
    st = xnn_setup_fully_connected_nc_qs8(s.op, s.batch, x8, y8, pool);
    break;
  case Op::Add:
    st = xnn_setup_add_nd_qs8(s.op, s.rank0, s.shape0, s.rank1, s.shape1, x8,
                              static_cast<const int8_t *>(b), y8, pool);
    break;
  case Op::Subtract:
    st = xnn_setup_subtract_nd_qs8(s.op, s.rank0, s.shape0, s.rank1, s.shape1, x8,
                                   static_cast<const int8_t *>(b), y8, pool);
    break;
  case Op::Multiply:
    st = xnn_setup_multiply_nd_qs8(s.op, s.rank0, s.shape0, s.rank1, s.shape1, x8,
                                   static_cast<const int8_t *>(b), y8, pool);
    break;
  case Op::MaxPool:
    st = xnn_setup_max_pooling2d_nhwc_s8(s.op, s.batch, s.height, s.width, x8, y8, pool);
    break;
  case Op::Clamp:
    st = xnn_setup_clamp_nc_s8(s.op, s.batch, x8, y8, pool);
    break;
  case Op::Sigmoid:
    st = xnn_setup_sigmoid_nc_qs8(s.op, s.batch, x8, y8, pool);
    break;
  case Op::Tanh:
    st = xnn_setup_tanh_nc_qs8(s.op, s.batch, x8, y8, pool);
    break;
  case Op::Pad:
    st = xnn_setup_constant_pad_nd_x8(s.op, s.rank0, s.shape0, s.pre, s.post, a, y, pool);
    break;
  case Op::Requantize:
    requantizeInPlace(q, x8, y8, q.numel);
    return Error::Ok;
  case Op::AvgPool:
    avgPool(q, s, x8, y8);
    return Error::Ok;
  case Op::Transpose:
    transposeElements(x8, y8, s.rank0, s.shape0, s.perm);
    if (q.requantize)
      requantizeInPlace(q, y8, y8, q.numel);
    return Error::Ok;
  case Op::Copy:
    if (q.requantize)
      requantizeInPlace(q, x8, y8, q.numel);
    else if (y != a)
      std::memmove(y, a, q.numel);
    return Error::Ok;
  case Op::Slice:
    sliceBytes(q, s, static_cast<const uint8_t *>(a), static_cast<uint8_t *>(y));
    if (q.requantize)
      requantizeInPlace(q, y8, y8, q.numel);
    return Error::Ok;
  case Op::GlobalAvgLoop:
    globalAvgPool(q, s, x8, y8);
    return Error::Ok;
  case Op::BinaryLoop:
    binaryLoop(q, s, x8, static_cast<const int8_t *>(b), y8);
    return Error::Ok;
  case Op::ToDynamic:
    quantizeRows(q, static_cast<const float *>(a), y8);
    return Error::Ok;
  case Op::DynamicFullyConnected:
    dynamicFullyConnected(q, x8, static_cast<float *>(y));
    return Error::Ok;
  case Op::Concat: {
    auto *dst = static_cast<uint8_t *>(y);
    for (size_t o = 0; o < q.outer; ++o)
      for (size_t i = 0; i < q.inputs.size(); ++i) {
        std::memcpy(dst, pointers[q.inputs[i]] + o * q.chunk[i], q.chunk[i]);
        dst += q.chunk[i];
      }
    return Error::Ok;
  }
  }
  if (st != xnn_status_success)
    return Error::Internal;
  if (xnn_run_operator(s.op, pool) != xnn_status_success)
    return Error::Internal;
  if (q.op == Op::MaxPool && q.requantize)
    requantizeInPlace(q, y8, y8, q.numel);
  return Error::Ok;
}

} // namespace ptec::xnnpack
