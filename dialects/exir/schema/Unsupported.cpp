//===- Unsupported.cpp - operators ptec refuses outright, and why ---------===//
//
// Categories first (matched on namespace, base name prefix or an infix of the
// base name), then single operators. The base name is the operator name
// without namespace and overload ("linalg_svd" of "aten::linalg_svd.U").
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/schema/Unsupported.h"

#include <algorithm>
#include <array>

namespace ptec::schema {
namespace {

constexpr const char *kGradient =
    "a gradient op: it appears in graphs exported for training; export the model in "
    "eval mode under torch.no_grad() (model.eval(); with torch.no_grad(): "
    "torch.export.export(...))";
constexpr const char *kSparse =
    "sparse tensors: ExecuTorch programs hold dense tensors only; convert to dense "
    "before export";
constexpr const char *kComplex =
    "complex numbers and FFTs: ExecuTorch's portable kernels have no complex dtype";
constexpr const char *kFactorization =
    "a matrix factorization or solver: ExecuTorch's portable kernels have none";
constexpr const char *kRandom =
    "random sampling: a compiled program cannot reproduce PyTorch's generator; "
    "sample outside the model or pass the noise in as an input";
constexpr const char *kTraceQuery =
    "a question about a tensor or the Python runtime that torch.export answers "
    "while tracing; a saved graph does not hold it";
constexpr const char *kEagerInternal =
    "an op of PyTorch's eager quantization, oneDNN or compiler internals; quantize "
    "with the PT2E flow (torch.ao.quantization.quantize_pt2e), which ptec compiles";
constexpr const char *kGpuLibrary =
    "an op of a GPU library (cuDNN, MIOpen); export the model on the CPU";
constexpr const char *kNested = "nested and packed tensors: ExecuTorch has neither";
constexpr const char *kDataDependent =
    "its output size depends on the input values, which an ahead-of-time memory "
    "plan cannot bound";
constexpr const char *kSpecialFunction =
    "a special function (gamma, digamma, Bessel, inverse error function, orthogonal "
    "polynomials, zeta, ...) that no ExecuTorch portable kernel computes; evaluate it "
    "outside the model and pass the result in";
constexpr const char *kNotYet =
    "ptec has no decomposition of it into ExecuTorch's portable kernels yet";
constexpr const char *kCudaOnly = "a form PyTorch implements for CUDA only";
constexpr const char *kFusedLoss =
    "the batch-chunked fused linear + cross-entropy loss of torch.nn (a training "
    "custom op); for inference export the model without its loss, or write the loss "
    "as F.linear followed by F.cross_entropy";
constexpr const char *kTestOp = "an operator of PyTorch's own test suite";

struct Category {
  /// Exact matches the base name; FullName the whole operator name.
  enum Match { Namespace, Prefix, Infix, Exact, FullName } match;
  const char *text;
  const char *reason;
};

// Order matters: the first match wins.
constexpr std::array kCategories = {
    Category{Category::FullName, "aten::baddbmm.dtype", kCudaOnly},
    Category{Category::FullName, "aten::baddbmm.dtype_out", kCudaOnly},
    Category{Category::Infix, "backward", kGradient},
    Category{Category::Namespace, "quantized", kEagerInternal},
    Category{Category::Namespace, "mkldnn", kEagerInternal},
    Category{Category::Namespace, "inductor", kEagerInternal},
    Category{Category::Namespace, "_native_aot", kEagerInternal},
    Category{Category::Namespace, "sparse", kSparse},
    Category{Category::Namespace, "_test", kTestOp},
    Category{Category::Prefix, "_test_", kTestOp},
    Category{Category::Infix, "sparse", kSparse},
    Category{Category::Exact, "to_dense", kSparse},
    Category{Category::Exact, "sspaddmm", kSparse},
    Category{Category::Exact, "smm", kSparse},
    Category{Category::Prefix, "fft_", kComplex},
    Category{Category::Prefix, "_fft_", kComplex},
    Category{Category::Exact, "stft", kComplex},
    Category{Category::Exact, "istft", kComplex},
    Category{Category::Exact, "chalf", kComplex},
    Category{Category::Exact, "view_as_complex", kComplex},
    Category{Category::Exact, "polar", kComplex},
    Category{Category::Exact, "complex", kComplex},
    Category{Category::Prefix, "fbgemm_", kEagerInternal},
    Category{Category::Prefix, "fake_quantize_", kEagerInternal},
    Category{Category::Prefix, "quantized_", kEagerInternal},
    Category{Category::Exact, "_choose_qparams_per_tensor", kEagerInternal},
    Category{Category::Exact, "choose_qparams_optimized", kEagerInternal},
    Category{Category::Prefix, "_wrapped_", kEagerInternal},
    Category{Category::Exact, "_saturate_weight_to_fp16", kEagerInternal},
    Category{Category::Exact, "_rowwise_prune", kEagerInternal},
    Category{Category::Prefix, "cudnn_", kGpuLibrary},
    Category{Category::Prefix, "miopen_", kGpuLibrary},
    Category{Category::Prefix, "_cufft_", kTraceQuery},
    Category{Category::Exact, "_use_cudnn_rnn_flatten_weight", kTraceQuery},
    Category{Category::Exact, "_nnpack_available", kTraceQuery},
    Category{Category::Exact, "is_vulkan_available", kTraceQuery},
    Category{Category::Exact, "_has_compatible_shallow_copy_type", kTraceQuery},
    Category{Category::Exact, "_version", kTraceQuery},
    Category{Category::Exact, "output_nr", kTraceQuery},
    Category{Category::Exact, "retains_grad", kTraceQuery},
    Category{Category::Exact, "is_leaf", kTraceQuery},
    Category{Category::Exact, "is_inference", kTraceQuery},
    Category{Category::Exact, "is_complex", kTraceQuery},
    Category{Category::Exact, "is_conj", kTraceQuery},
    Category{Category::Exact, "is_neg", kTraceQuery},
    Category{Category::Exact, "is_floating_point", kTraceQuery},
    Category{Category::Exact, "is_signed", kTraceQuery},
    Category{Category::Exact, "is_distributed", kTraceQuery},
    Category{Category::Exact, "get_device", kTraceQuery},
    Category{Category::Exact, "can_cast", kTraceQuery},
    Category{Category::Exact, "promote_types", kTraceQuery},
    Category{Category::Exact, "result_type", kTraceQuery},
    Category{Category::Exact, "_is_zerotensor", kTraceQuery},
    Category{Category::Exact, "_debug_has_internal_overlap", kTraceQuery},
    Category{Category::Exact, "sym_is_contiguous", kTraceQuery},
    Category{Category::Exact, "stride", kTraceQuery},
    Category{Category::Exact, "sym_stride", kTraceQuery},
    Category{Category::Exact, "data", kTraceQuery},
    Category{Category::Exact, "get_gradients", kTraceQuery},
    Category{Category::Exact, "_propagate_xla_data", kTraceQuery},
    Category{Category::Exact, "_add_batch_dim", kTraceQuery},
    Category{Category::Exact, "_remove_batch_dim", kTraceQuery},
    Category{Category::Exact, "_to_cpu", kTraceQuery},
    Category{Category::Exact, "nested_to_padded_tensor", kNested},
    Category{Category::Exact, "_pad_packed_sequence", kNested},
    Category{Category::Exact, "is_nonzero", kDataDependent},
    Category{Category::Prefix, "histogram", kDataDependent},
    Category{Category::Exact, "bernoulli", kRandom},
    Category{Category::Exact, "poisson", kRandom},
    Category{Category::Exact, "multinomial", kRandom},
    Category{Category::Exact, "normal", kRandom},
    Category{Category::Exact, "_sobol_engine_draw", kRandom},
    Category{Category::Exact, "exponential", kRandom},
    Category{Category::Exact, "geometric", kRandom},
    Category{Category::Exact, "cauchy", kRandom},
    Category{Category::Exact, "log_normal", kRandom},
    Category{Category::Exact, "uniform", kRandom},
    Category{Category::Exact, "random", kRandom},
    Category{Category::Exact, "size", kTraceQuery},
    Category{Category::Exact, "special_digamma", kSpecialFunction},
    Category{Category::Exact, "digamma", kSpecialFunction},
    Category{Category::Exact, "special_psi", kSpecialFunction},
    Category{Category::Exact, "special_gammaln", kSpecialFunction},
    Category{Category::Exact, "lgamma", kSpecialFunction},
    Category{Category::Exact, "special_gammainc", kSpecialFunction},
    Category{Category::Exact, "special_gammaincc", kSpecialFunction},
    Category{Category::Exact, "igamma", kSpecialFunction},
    Category{Category::Exact, "igammac", kSpecialFunction},
    Category{Category::Exact, "special_i0", kSpecialFunction},
    Category{Category::Exact, "i0", kSpecialFunction},
    Category{Category::Prefix, "special_bessel", kSpecialFunction},
    Category{Category::Prefix, "special_modified_bessel", kSpecialFunction},
    Category{Category::Exact, "special_polygamma", kSpecialFunction},
    Category{Category::Exact, "polygamma", kSpecialFunction},
    Category{Category::Exact, "special_erfinv", kSpecialFunction},
    Category{Category::Exact, "erfinv", kSpecialFunction},
    Category{Category::Exact, "special_log_ndtr", kSpecialFunction},
    Category{Category::Exact, "special_multigammaln", kSpecialFunction},
    Category{Category::Exact, "special_airy_ai", kSpecialFunction},
    Category{Category::Exact, "special_ndtri", kSpecialFunction},
    Category{Category::Exact, "special_zeta", kSpecialFunction},
    Category{Category::Exact, "special_spherical_bessel_j0", kSpecialFunction},
    Category{Category::Prefix, "special_scaled_modified_bessel", kSpecialFunction},
    Category{Category::Prefix, "special_chebyshev_polynomial", kSpecialFunction},
    Category{Category::Prefix, "special_shifted_chebyshev_polynomial", kSpecialFunction},
    Category{Category::Prefix, "special_hermite_polynomial", kSpecialFunction},
    Category{Category::Prefix, "special_laguerre_polynomial", kSpecialFunction},
    Category{Category::Prefix, "special_legendre_polynomial", kSpecialFunction},
    Category{Category::Exact, "mvlgamma", kSpecialFunction},
    Category{Category::Prefix, "ctc_loss", kNotYet},
    Category{Category::Exact, "gradient", kNotYet},
    Category{Category::Exact, "_chunk_cat", kNotYet},
    Category{Category::Exact, "flatten_dense_tensors", kNotYet},
    Category{Category::Exact, "unflatten_dense_tensors", kNotYet},
    Category{Category::Exact, "_reshape_from_tensor", kDataDependent},
    Category{Category::Exact, "resize_as", kNotYet},
    Category{Category::Exact, "_shape_as_tensor", kNotYet},
    Category{Category::Exact, "_lu_with_info", kFactorization},
    Category{Category::Prefix, "linalg_cholesky", kFactorization},
    Category{Category::Prefix, "cholesky", kFactorization},
    Category{Category::Exact, "linalg_det", kFactorization},
    Category{Category::Exact, "det", kFactorization},
    Category{Category::Exact, "logdet", kFactorization},
    Category{Category::Exact, "linalg_slogdet", kFactorization},
    Category{Category::Exact, "slogdet", kFactorization},
    Category{Category::Prefix, "linalg_eig", kFactorization},
    Category{Category::Prefix, "linalg_inv", kFactorization},
    Category{Category::Exact, "inverse", kFactorization},
    Category{Category::Prefix, "linalg_ldl", kFactorization},
    Category{Category::Prefix, "linalg_lu", kFactorization},
    Category{Category::Exact, "lu_solve", kFactorization},
    Category{Category::Exact, "lu_unpack", kFactorization},
    Category{Category::Prefix, "linalg_pinv", kFactorization},
    Category{Category::Exact, "pinverse", kFactorization},
    Category{Category::Exact, "linalg_qr", kFactorization},
    Category{Category::Exact, "qr", kFactorization},
    Category{Category::Exact, "geqrf", kFactorization},
    Category{Category::Exact, "orgqr", kFactorization},
    Category{Category::Exact, "ormqr", kFactorization},
    Category{Category::Prefix, "linalg_solve", kFactorization},
    Category{Category::Exact, "triangular_solve", kFactorization},
    Category{Category::Exact, "linalg_svd", kFactorization},
    Category{Category::Exact, "svd", kFactorization},
    Category{Category::Exact, "linalg_svdvals", kFactorization},
    Category{Category::Exact, "linalg_matrix_rank", kFactorization},
    Category{Category::Exact, "linalg_cond", kFactorization},
    Category{Category::Exact, "linalg_tensorinv", kFactorization},
    Category{Category::Exact, "linalg_tensorsolve", kFactorization},
    Category{Category::Exact, "linalg_lstsq", kFactorization},
    Category{Category::Exact, "matrix_exp", kFactorization},
    Category{Category::Exact, "linalg_matrix_exp", kFactorization},
    Category{Category::Exact, "linalg_householder_product", kFactorization},
    Category{Category::Exact, "nuclear_norm", kFactorization},
    Category{Category::Exact, "linalg_polar", kFactorization},
    Category{Category::Exact, "linalg_matrix_sqrth", kFactorization},
    Category{Category::FullName, "torch_nn::_linear_cross_entropy_batch_chunked", kFusedLoss},
    Category{Category::FullName, "torch_nn::_linear_cross_entropy_batch_chunked_no_reduction",
             kFusedLoss},
};

struct Parts {
  std::string_view ns, base;
};

Parts split(std::string_view name) {
  Parts p;
  std::string_view rest = name;
  if (size_t c = name.find("::"); c != std::string_view::npos) {
    p.ns = name.substr(0, c);
    rest = name.substr(c + 2);
  }
  p.base = rest.substr(0, rest.find('.'));
  return p;
}

} // namespace

std::string unsupportedReason(std::string_view name) {
  Parts p = split(name);
  // In-place forms share their functional form's reason ("bernoulli_").
  std::string_view base = p.base;
  if (base.size() > 1 && base.back() == '_' && base.substr(0, 2) != "__")
    base.remove_suffix(1);
  for (const Category &c : kCategories) {
    std::string_view t(c.text);
    bool hit = false;
    switch (c.match) {
    case Category::Namespace:
      hit = p.ns == t;
      break;
    case Category::Prefix:
      hit = base.substr(0, t.size()) == t;
      break;
    case Category::Infix:
      hit = base.find(t) != std::string_view::npos;
      break;
    case Category::Exact:
      hit = base == t;
      break;
    case Category::FullName:
      hit = name == t;
      break;
    }
    if (hit)
      return c.reason;
  }
  return {};
}

std::string operatorNameOfTarget(std::string_view target) {
  constexpr std::string_view prefix = "torch.ops.";
  if (target.substr(0, prefix.size()) != prefix)
    return {};
  std::string_view rest = target.substr(prefix.size());
  size_t dot1 = rest.find('.');
  if (dot1 == std::string_view::npos || dot1 == 0)
    return {};
  std::string_view ns = rest.substr(0, dot1), tail = rest.substr(dot1 + 1);
  size_t dot2 = tail.find('.');
  std::string_view base = tail.substr(0, dot2);
  std::string_view overload =
      dot2 == std::string_view::npos ? std::string_view() : tail.substr(dot2 + 1);
  if (base.empty())
    return {};
  std::string out = std::string(ns) + "::" + std::string(base);
  if (!overload.empty() && overload != "default")
    out += "." + std::string(overload);
  return out;
}

std::vector<std::string> unsupportedOperatorNames() {
  std::vector<std::string> names;
  for (const Category &c : kCategories)
    if (c.match == Category::Exact)
      names.push_back("aten::" + std::string(c.text));
  std::sort(names.begin(), names.end());
  return names;
}

} // namespace ptec::schema
