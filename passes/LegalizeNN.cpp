//===- LegalizeNN.cpp - convolution forms and pools without kernels -------===//
//
// legalize-to-core-aten rewrites of the NN ops whose kernels ptec's (and
// upstream's) portable set lacks:
//  - convolution entry points (conv1d/2d/3d, also unbatched; conv*.padding
//    with 'same'/'valid'; conv_transpose*, _convolution, _convolution_mode,
//    thnn_conv2d, slow_conv3d) become `convolution` with every argument
//    spelled out (a batch dim added to unbatched input and removed again), as
//    torch's _convolution_same does for 'same' (an odd total padding adds one
//    zero on the right). The convolution kernel is 1-D/2-D only, so a 3-D
//    convolution (also a plain `convolution` op) becomes one 2-D convolution
//    over the depth taps folded into channels (grouped channels stay
//    contiguous), and a 3-D transposed one a 2-D transposed convolution whose
//    depth taps, folded into output channels, are added into their output
//    depths with strided slices;
//  - 1-D pools run the 2-D kernels on a unit height; 3-D average and max
//    pools are separable (the window, the divisor, ceil_mode and padding
//    factor per dim), so they run the 2-D kernel over (H, W), then over
//    (D, H*W); max indices are recombined with a gather;
//  - adaptive max pools gather each output's window (clamped to its last
//    element, which leaves the max and its first index unchanged) and take
//    max.dim; adaptive average pools run _adaptive_avg_pool2d the same way;
//  - max_unpool scatters into zeros with index_put on flat indices;
//  - im2col gathers the padded input's rows and columns of every kernel
//    offset (index_select); col2im adds each offset's blocks into the padded
//    image through strided slices (slice_scatter), in torch's order.
// Fractional max pools draw random windows and are refused.
//
//===----------------------------------------------------------------------===//

#include "passes/LegalizeNNSupport.h"

#include <algorithm>

namespace ptec::legalize {
namespace {

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

struct ConvArgs {
  SmallVector<int64_t> stride, padding, dilation, outPad;
  bool transposed = false;
  int64_t groups = 1;
};

Value convCall(NNOps &o, Value x, Value w, Value bias, ArrayRef<int64_t> stride,
               ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation, bool transposed,
               ArrayRef<int64_t> outPad, int64_t groups) {
  Legalizer &L = o.L;
  return o.make("aten::convolution", {{x}, {w}, bias ? Operands{bias} : Operands{}},
                {L.ints("stride", stride), L.ints("padding", padding),
                 L.ints("dilation", dilation), L.boolean("transposed", transposed),
                 L.ints("output_padding", outPad), L.i64("groups", groups)});
}

/// A 3-D convolution as one 2-D convolution: the KD depth taps of each
/// output depth are stacked next to the input channels (channel c*KD + kd),
/// which is the weight [O, C/g, KD, KH, KW] viewed as [O, C/g*KD, KH, KW].
Value conv3d(NNOps &o, Value x, Value w, Value bias, const ConvArgs &a) {
  RankedTensorType xt = NNOps::typeOf(x), wt = NNOps::typeOf(w);
  int64_t N = xt.getDimSize(0), C = xt.getDimSize(1), D = xt.getDimSize(2),
          H = xt.getDimSize(3), W = xt.getDimSize(4);
  int64_t O = wt.getDimSize(0), Cg = wt.getDimSize(1), KD = wt.getDimSize(2);
  int64_t Dp = D + 2 * a.padding[0];
  int64_t Do = (Dp - a.dilation[0] * (KD - 1) - 1) / a.stride[0] + 1;
  Value xp = o.pad(x, {0, 0, 0, 0, a.padding[0], a.padding[0]});
  SmallVector<Value> taps;
  for (int64_t kd = 0; kd < KD; ++kd) {
    int64_t start = kd * a.dilation[0];
    taps.push_back(o.slice(xp, 2, start, start + (Do - 1) * a.stride[0] + 1, a.stride[0]));
  }
  Value s = KD == 1 ? o.unsqueeze(taps[0], 2) : o.stack(taps, 2); // [N, C, KD, Do, H, W]
  s = o.view(o.permute(s, {0, 3, 1, 2, 4, 5}), {N * Do, C * KD, H, W});
  Value w2 = o.view(w, {O, Cg * KD, wt.getDimSize(3), wt.getDimSize(4)});
  Value y = convCall(o, s, w2, bias, {a.stride[1], a.stride[2]},
                     {a.padding[1], a.padding[2]}, {a.dilation[1], a.dilation[2]}, false,
                     {0, 0}, a.groups);
  if (!y)
    return {};
  RankedTensorType yt = NNOps::typeOf(y);
  Value y5 = o.view(y, {N, Do, O, yt.getDimSize(2), yt.getDimSize(3)});
  return o.permute(y5, {0, 2, 1, 3, 4});
}

/// A 3-D transposed convolution: a 2-D transposed one per input depth, its
/// output channels holding (channel, depth tap); each tap's planes are added
/// into output depths id*stride + kd*dilation, then the padding is cropped.
Value convTranspose3d(NNOps &o, Value x, Value w, Value bias, const ConvArgs &a) {
  RankedTensorType xt = NNOps::typeOf(x), wt = NNOps::typeOf(w);
  int64_t N = xt.getDimSize(0), Cin = xt.getDimSize(1), D = xt.getDimSize(2),
          H = xt.getDimSize(3), W = xt.getDimSize(4);
  int64_t Cg = wt.getDimSize(1), KD = wt.getDimSize(2), G = a.groups;
  int64_t Cout = Cg * G;
  int64_t sd = a.stride[0], dd = a.dilation[0], pd = a.padding[0];
  Value x2 = o.view(o.permute(x, {0, 2, 1, 3, 4}), {N * D, Cin, H, W});
  Value w2 = o.view(w, {Cin, Cg * KD, wt.getDimSize(3), wt.getDimSize(4)});
  Value y = convCall(o, x2, w2, Value(), {a.stride[1], a.stride[2]},
                     {a.padding[1], a.padding[2]}, {a.dilation[1], a.dilation[2]}, true,
                     {a.outPad[1], a.outPad[2]}, G);
  if (!y)
    return {};
  RankedTensorType yt = NNOps::typeOf(y);
  int64_t Ho = yt.getDimSize(2), Wo = yt.getDimSize(3);
  Value y7 = o.view(y, {N, D, G, Cg, KD, Ho, Wo});
  int64_t full = (D - 1) * sd + dd * (KD - 1) + 1 + a.outPad[0];
  Value acc = o.full({N, full, Cout, Ho, Wo}, 0.0, xt.getElementType());
  for (int64_t kd = 0; kd < KD; ++kd) {
    Value tap = o.view(o.select(y7, 4, kd), {N, D, Cout, Ho, Wo});
    int64_t start = kd * dd, end = start + (D - 1) * sd + 1;
    Value region = o.slice(acc, 1, start, end, sd);
    acc = o.make("aten::slice_scatter", {{acc}, {o.add(region, tap)}},
                 {o.L.i64("dim", 1), o.L.i64("start", start), o.L.i64("end", end),
                  o.L.i64("step", sd)});
  }
  Value out = o.permute(o.slice(acc, 1, pd, full - pd), {0, 2, 1, 3, 4});
  if (bias)
    out = o.add(out, o.view(bias, {1, Cout, 1, 1, 1}));
  return out;
}

/// `convolution` on a batched input, with 3-D decomposed.
Value convolution(NNOps &o, Value x, Value w, Value bias, const ConvArgs &a) {
  size_t n = NNOps::typeOf(w).getRank() - 2;
  if (n != 3)
    return convCall(o, x, w, bias, a.stride, a.padding, a.dilation, a.transposed, a.outPad,
                    a.groups);
  return a.transposed ? convTranspose3d(o, x, w, bias, a) : conv3d(o, x, w, bias, a);
}

/// Every convolution entry point: reads the arguments under their names in
/// this op's schema, pads for 'same', handles unbatched input.
LogicalResult convForm(Legalizer &L) {
  exir::AtenOp op = L.op;
  StringRef name = op.getOpName();
  Value x = L.operand(L.operand("input") ? "input" : "self"), w = L.operand("weight");
  RankedTensorType xt = tensorType(x), wt = tensorType(w);
  if (!xt || !wt || wt.getRank() < 3 || wt.getRank() > 5)
    return L.refuse("needs a weight of 3 to 5 dims");
  size_t n = wt.getRank() - 2;
  ConvArgs a;
  SmallVector<int64_t> ones(n, 1), zeros(n, 0);
  a.stride = spatialList(op, "stride", n, ones);
  a.dilation = spatialList(op, "dilation", n, ones);
  a.outPad = spatialList(op, "output_padding", n, zeros);
  a.transposed = name.contains("transpose") || boolArg(op, "transposed", false);
  a.groups = intArg(op, "groups", 1);
  if (!a.transposed)
    a.outPad = zeros;
  NNOps o(L);
  bool batched = xt.getRank() == wt.getRank();
  if (!batched && xt.getRank() + 1 != wt.getRank())
    return L.refuse("needs an input of " + Twine(wt.getRank()) + " (or " +
                    Twine(wt.getRank() - 1) + ") dims");
  if (!batched)
    x = o.unsqueeze(x, 0);
  if (auto mode = op->getAttrOfType<StringAttr>("padding")) {
    // torch's _convolution_same: total dilation*(k-1), the odd one on the right.
    a.padding = zeros;
    if (mode.getValue() == "same") {
      SmallVector<int64_t> extra;
      for (size_t i = 0; i < n; ++i) {
        int64_t total = a.dilation[i] * (wt.getDimSize(2 + i) - 1);
        a.padding[i] = total / 2;
        extra.push_back(total % 2);
      }
      SmallVector<int64_t> pad;
      for (size_t i = n; i-- > 0;)
        pad.append({0, extra[i]});
      x = o.pad(x, pad);
    } else if (mode.getValue() != "valid") {
      return L.refuse("with padding '" + mode.getValue() + "' is not supported");
    }
  } else {
    a.padding = spatialList(op, "padding", n, zeros);
  }
  if (a.stride.size() != n || a.padding.size() != n || a.dilation.size() != n ||
      a.outPad.size() != n)
    return L.refuse("needs stride/padding/dilation lists of 1 or " + Twine(n) + " entries");
  Value y = convolution(o, x, w, L.operand("bias"), a);
  if (!batched)
    y = o.squeeze(y, 0);
  return o.finish({y});
}

/// A plain `convolution`: kept when the kernel runs it (1-D, 2-D), also on
/// run-time shapes; the 3-D decomposition needs static ones.
LogicalResult convolutionOp(Legalizer &L) {
  RankedTensorType wt = tensorType(L.operand("weight"));
  if (!wt || wt.getRank() != 5)
    return success();
  if (L.dynamic)
    return L.refuse("in 3-D on a dynamically shaped value is not supported yet: the kernel "
                    "is 1-D/2-D and its 3-D decomposition needs static shapes");
  return convForm(L);
}

//===----------------------------------------------------------------------===//
// Pools
//===----------------------------------------------------------------------===//

/// [.., L] -> [.., 1, L] for a 2-D kernel, and back.
Value unitHeight(NNOps &o, Value x) { return o.unsqueeze(x, NNOps::typeOf(x).getRank() - 1); }

LogicalResult avgPool1d(Legalizer &L) {
  exir::AtenOp op = L.op;
  SmallVector<int64_t> k = spatialList(op, "kernel_size", 1, {});
  SmallVector<int64_t> s = spatialList(op, "stride", 1, k);
  SmallVector<int64_t> p = spatialList(op, "padding", 1, {0});
  NNOps o(L);
  Value x = unitHeight(o, L.operand("self"));
  Value y = o.make("aten::avg_pool2d", {{x}},
                   {L.ints("kernel_size", {1, k[0]}), L.ints("stride", {1, s[0]}),
                    L.ints("padding", {0, p[0]}),
                    L.boolean("ceil_mode", boolArg(op, "ceil_mode", false)),
                    L.boolean("count_include_pad", boolArg(op, "count_include_pad", true))});
  return o.finish({o.squeeze(y, -2)});
}

/// [.., C, D, H, W] as [N, C*D, H, W] (the 2-D pass) and [N, C, D, H*W]
/// (the depth pass); N is 1 for an unbatched input.
struct Planes {
  int64_t N, C, D, H, W;
};

Planes planesOf(Value x) {
  RankedTensorType t = NNOps::typeOf(x);
  ArrayRef<int64_t> s = t.getShape().take_back(4);
  return {t.getRank() == 5 ? t.getDimSize(0) : 1, s[0], s[1], s[2], s[3]};
}

LogicalResult avgPool3d(Legalizer &L) {
  exir::AtenOp op = L.op;
  SmallVector<int64_t> k = spatialList(op, "kernel_size", 3, {});
  SmallVector<int64_t> s = spatialList(op, "stride", 3, k);
  SmallVector<int64_t> p = spatialList(op, "padding", 3, {0});
  std::optional<int64_t> div;
  if (auto d = op->getAttrOfType<IntegerAttr>("divisor_override"))
    div = d.getInt();
  bool ceil = boolArg(op, "ceil_mode", false), cip = boolArg(op, "count_include_pad", true);
  Value x = L.operand("self");
  Planes g = planesOf(x);
  NNOps o(L);
  auto pass = [&](Value v, ArrayRef<int64_t> kk, ArrayRef<int64_t> ss, ArrayRef<int64_t> pp,
                  std::optional<int64_t> d) {
    return o.make("aten::avg_pool2d", {{v}},
                  {L.ints("kernel_size", kk), L.ints("stride", ss), L.ints("padding", pp),
                   L.boolean("ceil_mode", ceil), L.boolean("count_include_pad", cip),
                   d ? L.i64("divisor_override", *d) : L.none("divisor_override")});
  };
  // With divisor_override the first pass sums (divisor 1), the second divides.
  Value hw = pass(o.view(x, {g.N, g.C * g.D, g.H, g.W}), {k[1], k[2]}, {s[1], s[2]},
                  {p[1], p[2]}, div ? std::optional<int64_t>(1) : std::nullopt);
  if (!hw)
    return failure();
  int64_t Ho = NNOps::typeOf(hw).getDimSize(2), Wo = NNOps::typeOf(hw).getDimSize(3);
  Value d = pass(o.view(hw, {g.N, g.C, g.D, Ho * Wo}), {k[0], 1}, {s[0], 1}, {p[0], 0}, div);
  return o.finish({o.view(d, L.resultType().getShape())});
}

/// max_pool1d(_with_indices): the 2-D kernel over a unit height.
LogicalResult maxPool1d(Legalizer &L) {
  exir::AtenOp op = L.op;
  SmallVector<int64_t> k = spatialList(op, "kernel_size", 1, {});
  SmallVector<int64_t> s = spatialList(op, "stride", 1, k);
  SmallVector<int64_t> p = spatialList(op, "padding", 1, {0});
  SmallVector<int64_t> d = spatialList(op, "dilation", 1, {1});
  NNOps o(L);
  SmallVector<Value> r = o.makeAll(
      "aten::max_pool2d_with_indices", {{unitHeight(o, L.operand("self"))}},
      {L.ints("kernel_size", {1, k[0]}), L.ints("stride", {1, s[0]}),
       L.ints("padding", {0, p[0]}), L.ints("dilation", {1, d[0]}),
       L.boolean("ceil_mode", boolArg(op, "ceil_mode", false))});
  if (r.size() != 2)
    return failure();
  if (op->getNumResults() == 1)
    return o.finish({o.squeeze(r[0], -2)});
  return o.finish({o.squeeze(r[0], -2), o.squeeze(r[1], -2)});
}

/// max_pool3d(_with_indices): over (H, W), then over (D, H*W). The index
/// of the second pass is d*(Ho*Wo) + j; the first pass's flat h*W + w at
/// (d, j) completes it to d*H*W + h*W + w.
LogicalResult maxPool3d(Legalizer &L) {
  exir::AtenOp op = L.op;
  SmallVector<int64_t> k = spatialList(op, "kernel_size", 3, {});
  SmallVector<int64_t> s = spatialList(op, "stride", 3, k);
  SmallVector<int64_t> p = spatialList(op, "padding", 3, {0});
  SmallVector<int64_t> dl = spatialList(op, "dilation", 3, {1});
  bool ceil = boolArg(op, "ceil_mode", false);
  Value x = L.operand("self");
  Planes g = planesOf(x);
  NNOps o(L);
  auto pass = [&](Value v, ArrayRef<int64_t> kk, ArrayRef<int64_t> ss, ArrayRef<int64_t> pp,
                  ArrayRef<int64_t> dd) {
    return o.makeAll("aten::max_pool2d_with_indices", {{v}},
                     {L.ints("kernel_size", kk), L.ints("stride", ss), L.ints("padding", pp),
                      L.ints("dilation", dd), L.boolean("ceil_mode", ceil)});
  };
  SmallVector<Value> hw = pass(o.view(x, {g.N, g.C * g.D, g.H, g.W}), {k[1], k[2]},
                               {s[1], s[2]}, {p[1], p[2]}, {dl[1], dl[2]});
  if (hw.size() != 2)
    return failure();
  int64_t Ho = NNOps::typeOf(hw[0]).getDimSize(2), Wo = NNOps::typeOf(hw[0]).getDimSize(3);
  SmallVector<Value> dp = pass(o.view(hw[0], {g.N, g.C, g.D, Ho * Wo}), {k[0], 1}, {s[0], 1},
                               {p[0], 0}, {dl[0], 1});
  if (dp.size() != 2)
    return failure();
  ArrayRef<int64_t> shape = L.resultType().getShape();
  Value values = o.view(dp[0], shape);
  if (op->getNumResults() == 1)
    return o.finish({values});
  int64_t Do = NNOps::typeOf(dp[1]).getDimSize(2);
  Value idx2 = o.view(dp[1], {g.N, g.C, Do * Ho * Wo});
  Value hwIdx = o.make("aten::gather", {{o.view(hw[1], {g.N, g.C, g.D * Ho * Wo})}, {idx2}},
                       {L.i64("dim", 2)});
  Value depth = o.make("aten::div.Scalar_mode", {{idx2}},
                       {L.i64("other", Ho * Wo), L.attr("rounding_mode", L.b.getStringAttr("floor"))});
  Value idx = o.add(o.mulS(depth, static_cast<double>(g.H * g.W)), hwIdx);
  return o.finish({values, o.view(idx, shape)});
}

LogicalResult adaptiveAvgPool1d(Legalizer &L) {
  SmallVector<int64_t> size = spatialList(L.op, "output_size", 1, {});
  NNOps o(L);
  Value y = o.make("aten::_adaptive_avg_pool2d", {{unitHeight(o, L.operand("self"))}},
                   {L.ints("output_size", {1, size[0]})});
  return o.finish({o.squeeze(y, -2)});
}

LogicalResult adaptiveAvgPool3d(Legalizer &L) {
  SmallVector<int64_t> size = spatialList(L.op, "output_size", 3, {});
  Value x = L.operand("self");
  Planes g = planesOf(x);
  NNOps o(L);
  ArrayRef<int64_t> shape = L.resultType().getShape();
  if (llvm::all_of(size, [](int64_t v) { return v == 1; }))
    return o.finish({o.make("aten::mean.dim", {{x}},
                            {L.ints("dim", {-3, -2, -1}), L.boolean("keepdim", true)})});
  Value hw = o.make("aten::_adaptive_avg_pool2d", {{o.view(x, {g.N, g.C * g.D, g.H, g.W})}},
                    {L.ints("output_size", {size[1], size[2]})});
  Value d = o.make("aten::_adaptive_avg_pool2d",
                   {{o.view(hw, {g.N, g.C, g.D, size[1] * size[2]})}},
                   {L.ints("output_size", {size[0], size[1] * size[2]})});
  return o.finish({o.view(d, shape)});
}

/// Adaptive max pooling over the last n dims of x: each output's window
/// [floor(i*In/Out), ceil((i+1)*In/Out)) padded to the widest window K by
/// repeating its last index. Returns values and flat indices.
LogicalResult adaptiveMaxPool(Legalizer &L, size_t n) {
  SmallVector<int64_t> size = spatialList(L.op, "output_size", n, {});
  Value x = L.operand("self");
  RankedTensorType xt = tensorType(x);
  if (!xt || size.size() != n)
    return L.refuse("needs an output size per spatial dim");
  if (llvm::any_of(size, [](int64_t v) { return v < 1; }))
    return L.refuse("with an empty output is not supported");
  ArrayRef<int64_t> in = xt.getShape().take_back(n);
  int64_t lead = xt.getRank() - n;
  NNOps o(L);
  Type i64 = o.i64();
  // Evenly divided 1-D/2-D windows: the max_pool2d kernel, as torch decomposes it.
  bool even = true;
  for (size_t i = 0; i < n; ++i)
    even &= size[i] > 0 && in[i] % size[i] == 0;
  if (even && n <= 2) {
    int64_t kh = n == 2 ? in[0] / size[0] : 1, kw = in[n - 1] / size[n - 1];
    Value v = n == 1 ? unitHeight(o, x) : x;
    SmallVector<Value> r = o.makeAll("aten::max_pool2d_with_indices", {{v}},
                                     {L.ints("kernel_size", {kh, kw})});
    if (r.size() != 2)
      return failure();
    if (n == 1)
      return o.finish({o.squeeze(r[0], -2), o.squeeze(r[1], -2)});
    return o.finish({r[0], r[1]});
  }
  SmallVector<Value> tables; // [Out_i, K_i] int64
  SmallVector<int64_t> K;
  Value v = x;
  for (size_t i = 0; i < n; ++i) {
    int64_t In = in[i], Out = size[i], widest = 0;
    for (int64_t j = 0; j < Out; ++j)
      widest = std::max(widest, ((j + 1) * In + Out - 1) / Out - (j * In) / Out);
    K.push_back(widest);
    auto floorDiv = [&](Value t) {
      return o.make("aten::div.Scalar_mode", {{t}},
                    {L.i64("other", Out), L.attr("rounding_mode", L.b.getStringAttr("floor"))});
    };
    Value i0 = o.mulS(o.arange(Out, i64), static_cast<double>(In));
    Value start = floorDiv(i0);
    Value last = o.subS(floorDiv(o.addS(i0, static_cast<double>(In + Out - 1))), 1);
    Value offsets = o.view(o.arange(widest, i64), {1, widest});
    Value taps = o.add(o.view(start, {Out, 1}), offsets);
    Value table = o.make("aten::minimum", {{taps}, {o.view(last, {Out, 1})}});
    tables.push_back(table);
    v = o.indexSelect(v, lead + i, o.view(table, {Out * widest}));
  }
  // v: [lead.., Out0*K0, Out1*K1, ..] -> [lead.., Out0, Out1, .., K0*K1*..].
  SmallVector<int64_t> split(xt.getShape().take_front(lead)), perm, flat;
  for (int64_t i = 0; i < lead; ++i)
    perm.push_back(i);
  int64_t window = 1;
  for (size_t i = 0; i < n; ++i) {
    split.append({size[i], K[i]});
    window *= K[i];
  }
  for (size_t i = 0; i < n; ++i)
    perm.push_back(lead + 2 * i);
  for (size_t i = 0; i < n; ++i)
    perm.push_back(lead + 2 * i + 1);
  flat.assign(xt.getShape().take_front(lead).begin(), xt.getShape().take_front(lead).end());
  flat.append(size.begin(), size.end());
  flat.push_back(window);
  Value windows = o.view(o.permute(o.view(v, split), perm), flat);
  SmallVector<Value> mx = o.makeAll("aten::max.dim", {{windows}},
                                    {L.i64("dim", -1), L.boolean("keepdim", true)});
  if (mx.size() != 2)
    return failure();
  // The flat input index of every window entry: sum_i table_i * stride_i.
  Value index;
  int64_t stride = 1;
  for (size_t i = n; i-- > 0;) {
    SmallVector<int64_t> shape(2 * n, 1);
    shape[i] = size[i];
    shape[n + i] = K[i];
    Value term = o.view(o.mulS(tables[i], static_cast<double>(stride)), shape);
    index = index ? o.add(term, index) : term;
    stride *= in[i];
  }
  SmallVector<int64_t> tableShape(size.begin(), size.end());
  tableShape.push_back(window);
  index = o.expand(o.view(index, tableShape), flat);
  Value picked = o.make("aten::gather", {{index}, {mx[1]}}, {L.i64("dim", -1)});
  return o.finish({o.squeeze(mx[0], -1), o.squeeze(picked, -1)});
}

/// max_unpool2d/3d: zeros, then index_put of each value at its plane's
/// offset plus its flat index.
LogicalResult maxUnpool(Legalizer &L, size_t n) {
  Value x = L.operand("self"), idx = L.operand("indices");
  RankedTensorType xt = tensorType(x);
  RankedTensorType rt = L.resultType();
  int64_t planes = 1, plane = 1;
  for (int64_t d : xt.getShape().drop_back(n))
    planes *= d;
  for (int64_t d : rt.getShape().take_back(n))
    plane *= d;
  NNOps o(L);
  SmallVector<int64_t> offShape(xt.getShape().drop_back(n));
  offShape.append(n, 1);
  Value offsets = o.view(o.mulS(o.arange(planes, o.i64()), static_cast<double>(plane)), offShape);
  Value flatIdx = o.view(o.add(idx, offsets), {xt.getNumElements()});
  Value zeros = o.full({rt.getNumElements()}, 0.0, xt.getElementType());
  Value out = o.make("aten::index_put", {{zeros}, {flatIdx}, {o.view(x, {xt.getNumElements()})}},
                     {L.attr("indices", L.b.getDenseBoolArrayAttr({true}))});
  return o.finish({o.view(out, rt.getShape())});
}

LogicalResult fractionalMaxPool(Legalizer &L) {
  return L.refuse("is not supported: its windows come from random samples (torch draws "
                  "them at each call); use max_pool2d/3d or adaptive_max_pool for a "
                  "deterministic pool");
}


//===----------------------------------------------------------------------===//
// im2col / col2im
//===----------------------------------------------------------------------===//

struct Blocks {
  SmallVector<int64_t> kernel, dilation, padding, stride, count;
};

Blocks blocksOf(exir::AtenOp op, ArrayRef<int64_t> spatial) {
  Blocks b;
  b.kernel = spatialList(op, "kernel_size", 2, {1});
  b.dilation = spatialList(op, "dilation", 2, {1});
  b.padding = spatialList(op, "padding", 2, {0});
  b.stride = spatialList(op, "stride", 2, {1});
  for (int i = 0; i < 2; ++i)
    b.count.push_back((spatial[i] + 2 * b.padding[i] - b.dilation[i] * (b.kernel[i] - 1) - 1) /
                          b.stride[i] +
                      1);
  return b;
}

/// im2col: rows of the zero-padded input at k*dilation + i*stride, gathered
/// per dim as a [K * count] index, then (c, kh, kw) x (bh, bw) ordered.
LogicalResult im2col(Legalizer &L) {
  Value x = L.operand("self");
  RankedTensorType xt = tensorType(x);
  bool batched = xt.getRank() == 4;
  NNOps o(L);
  Value v = batched ? x : o.unsqueeze(x, 0);
  RankedTensorType vt = NNOps::typeOf(v);
  int64_t N = vt.getDimSize(0), C = vt.getDimSize(1);
  Blocks b = blocksOf(L.op, vt.getShape().take_back(2));
  v = o.pad(v, {b.padding[1], b.padding[1], b.padding[0], b.padding[0]});
  for (int i = 0; i < 2; ++i) {
    int64_t K = b.kernel[i], B = b.count[i];
    Value starts = o.view(o.arange(0, B * b.stride[i], b.stride[i], o.i64()), {1, B});
    Value offs = o.view(o.arange(0, K * b.dilation[i], b.dilation[i], o.i64()), {K, 1});
    v = o.indexSelect(v, 2 + i, o.view(o.add(offs, starts), {K * B}));
  }
  int64_t KH = b.kernel[0], KW = b.kernel[1], BH = b.count[0], BW = b.count[1];
  v = o.view(v, {N, C, KH, BH, KW, BW});
  v = o.view(o.permute(v, {0, 1, 2, 4, 3, 5}), {N, C * KH * KW, BH * BW});
  return o.finish({batched ? v : o.squeeze(v, 0)});
}

/// col2im: each kernel offset's blocks added into the padded image at
/// k*dilation + i*stride (strided slices, in torch's (kh, kw) order), then
/// the padding cropped.
LogicalResult col2im(Legalizer &L) {
  Value x = L.operand("self");
  RankedTensorType xt = tensorType(x);
  bool batched = xt.getRank() == 3;
  auto sizeAttr = L.op->getAttrOfType<DenseI64ArrayAttr>("output_size");
  if (!sizeAttr || sizeAttr.size() != 2)
    return L.refuse("needs a constant 2-entry output_size");
  SmallVector<int64_t> size(sizeAttr.asArrayRef());
  NNOps o(L);
  Value v = batched ? x : o.unsqueeze(x, 0);
  RankedTensorType vt = NNOps::typeOf(v);
  Blocks b = blocksOf(L.op, size);
  int64_t N = vt.getDimSize(0), KH = b.kernel[0], KW = b.kernel[1];
  int64_t C = vt.getDimSize(1) / (KH * KW), BH = b.count[0], BW = b.count[1];
  int64_t H = size[0] + 2 * b.padding[0], W = size[1] + 2 * b.padding[1];
  Value cols = o.view(v, {N, C, KH, KW, BH, BW});
  Value img = o.full({N, C, H, W}, 0.0, vt.getElementType());
  for (int64_t kh = 0; kh < KH; ++kh) {
    int64_t h0 = kh * b.dilation[0], h1 = h0 + (BH - 1) * b.stride[0] + 1;
    for (int64_t kw = 0; kw < KW; ++kw) {
      int64_t w0 = kw * b.dilation[1], w1 = w0 + (BW - 1) * b.stride[1] + 1;
      Value blk = o.select(o.select(cols, 2, kh), 2, kw); // [N, C, BH, BW]
      Value rows = o.slice(img, 2, h0, h1, b.stride[0]);
      Value region = o.slice(rows, 3, w0, w1, b.stride[1]);
      rows = o.make("aten::slice_scatter", {{rows}, {o.add(region, blk)}},
                    {L.i64("dim", 3), L.i64("start", w0), L.i64("end", w1),
                     L.i64("step", b.stride[1])});
      img = o.make("aten::slice_scatter", {{img}, {rows}},
                   {L.i64("dim", 2), L.i64("start", h0), L.i64("end", h1),
                    L.i64("step", b.stride[0])});
    }
  }
  img = o.slice(o.slice(img, 2, b.padding[0], b.padding[0] + size[0]), 3, b.padding[1],
                b.padding[1] + size[1]);
  return o.finish({batched ? img : o.squeeze(img, 0)});
}
} // namespace

void addNNLegalizations(LegalizeTable &t) {
  addLegalizations(t,
                   {"aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::conv1d.padding", "aten::conv2d.padding",
                    "aten::conv3d.padding", "aten::conv_transpose1d",
                    "aten::conv_transpose2d.input", "aten::conv_transpose3d.input",
                    "aten::_convolution", "aten::_convolution.deprecated",
                    "aten::_convolution_mode", "aten::thnn_conv2d", "aten::slow_conv3d"},
                   convForm);
  addLegalizations(t, {"aten::convolution"}, convolutionOp, Dynamic::Handled);
  addLegalizations(t, {"aten::avg_pool1d"}, avgPool1d);
  addLegalizations(t, {"aten::avg_pool3d"}, avgPool3d);
  addLegalizations(t, {"aten::max_pool1d", "aten::max_pool1d_with_indices"}, maxPool1d);
  addLegalizations(t, {"aten::max_pool3d", "aten::max_pool3d_with_indices"}, maxPool3d);
  addLegalizations(t, {"aten::adaptive_avg_pool1d"}, adaptiveAvgPool1d);
  addLegalizations(t, {"aten::adaptive_avg_pool3d", "aten::_adaptive_avg_pool3d"},
                   adaptiveAvgPool3d);
  addLegalizations(t, {"aten::adaptive_max_pool1d"},
                   [](Legalizer &L) { return adaptiveMaxPool(L, 1); });
  addLegalizations(t, {"aten::adaptive_max_pool2d"},
                   [](Legalizer &L) { return adaptiveMaxPool(L, 2); });
  addLegalizations(t, {"aten::adaptive_max_pool3d"},
                   [](Legalizer &L) { return adaptiveMaxPool(L, 3); });
  addLegalizations(t, {"aten::max_unpool2d"}, [](Legalizer &L) { return maxUnpool(L, 2); });
  addLegalizations(t, {"aten::max_unpool3d"}, [](Legalizer &L) { return maxUnpool(L, 3); });
  addLegalizations(t, {"aten::fractional_max_pool2d", "aten::fractional_max_pool3d"},
                   fractionalMaxPool);
  addLegalizations(t, {"aten::im2col"}, im2col);
  addLegalizations(t, {"aten::col2im"}, col2im);
}

} // namespace ptec::legalize
