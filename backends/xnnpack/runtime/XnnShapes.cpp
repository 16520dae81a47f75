//===- XnnShapes.cpp - output shape of each XnnpackBackend node -----------===//
//
// The arithmetic follows what XNNPACK computes for each node (window
// extents, broadcasting, batch matrix multiply's batch dims, equal or 1,
// attention's [.., H, T, C] layout); the reshape node infers its one 0 as
// upstream's serializer writes -1 dims; a slice size of 0 runs to the end
// of its dim.
//
//===----------------------------------------------------------------------===//

#include "backends/xnnpack/runtime/XnnShapes.h"

#include <algorithm>

namespace ptec::xnnpack {

using rt::Error;
namespace fb = fb_xnnpack;
using Kind = fb::XNodeUnion;

Dims xnnShape(const Dims &d) { return d.empty() ? Dims{1} : d; }

bool sameShape(const Dims &a, const Dims &b) { return xnnShape(a) == xnnShape(b); }

uint64_t numelOf(const Dims &d) {
  uint64_t n = 1;
  for (uint64_t x : d)
    n *= x;
  return n;
}

std::string dimsText(const Dims &d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i)
    s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

namespace {

// XNNPACK's flag bits, as upstream writes them into node flags.
constexpr uint32_t kTransposeWeights = 1; // XNN_FLAG_TRANSPOSE_WEIGHTS
constexpr uint32_t kTransposeB = 1;       // XNN_FLAG_TRANSPOSE_B (same bit)
constexpr uint32_t kSamePadding = 4;      // XNN_FLAG_TENSORFLOW_SAME_PADDING

Error fail(std::string *why, std::string text) {
  *why = std::move(text);
  return Error::InvalidArgument;
}


Error broadcast(const Dims &a0, const Dims &b0, Dims *out, std::string *why) {
  const Dims a = xnnShape(a0), b = xnnShape(b0);
  const size_t rank = std::max(a.size(), b.size());
  out->assign(rank, 1);
  for (size_t k = 0; k < rank; ++k) {
    const uint64_t da = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
    const uint64_t db = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return fail(why, "inputs " + dimsText(a0) + " and " + dimsText(b0) + " do not broadcast");
    (*out)[k] = da == 1 ? db : da;
  }
  return Error::Ok;
}

Error convShape(const fb::XNode *node, const Dims &in, Dims *out, std::string *why) {
  const auto *c = static_cast<const fb::_XNNNodeConv *>(node->xnode_union());
  if (in.size() != 4)
    return fail(why, "input " + dimsText(in) + " must have 4 dims");
  const Kind kind = node->xnode_union_type();
  const uint64_t outC = kind == Kind::XNNDepthwiseConv2d
                            ? uint64_t(c->groups()) * (c->group_output_channels() /
                                                       std::max(1u, c->group_input_channels()))
                            : uint64_t(c->groups()) * c->group_output_channels();
  uint64_t oh = 0, ow = 0;
  if (kind == Kind::XNNConvTranspose2d) {
    if (!deconvOut(c, in, &oh, &ow))
      return fail(why, "the kernel and padding do not fit the input " + dimsText(in));
  } else {
    if (!convWindowOut(c, in, &oh, &ow))
      return fail(why, "the kernel does not fit the padded input " + dimsText(in));
  }
  *out = {in[0], oh, ow, outC};
  return Error::Ok;
}

Error poolShape(const fb::XNode *node, const Dims &in, Dims *out, std::string *why) {
  const auto *p = static_cast<const fb::_XNNPooling2D *>(node->xnode_union());
  if (in.size() != 4)
    return fail(why, "input " + dimsText(in) + " must have 4 dims");
  uint64_t oh = 0, ow = 0;
  if (!poolWindowOut(p, in, &oh, &ow))
    return fail(why, "the window does not fit the padded input " + dimsText(in));
  *out = {in[0], oh, ow, in[3]};
  return Error::Ok;
}

Error reshapeShape(const fb::XNode *node, const Dims &in, const Dims &declared, Dims *out,
                   std::string *why) {
  const auto *r = static_cast<const fb::XNNStaticReshape *>(node->xnode_union());
  const uint64_t n = numelOf(in);
  if (r->new_shape() == nullptr || r->new_shape()->size() != declared.size()) {
    // No usable new_shape: only the declared shape itself.
    if (n != numelOf(declared))
      return fail(why, "input " + dimsText(in) + " and output " + dimsText(declared) +
                           " differ in size");
    *out = declared;
    return Error::Ok;
  }
  Dims d(r->new_shape()->begin(), r->new_shape()->end());
  size_t zeros = 0, at = 0;
  uint64_t known = 1;
  for (size_t k = 0; k < d.size(); ++k) {
    if (d[k] == 0)
      ++zeros, at = k;
    else
      known *= d[k];
  }
  if (zeros > 1)
    return fail(why, "new_shape has more than one inferred (0) dim");
  if (zeros == 1) {
    if (known == 0 || n % known != 0)
      return fail(why, "input " + dimsText(in) + " does not divide into new_shape " +
                           dimsText(d));
    d[at] = n / known;
  }
  if (numelOf(d) != n)
    return fail(why, "input " + dimsText(in) + " and output " + dimsText(d) + " differ in size");
  *out = d;
  return Error::Ok;
}

Error sliceShape(const fb::XNode *node, const Dims &in, Dims *out, std::string *why) {
  const auto *s = static_cast<const fb::XNNStaticSlice *>(node->xnode_union());
  const size_t rank = in.size();
  if (!s->offsets() || !s->sizes() || s->offsets()->size() != rank ||
      s->sizes()->size() != rank || rank == 0)
    return fail(why, "needs one offset and size per input dim of " + dimsText(in));
  out->assign(rank, 0);
  for (size_t k = 0; k < rank; ++k) {
    const uint64_t off = s->offsets()->Get(uint32_t(k)), size = s->sizes()->Get(uint32_t(k));
    if (off > in[k] || (size != 0 && off + size > in[k]))
      return fail(why, "offset " + std::to_string(off) + " size " + std::to_string(size) +
                           " of dim " + std::to_string(k) + " leave input " + dimsText(in));
    (*out)[k] = size == 0 ? in[k] - off : size;
  }
  return Error::Ok;
}

Error concatShape(const fb::XNode *node, const std::vector<const Dims *> &in, Dims *out,
                  std::string *why) {
  const auto *c = static_cast<const fb::_XNNCat *>(node->xnode_union());
  const Dims &first = *in[0];
  const size_t rank = first.size();
  int64_t axis = static_cast<int32_t>(c->axis());
  if (axis < 0)
    axis += int64_t(rank);
  if (rank == 0 || axis < 0 || axis >= int64_t(rank))
    return fail(why, "axis " + std::to_string(static_cast<int32_t>(c->axis())) +
                         " is outside input " + dimsText(first));
  *out = first;
  for (size_t i = 1; i < in.size(); ++i) {
    const Dims &d = *in[i];
    bool fits = d.size() == rank;
    for (size_t k = 0; fits && k < rank; ++k)
      fits = int64_t(k) == axis || d[k] == first[k];
    if (!fits)
      return fail(why, "input " + dimsText(d) + " does not match " + dimsText(first) +
                           " outside axis " + std::to_string(axis));
    (*out)[size_t(axis)] += d[size_t(axis)];
  }
  return Error::Ok;
}

Error bmmShape(const fb::XNode *node, const Dims &a, const Dims &b, Dims *out,
               std::string *why) {
  if (a.size() < 2 || b.size() < 2)
    return fail(why, "inputs " + dimsText(a) + " and " + dimsText(b) + " need 2 dims or more");
  const bool transB = (static_cast<const fb::_XNNNode2x1 *>(node->xnode_union())->flags() &
                       kTransposeB) != 0;
  const size_t rank = std::max(a.size(), b.size());
  const uint64_t m = a[a.size() - 2], k = a.back();
  const uint64_t kb = transB ? b.back() : b[b.size() - 2];
  const uint64_t n = transB ? b[b.size() - 2] : b.back();
  if (k != kb)
    return fail(why, "inputs " + dimsText(a) + " and " + dimsText(b) +
                         " differ in the reduced dim" + (transB ? " (b transposed)" : ""));
  out->assign(rank, 1);
  for (size_t i = 0; i + 2 < rank; ++i) {
    const uint64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const uint64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    // XNNPACK's operator takes equal batch dims or 1 (its subgraph check
    // lets multiples through, which the operator then refuses).
    if (da != db && da != 1 && db != 1)
      return fail(why, "batch dims of " + dimsText(a) + " and " + dimsText(b) +
                           " do not broadcast");
    (*out)[i] = std::max(da, db);
  }
  (*out)[rank - 2] = m;
  (*out)[rank - 1] = n;
  return Error::Ok;
}

Error sdpaShape(const std::vector<const Dims *> &in, Dims *out, std::string *why) {
  const Dims &q = *in[0], &k = *in[1], &v = *in[2], &scale = *in[3];
  const size_t r = q.size();
  if (r < 3)
    return fail(why, "query " + dimsText(q) + " needs 3 dims or more ([.., H, T, C])");
  const bool multiQuery = k.size() == r - 1;
  if ((k.size() != r && !multiQuery) || v.size() != k.size())
    return fail(why, "key " + dimsText(k) + " and value " + dimsText(v) +
                         " must have the dims of query " + dimsText(q) + " or one less");
  const size_t batchDims = r - 3;
  for (size_t i = 0; i < batchDims; ++i)
    if (k[i] != q[i] || v[i] != q[i])
      return fail(why, "batch dims of query, key and value differ");
  if (!multiQuery && (k[r - 3] != q[r - 3] || v[r - 3] != q[r - 3]))
    return fail(why, "key and value heads differ from query heads");
  const uint64_t tokens = q[r - 2], channels = q[r - 1];
  const uint64_t keyTokens = k[k.size() - 2];
  if (k.back() != channels || v[v.size() - 2] != keyTokens)
    return fail(why, "key " + dimsText(k) + " or value " + dimsText(v) +
                         " does not fit query " + dimsText(q));
  if (scale.size() != 1 || scale[0] != channels)
    return fail(why, "scale " + dimsText(scale) + " is not [" + std::to_string(channels) + "]");
  if (in.size() > 4) {
    const Dims &mask = *in[4];
    if (mask.size() != 2 || mask[0] != tokens || mask[1] != keyTokens)
      return fail(why, "mask " + dimsText(mask) + " is not [" + std::to_string(tokens) + ", " +
                           std::to_string(keyTokens) + "]");
  }
  *out = q;
  out->back() = v.back();
  return Error::Ok;
}

} // namespace

Error inferOutputDims(const fb::XNode *node, const std::vector<const Dims *> &in,
                      const Dims &declared, Dims *out, std::string *why) {
  const Kind kind = node->xnode_union_type();
  if (in.empty() || node->xnode_union() == nullptr)
    return fail(why, "the node has no inputs");
  const Dims &x = *in[0];
  Error e = Error::Ok;
  switch (kind) {
  case Kind::XNNAdd: case Kind::XNNSubtract: case Kind::XNNMultiply: case Kind::XNNDiv:
  case Kind::XNNMinimum: case Kind::XNNMaximum:
    e = broadcast(x, *in.at(1), out, why);
    break;
  case Kind::XNNClamp: case Kind::XNNSigmoid: case Kind::XNNHardswish: case Kind::XNNAbs:
  case Kind::XNNNegate: case Kind::XNNSquare: case Kind::XNNSquareRoot: case Kind::XNNCeiling:
  case Kind::XNNFloor: case Kind::XNNLeakyReLU: case Kind::XNNELU: case Kind::XNNSoftmax:
  case Kind::XNNPReLU: case Kind::XNNTanh: case Kind::XNNGelu: case Kind::XNNExp:
  case Kind::XNNLog: case Kind::XNNSin: case Kind::XNNReciprocalSquareRoot: case Kind::XNNCos:
  case Kind::XNNCopy: case Kind::XNNConvert:
    *out = x;
    break;
  case Kind::XNNFullyConnected: {
    const auto *f = static_cast<const fb::XNNFullyConnected *>(node->xnode_union());
    const Dims &w = *in.at(1);
    if (w.size() != 2)
      return fail(why, "the filter " + dimsText(w) + " must have 2 dims");
    const bool transposed = (f->flags() & kTransposeWeights) != 0;
    const uint64_t outC = transposed ? w[1] : w[0], inC = transposed ? w[0] : w[1];
    const Dims xs = xnnShape(x);
    if (inC == 0 || numelOf(xs) % inC != 0)
      return fail(why, "input " + dimsText(x) + " does not hold rows of " +
                           std::to_string(inC) + " channels");
    if (declared.size() == xs.size() && xs.back() == inC) {
      *out = xs;
      out->back() = outC;
    } else {
      *out = {numelOf(xs) / inC, outC};
    }
    break;
  }
  case Kind::XNNConv2d: case Kind::XNNDepthwiseConv2d: case Kind::XNNConvTranspose2d:
    e = convShape(node, x, out, why);
    break;
  case Kind::XNNMaxPooling2d: case Kind::XNNAvgPooling2d:
    e = poolShape(node, x, out, why);
    break;
  case Kind::XNNGlobalAvgPooling2d:
    if (x.size() != 4)
      return fail(why, "input " + dimsText(x) + " must have 4 dims");
    *out = globalPoolOut(node, x);
    break;
  case Kind::XNNStaticConstantPad: {
    const auto *p = static_cast<const fb::XNNStaticConstantPad *>(node->xnode_union());
    const size_t rank = x.size();
    if (!p->pre_paddings() || !p->post_paddings() || p->pre_paddings()->size() != rank ||
        p->post_paddings()->size() != rank || rank == 0)
      return fail(why, "needs one pre and post padding per input dim");
    *out = x;
    for (size_t k = 0; k < rank; ++k)
      (*out)[k] += uint64_t(p->pre_paddings()->Get(uint32_t(k))) +
                   p->post_paddings()->Get(uint32_t(k));
    break;
  }
  case Kind::XNNStaticResizeBilinear2D: {
    const auto *r = static_cast<const fb::XNNStaticResizeBilinear2D *>(node->xnode_union());
    if (x.size() != 4)
      return fail(why, "input " + dimsText(x) + " must have 4 dims");
    *out = {x[0], r->new_height(), r->new_width(), x[3]};
    break;
  }
  case Kind::XNNStaticReshape:
    e = reshapeShape(node, x, declared, out, why);
    break;
  case Kind::XNNStaticTranspose: {
    const auto *t = static_cast<const fb::XNNStaticTranspose *>(node->xnode_union());
    const size_t rank = x.size();
    if (!t->perm() || t->perm()->size() != rank || rank == 0)
      return fail(why, "perm must list one entry per input dim");
    std::vector<bool> seen(rank, false);
    out->assign(rank, 0);
    for (size_t k = 0; k < rank; ++k) {
      const uint32_t p = t->perm()->Get(uint32_t(k));
      if (p >= rank || seen[p])
        return fail(why, "perm is not a permutation");
      seen[p] = true;
      (*out)[k] = x[p];
    }
    break;
  }
  case Kind::XNNStaticSlice:
    e = sliceShape(node, x, out, why);
    break;
  case Kind::XNNConcatenate2: case Kind::XNNConcatenate3: case Kind::XNNConcatenate4:
  case Kind::XNNConcatenate5:
    e = concatShape(node, in, out, why);
    break;
  case Kind::XNNBatchMatrixMultiply:
    e = bmmShape(node, x, *in.at(1), out, why);
    break;
  case Kind::XNNScaledDotProductAttention:
    if (in.size() < 4)
      return fail(why, "needs query, key, value and scale");
    e = sdpaShape(in, out, why);
    break;
  default:
    *why = "no shape function for " + nodeKindName(kind);
    return Error::NotSupported;
  }
  if (e != Error::Ok)
    return e;
  // A 0-d result stays 0-d: XNNPACK computes it as [1].
  if (declared.empty() && numelOf(*out) == 1 && out->size() <= 1)
    out->clear();
  return Error::Ok;
}

Dims globalPoolOut(const fb::XNode *node, const Dims &x) {
  const auto *n = node->xnode_union_as_XNNGlobalAvgPooling2d();
  const bool keep = n != nullptr && (n->flags() & kFlagKeepDims) != 0;
  return keep ? Dims{x[0], 1, 1, x[3]} : Dims{x[0], x[3]};
}

bool windowOut(uint64_t in, uint32_t padA, uint32_t padB, uint32_t kernel, uint32_t dilation,
               uint32_t stride, bool same, uint64_t *out) {
  if (stride == 0 || kernel == 0)
    return false;
  if (same) {
    *out = (in + stride - 1) / stride;
    return true;
  }
  const uint64_t eff = uint64_t(kernel - 1) * (dilation ? dilation : 1) + 1;
  const uint64_t padded = in + padA + padB;
  if (padded < eff)
    return false;
  *out = (padded - eff) / stride + 1;
  return true;
}

bool deconvOut(const fb::_XNNNodeConv *c, const Dims &in, uint64_t *oh, uint64_t *ow) {
  if (c->kernel_height() == 0 || c->kernel_width() == 0 || in[1] == 0 || in[2] == 0)
    return false;
  const uint64_t effH = uint64_t(c->kernel_height() - 1) * std::max(1u, c->dilation_height()) + 1;
  const uint64_t effW = uint64_t(c->kernel_width() - 1) * std::max(1u, c->dilation_width()) + 1;
  const uint64_t fullH = c->subsampling_height() * (in[1] - 1) + c->adjustment_height() + effH;
  const uint64_t fullW = c->subsampling_width() * (in[2] - 1) + c->adjustment_width() + effW;
  if (fullH < uint64_t(c->padding_top()) + c->padding_bottom() ||
      fullW < uint64_t(c->padding_left()) + c->padding_right())
    return false;
  *oh = fullH - c->padding_top() - c->padding_bottom();
  *ow = fullW - c->padding_left() - c->padding_right();
  return true;
}

bool convWindowOut(const fb::_XNNNodeConv *c, const Dims &in, uint64_t *oh, uint64_t *ow) {
  const bool same = (c->flags() & kSamePadding) != 0;
  return windowOut(in[1], c->padding_top(), c->padding_bottom(), c->kernel_height(),
                   c->dilation_height(), c->subsampling_height(), same, oh) &&
         windowOut(in[2], c->padding_left(), c->padding_right(), c->kernel_width(),
                   c->dilation_width(), c->subsampling_width(), same, ow);
}

std::string convChannels(const fb::_XNNNodeConv *c, bool depthwise, const Dims &in,
                         ConvChannels *out) {
  ConvChannels &k = *out;
  k.groups = c->groups(), k.gic = c->group_input_channels(), k.goc = c->group_output_channels();
  if (k.groups == 0 || k.gic == 0 || k.goc == 0 || (depthwise && k.goc % k.gic != 0))
    return "groups and channel counts must be positive";
  k.mult = depthwise ? k.goc / k.gic : 0;
  k.inC = depthwise ? k.groups : k.groups * k.gic;
  k.outC = depthwise ? k.groups * k.mult : k.groups * k.goc;
  const uint64_t kh = c->kernel_height(), kw = c->kernel_width();
  k.filterNumel = depthwise ? kh * kw * k.outC : k.outC * kh * kw * k.gic;
  if (in[3] != k.inC)
    return "input " + dimsText(in) + " (NHWC) should have " + std::to_string(k.inC) +
           " channels";
  return {};
}

Error poolingOut(const fb::_XNNPooling2D *p, bool maxPool, uint32_t allowedFlags, const Dims &in,
                 Dims *out, std::string *why) {
  if ((p->flags() & ~allowedFlags) != 0) {
    *why = "flags " + std::to_string(p->flags()) + " are not supported";
    return Error::NotSupported;
  }
  if (!maxPool && (p->dilation_height() > 1 || p->dilation_width() > 1)) {
    *why = "average pooling has no dilation";
    return Error::NotSupported;
  }
  uint64_t oh = 0, ow = 0;
  if (!poolWindowOut(p, in, &oh, &ow))
    return fail(why, "the window does not fit the padded input " + dimsText(in));
  *out = {in[0], oh, ow, in[3]};
  return Error::Ok;
}

bool poolWindowOut(const fb::_XNNPooling2D *p, const Dims &in, uint64_t *oh, uint64_t *ow) {
  const bool same = (p->flags() & kSamePadding) != 0;
  return windowOut(in[1], p->padding_top(), p->padding_bottom(), p->pooling_height(),
                   p->dilation_height(), p->stride_height(), same, oh) &&
         windowOut(in[2], p->padding_left(), p->padding_right(), p->pooling_width(),
                   p->dilation_width(), p->stride_width(), same, ow);
}

} // namespace ptec::xnnpack
