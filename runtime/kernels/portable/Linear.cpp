// Matrix products (mm, bmm, addmm) and convolution (and its backward), on
// Eigen GEMMs over the caller's memory. Convolution is im2col + GEMM with
// the im2col matrix in the temp allocator; without enough scratch it falls
// back to a direct loop. Integer and float16/bfloat16 operands, and
// transposed convolution, take plain loops that accumulate in int64 or double.
#include "runtime/kernels/portable/Kernels.h"
#include "runtime/kernels/portable/Spatial.h"

#include <Eigen/Core>

#include <algorithm>
#include <type_traits>

namespace ptec::rt::portable {

namespace {

/// Eigen's packing buffers, placed in memory we own so that its GEMM never
/// allocates (it otherwise falls back to the heap for large blocks).
template <typename T>
class ScratchBlocking : public Eigen::internal::level3_blocking<T, T> {
public:
  ScratchBlocking(T *a, T *b, Eigen::Index mc, Eigen::Index nc, Eigen::Index kc) {
    this->m_blockA = a;
    this->m_blockB = b;
    this->m_mc = mc;
    this->m_nc = nc;
    this->m_kc = kc;
  }
};

/// Row-major C[n x m] = A[n x k] * B[k x m] for many calls with one shape.
/// With scratch from the temp allocator it runs Eigen's blocked kernels;
/// without it, a plain cache-friendly loop. Neither path allocates.
template <typename T> class Gemm {
public:
  Gemm(MemoryAllocator *temp, int64_t n, int64_t k, int64_t m) : n_(n), k_(k), m_(m) {
    // Eigen is column-major: compute C^T (m x n) = B^T (m x k) * A^T (k x n).
    kc_ = k;
    mc_ = m;
    nc_ = n;
    if (!temp || n == 0 || k == 0 || m == 0)
      return;
    Eigen::internal::computeProductBlockingSizes<T, T>(kc_, mc_, nc_, Eigen::Index(1));
    size_t sizeA = static_cast<size_t>(kc_ * mc_), sizeB = static_cast<size_t>(kc_ * nc_);
    blockA_ = static_cast<T *>(temp->allocate(sizeA * sizeof(T), 64));
    blockB_ = blockA_ ? static_cast<T *>(temp->allocate(sizeB * sizeof(T), 64)) : nullptr;
  }

  void run(const T *a, const T *b, T *c) const {
    int64_t n = n_, k = k_, m = m_;
    std::fill(c, c + n * m, T(0));
    if (n == 0 || m == 0 || k == 0)
      return;
    if (blockA_ && blockB_) {
      ScratchBlocking<T> blocking(blockA_, blockB_, mc_, nc_, kc_);
      Eigen::internal::general_matrix_matrix_product<
          Eigen::Index, T, Eigen::ColMajor, false, T, Eigen::ColMajor, false, Eigen::ColMajor,
          1>::run(m, n, k, b, m, a, k, c, 1, m, T(1), blocking, nullptr);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      T *ci = c + i * m;
      for (int64_t p = 0; p < k; ++p) {
        T av = a[i * k + p];
        const T *bp = b + p * m;
        for (int64_t j = 0; j < m; ++j)
          ci[j] += av * bp[j];
      }
    }
  }

private:
  int64_t n_, k_, m_;
  Eigen::Index kc_, mc_, nc_;
  T *blockA_ = nullptr, *blockB_ = nullptr;
};

template <typename T>
void gemmTensors(MemoryAllocator *temp, const Tensor &a, const Tensor &b, Tensor &out,
                 int64_t batch, int64_t n, int64_t k, int64_t m) {
  Gemm<T> g(temp, n, k, m);
  for (int64_t i = 0; i < batch; ++i)
    g.run(a.dataAs<T>() + i * n * k, b.dataAs<T>() + i * k * m, out.dataAs<T>() + i * n * m);
}

/// Integers, float16 and bfloat16: a plain loop through loadAs/storeAs,
/// accumulating in int64 (wrapping, as PyTorch's integer matmul) or double,
/// and rounding once on store.
void gemmGeneric(const Tensor &a, const Tensor &b, Tensor &out, int64_t batch, int64_t n,
                 int64_t k, int64_t m) {
  const bool isFloat = isFloatDt(out.dtype());
  for (int64_t bi = 0; bi < batch; ++bi) {
    int64_t ao = bi * n * k, bo = bi * k * m, oo = bi * n * m;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) {
        double accD = 0;
        uint64_t accI = 0;
        for (int64_t p = 0; p < k; ++p) {
          if (isFloat)
            accD += loadAs<double>(a.data(), a.dtype(), ao + i * k + p) *
                    loadAs<double>(b.data(), b.dtype(), bo + p * m + j);
          else
            accI += static_cast<uint64_t>(loadAs<int64_t>(a.data(), a.dtype(), ao + i * k + p)) *
                    static_cast<uint64_t>(loadAs<int64_t>(b.data(), b.dtype(), bo + p * m + j));
        }
        if (isFloat)
          storeAs<double>(out.mutableData(), out.dtype(), oo + i * m + j, accD);
        else
          storeAs<int64_t>(out.mutableData(), out.dtype(), oo + i * m + j,
                           static_cast<int64_t>(accI));
      }
  }
}

/// Upstream's matmuls take every real dtype plus float16/bfloat16 (not bool),
/// one dtype for all operands.
Error requireMatmulDtypes(KernelContext &ctx, const char *op, const Tensor &a, const Tensor &b,
                          const Tensor &out) {
  if (a.dtype() == ScalarType::Bool || a.dtype() != b.dtype() || a.dtype() != out.dtype())
    return ctx.fail(Error::InvalidArgument,
                    "%s: needs operands of one non-bool dtype, got %s, %s -> %s", op,
                    toString(a.dtype()), toString(b.dtype()), toString(out.dtype()));
  return Error::Ok;
}

/// `compute` false: checks and sizes `out` only (addmm computes float16 and
/// bfloat16 itself, to round once).
Error matmul(KernelContext &ctx, const char *op, const Tensor &a, const Tensor &b, Tensor &out,
             bool batched, bool compute = true) {
  PTEC_TRY(requireMatmulDtypes(ctx, op, a, b, out));
  int r = batched ? 3 : 2;
  if (a.dim() != r || b.dim() != r)
    return ctx.fail(Error::InvalidArgument, "%s: expects rank-%d operands, got ranks %d and %d",
                    op, r, a.dim(), b.dim());
  int64_t batch = batched ? a.size(0) : 1;
  int o = batched ? 1 : 0;
  int64_t n = a.size(o), k = a.size(o + 1), m = b.size(o + 1);
  if (b.size(o) != k || (batched && b.size(0) != batch)) {
    ShapeText sa(a), sb(b);
    return ctx.fail(Error::InvalidArgument, "%s: shapes %s and %s cannot be multiplied", op,
                    sa.c_str(), sb.c_str());
  }
  Shape os;
  if (batched)
    os.push(batch);
  os.push(n);
  os.push(m);
  PTEC_TRY(resizeOut(ctx, out, os));
  if (!compute)
    return Error::Ok;
  if (out.dtype() == ScalarType::Float)
    gemmTensors<float>(ctx.tempAllocator(), a, b, out, batch, n, k, m);
  else if (out.dtype() == ScalarType::Double)
    gemmTensors<double>(ctx.tempAllocator(), a, b, out, batch, n, k, m);
  else
    gemmGeneric(a, b, out, batch, n, k, m);
  return Error::Ok;
}

// --- Convolution -----------------------------------------------------------

/// The window (h = kh = 1 for 1-D) and the batch, channels and groups.
struct ConvGeom : Window2d {
  int spatial; // 1 or 2
  int64_t n, cin, cout, groups;
};

/// (N, Cout, [OH,] OW).
Shape convOutShape(const ConvGeom &g) {
  Shape os;
  os.push(g.n);
  os.push(g.cout);
  if (g.spatial == 2)
    os.push(g.oh);
  os.push(g.ow);
  return os;
}

Error checkConvBias(KernelContext &ctx, const Tensor *bias, const ConvGeom &g) {
  if (bias && bias->numel() != g.cout)
    return ctx.fail(Error::InvalidArgument, "convolution: bias has %lld elements, expected %lld",
                    static_cast<long long>(bias->numel()), static_cast<long long>(g.cout));
  return Error::Ok;
}

/// A stride/padding/dilation list: one value, or one per spatial dim.
Error convParam(KernelContext &ctx, const IntList &l, const char *what, int spatial,
                int64_t &y, int64_t &x) {
  if (l.size() != 1 && l.size() != static_cast<size_t>(spatial))
    return ctx.fail(Error::InvalidArgument, "convolution: %s has %zu values, expected 1 or %d",
                    what, l.size(), spatial);
  y = l[0]; // 1-D: overridden by the caller
  x = l[l.size() - 1];
  return Error::Ok;
}

/// What a convolution and a transposed one read alike: the ranks (1-D or
/// 2-D), the sizes, and stride, padding and dilation (1-D: height 1).
Error parseConvCommon(KernelContext &ctx, const Tensor &in, const Tensor &weight,
                      const IntList &stride, const IntList &padding, const IntList &dilation,
                      int64_t groups, ConvGeom &g) {
  if (in.dim() != 3 && in.dim() != 4)
    return ctx.fail(Error::InvalidArgument,
                    "convolution: supports 1-D and 2-D (input rank 3 or 4), got rank %d", in.dim());
  if (weight.dim() != in.dim())
    return ctx.fail(Error::InvalidArgument, "convolution: weight rank %d != input rank %d",
                    weight.dim(), in.dim());
  g = ConvGeom{};
  g.spatial = in.dim() - 2;
  g.n = in.size(0);
  g.cin = in.size(1);
  g.h = g.spatial == 2 ? in.size(2) : 1;
  g.w = in.size(in.dim() - 1);
  g.cout = weight.size(0);
  g.kh = g.spatial == 2 ? weight.size(2) : 1;
  g.kw = weight.size(weight.dim() - 1);
  g.groups = groups;
  PTEC_TRY(convParam(ctx, stride, "stride", g.spatial, g.sh, g.sw));
  PTEC_TRY(convParam(ctx, padding, "padding", g.spatial, g.ph, g.pw));
  PTEC_TRY(convParam(ctx, dilation, "dilation", g.spatial, g.dh, g.dw));
  if (g.spatial == 1) {
    g.sh = g.dh = 1;
    g.ph = 0;
  }
  return Error::Ok;
}

/// Stride and dilation in [1, 2^31], padding in [0, 2^31]: keeps the window
/// arithmetic in range.
bool convParamsInRange(const ConvGeom &g) {
  constexpr int64_t kMax = int64_t(1) << 31;
  return g.sh > 0 && g.sw > 0 && g.dh > 0 && g.dw > 0 && g.ph >= 0 && g.pw >= 0 &&
         g.sh <= kMax && g.sw <= kMax && g.dh <= kMax && g.dw <= kMax && g.ph <= kMax &&
         g.pw <= kMax;
}

/// Convolution geometry from input, weight and the list arguments, all
/// validated (1-D or 2-D, groups divide the channels, window fits).
Error parseConvGeom(KernelContext &ctx, const Tensor &in, const Tensor &weight,
                    const IntList &stride, const IntList &padding, const IntList &dilation,
                    int64_t groups, ConvGeom &g) {
  PTEC_TRY(parseConvCommon(ctx, in, weight, stride, padding, dilation, groups, g));
  if (groups <= 0 || g.cin % groups != 0 || g.cout % groups != 0)
    return ctx.fail(Error::InvalidArgument,
                    "convolution: groups=%lld must divide in channels %lld and out channels %lld",
                    static_cast<long long>(groups), static_cast<long long>(g.cin),
                    static_cast<long long>(g.cout));
  if (weight.size(1) * groups != g.cin) {
    ShapeText a(in), b(weight);
    return ctx.fail(Error::InvalidArgument,
                    "convolution: input %s has %lld channels, weight %s with groups=%lld expects %lld",
                    a.c_str(), static_cast<long long>(g.cin), b.c_str(),
                    static_cast<long long>(groups),
                    static_cast<long long>(weight.size(1) * groups));
  }
  if (g.kh <= 0 || g.kw <= 0)
    return ctx.fail(Error::InvalidArgument, "convolution: weight has an empty kernel dim");
  if (!convParamsInRange(g))
    return ctx.fail(Error::InvalidArgument,
                    "convolution: stride and dilation must be in [1, 2^31], padding in [0, 2^31]");
  g.oh = (g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1) / g.sh + 1;
  g.ow = (g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1) / g.sw + 1;
  if (g.h + 2 * g.ph < g.dh * (g.kh - 1) + 1 || g.w + 2 * g.pw < g.dw * (g.kw - 1) + 1)
    return ctx.fail(Error::InvalidArgument,
                    "convolution: kernel (after dilation) is larger than the padded input");
  return Error::Ok;
}

/// Direct convolution for one (batch, group): no scratch memory needed. Not
/// inlined: in a function of its own the tap loops keep their counters in
/// registers (inlined into the kernel they spill, and run half as fast).
template <typename T>
[[gnu::noinline]] void convDirect(const ConvGeom &g, const T *in, const T *wt, T *out, int64_t cinG,
                int64_t coutG) {
  for (int64_t oc = 0; oc < coutG; ++oc) {
    const T *wOc = wt + oc * cinG * g.kh * g.kw;
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        T acc = 0;
        forEachTap(g, oy, ox, cinG, [&](int64_t ic, int64_t ky, int64_t kx, int64_t y, int64_t x) {
          acc += in[(ic * g.h + y) * g.w + x] * wOc[(ic * g.kh + ky) * g.kw + kx];
        });
        out[(oc * g.oh + oy) * g.ow + ox] = acc;
      }
  }
}

/// col[(ic, ky, kx), (oy, ox)] = padded input sample.
template <typename T> void im2col(const ConvGeom &g, const T *in, int64_t cinG, T *col) {
  int64_t cols = g.oh * g.ow;
  for (int64_t ic = 0; ic < cinG; ++ic)
    for (int64_t ky = 0; ky < g.kh; ++ky)
      for (int64_t kx = 0; kx < g.kw; ++kx) {
        T *row = col + ((ic * g.kh + ky) * g.kw + kx) * cols;
        for (int64_t oy = 0; oy < g.oh; ++oy) {
          int64_t y = oy * g.sh - g.ph + ky * g.dh;
          for (int64_t ox = 0; ox < g.ow; ++ox) {
            int64_t x = ox * g.sw - g.pw + kx * g.dw;
            row[oy * g.ow + ox] =
                (y >= 0 && y < g.h && x >= 0 && x < g.w) ? in[(ic * g.h + y) * g.w + x] : T(0);
          }
        }
      }
}

/// Integers, float16 and bfloat16: a direct loop through loadAs/storeAs,
/// accumulating in int64 or double (bias added before the single rounding).
/// One instantiation per accumulator, so the inner loop has no branch on it.
template <bool Float>
void convGenericAcc(const ConvGeom &g, const Tensor &input, const Tensor &weight,
                    const Tensor *bias, Tensor &out) {
  using Acc = std::conditional_t<Float, double, uint64_t>;
  using Load = std::conditional_t<Float, double, int64_t>;
  int64_t cinG = g.cin / g.groups, coutG = g.cout / g.groups;
  const void *in = input.data(), *wt = weight.data();
  ScalarType it = input.dtype(), wtT = weight.dtype();
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t oc = 0; oc < g.cout; ++oc) {
      int64_t gr = oc / coutG;
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          Acc acc = bias ? static_cast<Acc>(loadAs<Load>(bias->data(), bias->dtype(), oc)) : 0;
          for (int64_t ic = 0; ic < cinG; ++ic)
            for (int64_t ky = 0; ky < g.kh; ++ky) {
              int64_t y = oy * g.sh - g.ph + ky * g.dh;
              if (y < 0 || y >= g.h)
                continue;
              for (int64_t kx = 0; kx < g.kw; ++kx) {
                int64_t x = ox * g.sw - g.pw + kx * g.dw;
                if (x < 0 || x >= g.w)
                  continue;
                int64_t ii = ((b * g.cin + gr * cinG + ic) * g.h + y) * g.w + x;
                int64_t wi = ((oc * cinG + ic) * g.kh + ky) * g.kw + kx;
                acc += static_cast<Acc>(loadAs<Load>(in, it, ii)) *
                       static_cast<Acc>(loadAs<Load>(wt, wtT, wi));
              }
            }
          int64_t o = ((b * g.cout + oc) * g.oh + oy) * g.ow + ox;
          storeAs<Load>(out.mutableData(), out.dtype(), o, static_cast<Load>(acc));
        }
    }
}

void convGeneric(const ConvGeom &g, const Tensor &input, const Tensor &weight, const Tensor *bias,
                 Tensor &out) {
  if (isFloatDt(out.dtype()))
    convGenericAcc<true>(g, input, weight, bias, out);
  else
    convGenericAcc<false>(g, input, weight, bias, out);
}

template <typename T>
void convRun(KernelContext &ctx, const ConvGeom &g, const Tensor &input, const Tensor &weight,
             const Tensor *bias, Tensor &out) {
  int64_t cinG = g.cin / g.groups, coutG = g.cout / g.groups;
  int64_t kdim = cinG * g.kh * g.kw, cols = g.oh * g.ow;
  bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
  T *col = nullptr;
  if (!pointwise && ctx.tempAllocator() && kdim * cols > 0)
    col = ctx.tempAllocator()->allocateArray<T>(static_cast<size_t>(kdim * cols));
  Gemm<T> gemm(ctx.tempAllocator(), coutG, kdim, cols);
  const T *in = input.dataAs<T>();
  const T *wt = weight.dataAs<T>();
  T *o = out.dataAs<T>();
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t gr = 0; gr < g.groups; ++gr) {
      const T *inG = in + (b * g.cin + gr * cinG) * g.h * g.w;
      const T *wG = wt + gr * coutG * kdim;
      T *oG = o + (b * g.cout + gr * coutG) * cols;
      if (pointwise) {
        gemm.run(wG, inG, oG);
      } else if (col) {
        im2col<T>(g, inG, cinG, col);
        gemm.run(wG, col, oG);
      } else {
        convDirect<T>(g, inG, wG, oG, cinG, coutG);
      }
    }
  if (bias)
    for (int64_t b = 0; b < g.n; ++b)
      for (int64_t oc = 0; oc < g.cout; ++oc) {
        T bv = loadAs<T>(bias->data(), bias->dtype(), oc);
        T *p = o + (b * g.cout + oc) * cols;
        for (int64_t i = 0; i < cols; ++i)
          p[i] += bv;
      }
}

/// The taps of a transposed window: calls f(ky, kx, iy, ix) for every tap
/// through which position (iy, ix) of an ih x iw grid reaches (y, x), that
/// is y = iy * sh - ph + ky * dh and x = ix * sw - pw + kx * dw.
template <typename F>
void forEachTransposedTap(const ConvGeom &g, int64_t y, int64_t x, int64_t ih, int64_t iw, F &&f) {
  for (int64_t ky = 0; ky < g.kh; ++ky) {
    int64_t ty = y + g.ph - ky * g.dh; // = iy * sh
    if (ty < 0 || ty % g.sh != 0 || ty / g.sh >= ih)
      continue;
    for (int64_t kx = 0; kx < g.kw; ++kx) {
      int64_t tx = x + g.pw - kx * g.dw;
      if (tx < 0 || tx % g.sw != 0 || tx / g.sw >= iw)
        continue;
      f(ky, kx, ty / g.sh, tx / g.sw);
    }
  }
}

/// Transposed convolution (the gradient of a convolution with respect to its
/// input): weight is (Cin, Cout / groups, kH, kW) and each output element
/// gathers the input elements whose window tap lands on it. A direct loop
/// accumulating in double (int64 for integers), rounded once.
Error convTransposed(KernelContext &ctx, const Tensor &in, const Tensor &weight,
                     const Tensor *bias, const IntList &stride, const IntList &padding,
                     const IntList &dilation, const IntList &outPad, int64_t groups, Tensor &out) {
  ConvGeom g;
  PTEC_TRY(parseConvCommon(ctx, in, weight, stride, padding, dilation, groups, g));
  int64_t oph = 0, opw = 0;
  PTEC_TRY(convParam(ctx, outPad, "output_padding", g.spatial, oph, opw));
  if (g.spatial == 1)
    oph = 0;
  if (groups <= 0 || g.cin % groups != 0 || weight.size(0) != g.cin)
    return ctx.fail(Error::InvalidArgument,
                    "convolution: transposed weight must have %lld input channels, divisible by "
                    "groups=%lld", static_cast<long long>(g.cin), static_cast<long long>(groups));
  if (!convParamsInRange(g) || oph < 0 || opw < 0 || g.kh <= 0 || g.kw <= 0)
    return ctx.fail(Error::InvalidArgument,
                    "convolution: stride and dilation must be in [1, 2^31], padding in [0, 2^31]");
  if (oph >= std::max(g.sh, g.dh) || opw >= std::max(g.sw, g.dw))
    return ctx.fail(Error::InvalidArgument,
                    "convolution: output_padding must be smaller than stride or dilation");
  const int64_t coutG = weight.size(1), cinG = g.cin / groups;
  g.cout = coutG * groups;
  g.oh = (g.h - 1) * g.sh - 2 * g.ph + g.dh * (g.kh - 1) + oph + 1;
  g.ow = (g.w - 1) * g.sw - 2 * g.pw + g.dw * (g.kw - 1) + opw + 1;
  if (g.oh <= 0 || g.ow <= 0)
    return ctx.fail(Error::InvalidArgument, "convolution: transposed output size is not positive");
  PTEC_TRY(checkConvBias(ctx, bias, g));
  PTEC_TRY(resizeOut(ctx, out, convOutShape(g)));
  // Written out rather than through forEachTransposedTap or a shared
  // accumulator: this form measured fastest (1.64 ms against 2.1-2.5 ms).
  const bool isFloat = isFloatDt(out.dtype());
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t oc = 0; oc < g.cout; ++oc) {
      int64_t gr = oc / coutG, o = oc % coutG;
      for (int64_t y = 0; y < g.oh; ++y)
        for (int64_t x = 0; x < g.ow; ++x) {
          double accD = bias ? loadAs<double>(bias->data(), bias->dtype(), oc) : 0.0;
          uint64_t accI =
              bias ? static_cast<uint64_t>(loadAs<int64_t>(bias->data(), bias->dtype(), oc)) : 0;
          for (int64_t ky = 0; ky < g.kh; ++ky) {
            int64_t ty = y + g.ph - ky * g.dh; // = iy * sh
            if (ty < 0 || ty % g.sh != 0 || ty / g.sh >= g.h)
              continue;
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              int64_t tx = x + g.pw - kx * g.dw;
              if (tx < 0 || tx % g.sw != 0 || tx / g.sw >= g.w)
                continue;
              for (int64_t ic = 0; ic < cinG; ++ic) {
                int64_t c = gr * cinG + ic;
                int64_t ii = ((b * g.cin + c) * g.h + ty / g.sh) * g.w + tx / g.sw;
                int64_t wi = ((c * coutG + o) * g.kh + ky) * g.kw + kx;
                if (isFloat)
                  accD += loadAs<double>(in.data(), in.dtype(), ii) *
                          loadAs<double>(weight.data(), weight.dtype(), wi);
                else
                  accI += static_cast<uint64_t>(loadAs<int64_t>(in.data(), in.dtype(), ii)) *
                          static_cast<uint64_t>(loadAs<int64_t>(weight.data(), weight.dtype(), wi));
              }
            }
          }
          int64_t oi = ((b * g.cout + oc) * g.oh + y) * g.ow + x;
          if (isFloat)
            storeAs<double>(out.mutableData(), out.dtype(), oi, accD);
          else
            storeAs<int64_t>(out.mutableData(), out.dtype(), oi, static_cast<int64_t>(accI));
        }
    }
  return Error::Ok;
}

} // namespace

/// mm.out and bmm.out share one signature: [self, mat2, out, out].
static Error matmulKernel(KernelContext &ctx, Args args, const char *name, bool batched) {
  Tensor *a, *b, *out;
  PTEC_TRY(bindArgs(ctx, args, arg("self", a), arg("mat2", b), outArg("out", out)));
  return matmul(ctx, name, *a, *b, *out, batched);
}

Error mm_out(KernelContext &ctx, Args args) { return matmulKernel(ctx, args, "mm", false); }

Error bmm_out(KernelContext &ctx, Args args) { return matmulKernel(ctx, args, "bmm", true); }

Error addmm_out(KernelContext &ctx, Args args) {
  Tensor *self, *a, *b, *out;
  Scalar beta, alpha;
  PTEC_TRY(bindArgs(ctx, args, arg("self", self), arg("mat1", a), arg("mat2", b), arg("beta", beta),
                    arg("alpha", alpha), outArg("out", out)));
  if (self->dtype() != out->dtype())
    return ctx.fail(Error::InvalidArgument, "addmm: self dtype %s differs from out dtype %s",
                    toString(self->dtype()), toString(out->dtype()));
  if (self == out || self->data() == out->data())
    return ctx.fail(Error::InvalidArgument, "addmm: out must not alias self");
  // float16/bfloat16: beta * self + alpha * (mat1 @ mat2) is formed in double
  // and rounded once, as PyTorch's reduced-precision gemm does (float
  // accumulation, C = alpha * AB + beta * C, one rounding). Rounding the
  // product before adding self would be off by up to an ulp of the product,
  // many ulps of the sum when bias and product nearly cancel.
  const bool reduced =
      out->dtype() == ScalarType::Half || out->dtype() == ScalarType::BFloat16;
  PTEC_TRY(matmul(ctx, "addmm", *a, *b, *out, false, !reduced));
  Shape os = Shape::of(*out);
  if (!broadcastsTo(*self, os)) {
    ShapeText s(*self), o(os.span());
    return ctx.fail(Error::InvalidArgument, "addmm: self of shape %s does not broadcast to %s",
                    s.c_str(), o.c_str());
  }
  const Tensor *ins[1] = {self};
  double bt = beta.d, al = alpha.d;
  void *po = out->mutableData();
  ScalarType t = out->dtype();
  if (!isFloatDt(t)) { // integers: exact, wrapping
    uint64_t bi = static_cast<uint64_t>(beta.i), ai = static_cast<uint64_t>(alpha.i);
    forEachBroadcast<1>(os, ins, [&](int64_t o, const int64_t(&ix)[1]) {
      uint64_t prod = static_cast<uint64_t>(loadAs<int64_t>(po, t, o)) * ai;
      uint64_t add = bi * static_cast<uint64_t>(loadAs<int64_t>(self->data(), t, ix[0]));
      storeAs<int64_t>(po, t, o, static_cast<int64_t>(prod + add));
    });
    return Error::Ok;
  }
  const int64_t k = a->size(1), m = b->size(1);
  forEachBroadcast<1>(os, ins, [&](int64_t o, const int64_t(&ix)[1]) {
    double mm = 0;
    if (reduced) {
      const int64_t i = o / m, j = o % m;
      for (int64_t p = 0; p < k; ++p)
        mm += loadAs<double>(a->data(), a->dtype(), i * k + p) *
              loadAs<double>(b->data(), b->dtype(), p * m + j);
    } else {
      mm = loadAs<double>(po, t, o);
    }
    double prod = mm * al;
    double add = bt == 0 ? 0.0 : bt * loadAs<double>(self->data(), t, ix[0]);
    storeAs<double>(po, t, o, prod + add);
  });
  return Error::Ok;
}

Error convolution_out(KernelContext &ctx, Args args) {
  Tensor *in, *weight, *bias, *out;
  IntList stride, padding, dilation, outPad;
  bool transposed;
  int64_t groups;
  PTEC_TRY(bindArgs(ctx, args, arg("input", in), arg("weight", weight), optArg("bias", bias),
                    arg("stride", stride), arg("padding", padding), arg("dilation", dilation),
                    arg("transposed", transposed), arg("output_padding", outPad),
                    arg("groups", groups), outArg("out", out)));
  if (in->dtype() == ScalarType::Bool || in->dtype() != weight->dtype() ||
      in->dtype() != out->dtype() || (bias && bias->dtype() != in->dtype()))
    return ctx.fail(Error::InvalidArgument,
                    "convolution: input, weight, bias and out must share one non-bool dtype");
  if (transposed)
    return convTransposed(ctx, *in, *weight, bias, stride, padding, dilation, outPad, groups,
                          *out);
  ConvGeom g;
  PTEC_TRY(parseConvGeom(ctx, *in, *weight, stride, padding, dilation, groups, g));
  PTEC_TRY(checkConvBias(ctx, bias, g));
  PTEC_TRY(resizeOut(ctx, *out, convOutShape(g)));
  if (in->dtype() == ScalarType::Float)
    convRun<float>(ctx, g, *in, *weight, bias, *out);
  else if (in->dtype() == ScalarType::Double)
    convRun<double>(ctx, g, *in, *weight, bias, *out);
  else
    convGeneric(g, *in, *weight, bias, *out);
  return Error::Ok;
}

/// bool[3] output_mask: whether to compute grad_input, grad_weight, grad_bias.
static Error argOutputMask(KernelContext &ctx, Args args, size_t i, bool &wantIn, bool &wantW,
                           bool &wantB) {
  EValue *m = args[i];
  if (!m || !m->isBoolList() || m->boolList().size() != 3)
    return badTag(ctx, i, "output_mask", "BoolList of 3", m);
  wantIn = m->boolList()[0] != 0;
  wantW = m->boolList()[1] != 0;
  wantB = m->boolList()[2] != 0;
  return Error::Ok;
}

/// convolution_backward.out: [grad_output, input, weight, bias_sizes?,
/// stride, padding, dilation, transposed, output_padding, groups,
/// output_mask, grad_input, grad_weight, grad_bias, ret]. 1-D and 2-D,
/// not transposed (upstream: 2-D only); outputs whose output_mask entry is
/// false are left untouched, as upstream does.
Error convolution_backward_out(KernelContext &ctx, Args args) {
  const char *op = "convolution_backward";
  Tensor *grad, *in, *weight, *gin, *gw, *gb;
  IntList biasSizes, stride, padding, dilation, outPad;
  bool hasBiasSizes, transposed, wantIn, wantW, wantB;
  int64_t groups;
  PTEC_TRY(bindArgs(ctx, args, arg("grad_output", grad), arg("input", in), arg("weight", weight),
                    optArg("bias_sizes", hasBiasSizes, biasSizes), arg("stride", stride),
                    arg("padding", padding), arg("dilation", dilation),
                    arg("transposed", transposed), arg("output_padding", outPad),
                    arg("groups", groups), argWith(argOutputMask, wantIn, wantW, wantB),
                    outArg("out0", gin), outArg("out1", gw), outArg("out2", gb)));
  if (transposed)
    return ctx.fail(Error::NotSupported, "%s: transposed convolution is not supported", op);
  if (!isFloatDt(in->dtype()) || weight->dtype() != in->dtype() || grad->dtype() != in->dtype())
    return ctx.fail(Error::InvalidArgument,
                    "%s: grad_output, input and weight must share one floating dtype", op);
  ConvGeom g;
  PTEC_TRY(parseConvGeom(ctx, *in, *weight, stride, padding, dilation, groups, g));
  PTEC_TRY(expectShape(ctx, *grad, convOutShape(g), op, "grad_output"));
  if (wantIn) {
    PTEC_TRY(checkSameDtype(ctx, *in, *gin, op));
    PTEC_TRY(resizeOut(ctx, *gin, Shape::of(*in), "grad_input"));
  }
  if (wantW) {
    PTEC_TRY(checkSameDtype(ctx, *in, *gw, op));
    PTEC_TRY(resizeOut(ctx, *gw, Shape::of(*weight), "grad_weight"));
  }
  if (wantB) {
    PTEC_TRY(checkSameDtype(ctx, *in, *gb, op));
    Shape bs;
    if (hasBiasSizes) {
      if (biasSizes.size() != 1 || biasSizes[0] != g.cout)
        return ctx.fail(Error::InvalidArgument, "%s: bias_sizes must be [%lld]", op,
                        static_cast<long long>(g.cout));
    }
    bs.push(g.cout);
    PTEC_TRY(resizeOut(ctx, *gb, bs, "grad_bias"));
  }
  // Each gradient element is one sum in double, rounded once.
  const int64_t cinG = g.cin / g.groups, coutG = g.cout / g.groups;
  auto go = [&](int64_t b, int64_t oc, int64_t oy, int64_t ox) {
    return loadAs<double>(grad->data(), grad->dtype(), ((b * g.cout + oc) * g.oh + oy) * g.ow + ox);
  };
  if (wantB) {
    for (int64_t oc = 0; oc < g.cout; ++oc) {
      double acc = 0;
      for (int64_t b = 0; b < g.n; ++b)
        for (int64_t oy = 0; oy < g.oh; ++oy)
          for (int64_t ox = 0; ox < g.ow; ++ox)
            acc += go(b, oc, oy, ox);
      storeAs<double>(gb->mutableData(), gb->dtype(), oc, acc);
    }
  }
  if (wantW) { // grad_weight[oc, ic, ky, kx] = sum grad_out * input under the tap
    for (int64_t oc = 0; oc < g.cout; ++oc)
      for (int64_t ic = 0; ic < cinG; ++ic)
        for (int64_t ky = 0; ky < g.kh; ++ky)
          for (int64_t kx = 0; kx < g.kw; ++kx) {
            double acc = 0;
            int64_t cIn = (oc / coutG) * cinG + ic;
            for (int64_t b = 0; b < g.n; ++b)
              for (int64_t oy = 0; oy < g.oh; ++oy) {
                int64_t y = oy * g.sh - g.ph + ky * g.dh;
                if (y < 0 || y >= g.h)
                  continue;
                for (int64_t ox = 0; ox < g.ow; ++ox) {
                  int64_t x = ox * g.sw - g.pw + kx * g.dw;
                  if (x < 0 || x >= g.w)
                    continue;
                  acc += go(b, oc, oy, ox) *
                         loadAs<double>(in->data(), in->dtype(), ((b * g.cin + cIn) * g.h + y) * g.w + x);
                }
              }
            storeAs<double>(gw->mutableData(), gw->dtype(), ((oc * cinG + ic) * g.kh + ky) * g.kw + kx,
                            acc);
          }
  }
  if (wantIn) { // grad_input[b, c, y, x] = sum over the outputs whose window covers it
    for (int64_t b = 0; b < g.n; ++b)
      for (int64_t c = 0; c < g.cin; ++c) {
        int64_t gr = c / cinG, ic = c % cinG;
        for (int64_t y = 0; y < g.h; ++y)
          for (int64_t x = 0; x < g.w; ++x) {
            double acc = 0;
            forEachTransposedTap(g, y, x, g.oh, g.ow, [&](int64_t ky, int64_t kx, int64_t oy, int64_t ox) {
              for (int64_t o = 0; o < coutG; ++o) {
                int64_t oc = gr * coutG + o;
                acc += go(b, oc, oy, ox) * loadAs<double>(weight->data(), weight->dtype(),
                                                          ((oc * cinG + ic) * g.kh + ky) * g.kw + kx);
              }
            });
            storeAs<double>(gin->mutableData(), gin->dtype(), ((b * g.cin + c) * g.h + y) * g.w + x,
                            acc);
          }
      }
  }
  return Error::Ok;
}

} // namespace ptec::rt::portable
