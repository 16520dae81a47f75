//===- XnnShapes.h - output shape of each XnnpackBackend node ----*- C++ -*-===//
//
// One shape function per node kind: the dims a node writes, given the dims
// of what it reads and its fields. init uses them to check every declared
// output against what the step will write; execute uses them to carry a
// call's input sizes through the graph when they differ from the blob's
// (upstream writes the upper bound of dynamic dims and reshapes at run
// time). A 0-d value counts as [1]; a result whose declared form is 0-d
// stays 0-d.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "backends/xnnpack/format/XnnFormat.h"

#include <string>
#include <vector>

namespace ptec::xnnpack {

using Dims = std::vector<uint64_t>;

/// `d`, or [1] when `d` is 0-d (XNNPACK shapes have at least one dim).
Dims xnnShape(const Dims &d);
/// What a global average pooling node writes for NHWC input dims `x` (4-d):
/// [N, 1, 1, C] with kFlagKeepDims, else [N, C] (XNNPACK drops the pooled
/// dims, whatever the blob declares).
Dims globalPoolOut(const fb_xnnpack::XNode *node, const Dims &x);
/// Same shape once 0-d counts as [1].
bool sameShape(const Dims &a, const Dims &b);
uint64_t numelOf(const Dims &d);
std::string dimsText(const Dims &d);
/// Output extent of a window op (convolution, pooling) along one dim: the
/// input extent, both paddings, the kernel, dilation and stride, or the
/// input rounded up by the stride for same padding. False when the window
/// does not fit.
bool windowOut(uint64_t in, uint32_t padA, uint32_t padB, uint32_t kernel, uint32_t dilation,
               uint32_t stride, bool same, uint64_t *out);
/// windowOut along height and width of NHWC input dims `in` for a
/// convolution (not transposed) or a pooling node, with its paddings,
/// window, dilation, stride and same-padding flag.
bool convWindowOut(const fb_xnnpack::_XNNNodeConv *c, const Dims &in, uint64_t *oh, uint64_t *ow);
bool poolWindowOut(const fb_xnnpack::_XNNPooling2D *p, const Dims &in, uint64_t *oh, uint64_t *ow);
/// Output height and width of a transposed convolution over NHWC input dims
/// `in`; false when its kernel and padding do not fit.
bool deconvOut(const fb_xnnpack::_XNNNodeConv *c, const Dims &in, uint64_t *oh, uint64_t *ow);

/// The channel counts of a convolution node (transposed too): groups,
/// channels per group in and out, the depthwise multiplier (0 for a dense
/// convolution), the input and output channels and the filter's elements.
struct ConvChannels {
  uint64_t groups = 0, gic = 0, goc = 0, mult = 0, inC = 0, outC = 0, filterNumel = 0;
};
/// Reads `c`'s channel counts into `out` and checks them against NHWC input
/// dims `in`; empty when they fit, else why not.
std::string convChannels(const fb_xnnpack::_XNNNodeConv *c, bool depthwise, const Dims &in,
                         ConvChannels *out);

/// What a pooling node needs beyond its shape, then its output dims over
/// 4-d NHWC input dims `in`: flags within `allowedFlags` and no dilation for
/// average pooling (else NotSupported), a window that fits the padded input
/// (else InvalidArgument); `why` says what is wrong.
rt::Error poolingOut(const fb_xnnpack::_XNNPooling2D *p, bool maxPool, uint32_t allowedFlags,
                     const Dims &in, Dims *out, std::string *why);

/// The dims node `node` writes to its first output. `in` holds the dims of
/// its inputs in NodeOperands order; `declared` is the output's dims in the
/// blob (some node kinds keep its rank). InvalidArgument when the inputs do
/// not fit the node (why: the reason, without the node's name);
/// NotSupported for kinds no runtime step computes.
rt::Error inferOutputDims(const fb_xnnpack::XNode *node, const std::vector<const Dims *> &in,
                          const Dims &declared, Dims *out, std::string *why);

} // namespace ptec::xnnpack
