// RUN: ptec-opt %s --split-input-file --exir-legalize-to-core --verify-diagnostics | FileCheck %s

// Conversions: no change is the input itself; otherwise _to_copy to the
// declared dtype. Devices and layouts change no value.
// CHECK-LABEL: func.func @conversions
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[I:.*]]: tensor<2x3xi64>)
// CHECK: %[[B:.*]] = exir.aten "aten::_to_copy"(%[[X]]) {{.*}}dtype = f64{{.*}} -> tensor<2x3xf64>
// CHECK: %[[C:.*]] = exir.aten "aten::_to_copy"(%[[X]]) {{.*}}dtype = i64{{.*}} -> tensor<2x3xi64>
// CHECK: %[[D:.*]] = exir.aten "aten::_to_copy"(%[[X]]) {{.*}}dtype = f16{{.*}} -> tensor<2x3xf16>
// CHECK: %[[E:.*]] = exir.aten "aten::_to_copy"(%[[I]]) {{.*}}dtype = i32{{.*}} -> tensor<2x3xi32>
// CHECK: return %[[X]], %[[B]], %[[C]], %[[D]], %[[E]], %[[X]]
func.func @conversions(%x: tensor<2x3xf32>, %i: tensor<2x3xi64>) -> (tensor<2x3xf32>, tensor<2x3xf64>, tensor<2x3xi64>, tensor<2x3xf16>, tensor<2x3xi32>, tensor<2x3xf32>) {
  %a = exir.aten "aten::to.dtype"(%x) {dtype = f32, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = exir.aten "aten::to.dtype_layout"(%x) {dtype = f64, layout = "strided", device = "cpu", operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf64>
  %c = exir.aten "aten::type_as"(%x, %i) {operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<2x3xi64>
  %d = exir.aten "aten::to.device"(%x) {device = "cpu", dtype = f16, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf16>
  %e = exir.aten "aten::_cast_Int"(%i) {operand_segments = array<i32: 1>} : (tensor<2x3xi64>) -> tensor<2x3xi32>
  %f = exir.aten "aten::to.other"(%x, %x) {operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %a, %b, %c, %d, %e, %f : tensor<2x3xf32>, tensor<2x3xf64>, tensor<2x3xi64>, tensor<2x3xf16>, tensor<2x3xi32>, tensor<2x3xf32>
}

// -----

// A sparse layout is refused by name.
func.func @sparse_layout(%x: tensor<2x3xf32>) -> tensor<2x3xf64> {
  // expected-error @+1 {{'aten::to.dtype_layout' with layout 'sparse_coo' is not supported: ExecuTorch tensors are dense (strided)}}
  %b = exir.aten "aten::to.dtype_layout"(%x) {dtype = f64, layout = "sparse_coo", operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf64>
  return %b : tensor<2x3xf64>
}

// -----

// view_as / reshape_as / expand_as take the other tensor's sizes.
// CHECK-LABEL: func.func @as_ops
// CHECK: exir.aten "aten::view_copy"(%arg0) {operand_segments = array<i32: 1>, size = array<i64: 3, 2>}
// CHECK: exir.aten "aten::view_copy"(%arg0) {operand_segments = array<i32: 1>, size = array<i64: 3, 2>}
// CHECK: exir.aten "aten::expand_copy"(%arg2) {implicit = false, operand_segments = array<i32: 1>, size = array<i64: 2, 3>}
// CHECK-NOT: _as"
func.func @as_ops(%x: tensor<2x3xf32>, %y: tensor<3x2xf32>, %r: tensor<1x3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>) {
  %a = exir.aten "aten::view_as"(%x, %y) {operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %b = exir.aten "aten::reshape_as"(%x, %y) {operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %c = exir.aten "aten::expand_as"(%r, %x) {operand_segments = array<i32: 1, 1>} : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %a, %b, %c : tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>
}

// -----

// On run-time shapes expand_as reads the other tensor's sizes at run time.
// CHECK-LABEL: func.func @expand_as_dynamic
// CHECK: %[[S0:.*]] = exir.sym_size %arg1, 0
// CHECK: %[[S1:.*]] = exir.sym_size %arg1, 1
// CHECK: exir.aten "aten::expand_copy"(%arg0, %[[S0]], %[[S1]]) {exir.sym_args = ["size[0]", "size[1]"], {{.*}}size = array<i64: 16, 4>}
func.func @expand_as_dynamic(%r: tensor<1x4xf32>, %x: tensor<16x4xf32> {exir.dynamic_dims = array<i64: 0>}) -> tensor<16x4xf32> {
  %c = exir.aten "aten::expand_as"(%r, %x) {operand_segments = array<i32: 1, 1>} : (tensor<1x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
  return %c : tensor<16x4xf32>
}

// -----

// new_* are full / empty of the declared dtype; empty_like is empty with the
// input's sizes; rand_like is rand.
// CHECK-LABEL: func.func @factories
// CHECK: exir.aten "aten::full"() {{{.*}}dtype = f32, fill_value = 0 : i64{{.*}}size = array<i64: 4>} : () -> tensor<4xf32>
// CHECK: exir.aten "aten::full"() {{{.*}}dtype = i64, fill_value = 1 : i64{{.*}}size = array<i64: 4>} : () -> tensor<4xi64>
// CHECK: exir.aten "aten::full"() {{{.*}}dtype = f32, fill_value = 2.500000e+00 : f64{{.*}}size = array<i64: 2, 2>}
// CHECK: exir.aten "aten::empty.memory_format"() {{{.*}}size = array<i64: 2, 2>}
// CHECK: exir.aten "aten::empty.memory_format"() {{{.*}}size = array<i64: 2, 2>}
// CHECK: exir.aten "aten::empty.memory_format"() {{{.*}}size = array<i64: 2, 3>}
// CHECK: exir.aten "aten::rand"() {{{.*}}size = array<i64: 2, 3>}
func.func @factories(%x: tensor<2x3xf32>) -> (tensor<4xf32>, tensor<4xi64>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = exir.aten "aten::new_zeros"(%x) {size = array<i64: 4>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<4xf32>
  %b = exir.aten "aten::new_ones"(%x) {size = array<i64: 4>, dtype = i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<4xi64>
  %c = exir.aten "aten::new_full"(%x) {size = array<i64: 2, 2>, fill_value = 2.5 : f64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %d = exir.aten "aten::new_empty"(%x) {size = array<i64: 2, 2>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %e = exir.aten "aten::new_empty_strided"(%x) {size = array<i64: 2, 2>, stride = array<i64: 1, 2>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %f = exir.aten "aten::empty_like"(%x) {operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = exir.aten "aten::rand_like"(%x) {operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %a, %b, %c, %d, %e, %f, %g : tensor<4xf32>, tensor<4xi64>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A run-time size of new_ones stays bound to full's size.
// CHECK-LABEL: func.func @new_ones_dynamic
// CHECK: %[[S:.*]] = exir.sym_size %arg0, 0
// CHECK: exir.aten "aten::full"(%[[S]]) {{{.*}}exir.sym_args = ["size[0]"], fill_value = 1 : i64{{.*}}size = array<i64: 16, 3>}
func.func @new_ones_dynamic(%x: tensor<16x4xf32> {exir.dynamic_dims = array<i64: 0>}) -> tensor<16x3xf32> {
  %s = exir.sym_size %x, 0 : tensor<16x4xf32>
  %a = exir.aten "aten::new_ones"(%x, %s) {size = array<i64: 16, 3>, exir.sym_args = ["size[0]"], operand_segments = array<i32: 1>} : (tensor<16x4xf32>, i64) -> tensor<16x3xf32>
  return %a : tensor<16x3xf32>
}

// -----

func.func @randint_like(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten::randint_like' is not supported: it draws random integers}}
  %a = exir.aten "aten::randint_like"(%x) {high = 5 : i64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// Other names of core operators keep their arguments.
// CHECK-LABEL: func.func @other_names
// CHECK: exir.aten "aten::bitwise_and.Tensor"(%arg0, %arg1)
// CHECK: exir.aten "aten::bitwise_left_shift.Tensor_Scalar"(%arg2) {operand_segments = array<i32: 1>, other = 2 : i64}
// CHECK: exir.aten "aten::div.Tensor_mode"(%arg3, %arg4) {operand_segments = array<i32: 1, 1>, rounding_mode = "floor"}
// CHECK: exir.aten "aten::gt.Scalar"(%arg3) {operand_segments = array<i32: 1>, other = 5.000000e-01 : f64}
// CHECK: exir.aten "aten::acos"(%arg3)
// CHECK: exir.aten "aten::clamp"(%arg3) {max = 1.000000e+00 : f64, min = -1.000000e+00 : f64
// CHECK: %[[C:.*]] = exir.aten "aten::scalar_tensor"() {{{.*}}dtype = i64, {{.*}}s = 3 : i64} : () -> tensor<i64>
// CHECK: %[[L:.*]] = exir.aten "aten::bitwise_left_shift.Tensor"(%[[C]], %arg2)
// CHECK: return {{.*}}, %arg3, %[[L]]
func.func @other_names(%b: tensor<4xi1>, %c: tensor<4xi1>, %i: tensor<4xi64>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi64>, tensor<4xf32>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi64>) {
  %a = exir.aten "aten::__and__.Tensor"(%b, %c) {operand_segments = array<i32: 1, 1>} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %s = exir.aten "aten::__lshift__.Scalar"(%i) {other = 2 : i64, operand_segments = array<i32: 1>} : (tensor<4xi64>) -> tensor<4xi64>
  %d = exir.aten "aten::divide.Tensor_mode"(%x, %y) {rounding_mode = "floor", operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %g = exir.aten "aten::greater.Scalar"(%x) {other = 5.000000e-01 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xi1>
  %o = exir.aten "aten::arccos"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %k = exir.aten "aten::clip"(%x) {min = -1.0 : f64, max = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %p = exir.aten "aten::positive"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %l = exir.aten "aten::bitwise_left_shift.Scalar_Tensor"(%i) {self = 3 : i64, operand_segments = array<i32: 1>} : (tensor<4xi64>) -> tensor<4xi64>
  return %a, %s, %d, %g, %o, %k, %p, %l : tensor<4xi1>, tensor<4xi64>, tensor<4xf32>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi64>
}

// -----

// Activations. square of bool squares int64; mish and softplus follow
// PyTorch's threshold; celu and selu are elu with PyTorch's constants;
// shrink thresholds are rounded to the tensor's dtype (0.1 -> 0.1f) as
// PyTorch compares them; threshold on integers truncates the bound.
// CHECK-LABEL: func.func @activations
// CHECK: %[[B:.*]] = exir.aten "aten::_to_copy"(%arg1) {{.*}}dtype = i64
// CHECK: %[[SQ:.*]] = exir.aten "aten::mul.Tensor"(%[[B]], %[[B]])
// CHECK: %[[E:.*]] = exir.aten "aten::exp"(%arg0)
// CHECK: %[[SP:.*]] = exir.aten "aten::log1p"(%[[E]])
// CHECK: %[[BIG:.*]] = exir.aten "aten::gt.Scalar"(%arg0) {operand_segments = array<i32: 1>, other = 2.000000e+01 : f64}
// CHECK: %[[S:.*]] = exir.aten "aten::where.self"(%[[BIG]], %arg0, %[[SP]])
// CHECK: %[[T:.*]] = exir.aten "aten::tanh"(%[[S]])
// CHECK: %[[MISH:.*]] = exir.aten "aten::mul.Tensor"(%arg0, %[[T]])
// CHECK: %[[BX:.*]] = exir.aten "aten::mul.Scalar"(%arg0) {operand_segments = array<i32: 1>, other = 2.000000e+00 : f64}
// CHECK: exir.aten "aten::exp"(%[[BX]])
// CHECK: exir.aten "aten::div.Scalar"({{.*}}) {operand_segments = array<i32: 1>, other = 2.000000e+00 : f64}
// CHECK: exir.aten "aten::gt.Scalar"(%[[BX]]) {operand_segments = array<i32: 1>, other = 5.000000e+00 : f64}
// CHECK: exir.aten "aten::elu"(%arg0) {alpha = 5.000000e-01 : f64, input_scale = 2.000000e+00 : f64, operand_segments = array<i32: 1>, scale = 1.000000e+00 : f64}
// CHECK: exir.aten "aten::elu"(%arg0) {alpha = 1.6732632423543772 : f64, input_scale = 1.000000e+00 : f64, operand_segments = array<i32: 1>, scale = 1.0507009873554805 : f64}
// CHECK: %[[K:.*]] = exir.aten "aten::clamp"(%arg0) {max = 0.10000000149011612 : f64, min = -0.10000000149011612 : f64
// CHECK: exir.aten "aten::sub.Tensor"(%arg0, %[[K]])
// CHECK: %[[A:.*]] = exir.aten "aten::abs"(%arg0)
// CHECK: %[[SMALL:.*]] = exir.aten "aten::le.Scalar"(%[[A]]) {operand_segments = array<i32: 1>, other = 0.10000000149011612 : f64}
// CHECK: exir.aten "aten::masked_fill.Scalar"(%arg0, %[[SMALL]]) {operand_segments = array<i32: 1, 1>, value = 0 : i64}
// CHECK: %[[LE:.*]] = exir.aten "aten::le.Scalar"(%arg2) {operand_segments = array<i32: 1>, other = 0 : i64}
// CHECK: exir.aten "aten::masked_fill.Scalar"(%arg2, %[[LE]]) {operand_segments = array<i32: 1, 1>, value = 3 : i64}
func.func @activations(%x: tensor<4xf32>, %b: tensor<4xi1>, %i: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi64>) {
  %sq = exir.aten "aten::square"(%b) {operand_segments = array<i32: 1>} : (tensor<4xi1>) -> tensor<4xi64>
  %m = exir.aten "aten::mish"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %sp = exir.aten "aten::softplus"(%x) {beta = 2 : i64, threshold = 5 : i64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %ce = exir.aten "aten::celu"(%x) {alpha = 0.5 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %se = exir.aten "aten::selu"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %ss = exir.aten "aten::softshrink"(%x) {lambd = 0.1 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %hs = exir.aten "aten::hardshrink"(%x) {lambd = 0.1 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %th = exir.aten "aten::threshold"(%i) {threshold = -0.5 : f64, value = 3 : i64, operand_segments = array<i32: 1>} : (tensor<4xi64>) -> tensor<4xi64>
  return %sq, %m, %sp, %ce, %se, %ss, %hs, %th : tensor<4xi64>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi64>
}

// -----

// float16 math runs in float32 and is rounded once; log_sigmoid_forward
// also returns its buffer exp(-|x|).
// CHECK-LABEL: func.func @log_sigmoid_forward
// CHECK: %[[X:.*]] = exir.aten "aten::_to_copy"(%arg0) {{.*}}dtype = f32
// CHECK: %[[A:.*]] = exir.aten "aten::abs"(%[[X]])
// CHECK: %[[N:.*]] = exir.aten "aten::neg"(%[[A]])
// CHECK: %[[Z:.*]] = exir.aten "aten::exp"(%[[N]])
// CHECK: %[[M:.*]] = exir.aten "aten::clamp"(%[[X]]) {max = 0.000000e+00 : f64, min = #exir.none
// CHECK: %[[L:.*]] = exir.aten "aten::log1p"(%[[Z]])
// CHECK: %[[R:.*]] = exir.aten "aten::sub.Tensor"(%[[M]], %[[L]])
// CHECK: %[[OUT:.*]] = exir.aten "aten::_to_copy"(%[[R]]) {{.*}}dtype = f16
// CHECK: %[[BUF:.*]] = exir.aten "aten::_to_copy"(%[[Z]]) {{.*}}dtype = f16
// CHECK: return %[[OUT]], %[[BUF]]
func.func @log_sigmoid_forward(%x: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>) {
  %o:2 = exir.aten "aten::log_sigmoid_forward"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>)
  return %o#0, %o#1 : tensor<4xf16>, tensor<4xf16>
}

// -----

// rrelu in eval mode is leaky_relu with the mean slope; prelu's per-channel
// weight is viewed to broadcast over dim 1.
// CHECK-LABEL: func.func @rrelu_prelu
// CHECK: exir.aten "aten::leaky_relu"(%arg0) {negative_slope = 2.000000e-01 : f64
// CHECK: %[[W:.*]] = exir.aten "aten::view_copy"(%arg1) {operand_segments = array<i32: 1>, size = array<i64: 3, 1>}
// CHECK: %[[NEG:.*]] = exir.aten "aten::mul.Tensor"(%arg0, %[[W]])
// CHECK: %[[POS:.*]] = exir.aten "aten::gt.Scalar"(%arg0) {operand_segments = array<i32: 1>, other = 0.000000e+00 : f64}
// CHECK: exir.aten "aten::where.self"(%[[POS]], %arg0, %[[NEG]])
func.func @rrelu_prelu(%x: tensor<2x3x4xf32>, %w: tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %r = exir.aten "aten::rrelu"(%x) {lower = 0.1 : f64, upper = 0.3 : f64, training = false, operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %p = exir.aten "aten::prelu"(%x, %w) {operand_segments = array<i32: 1, 1>} : (tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  return %r, %p : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

func.func @rrelu_training(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten::rrelu' in training mode is random}}
  %r = exir.aten "aten::rrelu"(%x) {training = true, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @celu_alpha_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten::celu' with alpha 0 is not defined}}
  %r = exir.aten "aten::celu"(%x) {alpha = 0.0 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Binary math: logaddexp (max + log1p(exp(min - max)), a where a is infinite
// and equal to b); xlogy with a number first (0-dim constant; 0 where it is
// 0, NaN where b is); heaviside; float_power in float64; fmax lets a number
// win over NaN; ldexp is x * 2^e.
// CHECK-LABEL: func.func @binary
// CHECK: %[[GE:.*]] = exir.aten "aten::ge.Tensor"(%arg0, %arg1)
// CHECK: %[[MX:.*]] = exir.aten "aten::where.self"(%[[GE]], %arg0, %arg1)
// CHECK: %[[MN:.*]] = exir.aten "aten::where.self"(%[[GE]], %arg1, %arg0)
// CHECK: %[[D:.*]] = exir.aten "aten::sub.Tensor"(%[[MN]], %[[MX]])
// CHECK: %[[EX:.*]] = exir.aten "aten::exp"(%[[D]])
// CHECK: %[[LG:.*]] = exir.aten "aten::log1p"(%[[EX]])
// CHECK: %[[R:.*]] = exir.aten "aten::add.Tensor"(%[[MX]], %[[LG]])
// CHECK: %[[EQ:.*]] = exir.aten "aten::eq.Tensor"(%arg0, %arg1)
// CHECK: %[[INF:.*]] = exir.aten "aten::isinf"(%arg0)
// CHECK: %[[SAME:.*]] = exir.aten "aten::logical_and"(%[[INF]], %[[EQ]])
// CHECK: exir.aten "aten::where.self"(%[[SAME]], %arg0, %[[R]])
// CHECK: %[[TWO:.*]] = exir.aten "aten::scalar_tensor"() {{{.*}}dtype = f32, {{.*}}s = 2 : i64} : () -> tensor<f32>
// CHECK: %[[BF:.*]] = exir.aten "aten::_to_copy"(%arg2) {{.*}}dtype = f32
// CHECK: %[[LOG:.*]] = exir.aten "aten::log"(%[[BF]])
// CHECK: %[[P:.*]] = exir.aten "aten::mul.Tensor"(%[[TWO]], %[[LOG]])
// CHECK: %[[Z:.*]] = exir.aten "aten::eq.Scalar"(%[[TWO]])
// CHECK: %[[P0:.*]] = exir.aten "aten::masked_fill.Scalar"(%[[P]], %[[Z]]) {operand_segments = array<i32: 1, 1>, value = 0 : i64}
// CHECK: %[[NAN:.*]] = exir.aten "aten::isnan"(%[[BF]])
// CHECK: exir.aten "aten::masked_fill.Scalar"(%[[P0]], %[[NAN]]) {operand_segments = array<i32: 1, 1>, value = 0x7FF8000000000000 : f64}
// CHECK: %[[GT:.*]] = exir.aten "aten::gt.Scalar"(%arg0) {operand_segments = array<i32: 1>, other = 0.000000e+00 : f64}
// CHECK: %[[STEP:.*]] = exir.aten "aten::_to_copy"(%[[GT]]) {{.*}}dtype = f32
// CHECK: %[[Z0:.*]] = exir.aten "aten::eq.Scalar"(%arg0) {operand_segments = array<i32: 1>, other = 0.000000e+00 : f64}
// CHECK: exir.aten "aten::where.self"(%[[Z0]], %arg1, %[[STEP]])
// CHECK: %[[X64:.*]] = exir.aten "aten::_to_copy"(%arg0) {{.*}}dtype = f64
// CHECK: exir.aten "aten::pow.Tensor_Scalar"(%[[X64]]) {exponent = 2.000000e+00 : f64{{.*}} -> tensor<4xf64>
// CHECK: %[[MAX:.*]] = exir.aten "aten::maximum"(%arg0, %arg1)
// CHECK: %[[NA:.*]] = exir.aten "aten::isnan"(%arg0)
// CHECK: %[[M1:.*]] = exir.aten "aten::where.self"(%[[NA]], %arg1, %[[MAX]])
// CHECK: %[[NB:.*]] = exir.aten "aten::isnan"(%arg1)
// CHECK: exir.aten "aten::where.self"(%[[NB]], %arg0, %[[M1]])
// CHECK: %[[PW:.*]] = exir.aten "aten::pow.Scalar"(%arg2) {operand_segments = array<i32: 1>, self = 2.000000e+00 : f64} : (tensor<4xi64>) -> tensor<4xf32>
// CHECK: exir.aten "aten::mul.Tensor"(%arg0, %[[PW]])
func.func @binary(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf64>, tensor<4xf32>, tensor<4xf32>) {
  %l = exir.aten "aten::logaddexp"(%a, %b) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %x = exir.aten "aten::xlogy.Scalar_Self"(%i) {self = 2 : i64, operand_segments = array<i32: 1>} : (tensor<4xi64>) -> tensor<4xf32>
  %h = exir.aten "aten::heaviside"(%a, %b) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %p = exir.aten "aten::float_power.Tensor_Scalar"(%a) {exponent = 2 : i64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf64>
  %m = exir.aten "aten::fmax"(%a, %b) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = exir.aten "aten::ldexp.Tensor"(%a, %i) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
  return %l, %x, %h, %p, %m, %e : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf64>, tensor<4xf32>, tensor<4xf32>
}

// -----

// lerp: s + w (e - s) for |w| < 0.5, else e - (e - s)(1 - w), chosen per
// element for a tensor weight; addcdiv: s + (value t1) / t2; isclose on
// integers: == or |a - b| <= atol + |rtol b| (no NaN test, always finite).
// CHECK-LABEL: func.func @ternary
// CHECK: %[[D1:.*]] = exir.aten "aten::sub.Tensor"(%arg1, %arg0)
// CHECK: %[[W1:.*]] = exir.aten "aten::mul.Scalar"(%[[D1]]) {operand_segments = array<i32: 1>, other = 2.500000e-01 : f64}
// CHECK: %[[L1:.*]] = exir.aten "aten::add.Tensor"(%arg0, %[[W1]])
// CHECK: %[[D2:.*]] = exir.aten "aten::sub.Tensor"(%arg1, %arg0)
// CHECK: %[[W2:.*]] = exir.aten "aten::mul.Scalar"(%[[D2]]) {operand_segments = array<i32: 1>, other = 2.500000e-01 : f64}
// CHECK: %[[L2:.*]] = exir.aten "aten::sub.Tensor"(%arg1, %[[W2]])
// CHECK: %[[D3:.*]] = exir.aten "aten::sub.Tensor"(%arg1, %arg0)
// CHECK: %[[AW:.*]] = exir.aten "aten::abs"(%arg2)
// CHECK: %[[SMALL:.*]] = exir.aten "aten::lt.Scalar"(%[[AW]]) {operand_segments = array<i32: 1>, other = 5.000000e-01 : f64}
// CHECK: %[[LOW:.*]] = exir.aten "aten::mul.Tensor"(%arg2, %[[D3]])
// CHECK: %[[LO:.*]] = exir.aten "aten::add.Tensor"(%arg0, %[[LOW]])
// CHECK: %[[OMW:.*]] = exir.aten "aten::rsub.Scalar"(%arg2) {{.*}}other = 1.000000e+00 : f64
// CHECK: %[[HIW:.*]] = exir.aten "aten::mul.Tensor"(%[[D3]], %[[OMW]])
// CHECK: %[[HI:.*]] = exir.aten "aten::sub.Tensor"(%arg1, %[[HIW]])
// CHECK: %[[L3:.*]] = exir.aten "aten::where.self"(%[[SMALL]], %[[LO]], %[[HI]])
// CHECK: %[[V:.*]] = exir.aten "aten::mul.Scalar"(%arg1) {operand_segments = array<i32: 1>, other = 5.000000e-01 : f64}
// CHECK: %[[Q:.*]] = exir.aten "aten::div.Tensor"(%[[V]], %arg2)
// CHECK: %[[AC:.*]] = exir.aten "aten::add.Tensor"(%arg0, %[[Q]])
// CHECK: %[[EQ:.*]] = exir.aten "aten::eq.Tensor"(%arg3, %arg4)
// CHECK-NOT: isnan
// CHECK: %[[RB:.*]] = exir.aten "aten::mul.Scalar"(%arg4) {operand_segments = array<i32: 1>, other = 1.000000e-05 : f64} : (tensor<4xi64>) -> tensor<4xf32>
// CHECK: %[[ARB:.*]] = exir.aten "aten::abs"(%[[RB]])
// CHECK: %[[ALLOWED:.*]] = exir.aten "aten::add.Scalar"(%[[ARB]]) {{.*}}other = 1.000000e-08 : f64
// CHECK: %[[DIFF:.*]] = exir.aten "aten::sub.Tensor"(%arg3, %arg4)
// CHECK: %[[ACTUAL:.*]] = exir.aten "aten::abs"(%[[DIFF]])
// CHECK: %[[WITHIN:.*]] = exir.aten "aten::le.Tensor"(%[[ACTUAL]], %[[ALLOWED]])
// CHECK: %[[IC:.*]] = exir.aten "aten::logical_or"(%[[EQ]], %[[WITHIN]])
// CHECK: return %[[L1]], %[[L2]], %[[L3]], %[[AC]], %[[IC]]
func.func @ternary(%s: tensor<4xf32>, %e: tensor<4xf32>, %w: tensor<4xf32>, %a: tensor<4xi64>, %b: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>) {
  %l1 = exir.aten "aten::lerp.Scalar"(%s, %e) {weight = 0.25 : f64, operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l2 = exir.aten "aten::lerp.Scalar"(%s, %e) {weight = 0.75 : f64, operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l3 = exir.aten "aten::lerp.Tensor"(%s, %e, %w) {operand_segments = array<i32: 1, 1, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = exir.aten "aten::addcdiv"(%s, %e, %w) {value = 0.5 : f64, operand_segments = array<i32: 1, 1, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %i = exir.aten "aten::isclose"(%a, %b) {rtol = 1.0e-05 : f64, atol = 1.0e-08 : f64, equal_nan = true, operand_segments = array<i32: 1, 1>} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  return %l1, %l2, %l3, %c, %i : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>
}

// -----

// Selection with numbers: they become 0-dim tensors of the result dtype
// (where.ScalarOther of an int64 tensor and 0.5 is float32);
// masked_fill.Tensor is where; floor_divide by a number is div with floor
// rounding.
// CHECK-LABEL: func.func @selection
// CHECK: %[[H:.*]] = exir.aten "aten::scalar_tensor"() {{{.*}}dtype = f32, {{.*}}s = 5.000000e-01 : f64}
// CHECK: %[[XF:.*]] = exir.aten "aten::_to_copy"(%arg1) {{.*}}dtype = f32
// CHECK: exir.aten "aten::where.self"(%arg0, %[[XF]], %[[H]])
// CHECK: exir.aten "aten::where.self"(%arg0, %arg2, %arg3)
// CHECK: exir.aten "aten::div.Scalar_mode"(%arg1) {operand_segments = array<i32: 1>, other = 3 : i64, rounding_mode = "floor"}
// CHECK: %[[TWO:.*]] = exir.aten "aten::scalar_tensor"() {{{.*}}dtype = f32, {{.*}}s = 2 : i64}
// CHECK: %[[ONEHALF:.*]] = exir.aten "aten::scalar_tensor"() {{{.*}}dtype = f32, {{.*}}s = 1.500000e+00 : f64}
// CHECK: exir.aten "aten::where.self"(%arg0, %[[ONEHALF]], %[[TWO]])
func.func @selection(%c: tensor<4xi1>, %x: tensor<4xi64>, %v: tensor<f32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi64>, tensor<4xf32>) {
  %w = exir.aten "aten::where.ScalarOther"(%c, %x) {other = 0.5 : f64, operand_segments = array<i32: 1, 1>} : (tensor<4xi1>, tensor<4xi64>) -> tensor<4xf32>
  %m = exir.aten "aten::masked_fill.Tensor"(%y, %c, %v) {operand_segments = array<i32: 1, 1, 1>} : (tensor<4xf32>, tensor<4xi1>, tensor<f32>) -> tensor<4xf32>
  %f = exir.aten "aten::floor_divide.Scalar"(%x) {other = 3 : i64, operand_segments = array<i32: 1>} : (tensor<4xi64>) -> tensor<4xi64>
  %s = exir.aten "aten::where.Scalar"(%c) {self = 1.5 : f64, other = 2 : i64, operand_segments = array<i32: 1>} : (tensor<4xi1>) -> tensor<4xf32>
  return %w, %m, %f, %s : tensor<4xf32>, tensor<4xf32>, tensor<4xi64>, tensor<4xf32>
}

// -----

// Unary math: nan_to_num with float32's largest finite values; frac;
// deg2rad converts integers to float32 first; sinc is 1 at 0; isposinf;
// isfinite of integers is all true; erfc; exp2; round with negative
// decimals; entr; ndtr; nan_to_num of integers is the input.
// CHECK-LABEL: func.func @unary
// CHECK: %[[ISNAN:.*]] = exir.aten "aten::isnan"(%arg0)
// CHECK: %[[N1:.*]] = exir.aten "aten::masked_fill.Scalar"(%arg0, %[[ISNAN]]) {operand_segments = array<i32: 1, 1>, value = 1.000000e+00 : f64}
// CHECK: %[[PI:.*]] = exir.aten "aten::eq.Scalar"(%arg0) {operand_segments = array<i32: 1>, other = 0x7FF0000000000000 : f64}
// CHECK: %[[N2:.*]] = exir.aten "aten::masked_fill.Scalar"(%[[N1]], %[[PI]]) {operand_segments = array<i32: 1, 1>, value = 3.4028234663852886E+38 : f64}
// CHECK: %[[NI:.*]] = exir.aten "aten::eq.Scalar"(%arg0) {operand_segments = array<i32: 1>, other = 0xFFF0000000000000 : f64}
// CHECK: %[[N3:.*]] = exir.aten "aten::masked_fill.Scalar"(%[[N2]], %[[NI]]) {operand_segments = array<i32: 1, 1>, value = -3.4028234663852886E+38 : f64}
// CHECK: %[[TR:.*]] = exir.aten "aten::trunc"(%arg0)
// CHECK: %[[FRAC:.*]] = exir.aten "aten::sub.Tensor"(%arg0, %[[TR]])
// CHECK: %[[IF:.*]] = exir.aten "aten::_to_copy"(%arg1) {{.*}}dtype = f32
// CHECK: %[[RAD:.*]] = exir.aten "aten::mul.Scalar"(%[[IF]]) {operand_segments = array<i32: 1>, other = 0.017453292519943295 : f64}
// CHECK: %[[PX:.*]] = exir.aten "aten::mul.Scalar"(%arg0) {operand_segments = array<i32: 1>, other = 3.1415926535897931 : f64}
// CHECK: %[[SIN:.*]] = exir.aten "aten::sin"(%[[PX]])
// CHECK: %[[Q:.*]] = exir.aten "aten::div.Tensor"(%[[SIN]], %[[PX]])
// CHECK: %[[ZERO:.*]] = exir.aten "aten::eq.Scalar"(%arg0) {operand_segments = array<i32: 1>, other = 0.000000e+00 : f64}
// CHECK: %[[SINC:.*]] = exir.aten "aten::masked_fill.Scalar"(%[[Q]], %[[ZERO]]) {operand_segments = array<i32: 1, 1>, value = 1 : i64}
// CHECK: %[[POSINF:.*]] = exir.aten "aten::eq.Scalar"(%arg0) {operand_segments = array<i32: 1>, other = 0x7FF0000000000000 : f64}
// CHECK: %[[FIN:.*]] = exir.aten "aten::full_like"(%arg1) {{{.*}}dtype = i1, fill_value = true
// CHECK: %[[ERF:.*]] = exir.aten "aten::erf"(%arg0)
// CHECK: %[[ERFC:.*]] = exir.aten "aten::rsub.Scalar"(%[[ERF]]) {{.*}}other = 1.000000e+00 : f64
// CHECK: %[[EXP2:.*]] = exir.aten "aten::pow.Scalar"(%arg0) {operand_segments = array<i32: 1>, self = 2.000000e+00 : f64}
// CHECK: %[[DIV:.*]] = exir.aten "aten::div.Scalar"(%arg0) {operand_segments = array<i32: 1>, other = 1.000000e+01 : f64}
// CHECK: %[[RND:.*]] = exir.aten "aten::round"(%[[DIV]])
// CHECK: %[[ROUND:.*]] = exir.aten "aten::mul.Scalar"(%[[RND]]) {operand_segments = array<i32: 1>, other = 1.000000e+01 : f64}
// CHECK: %[[LOG:.*]] = exir.aten "aten::log"(%arg0)
// CHECK: %[[NEG:.*]] = exir.aten "aten::neg"(%arg0)
// CHECK: %[[XLX:.*]] = exir.aten "aten::mul.Tensor"(%[[NEG]], %[[LOG]])
// CHECK: %[[Z2:.*]] = exir.aten "aten::eq.Scalar"(%arg0)
// CHECK: %[[E1:.*]] = exir.aten "aten::masked_fill.Scalar"(%[[XLX]], %[[Z2]]) {operand_segments = array<i32: 1, 1>, value = 0 : i64}
// CHECK: %[[LT:.*]] = exir.aten "aten::lt.Scalar"(%arg0) {operand_segments = array<i32: 1>, other = 0.000000e+00 : f64}
// CHECK: %[[ENTR:.*]] = exir.aten "aten::masked_fill.Scalar"(%[[E1]], %[[LT]]) {operand_segments = array<i32: 1, 1>, value = 0xFFF0000000000000 : f64}
// CHECK: %[[S2:.*]] = exir.aten "aten::mul.Scalar"(%arg0) {operand_segments = array<i32: 1>, other = 0.70710678118654757 : f64}
// CHECK: %[[ERF2:.*]] = exir.aten "aten::erf"(%[[S2]])
// CHECK: %[[P1:.*]] = exir.aten "aten::add.Scalar"(%[[ERF2]]) {{.*}}other = 1.000000e+00 : f64
// CHECK: %[[NDTR:.*]] = exir.aten "aten::mul.Scalar"(%[[P1]]) {operand_segments = array<i32: 1>, other = 5.000000e-01 : f64}
// CHECK: return %[[N3]], %[[FRAC]], %[[RAD]], %[[SINC]], %[[POSINF]], %[[FIN]], %[[ERFC]], %[[EXP2]], %[[ROUND]], %[[ENTR]], %[[NDTR]], %arg1
func.func @unary(%x: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi64>) {
  %n = exir.aten "aten::nan_to_num"(%x) {nan = 1.0 : f64, posinf = #exir.none, neginf = #exir.none, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %f = exir.aten "aten::frac"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %d = exir.aten "aten::deg2rad"(%i) {operand_segments = array<i32: 1>} : (tensor<4xi64>) -> tensor<4xf32>
  %s = exir.aten "aten::sinc"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %p = exir.aten "aten::isposinf"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xi1>
  %q = exir.aten "aten::isfinite"(%i) {operand_segments = array<i32: 1>} : (tensor<4xi64>) -> tensor<4xi1>
  %e = exir.aten "aten::erfc"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %t = exir.aten "aten::exp2"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %r = exir.aten "aten::round.decimals"(%x) {decimals = -1 : i64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %en = exir.aten "aten::special_entr"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %nd = exir.aten "aten::special_ndtr"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %ni = exir.aten "aten::nan_to_num"(%i) {operand_segments = array<i32: 1>} : (tensor<4xi64>) -> tensor<4xi64>
  return %n, %f, %d, %s, %p, %q, %e, %t, %r, %en, %nd, %ni : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi64>
}

// -----

// masked_fill.Scalar whose mask broadcasts self to a larger shape is where
// (its kernel fills self's shape only); the usual case stays.
// CHECK-LABEL: func.func @masked_fill_broadcast
// CHECK: %[[V:.*]] = exir.aten "aten::scalar_tensor"() {{{.*}}dtype = f32{{.*}}s = 3.000000e+00 : f64}
// CHECK: exir.aten "aten::where.self"(%arg1, %[[V]], %arg0) {{.*}} -> tensor<2x4xf32>
// CHECK: exir.aten "aten::masked_fill.Scalar"(%arg2, %arg1)
func.func @masked_fill_broadcast(%x: tensor<4xf32>, %m: tensor<2x4xi1>, %y: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %a = exir.aten "aten::masked_fill.Scalar"(%x, %m) {value = 3.0 : f64, operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<2x4xi1>) -> tensor<2x4xf32>
  %b = exir.aten "aten::masked_fill.Scalar"(%y, %m) {value = 3.0 : f64, operand_segments = array<i32: 1, 1>} : (tensor<2x4xf32>, tensor<2x4xi1>) -> tensor<2x4xf32>
  return %a, %b : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

func.func @frac_of_integers(%i: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'aten::frac' is only defined for floating-point tensors here}}
  %f = exir.aten "aten::frac"(%i) {operand_segments = array<i32: 1>} : (tensor<4xi64>) -> tensor<4xi64>
  return %f : tensor<4xi64>
}

// -----

// Gradients: tanh_backward is g (1 - y^2); threshold_backward is 0 where
// x <= t; native_dropout_backward is g * (mask * scale).
// CHECK-LABEL: func.func @grads
// CHECK: %[[YY:.*]] = exir.aten "aten::mul.Tensor"(%arg1, %arg1)
// CHECK: %[[OM:.*]] = exir.aten "aten::rsub.Scalar"(%[[YY]]) {{.*}}other = 1.000000e+00 : f64
// CHECK: exir.aten "aten::mul.Tensor"(%arg0, %[[OM]])
// CHECK: %[[LE:.*]] = exir.aten "aten::le.Scalar"(%arg1) {operand_segments = array<i32: 1>, other = 0.10000000149011612 : f64}
// CHECK: %[[Z:.*]] = exir.aten "aten::scalar_tensor"() {{{.*}}dtype = f32{{.*}}s = 0.000000e+00 : f64}
// CHECK: exir.aten "aten::where.self"(%[[LE]], %[[Z]], %arg0)
// CHECK: %[[MF:.*]] = exir.aten "aten::_to_copy"(%arg2) {{.*}}dtype = f32
// CHECK: %[[MS:.*]] = exir.aten "aten::mul.Scalar"(%[[MF]]) {operand_segments = array<i32: 1>, other = 2.000000e+00 : f64}
// CHECK: exir.aten "aten::mul.Tensor"(%arg0, %[[MS]])
func.func @grads(%g: tensor<4xf32>, %y: tensor<4xf32>, %m: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = exir.aten "aten::tanh_backward"(%g, %y) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = exir.aten "aten::threshold_backward"(%g, %y) {threshold = 0.1 : f64, operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = exir.aten "aten::native_dropout_backward"(%g, %m) {scale = 2.0 : f64, operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xi1>) -> tensor<4xf32>
  return %a, %b, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @lgamma(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten::lgamma' is not supported: no portable kernel computes it}}
  %a = exir.aten "aten::lgamma"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @signbit(%x: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'aten::signbit' is not supported: it reads the sign bit of NaN and -0.0}}
  %a = exir.aten "aten::signbit"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xi1>
  return %a : tensor<4xi1>
}

// -----

// Saved IR is input too: unranked tensors leave the op alone, for
// to-out-variants to name; nothing is built from types the op does not have.
// CHECK-LABEL: func.func @malformed_left_alone
// CHECK: exir.aten "aten::mish"
// CHECK: exir.aten "aten::to.dtype"
func.func @malformed_left_alone(%x: tensor<*xf32>) -> tensor<*xf64> {
  %a = exir.aten "aten::mish"(%x) {operand_segments = array<i32: 1>} : (tensor<*xf32>) -> tensor<*xf32>
  %b = exir.aten "aten::to.dtype"(%a) {dtype = f64, operand_segments = array<i32: 1>} : (tensor<*xf32>) -> tensor<*xf64>
  return %b : tensor<*xf64>
}

// -----

// A number first: the number as a 0-dim tensor of the result dtype, the
// tensor converted to it (bool & 3 is int64, 3.5 % int8 is float32), then the
// .Tensor overload. _conj_physical of a real tensor is the tensor.
// CHECK-LABEL: func.func @scalar_tensor
// CHECK-SAME: (%[[B:.*]]: tensor<4xi1>, %[[I:.*]]: tensor<4xi8>, %[[X:.*]]: tensor<4xf32>)
// CHECK: %[[BI:.*]] = exir.aten "aten::_to_copy"(%[[B]]) {{.*}}dtype = i64
// CHECK: %[[C3:.*]] = exir.aten "aten::scalar_tensor"() {{.*}}dtype = i64{{.*}}s = 3 : i64
// CHECK: %[[AND:.*]] = exir.aten "aten::bitwise_and.Tensor"(%[[C3]], %[[BI]]) {{.*}} -> tensor<4xi64>
// CHECK: %[[C5:.*]] = exir.aten "aten::scalar_tensor"() {{.*}}dtype = i8{{.*}}s = 5 : i64
// CHECK: %[[OR:.*]] = exir.aten "aten::bitwise_or.Tensor"(%[[C5]], %[[I]]) {{.*}} -> tensor<4xi8>
// CHECK: %[[C6:.*]] = exir.aten "aten::scalar_tensor"() {{.*}}dtype = i8{{.*}}s = 6 : i64
// CHECK: %[[XOR:.*]] = exir.aten "aten::bitwise_xor.Tensor"(%[[C6]], %[[I]]) {{.*}} -> tensor<4xi8>
// CHECK: %[[IF:.*]] = exir.aten "aten::_to_copy"(%[[I]]) {{.*}}dtype = f32
// CHECK: %[[C35:.*]] = exir.aten "aten::scalar_tensor"() {{.*}}dtype = f32{{.*}}s = 3.5
// CHECK: %[[REM:.*]] = exir.aten "aten::remainder.Tensor"(%[[C35]], %[[IF]]) {{.*}} -> tensor<4xf32>
// CHECK-NOT: _conj_physical
// CHECK: return %[[AND]], %[[OR]], %[[XOR]], %[[REM]], %[[X]]
func.func @scalar_tensor(%b: tensor<4xi1>, %i: tensor<4xi8>, %x: tensor<4xf32>) -> (tensor<4xi64>, tensor<4xi8>, tensor<4xi8>, tensor<4xf32>, tensor<4xf32>) {
  %a = exir.aten "aten::bitwise_and.Scalar_Tensor"(%b) {self = 3 : i64, operand_segments = array<i32: 1>} : (tensor<4xi1>) -> tensor<4xi64>
  %o = exir.aten "aten::bitwise_or.Scalar_Tensor"(%i) {self = 5 : i64, operand_segments = array<i32: 1>} : (tensor<4xi8>) -> tensor<4xi8>
  %e = exir.aten "aten::bitwise_xor.Scalar_Tensor"(%i) {self = 6 : i64, operand_segments = array<i32: 1>} : (tensor<4xi8>) -> tensor<4xi8>
  %r = exir.aten "aten::remainder.Scalar_Tensor"(%i) {self = 3.5 : f64, operand_segments = array<i32: 1>} : (tensor<4xi8>) -> tensor<4xf32>
  %c = exir.aten "aten::_conj_physical"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %a, %o, %e, %r, %c : tensor<4xi64>, tensor<4xi8>, tensor<4xi8>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Random integers and permutations are refused by name.
func.func @randint() -> tensor<3xi64> {
  // expected-error @+1 {{'aten::randint' is not supported: random sampling}}
  %r = exir.aten "aten::randint"() {high = 5 : i64, size = array<i64: 3>, dtype = i64, operand_segments = array<i32>} : () -> tensor<3xi64>
  return %r : tensor<3xi64>
}

// -----

// conj_physical / real / resolve_conj / resolve_neg of a real tensor are the
// tensor. angle of a real tensor: NaN where x is NaN, else pi where x < 0 and 0
// where x >= 0; integers give float32.
// CHECK-LABEL: func.func @complex_views_of_reals
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>)
// CHECK-NOT: "aten::conj_physical"
// CHECK-NOT: "aten::real"
// CHECK-NOT: "aten::resolve_
// CHECK: %[[LT:.*]] = exir.aten "aten::lt.Scalar"(%[[X]])
// CHECK: %[[PI:.*]] = exir.aten "aten::scalar_tensor"() {{.*}}s = 3.14159
// CHECK: %[[Z:.*]] = exir.aten "aten::scalar_tensor"()
// CHECK: %[[W:.*]] = exir.aten "aten::where.self"(%[[LT]], %[[PI]], %[[Z]])
// CHECK: %[[NAN:.*]] = exir.aten "aten::isnan"(%[[X]])
// CHECK: %[[A:.*]] = exir.aten "aten::where.self"(%[[NAN]], %[[X]], %[[W]]) {{.*}} -> tensor<4xf32>
// CHECK: %[[IF:.*]] = exir.aten "aten::_to_copy"(%[[I]]) {{.*}}dtype = f32
// CHECK: exir.aten "aten::lt.Scalar"(%[[IF]])
// CHECK-NOT: "aten::angle"
// CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[A]],
func.func @complex_views_of_reals(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c = exir.aten "aten::conj_physical"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %r = exir.aten "aten::real"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %rc = exir.aten "aten::resolve_conj"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %rn = exir.aten "aten::resolve_neg"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %a = exir.aten "aten::angle"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %ai = exir.aten "aten::angle"(%i) {operand_segments = array<i32: 1>} : (tensor<4xi32>) -> tensor<4xf32>
  return %c, %r, %rc, %rn, %a, %ai : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// frexp is refused by name.
func.func @frexp(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten::frexp.Tensor' is not supported: it splits floats into mantissa and exponent}}
  %m:2 = exir.aten "aten::frexp.Tensor"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>)
  return %m#0 : tensor<4xf32>
}

// -----

// Special functions without a portable kernel are refused by name.
func.func @special_zeta(%x: tensor<4xf32>, %q: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten::special_zeta' is not supported: a special function}}
  %z = exir.aten "aten::special_zeta"(%x, %q) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}
