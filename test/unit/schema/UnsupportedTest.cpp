// The operators refused outright (dialects/exir/schema/Unsupported.h).
#include "dialects/exir/schema/Unsupported.h"

#include <catch2/catch.hpp>

using ptec::schema::operatorNameOfTarget;
using ptec::schema::unsupportedReason;

TEST_CASE("refused operators carry their category's reason", "[schema][unsupported]") {
  CHECK(unsupportedReason("aten::convolution_backward").find("gradient op") != std::string::npos);
  CHECK(unsupportedReason("aten::native_layer_norm_backward.out").find("gradient op") != std::string::npos);
  CHECK(unsupportedReason("aten::linalg_svd").find("matrix factorization") != std::string::npos);
  CHECK(unsupportedReason("aten::linalg_solve_ex").find("matrix factorization") != std::string::npos);
  CHECK(unsupportedReason("aten::fft_rfft").find("complex numbers") != std::string::npos);
  CHECK(unsupportedReason("aten::_sparse_mm.reduce").find("sparse tensors") != std::string::npos);
  CHECK(unsupportedReason("sparse::qlinear_unpack").find("sparse tensors") != std::string::npos);
  CHECK(unsupportedReason("quantized::linear_unpack").find("eager quantization") != std::string::npos);
  CHECK(unsupportedReason("aten::bernoulli").find("random sampling") != std::string::npos);
  // In-place forms share their functional form's reason...
  CHECK(unsupportedReason("aten::bernoulli_.float").find("random sampling") != std::string::npos);
  // ... but dunder names keep their trailing underscores.
  CHECK(unsupportedReason("aten::__and__.Tensor").empty());
  CHECK(unsupportedReason("aten::special_digamma").find("special function") != std::string::npos);
  CHECK(unsupportedReason("aten::special_chebyshev_polynomial_t").find("special function") !=
        std::string::npos);
  CHECK(unsupportedReason("aten::special_zeta").find("special function") != std::string::npos);
  CHECK(unsupportedReason("aten::linalg_polar").find("matrix factorization") != std::string::npos);
  CHECK(unsupportedReason("torch_nn::_linear_cross_entropy_batch_chunked").find("cross-entropy") !=
        std::string::npos);
}

TEST_CASE("supported and unknown operators have no refusal", "[schema][unsupported]") {
  CHECK(unsupportedReason("aten::add.Tensor").empty());
  CHECK(unsupportedReason("aten::linalg_vector_norm").empty()); // linalg_, not a factorization
  CHECK(unsupportedReason("aten::linalg_cross").empty());
  CHECK(unsupportedReason("aten::rand").empty()); // has a portable kernel
  CHECK(unsupportedReason("mylib::frobnicate").empty());
  CHECK(unsupportedReason("").empty());
}

TEST_CASE("graph targets name operators", "[schema][unsupported]") {
  CHECK(operatorNameOfTarget("torch.ops.aten.pad.default") == "aten::pad");
  CHECK(operatorNameOfTarget("torch.ops.aten.add.Tensor") == "aten::add.Tensor");
  CHECK(operatorNameOfTarget("torch.ops.quantized.conv2d_unpack.default") ==
        "quantized::conv2d_unpack");
  CHECK(operatorNameOfTarget("torch.ops.aten.pad") == "aten::pad");
  CHECK(operatorNameOfTarget("aten.pad.default").empty());
  CHECK(operatorNameOfTarget("torch.ops.aten").empty());
  CHECK(operatorNameOfTarget("torch.ops..x").empty());
  CHECK(operatorNameOfTarget("torch.ops.aten..default").empty());
}
