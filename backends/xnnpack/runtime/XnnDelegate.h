//===- XnnDelegate.h - one XnnpackBackend handle -----------------*- C++ -*-===//
//
// The handle init() returns: the checked graph, one step per node (an
// XNNPACK operator, owned or shared through the packed-weight cache, or one
// of our copy loops), the constants and the workspace. See XnnpackBackend.h
// for the design; XnnDelegate.cpp builds it, XnnExecute.cpp runs it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "backends/xnnpack/format/XnnFormat.h"
#include "backends/xnnpack/runtime/XnnpackBackend.h"

#include <xnnpack.h>

#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

namespace ptec::xnnpack {

/// The cached context: one packed operator. Its mutex covers setup + run,
/// since an XNNPACK operator keeps the pointers of its last setup.
struct PackedOperator {
  explicit PackedOperator(XnnpackStats *s) : stats(s) {}
  ~PackedOperator();
  PackedOperator(const PackedOperator &) = delete;
  PackedOperator &operator=(const PackedOperator &) = delete;

  xnn_operator_t op = nullptr;
  std::mutex mutex;
  XnnpackStats *stats = nullptr;
};

/// How a step runs.
enum class Exec : uint8_t {
  Binary,         ///< *_nd_f32 with broadcasting
  FullyConnected, ///< fully_connected_nc_f32
  Convolution,    ///< convolution2d_nhwc_f32 (regular and depthwise)
  Deconvolution,  ///< deconvolution2d_nhwc_f32
  Pooling,        ///< max/average_pooling2d_nhwc_f32
  GlobalPooling,  ///< global_average_pooling_nwc_f32
  Unary,          ///< *_nc_f32 over every element
  Softmax,        ///< softmax_nc_f32 over the last dimension
  PReLU,          ///< prelu_nc_f32 over the last dimension
  Pad,            ///< constant_pad_nd_x32
  Resize,         ///< resize_bilinear2d_nhwc_f32
  Transpose,      ///< our own loop (this XNNPACK has no transpose)
  Copy,           ///< our own memcpy (a reshape)
  Own,            ///< XnnOwnKernels.h (kinds this XNNPACK lacks)
  Quantized,      ///< XnnQuantized.h (a node with int8 values)
};

struct QuantStep; // XnnQuantized.h

struct Step {
  fb_xnnpack::XNodeUnion kind{};
  Exec exec = Exec::Copy;
  uint32_t node = 0;
  uint32_t in0 = ~0u, in1 = ~0u, out = ~0u; ///< value indices
  xnn_operator_t op = nullptr;               ///< owned unless `entry` is set
  rt::cache::CacheEntry *entry = nullptr;    ///< a shared packed operator
  PackedOperator *packed = nullptr;          ///< entry's context
  size_t batch = 0, height = 0, width = 0;   ///< setup sizes (by exec kind)
  size_t outHeight = 0, outWidth = 0;        ///< resize
  uint32_t adjHeight = 0, adjWidth = 0;      ///< deconvolution
  size_t rank0 = 0, rank1 = 0;
  size_t shape0[kMaxDims] = {}, shape1[kMaxDims] = {};
  size_t pre[kMaxDims] = {}, post[kMaxDims] = {};
  uint32_t perm[kMaxDims] = {};
  size_t bytes = 0; ///< copy
  size_t channels = 0; ///< fully connected: input channels; softmax, PReLU: last dim
  /// Exec::Quantized only; its loop counts follow the call's sizes, so it
  /// is this step's own (written under the handle's mutex).
  std::shared_ptr<QuantStep> quant;
};

/// Creates a weight-bearing operator with `create` through the backend's
/// packed-weight cache (when it is on) into `s`: the key hashes `seed` (the
/// float32 and the int8 steps have their own), `key` (kind and every
/// parameter), the weight and the bias bytes. `*status` is create's when it
/// ran; a failed create gives NotSupported.
template <typename Create>
rt::Error acquirePackedOperator(XnnpackBackend &backend, const void *allocator, uint64_t seed,
                                const std::vector<uint64_t> &key, const void *w, uint64_t wBytes,
                                const void *b, uint64_t bBytes, Create create, Step &s,
                                xnn_status *status) {
  XnnpackStats &st = backend.stats();
  uint64_t sig = hashBytes(key.data(), key.size() * sizeof(uint64_t), seed);
  sig = hashBytes(w, wBytes, sig);
  if (b != nullptr)
    sig = hashBytes(b, bBytes, sig);
  rt::cache::AcquireOutcome outcome{};
  rt::Result<rt::cache::CacheEntry *> entry = backend.packedCache().acquire(
      rt::cache::ContextKey{sig, allocator},
      [&]() -> rt::Result<PackedOperator *> {
        auto *p = new (std::nothrow) PackedOperator(&st);
        if (p == nullptr)
          return rt::Error::MemoryAllocationFailed;
        *status = create(&p->op);
        if (*status != xnn_status_success) {
          p->op = nullptr;
          delete p;
          return rt::Error::NotSupported;
        }
        st.packs.fetch_add(1);
        st.packedLive.fetch_add(1);
        st.weightBytesPacked.fetch_add(wBytes + bBytes);
        return p;
      },
      &outcome);
  if (!entry.ok())
    return entry.error();
  if (outcome == rt::cache::AcquireOutcome::Hit)
    st.cacheHits.fetch_add(1);
  else if (outcome == rt::cache::AcquireOutcome::LostRace)
    st.lostRaces.fetch_add(1);
  s.entry = entry.get();
  s.packed = &rt::cache::ContextCache<PackedOperator>::context(s.entry);
  s.op = s.packed->op;
  return rt::Error::Ok;
}

class XnnDelegate {
public:
  /// Parses and checks `blob`, plans the workspace and creates every
  /// operator. On failure everything acquired is released and `why` names
  /// the node or value at fault.
  static rt::Result<XnnDelegate *> build(XnnpackBackend &backend, rt::BackendInitContext &ctx,
                                         rt::ProcessedBlob blob, std::string *why);
  ~XnnDelegate();
  XnnDelegate(const XnnDelegate &) = delete;
  XnnDelegate &operator=(const XnnDelegate &) = delete;

  /// Binds args (external ids index them), carries input sizes below the
  /// blob's bound through the graph (resizing the outputs), runs every
  /// step. On failure `why` says which argument or node.
  rt::Error execute(rt::Span<rt::EValue *> args, std::string *why);

  uint64_t workspaceBytes() const { return plan_.workspaceBytes; }
  bool usesPlannedScratch() const { return plannedScratch_; }

private:
  explicit XnnDelegate(XnnpackBackend &backend) : backend_(backend) {}
  rt::Error createSteps(rt::BackendInitContext &ctx, std::string *why);
  rt::Error keepGraph(rt::ProcessedBlob blob);
  rt::Error createStep(rt::BackendInitContext &ctx, uint32_t index, std::string *why);
  rt::Error runStep(const Step &s);
  /// Dynamic shapes (XnnExecute.cpp): the dims of every value from this
  /// call's input dims, then every step's setup sizes from those.
  rt::Error propagateShapes(std::string *why);
  rt::Error reshapeStep(Step &s, std::string *why);

  XnnpackBackend &backend_;
  BlobView blob_;
  GraphPlan plan_;
  std::vector<Step> steps_;
  /// Per value: its bytes during a call. Constants, intermediates and staged
  /// inputs are fixed at init; external values are rebound by every call.
  std::vector<uint8_t *> pointers_;
  /// Per value: its dims in the current setup; `shapesValid_` false until
  /// the first call propagates its input dims through the graph (as
  /// upstream's runtime reshapes at every call: a value may get other dims
  /// than the blob declares, e.g. [N, C] from a global average pooling
  /// without the keep-dims flag), and after a failed propagation, so the
  /// next call redoes it.
  std::vector<std::vector<uint64_t>> dims_;
  bool shapesValid_ = false;
  std::vector<std::unique_ptr<uint8_t[]>> ownedConstants_;
  std::unique_ptr<uint8_t[]> ownWorkspace_;
  std::unique_ptr<uint8_t[]> graphCopy_; ///< the flatbuffer, read by execute

  uint8_t *workspace_ = nullptr;
  bool plannedScratch_ = false;
  /// One call at a time uses the workspace and the externals' pointers.
  std::mutex mutex_;
};

/// The pad and transpose steps, float32 or int8: s.rank0 and s.shape0 from
/// input dims `in`, then s.pre and s.post (pad) or s.perm (transpose) from
/// the node; `out` gets the dims the step writes. Returns what is wrong with
/// the node's fields for `in`, or nullptr.
const char *setPadDims(const fb_xnnpack::XNNStaticConstantPad *p, const std::vector<uint64_t> &in,
                       Step &s, std::vector<uint64_t> *out);
const char *setTransposeDims(const fb_xnnpack::XNNStaticTranspose *t,
                             const std::vector<uint64_t> &in, Step &s, std::vector<uint64_t> *out);

/// "node 3 (XNNConv2d, debug handle 7)".
std::string describeNode(const fb_xnnpack::XNode *node, uint32_t index);

/// float16 <-> float32 for values the runtime computes in float32
/// (ValueInfo::half); narrowing rounds to nearest even. `roundToHalf` keeps
/// the float32 layout and rounds each element to a float16 value.
void halfToFloat32(const void *in, float *out, uint64_t n);
void float32ToHalf(const float *in, void *out, uint64_t n);
void roundToHalf(float *data, uint64_t n);

/// out = in with dims permuted (output dim k is input dim perm[k]), for the
/// float32 and the int8 transpose steps; rank <= kMaxDims.
template <typename T>
void transposeElements(const T *in, T *out, size_t rank, const size_t *inDims,
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
    const T *src = in + base;
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

} // namespace ptec::xnnpack
