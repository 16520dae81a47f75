// RUN: ptec-opt %s --split-input-file --exir-to-out-variants --verify-diagnostics | FileCheck %s

// With run-time shapes, split_copy.Tensor becomes one slice_copy per piece:
// split_copy.Tensor_out checks that its outs already have their pieces'
// shapes and never resizes them (upstream's kernel as ours), so outs planned
// at the bound would fail every smaller call; slice_copy resizes its out.
// The last piece is as long as its type (the bound) and clamps at run time.
// CHECK-LABEL: func.func @dynamic_split
// CHECK-NOT: split_copy
// CHECK: exir.aten "aten::slice_copy.Tensor_out"(%arg0, %{{.*}}) {dim = 2 : i64, end = 4 : i64, operand_segments = array<i32: 1, 1>, start = 0 : i64, step = 1 : i64}
// CHECK: exir.aten "aten::slice_copy.Tensor_out"(%arg0, %{{.*}}) {dim = 2 : i64, end = 8 : i64, operand_segments = array<i32: 1, 1>, start = 4 : i64, step = 1 : i64}
// CHECK: exir.aten "aten::slice_copy.Tensor_out"(%arg0, %{{.*}}) {dim = 2 : i64, end = 10 : i64, operand_segments = array<i32: 1, 1>, start = 8 : i64, step = 1 : i64}
func.func @dynamic_split(%x: tensor<1x15x10xf32> {exir.dynamic_dims = array<i64: 1>}) -> (tensor<1x15x4xf32>, tensor<1x15x4xf32>, tensor<1x15x2xf32>) {
  %a, %b, %c = exir.aten "aten::split_copy.Tensor"(%x) {split_size = 4 : i64, dim = -1 : i64, operand_segments = array<i32: 1>} : (tensor<1x15x10xf32>) -> (tensor<1x15x4xf32>, tensor<1x15x4xf32>, tensor<1x15x2xf32>)
  return %a, %b, %c : tensor<1x15x4xf32>, tensor<1x15x4xf32>, tensor<1x15x2xf32>
}

// -----

// unbind_copy.int likewise becomes one select_copy per index.
// CHECK-LABEL: func.func @dynamic_unbind
// CHECK-NOT: unbind_copy
// CHECK: exir.aten "aten::select_copy.int_out"(%arg0, %{{.*}}) {dim = 0 : i64, index = 0 : i64, operand_segments = array<i32: 1, 1>}
// CHECK: exir.aten "aten::select_copy.int_out"(%arg0, %{{.*}}) {dim = 0 : i64, index = 1 : i64, operand_segments = array<i32: 1, 1>}
func.func @dynamic_unbind(%x: tensor<2x15xf32> {exir.dynamic_dims = array<i64: 1>}) -> (tensor<15xf32>, tensor<15xf32>) {
  %a, %b = exir.aten "aten::unbind_copy.int"(%x) {dim = 0 : i64, operand_segments = array<i32: 1>} : (tensor<2x15xf32>) -> (tensor<15xf32>, tensor<15xf32>)
  return %a, %b : tensor<15xf32>, tensor<15xf32>
}

// -----

// Static shapes keep the single split kernel.
// CHECK-LABEL: func.func @static_split
// CHECK: exir.aten "aten::split_copy.Tensor_out"
// CHECK-NOT: slice_copy
func.func @static_split(%x: tensor<1x15x8xf32>) -> (tensor<1x15x4xf32>, tensor<1x15x4xf32>) {
  %a, %b = exir.aten "aten::split_copy.Tensor"(%x) {split_size = 4 : i64, dim = 2 : i64, operand_segments = array<i32: 1>} : (tensor<1x15x8xf32>) -> (tensor<1x15x4xf32>, tensor<1x15x4xf32>)
  return %a, %b : tensor<1x15x4xf32>, tensor<1x15x4xf32>
}
