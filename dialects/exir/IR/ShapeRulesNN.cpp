//===- ShapeRulesNN.cpp - convolution, pooling, padding, resampling -------===//
//
// Convolutions: channels agree with the weight and groups, kernels fit in
// the padded input, strides and dilations are positive. Pools: the same
// window arithmetic, with PyTorch's ceil_mode rule. Pads: even pad lists,
// no negative results, reflection pads smaller than the dim.
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ShapeRulesSupport.h"

using namespace mlir;

namespace ptec::exir::rules {
namespace {

/// An int-list parameter with one entry per spatial dim: a single value is
/// repeated; `dflt` (if given) replaces an empty list.
LogicalResult spatialParam(RuleContext &c, StringRef name, size_t n, Shape &out,
                           std::optional<ArrayRef<int64_t>> dflt = std::nullopt) {
  out = c.getInts(name);
  if (out.empty() && dflt)
    out.assign(dflt->begin(), dflt->end());
  if (out.size() == 1 && n > 1)
    out.assign(n, out.front());
  if (out.size() != n)
    return c.fail("'" + name + "' " + describeShape(out) + " must have 1 or " +
                  llvm::Twine(n) + " entries");
  return success();
}

LogicalResult allAtLeast(RuleContext &c, StringRef name, ArrayRef<int64_t> v,
                         int64_t lo) {
  for (int64_t x : v)
    if (x < lo)
      return c.fail("'" + name + "' " + describeShape(v) + " must be " +
                    (lo == 0 ? "non-negative" : "positive"));
  return success();
}

/// PyTorch's pooling_output_shape (also used for convolutions, without
/// ceil_mode).
int64_t windowCount(int64_t in, int64_t kernel, int64_t pad, int64_t stride,
                    int64_t dilation, bool ceil) {
  int64_t window = addSat(mulSat(dilation, kernel - 1), 1);
  int64_t num = subSat(addSat(in, mulSat(2, pad)), window);
  if (ceil)
    num = addSat(num, stride - 1);
  int64_t out = addSat(floorDiv(num, stride), 1);
  if (ceil && mulSat(out - 1, stride) >= addSat(in, pad))
    --out;
  return out;
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

LogicalResult convolution(RuleContext &c) {
  RankedTensorType in, w, bias = c.type("bias");
  if (failed(c.require("input", in)) || failed(c.require("weight", w)) ||
      failed(c.requireRank("weight", w, 3, kMaxTensorRank)))
    return failure();
  StringRef name = c.getOp().getOpName();
  bool transposed = c.has("transposed") ? c.getBool("transposed")
                                        : name.contains("conv_transpose");
  // convolution/_convolution take batched input; convNd also unbatched.
  bool generic = name.contains("convolution");
  bool batched = in.getRank() == w.getRank();
  if (!batched && (generic || in.getRank() != w.getRank() - 1))
    return c.fail("'input' " + describe(in) + " must have " +
                  llvm::Twine(w.getRank()) +
                  (generic ? "" : " (or " + std::to_string(w.getRank() - 1) + ")") +
                  " dims for 'weight' " + describe(w));
  if (failed(c.sameDtype("input", in, "weight", w)) ||
      (bias && failed(c.sameDtype("input", in, "bias", bias))))
    return failure();
  size_t n = w.getRank() - 2;
  Shape stride, padding, dilation, outPad(n, 0);
  if (failed(spatialParam(c, "stride", n, stride)) ||
      failed(spatialParam(c, "dilation", n, dilation)) ||
      failed(allAtLeast(c, "stride", stride, 1)) ||
      failed(allAtLeast(c, "dilation", dilation, 1)))
    return failure();
  ArrayRef<int64_t> spatial = in.getShape().take_back(n);
  std::optional<std::string> mode = c.str("padding");
  if (mode) { // conv*.padding: 'valid' or 'same'
    if (*mode != "valid" && *mode != "same")
      return c.fail("padding must be 'valid' or 'same', got '" + *mode + "'");
    if (*mode == "same" && llvm::any_of(stride, [](int64_t s) { return s != 1; }))
      return c.fail("padding='same' needs stride 1, got " + describeShape(stride));
    padding.assign(n, 0);
  } else if (failed(spatialParam(c, "padding", n, padding)) ||
             failed(allAtLeast(c, "padding", padding, 0))) {
    return failure();
  }
  if (transposed && (failed(spatialParam(c, "output_padding", n, outPad)) ||
                     failed(allAtLeast(c, "output_padding", outPad, 0))))
    return failure();
  int64_t groups = c.getInt("groups");
  if (groups <= 0)
    return c.fail("groups must be positive, got " + llvm::Twine(groups));

  int64_t channels = in.getDimSize(batched ? 1 : 0), outChannels;
  if (!transposed) {
    if (channels != mulSat(w.getDimSize(1), groups))
      return c.fail("'weight' " + describe(w) + " with groups=" + llvm::Twine(groups) +
                    " expects " + llvm::Twine(mulSat(w.getDimSize(1), groups)) +
                    " input channels, but 'input' " + describe(in) + " has " +
                    llvm::Twine(channels));
    if (w.getDimSize(0) % groups != 0)
      return c.fail("'weight' " + describe(w) + " has " +
                    llvm::Twine(w.getDimSize(0)) +
                    " output channels, not divisible by groups=" + llvm::Twine(groups));
    outChannels = w.getDimSize(0);
  } else {
    if (channels != w.getDimSize(0))
      return c.fail("'weight' " + describe(w) + " of a transposed convolution expects " +
                    llvm::Twine(w.getDimSize(0)) + " input channels, but 'input' " +
                    describe(in) + " has " + llvm::Twine(channels));
    if (w.getDimSize(0) % groups != 0)
      return c.fail("'weight' dim 0 (" + llvm::Twine(w.getDimSize(0)) +
                    ") is not divisible by groups=" + llvm::Twine(groups));
    outChannels = mulSat(w.getDimSize(1), groups);
  }
  if (bias && (bias.getRank() != 1 || bias.getDimSize(0) != outChannels))
    return c.fail("'bias' " + describe(bias) + " must be 1-dim with " +
                  llvm::Twine(outChannels) + " elements");

  Shape shape;
  if (batched)
    shape.push_back(in.getDimSize(0));
  shape.push_back(outChannels);
  for (size_t i = 0; i < n; ++i) {
    int64_t k = w.getDimSize(2 + i), size = spatial[i];
    int64_t window = addSat(mulSat(dilation[i], k - 1), 1);
    int64_t padded = addSat(size, mulSat(2, padding[i]));
    int64_t out;
    if (transposed) {
      if (outPad[i] >= stride[i] && outPad[i] >= dilation[i])
        return c.fail("output_padding " + describeShape(outPad) +
                      " must be smaller than the stride or the dilation");
      out = addSat(subSat(mulSat(size - 1, stride[i]), mulSat(2, padding[i])),
                   addSat(window, outPad[i]));
    } else if (mode && *mode == "same") {
      out = size;
    } else {
      if (padded < window)
        return c.fail("the kernel (" + llvm::Twine(window) + " with dilation) is larger "
                      "than the padded input (" + llvm::Twine(padded) +
                      ") in spatial dim " + llvm::Twine(i));
      out = windowCount(size, k, padding[i], stride[i], dilation[i], false);
    }
    if (out < 0)
      return c.fail("the output size in spatial dim " + llvm::Twine(i) +
                    " would be negative (" + llvm::Twine(out) + ")");
    shape.push_back(out);
  }
  return c.succeed(shape, in.getElementType());
}

LogicalResult convolutionBackward(RuleContext &c) {
  RankedTensorType g, in, w;
  if (failed(c.require("grad_output", g)) || failed(c.require("input", in)) ||
      failed(c.require("weight", w)))
    return failure();
  c.produce(Spec::like(in));
  c.produce(Spec::like(w));
  std::optional<Shape> biasSizes = c.optInts("bias_sizes");
  return c.succeed(biasSizes ? ArrayRef<int64_t>(*biasSizes)
                             : ArrayRef<int64_t>{w.getDimSize(c.getBool("transposed") ? 1 : 0)},
                   g.getElementType());
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// The number of spatial dims of a pool op ("max_pool2d..." -> 2).
size_t spatialDims(StringRef name) {
  for (char d : {'1', '2', '3'})
    if (name.contains((llvm::Twine(d) + "d").str()))
      return d - '0';
  return 2;
}

LogicalResult poolInput(RuleContext &c, StringRef name, size_t n, RankedTensorType &t) {
  if (failed(c.require(name, t)) ||
      failed(c.requireRank(name, t, n + 1, n + 2)))
    return failure();
  for (int64_t i = t.getRank() - n - 1; i < t.getRank(); ++i)
    if (t.getDimSize(i) <= 0)
      return c.fail("'" + name + "' " + describe(t) +
                    " must have non-empty channel and spatial dims");
  return success();
}

LogicalResult pool(RuleContext &c) {
  StringRef name = c.getOp().getOpName();
  size_t n = spatialDims(name);
  bool isMax = name.contains("max_pool");
  RankedTensorType t;
  Shape kernel, stride, padding, dilation(n, 1);
  if (failed(poolInput(c, "self", n, t)) ||
      failed(spatialParam(c, "kernel_size", n, kernel)) ||
      failed(allAtLeast(c, "kernel_size", kernel, 1)) ||
      failed(spatialParam(c, "stride", n, stride, ArrayRef<int64_t>(kernel))) ||
      failed(allAtLeast(c, "stride", stride, 1)) ||
      failed(spatialParam(c, "padding", n, padding)) ||
      failed(allAtLeast(c, "padding", padding, 0)) ||
      (isMax && (failed(spatialParam(c, "dilation", n, dilation)) ||
                 failed(allAtLeast(c, "dilation", dilation, 1)))))
    return failure();
  if (std::optional<int64_t> div = c.optInt("divisor_override"); div && *div == 0)
    return c.fail("divisor_override must not be zero");
  bool ceil = c.getBool("ceil_mode");
  Shape shape(t.getShape().drop_back(n));
  for (size_t i = 0; i < n; ++i) {
    int64_t window = isMax ? addSat(mulSat(dilation[i], kernel[i] - 1), 1) : kernel[i];
    if (padding[i] > window / 2)
      return c.fail("padding " + describeShape(padding) +
                    " must be at most half of the kernel " + describeShape(kernel));
    int64_t out = windowCount(t.getDimSize(t.getRank() - n + i), kernel[i], padding[i],
                              stride[i], dilation[i], ceil);
    if (out < 1)
      return c.fail("the output would be empty in spatial dim " + llvm::Twine(i) +
                    " (input " + describe(t) + ", kernel " + describeShape(kernel) + ")");
    shape.push_back(out);
  }
  c.produce(shape, t.getElementType());
  if (name.contains("with_indices"))
    c.produce(shape, c.i64());
  return success();
}

LogicalResult adaptivePool(RuleContext &c) {
  StringRef name = c.getOp().getOpName();
  size_t n = spatialDims(name);
  RankedTensorType t;
  Shape size;
  if (failed(poolInput(c, "self", n, t)) ||
      failed(spatialParam(c, "output_size", n, size)) ||
      failed(allAtLeast(c, "output_size", size, 0)))
    return failure();
  Shape shape(t.getShape().drop_back(n));
  shape.append(size.begin(), size.end());
  c.produce(shape, t.getElementType());
  if (name.contains("max_pool"))
    c.produce(shape, c.i64());
  return success();
}

LogicalResult poolBackward(RuleContext &c) {
  RankedTensorType g, self;
  if (failed(c.require("grad_output", g)) || failed(c.require("self", self)))
    return failure();
  return c.succeed(Spec::like(self));
}

//===----------------------------------------------------------------------===//
// Padding
//===----------------------------------------------------------------------===//

LogicalResult padShape(RuleContext &c, RankedTensorType t, ArrayRef<int64_t> pad,
                       bool reflect, Shape &shape) {
  if (pad.size() % 2 != 0)
    return c.fail("the pad list " + describeShape(pad) + " must have an even length");
  if (static_cast<int64_t>(pad.size() / 2) > t.getRank())
    return c.fail("the pad list " + describeShape(pad) + " pads more dims than " +
                  describe(t) + " has");
  shape.assign(t.getShape().begin(), t.getShape().end());
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    int64_t d = t.getRank() - 1 - i, l = pad[2 * i], r = pad[2 * i + 1];
    if (reflect && (l >= shape[d] || r >= shape[d]))
      return c.fail("reflection padding (" + llvm::Twine(l) + ", " + llvm::Twine(r) +
                    ") must be smaller than dim " + llvm::Twine(d) + " of " +
                    describe(t));
    shape[d] = addSat(shape[d], addSat(l, r));
    if (shape[d] < 0)
      return c.fail("padding (" + llvm::Twine(l) + ", " + llvm::Twine(r) +
                    ") makes dim " + llvm::Twine(d) + " of " + describe(t) + " negative");
  }
  return success();
}

LogicalResult constantPad(RuleContext &c) {
  RankedTensorType t;
  Shape shape;
  std::optional<std::string> mode = c.str("mode");
  if (mode && !llvm::is_contained({"constant", "reflect", "replicate", "circular"}, *mode))
    return c.fail("unknown padding mode '" + *mode + "'");
  if (mode && *mode != "constant" && c.optFloat("value"))
    return c.fail("padding mode '" + *mode + "' takes no value");
  if (failed(c.require("self", t)) ||
      failed(padShape(c, t, c.getInts("pad"), mode && *mode == "reflect", shape)))
    return failure();
  return c.succeed(shape, t.getElementType());
}

LogicalResult namedPad(RuleContext &c) {
  StringRef name = c.getOp().getOpName();
  size_t n = spatialDims(name);
  RankedTensorType t;
  Shape pad = c.getInts("padding"), shape;
  if (pad.size() != 2 * n)
    return c.fail("'padding' " + describeShape(pad) + " must have " +
                  llvm::Twine(2 * n) + " entries");
  if (failed(c.require("self", t)) || failed(c.requireRank("self", t, n + 1, n + 2)) ||
      failed(padShape(c, t, pad, name.contains("reflection"), shape)))
    return failure();
  for (int64_t d : ArrayRef<int64_t>(shape).take_back(n))
    if (d < 1)
      return c.fail("padding " + describeShape(pad) + " leaves an empty dim of " +
                    describe(t));
  return c.succeed(shape, t.getElementType());
}

//===----------------------------------------------------------------------===//
// Resampling
//===----------------------------------------------------------------------===//

LogicalResult upsample(RuleContext &c) {
  StringRef in = c.has("input") ? "input" : "self";
  RankedTensorType t;
  if (failed(c.require(in, t)) || failed(c.requireRank(in, t, 4, 4)))
    return failure();
  std::optional<Shape> size = c.optInts("output_size");
  std::optional<SmallVector<double>> scales = c.optFloats("scale_factors");
  if (c.has("scale_factors") && size.has_value() == scales.has_value())
    return c.fail("give exactly one of output_size and scale_factors");
  Shape out;
  if (size) {
    out = *size;
  } else {
    if (scales->size() != 2)
      return c.fail("scale_factors must have 2 entries");
    for (int i = 0; i < 2; ++i) {
      std::optional<int64_t> d = toInt64(t.getDimSize(2 + i) * (*scales)[i]);
      if (!d)
        return c.fail("scale_factors give an output size that is not a number");
      out.push_back(*d);
    }
  }
  if (out.size() != 2)
    return c.fail("output_size " + describeShape(out) + " must have 2 entries");
  if (out[0] <= 0 || out[1] <= 0 || t.getDimSize(2) <= 0 || t.getDimSize(3) <= 0)
    return c.fail("input and output sizes must be positive (input " + describe(t) +
                  ", output " + describeShape(out) + ")");
  return c.succeed({t.getDimSize(0), t.getDimSize(1), out[0], out[1]}, t.getElementType());
}

LogicalResult gridSampler(RuleContext &c) {
  RankedTensorType in, grid;
  if (failed(c.require("input", in)) || failed(c.require("grid", grid)) ||
      failed(c.requireRank("input", in, 4, 4)) ||
      failed(c.requireRank("grid", grid, 4, 4)) ||
      failed(c.sameDtype("input", in, "grid", grid)))
    return failure();
  if (grid.getDimSize(0) != in.getDimSize(0) || grid.getDimSize(3) != 2)
    return c.fail("'grid' " + describe(grid) + " must be [N, H, W, 2] with the batch "
                  "size of 'input' " + describe(in));
  return c.succeed({in.getDimSize(0), in.getDimSize(1), grid.getDimSize(1), grid.getDimSize(2)},
                   in.getElementType());
}

/// im2col/col2im: the number of sliding blocks per spatial dim.
LogicalResult blocks(RuleContext &c, ArrayRef<int64_t> spatial, Shape &kernel,
                     Shape &out) {
  Shape dilation, padding, stride;
  if (failed(spatialParam(c, "kernel_size", 2, kernel)) ||
      failed(allAtLeast(c, "kernel_size", kernel, 1)) ||
      failed(spatialParam(c, "dilation", 2, dilation)) ||
      failed(allAtLeast(c, "dilation", dilation, 1)) ||
      failed(spatialParam(c, "padding", 2, padding)) ||
      failed(allAtLeast(c, "padding", padding, 0)) ||
      failed(spatialParam(c, "stride", 2, stride)) ||
      failed(allAtLeast(c, "stride", stride, 1)))
    return failure();
  for (int i = 0; i < 2; ++i) {
    int64_t n = windowCount(spatial[i], kernel[i], padding[i], stride[i], dilation[i],
                            false);
    if (n < 1)
      return c.fail("no sliding block fits in spatial size " + describeShape(spatial));
    out.push_back(n);
  }
  return success();
}

LogicalResult im2col(RuleContext &c, RankedTensorType t) {
  Shape kernel, n;
  if (failed(c.requireRank("self", t, 3, 4)) ||
      failed(blocks(c, t.getShape().take_back(2), kernel, n)))
    return failure();
  Shape shape(t.getShape().drop_back(3));
  shape.push_back(mulSat(t.getDimSize(t.getRank() - 3), mulSat(kernel[0], kernel[1])));
  shape.push_back(mulSat(n[0], n[1]));
  return c.succeed(shape, t.getElementType());
}

LogicalResult col2im(RuleContext &c, RankedTensorType t) {
  Shape size, kernel, n;
  if (failed(c.requireRank("self", t, 2, 3)) ||
      failed(spatialParam(c, "output_size", 2, size)) ||
      failed(blocks(c, size, kernel, n)))
    return failure();
  int64_t planes = t.getDimSize(t.getRank() - 2), length = t.getShape().back();
  int64_t window = mulSat(kernel[0], kernel[1]);
  if (planes % window != 0)
    return c.fail("dim " + llvm::Twine(t.getRank() - 2) + " of " + describe(t) +
                  " must be divisible by the kernel size " + describeShape(kernel));
  if (length != mulSat(n[0], n[1]))
    return c.fail("the last dim of " + describe(t) + " must be the number of sliding "
                  "blocks, " + llvm::Twine(mulSat(n[0], n[1])));
  Shape shape(t.getShape().drop_back(2));
  shape.push_back(planes / window);
  shape.append(size.begin(), size.end());
  return c.succeed(shape, t.getElementType());
}

LogicalResult pixelShuffle(RuleContext &c, RankedTensorType t) {
  if (failed(c.requireRank("self", t, 3, kMaxTensorRank)))
    return failure();
  bool up = c.has("upscale_factor");
  int64_t r = c.getInt(up ? "upscale_factor" : "downscale_factor");
  if (r <= 0)
    return c.fail("the factor must be positive, got " + llvm::Twine(r));
  Shape shape(t.getShape());
  int64_t &ch = shape[shape.size() - 3], &h = shape[shape.size() - 2],
          &w = shape.back();
  int64_t rr = mulSat(r, r);
  if (up) {
    if (ch % rr != 0)
      return c.fail("channels (" + llvm::Twine(ch) + ") must be divisible by " +
                    llvm::Twine(rr));
    ch /= rr;
    h = mulSat(h, r);
    w = mulSat(w, r);
  } else {
    if (h % r != 0 || w % r != 0)
      return c.fail("height and width of " + describe(t) + " must be divisible by " +
                    llvm::Twine(r));
    ch = mulSat(ch, rr);
    h /= r;
    w /= r;
  }
  return c.succeed(shape, t.getElementType());
}

} // namespace

void addNNRules(RuleTable &t) {
  addRules(t, {"conv1d", "conv2d", "conv3d", "conv1d.padding", "conv2d.padding",
               "conv3d.padding", "conv_transpose1d", "conv_transpose2d.input",
               "conv_transpose3d.input", "convolution", "_convolution"},
           convolution);
  addRules(t, {"convolution_backward"}, convolutionBackward);
  addRules(t, {"max_pool1d", "max_pool2d", "max_pool3d", "max_pool2d_with_indices",
               "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d"},
           pool);
  addRules(t, {"adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
               "_adaptive_avg_pool2d", "_adaptive_avg_pool3d", "adaptive_max_pool2d"},
           adaptivePool);
  addRules(t, {"max_pool2d_with_indices_backward", "avg_pool2d_backward",
               "_adaptive_avg_pool2d_backward"},
           poolBackward);
  addRules(t, {"constant_pad_nd", "pad"}, constantPad);
  addRules(t, {"reflection_pad1d", "reflection_pad2d", "reflection_pad3d",
               "replication_pad1d", "replication_pad2d", "replication_pad3d"},
           namedPad);
  addRules(t, {"upsample_nearest2d", "upsample_nearest2d.vec", "upsample_bilinear2d",
               "upsample_bilinear2d.vec", "_upsample_bilinear2d_aa"},
           upsample);
  addRules(t, {"grid_sampler_2d"}, gridSampler);
  addRules(t, {"im2col"}, onSelf<im2col>);
  addRules(t, {"col2im"}, onSelf<col2im>);
  addRules(t, {"pixel_shuffle", "pixel_unshuffle"}, onSelf<pixelShuffle>);
}

} // namespace ptec::exir::rules
