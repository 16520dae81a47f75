//===- XnnQuant.cpp - quantized values of XnnpackBackend blobs ------------===//

#include "backends/xnnpack/format/XnnQuant.h"

#include <limits>

namespace ptec::xnnpack {

using rt::Error;
namespace fb = fb_xnnpack;
using DT = fb::XNNDatatype;

namespace {

Error fail(std::string *why, Error e, std::string text) {
  if (why)
    *why = std::move(text);
  return e;
}

/// XNNPACK defines quantized values with positive normal scales only (a
/// subnormal one is xnn_status_invalid_parameter, here and upstream).
bool goodScale(float s) { return std::isnormal(s) && s > 0.0f; }

} // namespace

uint32_t datatypeBytes(DT dtype) {
  switch (dtype) {
  case DT::xnn_datatype_qint8: case DT::xnn_datatype_qcint8: case DT::xnn_datatype_qdint8:
    return 1;
  case DT::xnn_datatype_fp32: case DT::xnn_datatype_qint32: case DT::xnn_datatype_qcint32:
    return 4;
  default:
    return 0;
  }
}

bool isQuantizedDatatype(DT dtype) {
  return dtype == DT::xnn_datatype_qint8 || dtype == DT::xnn_datatype_qcint8 ||
         dtype == DT::xnn_datatype_qint32 || dtype == DT::xnn_datatype_qcint32;
}

Error readQuantizedValue(const fb::XNNQuantizedTensorValue *q, ValueInfo *info,
                         std::string *why) {
  const fb::XNNTensorValue *t = q ? q->tensor_value() : nullptr;
  if (t == nullptr)
    return fail(why, Error::InvalidArgument, "a quantized value has no tensor");
  const std::string name = "value " + std::to_string(t->id_out());
  info->dtype = t->datatype();
  info->quantized = true;
  if (info->dtype == DT::xnn_datatype_qdint8 &&
      q->quant_params_type() == fb::XNNQuantParams::PerTokenDynamicQuant) {
    // Rows of the last num_nonbatch_dims dims, each quantized per call.
    const int32_t nonBatch = q->quant_params_as_PerTokenDynamicQuant()->num_nonbatch_dims();
    const uint32_t rank = t->dims() ? t->dims()->size() : 0;
    if (nonBatch < 1 || uint32_t(nonBatch) > rank)
      return fail(why, Error::InvalidArgument,
                  name + ": num_nonbatch_dims " + std::to_string(nonBatch) +
                      " does not fit its " + std::to_string(rank) + " dims");
    uint64_t rows = 1;
    for (uint32_t k = 0; k + uint32_t(nonBatch) < rank; ++k)
      rows *= t->dims()->Get(k);
    info->elementSize = 1;
    info->dynamicQuant = true;
    info->dynamicRows = rows;
    info->extraBytes = rows * 8;
    return Error::Ok;
  }
  if (!isQuantizedDatatype(info->dtype))
    return fail(why, Error::NotSupported,
                name + " is quantized with datatype " +
                    std::string(fb::EnumNameXNNDatatype(info->dtype)) +
                    "; this backend runs qint8, qcint8, qint32 and qcint32");
  info->elementSize = datatypeBytes(info->dtype);
  const bool isInt8 = info->elementSize == 1;
  const bool channelwise =
      info->dtype == DT::xnn_datatype_qcint8 || info->dtype == DT::xnn_datatype_qcint32;
  switch (q->quant_params_type()) {
  case fb::XNNQuantParams::PerTensorQuant: {
    const fb::PerTensorQuant *p = q->quant_params_as_PerTensorQuant();
    if (channelwise)
      return fail(why, Error::InvalidArgument,
                  name + " has a per-channel datatype but per-tensor parameters");
    if (!goodScale(p->scale()))
      return fail(why, Error::InvalidArgument, name + " has scale " +
                                                   std::to_string(p->scale()) +
                                                   " (must be a positive normal float)");
    if (isInt8 && (p->zero_point() < -128 || p->zero_point() > 127))
      return fail(why, Error::InvalidArgument,
                  name + " has int8 zero point " + std::to_string(p->zero_point()));
    info->scale = p->scale();
    info->zeroPoint = p->zero_point();
    return Error::Ok;
  }
  case fb::XNNQuantParams::PerChannelQuant: {
    const fb::PerChannelQuant *p = q->quant_params_as_PerChannelQuant();
    if (!channelwise)
      return fail(why, Error::InvalidArgument,
                  name + " has a per-tensor datatype but per-channel parameters");
    const int32_t dim = p->channel_dim();
    if (dim < 0 || t->dims() == nullptr || uint32_t(dim) >= t->dims()->size())
      return fail(why, Error::InvalidArgument,
                  name + ": channel_dim " + std::to_string(dim) + " is not one of its dims");
    const uint32_t channels = t->dims()->Get(uint32_t(dim));
    info->channelDim = dim;
    if (p->scale() != nullptr && p->scale()->size() > 0) {
      if (p->scale()->size() != channels)
        return fail(why, Error::InvalidArgument,
                    name + " has " + std::to_string(p->scale()->size()) + " scales for " +
                        std::to_string(channels) + " channels");
      info->scales.assign(p->scale()->begin(), p->scale()->end());
      for (float s : info->scales)
        if (!goodScale(s))
          return fail(why, Error::InvalidArgument,
                      name + " has a per-channel scale that is not a positive normal float");
    } else if (p->scale_buffer_idx() != 0) {
      // Scales in the constant data; the runtime resolves them at init.
      if (p->num_scales() != channels)
        return fail(why, Error::InvalidArgument,
                    name + " has " + std::to_string(p->num_scales()) + " scales for " +
                        std::to_string(channels) + " channels");
      info->scaleBufferIndex = p->scale_buffer_idx();
    } else {
      return fail(why, Error::InvalidArgument, name + " has no per-channel scales");
    }
    return Error::Ok;
  }
  default:
    return fail(why, Error::NotSupported,
                name + " uses " +
                    std::string(fb::EnumNameXNNQuantParams(q->quant_params_type())) +
                    " quantization, which this backend does not run");
  }
}

void quantizedBounds(float lo, float hi, float scale, int32_t zeroPoint, int8_t *qlo,
                     int8_t *qhi) {
  *qlo = lo == -std::numeric_limits<float>::infinity() ? int8_t(-128)
                                                        : quantizeS8(lo, scale, zeroPoint);
  *qhi = hi == std::numeric_limits<float>::infinity() ? int8_t(127)
                                                       : quantizeS8(hi, scale, zeroPoint);
}

} // namespace ptec::xnnpack
