//===- LegalizeResample.cpp - upsampling, grid sampling, affine grids -----===//
//
// legalize-to-core-aten rewrites of the resampling ops the portable kernels
// lack. Where a kernel computes the same thing it is used: 1-D nearest and
// linear run the 2-D kernels (upsample_nearest2d.vec, upsample_bilinear2d.vec)
// over a unit height, default overloads whose scales agree with their output
// size become the .vec forms, _upsample_bilinear2d_aa.vec its default form
// and 4-D grid_sampler grid_sampler_2d.
//
// Everything else is separable: the output is resampled one spatial dim at
// a time, last dim first (the order in which torch's CPU kernels nest their
// sums), each dim as a sum over K taps: out[i] = sum_k w_k[i] * in[idx_k[i]]
// (index_select, mul, add). The tap indices and weights are computed on
// device from an arange, in the type torch's kernels use (float64 for
// float64 input, else float32; aten/src/ATen/native/UpSample.h):
//  - nearest: floor(i * scale) (the 2-D kernel's shortcuts for out == in
//    and out == 2*in kept); nearest-exact: floor((i + 0.5) * scale); clamped;
//  - linear: src = scale*(i+0.5)-0.5 (or scale*i with align_corners),
//    clamped at 0, taps floor(src) and the next, weights 1-l and l;
//  - bicubic: taps floor(src)-1 .. +2 clamped into the input, the cubic
//    convolution weights with A = -0.75;
//  - antialiased bicubic: taps over the filter's support widened by the
//    downscale factor, the cubic filter with A = -0.5, normalised; taps past
//    a window's end have weight 0 and are masked (0 * inf is not 0).
// Lanczos resampling is refused.
//
//===----------------------------------------------------------------------===//

#include "passes/LegalizeNNSupport.h"

#include <algorithm>
#include <cmath>

namespace ptec::legalize {
namespace {

enum class Mode { Nearest, NearestExact, Linear, Cubic, CubicAA };

/// What an upsample op asks for, per spatial dim.
struct Resample {
  Value x;
  size_t n = 0;
  SmallVector<int64_t> in, out;
  SmallVector<std::optional<double>> scales;
  bool align = false;
  bool fromFactors = false; // .vec with scale_factors
};

Resample parse(Legalizer &L) {
  Resample r;
  r.x = L.operand(L.operand("input") ? "input" : "self");
  RankedTensorType rt = L.resultType();
  r.n = rt.getRank() - 2;
  r.in.assign(tensorType(r.x).getShape().drop_front(2).begin(),
              tensorType(r.x).getShape().drop_front(2).end());
  r.out.assign(rt.getShape().drop_front(2).begin(), rt.getShape().drop_front(2).end());
  r.align = boolArg(L.op, "align_corners", false);
  r.scales.assign(r.n, std::nullopt);
  if (std::optional<SmallVector<double>> f = optFloats(L.op, "scale_factors")) {
    r.fromFactors = true;
    for (size_t i = 0; i < r.n && i < f->size(); ++i)
      r.scales[i] = (*f)[i];
    return r;
  }
  static const char *const names[3][3] = {
      {"scales", nullptr, nullptr},
      {"scales_h", "scales_w", nullptr},
      {"scales_d", "scales_h", "scales_w"}};
  for (size_t i = 0; i < r.n && r.n <= 3; ++i)
    r.scales[i] = optFloat(L.op, names[r.n - 1][i]);
  return r;
}

/// The scales say nothing the output sizes do not: every dim has one, and it
/// gives the output size as .vec would compute it.
bool scalesAgree(const Resample &r) {
  for (size_t i = 0; i < r.n; ++i)
    if (!r.scales[i] || static_cast<int64_t>(static_cast<double>(r.in[i]) * *r.scales[i]) !=
                            r.out[i])
      return false;
  return true;
}

bool noScales(const Resample &r) {
  return llvm::all_of(r.scales, [](const std::optional<double> &s) { return !s; });
}

/// torch's compute_scales_value<T> and area_pixel_compute_scale<T>, T the
/// kernels' opmath type: double for float64 input, float otherwise (nearest
/// always computes in float).
template <typename T> T scaleOf(int64_t in, int64_t out, std::optional<double> s) {
  if (s && *s > 0)
    return static_cast<T>(1.0 / *s);
  return static_cast<T>(in) / static_cast<T>(out);
}
template <typename T>
T areaScaleT(int64_t in, int64_t out, bool align, std::optional<double> s) {
  if (align)
    return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  return scaleOf<T>(in, out, s);
}
double areaScale(int64_t in, int64_t out, bool align, std::optional<double> s, bool dbl) {
  return dbl ? areaScaleT<double>(in, out, align, s) : areaScaleT<float>(in, out, align, s);
}

/// The taps of one dim: indices [Out] int64 and weights [Out] float (null
/// for nearest), with an optional mask [Out] bool of the taps that count.
struct Tap {
  Value idx, w, mask;
};

/// Sum over taps along dim `d` of v; weights broadcast along dim d.
Value applyTaps(NNOps &o, Value v, int64_t d, ArrayRef<Tap> taps) {
  int64_t rank = NNOps::typeOf(v).getRank();
  Value acc;
  for (const Tap &t : taps) {
    Value g = o.indexSelect(v, d, t.idx);
    if (t.w) {
      int64_t out = NNOps::typeOf(t.idx).getDimSize(0);
      SmallVector<int64_t> shape(rank - d, 1);
      shape[0] = out;
      g = o.mul(g, o.view(t.w, shape));
      if (t.mask) {
        Value zero = o.full({}, 0.0, getElementTypeOrSelf(v.getType()));
        g = o.where(o.view(t.mask, shape), g, zero);
      }
    }
    acc = acc ? o.add(acc, g) : g;
  }
  return acc;
}

/// The source coordinate scale*(i+0.5)-0.5 (or scale*i), [Out] of `ct`.
Value sourceIndex(NNOps &o, int64_t out, double scale, bool align, Type ct) {
  Value i = o.arange(out, ct);
  if (align)
    return o.mulS(i, scale);
  return o.subS(o.mulS(o.addS(i, 0.5), scale), 0.5);
}

/// Clamped int64 index from a float32 one.
Value toIndex(NNOps &o, Value f, int64_t in) {
  return o.clamp(o.toType(f, o.i64()), 0.0, static_cast<double>(in - 1));
}

/// `shortcuts`: torch's 2-D kernel copies when out == in and halves the
/// index when out == 2*in, whatever the scale; its 1-D and 3-D kernels do not.
SmallVector<Tap> nearestTaps(NNOps &o, int64_t in, int64_t out, std::optional<double> s,
                             bool exact, bool shortcuts) {
  if (!exact && (out == in && (shortcuts || !s)))
    return {};
  if (!exact && shortcuts && out == 2 * in)
    return {{o.make("aten::div.Scalar_mode", {{o.arange(out, o.i64())}},
                    {o.L.i64("other", 2), o.L.attr("rounding_mode", o.L.b.getStringAttr("floor"))}),
             {}, {}}};
  Value i = o.arange(out, o.f32());
  if (exact)
    i = o.addS(i, 0.5);
  Value src = o.unary("aten::floor", o.mulS(i, scaleOf<float>(in, out, s)));
  return {{toIndex(o, src, in), {}, {}}};
}

/// guard_index_and_lambda: the index floor(src) clamped to in-1 (as float),
/// and src minus it clamped into [0, 1].
std::pair<Value, Value> floorAndFraction(NNOps &o, Value src, int64_t in) {
  Value fl = o.clamp(o.unary("aten::floor", src), std::nullopt, static_cast<double>(in - 1));
  return {fl, o.clamp(o.sub(src, fl), 0.0, 1.0)};
}

SmallVector<Tap> linearTaps(NNOps &o, int64_t in, int64_t out, std::optional<double> s,
                            bool align, Type ct) {
  bool dbl = ct.isF64();
  Value src = o.clamp(sourceIndex(o, out, areaScale(in, out, align, s, dbl), align, ct), 0.0,
                      std::nullopt);
  auto [fl, l1] = floorAndFraction(o, src, in);
  Value i0 = toIndex(o, fl, in);
  Value i1 = o.clamp(o.addS(i0, 1), std::nullopt, static_cast<double>(in - 1));
  return {{i0, o.rsubS(l1, 1.0), {}}, {i1, l1, {}}};
}

/// ((A+2)x - (A+3))x^2 + 1 and ((Ax - 5A)x + 8A)x - 4A, as UpSample.h nests them.
Value cubic1(NNOps &o, Value x, double A) {
  return o.addS(o.mul(o.mul(o.subS(o.mulS(x, A + 2), A + 3), x), x), 1.0);
}
Value cubic2(NNOps &o, Value x, double A) {
  return o.subS(o.mul(o.addS(o.mul(o.subS(o.mulS(x, A), 5 * A), x), 8 * A), x), 4 * A);
}

SmallVector<Tap> cubicTaps(NNOps &o, int64_t in, int64_t out, std::optional<double> s,
                           bool align, Type ct) {
  const double A = -0.75;
  Value src = sourceIndex(o, out, areaScale(in, out, align, s, ct.isF64()), align,
                          ct); // not clamped
  auto [fl, t] = floorAndFraction(o, src, in);
  Value base = o.toType(fl, o.i64());
  Value t1 = o.rsubS(t, 1.0);
  Value w[4] = {cubic2(o, o.addS(t, 1.0), A), cubic1(o, t, A), cubic1(o, t1, A),
                cubic2(o, o.addS(t1, 1.0), A)};
  SmallVector<Tap> taps;
  for (int k = 0; k < 4; ++k)
    taps.push_back({o.clamp(o.addS(base, k - 1), 0.0, static_cast<double>(in - 1)), w[k], {}});
  return taps;
}

/// Antialiased bicubic (torch's separable AA kernels): support 2*scale
/// when downscaling, window [xmin, xmin + xsize) around scale*(i+0.5).
template <typename T>
int64_t widestAAWindow(int64_t in, int64_t out, T scale, T support) {
  int64_t K = 0;
  for (int64_t i = 0; i < out; ++i) {
    T center = scale * (static_cast<T>(i) + T(0.5));
    int64_t xmin = std::max<int64_t>(static_cast<int64_t>(center - support + T(0.5)), 0);
    int64_t xmax = std::min<int64_t>(static_cast<int64_t>(center + support + T(0.5)), in);
    K = std::max(K, xmax - xmin);
  }
  return K;
}

SmallVector<Tap> cubicAATaps(NNOps &o, int64_t in, int64_t out, std::optional<double> s,
                             bool align, Type ct) {
  const double A = -0.5;
  bool dbl = ct.isF64();
  double scale = areaScale(in, out, align, s, dbl);
  double support = scale >= 1.0 ? 2.0 * scale : 2.0;
  double invscale = scale >= 1.0 ? 1.0 / scale : 1.0;
  if (!dbl) {
    support = static_cast<float>(support);
    invscale = static_cast<float>(invscale);
  }
  // The widest window, computed as the kernel does, bounds the taps.
  int64_t K = dbl ? widestAAWindow<double>(in, out, scale, support)
                  : widestAAWindow<float>(in, out, static_cast<float>(scale),
                                          static_cast<float>(support));
  Value center = o.mulS(o.addS(o.arange(out, ct), 0.5), scale);
  Value xmin = o.clamp(o.toType(o.addS(o.subS(center, support), 0.5), o.i64()), 0.0,
                       std::nullopt);
  Value xmax = o.clamp(o.toType(o.addS(o.addS(center, support), 0.5), o.i64()), std::nullopt,
                       static_cast<double>(in));
  Value xsize = o.sub(xmax, xmin);
  Value xminF = o.toType(xmin, ct);
  SmallVector<Value> ws, masks;
  Value total;
  for (int64_t j = 0; j < K; ++j) {
    Value x = o.unary("aten::abs", o.mulS(o.addS(o.sub(o.addS(xminF, j), center), 0.5), invscale));
    Value zero = o.full({}, 0.0, ct);
    Value outer = cubic2(o, x, A);
    outer = o.where(o.compareS("aten::lt.Scalar", x, 2.0), outer, zero);
    Value inner = cubic1(o, x, A);
    Value w = o.where(o.compareS("aten::lt.Scalar", x, 1.0), inner, outer);
    Value mask = o.compareS("aten::gt.Scalar", xsize, j);
    w = o.where(mask, w, zero);
    ws.push_back(w);
    masks.push_back(mask);
    total = total ? o.add(total, w) : w;
  }
  // Normalised weights (all zero where the window is empty).
  Value zero = o.full({}, 0.0, ct);
  Value nonEmpty = o.compareS("aten::ne.Scalar", total, 0.0);
  SmallVector<Tap> taps;
  for (int64_t j = 0; j < K; ++j) {
    Value w = o.where(nonEmpty, o.div(ws[j], total), zero);
    Value idx = o.clamp(o.addS(xmin, j), std::nullopt, static_cast<double>(in - 1));
    taps.push_back({idx, w, masks[j]});
  }
  return taps;
}

SmallVector<Tap> tapsFor(NNOps &o, Mode m, const Resample &r, size_t i, Type ct) {
  switch (m) {
  case Mode::Nearest:
    return nearestTaps(o, r.in[i], r.out[i], r.scales[i], false, r.n == 2);
  case Mode::NearestExact:
    return nearestTaps(o, r.in[i], r.out[i], r.scales[i], true, false);
  case Mode::Linear:
    return linearTaps(o, r.in[i], r.out[i], r.scales[i], r.align, ct);
  case Mode::Cubic:
    return cubicTaps(o, r.in[i], r.out[i], r.scales[i], r.align, ct);
  case Mode::CubicAA:
    return cubicAATaps(o, r.in[i], r.out[i], r.scales[i], r.align, ct);
  }
  return {};
}

/// The separable resampling, last dim first. Interpolation computes in the
/// kernels' opmath type: float64 for float64 input, else float32 (half
/// types are widened and the result rounded back).
LogicalResult separable(Legalizer &L, Mode m) {
  Resample r = parse(L);
  Type e = getElementTypeOrSelf(r.x.getType());
  bool interpolates = m != Mode::Nearest && m != Mode::NearestExact;
  if (interpolates && !llvm::isa<FloatType>(e))
    return L.refuse("on a non-floating input is not supported");
  NNOps o(L);
  Type ct = e.isF64() ? Type(o.L.b.getF64Type()) : o.f32();
  Value v = interpolates ? o.toType(r.x, ct) : r.x;
  for (size_t i = r.n; i-- > 0;) {
    SmallVector<Tap> taps = tapsFor(o, m, r, i, ct);
    if (!taps.empty())
      v = applyTaps(o, v, 2 + i, taps);
  }
  if (v == r.x) // every dim kept its size: torch still returns a copy
    v = o.make("aten::clone", {{v}});
  return o.finish({o.toType(v, e)});
}

/// The 2-D kernel `name`.vec on `x` (a unit height added for 1-D), by
/// output size or, when the scales agree with it, by scale factors.
LogicalResult viaKernel(Legalizer &L, const Resample &r, StringRef name) {
  NNOps o(L);
  bool oneD = r.n == 1;
  Value x = oneD ? o.unsqueeze(r.x, 2) : r.x;
  SmallVector<NamedAttribute> attrs;
  if (r.fromFactors || (!noScales(r) && scalesAgree(r))) {
    SmallVector<double> f;
    if (oneD)
      f.push_back(1.0);
    for (const std::optional<double> &s : r.scales)
      f.push_back(*s);
    attrs = {L.none("output_size"), L.attr("scale_factors", L.b.getDenseF64ArrayAttr(f))};
  } else {
    SmallVector<int64_t> size;
    if (oneD)
      size.push_back(1);
    size.append(r.out.begin(), r.out.end());
    attrs = {L.ints("output_size", size), L.none("scale_factors")};
  }
  if (name.contains("bilinear"))
    attrs.push_back(L.boolean("align_corners", r.align));
  Value y = o.make(name, {{x}}, attrs);
  return o.finish({oneD ? o.squeeze(y, 2) : y});
}

LogicalResult nearest(Legalizer &L) {
  Resample r = parse(L);
  if (r.n <= 2 && (noScales(r) || scalesAgree(r)))
    return viaKernel(L, r, "aten::upsample_nearest2d.vec");
  return separable(L, Mode::Nearest);
}

LogicalResult linear(Legalizer &L) {
  Resample r = parse(L);
  if (r.n <= 2 && llvm::isa<FloatType>(getElementTypeOrSelf(r.x.getType())) &&
      (noScales(r) || scalesAgree(r)))
    return viaKernel(L, r, "aten::upsample_bilinear2d.vec");
  return separable(L, Mode::Linear);
}

/// _upsample_bilinear2d_aa.vec: its default form has a kernel.
LogicalResult bilinearAAVec(Legalizer &L) {
  Resample r = parse(L);
  NNOps o(L);
  SmallVector<NamedAttribute> attrs = {L.ints("output_size", r.out),
                                       L.boolean("align_corners", r.align)};
  attrs.push_back(r.scales[0] ? L.f64("scales_h", *r.scales[0]) : L.none("scales_h"));
  attrs.push_back(r.scales[1] ? L.f64("scales_w", *r.scales[1]) : L.none("scales_w"));
  return o.finish({o.make("aten::_upsample_bilinear2d_aa", {{r.x}}, attrs)});
}

LogicalResult lanczos(Legalizer &L) {
  return L.refuse("is not supported: no portable kernel computes Lanczos resampling and "
                  "ptec does not decompose it; use bicubic or bilinear with antialias=True");
}

//===----------------------------------------------------------------------===//
// Grid sampling and affine grids
//===----------------------------------------------------------------------===//

LogicalResult gridSampler(Legalizer &L) {
  RankedTensorType in = tensorType(L.operand("input"));
  if (!in || in.getRank() != 4)
    return L.refuse("on a volumetric (5-D) input is not supported: there is no "
                    "grid_sampler_3d kernel");
  NNOps o(L);
  SmallVector<NamedAttribute> attrs;
  for (StringRef n : {"interpolation_mode", "padding_mode", "align_corners"})
    if (Attribute a = L.op->getAttr(n))
      attrs.push_back(L.attr(n, a));
  return o.finish(
      {o.make("aten::grid_sampler_2d", {{L.operand("input")}, {L.operand("grid")}}, attrs)});
}

LogicalResult gridSampler3d(Legalizer &L) {
  return L.refuse("is not supported: there is no grid_sampler_3d kernel");
}

/// torch.linspace(-a, a, n) with a = (n-1)/n (1 with align_corners), as
/// float [n]; a single step is 0.
Value linspaceFromNegOne(NNOps &o, int64_t n, bool align, Type e) {
  if (n <= 1)
    return o.full({n}, 0.0, e);
  double a = align ? 1.0 : static_cast<double>(n - 1) / static_cast<double>(n);
  double step = 2 * a / static_cast<double>(n - 1);
  return o.addS(o.mulS(o.arange(n, e), step), -a);
}

/// The base grid [spatial..., n+1] of (x, y[, z], 1) times thetaᵀ, as bmm.
LogicalResult affineGrid(Legalizer &L) {
  Value theta = L.operand("theta");
  RankedTensorType tt = tensorType(theta);
  auto sizeAttr = L.op->getAttrOfType<DenseI64ArrayAttr>("size");
  if (!sizeAttr)
    return L.refuse("needs a constant size");
  SmallVector<int64_t> size(sizeAttr.asArrayRef());
  bool align = boolArg(L.op, "align_corners", false);
  int64_t n = size.size() - 2, N = size[0];
  Type e = tt.getElementType();
  SmallVector<int64_t> spatial(size.begin() + 2, size.end()); // [D,] H, W
  int64_t points = 1;
  for (int64_t d : spatial)
    points *= d;
  NNOps o(L);
  // Coordinate k of (x, y, z) varies along spatial dim n-1-k.
  SmallVector<Value> cols;
  for (int64_t k = 0; k < n; ++k) {
    int64_t dim = n - 1 - k;
    SmallVector<int64_t> shape(n + 1, 1);
    shape[dim] = spatial[dim];
    SmallVector<int64_t> full(spatial);
    full.push_back(1);
    cols.push_back(o.expand(o.view(linspaceFromNegOne(o, spatial[dim], align, e), shape), full));
  }
  SmallVector<int64_t> oneShape(spatial);
  oneShape.push_back(1);
  cols.push_back(o.full(oneShape, 1.0, e));
  Value base = o.view(o.cat(cols, n), {1, points, n + 1});
  base = o.expand(base, {N, points, n + 1});
  Value g = o.make("aten::bmm", {{base}, {o.permute(theta, {0, 2, 1})}});
  return o.finish({o.view(g, L.resultType().getShape())});
}

} // namespace

void addResampleLegalizations(LegalizeTable &t) {
  addLegalizations(t,
                   {"aten::upsample_nearest1d", "aten::upsample_nearest1d.vec",
                    "aten::upsample_nearest2d", "aten::upsample_nearest3d",
                    "aten::upsample_nearest3d.vec"},
                   nearest);
  addLegalizations(t,
                   {"aten::_upsample_nearest_exact1d", "aten::_upsample_nearest_exact1d.vec",
                    "aten::_upsample_nearest_exact2d", "aten::_upsample_nearest_exact2d.vec",
                    "aten::_upsample_nearest_exact3d", "aten::_upsample_nearest_exact3d.vec"},
                   [](Legalizer &L) { return separable(L, Mode::NearestExact); });
  addLegalizations(t,
                   {"aten::upsample_linear1d", "aten::upsample_linear1d.vec",
                    "aten::upsample_bilinear2d", "aten::upsample_trilinear3d",
                    "aten::upsample_trilinear3d.vec"},
                   linear);
  addLegalizations(t, {"aten::upsample_bicubic2d", "aten::upsample_bicubic2d.vec"},
                   [](Legalizer &L) { return separable(L, Mode::Cubic); });
  addLegalizations(t, {"aten::_upsample_bicubic2d_aa", "aten::_upsample_bicubic2d_aa.vec"},
                   [](Legalizer &L) { return separable(L, Mode::CubicAA); });
  addLegalizations(t, {"aten::_upsample_bilinear2d_aa.vec"}, bilinearAAVec);
  addLegalizations(t, {"aten::_upsample_lanczos2d_aa", "aten::_upsample_lanczos2d_aa.vec"},
                   lanczos);
  addLegalizations(t, {"aten::grid_sampler"}, gridSampler);
  addLegalizations(t, {"aten::grid_sampler_3d"}, gridSampler3d);
  addLegalizations(t, {"aten::affine_grid_generator"}, affineGrid);
}

} // namespace ptec::legalize
