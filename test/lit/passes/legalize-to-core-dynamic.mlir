// RUN: ptec-opt %s --split-input-file --exir-legalize-to-core --verify-diagnostics | FileCheck %s

// Dynamic shapes: renames keep the symbolic-int operands and rename their
// bindings with the argument (reshape's `shape` is view_copy's `size`).
// CHECK-LABEL: func.func @dynamic_reshape
// CHECK: %[[S:.*]] = exir.sym_size %arg0, 0
// CHECK: exir.aten "aten::view_copy"(%arg0, %[[S]]) {exir.sym_args = ["size[0]"], operand_segments = array<i32: 1>, size = array<i64: 16, 4>}
func.func @dynamic_reshape(%x: tensor<16x4xf32> {exir.dynamic_dims = array<i64: 0>}) -> tensor<16x4xf32> {
  %s = exir.sym_size %x, 0 : tensor<16x4xf32>
  %y = exir.aten "aten::reshape"(%x, %s) {shape = array<i64: 16, 4>, exir.sym_args = ["shape[0]"], operand_segments = array<i32: 1>} : (tensor<16x4xf32>, i64) -> tensor<16x4xf32>
  return %y : tensor<16x4xf32>
}

// -----

// linear on a dynamic rank-3 input: the leading dims are folded into rows
// with run-time sizes (sym_size products bound to the view's size), and the
// result is viewed back with the input's run-time sizes.
// CHECK-LABEL: func.func @dynamic_linear
// CHECK: %[[T:.*]] = exir.aten "aten::permute_copy"(%arg1)
// CHECK: %[[B:.*]] = exir.sym_size %arg0, 0
// CHECK: %[[S:.*]] = exir.sym_size %arg0, 1
// CHECK: %[[R:.*]] = exir.sym "mul"(%[[B]], %[[S]])
// CHECK: %[[X2:.*]] = exir.aten "aten::view_copy"(%arg0, %[[R]]) {exir.sym_args = ["size[0]"], operand_segments = array<i32: 1>, size = array<i64: 32, 4>}
// CHECK: %[[Y:.*]] = exir.aten "aten::mm"(%[[X2]], %[[T]])
// CHECK: %[[B2:.*]] = exir.sym_size %arg0, 0
// CHECK: %[[S2:.*]] = exir.sym_size %arg0, 1
// CHECK: exir.aten "aten::view_copy"(%[[Y]], %[[B2]], %[[S2]]) {exir.sym_args = ["size[0]", "size[1]"], operand_segments = array<i32: 1>, size = array<i64: 2, 16, 8>}
func.func @dynamic_linear(%x: tensor<2x16x4xf32> {exir.dynamic_dims = array<i64: 1>}, %w: tensor<8x4xf32>) -> tensor<2x16x8xf32> {
  %y = exir.aten "aten::linear"(%x, %w) {operand_segments = array<i32: 1, 1, 0>} : (tensor<2x16x4xf32>, tensor<8x4xf32>) -> tensor<2x16x8xf32>
  return %y : tensor<2x16x8xf32>
}

// -----

// Causal attention with a boolean mask: masked_fill where the mask is False,
// and the causal lower triangle from the scores' own run-time shape.
// CHECK-LABEL: func.func @causal_bool_mask
// CHECK: %[[SC:.*]] = exir.aten "aten::mul.Scalar"
// CHECK: %[[HM:.*]] = exir.aten "aten::logical_not"(%arg3)
// CHECK: %[[M1:.*]] = exir.aten "aten::masked_fill.Scalar"(%[[SC]], %[[HM]]) {operand_segments = array<i32: 1, 1>, value = 0xFFF0000000000000 : f64}
// CHECK: %[[ONES:.*]] = exir.aten "aten::full_like"(%[[M1]])
// CHECK: %[[LOW:.*]] = exir.aten "aten::tril"(%[[ONES]]) {diagonal = 0 : i64
// CHECK: %[[HC:.*]] = exir.aten "aten::logical_not"(%[[LOW]])
// CHECK: %[[M2:.*]] = exir.aten "aten::masked_fill.Scalar"(%[[M1]], %[[HC]])
// CHECK: exir.aten "aten::_softmax"(%[[M2]])
func.func @causal_bool_mask(%q: tensor<1x2x8x4xf32> {exir.dynamic_dims = array<i64: 2>}, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf32>, %m: tensor<8x8xi1>) -> tensor<1x2x8x4xf32> {
  %y = exir.aten "aten::scaled_dot_product_attention"(%q, %k, %v, %m) {is_causal = true, operand_segments = array<i32: 1, 1, 1, 1>} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<8x8xi1>) -> tensor<1x2x8x4xf32>
  return %y : tensor<1x2x8x4xf32>
}

// -----

// The same op on static shapes decomposes.
// CHECK-LABEL: func.func @static_linear
// CHECK-NOT: aten::linear
func.func @static_linear(%x: tensor<16x4xf32>, %w: tensor<8x4xf32>) -> tensor<16x8xf32> {
  %y = exir.aten "aten::linear"(%x, %w) {operand_segments = array<i32: 1, 1, 0>} : (tensor<16x4xf32>, tensor<8x4xf32>) -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}

// -----

// Activations that become elementwise ops of the same type (silu = x *
// sigmoid(x), relu6 = hardtanh) need no sizes: they decompose on dynamic
// shapes too (a LLaMA MLP's silu in a dynamic prefill).
// CHECK-LABEL: func.func @dynamic_silu
// CHECK: %[[G:.*]] = exir.aten "aten::sigmoid"(%arg0)
// CHECK: exir.aten "aten::mul.Tensor"(%arg0, %[[G]])
// CHECK-NOT: aten::silu
// CHECK: exir.aten "aten::hardtanh"
// CHECK-NOT: aten::relu6
func.func @dynamic_silu(%x: tensor<16x4xf32> {exir.dynamic_dims = array<i64: 0>}) -> (tensor<16x4xf32>, tensor<16x4xf32>) {
  %y = exir.aten "aten::silu"(%x) {operand_segments = array<i32: 1>} : (tensor<16x4xf32>) -> tensor<16x4xf32>
  %z = exir.aten "aten::relu6"(%x) {operand_segments = array<i32: 1>} : (tensor<16x4xf32>) -> tensor<16x4xf32>
  return %y, %z : tensor<16x4xf32>, tensor<16x4xf32>
}

// -----

// Equal types are equal bounds, not equal run-time shapes: a slice_scatter
// whose src has a dynamic row count is not the identity (src may hold fewer
// rows), and neither is a functional copy from a dynamic source.
// CHECK-LABEL: func.func @dynamic_scatter_not_identity
// CHECK: exir.aten "aten::slice_scatter"
// CHECK: exir.aten "aten::copy"
func.func @dynamic_scatter_not_identity(%buf: tensor<16x2xf32>, %x: tensor<16x2xf32> {exir.dynamic_dims = array<i64: 0>}) -> (tensor<16x2xf32>, tensor<16x2xf32>) {
  %s = exir.aten "aten::slice_scatter"(%buf, %x) {dim = 0 : i64, start = 0 : i64, end = 9223372036854775807 : i64, step = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<16x2xf32>, tensor<16x2xf32>) -> tensor<16x2xf32>
  %c = exir.aten "aten::copy"(%buf, %x) {non_blocking = false, operand_segments = array<i32: 1, 1>} : (tensor<16x2xf32>, tensor<16x2xf32>) -> tensor<16x2xf32>
  return %s, %c : tensor<16x2xf32>, tensor<16x2xf32>
}
