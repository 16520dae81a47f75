// RUN: ptec-opt %s --split-input-file --exir-legalize-to-core --verify-diagnostics | FileCheck %s

// Composite ops of no larger family (passes/LegalizeMisc.cpp).

// eye(n, m) compares a column of row indices with a row of column indices.
// CHECK-LABEL: func.func @eye_m
func.func @eye_m() -> tensor<2x3xf32> {
  // CHECK: %[[R:.*]] = exir.aten "aten::arange"() {{.*}}end = 2 : i64
  // CHECK: %[[RC:.*]] = exir.aten "aten::unsqueeze_copy"(%[[R]]) {dim = 1 : i64
  // CHECK: %[[C:.*]] = exir.aten "aten::arange"() {{.*}}end = 3 : i64
  // CHECK: %[[EQ:.*]] = exir.aten "aten::eq.Tensor"(%[[RC]], %[[C]]) {{.*}} -> tensor<2x3xi1>
  // CHECK: exir.aten "aten::_to_copy"(%[[EQ]]) {{.*}}dtype = f32
  // CHECK-NOT: aten::eye
  %e = exir.aten "aten::eye.m"() {n = 2 : i64, m = 3 : i64, operand_segments = array<i32>} : () -> tensor<2x3xf32>
  return %e : tensor<2x3xf32>
}

// -----

// linspace counts up from start in its first half and down from end in its
// second: where(i < steps / 2, start + i * step, end - (steps - 1 - i) * step),
// with step = (end - start) / (steps - 1) in the result dtype.
// CHECK-LABEL: func.func @linspace
func.func @linspace() -> tensor<5xf32> {
  // CHECK: %[[A:.*]] = exir.aten "aten::full"() {{.*}}fill_value = 0.000000e+00
  // CHECK: %[[B:.*]] = exir.aten "aten::full"() {{.*}}fill_value = 2.000000e+00
  // CHECK: %[[D:.*]] = exir.aten "aten::sub.Tensor"(%[[B]], %[[A]])
  // CHECK: %[[STEP:.*]] = exir.aten "aten::div.Scalar"(%[[D]]) {{.*}}other = 4.000000e+00
  // CHECK: %[[I:.*]] = exir.aten "aten::arange"() {{.*}}end = 5 : i64
  // CHECK: %[[S:.*]] = exir.aten "aten::mul.Tensor"(%[[I]], %[[STEP]])
  // CHECK: %[[UP:.*]] = exir.aten "aten::add.Tensor"(%[[S]], %[[A]])
  // CHECK: %[[REV:.*]] = exir.aten "aten::rsub.Scalar"(%[[I]]) {{.*}}other = 4.000000e+00
  // CHECK: %[[DS:.*]] = exir.aten "aten::mul.Tensor"(%[[REV]], %[[STEP]])
  // CHECK: %[[DOWN:.*]] = exir.aten "aten::sub.Tensor"(%[[B]], %[[DS]])
  // CHECK: %[[LT:.*]] = exir.aten "aten::lt.Scalar"(%[[I]]) {{.*}}other = 2 : i64
  // CHECK: exir.aten "aten::where.self"(%[[LT]], %[[UP]], %[[DOWN]])
  %l = exir.aten "aten::linspace"() {start = 0.0 : f64, end = 2.0 : f64, steps = 5 : i64, operand_segments = array<i32>} : () -> tensor<5xf32>
  return %l : tensor<5xf32>
}

// -----

func.func @linspace_int() -> tensor<5xi64> {
  // expected-error @+1 {{'aten::linspace' with an integer dtype is not supported}}
  %l = exir.aten "aten::linspace"() {start = 0 : i64, end = 8 : i64, steps = 5 : i64, dtype = i64, operand_segments = array<i32>} : () -> tensor<5xi64>
  return %l : tensor<5xi64>
}

// -----

// isin(elements, test): any over a broadcast comparison with the flattened test set.
// CHECK-LABEL: func.func @isin
// CHECK-SAME: (%[[E:.*]]: tensor<2x3xi64>, %[[T:.*]]: tensor<2x2xi64>)
func.func @isin(%e: tensor<2x3xi64>, %t: tensor<2x2xi64>) -> tensor<2x3xi1> {
  // CHECK: %[[F:.*]] = exir.aten "aten::view_copy"(%[[T]]) {{.*}} -> tensor<4xi64>
  // CHECK: %[[U:.*]] = exir.aten "aten::unsqueeze_copy"(%[[E]]) {dim = -1 : i64
  // CHECK: %[[EQ:.*]] = exir.aten "aten::eq.Tensor"(%[[U]], %[[F]]) {{.*}} -> tensor<2x3x4xi1>
  // CHECK: %[[A:.*]] = exir.aten "aten::any.dim"(%[[EQ]]) {dim = -1 : i64
  // CHECK: exir.aten "aten::logical_not"(%[[A]])
  %r = exir.aten "aten::isin.Tensor_Tensor"(%e, %t) {invert = true, operand_segments = array<i32: 1, 1>} : (tensor<2x3xi64>, tensor<2x2xi64>) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// sum_to_size sums the leading dims and the dims the size makes 1, then views.
// CHECK-LABEL: func.func @sum_to_size
func.func @sum_to_size(%x: tensor<2x3x4xf32>) -> tensor<3x1xf32> {
  // CHECK: %[[S:.*]] = exir.aten "aten::sum.dim_IntList"(%{{.*}}) {dim = array<i64: 0, 2>, {{.*}}keepdim = true
  // CHECK: exir.aten "aten::view_copy"(%[[S]]) {{.*}}size = array<i64: 3, 1>
  %r = exir.aten "aten::sum_to_size"(%x) {size = array<i64: 3, 1>, operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<3x1xf32>
  return %r : tensor<3x1xf32>
}

// -----

// pad_sequence pads each sequence to the longest, then stacks (time-major).
// CHECK-LABEL: func.func @pad_sequence
func.func @pad_sequence(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<4x2x3xf32> {
  // CHECK: %[[P:.*]] = exir.aten "aten::constant_pad_nd"(%{{.*}}) {operand_segments = array<i32: 1>, pad = array<i64: 0, 0, 0, 2>, value = -1.000000e+00
  // CHECK: exir.aten "aten::stack"(%[[P]], %{{.*}}) {dim = 1 : i64
  %r = exir.aten "aten::pad_sequence"(%a, %b) {padding_value = -1.0 : f64, operand_segments = array<i32: 2>} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<4x2x3xf32>
  return %r : tensor<4x2x3xf32>
}

// -----

// vander(x) = x[:, None] ** [n-1, ..., 0].
// CHECK-LABEL: func.func @vander
func.func @vander(%x: tensor<3xf32>) -> tensor<3x3xf32> {
  // CHECK: %[[E:.*]] = exir.aten "aten::arange.start_step"() {{.*}}end = -1 : i64, {{.*}}start = 2 : i64, step = -1 : i64
  // CHECK: %[[U:.*]] = exir.aten "aten::unsqueeze_copy"(%{{.*}}) {dim = -1 : i64
  // CHECK: exir.aten "aten::pow.Tensor_Tensor"(%[[U]], %[[E]])
  %r = exir.aten "aten::vander"(%x) {N = #exir.none, increasing = false, operand_segments = array<i32: 1>} : (tensor<3xf32>) -> tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}

// -----

func.func @where_indices(%c: tensor<4xi1>) -> tensor<4xi64> {
  // expected-error @+1 {{'aten::where' is not supported: where(condition) returns the indices}}
  %r = exir.aten "aten::where"(%c) {operand_segments = array<i32: 1>} : (tensor<4xi1>) -> tensor<4xi64>
  return %r : tensor<4xi64>
}

// -----

// cartesian_prod: each input viewed along its own grid dim, expanded to the
// grid, flattened and stacked as columns; a single input is itself.
// CHECK-LABEL: func.func @cartesian_prod
// CHECK: %[[A:.*]] = exir.aten "aten::view_copy"(%arg0) {{.*}}size = array<i64: 2, 1>
// CHECK: %[[AE:.*]] = exir.aten "aten::expand_copy"(%[[A]]) {{.*}}size = array<i64: 2, 3>
// CHECK: %[[AF:.*]] = exir.aten "aten::view_copy"(%[[AE]]) {{.*}}size = array<i64: 6>
// CHECK: %[[B:.*]] = exir.aten "aten::view_copy"(%arg1) {{.*}}size = array<i64: 1, 3>
// CHECK: %[[BE:.*]] = exir.aten "aten::expand_copy"(%[[B]]) {{.*}}size = array<i64: 2, 3>
// CHECK: %[[BF:.*]] = exir.aten "aten::view_copy"(%[[BE]]) {{.*}}size = array<i64: 6>
// CHECK: %[[S:.*]] = exir.aten "aten::stack"(%[[AF]], %[[BF]]) {dim = 1 : i64{{.*}} -> tensor<6x2xi64>
// CHECK-NOT: cartesian_prod
// CHECK: return %[[S]], %arg0
func.func @cartesian_prod(%a: tensor<2xi64>, %b: tensor<3xi64>) -> (tensor<6x2xi64>, tensor<2xi64>) {
  %p = exir.aten "aten::cartesian_prod"(%a, %b) {operand_segments = array<i32: 2>} : (tensor<2xi64>, tensor<3xi64>) -> tensor<6x2xi64>
  %q = exir.aten "aten::cartesian_prod"(%a) {operand_segments = array<i32: 1>} : (tensor<2xi64>) -> tensor<2xi64>
  return %p, %q : tensor<6x2xi64>, tensor<2xi64>
}
