// RUN: ptec-opt %s --split-input-file --exir-to-out-variants --verify-diagnostics | FileCheck %s

// Each functional op writes into a fresh exir.alloc through its .out form;
// users read the out-variant's result (which aliases the alloc).
// CHECK-LABEL: func.func @chain
func.func @chain(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // CHECK: %[[A0:.*]] = exir.alloc : tensor<2x2xf32>
  // CHECK: %[[M:.*]] = exir.aten "aten::mm.out"(%{{.*}}, %{{.*}}, %[[A0]]) {operand_segments = array<i32: 1, 1, 1>}
  %m = exir.aten "aten::mm"(%a, %b) {operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK: %[[A1:.*]] = exir.alloc : tensor<2x2xf32>
  // CHECK: %[[S:.*]] = exir.aten "aten::add.out"(%[[M]], %{{.*}}, %[[A1]]) {alpha = 1 : i64, operand_segments = array<i32: 1, 1, 1>}
  %s = exir.aten "aten::add.Tensor"(%m, %b) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK: return %[[S]]
  return %s : tensor<2x2xf32>
}

// -----

// Several returns: one alloc per return, in order.
// CHECK-LABEL: func.func @multi
func.func @multi(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // CHECK: %[[V:.*]] = exir.alloc : tensor<1x1x2x2xf32>
  // CHECK: %[[I:.*]] = exir.alloc : tensor<1x1x2x2xi64>
  // CHECK: exir.aten "aten::max_pool2d_with_indices.out"(%{{.*}}, %[[V]], %[[I]])
  %v, %i = exir.aten "aten::max_pool2d_with_indices"(%x) {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false, operand_segments = array<i32: 1>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  return %v : tensor<1x1x2x2xf32>
}

// -----

// Re-inplacing's storage-sharing annotation: the buffer itself is the out.
// CHECK-LABEL: func.func @inplace
func.func @inplace(%cache: tensor<4x2xf32>, %x: tensor<2x2xf32>) -> tensor<4x2xf32> {
  // CHECK-NOT: exir.alloc
  // CHECK: exir.aten "aten::slice_scatter.out"(%[[C:.*]], %{{.*}}, %[[C]])
  %u = exir.aten "aten::slice_scatter"(%cache, %x) {dim = 0 : i64, start = 2 : i64, end = 4 : i64, step = 1 : i64, operand_segments = array<i32: 1, 1>, exir.inplace_of = 0 : i64} : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  return %u : tensor<4x2xf32>
}

// -----

// Every op without a kernel is reported, each at its own location (and
// naming its node when it has one: to-out-variants-nodes.mlir).
func.func @missing(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{aten::lerp.Scalar: not supported yet: ptec has no CPU kernel for this operator (aten::lerp.Scalar_out)}}
  %a = exir.aten "aten::lerp.Scalar"(%x, %x) {weight = 5.000000e-01 : f64, operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{aten::square: not supported yet: ptec has no CPU kernel for this operator (aten::square.out)}}
  %b = exir.aten "aten::square"(%a) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

// Symbolic-int operands stay after the out argument, still bound by
// exir.sym_args.
// CHECK-LABEL: func.func @dynamic_view
// CHECK: %[[S:.*]] = exir.sym_size %arg0, 0
// CHECK: %[[A:.*]] = exir.alloc : tensor<64xf32>
// CHECK: exir.aten "aten::view_copy.out"(%arg0, %[[A]], %[[S]]) {exir.sym_args = ["size[0]"], operand_segments = array<i32: 1, 1>, size = array<i64: 64>}
func.func @dynamic_view(%x: tensor<64xf32> {exir.dynamic_dims = array<i64: 0>}) -> tensor<64xf32> {
  %s = exir.sym_size %x, 0 : tensor<64xf32>
  %v = exir.aten "aten::view_copy"(%x, %s) {size = array<i64: 64>, exir.sym_args = ["size[0]"], operand_segments = array<i32: 1>} : (tensor<64xf32>, i64) -> tensor<64xf32>
  return %v : tensor<64xf32>
}
