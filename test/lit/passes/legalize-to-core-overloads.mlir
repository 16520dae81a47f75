// RUN: ptec-opt %s --split-input-file --exir-legalize-to-core | FileCheck %s

// Overloads torch emits without a portable kernel become equivalents that
// have one (upstream's portable operator set).

// CHECK-LABEL: func.func @max_min_other
// CHECK-SAME: (%[[A:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>)
func.func @max_min_other(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  // CHECK: exir.aten "aten::maximum"(%[[A]], %[[B]])
  %x = exir.aten "aten::max.other"(%a, %b) {operand_segments = array<i32: 1, 1>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // CHECK: exir.aten "aten::minimum"(%[[A]], %[[B]])
  %n = exir.aten "aten::min.other"(%a, %b) {operand_segments = array<i32: 1, 1>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // CHECK-NOT: .other"
  return %x, %n : tensor<3xf32>, tensor<3xf32>
}

// -----

// rsub.Tensor(self, other, alpha) = other - alpha * self.
// CHECK-LABEL: func.func @rsub_tensor
// CHECK-SAME: (%[[S:.*]]: tensor<3xf32>, %[[O:.*]]: tensor<3xf32>)
func.func @rsub_tensor(%s: tensor<3xf32>, %o: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: exir.aten "aten::sub.Tensor"(%[[O]], %[[S]]) {alpha = 2 : i64
  %r = exir.aten "aten::rsub.Tensor"(%s, %o) {alpha = 2 : i64, operand_segments = array<i32: 1, 1>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// clamp_min / clamp_max are clamp with one bound (scalar or tensor).
// CHECK-LABEL: func.func @clamp_bounds
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[L:.*]]: tensor<4xf32>)
func.func @clamp_bounds(%x: tensor<4xf32>, %l: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK: exir.aten "aten::clamp"(%[[X]]) {max = #exir.none, min = 5.000000e-01 : f64
  %a = exir.aten "aten::clamp_min"(%x) {min = 0.5 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: exir.aten "aten::clamp"(%[[X]]) {max = 6 : i64, min = #exir.none
  %b = exir.aten "aten::clamp_max"(%x) {max = 6 : i64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: exir.aten "aten::clamp.Tensor"(%[[X]], %[[L]]) {operand_segments = array<i32: 1, 1, 0>}
  %c = exir.aten "aten::clamp_min.Tensor"(%x, %l) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: exir.aten "aten::clamp.Tensor"(%[[X]], %[[L]]) {operand_segments = array<i32: 1, 0, 1>}
  %d = exir.aten "aten::clamp_max.Tensor"(%x, %l) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NOT: clamp_m
  return %a, %b, %c, %d : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// squeeze without dims: every size-1 dim of the static shape.
// CHECK-LABEL: func.func @squeeze_all
func.func @squeeze_all(%x: tensor<1x3x1x2xf32>) -> tensor<3x2xf32> {
  // CHECK: exir.aten "aten::squeeze_copy.dims"(%{{.*}}) {dim = array<i64: 0, 2>
  %s = exir.aten "aten::squeeze"(%x) {operand_segments = array<i32: 1>} : (tensor<1x3x1x2xf32>) -> tensor<3x2xf32>
  return %s : tensor<3x2xf32>
}

// -----

// zeros_like / ones_like are full_like; arange.start is arange.start_step.
// CHECK-LABEL: func.func @factories
func.func @factories(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<4xi64>) {
  // CHECK: exir.aten "aten::full_like"(%{{.*}}) {{{.*}}fill_value = 0 : i64
  %z = exir.aten "aten::zeros_like"(%x) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK: exir.aten "aten::full_like"(%{{.*}}) {{{.*}}fill_value = 1 : i64
  %o = exir.aten "aten::ones_like"(%x) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK: exir.aten "aten::arange.start_step"() {{{.*}}end = 5 : i64, {{.*}}start = 1 : i64, step = 1 : i64
  %r = exir.aten "aten::arange.start"() {start = 1 : i64, end = 5 : i64, operand_segments = array<i32>} : () -> tensor<4xi64>
  return %z, %o, %r : tensor<2x2xf32>, tensor<2x2xf32>, tensor<4xi64>
}

// -----

// Upsampling by output size takes the .vec forms; explicit scales that agree
// with the output size become the .vec form's scale factors (others:
// legalize-to-core-nn.mlir).
// CHECK-LABEL: func.func @upsample
func.func @upsample(%x: tensor<1x1x2x2xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) {
  // CHECK: exir.aten "aten::upsample_nearest2d.vec"(%{{.*}}) {{{.*}}output_size = array<i64: 4, 4>, scale_factors = #exir.none}
  %n = exir.aten "aten::upsample_nearest2d"(%x) {output_size = array<i64: 4, 4>, operand_segments = array<i32: 1>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  // CHECK: exir.aten "aten::upsample_bilinear2d.vec"(%{{.*}}) {align_corners = true, {{.*}}output_size = array<i64: 4, 4>, scale_factors = #exir.none}
  %b = exir.aten "aten::upsample_bilinear2d"(%x) {output_size = array<i64: 4, 4>, align_corners = true, scales_h = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  // CHECK: exir.aten "aten::upsample_nearest2d.vec"(%{{.*}}) {{{.*}}output_size = #exir.none, scale_factors = array<f64: 2.000000e+00, 2.000000e+00>}
  %s = exir.aten "aten::upsample_nearest2d"(%x) {output_size = array<i64: 4, 4>, scales_h = 2.0 : f64, scales_w = 2.0 : f64, operand_segments = array<i32: 1>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  return %n, %b, %s : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>
}

// -----

// unfold is a view: its _copy form.
// CHECK-LABEL: func.func @unfold
func.func @unfold(%x: tensor<6xf32>) -> tensor<3x2xf32> {
  // CHECK: exir.aten "aten::unfold_copy"
  %u = exir.aten "aten::unfold"(%x) {dimension = 0 : i64, size = 2 : i64, step = 2 : i64, operand_segments = array<i32: 1>} : (tensor<6xf32>) -> tensor<3x2xf32>
  return %u : tensor<3x2xf32>
}
