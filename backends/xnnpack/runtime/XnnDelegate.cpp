//===- XnnDelegate.cpp - building one XnnpackBackend handle ---------------===//
//
// Every node is checked against its operands' shapes before an operator is
// created: XNNPACK writes what its own shape arithmetic says, so a blob whose
// declared output is smaller than that would otherwise overflow.
//
//===----------------------------------------------------------------------===//

#include "backends/xnnpack/runtime/XnnDelegate.h"
#include "backends/xnnpack/runtime/XnnQuantized.h"

#include "backends/xnnpack/format/XnnCapability.h"
#include "backends/xnnpack/runtime/XnnShapes.h"
#include "runtime/backend/cache/ScopeGuard.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <new>

namespace ptec::xnnpack {

using rt::Error;
using rt::Result;
namespace fb = fb_xnnpack;
using Kind = fb::XNodeUnion;

namespace {

constexpr uint32_t kFlagTransposeWeights = XNN_FLAG_TRANSPOSE_WEIGHTS;     // 1
constexpr uint32_t kFlagSamePadding = XNN_FLAG_TENSORFLOW_SAME_PADDING;    // 4
constexpr uint32_t kFlagReshape2d = XNN_FLAG_TENSORFLOW_RESHAPE_2D;        // 4

const char *statusName(xnn_status s) {
  switch (s) {
  case xnn_status_success: return "success";
  case xnn_status_uninitialized: return "uninitialized";
  case xnn_status_invalid_parameter: return "invalid parameter";
  case xnn_status_invalid_state: return "invalid state";
  case xnn_status_unsupported_parameter: return "unsupported parameter";
  case xnn_status_unsupported_hardware: return "unsupported hardware";
  case xnn_status_out_of_memory: return "out of memory";
  }
  return "unknown status";
}

struct MinMax {
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();
};

MinMax minMaxOf(const fb::XNode *n) {
  MinMax m;
  if (const fb::OutputMinMax *mm = n->output_min_max()) {
    m.lo = mm->output_min();
    m.hi = mm->output_max();
  }
  return m;
}


void putU64(std::vector<uint64_t> &key, uint64_t v) { key.push_back(v); }
void putF32(std::vector<uint64_t> &key, float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  key.push_back(bits);
}

} // namespace

std::string describeNode(const fb::XNode *n, uint32_t index) {
  return "node " + std::to_string(index) + " (" + nodeKindName(n->xnode_union_type()) +
         ", debug handle " + std::to_string(n->debug_handle()) + ")";
}

PackedOperator::~PackedOperator() {
  if (op != nullptr) {
    xnn_delete_operator(op);
    if (stats)
      stats->packedLive.fetch_sub(1);
  }
}

Result<XnnDelegate *> XnnDelegate::build(XnnpackBackend &backend, rt::BackendInitContext &ctx,
                                         rt::ProcessedBlob blob, std::string *why) {
  auto *d = new (std::nothrow) XnnDelegate(backend);
  if (d == nullptr)
    return Error::MemoryAllocationFailed;
  // Every failure below deletes the partial handle, which releases what it
  // holds (packed operators, owned operators, buffers).
  auto guard = rt::cache::makeScopeGuard([&] { delete d; });
  PTEC_TRY(parseBlob(blob.data, blob.size, &d->blob_, why));
  PTEC_TRY(planGraph(d->blob_.graph, &d->plan_, why));
  d->pointers_.assign(d->plan_.values.size(), nullptr);
  for (const ValueInfo &info : d->plan_.values)
    d->dims_.push_back(info.dims);

  // Constants: blob constant data, named data, or the old in-graph buffers.
  NamedDataLookup named;
  if (ctx.namedData != nullptr)
    named = [&ctx](const char *key, const uint8_t **data, size_t *size) {
      Result<rt::Span<const uint8_t>> r = ctx.namedData->get(key);
      if (!r.ok())
        return false;
      *data = r->data();
      *size = r->size();
      return true;
    };
  for (size_t v = 0; v < d->plan_.values.size(); ++v) {
    const ValueInfo &info = d->plan_.values[v];
    if (!info.isConstant())
      continue;
    ConstantBytes c;
    PTEC_TRY(constantBytes(d->blob_, info.constantIndex, named, &c, why));
    if (c.size < info.storedBytes()) {
      *why = "value " + std::to_string(info.id) + " " + dimsText(info.dims) + " needs " +
             std::to_string(info.storedBytes()) + " bytes, its constant has " +
             std::to_string(c.size);
      return Error::InvalidArgument;
    }
    d->pointers_[v] = const_cast<uint8_t *>(c.data);
    if (info.half) {
      // Computed in float32 (ValueInfo::half): widen once, padded since
      // XNNPACK may read past it.
      std::unique_ptr<uint8_t[]> wide(new (std::nothrow)
                                          uint8_t[info.bytes() + kExtraReadBytes]());
      if (!wide)
        return Error::MemoryAllocationFailed;
      halfToFloat32(c.data, reinterpret_cast<float *>(wide.get()), info.numel);
      d->pointers_[v] = wide.get();
      d->ownedConstants_.push_back(std::move(wide));
    }
  }

  // Workspace: the delegate's planned scratch when the program gives enough,
  // otherwise a buffer of our own (upstream runtimes never pass scratch).
  const uint64_t need = d->plan_.workspaceBytes;
  if (need > 0) {
    if (ctx.scratch.size() >= need) {
      d->workspace_ = ctx.scratch.data();
      d->plannedScratch_ = true;
    } else {
      d->ownWorkspace_.reset(new (std::nothrow) uint8_t[need + kWorkspaceAlignment]);
      if (!d->ownWorkspace_)
        return Error::MemoryAllocationFailed;
      uintptr_t base = reinterpret_cast<uintptr_t>(d->ownWorkspace_.get());
      base = (base + kWorkspaceAlignment - 1) & ~uintptr_t(kWorkspaceAlignment - 1);
      d->workspace_ = reinterpret_cast<uint8_t *>(base);
    }
  }
  for (size_t v = 0; v < d->plan_.values.size(); ++v) {
    if (d->plan_.workspaceOffset[v] >= 0)
      d->pointers_[v] = d->workspace_ + d->plan_.workspaceOffset[v];
  }

  PTEC_TRY(resolveChannelScales(d->blob_, named, &d->plan_, why));
  PTEC_TRY(d->createSteps(ctx, why));
  PTEC_TRY(d->keepGraph(blob));
  guard.dismiss();
  return d;
}

XnnDelegate::~XnnDelegate() {
  for (Step &s : steps_) {
    if (s.entry != nullptr) {
      (void)backend_.packedCache().release(s.entry);
    } else if (s.op != nullptr) {
      xnn_delete_operator(s.op);
      if (s.exec == Exec::FullyConnected || s.exec == Exec::Convolution ||
          s.exec == Exec::Deconvolution)
        backend_.stats().packedLive.fetch_sub(1);
    }
  }
}

Error XnnDelegate::keepGraph(rt::ProcessedBlob blob) {
  // Upstream's runtimes free the processed blob after init; execute reads
  // node fields (own kernels, shape functions), so it reads a copy of the
  // flatbuffer (constants stay where they are: packed, or copied below).
  const auto *bytes = static_cast<const uint8_t *>(blob.data);
  uint64_t offset = 0, size = blob.size;
  if (blob_.hasHeader) {
    uint32_t o = 0, n = 0;
    std::memcpy(&o, bytes + 10, 4);
    std::memcpy(&n, bytes + 14, 4);
    offset = o, size = n;
  }
  graphCopy_.reset(new (std::nothrow) uint8_t[size]);
  if (!graphCopy_)
    return Error::MemoryAllocationFailed;
  std::memcpy(graphCopy_.get(), bytes + offset, size);
  blob_.graph = fb::GetXNNGraph(graphCopy_.get());
  blob_.constantData = nullptr;
  blob_.constantDataSize = 0;
  return Error::Ok;
}

Error XnnDelegate::createSteps(rt::BackendInitContext &ctx, std::string *why) {
  const auto *nodes = blob_.graph->xnodes();
  const uint32_t n = nodes ? nodes->size() : 0;
  steps_.reserve(n);
  for (uint32_t i = 0; i < n; ++i)
    PTEC_TRY(createStep(ctx, i, why));
  // A constant that a step reads while running (not one it packs) gets a
  // padded copy: XNNPACK may read 16 bytes past it, and the blob may be
  // gone after init.
  std::vector<bool> copied(plan_.values.size(), false);
  for (const Step &s : steps_)
    for (uint32_t v : s.exec == Exec::Own ? plan_.operands[s.node].inputs
                                          : std::vector<uint32_t>{s.in0, s.in1}) {
      if (v == ~0u || copied[v] || !plan_.values[v].isConstant())
        continue;
      const uint64_t bytes = plan_.values[v].bytes();
      std::unique_ptr<uint8_t[]> copy(new (std::nothrow) uint8_t[bytes + kExtraReadBytes]());
      if (!copy)
        return Error::MemoryAllocationFailed;
      std::memcpy(copy.get(), pointers_[v], bytes);
      pointers_[v] = copy.get();
      ownedConstants_.push_back(std::move(copy));
      copied[v] = true;
    }
  return Error::Ok;
}

const char *setPadDims(const fb::XNNStaticConstantPad *p, const std::vector<uint64_t> &in, Step &s,
                       std::vector<uint64_t> *out) {
  const size_t rank = in.size();
  if (!p->pre_paddings() || !p->post_paddings() || p->pre_paddings()->size() != rank ||
      p->post_paddings()->size() != rank || rank == 0)
    return "needs one pre and post padding per input dim";
  out->assign(rank, 0);
  s.rank0 = rank;
  for (size_t k = 0; k < rank; ++k) {
    s.shape0[k] = in[k];
    s.pre[k] = p->pre_paddings()->Get(uint32_t(k));
    s.post[k] = p->post_paddings()->Get(uint32_t(k));
    (*out)[k] = in[k] + s.pre[k] + s.post[k];
  }
  return nullptr;
}

const char *setTransposeDims(const fb::XNNStaticTranspose *t, const std::vector<uint64_t> &in,
                             Step &s, std::vector<uint64_t> *out) {
  const size_t rank = in.size();
  if (!t->perm() || t->perm()->size() != rank || rank == 0)
    return "perm must list one entry per input dim";
  std::vector<bool> seen(rank, false);
  out->assign(rank, 0);
  s.rank0 = rank;
  for (size_t k = 0; k < rank; ++k) {
    const uint32_t p = t->perm()->Get(uint32_t(k));
    if (p >= rank || seen[p])
      return "perm is not a permutation";
    seen[p] = true;
    s.perm[k] = p;
    s.shape0[k] = in[k];
    (*out)[k] = in[p];
  }
  return nullptr;
}

Error XnnDelegate::createStep(rt::BackendInitContext &ctx, uint32_t index, std::string *why) {
  const fb::XNode *node = blob_.graph->xnodes()->Get(index);
  const NodeOperands &ops = plan_.operands[index];
  const std::vector<ValueInfo> &V = plan_.values;
  const Kind kind = node->xnode_union_type();
  auto bad = [&](Error e, const std::string &text) {
    *why = describeNode(node, index) + ": " + text;
    return e;
  };
  // A node with int8 values (XnnQuantized.h).
  if (touchesQuantized(plan_, ops)) {
    Step q;
    PTEC_TRY(createQuantizedStep(node, index, plan_, pointers_, backend_, ctx.runtimeAllocator,
                                 &q, why));
    steps_.push_back(std::move(q));
    return Error::Ok;
  }
  // What runs where, and on which ranks: the table the partitioner asks
  // too. A 0-d value is computed as [1].
  const NodeCapability &cap = nodeCapability(kind);
  if (cap.runsOn == RunsOn::Unsupported)
    return bad(Error::NotSupported, cap.why);
  for (const std::vector<uint32_t> *list : {&ops.inputs, &ops.outputs})
    for (uint32_t v : *list) {
      const ValueInfo &info = V[v];
      const bool f32 = info.dtype == fb::XNNDatatype::xnn_datatype_fp32;
      if ((f32 && !capabilityTakes(cap, info.declaredDtype(), info.dims.size())) ||
          info.dims.size() > cap.maxRank)
        return bad(Error::NotSupported, "value " + std::to_string(info.id) + " " +
                                            dimsText(info.dims) + " has a rank this node kind " +
                                            "does not take (at most " +
                                            std::to_string(cap.maxRank) + (cap.zeroDim ? "" : ", not 0-d") + ")");
    }

  Step s;
  s.kind = kind;
  s.node = index;
  s.in0 = ops.inputs.empty() ? ~0u : ops.inputs[0];
  s.out = ops.outputs.empty() ? ~0u : ops.outputs[0];
  const MinMax mm = minMaxOf(node);
  xnn_status status = xnn_status_success;
  auto created = [&](xnn_status st) {
    if (st == xnn_status_success)
      return Error::Ok;
    return bad(Error::NotSupported, std::string("XNNPACK refused the operator (") +
                                        statusName(st) + ")");
  };
  auto needRank = [&](const ValueInfo &v, size_t rank, const char *what) {
    if (v.dims.size() == rank)
      return Error::Ok;
    return bad(Error::InvalidArgument, std::string(what) + " " + dimsText(v.dims) +
                                           " must have " + std::to_string(rank) + " dims");
  };
  auto sameNumel = [&](const ValueInfo &a, const ValueInfo &b) {
    if (a.numel == b.numel)
      return Error::Ok;
    return bad(Error::InvalidArgument, "input " + dimsText(a.dims) + " and output " +
                                           dimsText(b.dims) + " differ in size");
  };
  auto outIs = [&](const std::vector<uint64_t> &want) {
    if (sameShape(V[s.out].dims, want))
      return Error::Ok;
    return bad(Error::InvalidArgument, "the output is declared " + dimsText(V[s.out].dims) +
                                           ", the operator produces " + dimsText(want));
  };
  auto constantOf = [&](uint32_t v) -> const float * {
    return V[v].isConstant() ? reinterpret_cast<const float *>(pointers_[v]) : nullptr;
  };
  // The optional bias (a third input): a constant of `n` elements.
  auto constantBias = [&](uint64_t n, const float **bias) {
    if (ops.inputs.size() <= 2)
      return Error::Ok;
    *bias = constantOf(ops.inputs[2]);
    if (*bias == nullptr || V[ops.inputs[2]].numel != n)
      return bad(Error::NotSupported, "the bias must be a constant of " + std::to_string(n) +
                                          " elements");
    return Error::Ok;
  };
  // A weight-bearing operator: through the cache (keyed by parameters and
  // weight bytes) or owned by this handle when the cache is off.
  auto packed = [&](std::vector<uint64_t> key, const float *w, uint64_t wBytes,
                    const float *b, uint64_t bBytes, auto create) -> Error {
    XnnpackStats &st = backend_.stats();
    if (!backend_.weightCache()) {
      PTEC_TRY(created(create(&s.op)));
      st.packs.fetch_add(1);
      st.packedLive.fetch_add(1);
      st.weightBytesPacked.fetch_add(wBytes + bBytes);
      return Error::Ok;
    }
    const Error e = acquirePackedOperator(backend_, ctx.runtimeAllocator, 0x58e1, key, w, wBytes,
                                          b, bBytes, create, s, &status);
    return e == Error::NotSupported ? created(status) : e;
  };

  switch (kind) {
  case Kind::XNNAdd: case Kind::XNNSubtract: case Kind::XNNMultiply: case Kind::XNNDiv:
  case Kind::XNNMinimum: case Kind::XNNMaximum: {
    s.in1 = ops.inputs[1];
    // 0-d operands are [1] to XNNPACK.
    const Dims a = xnnShape(V[ops.inputs[0]].dims), b = xnnShape(V[ops.inputs[1]].dims);
    Dims outDims;
    std::string text;
    if (Error e = inferOutputDims(node, {&a, &b}, V[s.out].dims, &outDims, &text); e != Error::Ok)
      return bad(e, text);
    PTEC_TRY(outIs(outDims));
    s.exec = Exec::Binary;
    s.rank0 = a.size();
    s.rank1 = b.size();
    for (size_t k = 0; k < s.rank0; ++k)
      s.shape0[k] = a[k];
    for (size_t k = 0; k < s.rank1; ++k)
      s.shape1[k] = b[k];
    switch (kind) {
    case Kind::XNNAdd: status = xnn_create_add_nd_f32(mm.lo, mm.hi, 0, &s.op); break;
    case Kind::XNNSubtract: status = xnn_create_subtract_nd_f32(mm.lo, mm.hi, 0, &s.op); break;
    case Kind::XNNMultiply: status = xnn_create_multiply_nd_f32(mm.lo, mm.hi, 0, &s.op); break;
    case Kind::XNNDiv: status = xnn_create_divide_nd_f32(mm.lo, mm.hi, 0, &s.op); break;
    case Kind::XNNMinimum: status = xnn_create_minimum_nd_f32(0, &s.op); break;
    default: status = xnn_create_maximum_nd_f32(0, &s.op); break;
    }
    PTEC_TRY(created(status));
    break;
  }
  case Kind::XNNFullyConnected: {
    const auto *b = static_cast<const fb::XNNFullyConnected *>(node->xnode_union());
    const ValueInfo &in = V[s.in0], &w = V[ops.inputs[1]];
    if ((b->flags() & ~(kFlagTransposeWeights | kFlagReshape2d)) != 0)
      return bad(Error::NotSupported, "flags " + std::to_string(b->flags()) + " are not supported");
    const float *wData = constantOf(ops.inputs[1]);
    if (wData == nullptr || w.dims.size() != 2)
      return bad(Error::NotSupported, "the filter must be a constant 2-d tensor (dynamic "
                                      "weights are not supported)");
    const bool transposed = (b->flags() & kFlagTransposeWeights) != 0;
    const uint64_t outC = transposed ? w.dims[1] : w.dims[0];
    const uint64_t inC = transposed ? w.dims[0] : w.dims[1];
    const float *bias = nullptr;
    PTEC_TRY(constantBias(outC, &bias));
    if (inC == 0 || outC == 0 || in.numel % inC != 0)
      return bad(Error::InvalidArgument, "input " + dimsText(in.dims) +
                                             " does not end in the filter's " +
                                             std::to_string(inC) + " input channels");
    s.exec = Exec::FullyConnected;
    s.channels = inC;
    s.batch = in.numel / inC;
    if (V[s.out].numel != s.batch * outC)
      return bad(Error::InvalidArgument, "the output " + dimsText(V[s.out].dims) + " is not " +
                                             std::to_string(s.batch) + " x " +
                                             std::to_string(outC));
    std::vector<uint64_t> key{uint64_t(kind), inC, outC, b->flags() & kFlagTransposeWeights};
    putF32(key, mm.lo), putF32(key, mm.hi), putU64(key, bias != nullptr);
    const uint32_t opFlags = b->flags() & kFlagTransposeWeights;
    PTEC_TRY(packed(key, wData, w.bytes(), bias, bias ? outC * 4 : 0, [&](xnn_operator_t *op) {
      return xnn_create_fully_connected_nc_f32(inC, outC, inC, outC, wData, bias, mm.lo, mm.hi,
                                               opFlags, op);
    }));
    break;
  }
  case Kind::XNNConv2d: case Kind::XNNDepthwiseConv2d: case Kind::XNNConvTranspose2d: {
    const auto *c = static_cast<const fb::_XNNNodeConv *>(node->xnode_union());
    const ValueInfo &in = V[s.in0], &w = V[ops.inputs[1]];
    PTEC_TRY(needRank(in, 4, "input"));
    const bool depthwise = kind == Kind::XNNDepthwiseConv2d;
    const bool deconv = kind == Kind::XNNConvTranspose2d;
    const uint32_t allowed = deconv ? 0u : kFlagSamePadding;
    if ((c->flags() & ~allowed) != 0)
      return bad(Error::NotSupported, "flags " + std::to_string(c->flags()) + " are not supported");
    ConvChannels ch;
    if (std::string wrong = convChannels(c, depthwise, in.dims, &ch); !wrong.empty())
      return bad(Error::InvalidArgument, wrong);
    const uint64_t groups = ch.groups, gic = ch.gic, goc = ch.goc, mult = ch.mult, inC = ch.inC,
                   outC = ch.outC;
    const float *wData = constantOf(ops.inputs[1]);
    const uint64_t wNumel = ch.filterNumel;
    if (wData == nullptr || w.numel != wNumel)
      return bad(Error::NotSupported, "the filter must be a constant of " +
                                          std::to_string(wNumel) + " elements");
    const float *bias = nullptr;
    PTEC_TRY(constantBias(outC, &bias));
    uint64_t oh = 0, ow = 0;
    if (deconv) {
      if (!deconvOut(c, in.dims, &oh, &ow))
        return bad(Error::InvalidArgument, "the kernel and padding do not fit the input");
    } else if (!convWindowOut(c, in.dims, &oh, &ow)) {
      return bad(Error::InvalidArgument, "the kernel does not fit the padded input " +
                                             dimsText(in.dims));
    }
    PTEC_TRY(outIs({in.dims[0], oh, ow, outC}));
    s.batch = in.dims[0], s.height = in.dims[1], s.width = in.dims[2];
    s.adjHeight = c->adjustment_height(), s.adjWidth = c->adjustment_width();
    s.exec = deconv ? Exec::Deconvolution : Exec::Convolution;
    std::vector<uint64_t> key{uint64_t(kind), c->padding_top(), c->padding_right(),
                              c->padding_bottom(), c->padding_left(), c->kernel_height(),
                              c->kernel_width(), c->subsampling_height(), c->subsampling_width(),
                              c->dilation_height(), c->dilation_width(), groups, gic, goc,
                              c->flags(), bias != nullptr};
    putF32(key, mm.lo), putF32(key, mm.hi);
    PTEC_TRY(packed(key, wData, w.bytes(), bias, bias ? outC * 4 : 0, [&](xnn_operator_t *op) {
      const uint32_t dh = std::max(1u, c->dilation_height()), dw = std::max(1u, c->dilation_width());
      if (deconv)
        return xnn_create_deconvolution2d_nhwc_f32(
            c->padding_top(), c->padding_right(), c->padding_bottom(), c->padding_left(),
            c->kernel_height(), c->kernel_width(), c->subsampling_height(),
            c->subsampling_width(), dh, dw, uint32_t(groups), gic, goc, inC, outC, wData, bias,
            mm.lo, mm.hi, 0, op);
      if (depthwise)
        return xnn_create_convolution2d_nhwc_f32(
            c->padding_top(), c->padding_right(), c->padding_bottom(), c->padding_left(),
            c->kernel_height(), c->kernel_width(), c->subsampling_height(),
            c->subsampling_width(), dh, dw, uint32_t(groups), 1, mult, inC, outC, wData, bias,
            mm.lo, mm.hi, c->flags() | XNN_FLAG_DEPTHWISE_CONVOLUTION, op);
      return xnn_create_convolution2d_nhwc_f32(
          c->padding_top(), c->padding_right(), c->padding_bottom(), c->padding_left(),
          c->kernel_height(), c->kernel_width(), c->subsampling_height(), c->subsampling_width(),
          dh, dw, uint32_t(groups), gic, goc, inC, outC, wData, bias, mm.lo, mm.hi, c->flags(),
          op);
    }));
    break;
  }
  case Kind::XNNMaxPooling2d: case Kind::XNNAvgPooling2d: {
    const auto *p = static_cast<const fb::_XNNPooling2D *>(node->xnode_union());
    const ValueInfo &in = V[s.in0];
    PTEC_TRY(needRank(in, 4, "input"));
    // Upstream marks pooling "keep dims" (kFlagKeepDims): a 4-d pooling
    // keeps its dims anyway, so that flag is dropped.
    const bool maxPool = kind == Kind::XNNMaxPooling2d;
    Dims outDims;
    std::string why;
    if (Error e = poolingOut(p, maxPool, kFlagSamePadding | kFlagKeepDims, in.dims, &outDims,
                             &why);
        e != Error::Ok)
      return bad(e, why);
    const uint64_t ch = in.dims[3];
    PTEC_TRY(outIs(outDims));
    s.exec = Exec::Pooling;
    s.batch = in.dims[0], s.height = in.dims[1], s.width = in.dims[2];
    const uint32_t dh = std::max(1u, p->dilation_height()), dw = std::max(1u, p->dilation_width());
    status = maxPool
                 ? xnn_create_max_pooling2d_nhwc_f32(
                       p->padding_top(), p->padding_right(), p->padding_bottom(),
                       p->padding_left(), p->pooling_height(), p->pooling_width(),
                       p->stride_height(), p->stride_width(), dh, dw, ch, ch, ch, mm.lo, mm.hi,
                       p->flags() & kFlagSamePadding, &s.op)
                 : xnn_create_average_pooling2d_nhwc_f32(
                       p->padding_top(), p->padding_right(), p->padding_bottom(),
                       p->padding_left(), p->pooling_height(), p->pooling_width(),
                       p->stride_height(), p->stride_width(), ch, ch, ch, mm.lo, mm.hi,
                       p->flags() & kFlagSamePadding, &s.op);
    PTEC_TRY(created(status));
    break;
  }
  case Kind::XNNGlobalAvgPooling2d: {
    const ValueInfo &in = V[s.in0];
    PTEC_TRY(needRank(in, 4, "input"));
    const uint64_t ch = in.dims[3];
    if (V[s.out].numel != in.dims[0] * ch)
      return bad(Error::InvalidArgument, "the output " + dimsText(V[s.out].dims) +
                                             " is not one value per image and channel");
    s.exec = Exec::GlobalPooling;
    s.batch = in.dims[0];
    s.width = in.dims[1] * in.dims[2];
    PTEC_TRY(created(xnn_create_global_average_pooling_nwc_f32(ch, ch, ch, mm.lo, mm.hi, 0, &s.op)));
    break;
  }
  case Kind::XNNClamp: case Kind::XNNSigmoid: case Kind::XNNHardswish: case Kind::XNNAbs:
  case Kind::XNNNegate: case Kind::XNNSquare: case Kind::XNNSquareRoot: case Kind::XNNCeiling:
  case Kind::XNNFloor: case Kind::XNNLeakyReLU: case Kind::XNNELU: {
    PTEC_TRY(sameNumel(V[s.in0], V[s.out]));
    s.exec = Exec::Unary;
    s.batch = V[s.in0].numel;
    switch (kind) {
    case Kind::XNNClamp: status = xnn_create_clamp_nc_f32(1, 1, 1, mm.lo, mm.hi, 0, &s.op); break;
    case Kind::XNNSigmoid: status = xnn_create_sigmoid_nc_f32(1, 1, 1, 0, &s.op); break;
    case Kind::XNNHardswish: status = xnn_create_hardswish_nc_f32(1, 1, 1, 0, &s.op); break;
    case Kind::XNNAbs: status = xnn_create_abs_nc_f32(1, 1, 1, 0, &s.op); break;
    case Kind::XNNNegate: status = xnn_create_negate_nc_f32(1, 1, 1, 0, &s.op); break;
    case Kind::XNNSquare: status = xnn_create_square_nc_f32(1, 1, 1, 0, &s.op); break;
    case Kind::XNNSquareRoot: status = xnn_create_square_root_nc_f32(1, 1, 1, 0, &s.op); break;
    case Kind::XNNCeiling: status = xnn_create_ceiling_nc_f32(1, 1, 1, 0, &s.op); break;
    case Kind::XNNFloor: status = xnn_create_floor_nc_f32(1, 1, 1, 0, &s.op); break;
    case Kind::XNNLeakyReLU: {
      const float slope = static_cast<const fb::XNNLeakyReLU *>(node->xnode_union())->negative_slope();
      status = xnn_create_leaky_relu_nc_f32(1, 1, 1, slope, 0, &s.op);
      break;
    }
    default: {
      const float alpha = static_cast<const fb::XNNELU *>(node->xnode_union())->alpha();
      status = xnn_create_elu_nc_f32(1, 1, 1, alpha, 0, &s.op);
      break;
    }
    }
    PTEC_TRY(created(status));
    break;
  }
  case Kind::XNNSoftmax: case Kind::XNNPReLU: {
    const ValueInfo &in = V[s.in0];
    if (xnnShape(in.dims).back() == 0)
      return bad(Error::InvalidArgument, "input " + dimsText(in.dims) + " has no channels");
    PTEC_TRY(sameNumel(in, V[s.out]));
    const uint64_t ch = xnnShape(in.dims).back();
    s.batch = in.numel / ch;
    s.channels = ch;
    if (kind == Kind::XNNSoftmax) {
      s.exec = Exec::Softmax;
      PTEC_TRY(created(xnn_create_softmax_nc_f32(ch, ch, ch, 0, &s.op)));
      break;
    }
    const float *slope = constantOf(ops.inputs[1]);
    if (slope == nullptr || V[ops.inputs[1]].numel != ch)
      return bad(Error::NotSupported, "the slope must be a constant of " + std::to_string(ch) +
                                          " elements (one per channel)");
    s.exec = Exec::PReLU;
    PTEC_TRY(created(xnn_create_prelu_nc_f32(ch, ch, ch, slope, 0, &s.op)));
    break;
  }
  case Kind::XNNStaticConstantPad: {
    const auto *p = static_cast<const fb::XNNStaticConstantPad *>(node->xnode_union());
    const ValueInfo &in = V[s.in0];
    const size_t rank = in.dims.size();
    std::vector<uint64_t> outDims;
    if (const char *wrong = setPadDims(p, in.dims, s, &outDims))
      return bad(Error::InvalidArgument, wrong);
    PTEC_TRY(outIs(outDims));
    s.exec = Exec::Pad;
    const float value = p->padding_value();
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    PTEC_TRY(created(xnn_create_constant_pad_nd_x32(&bits, 0, &s.op)));
    break;
  }
  case Kind::XNNStaticResizeBilinear2D: {
    const auto *r = static_cast<const fb::XNNStaticResizeBilinear2D *>(node->xnode_union());
    const ValueInfo &in = V[s.in0];
    PTEC_TRY(needRank(in, 4, "input"));
    if ((r->flags() & ~uint32_t(XNN_FLAG_ALIGN_CORNERS | XNN_FLAG_TENSORFLOW_LEGACY_MODE)) != 0)
      return bad(Error::NotSupported, "flags " + std::to_string(r->flags()) + " are not supported");
    PTEC_TRY(outIs({in.dims[0], r->new_height(), r->new_width(), in.dims[3]}));
    s.exec = Exec::Resize;
    s.batch = in.dims[0], s.height = in.dims[1], s.width = in.dims[2];
    s.outHeight = r->new_height(), s.outWidth = r->new_width();
    const uint64_t ch = in.dims[3];
    PTEC_TRY(created(xnn_create_resize_bilinear2d_nhwc_f32(ch, ch, ch, r->flags(), &s.op)));
    break;
  }
  case Kind::XNNStaticReshape: case Kind::XNNCopy:
    PTEC_TRY(sameNumel(V[s.in0], V[s.out]));
    s.exec = Exec::Copy;
    s.bytes = V[s.in0].bytes();
    break;
  case Kind::XNNStaticTranspose: {
    const auto *t = static_cast<const fb::XNNStaticTranspose *>(node->xnode_union());
    const ValueInfo &in = V[s.in0];
    if (t->num_dims() != in.dims.size())
      return bad(Error::InvalidArgument, "perm must list one entry per input dim");
    std::vector<uint64_t> outDims;
    if (const char *wrong = setTransposeDims(t, in.dims, s, &outDims))
      return bad(Error::InvalidArgument, wrong);
    PTEC_TRY(outIs(outDims));
    s.exec = Exec::Transpose;
    break;
  }
  case Kind::XNNConcatenate2: case Kind::XNNConcatenate3: case Kind::XNNConcatenate4:
  case Kind::XNNConcatenate5: case Kind::XNNStaticSlice: case Kind::XNNBatchMatrixMultiply:
  case Kind::XNNScaledDotProductAttention: case Kind::XNNTanh: case Kind::XNNGelu:
  case Kind::XNNExp: case Kind::XNNLog: case Kind::XNNSin: case Kind::XNNReciprocalSquareRoot:
  case Kind::XNNCos: {
    // Our own kernels (XnnOwnKernels.h): the shape function checks the
    // node's fields and operands.
    std::vector<const Dims *> ins;
    for (uint32_t v : ops.inputs)
      ins.push_back(&V[v].dims);
    Dims want;
    std::string text;
    if (Error e = inferOutputDims(node, ins, V[s.out].dims, &want, &text); e != Error::Ok)
      return bad(e, text);
    PTEC_TRY(outIs(want));
    s.exec = Exec::Own;
    break;
  }
  default:
    return bad(Error::NotSupported, "this runtime does not implement it");
  }
  steps_.push_back(s);
  return Error::Ok;
}

} // namespace ptec::xnnpack
