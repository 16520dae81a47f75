//===- XnnExecute.cpp - running one XnnpackBackend handle -----------------===//
//
// execute(): bind this call's tensors, stage the inputs XNNPACK reads, then
// set up and run every step in order. Nothing is kept from one call to the
// next (the externals' pointers are rewritten every call); the handle's mutex
// keeps two calls from using the workspace at once.
//
//===----------------------------------------------------------------------===//

#include "backends/xnnpack/runtime/XnnDelegate.h"

#include <cstring>

namespace ptec::xnnpack {

using rt::Error;
namespace fb = fb_xnnpack;

namespace {

/// A tensor can stand for a graph value when it holds the same float32
/// elements in the same memory order: contiguous (any sizes) with the same
/// count, or channels-last 4-d whose NHWC sizes are the value's dims.
bool bindable(const rt::Tensor &t, const ValueInfo &v) {
  if (t.dtype() != rt::ScalarType::Float || static_cast<uint64_t>(t.numel()) != v.numel)
    return false;
  if (t.isContiguous())
    return true;
  if (t.dim() == 4 && t.isChannelsLast() && v.dims.size() == 4)
    return uint64_t(t.size(0)) == v.dims[0] && uint64_t(t.size(2)) == v.dims[1] &&
           uint64_t(t.size(3)) == v.dims[2] && uint64_t(t.size(1)) == v.dims[3];
  return false;
}

} // namespace

void transposeFloat32(const float *in, float *out, size_t rank, const size_t *inDims,
                      const uint32_t *perm) {
  // Walk the output in order; `stride[k]` is how far the input moves when
  // output index k grows by one.
  size_t inStride[kMaxDims], stride[kMaxDims], dims[kMaxDims], idx[kMaxDims] = {};
  size_t total = 1;
  for (size_t k = rank; k-- > 0;) {
    inStride[k] = total;
    total *= inDims[k];
  }
  for (size_t k = 0; k < rank; ++k) {
    dims[k] = inDims[perm[k]];
    stride[k] = inStride[perm[k]];
  }
  if (total == 0)
    return;
  const size_t last = rank - 1, n = dims[last], step = stride[last];
  size_t base = 0;
  for (size_t o = 0; o < total; o += n) {
    const float *src = in + base;
    for (size_t j = 0; j < n; ++j)
      out[o + j] = src[j * step];
    // Advance the outer indices (odometer over dims[0..last)).
    for (size_t k = last; k-- > 0;) {
      base += stride[k];
      if (++idx[k] < dims[k])
        break;
      base -= stride[k] * dims[k];
      idx[k] = 0;
    }
  }
}

Error XnnDelegate::execute(rt::Span<rt::EValue *> args) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Bind the externals of this call.
  for (size_t v = 0; v < plan_.values.size(); ++v) {
    const ValueInfo &info = plan_.values[v];
    if (!info.isInput() && !info.isOutput())
      continue;
    if (info.externalId >= args.size() || args[info.externalId] == nullptr ||
        !args[info.externalId]->isTensor())
      return Error::InvalidArgument;
    const rt::Tensor &t = args[info.externalId]->toTensor();
    if (!bindable(t, info) || (info.numel > 0 && t.data() == nullptr))
      return Error::InvalidArgument;
    uint8_t *data = static_cast<uint8_t *>(t.mutableData());
    if (info.isInput() && plan_.stagingOffset[v] >= 0) {
      uint8_t *staged = workspace_ + plan_.stagingOffset[v];
      std::memcpy(staged, data, info.bytes());
      data = staged;
    }
    pointers_[v] = data;
  }
  for (const Step &s : steps_) {
    if (s.packed != nullptr) {
      // A packed operator shared with other handles keeps its last setup.
      std::lock_guard<std::mutex> opLock(s.packed->mutex);
      PTEC_TRY(runStep(s));
    } else {
      PTEC_TRY(runStep(s));
    }
  }
  return Error::Ok;
}

Error XnnDelegate::runStep(const Step &s) {
  pthreadpool_t pool = backend_.pool();
  const void *a = pointers_[s.in0];
  const void *b = s.in1 == ~0u ? nullptr : pointers_[s.in1];
  void *y = pointers_[s.out];
  xnn_status st = xnn_status_success;
  switch (s.exec) {
  case Exec::Binary: {
    const float *x0 = static_cast<const float *>(a), *x1 = static_cast<const float *>(b);
    float *o = static_cast<float *>(y);
    switch (s.kind) {
    case fb::XNodeUnion::XNNAdd:
      st = xnn_setup_add_nd_f32(s.op, s.rank0, s.shape0, s.rank1, s.shape1, x0, x1, o, pool);
      break;
    case fb::XNodeUnion::XNNSubtract:
      st = xnn_setup_subtract_nd_f32(s.op, s.rank0, s.shape0, s.rank1, s.shape1, x0, x1, o, pool);
      break;
    case fb::XNodeUnion::XNNMultiply:
      st = xnn_setup_multiply_nd_f32(s.op, s.rank0, s.shape0, s.rank1, s.shape1, x0, x1, o, pool);
      break;
    case fb::XNodeUnion::XNNDiv:
      st = xnn_setup_divide_nd_f32(s.op, s.rank0, s.shape0, s.rank1, s.shape1, x0, x1, o, pool);
      break;
    case fb::XNodeUnion::XNNMinimum:
      st = xnn_setup_minimum_nd_f32(s.op, s.rank0, s.shape0, s.rank1, s.shape1, x0, x1, o, pool);
      break;
    default:
      st = xnn_setup_maximum_nd_f32(s.op, s.rank0, s.shape0, s.rank1, s.shape1, x0, x1, o, pool);
      break;
    }
    break;
  }
  case Exec::FullyConnected:
    st = xnn_setup_fully_connected_nc_f32(s.op, s.batch, static_cast<const float *>(a),
                                          static_cast<float *>(y), pool);
    break;
  case Exec::Convolution:
    st = xnn_setup_convolution2d_nhwc_f32(s.op, s.batch, s.height, s.width,
                                          static_cast<const float *>(a), static_cast<float *>(y),
                                          pool);
    break;
  case Exec::Deconvolution:
    st = xnn_setup_deconvolution2d_nhwc_f32(s.op, s.batch, s.height, s.width, s.adjHeight,
                                            s.adjWidth, static_cast<const float *>(a),
                                            static_cast<float *>(y), pool);
    break;
  case Exec::Pooling:
    st = s.kind == fb::XNodeUnion::XNNMaxPooling2d
             ? xnn_setup_max_pooling2d_nhwc_f32(s.op, s.batch, s.height, s.width,
                                                static_cast<const float *>(a),
                                                static_cast<float *>(y), pool)
             : xnn_setup_average_pooling2d_nhwc_f32(s.op, s.batch, s.height, s.width,
                                                    static_cast<const float *>(a),
                                                    static_cast<float *>(y), pool);
    break;
  case Exec::GlobalPooling:
    st = xnn_setup_global_average_pooling_nwc_f32(s.op, s.batch, s.width,
                                                  static_cast<const float *>(a),
                                                  static_cast<float *>(y), pool);
    break;
  case Exec::Unary: {
    const float *x = static_cast<const float *>(a);
    float *o = static_cast<float *>(y);
    switch (s.kind) {
    case fb::XNodeUnion::XNNClamp: st = xnn_setup_clamp_nc_f32(s.op, s.batch, x, o, pool); break;
    case fb::XNodeUnion::XNNSigmoid: st = xnn_setup_sigmoid_nc_f32(s.op, s.batch, x, o, pool); break;
    case fb::XNodeUnion::XNNHardswish:
      st = xnn_setup_hardswish_nc_f32(s.op, s.batch, x, o, pool);
      break;
    case fb::XNodeUnion::XNNAbs: st = xnn_setup_abs_nc_f32(s.op, s.batch, x, o, pool); break;
    case fb::XNodeUnion::XNNNegate: st = xnn_setup_negate_nc_f32(s.op, s.batch, x, o, pool); break;
    case fb::XNodeUnion::XNNSquare: st = xnn_setup_square_nc_f32(s.op, s.batch, x, o, pool); break;
    case fb::XNodeUnion::XNNSquareRoot:
      st = xnn_setup_square_root_nc_f32(s.op, s.batch, x, o, pool);
      break;
    case fb::XNodeUnion::XNNCeiling:
      st = xnn_setup_ceiling_nc_f32(s.op, s.batch, x, o, pool);
      break;
    case fb::XNodeUnion::XNNFloor: st = xnn_setup_floor_nc_f32(s.op, s.batch, x, o, pool); break;
    case fb::XNodeUnion::XNNLeakyReLU:
      st = xnn_setup_leaky_relu_nc_f32(s.op, s.batch, x, o, pool);
      break;
    default: st = xnn_setup_elu_nc_f32(s.op, s.batch, x, o, pool); break;
    }
    break;
  }
  case Exec::Softmax:
    st = xnn_setup_softmax_nc_f32(s.op, s.batch, static_cast<const float *>(a),
                                  static_cast<float *>(y), pool);
    break;
  case Exec::PReLU:
    st = xnn_setup_prelu_nc_f32(s.op, s.batch, static_cast<const float *>(a),
                                static_cast<float *>(y), pool);
    break;
  case Exec::Pad:
    st = xnn_setup_constant_pad_nd_x32(s.op, s.rank0, s.shape0, s.pre, s.post, a, y, pool);
    break;
  case Exec::Resize:
    st = xnn_setup_resize_bilinear2d_nhwc_f32(s.op, s.batch, s.height, s.width, s.outHeight,
                                              s.outWidth, static_cast<const float *>(a),
                                              static_cast<float *>(y), pool);
    break;
  case Exec::Transpose:
    transposeFloat32(static_cast<const float *>(a), static_cast<float *>(y), s.rank0, s.shape0,
                     s.perm);
    return Error::Ok;
  case Exec::Copy:
    if (y != a)
      std::memmove(y, a, s.bytes);
    return Error::Ok;
  }
  if (st != xnn_status_success)
    return Error::Internal;
  return xnn_run_operator(s.op, pool) == xnn_status_success ? Error::Ok : Error::Internal;
}

} // namespace ptec::xnnpack
