// RUN: ptec-opt %s --split-input-file --exir-legalize-to-core --verify-diagnostics | FileCheck %s

// Views become their _copy forms with the same arguments.
// CHECK-LABEL: func.func @views
func.func @views(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK: exir.aten "aten::view_copy"(%{{.*}}) {operand_segments = array<i32: 1>, size = array<i64: 3, 2>}
  %v = exir.aten "aten::view"(%x) {size = array<i64: 3, 2>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK: exir.aten "aten::permute_copy"
  %p = exir.aten "aten::permute"(%v) {dims = array<i64: 1, 0>, operand_segments = array<i32: 1>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  // CHECK: exir.aten "aten::view_copy"(%{{.*}}) {operand_segments = array<i32: 1>, size = array<i64: 3, 2>}
  %r = exir.aten "aten::reshape"(%p) {shape = array<i64: 3, 2>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK-NOT: aten::view"
  // CHECK-NOT: aten::permute"
  return %r : tensor<3x2xf32>
}

// -----

// No-ops disappear; their users read the input directly.
// CHECK-LABEL: func.func @noops
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
func.func @noops(%x: tensor<4xf32>) -> tensor<4xf32> {
  %d = exir.aten "aten::detach"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %o = exir.aten "aten::dropout"(%d) {p = 5.000000e-01 : f64, train = false, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: %[[R:.*]] = exir.aten "aten::relu"(%[[X]])
  %r = exir.aten "aten::relu"(%o) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: return %[[R]]
  return %r : tensor<4xf32>
}

// -----

// A functional copy whose source already has the result's type is the source
// (functionalization's `buf.copy_(src)`); one that broadcasts or casts stays.
// CHECK-LABEL: func.func @copy_of_same_type
// CHECK-SAME: (%{{.*}}: tensor<2x3xf32>, %[[S:.*]]: tensor<2x3xf32>, %[[R:.*]]: tensor<3xf32>)
// CHECK-NEXT: %[[B:.*]] = exir.aten "aten::copy"(%{{.*}}, %[[R]])
// CHECK-NEXT: return %[[S]], %[[B]]
func.func @copy_of_same_type(%dst: tensor<2x3xf32>, %src: tensor<2x3xf32>, %row: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %c = exir.aten "aten::copy"(%dst, %src) {non_blocking = false, operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = exir.aten "aten::copy"(%dst, %row) {non_blocking = false, operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %c, %b : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// linear on a rank-3 input: fold rows, addmm with the transposed weight, unfold.
// CHECK-LABEL: func.func @linear
func.func @linear(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>, %b: tensor<5xf32>) -> tensor<2x3x5xf32> {
  // CHECK: %[[WT:.*]] = exir.aten "aten::permute_copy"(%{{.*}}) {dims = array<i64: 1, 0>{{.*}} -> tensor<4x5xf32>
  // CHECK: %[[X2:.*]] = exir.aten "aten::view_copy"(%{{.*}}) {{.*}}size = array<i64: 6, 4>
  // CHECK: %[[Y:.*]] = exir.aten "aten::addmm"(%{{.*}}, %[[X2]], %[[WT]]) {alpha = 1 : i64, beta = 1 : i64{{.*}} -> tensor<6x5xf32>
  // CHECK: exir.aten "aten::view_copy"(%[[Y]]) {{.*}}size = array<i64: 2, 3, 5>
  %y = exir.aten "aten::linear"(%x, %w, %b) {operand_segments = array<i32: 1, 1, 1>} : (tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// conv2d becomes convolution with every argument spelled out.
// CHECK-LABEL: func.func @conv
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: exir.aten "aten::convolution"(%{{.*}}, %{{.*}}) {dilation = array<i64: 1, 1>, groups = 1 : i64, operand_segments = array<i32: 1, 1, 0>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false}
  %y = exir.aten "aten::conv2d"(%x, %w) {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>, groups = 1 : i64, bias = #exir.none, operand_segments = array<i32: 1, 1, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// Eval batch_norm -> the no-training core op; layer_norm -> native_layer_norm.
// CHECK-LABEL: func.func @norms
func.func @norms(%x: tensor<1x2x4x4xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>, %g: tensor<4xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK: exir.aten "aten::_native_batch_norm_legit_no_training"{{.*}} -> (tensor<1x2x4x4xf32>, tensor<0xf32>, tensor<0xf32>)
  %y = exir.aten "aten::batch_norm"(%x, %m, %v) {training = false, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64, cudnn_enabled = true, operand_segments = array<i32: 1, 0, 0, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  // CHECK: exir.aten "aten::native_layer_norm"{{.*}} -> (tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>, tensor<1x2x4x1xf32>)
  %z = exir.aten "aten::layer_norm"(%y, %g) {normalized_shape = array<i64: 4>, eps = 1.000000e-05 : f64, cudnn_enable = true, operand_segments = array<i32: 1, 1, 0>} : (tensor<1x2x4x4xf32>, tensor<4xf32>) -> tensor<1x2x4x4xf32>
  return %z : tensor<1x2x4x4xf32>
}

// -----

// Batched matmul folds batch dims into bmm.
// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<2x3x4x5xf32>, %b: tensor<2x3x5x6xf32>) -> tensor<2x3x4x6xf32> {
  // CHECK: exir.aten "aten::bmm"{{.*}} -> tensor<6x4x6xf32>
  %y = exir.aten "aten::matmul"(%a, %b) {operand_segments = array<i32: 1, 1>} : (tensor<2x3x4x5xf32>, tensor<2x3x5x6xf32>) -> tensor<2x3x4x6xf32>
  return %y : tensor<2x3x4x6xf32>
}

// -----

// Broadcast batch dims (static shapes): both sides expanded to the common
// batch, folded into one bmm; a vector on the left is a row, dropped at the end.
// CHECK-LABEL: func.func @matmul_broadcast
func.func @matmul_broadcast(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>, %v: tensor<4xf32>) -> (tensor<2x5x3x6xf32>, tensor<5x6xf32>) {
  // CHECK: exir.aten "aten::expand_copy"{{.*}} -> tensor<2x5x3x4xf32>
  // CHECK: exir.aten "aten::expand_copy"{{.*}} -> tensor<2x5x4x6xf32>
  // CHECK: exir.aten "aten::bmm"{{.*}} -> tensor<10x3x6xf32>
  %y = exir.aten "aten::matmul"(%a, %b) {operand_segments = array<i32: 1, 1>} : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  // CHECK: exir.aten "aten::bmm"{{.*}} -> tensor<5x1x6xf32>
  // CHECK: exir.aten "aten::view_copy"{{.*}} -> tensor<5x6xf32>
  %z = exir.aten "aten::matmul"(%v, %b) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<5x4x6xf32>) -> tensor<5x6xf32>
  return %y, %z : tensor<2x5x3x6xf32>, tensor<5x6xf32>
}

// -----

// Attention: q @ k^T * scale, softmax, @ v.
// CHECK-LABEL: func.func @sdpa
func.func @sdpa(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
  // CHECK: exir.aten "aten::bmm"
  // CHECK: exir.aten "aten::mul.Scalar"{{.*}}other = 5.000000e-01 : f64
  // CHECK: exir.aten "aten::_softmax"{{.*}}dim = -1 : i64
  // CHECK: exir.aten "aten::bmm"
  %y = exir.aten "aten::scaled_dot_product_attention"(%q, %k, %v) {dropout_p = 0.0 : f64, is_causal = false, scale = #exir.none, enable_gqa = false, operand_segments = array<i32: 1, 1, 1, 0>} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %y : tensor<1x2x8x4xf32>
}

// -----

// CHECK-LABEL: func.func @activations
func.func @activations(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: exir.aten "aten::hardtanh"{{.*}}max_val = 6.000000e+00 : f64, min_val = 0.000000e+00 : f64
  %a = exir.aten "aten::relu6"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: exir.aten "aten::sigmoid"
  // CHECK: exir.aten "aten::mul.Tensor"
  %b = exir.aten "aten::silu"(%a) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: exir.aten "aten::_softmax"{{.*}}half_to_float = false
  %c = exir.aten "aten::softmax.int"(%b) {dim = 0 : i64, dtype = #exir.none, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}


// -----

// Training-mode batch norm (what functionalization and torch 2.2-era
// run_decompositions() write): batch statistics over every dim but 1, the
// running statistics' updates as results 3 and 4 (unbiased variance: n = 32,
// 0.1 * 32 / 31).
// CHECK-LABEL: func.func @bn_training
// CHECK: %[[MEAN:.*]] = exir.aten "aten::mean.dim"(%arg0) {dim = array<i64: 0, 2, 3>, dtype = #exir.none, keepdim = true
// CHECK: %[[VAR:.*]] = exir.aten "aten::var.correction"(%arg0) {correction = 0 : i64, dim = array<i64: 0, 2, 3>, keepdim = true
// CHECK: %[[VE:.*]] = exir.aten "aten::add.Scalar"(%[[VAR]]) {{{.*}}other = 1.000000e-05 : f64}
// CHECK: %[[RSTD:.*]] = exir.aten "aten::rsqrt"(%[[VE]])
// CHECK: %[[C:.*]] = exir.aten "aten::sub.Tensor"(%arg0, %[[MEAN]])
// CHECK: %[[Y:.*]] = exir.aten "aten::mul.Tensor"(%[[C]], %[[RSTD]])
// CHECK: %[[SM:.*]] = exir.aten "aten::view_copy"(%[[MEAN]]) {{.*}}size = array<i64: 3>
// CHECK: exir.aten "aten::mul.Scalar"(%arg1) {{{.*}}other = 9.000000e-01 : f64}
// CHECK: exir.aten "aten::mul.Scalar"(%[[SM]]) {{{.*}}other = 1.000000e-01 : f64}
// CHECK: %[[NM:.*]] = exir.aten "aten::add.Tensor"
// CHECK: exir.aten "aten::mul.Scalar"(%arg2) {{{.*}}other = 9.000000e-01 : f64}
// CHECK: exir.aten "aten::mul.Scalar"({{.*}}) {{{.*}}other = 0.1032258064516129 : f64}
// CHECK: %[[NV:.*]] = exir.aten "aten::add.Tensor"
// CHECK: return %[[Y]], %[[NM]], %[[NV]]
func.func @bn_training(%x: tensor<2x3x4x4xf32>, %rm: tensor<3xf32>, %rv: tensor<3xf32>)
    -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %r:5 = exir.aten "aten::_native_batch_norm_legit_functional"(%x, %rm, %rv) {training = true, momentum = 0.1 : f64, eps = 1.0e-5 : f64, operand_segments = array<i32: 1, 0, 0, 1, 1>} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %r#0, %r#3, %r#4 : tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// What zero_ and index_copy_ become: fill with 0; index_put with the index at
// position `dim`.
// CHECK-LABEL: func.func @zero_index_copy
// CHECK: exir.aten "aten::fill.Scalar"(%arg0) {{{.*}}value = 0 : i64}
// CHECK: exir.aten "aten::index_put"(%arg0, %arg1, %arg2) {accumulate = false, indices = array<i1: false, false, true>
func.func @zero_index_copy(%c: tensor<1x2x8x4xf32>, %pos: tensor<1xi64>, %k: tensor<1x2x1x4xf32>)
    -> (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) {
  %z = exir.aten "aten::zero"(%c) {operand_segments = array<i32: 1>} : (tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %i = exir.aten "aten::index_copy"(%c, %pos, %k) {dim = 2 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<1x2x8x4xf32>, tensor<1xi64>, tensor<1x2x1x4xf32>) -> tensor<1x2x8x4xf32>
  return %z, %i : tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>
}

// -----

// Dropout in training mode is random: refused with what to do instead.
func.func @dropout_train(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten::dropout' in training mode is random}}
  %d = exir.aten "aten::dropout"(%x) {p = 0.5 : f64, train = true, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// as_strided reads the flattened tensor at offset + sum(i_k * stride_k): one
// arange per dimension (the offset in the first), broadcast-added, then
// index.Tensor; as_strided_scatter (a write through such a view) puts src at
// those indices with index_put and views the result back.
// CHECK-LABEL: func.func @as_strided(
// CHECK: %[[A0:.*]] = exir.aten "aten::arange.start_step"() {{.*}}end = 7 : i64{{.*}}start = 1 : i64, step = 3 : i64}
// CHECK: %[[V0:.*]] = exir.aten "aten::view_copy"(%[[A0]]) {{.*}}size = array<i64: 2, 1>
// CHECK: %[[A1:.*]] = exir.aten "aten::arange.start_step"() {{.*}}end = 2 : i64{{.*}}start = 0 : i64, step = 1 : i64}
// CHECK: %[[V1:.*]] = exir.aten "aten::view_copy"(%[[A1]]) {{.*}}size = array<i64: 1, 2>
// CHECK: %[[I:.*]] = exir.aten "aten::add.Tensor"(%[[V0]], %[[V1]]) {{.*}} -> tensor<2x2xi64>
// CHECK: %[[F:.*]] = exir.aten "aten::view_copy"(%arg0) {{.*}}size = array<i64: 6>
// CHECK: %[[P:.*]] = exir.aten "aten::index_put"(%[[F]], %[[I]], %arg1)
// CHECK: %[[R:.*]] = exir.aten "aten::view_copy"(%[[P]]) {{.*}}size = array<i64: 2, 3>
// CHECK: return %[[R]]
func.func @as_strided(%x: tensor<2x3xf32>, %v: tensor<2x2xf32>) -> tensor<2x3xf32> {
  %s = exir.aten "aten::as_strided_scatter"(%x, %v) {size = array<i64: 2, 2>, stride = array<i64: 3, 1>, storage_offset = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

// -----

// as_strided of a view addresses the view's base storage in PyTorch, which a
// view copy no longer has: refused.
func.func @as_strided_of_view(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %t = exir.aten "aten::permute_copy"(%x) {dims = array<i64: 1, 0>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // expected-error @+1 {{as_strided of a view ('aten::permute_copy'): PyTorch addresses the view's base storage there}}
  %o = exir.aten "aten::as_strided"(%t) {size = array<i64: 2>, stride = array<i64: 2>, operand_segments = array<i32: 1>} : (tensor<3x2xf32>) -> tensor<2xf32>
  return %o : tensor<2xf32>
}

// -----

// lift and eval-mode alpha dropouts are their input; eval native_batch_norm
// is the no-training core op (its unused statistics keep their types).
// CHECK-LABEL: func.func @more_noops
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[M:.*]]: tensor<3xf32>, %[[V:.*]]: tensor<3xf32>)
// CHECK-NEXT: %[[BN:.*]]:3 = exir.aten "aten::_native_batch_norm_legit_no_training"(%[[X]], %[[M]], %[[V]]) {eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64, operand_segments = array<i32: 1, 0, 0, 1, 1>} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<0xf32>, tensor<0xf32>)
// CHECK-NEXT: return %[[BN]]#0
func.func @more_noops(%x: tensor<2x3x4xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x4xf32> {
  %l = exir.aten "aten::lift"(%x) {operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %a = exir.aten "aten::alpha_dropout"(%l) {p = 5.000000e-01 : f64, train = false, operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %f = exir.aten "aten::feature_alpha_dropout"(%a) {p = 5.000000e-01 : f64, train = false, operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %y:3 = exir.aten "aten::native_batch_norm"(%f, %m, %v) {training = false, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64, operand_segments = array<i32: 1, 0, 0, 1, 1>} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<0xf32>, tensor<0xf32>)
  return %y#0 : tensor<2x3x4xf32>
}

// -----

// Training-mode alpha dropout is random; training-mode native_batch_norm is refused.
func.func @alpha_dropout_train(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten::alpha_dropout' in training mode is random}}
  %a = exir.aten "aten::alpha_dropout"(%x) {p = 5.000000e-01 : f64, train = true, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @native_batch_norm_train(%x: tensor<2x3x4xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{'aten::native_batch_norm' in training mode is not supported: export the model in eval mode}}
  %y:3 = exir.aten "aten::native_batch_norm"(%x, %m, %v) {training = true, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64, operand_segments = array<i32: 1, 0, 0, 1, 1>} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y#0 : tensor<2x3x4xf32>
}

// -----

// A bit cast is refused by name.
func.func @view_dtype(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'aten::view.dtype' is not supported: it reinterprets a tensor's bytes}}
  %y = exir.aten "aten::view.dtype"(%x) {dtype = f32, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
