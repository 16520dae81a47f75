//===- ShapeRulesCompositeNN.cpp - recurrent, conv forms, pools, resampling -===//
//
// Rules of the composite NN ops that legalize-to-core-aten decomposes
// (composite_nn.txt): recurrent layers and cells, the older convolution
// entry points, the pools and resamplers without a kernel of their own,
// grid sampling and affine grids. The packed-sequence RNN forms (refused by
// the legalizer) take their declared types.
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ShapeRulesSupport.h"

using namespace mlir;

namespace ptec::exir::rules {
namespace {

/// `name`'s int list with one entry per spatial dim: one value repeats, an
/// empty list takes `dflt`.
LogicalResult perDim(RuleContext &c, StringRef name, size_t n, Shape &out,
                     ArrayRef<int64_t> dflt = {}, int64_t lo = 1) {
  out = c.getInts(name);
  if (out.empty())
    out.assign(dflt.begin(), dflt.end());
  if (out.size() == 1 && n > 1)
    out.assign(n, out.front());
  if (out.size() != n)
    return c.fail("'" + name + "' " + describeShape(out) + " must have 1 or " +
                  llvm::Twine(n) + " entries");
  for (int64_t v : out)
    if (v < lo)
      return c.fail("'" + name + "' " + describeShape(out) + " must be " +
                    (lo == 0 ? "non-negative" : "positive"));
  return success();
}

/// The number of spatial dims an op name says ("upsample_nearest3d" -> 3).
size_t spatialDimsOf(StringRef name, size_t dflt) {
  for (char d : {'1', '2', '3'})
    if (name.contains((llvm::Twine(d) + "d").str()))
      return d - '0';
  return dflt;
}

/// A batched input [N, C, spatial...] (or, where `unbatched`, [C, spatial...])
/// with non-empty channel and spatial dims.
LogicalResult spatialInput(RuleContext &c, StringRef name, size_t n, bool unbatched,
                           RankedTensorType &t) {
  if (failed(c.require(name, t)) ||
      failed(c.requireRank(name, t, unbatched ? n + 1 : n + 2, n + 2)))
    return failure();
  for (int64_t i = t.getRank() - n - 1; i < t.getRank(); ++i)
    if (t.getDimSize(i) <= 0)
      return c.fail("'" + name + "' " + describe(t) +
                    " must have non-empty channel and spatial dims");
  return success();
}

//===----------------------------------------------------------------------===//
// Recurrent layers and cells
//===----------------------------------------------------------------------===//

LogicalResult rnn(RuleContext &c) {
  RankedTensorType in;
  if (failed(c.require("input", in)) || failed(c.requireRank("input", in, 3, 3)))
    return failure();
  SmallVector<Value> hx = c.tensors("hx");
  bool lstm = c.getOp().getOpName().starts_with("aten::lstm");
  if (!lstm && c.tensor("hx"))
    hx = {c.tensor("hx")};
  if (hx.size() != (lstm ? 2u : 1u))
    return c.fail(lstm ? "'hx' must hold (h0, c0)" : "'hx' is missing");
  int64_t layers = c.getInt("num_layers"), dirs = c.getBool("bidirectional") ? 2 : 1;
  bool batchFirst = c.getBool("batch_first");
  int64_t T = in.getDimSize(batchFirst ? 1 : 0), B = in.getDimSize(batchFirst ? 0 : 1);
  if (layers < 1)
    return c.fail("num_layers must be positive, got " + llvm::Twine(layers));
  Shape hout;
  for (Value h : hx) {
    auto ht = llvm::dyn_cast<RankedTensorType>(h.getType());
    if (!ht || ht.getRank() != 3 || ht.getDimSize(0) != layers * dirs ||
        ht.getDimSize(1) != B || ht.getElementType() != in.getElementType())
      return c.fail("initial state " + describe(ht ? Spec::like(ht) : Spec::anyRank({})) +
                    " must be [num_layers * directions = " + llvm::Twine(layers * dirs) +
                    ", batch = " + llvm::Twine(B) + ", hidden] of " +
                    dtypeName(in.getElementType()));
    hout.push_back(ht.getDimSize(2));
  }
  Shape out = batchFirst ? Shape{B, T, dirs * hout[0]} : Shape{T, B, dirs * hout[0]};
  c.produce(out, in.getElementType());
  for (Value h : hx)
    c.produce(Spec::like(llvm::cast<RankedTensorType>(h.getType())));
  return success();
}

LogicalResult rnnCell(RuleContext &c) {
  RankedTensorType in;
  if (failed(c.require("input", in)))
    return failure();
  SmallVector<Value> hx = c.tensors("hx");
  if (c.getOp().getOpName() != "aten::lstm_cell" && c.tensor("hx"))
    hx = {c.tensor("hx")};
  if (hx.empty())
    return c.fail("'hx' is missing");
  for (Value h : hx) {
    auto ht = llvm::dyn_cast<RankedTensorType>(h.getType());
    if (!ht || ht.getElementType() != in.getElementType())
      return c.fail("the state must be a tensor of the input's dtype");
    c.produce(Spec::like(ht));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution forms
//===----------------------------------------------------------------------===//

/// _convolution.deprecated, _convolution_mode, thnn_conv2d, slow_conv3d:
/// batched input [N, C, spatial...], weight [O, C/groups, kernel...].
LogicalResult convForm(RuleContext &c) {
  StringRef in = c.has("input") ? "input" : "self";
  RankedTensorType x, w;
  if (failed(c.require(in, x)) || failed(c.require("weight", w)) ||
      failed(c.requireRank("weight", w, 3, 5)) ||
      failed(c.requireRank(in, x, w.getRank(), w.getRank())) ||
      failed(c.sameDtype(in, x, "weight", w)))
    return failure();
  size_t n = w.getRank() - 2;
  bool transposed = c.has("transposed") && c.getBool("transposed");
  int64_t groups = c.has("groups") ? c.getInt("groups") : 1;
  Shape stride, padding, dilation, outPad(n, 0);
  Shape ones(n, 1), zeros(n, 0);
  if (failed(perDim(c, "stride", n, stride, ones)) ||
      failed(c.has("dilation") ? perDim(c, "dilation", n, dilation, ones)
                               : (dilation = ones, success())))
    return failure();
  std::optional<std::string> mode = c.has("padding") ? c.str("padding") : std::nullopt;
  if (mode) {
    if (*mode != "same" && *mode != "valid")
      return c.fail("padding must be 'valid' or 'same', got '" + *mode + "'");
    padding = zeros;
  } else if (failed(perDim(c, "padding", n, padding, zeros, 0))) {
    return failure();
  }
  if (transposed && failed(perDim(c, "output_padding", n, outPad, zeros, 0)))
    return failure();
  if (groups < 1)
    return c.fail("groups must be positive");
  int64_t ch = x.getDimSize(1);
  int64_t wantCh = transposed ? w.getDimSize(0) : mulSat(w.getDimSize(1), groups);
  if (ch != wantCh)
    return c.fail("'weight' " + describe(w) + " with groups=" + llvm::Twine(groups) +
                  " does not take the " + llvm::Twine(ch) + " channels of " + describe(x));
  Shape shape = {x.getDimSize(0),
                 transposed ? mulSat(w.getDimSize(1), groups) : w.getDimSize(0)};
  for (size_t i = 0; i < n; ++i) {
    int64_t size = x.getDimSize(2 + i), k = w.getDimSize(2 + i);
    int64_t window = addSat(mulSat(dilation[i], k - 1), 1), out;
    if (transposed)
      out = addSat(subSat(mulSat(size - 1, stride[i]), mulSat(2, padding[i])),
                   addSat(window, outPad[i]));
    else if (mode && *mode == "same")
      out = size;
    else
      out = floorDiv(subSat(addSat(size, mulSat(2, padding[i])), window), stride[i]) + 1;
    if (out < 1)
      return c.fail("the kernel does not fit the input " + describe(x) + " in spatial dim " +
                    llvm::Twine(i));
    shape.push_back(out);
  }
  return c.succeed(shape, x.getElementType());
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

LogicalResult maxPool1dWithIndices(RuleContext &c) {
  RankedTensorType t;
  Shape kernel, stride, padding, dilation;
  if (failed(spatialInput(c, "self", 1, true, t)) ||
      failed(perDim(c, "kernel_size", 1, kernel)) ||
      failed(perDim(c, "stride", 1, stride, kernel)) ||
      failed(perDim(c, "padding", 1, padding, {0}, 0)) ||
      failed(perDim(c, "dilation", 1, dilation, {1})))
    return failure();
  int64_t window = addSat(mulSat(dilation[0], kernel[0] - 1), 1);
  if (padding[0] > kernel[0] / 2)
    return c.fail("padding must be at most half of the kernel");
  int64_t in = t.getShape().back();
  int64_t num = subSat(addSat(in, mulSat(2, padding[0])), window);
  bool ceil = c.getBool("ceil_mode");
  if (ceil)
    num = addSat(num, stride[0] - 1);
  int64_t out = floorDiv(num, stride[0]) + 1;
  if (ceil && mulSat(out - 1, stride[0]) >= addSat(in, padding[0]))
    --out;
  if (out < 1)
    return c.fail("the output would be empty (input " + describe(t) + ")");
  Shape shape(t.getShape().drop_back());
  shape.push_back(out);
  c.produce(shape, t.getElementType());
  return c.succeed(shape, c.i64());
}

/// adaptive_max_pool1d/3d and the fractional pools: output_size per
/// spatial dim, values and int64 indices.
LogicalResult sizedPool(RuleContext &c) {
  size_t n = spatialDimsOf(c.getOp().getOpName(), 2);
  RankedTensorType t;
  Shape size;
  if (failed(spatialInput(c, "self", n, true, t)) ||
      failed(perDim(c, "output_size", n, size, {}, 0)))
    return failure();
  Shape shape(t.getShape().drop_back(n));
  shape.append(size.begin(), size.end());
  c.produce(shape, t.getElementType());
  return c.succeed(shape, c.i64());
}

LogicalResult maxUnpool(RuleContext &c) {
  size_t n = spatialDimsOf(c.getOp().getOpName(), 2);
  RankedTensorType t, idx;
  Shape size;
  if (failed(spatialInput(c, "self", n, true, t)) || failed(c.require("indices", idx)) ||
      failed(perDim(c, "output_size", n, size, {}, 0)))
    return failure();
  if (idx.getShape() != t.getShape() || !idx.getElementType().isInteger(64))
    return c.fail("'indices' " + describe(idx) + " must be int64 shaped like " + describe(t));
  Shape shape(t.getShape().drop_back(n));
  shape.append(size.begin(), size.end());
  return c.succeed(shape, t.getElementType());
}

//===----------------------------------------------------------------------===//
// Resampling
//===----------------------------------------------------------------------===//

/// upsample_* of 1, 2 or 3 spatial dims: [N, C, spatial...] input; the
/// output size given, or each input size times its scale factor (truncated).
LogicalResult upsampleNd(RuleContext &c) {
  size_t n = spatialDimsOf(c.getOp().getOpName(), 2);
  StringRef in = c.has("input") ? "input" : "self";
  RankedTensorType t;
  if (failed(c.require(in, t)) || failed(c.requireRank(in, t, n + 2, n + 2)))
    return failure();
  std::optional<Shape> size = c.optInts("output_size");
  std::optional<SmallVector<double>> scales = c.optFloats("scale_factors");
  if (c.has("scale_factors") && size.has_value() == scales.has_value())
    return c.fail("give exactly one of output_size and scale_factors");
  Shape out;
  if (size) {
    out = *size;
  } else {
    if (scales->size() != n)
      return c.fail("scale_factors must have " + llvm::Twine(n) + " entries");
    for (size_t i = 0; i < n; ++i) {
      std::optional<int64_t> d = toInt64(t.getDimSize(2 + i) * (*scales)[i]);
      if (!d)
        return c.fail("scale_factors give an output size that is not a number");
      out.push_back(*d);
    }
  }
  if (out.size() != n)
    return c.fail("output_size " + describeShape(out) + " must have " + llvm::Twine(n) +
                  " entries");
  for (size_t i = 0; i < n; ++i)
    if (out[i] <= 0 || t.getDimSize(2 + i) <= 0)
      return c.fail("input and output sizes must be positive (input " + describe(t) +
                    ", output " + describeShape(out) + ")");
  Shape shape = {t.getDimSize(0), t.getDimSize(1)};
  shape.append(out.begin(), out.end());
  return c.succeed(shape, t.getElementType());
}

/// grid_sampler (2-D or 3-D by the input's rank) and grid_sampler_3d.
LogicalResult gridSamplerNd(RuleContext &c) {
  RankedTensorType in, grid;
  bool only3d = c.getOp().getOpName() == "aten::grid_sampler_3d";
  if (failed(c.require("input", in)) || failed(c.require("grid", grid)) ||
      failed(c.requireRank("input", in, only3d ? 5 : 4, 5)) ||
      failed(c.sameDtype("input", in, "grid", grid)))
    return failure();
  int64_t n = in.getRank() - 2;
  if (grid.getRank() != in.getRank() || grid.getDimSize(0) != in.getDimSize(0) ||
      grid.getShape().back() != n)
    return c.fail("'grid' " + describe(grid) + " must be [N, spatial..., " + llvm::Twine(n) +
                  "] with the batch size of 'input' " + describe(in));
  Shape shape = {in.getDimSize(0), in.getDimSize(1)};
  for (int64_t i = 1; i <= n; ++i)
    shape.push_back(grid.getDimSize(i));
  return c.succeed(shape, in.getElementType());
}

LogicalResult affineGrid(RuleContext &c) {
  RankedTensorType theta;
  if (failed(c.require("theta", theta)))
    return failure();
  Shape size = c.getInts("size");
  if (size.size() != 4 && size.size() != 5)
    return c.fail("'size' " + describeShape(size) + " must have 4 or 5 entries");
  int64_t n = size.size() - 2;
  if (!isFloating(theta.getElementType()) || theta.getRank() != 3 ||
      theta.getDimSize(0) != size[0] || theta.getDimSize(1) != n ||
      theta.getDimSize(2) != n + 1)
    return c.fail("'theta' " + describe(theta) + " must be a floating [" +
                  llvm::Twine(size[0]) + ", " + llvm::Twine(n) + ", " + llvm::Twine(n + 1) +
                  "] for size " + describeShape(size));
  Shape shape = {size[0]};
  shape.append(size.begin() + 2, size.end());
  shape.push_back(n);
  return c.succeed(shape, theta.getElementType());
}

} // namespace

void addCompositeNNRules(RuleTable &t) {
  addRules(t, {"gru.input", "lstm.input", "rnn_tanh.input", "rnn_relu.input"}, rnn);
  addRules(t, {"gru.data", "lstm.data", "rnn_tanh.data", "rnn_relu.data"}, declaredResults);
  addRules(t, {"gru_cell", "lstm_cell", "rnn_tanh_cell", "rnn_relu_cell"}, rnnCell);
  addRules(t, {"_convolution.deprecated", "_convolution_mode", "thnn_conv2d", "slow_conv3d"},
           convForm);
  addRules(t, {"max_pool1d_with_indices"}, maxPool1dWithIndices);
  addRules(t,
           {"adaptive_max_pool1d", "adaptive_max_pool3d", "fractional_max_pool2d",
            "fractional_max_pool3d"},
           sizedPool);
  addRules(t, {"max_unpool2d", "max_unpool3d"}, maxUnpool);
  addRules(t,
           {"upsample_nearest1d", "upsample_nearest1d.vec", "upsample_nearest3d",
            "upsample_nearest3d.vec", "_upsample_nearest_exact1d",
            "_upsample_nearest_exact1d.vec", "_upsample_nearest_exact2d",
            "_upsample_nearest_exact2d.vec", "_upsample_nearest_exact3d",
            "_upsample_nearest_exact3d.vec", "upsample_linear1d", "upsample_linear1d.vec",
            "upsample_trilinear3d", "upsample_trilinear3d.vec", "upsample_bicubic2d",
            "upsample_bicubic2d.vec", "_upsample_bicubic2d_aa", "_upsample_bicubic2d_aa.vec",
            "_upsample_bilinear2d_aa.vec", "_upsample_lanczos2d_aa",
            "_upsample_lanczos2d_aa.vec"},
           upsampleNd);
  addRules(t, {"grid_sampler", "grid_sampler_3d"}, gridSamplerNd);
  addRules(t, {"affine_grid_generator"}, affineGrid);
}

} // namespace ptec::exir::rules
