// RUN: ptec-opt %s --split-input-file --exir-alias-views | FileCheck %s

// Reshapes of contiguous data share their source's storage: view_copy,
// squeeze_copy and unsqueeze_copy become aten::view (no kernel, no copy).

// CHECK-LABEL: func.func @reshapes
// CHECK-SAME: exir.alias_views = {aliased = 3 : i64, copied = 0 : i64}
// CHECK: %[[A:.*]] = exir.aten "aten::view"(%arg0) {operand_segments = array<i32: 1>, size = array<i64: 8>}
// CHECK: %[[B:.*]] = exir.aten "aten::view"(%[[A]]) {operand_segments = array<i32: 1>, size = array<i64: 1, 8>}
// CHECK: %[[C:.*]] = exir.aten "aten::view"(%[[B]]) {operand_segments = array<i32: 1>, size = array<i64: 8>}
// CHECK-NOT: _copy
// CHECK: return %[[C]]
func.func @reshapes(%x: tensor<2x4xf32>) -> tensor<8xf32> {
  %a = exir.aten "aten::view_copy"(%x) {size = array<i64: 8>, operand_segments = array<i32: 1>} : (tensor<2x4xf32>) -> tensor<8xf32>
  %b = exir.aten "aten::unsqueeze_copy"(%a) {dim = 0 : i64, operand_segments = array<i32: 1>} : (tensor<8xf32>) -> tensor<1x8xf32>
  %c = exir.aten "aten::squeeze_copy.dim"(%b) {dim = 0 : i64, operand_segments = array<i32: 1>} : (tensor<1x8xf32>) -> tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

// A view of a buffer that a write-back copy overwrites later would show the
// new contents: it stays a copy. A view taken after the write is fine.

// CHECK-LABEL: func.func @written_after
// CHECK-SAME: exir.alias_views = {aliased = 1 : i64, copied = 1 : i64}
// CHECK: exir.aten "aten::view_copy"(%arg0)
// CHECK: exir.copy_ %arg0
// CHECK: exir.aten "aten::view"(%arg0)
func.func @written_after(%b: tensor<2x2xf32> {exir.input = #exir.input<buffer, "b">},
                         %x: tensor<2x2xf32> {exir.input = #exir.input<user_input, "x">})
    -> (tensor<4xf32>, tensor<4xf32>) {
  %v = exir.aten "aten::view_copy"(%b) {size = array<i64: 4>, operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<4xf32>
  exir.copy_ %b, %x : tensor<2x2xf32>, tensor<2x2xf32>
  %w = exir.aten "aten::view_copy"(%b) {size = array<i64: 4>, operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<4xf32>
  return %v, %w : tensor<4xf32>, tensor<4xf32>
}

// -----

// A re-inplaced update of the source after the view, and an opaque op (a
// delegate call, which may write its operands) on the view itself: both
// keep the copy.

exir.lowered_module @demo_0 {backend = "BackendWithCompilerDemo", blob = "0version:0#",
    compile_specs = [], function_type = (tensor<4xf32>) -> tensor<4xf32>,
    share_handle_across_calls, scratch = []}

// CHECK-LABEL: func.func @inplace_and_opaque
// CHECK-SAME: exir.alias_views = {aliased = 0 : i64, copied = 2 : i64}
// CHECK-COUNT-2: aten::view_copy
func.func @inplace_and_opaque(%s: tensor<4x2xf32>, %k: tensor<1x2xf32>, %y: tensor<2x2xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
  %v = exir.aten "aten::view_copy"(%s) {size = array<i64: 8>, operand_segments = array<i32: 1>} : (tensor<4x2xf32>) -> tensor<8xf32>
  %n = exir.aten "aten::slice_scatter"(%s, %k) {dim = 0 : i64, start = 0 : i64, end = 1 : i64, step = 1 : i64, exir.inplace_of = 0 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x2xf32>, tensor<1x2xf32>) -> tensor<4x2xf32>
  %w = exir.aten "aten::view_copy"(%y) {size = array<i64: 4>, operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<4xf32>
  %d = exir.delegate_call @demo_0(%w) : (tensor<4xf32>) -> tensor<4xf32>
  return %v, %d : tensor<8xf32>, tensor<4xf32>
}

// -----

// A reshape whose size is only known at run time aliases too: the view keeps
// the symbolic operand (the emitter's et_view reads it at run time) and the
// size list as written (-1 stays -1). A squeeze of a dynamic tensor keeps its
// copy kernel: no size list says its run-time shape.
// CHECK-LABEL: func.func @dynamic_reshape
// CHECK-SAME: exir.alias_views = {aliased = 2 : i64, copied = 0 : i64}
// CHECK: %[[N:.*]] = exir.sym "mul"
// CHECK: exir.aten "aten::view"(%arg0, %[[N]]) {exir.sym_args = ["size[0]"], operand_segments = array<i32: 1>, size = array<i64: 64>}
// CHECK: exir.aten "aten::view"(%{{.*}}) {operand_segments = array<i32: 1>, size = array<i64: -1, 4>}
// CHECK: exir.aten "aten::squeeze_copy.dim"
func.func @dynamic_reshape(%x: tensor<16x4xf32> {exir.dynamic_dims = array<i64: 0>}) -> tensor<16x4xf32> {
  %s = exir.sym_size %x, 0 : tensor<16x4xf32>
  %c = exir.sym_const 4
  %n = exir.sym "mul"(%s, %c) : (i64, i64) -> i64
  %v = exir.aten "aten::view_copy"(%x, %n) {size = array<i64: 64>, exir.sym_args = ["size[0]"], operand_segments = array<i32: 1>} : (tensor<16x4xf32>, i64) -> tensor<64xf32>
  %w = exir.aten "aten::view_copy"(%v) {size = array<i64: -1, 4>, operand_segments = array<i32: 1>} : (tensor<64xf32>) -> tensor<16x4xf32>
  %q = exir.aten "aten::squeeze_copy.dim"(%w) {dim = 1 : i64, operand_segments = array<i32: 1>} : (tensor<16x4xf32>) -> tensor<16x4xf32>
  return %q : tensor<16x4xf32>
}
