//===- XnnExecute.cpp - running one XnnpackBackend handle -----------------===//
//
// execute(): read this call's input sizes (within the blob's bound: when
// they differ from the current setup, carry them through the graph with
// XnnShapes.h and recompute every step's setup sizes), bind this call's
// tensors (resizing the outputs), stage the inputs XNNPACK reads, then set
// up and run every step in order. Only the current shapes are kept from one
// call to the next (the externals' pointers are rewritten every call); the
// handle's mutex keeps two calls from using the workspace at once.
//
//===----------------------------------------------------------------------===//

#include "backends/xnnpack/runtime/XnnDelegate.h"
#include "backends/xnnpack/runtime/XnnQuantized.h"

#include "backends/xnnpack/runtime/XnnOwnKernels.h"
#include "backends/xnnpack/runtime/XnnShapes.h"
#include "runtime/core/Half.h"

#include <algorithm>
#include <cstring>

namespace ptec::xnnpack {

using rt::Error;
namespace fb = fb_xnnpack;

namespace {

/// Whether tensor `t` can stand for external value `info`: its dtype, and a
/// contiguous or channels-last dim order (`*nhwc`: channels-last 4-d for a
/// 4-d value, whose sizes are then NCHW for the value's NHWC dims).
Error checkExternalTensor(const rt::Tensor &t, const ValueInfo &info, bool *nhwc,
                          std::string *why) {
  if (!externalDtypeMatches(t.dtype(), info)) {
    *why = info.quantized ? "is not an int8 tensor"
                          : info.half ? "is not a float16 tensor" : "is not a float32 tensor";
    return Error::InvalidArgument;
  }
  *nhwc = t.dim() == 4 && t.isChannelsLast() && info.dims.size() == 4;
  if (!t.isContiguous() && !*nhwc) {
    *why = "has a dim order other than contiguous or channels-last";
    return Error::InvalidArgument;
  }
  return Error::Ok;
}

/// The dims a call's tensor gives graph value `v` (bound `info.dims`): its
/// sizes, NHWC for a channels-last 4-d tensor, as upstream's runtime reshapes
/// the value to them. They must have the value's rank (a 0-d tensor stands
/// for [1]) and no dim above the bound (the workspace is planned there); a
/// tensor of another rank is refused (upstream would reshape the graph to
/// that rank, which this runtime does not model).
Error callDims(const rt::Tensor &t, const ValueInfo &info, Dims *out, std::string *why) {
  bool nhwc;
  PTEC_TRY(checkExternalTensor(t, info, &nhwc, why));
  Dims d;
  for (int k = 0; k < t.dim(); ++k)
    d.push_back(uint64_t(t.size(k)));
  if (nhwc)
    d = {d[0], d[2], d[3], d[1]};
  if (sameShape(d, info.dims)) {
    *out = info.dims;
    return Error::Ok;
  }
  if (d.size() != info.dims.size()) {
    *why = "has rank " + std::to_string(d.size()) + " (sizes " + dimsText(d) +
           "), the blob's value has rank " + std::to_string(info.dims.size()) + " " +
           dimsText(info.dims);
    return Error::InvalidArgument;
  }
  bool fits = true;
  for (size_t k = 0; fits && k < d.size(); ++k)
    fits = d[k] <= info.dims[k];
  if (!fits) {
    *why = "has sizes " + dimsText(d) + (nhwc ? " (NHWC)" : "") +
           ", not within the bound " + dimsText(info.dims) + " the blob was built for";
    return Error::InvalidArgument;
  }
  *out = d;
  return Error::Ok;
}

/// Bytes of value `info` at dims `d` (its element size times the count).
uint64_t bytesAt(const ValueInfo &info, const Dims &d) {
  return info.numel == 0 ? 0 : info.bytes() / info.numel * numelOf(d);
}

/// Resizes output tensor `t` to value dims `d` where its sizes say
/// otherwise (NCHW sizes for a channels-last 4-d tensor of an NHWC value),
/// as upstream's runtime does: the tensor must have the rank of the value
/// (its dim order has one entry per dim; upstream fails "Size needs to be
/// equal to the number of dimensions of the tensor"), and the resize
/// follows the program's shape dynamism (a STATIC tensor keeps its shape).
Error fitOutput(rt::Tensor &t, const ValueInfo &info, const Dims &d, std::string *why) {
  bool nhwc;
  PTEC_TRY(checkExternalTensor(t, info, &nhwc, why));
  std::vector<int64_t> want(d.begin(), d.end());
  if (nhwc)
    want = {want[0], want[3], want[1], want[2]};
  if (t.dim() != int(want.size())) {
    *why = "has rank " + std::to_string(t.dim()) + ", the blob's value has rank " +
           std::to_string(want.size()) + " " + dimsText(d);
    return Error::InvalidArgument;
  }
  const rt::Span<const int64_t> sizes(want.data(), want.size());
  if (const char *problem = t.resizeProblem(sizes)) {
    *why = "cannot take this call's result dims " + dimsText(d) + ": " + problem;
    return Error::InvalidArgument;
  }
  return t.resize(sizes);
}

} // namespace

void halfToFloat32(const void *in, float *out, uint64_t n) {
  const auto *h = static_cast<const uint8_t *>(in);
  for (uint64_t i = 0; i < n; ++i) {
    uint16_t bits;
    std::memcpy(&bits, h + 2 * i, 2);
    out[i] = rt::halfToFloat(bits);
  }
}

void float32ToHalf(const float *in, void *out, uint64_t n) {
  auto *h = static_cast<uint8_t *>(out);
  for (uint64_t i = 0; i < n; ++i) {
    const uint16_t bits = rt::floatToHalf(in[i]);
    std::memcpy(h + 2 * i, &bits, 2);
  }
}

void roundToHalf(float *data, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i)
    data[i] = rt::halfToFloat(rt::floatToHalf(data[i]));
}

Error XnnDelegate::execute(rt::Span<rt::EValue *> args, std::string *why) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto argument = [&](const ValueInfo &info, rt::Tensor **t) {
    if (info.externalId >= args.size() || args[info.externalId] == nullptr ||
        !args[info.externalId]->isTensor()) {
      *why = "delegate argument " + std::to_string(info.externalId) + " (value " +
             std::to_string(info.id) + ") is not a tensor";
      return Error::InvalidArgument;
    }
    *t = &args[info.externalId]->toTensor();
    return Error::Ok;
  };
  auto badArg = [&](const ValueInfo &info, const std::string &text) {
    *why = std::string(info.isInput() ? "input" : "output") + " value " +
           std::to_string(info.id) + " (delegate argument " + std::to_string(info.externalId) +
           ") " + text;
    return Error::InvalidArgument;
  };
  // This call's input dims; a change from the current setup carries them
  // through the graph (the workspace, planned at the bound, stays enough).
  bool changed = !shapesValid_;
  for (size_t v = 0; v < plan_.values.size(); ++v) {
    const ValueInfo &info = plan_.values[v];
    if (!info.isInput())
      continue;
    rt::Tensor *t = nullptr;
    PTEC_TRY(argument(info, &t));
    Dims d;
    std::string text;
    if (callDims(*t, info, &d, &text) != Error::Ok)
      return badArg(info, text);
    if (numelOf(d) > 0 && t->data() == nullptr)
      return badArg(info, "has no data");
    if (d != dims_[v]) {
      dims_[v] = std::move(d);
      changed = true;
    }
  }
  if (changed) {
    shapesValid_ = false;
    PTEC_TRY(propagateShapes(why));
    for (Step &s : steps_)
      PTEC_TRY(reshapeStep(s, why));
    shapesValid_ = true;
  }
  // Bind the externals of this call.
  for (size_t v = 0; v < plan_.values.size(); ++v) {
    const ValueInfo &info = plan_.values[v];
    if (!info.isInput() && !info.isOutput())
      continue;
    rt::Tensor *t = nullptr;
    PTEC_TRY(argument(info, &t));
    if (info.isOutput()) {
      std::string text;
      if (fitOutput(*t, info, dims_[v], &text) != Error::Ok)
        return badArg(info, text);
      if (numelOf(dims_[v]) > 0 && t->data() == nullptr)
        return badArg(info, "has no data");
    }
    uint8_t *data = static_cast<uint8_t *>(t->mutableData());
    if (info.isOutput() && info.half)
      continue; // computed in its workspace slot, converted below
    if (info.isInput() && plan_.stagingOffset[v] >= 0) {
      uint8_t *staged = workspace_ + plan_.stagingOffset[v];
      if (info.half)
        halfToFloat32(data, reinterpret_cast<float *>(staged), numelOf(dims_[v]));
      else
        std::memcpy(staged, data, bytesAt(info, dims_[v]));
      data = staged;
    }
    pointers_[v] = data;
  }
  for (const Step &s : steps_) {
    Error e = Error::Ok;
    if (s.packed != nullptr) {
      // A packed operator shared with other handles keeps its last setup.
      std::lock_guard<std::mutex> opLock(s.packed->mutex);
      e = runStep(s);
    } else {
      e = runStep(s);
    }
    if (e != Error::Ok) {
      *why = describeNode(blob_.graph->xnodes()->Get(s.node), s.node) + " failed to run";
      return e;
    }
    // Upstream stores a float16 result as float16 before the next node reads
    // it; rounding here keeps our float32 intermediates on the same values.
    for (uint32_t v : plan_.operands[s.node].outputs)
      if (plan_.values[v].half)
        roundToHalf(reinterpret_cast<float *>(pointers_[v]), numelOf(dims_[v]));
  }
  for (size_t v = 0; v < plan_.values.size(); ++v) {
    const ValueInfo &info = plan_.values[v];
    if (!info.isOutput() || !info.half)
      continue;
    rt::Tensor *t = nullptr;
    PTEC_TRY(argument(info, &t));
    float32ToHalf(reinterpret_cast<const float *>(pointers_[v]), t->mutableData(),
                  numelOf(dims_[v]));
  }
  return Error::Ok;
}

Error XnnDelegate::propagateShapes(std::string *why) {
  const auto *nodes = blob_.graph->xnodes();
  for (const Step &s : steps_) {
    const fb::XNode *node = nodes->Get(s.node);
    const NodeOperands &ops = plan_.operands[s.node];
    std::vector<const Dims *> ins;
    for (uint32_t v : ops.inputs)
      ins.push_back(&dims_[v]);
    const ValueInfo &out = plan_.values[s.out];
    Dims d;
    std::string text;
    if (Error e = inferOutputDims(node, ins, out.dims, &d, &text); e != Error::Ok) {
      *why = describeNode(node, s.node) + ": for this call's input sizes, " + text;
      return e;
    }
    if (numelOf(d) > out.numel) {
      *why = describeNode(node, s.node) + ": for this call's input sizes it writes " +
             dimsText(d) + ", more than the bound " + dimsText(out.dims) + " of value " +
             std::to_string(out.id);
      return Error::InvalidArgument;
    }
    dims_[s.out] = std::move(d);
  }
  return Error::Ok;
}

Error XnnDelegate::reshapeStep(Step &s, std::string *why) {
  const Dims in = xnnShape(dims_[s.in0]);
  const uint64_t numel = numelOf(in);
  auto bad = [&](const std::string &text) {
    *why = describeNode(blob_.graph->xnodes()->Get(s.node), s.node) + ": " + text;
    return Error::InvalidArgument;
  };
  switch (s.exec) {
  case Exec::Binary: {
    const Dims b = xnnShape(dims_[s.in1]);
    s.rank0 = in.size(), s.rank1 = b.size();
    std::copy(in.begin(), in.end(), s.shape0);
    std::copy(b.begin(), b.end(), s.shape1);
    break;
  }
  case Exec::FullyConnected:
    s.batch = numel / s.channels;
    break;
  case Exec::Convolution: case Exec::Deconvolution: case Exec::Pooling: case Exec::Resize:
    s.batch = in[0], s.height = in[1], s.width = in[2];
    break;
  case Exec::GlobalPooling:
    s.batch = in[0], s.width = in[1] * in[2];
    break;
  case Exec::Unary:
    s.batch = numel;
    break;
  case Exec::Softmax: case Exec::PReLU: {
    const uint64_t ch = in.back();
    if (ch != s.channels) {
      // The operator bakes its channel count: a new softmax (no weights) or
      // a refusal for PReLU (its slope has one value per channel).
      if (s.exec == Exec::PReLU || s.entry != nullptr || ch == 0)
        return bad("its last dim is " + std::to_string(ch) + " in this call, " +
                   std::to_string(s.channels) + " in the blob");
      xnn_operator_t op = nullptr;
      if (xnn_create_softmax_nc_f32(ch, ch, ch, 0, &op) != xnn_status_success)
        return bad("XNNPACK refused a softmax over " + std::to_string(ch) + " channels");
      xnn_delete_operator(s.op);
      s.op = op;
      s.channels = ch;
    }
    s.batch = numel / ch;
    break;
  }
  case Exec::Pad: case Exec::Transpose:
    s.rank0 = in.size();
    std::copy(in.begin(), in.end(), s.shape0);
    break;
  case Exec::Copy:
    s.bytes = bytesAt(plan_.values[s.in0], dims_[s.in0]);
    break;
  case Exec::Own:
    break;
  case Exec::Quantized: {
    std::string text;
    if (reshapeQuantizedStep(s, blob_.graph->xnodes()->Get(s.node), plan_, dims_, &text) !=
        Error::Ok)
      return bad("for this call's input sizes, " + text);
    break;
  }
  }
  return Error::Ok;
}

namespace {

using BinarySetup = decltype(&xnn_setup_add_nd_f32);
using RowSetup = decltype(&xnn_setup_clamp_nc_f32);

/// The setup call of a broadcasting binary operator (every one takes both
/// shapes, both inputs and the output).
BinarySetup binarySetup(fb::XNodeUnion kind) {
  switch (kind) {
  case fb::XNodeUnion::XNNAdd: return xnn_setup_add_nd_f32;
  case fb::XNodeUnion::XNNSubtract: return xnn_setup_subtract_nd_f32;
  case fb::XNodeUnion::XNNMultiply: return xnn_setup_multiply_nd_f32;
  case fb::XNodeUnion::XNNDiv: return xnn_setup_divide_nd_f32;
  case fb::XNodeUnion::XNNMinimum: return xnn_setup_minimum_nd_f32;
  default: return xnn_setup_maximum_nd_f32;
  }
}

/// The setup call of an operator over rows of channels (unary, softmax,
/// PReLU): each takes the batch, one input and the output.
RowSetup rowSetup(Exec exec, fb::XNodeUnion kind) {
  if (exec == Exec::Softmax)
    return xnn_setup_softmax_nc_f32;
  if (exec == Exec::PReLU)
    return xnn_setup_prelu_nc_f32;
  switch (kind) {
  case fb::XNodeUnion::XNNClamp: return xnn_setup_clamp_nc_f32;
  case fb::XNodeUnion::XNNSigmoid: return xnn_setup_sigmoid_nc_f32;
  case fb::XNodeUnion::XNNHardswish: return xnn_setup_hardswish_nc_f32;
  case fb::XNodeUnion::XNNAbs: return xnn_setup_abs_nc_f32;
  case fb::XNodeUnion::XNNNegate: return xnn_setup_negate_nc_f32;
  case fb::XNodeUnion::XNNSquare: return xnn_setup_square_nc_f32;
  case fb::XNodeUnion::XNNSquareRoot: return xnn_setup_square_root_nc_f32;
  case fb::XNodeUnion::XNNCeiling: return xnn_setup_ceiling_nc_f32;
  case fb::XNodeUnion::XNNFloor: return xnn_setup_floor_nc_f32;
  case fb::XNodeUnion::XNNLeakyReLU: return xnn_setup_leaky_relu_nc_f32;
  default: return xnn_setup_elu_nc_f32;
  }
}

} // namespace

Error XnnDelegate::runStep(const Step &s) {
  pthreadpool_t pool = backend_.pool();
  const void *a = pointers_[s.in0];
  const void *b = s.in1 == ~0u ? nullptr : pointers_[s.in1];
  void *y = pointers_[s.out];
  xnn_status st = xnn_status_success;
  switch (s.exec) {
  case Exec::Binary:
    st = binarySetup(s.kind)(s.op, s.rank0, s.shape0, s.rank1, s.shape1,
                             static_cast<const float *>(a), static_cast<const float *>(b),
                             static_cast<float *>(y), pool);
    break;
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
  case Exec::Unary:
  case Exec::Softmax:
  case Exec::PReLU:
    st = rowSetup(s.exec, s.kind)(s.op, s.batch, static_cast<const float *>(a),
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
    transposeElements(static_cast<const float *>(a), static_cast<float *>(y), s.rank0, s.shape0,
                      s.perm);
    return Error::Ok;
  case Exec::Copy:
    if (y != a)
      std::memmove(y, a, s.bytes);
    return Error::Ok;
  case Exec::Quantized:
    return runQuantizedStep(s, pointers_, pool);
  case Exec::Own: {
    const std::vector<uint32_t> &ins = plan_.operands[s.node].inputs;
    OwnOperand in[8];
    if (ins.size() > 8)
      return Error::Internal;
    for (size_t i = 0; i < ins.size(); ++i)
      in[i] = {static_cast<const float *>(static_cast<const void *>(pointers_[ins[i]])),
               &dims_[ins[i]]};
    return runOwnKernel(blob_.graph->xnodes()->Get(s.node), in, ins.size(),
                        static_cast<float *>(y), dims_[s.out]);
  }
  }
  if (st != xnn_status_success)
    return Error::Internal;
  return xnn_run_operator(s.op, pool) == xnn_status_success ? Error::Ok : Error::Internal;
}

} // namespace ptec::xnnpack
