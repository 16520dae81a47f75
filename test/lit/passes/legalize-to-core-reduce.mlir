// RUN: ptec-opt %s --split-input-file --exir-legalize-to-core --verify-diagnostics | FileCheck %s

// The reduce family (passes/LegalizeReduce*.cpp): norms, statistics, scans,
// products, einsum, attention and losses into core ATen ops with portable
// kernels; factorizations refused by name.

// group_norm -> the native_group_norm kernel (N, C, HxW spelled out).
// CHECK-LABEL: func.func @group_norm
// CHECK: exir.aten "aten::native_group_norm"(%arg0, %arg1, %arg2) {C = 4 : i64, HxW = 6 : i64, N = 2 : i64, eps = 1.000000e-03 : f64, group = 2 : i64
// CHECK-NOT: aten::group_norm
func.func @group_norm(%x: tensor<2x4x2x3xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4x2x3xf32> {
  %y = exir.aten "aten::group_norm"(%x, %w, %b) {num_groups = 2 : i64, eps = 1.0e-3 : f64, cudnn_enabled = true, operand_segments = array<i32: 1, 1, 1>} : (tensor<2x4x2x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x2x3xf32>
  return %y : tensor<2x4x2x3xf32>
}

// -----

// instance_norm on input statistics: group norm with one group per channel;
// on running statistics: eval batch norm.
// CHECK-LABEL: func.func @instance_norm
// CHECK: exir.aten "aten::native_group_norm"(%arg0) {C = 4 : i64, HxW = 5 : i64, N = 2 : i64, eps = 1.000000e-05 : f64, group = 4 : i64
// CHECK: exir.aten "aten::_native_batch_norm_legit_no_training"(%arg0, %arg1, %arg2)
func.func @instance_norm(%x: tensor<2x4x5xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> (tensor<2x4x5xf32>, tensor<2x4x5xf32>) {
  %a = exir.aten "aten::instance_norm"(%x) {use_input_stats = true, momentum = 0.1 : f64, eps = 1.0e-5 : f64, cudnn_enabled = false, operand_segments = array<i32: 1, 0, 0, 0, 0>} : (tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %b = exir.aten "aten::instance_norm"(%x, %m, %v) {use_input_stats = false, momentum = 0.1 : f64, eps = 1.0e-5 : f64, cudnn_enabled = false, operand_segments = array<i32: 1, 0, 0, 1, 1>} : (tensor<2x4x5xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x5xf32>
  return %a, %b : tensor<2x4x5xf32>, tensor<2x4x5xf32>
}

// -----

// Training-mode instance norm would update the running statistics: refused.
func.func @instance_norm_training(%x: tensor<2x4x5xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<2x4x5xf32> {
  // expected-error @+1 {{'aten::instance_norm' with use_input_stats and running statistics is not supported: it updates the running statistics (training mode)}}
  %b = exir.aten "aten::instance_norm"(%x, %m, %v) {use_input_stats = true, momentum = 0.1 : f64, eps = 1.0e-5 : f64, cudnn_enabled = false, operand_segments = array<i32: 1, 0, 0, 1, 1>} : (tensor<2x4x5xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x5xf32>
  return %b : tensor<2x4x5xf32>
}

// -----

// rms_norm: x * rsqrt(mean(x*x) + eps) * w, eps defaulting to float32's
// epsilon.
// CHECK-LABEL: func.func @rms_norm
// CHECK: %[[SQ:.*]] = exir.aten "aten::mul.Tensor"(%arg0, %arg0)
// CHECK: %[[MS:.*]] = exir.aten "aten::mean.dim"(%[[SQ]]) {dim = array<i64: 2>{{.*}}keepdim = true
// CHECK: %[[E:.*]] = exir.aten "aten::add.Scalar"(%[[MS]]) {{{.*}}other = 1.1920928955078125E-7 : f64}
// CHECK: %[[R:.*]] = exir.aten "aten::rsqrt"(%[[E]])
// CHECK: %[[Y:.*]] = exir.aten "aten::mul.Tensor"(%arg0, %[[R]])
// CHECK: exir.aten "aten::mul.Tensor"(%[[Y]], %arg1)
func.func @rms_norm(%x: tensor<2x3x6xf32>, %w: tensor<6xf32>) -> tensor<2x3x6xf32> {
  %y = exir.aten "aten::rms_norm"(%x, %w) {normalized_shape = array<i64: 6>, eps = #exir.none, operand_segments = array<i32: 1, 1>} : (tensor<2x3x6xf32>, tensor<6xf32>) -> tensor<2x3x6xf32>
  return %y : tensor<2x3x6xf32>
}

// -----

// _weight_norm(v, g, 0) = v * (g / ||v|| over every dim but 0).
// CHECK-LABEL: func.func @weight_norm
// CHECK: %[[SQ:.*]] = exir.aten "aten::mul.Tensor"(%arg0, %arg0)
// CHECK: %[[S:.*]] = exir.aten "aten::sum.dim_IntList"(%[[SQ]]) {dim = array<i64: 1, 2>{{.*}}keepdim = true
// CHECK: %[[N:.*]] = exir.aten "aten::sqrt"(%[[S]]) {{.*}} -> tensor<4x1x1xf32>
// CHECK: %[[D:.*]] = exir.aten "aten::div.Tensor"(%arg1, %[[N]])
// CHECK: exir.aten "aten::mul.Tensor"(%arg0, %[[D]])
func.func @weight_norm(%v: tensor<4x3x2xf32>, %g: tensor<4x1x1xf32>) -> tensor<4x3x2xf32> {
  %y = exir.aten "aten::_weight_norm"(%v, %g) {dim = 0 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x3x2xf32>, tensor<4x1x1xf32>) -> tensor<4x3x2xf32>
  return %y : tensor<4x3x2xf32>
}

// -----

// Vector norms by order: 2 -> sqrt(sum(x*x)), 1 -> sum(abs), inf -> amax(abs),
// 0 -> count of nonzeros, p -> sum(|x|^p)^(1/p).
// CHECK-LABEL: func.func @vector_norms
// CHECK: exir.aten "aten::sqrt"
// CHECK: %[[A:.*]] = exir.aten "aten::abs"
// CHECK: exir.aten "aten::sum.dim_IntList"(%[[A]]) {dim = array<i64: 1>
// CHECK: %[[A2:.*]] = exir.aten "aten::abs"
// CHECK: exir.aten "aten::amax"(%[[A2]]) {dim = array<i64: 0>
// CHECK: %[[NZ:.*]] = exir.aten "aten::ne.Scalar"(%arg0) {{{.*}}other = 0.000000e+00 : f64}
// CHECK: %[[F:.*]] = exir.aten "aten::_to_copy"(%[[NZ]]) {{{.*}}dtype = f32
// CHECK: exir.aten "aten::sum.dim_IntList"(%[[F]])
// CHECK: %[[A3:.*]] = exir.aten "aten::abs"
// CHECK: %[[P:.*]] = exir.aten "aten::pow.Tensor_Scalar"(%[[A3]]) {exponent = 3.000000e+00 : f64
// CHECK: %[[S:.*]] = exir.aten "aten::sum.dim_IntList"(%[[P]])
// CHECK: exir.aten "aten::pow.Tensor_Scalar"(%[[S]]) {exponent = 0.33333333333333331 : f64
func.func @vector_norms(%x: tensor<3x4xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %a = exir.aten "aten::linalg_vector_norm"(%x) {ord = 2 : i64, dim = #exir.none, keepdim = false, dtype = #exir.none, operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> tensor<f32>
  %b = exir.aten "aten::norm.ScalarOpt_dim"(%x) {p = 1 : i64, dim = array<i64: 1>, keepdim = false, operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> tensor<3xf32>
  %c = exir.aten "aten::linalg_vector_norm"(%x) {ord = 0x7FF0000000000000 : f64, dim = array<i64: 0>, keepdim = false, dtype = #exir.none, operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> tensor<4xf32>
  %d = exir.aten "aten::linalg_vector_norm"(%x) {ord = 0 : i64, dim = array<i64: -1>, keepdim = false, dtype = #exir.none, operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> tensor<3xf32>
  %e = exir.aten "aten::linalg_vector_norm"(%x) {ord = 3.0 : f64, dim = array<i64: 1>, keepdim = false, dtype = #exir.none, operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> tensor<3xf32>
  return %a, %b, %c, %d, %e : tensor<f32>, tensor<3xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Matrix norm ord 1: the max over columns of the absolute column sums; 'nuc'
// needs an SVD: refused.
// CHECK-LABEL: func.func @matrix_norm
// CHECK: %[[A:.*]] = exir.aten "aten::abs"(%arg0)
// CHECK: %[[S:.*]] = exir.aten "aten::sum.dim_IntList"(%[[A]]) {dim = array<i64: 1>{{.*}} -> tensor<2x4xf32>
// CHECK: exir.aten "aten::amax"(%[[S]]) {dim = array<i64: 1>{{.*}} -> tensor<2xf32>
func.func @matrix_norm(%x: tensor<2x3x4xf32>) -> tensor<2xf32> {
  %y = exir.aten "aten::linalg_matrix_norm"(%x) {ord = 1 : i64, dim = array<i64: -2, -1>, keepdim = false, dtype = #exir.none, operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @nuclear_norm(%x: tensor<3x4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'aten::linalg_matrix_norm.str_ord' with ord 'nuc' is not supported: the nuclear norm needs singular values (an SVD)}}
  %y = exir.aten "aten::linalg_matrix_norm.str_ord"(%x) {ord = "nuc", dim = array<i64: -2, -1>, keepdim = false, dtype = #exir.none, operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// std -> sqrt(var.correction); std_mean -> var_mean.correction and sqrt;
// var (unbiased=False) -> var.correction with correction 0.
// CHECK-LABEL: func.func @std_var
// CHECK: %[[V:.*]] = exir.aten "aten::var.correction"(%arg0) {correction = 2 : i64, dim = array<i64: 1>, keepdim = true
// CHECK: exir.aten "aten::sqrt"(%[[V]])
// CHECK: %[[VM:.*]]:2 = exir.aten "aten::var_mean.correction"(%arg0) {correction = 1 : i64, dim = array<i64: 0, 1>, keepdim = false
// CHECK: exir.aten "aten::sqrt"(%[[VM]]#0)
// CHECK: exir.aten "aten::var.correction"(%arg0) {correction = 0 : i64, dim = array<i64: 0, 1>
func.func @std_var(%x: tensor<3x4xf32>) -> (tensor<3x1xf32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %a = exir.aten "aten::std.correction"(%x) {dim = array<i64: 1>, correction = 2 : i64, keepdim = true, operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  %s, %m = exir.aten "aten::std_mean"(%x) {unbiased = true, operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> (tensor<f32>, tensor<f32>)
  %v = exir.aten "aten::var"(%x) {unbiased = false, operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> tensor<f32>
  return %a, %s, %m, %v : tensor<3x1xf32>, tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// logsumexp: the max (0 where infinite) subtracted before exp, added back.
// CHECK-LABEL: func.func @logsumexp
// CHECK: %[[M:.*]] = exir.aten "aten::amax"(%arg0) {dim = array<i64: 1>, keepdim = true
// CHECK: %[[INF:.*]] = exir.aten "aten::isinf"(%[[M]])
// CHECK: %[[M0:.*]] = exir.aten "aten::masked_fill.Scalar"(%[[M]], %[[INF]]) {{{.*}}value = 0.000000e+00 : f64}
// CHECK: %[[D:.*]] = exir.aten "aten::sub.Tensor"(%arg0, %[[M0]])
// CHECK: %[[E:.*]] = exir.aten "aten::exp"(%[[D]])
// CHECK: %[[S:.*]] = exir.aten "aten::sum.dim_IntList"(%[[E]]) {dim = array<i64: 1>{{.*}}keepdim = false
// CHECK: %[[MS:.*]] = exir.aten "aten::squeeze_copy.dims"(%[[M0]])
// CHECK: %[[L:.*]] = exir.aten "aten::log"(%[[S]])
// CHECK: exir.aten "aten::add.Tensor"(%[[L]], %[[MS]])
func.func @logsumexp(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  %y = exir.aten "aten::logsumexp"(%x) {dim = array<i64: 1>, keepdim = false, operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// nansum/nanmean zero the NaNs; count_nonzero sums x != 0; all = not any(not x).
// CHECK-LABEL: func.func @nan_reductions
// CHECK: %[[N:.*]] = exir.aten "aten::isnan"(%arg0)
// CHECK: %[[Z:.*]] = exir.aten "aten::masked_fill.Scalar"(%arg0, %[[N]])
// CHECK: exir.aten "aten::sum.dim_IntList"(%[[Z]]) {dim = array<i64: 0, 1>
// CHECK: %[[NZ:.*]] = exir.aten "aten::ne.Scalar"(%arg0)
// CHECK: %[[I:.*]] = exir.aten "aten::_to_copy"(%[[NZ]]) {{{.*}}dtype = i64
// CHECK: exir.aten "aten::sum.dim_IntList"(%[[I]]) {dim = array<i64: 1>
// CHECK: %[[NOT:.*]] = exir.aten "aten::logical_not"(%arg1)
// CHECK: %[[ANY:.*]] = exir.aten "aten::any.dims"(%[[NOT]]) {dim = array<i64: 0>
// CHECK: exir.aten "aten::logical_not"(%[[ANY]])
func.func @nan_reductions(%x: tensor<3x4xf32>, %b: tensor<3x4xi1>) -> (tensor<f32>, tensor<3xi64>, tensor<4xi1>) {
  %a = exir.aten "aten::nansum"(%x) {dim = #exir.none, keepdim = false, dtype = #exir.none, operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> tensor<f32>
  %c = exir.aten "aten::count_nonzero"(%x) {dim = 1 : i64, operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> tensor<3xi64>
  %d = exir.aten "aten::all.dim"(%b) {dim = 0 : i64, keepdim = false, operand_segments = array<i32: 1>} : (tensor<3x4xi1>) -> tensor<4xi1>
  return %a, %c, %d : tensor<f32>, tensor<3xi64>, tensor<4xi1>
}

// -----

// cumprod has no kernel: the product over a masked lower triangle (ones
// where j > i), which multiplies in PyTorch's order.
// CHECK-LABEL: func.func @cumprod
// CHECK: %[[T:.*]] = exir.aten "aten::permute_copy"(%arg0) {dims = array<i64: 1, 0>
// CHECK: %[[U:.*]] = exir.aten "aten::unsqueeze_copy"(%[[T]]) {dim = 1 : i64
// CHECK: %[[E:.*]] = exir.aten "aten::expand_copy"(%[[U]]) {{.*}}size = array<i64: 2, 3, 3>
// CHECK: exir.aten "aten::arange"
// CHECK: %[[MASK:.*]] = exir.aten "aten::ge.Tensor"
// CHECK: %[[ONE:.*]] = exir.aten "aten::full"() {{{.*}}dtype = f32, fill_value = 1.000000e+00 : f64
// CHECK: %[[W:.*]] = exir.aten "aten::where.self"(%[[MASK]], %[[E]], %[[ONE]])
// CHECK: %[[P:.*]] = exir.aten "aten::prod.dim_int"(%[[W]]) {dim = -1 : i64
// CHECK: exir.aten "aten::permute_copy"(%[[P]]) {dims = array<i64: 1, 0>
func.func @cumprod(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %y = exir.aten "aten::cumprod"(%x) {dim = 0 : i64, dtype = #exir.none, operand_segments = array<i32: 1>} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// cummax: a log-step scan of (value, index) pairs; the later one wins ties
// and NaNs win.
// CHECK-LABEL: func.func @cummax
// CHECK: exir.aten "aten::ge.Tensor"
// CHECK: exir.aten "aten::isnan"
// CHECK: exir.aten "aten::logical_or"
// CHECK: exir.aten "aten::where.self"
// CHECK-NOT: aten::cummax
func.func @cummax(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>) {
  %v, %i = exir.aten "aten::cummax"(%x) {dim = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  return %v, %i : tensor<2x4xf32>, tensor<2x4xi64>
}

// -----

// diff: forward differences of slices (after prepending).
// CHECK-LABEL: func.func @diff
// CHECK: %[[C:.*]] = exir.aten "aten::cat"(%arg1, %arg0) {dim = 1 : i64
// CHECK: %[[HI:.*]] = exir.aten "aten::slice_copy.Tensor"(%[[C]]) {dim = 1 : i64, end = 5 : i64, {{.*}}start = 1 : i64
// CHECK: %[[LO:.*]] = exir.aten "aten::slice_copy.Tensor"(%[[C]]) {dim = 1 : i64, end = 4 : i64, {{.*}}start = 0 : i64
// CHECK: exir.aten "aten::sub.Tensor"(%[[HI]], %[[LO]])
func.func @diff(%x: tensor<2x4xf32>, %p: tensor<2x1xf32>) -> tensor<2x4xf32> {
  %y = exir.aten "aten::diff"(%x, %p) {n = 1 : i64, dim = -1 : i64, operand_segments = array<i32: 1, 1, 0>} : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// trace = sum of the diagonal; integers accumulate in int64.
// CHECK-LABEL: func.func @trace
// CHECK: %[[D:.*]] = exir.aten "aten::diagonal_copy"(%arg0)
// CHECK: exir.aten "aten::sum.dim_IntList"(%[[D]]) {{.*}} -> tensor<i64>
func.func @trace(%x: tensor<3x3xi32>) -> tensor<i64> {
  %y = exir.aten "aten::trace"(%x) {operand_segments = array<i32: 1>} : (tensor<3x3xi32>) -> tensor<i64>
  return %y : tensor<i64>
}

// -----

// cov (no weights): centred rows times their transpose over N - correction;
// corrcoef divides by the standard deviations and clamps to [-1, 1].
// CHECK-LABEL: func.func @cov
// CHECK: %[[M:.*]] = exir.aten "aten::mean.dim"(%arg0) {dim = array<i64: 1>, {{.*}}keepdim = true
// CHECK: %[[C:.*]] = exir.aten "aten::sub.Tensor"(%arg0, %[[M]])
// CHECK: %[[T:.*]] = exir.aten "aten::permute_copy"(%[[C]])
// CHECK: %[[P:.*]] = exir.aten "aten::mm"(%[[C]], %[[T]])
// CHECK: %[[N:.*]] = exir.aten "aten::full"() {{{.*}}fill_value = 4.000000e+00 : f64
// CHECK: exir.aten "aten::div.Tensor"(%[[P]], %[[N]])
// CHECK: exir.aten "aten::diagonal_copy"
// CHECK: exir.aten "aten::clamp"{{.*}}max = 1.000000e+00 : f64, min = -1.000000e+00 : f64
func.func @cov(%x: tensor<3x5xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>) {
  %c = exir.aten "aten::cov"(%x) {correction = 1 : i64, operand_segments = array<i32: 1, 0, 0>} : (tensor<3x5xf32>) -> tensor<3x3xf32>
  %r = exir.aten "aten::corrcoef"(%x) {operand_segments = array<i32: 1>} : (tensor<3x5xf32>) -> tensor<3x3xf32>
  return %c, %r : tensor<3x3xf32>, tensor<3x3xf32>
}

// -----

// baddbmm: bmm, then alpha * product + beta * self.
// CHECK-LABEL: func.func @baddbmm
// CHECK: %[[P:.*]] = exir.aten "aten::bmm"(%arg1, %arg2)
// CHECK: %[[PA:.*]] = exir.aten "aten::mul.Scalar"(%[[P]]) {{{.*}}other = 2.000000e+00 : f64}
// CHECK: %[[SB:.*]] = exir.aten "aten::mul.Scalar"(%arg0) {{{.*}}other = 5.000000e-01 : f64}
// CHECK: exir.aten "aten::add.Tensor"(%[[SB]], %[[PA]])
func.func @baddbmm(%s: tensor<2x1x5xf32>, %a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %y = exir.aten "aten::baddbmm"(%s, %a, %b) {beta = 0.5 : f64, alpha = 2 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<2x1x5xf32>, tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// beta = 0 ignores self (and its NaNs).
// CHECK-LABEL: func.func @addmv_beta0
// CHECK: %[[V:.*]] = exir.aten "aten::view_copy"(%arg2) {{.*}}size = array<i64: 4, 1>
// CHECK: %[[P:.*]] = exir.aten "aten::mm"(%arg1, %[[V]])
// CHECK: %[[R:.*]] = exir.aten "aten::view_copy"(%[[P]]) {{.*}}size = array<i64: 3>
// CHECK-NOT: aten::add
// CHECK: return %[[R]]
func.func @addmv_beta0(%s: tensor<3xf32>, %m: tensor<3x4xf32>, %v: tensor<4xf32>) -> tensor<3xf32> {
  %y = exir.aten "aten::addmv"(%s, %m, %v) {beta = 0 : i64, alpha = 1 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// einsum "bij,bjk->bik": one bmm; "ii->i": a diagonal; "ij->": a sum.
// CHECK-LABEL: func.func @einsum
// CHECK: exir.aten "aten::bmm"(%arg0, %arg1) {{.*}} -> tensor<2x3x5xf32>
// CHECK: exir.aten "aten::diagonal_copy"(%arg2) {dim1 = 0 : i64, dim2 = 1 : i64
// CHECK: exir.aten "aten::sum.dim_IntList"(%arg2) {dim = array<i64: 0, 1>
func.func @einsum(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %s: tensor<4x4xf32>) -> (tensor<2x3x5xf32>, tensor<4xf32>, tensor<f32>) {
  %x = exir.aten "aten::einsum"(%a, %b) {equation = "bij,bjk->bik", path = #exir.none, operand_segments = array<i32: 2>} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %y = exir.aten "aten::einsum"(%s) {equation = "ii->i", path = #exir.none, operand_segments = array<i32: 1>} : (tensor<4x4xf32>) -> tensor<4xf32>
  %z = exir.aten "aten::einsum"(%s) {equation = "ij->", path = #exir.none, operand_segments = array<i32: 1>} : (tensor<4x4xf32>) -> tensor<f32>
  return %x, %y, %z : tensor<2x3x5xf32>, tensor<4xf32>, tensor<f32>
}

// -----

// Attention heads "bhqd,bhkd->bhqk" with broadcast batch: the batch of one
// operand is expanded, the contraction is one bmm over b*h.
// CHECK-LABEL: func.func @einsum_broadcast
// CHECK: %[[KT:.*]] = exir.aten "aten::permute_copy"(%arg1) {dims = array<i64: 0, 1, 3, 2>
// CHECK: exir.aten "aten::expand_copy"(%[[KT]]) {{.*}}size = array<i64: 2, 3, 5, 4>
// CHECK: exir.aten "aten::bmm"{{.*}} -> tensor<6x4x4xf32>
func.func @einsum_broadcast(%q: tensor<2x3x4x5xf32>, %k: tensor<1x3x4x5xf32>) -> tensor<2x3x4x4xf32> {
  %x = exir.aten "aten::einsum"(%q, %k) {equation = "bhqd,bhkd->bhqk", path = #exir.none, operand_segments = array<i32: 2>} : (tensor<2x3x4x5xf32>, tensor<1x3x4x5xf32>) -> tensor<2x3x4x4xf32>
  return %x : tensor<2x3x4x4xf32>
}

// -----

// cross: rolled components, c = roll(a,-1) roll(b,-2) - roll(a,-2) roll(b,-1).
// CHECK-LABEL: func.func @cross
// CHECK-DAG: %[[A1:.*]] = exir.aten "aten::roll"(%arg0) {dims = array<i64: 1>, {{.*}}shifts = array<i64: -1>}
// CHECK-DAG: %[[B2:.*]] = exir.aten "aten::roll"(%arg1) {dims = array<i64: 1>, {{.*}}shifts = array<i64: -2>}
// CHECK-DAG: %[[A2:.*]] = exir.aten "aten::roll"(%arg0) {dims = array<i64: 1>, {{.*}}shifts = array<i64: -2>}
// CHECK-DAG: %[[B1:.*]] = exir.aten "aten::roll"(%arg1) {dims = array<i64: 1>, {{.*}}shifts = array<i64: -1>}
// CHECK-DAG: %[[P:.*]] = exir.aten "aten::mul.Tensor"(%[[A1]], %[[B2]])
// CHECK-DAG: %[[Q:.*]] = exir.aten "aten::mul.Tensor"(%[[A2]], %[[B1]])
// CHECK: exir.aten "aten::sub.Tensor"(%[[P]], %[[Q]])
func.func @cross(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = exir.aten "aten::linalg_cross"(%a, %b) {dim = -1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// cdist and pdist have kernels.
// CHECK-LABEL: func.func @distances
// CHECK: exir.aten "aten::_cdist_forward"(%arg0, %arg1) {compute_mode = #exir.none, operand_segments = array<i32: 1, 1>, p = 1.000000e+00 : f64}
// CHECK: exir.aten "aten::_pdist_forward"(%arg0) {operand_segments = array<i32: 1>, p = 2.000000e+00 : f64}
func.func @distances(%a: tensor<3x4xf32>, %b: tensor<5x4xf32>) -> (tensor<3x5xf32>, tensor<3xf32>) {
  %c = exir.aten "aten::cdist"(%a, %b) {p = 1.0 : f64, compute_mode = #exir.none, operand_segments = array<i32: 1, 1>} : (tensor<3x4xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  %d = exir.aten "aten::pdist"(%a) {p = 2.0 : f64, operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> tensor<3xf32>
  return %c, %d : tensor<3x5xf32>, tensor<3xf32>
}

// -----

// Grouped-query attention: each of the 2 key/value heads serves 2 query
// heads (unsqueeze, expand, view); a boolean mask hides scores with -inf and
// fully hidden rows give 0.
// CHECK-LABEL: func.func @sdpa_gqa
// CHECK: %[[KU:.*]] = exir.aten "aten::unsqueeze_copy"(%arg1) {dim = 2 : i64
// CHECK: %[[KE:.*]] = exir.aten "aten::expand_copy"(%[[KU]]) {{.*}}size = array<i64: 1, 2, 2, 5, 8>
// CHECK: exir.aten "aten::view_copy"(%[[KE]]) {{.*}}size = array<i64: 1, 4, 5, 8>
// CHECK: exir.aten "aten::bmm"
// CHECK: %[[SC:.*]] = exir.aten "aten::mul.Scalar"
// CHECK: %[[HID:.*]] = exir.aten "aten::logical_not"(%arg3)
// CHECK: %[[MS:.*]] = exir.aten "aten::masked_fill.Scalar"(%[[SC]], %[[HID]]) {{{.*}}value = 0xFFF0000000000000 : f64}
// CHECK: %[[P:.*]] = exir.aten "aten::_softmax"(%[[MS]]) {dim = -1 : i64
// CHECK: %[[LIVE:.*]] = exir.aten "aten::ne.Scalar"(%[[MS]])
// CHECK: %[[ANY:.*]] = exir.aten "aten::any.dim"(%[[LIVE]]) {dim = -1 : i64, keepdim = true
// CHECK: exir.aten "aten::where.self"(%[[ANY]], %[[P]],
// CHECK: exir.aten "aten::bmm"
func.func @sdpa_gqa(%q: tensor<1x4x5x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %m: tensor<5x5xi1>) -> tensor<1x4x5x8xf32> {
  %y = exir.aten "aten::scaled_dot_product_attention"(%q, %k, %v, %m) {dropout_p = 0.0 : f64, is_causal = false, scale = #exir.none, enable_gqa = true, operand_segments = array<i32: 1, 1, 1, 1>} : (tensor<1x4x5x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<5x5xi1>) -> tensor<1x4x5x8xf32>
  return %y : tensor<1x4x5x8xf32>
}

// -----

// is_causal: key j is hidden from query i when i < j ([L, S] from arange).
// CHECK-LABEL: func.func @sdpa_causal
// CHECK-DAG: %[[I:.*]] = exir.aten "aten::arange"() {{{.*}}dtype = i64, end = 3 : i64
// CHECK-DAG: %[[J:.*]] = exir.aten "aten::arange"() {{{.*}}dtype = i64, end = 4 : i64
// CHECK-DAG: %[[IV:.*]] = exir.aten "aten::view_copy"(%[[I]]) {{.*}}size = array<i64: 3, 1>
// CHECK-DAG: %[[JV:.*]] = exir.aten "aten::view_copy"(%[[J]]) {{.*}}size = array<i64: 1, 4>
// CHECK: %[[H:.*]] = exir.aten "aten::lt.Tensor"(%[[IV]], %[[JV]])
// CHECK: exir.aten "aten::masked_fill.Scalar"(%{{.*}}, %[[H]])
func.func @sdpa_causal(%q: tensor<2x3x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x3x8xf32> {
  %y = exir.aten "aten::scaled_dot_product_attention"(%q, %k, %v) {dropout_p = 0.0 : f64, is_causal = true, scale = 0.5 : f64, enable_gqa = false, operand_segments = array<i32: 1, 1, 1, 0>} : (tensor<2x3x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}

// -----

// nll_loss: minus the input at the target class (0 where ignored), mean over
// the counted targets.
// CHECK-LABEL: func.func @nll_loss
// CHECK: %[[K:.*]] = exir.aten "aten::ne.Scalar"(%arg1) {{{.*}}other = -100 : i64}
// CHECK: %[[T:.*]] = exir.aten "aten::where.self"(%[[K]], %arg1,
// CHECK: %[[G:.*]] = exir.aten "aten::gather"(%arg0, %{{.*}}) {dim = 1 : i64
// CHECK: exir.aten "aten::neg"
// CHECK: exir.aten "aten::div.Tensor"
func.func @nll_loss(%x: tensor<4x5xf32>, %t: tensor<4xi64>) -> tensor<f32> {
  %y = exir.aten "aten::nll_loss_nd"(%x, %t) {reduction = 1 : i64, ignore_index = -100 : i64, operand_segments = array<i32: 1, 1, 0>} : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// cross_entropy with class indices: log_softmax over the class dim, nll.
// CHECK-LABEL: func.func @cross_entropy
// CHECK: %[[L:.*]] = exir.aten "aten::_log_softmax"(%arg0) {dim = 1 : i64
// CHECK: exir.aten "aten::gather"(%[[L]]
func.func @cross_entropy(%x: tensor<4x5xf32>, %t: tensor<4xi64>) -> tensor<4xf32> {
  %y = exir.aten "aten::cross_entropy_loss"(%x, %t) {reduction = 0 : i64, ignore_index = -100 : i64, label_smoothing = 0.0 : f64, operand_segments = array<i32: 1, 1, 0>} : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// mse_loss with 'sum': (x - t)^2 summed over every dim.
// CHECK-LABEL: func.func @mse_loss
// CHECK: %[[D:.*]] = exir.aten "aten::sub.Tensor"(%arg0, %arg1)
// CHECK: %[[SQ:.*]] = exir.aten "aten::mul.Tensor"(%[[D]], %[[D]])
// CHECK: exir.aten "aten::sum.dim_IntList"(%[[SQ]]) {dim = array<i64: 0, 1>
func.func @mse_loss(%x: tensor<4x5xf32>, %t: tensor<4x5xf32>) -> tensor<f32> {
  %y = exir.aten "aten::mse_loss"(%x, %t) {reduction = 2 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// matrix_power(x, 3) by squaring: x * (x * x).
// CHECK-LABEL: func.func @matrix_power
// CHECK: %[[SQ:.*]] = exir.aten "aten::mm"(%arg0, %arg0)
// CHECK: exir.aten "aten::mm"(%arg0, %[[SQ]])
func.func @matrix_power(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %y = exir.aten "aten::matrix_power"(%x) {n = 3 : i64, operand_segments = array<i32: 1>} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %y : tensor<3x3xf32>
}

// -----

// Factorizations have no portable kernel: refused by name.
func.func @inverse(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{'aten::linalg_inv' is not supported: it needs a matrix factorization or solver (SVD, LU, QR, Cholesky or an eigen-decomposition), and there is no kernel for it in ExecuTorch's portable library}}
  %y = exir.aten "aten::linalg_inv"(%x) {operand_segments = array<i32: 1>} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %y : tensor<3x3xf32>
}

// -----

func.func @matrix_power_negative(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{'aten::linalg_matrix_power' with a negative n is not supported: it needs the matrix inverse}}
  %y = exir.aten "aten::linalg_matrix_power"(%x) {n = -1 : i64, operand_segments = array<i32: 1>} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %y : tensor<3x3xf32>
}

// -----

// multilabel_margin_loss: targets up to the first -1 (a cumsum of t < 0 that
// is still 0), is_target from an any over [N, k, j].
// CHECK-LABEL: func.func @multilabel_margin
// CHECK: %[[NEG:.*]] = exir.aten "aten::lt.Scalar"
// CHECK: exir.aten "aten::cumsum"
// CHECK: exir.aten "aten::any.dim"{{.*}}dim = 1 : i64
// CHECK: exir.aten "aten::gather"
// CHECK-NOT: aten::multilabel_margin_loss
func.func @multilabel_margin(%x: tensor<2x4xf32>, %t: tensor<2x4xi64>) -> tensor<f32> {
  %y = exir.aten "aten::multilabel_margin_loss"(%x, %t) {reduction = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x4xf32>, tensor<2x4xi64>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// On run-time shapes: rules that read no sizes from the static types
// (elementwise ops, reductions over dim lists) still decompose...
// CHECK-LABEL: func.func @dynamic_handled
// CHECK: exir.aten "aten::rsqrt"
// CHECK: exir.aten "aten::var.correction"
// CHECK: exir.aten "aten::sqrt"
// CHECK: exir.aten "aten::bmm"
// CHECK-NOT: aten::rms_norm
// CHECK-NOT: aten::std.correction
// CHECK-NOT: aten::baddbmm
func.func @dynamic_handled(%x: tensor<8x3x6xf32> {exir.dynamic_dims = array<i64: 0>}, %b: tensor<8x6x2xf32> {exir.dynamic_dims = array<i64: 0>}, %c: tensor<1x3x2xf32>) -> (tensor<8x3x6xf32>, tensor<8x3xf32>, tensor<8x3x2xf32>) {
  %y = exir.aten "aten::rms_norm"(%x) {normalized_shape = array<i64: 6>, eps = 1.0e-6 : f64, operand_segments = array<i32: 1, 0>} : (tensor<8x3x6xf32>) -> tensor<8x3x6xf32>
  %s = exir.aten "aten::std.correction"(%x) {dim = array<i64: -1>, correction = 1 : i64, keepdim = false, operand_segments = array<i32: 1>} : (tensor<8x3x6xf32>) -> tensor<8x3xf32>
  %p = exir.aten "aten::baddbmm"(%c, %x, %b) {beta = 0 : i64, alpha = 1 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<1x3x2xf32>, tensor<8x3x6xf32>, tensor<8x6x2xf32>) -> tensor<8x3x2xf32>
  return %y, %s, %p : tensor<8x3x6xf32>, tensor<8x3xf32>, tensor<8x3x2xf32>
}

// -----

// ... and those whose rewrite takes sizes from the types are refused by name.
func.func @dynamic_refused(%x: tensor<8x4x5xf32> {exir.dynamic_dims = array<i64: 2>}) -> tensor<8x4x5xf32> {
  // expected-error @+1 {{'aten::group_norm' on a dynamically shaped value is not supported yet}}
  %y = exir.aten "aten::group_norm"(%x) {num_groups = 2 : i64, eps = 1.0e-5 : f64, cudnn_enabled = true, operand_segments = array<i32: 1, 0, 0>} : (tensor<8x4x5xf32>) -> tensor<8x4x5xf32>
  return %y : tensor<8x4x5xf32>
}

// -----

// dist is the vector norm of the broadcast difference: p = 2 -> sqrt(sum(d*d)),
// p = 1 -> sum(abs(d)).
// CHECK-LABEL: func.func @dist
// CHECK: %[[D:.*]] = exir.aten "aten::sub.Tensor"(%arg0, %arg1) {{.*}} -> tensor<2x3xf32>
// CHECK: %[[SQ:.*]] = exir.aten "aten::mul.Tensor"(%[[D]], %[[D]])
// CHECK: %[[S:.*]] = exir.aten "aten::sum.dim_IntList"(%[[SQ]])
// CHECK: exir.aten "aten::sqrt"(%[[S]]) {{.*}} -> tensor<f32>
// CHECK: %[[D1:.*]] = exir.aten "aten::sub.Tensor"(%arg0, %arg1)
// CHECK: %[[A:.*]] = exir.aten "aten::abs"(%[[D1]])
// CHECK: exir.aten "aten::sum.dim_IntList"(%[[A]]) {{.*}} -> tensor<f32>
// CHECK-NOT: "aten::dist"
func.func @dist(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<f32>, tensor<f32>) {
  %x = exir.aten "aten::dist"(%a, %b) {operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<f32>
  %y = exir.aten "aten::dist"(%a, %b) {p = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<f32>
  return %x, %y : tensor<f32>, tensor<f32>
}

// -----

// histc and segment_reduce are refused by name.
func.func @histc(%x: tensor<5xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten::histc' is not supported: ptec has no decomposition of histc}}
  %h = exir.aten "aten::histc"(%x) {bins = 4 : i64, operand_segments = array<i32: 1>} : (tensor<5xf32>) -> tensor<4xf32>
  return %h : tensor<4xf32>
}

// -----

func.func @linalg_polar(%a: tensor<3x3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{'aten::linalg_polar' is not supported: it needs a matrix factorization}}
  %p:2 = exir.aten "aten::linalg_polar"(%a) {operand_segments = array<i32: 1>} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>)
  return %p#0 : tensor<3x3xf32>
}
