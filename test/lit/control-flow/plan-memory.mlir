// RUN: ptec-opt %s --split-input-file --exir-plan-memory | FileCheck %s

// Storage made inside a control-flow region lives from the op to the last
// use of the op's results (a cond's results have no storage of their own:
// the branch's results are moved into them). So it never shares bytes with
// a value live across the op (%keep), and the branches do not share with
// each other; values dead before the op (%t) may be reused.
// CHECK-LABEL: func.func @cond
// CHECK-SAME: exir.arena_sizes = array<i64: 0, 256>
// %t: dead before the cond, its bytes are reused by the then-branch.
// CHECK: exir.alloc {exir.mem = #exir.mem<1, 64, 64>}
// %keep: live across the cond.
// CHECK: exir.alloc {exir.mem = #exir.mem<1, 0, 64>}
// CHECK: exir.cond
// CHECK-NOT: exir.mems
// CHECK: exir.alloc {exir.mem = #exir.mem<1, 64, 64>}
// CHECK: exir.alloc {exir.mem = #exir.mem<1, 128, 64>}
// CHECK: exir.yield
// The add reads the cond's result: it does not reuse the branches' bytes.
// CHECK: exir.alloc {exir.mem = #exir.mem<1, 192, 64>}
func.func @cond(%p: tensor<i1> {exir.input = #exir.input<user_input, "p">},
                %x: tensor<16xf32> {exir.input = #exir.input<user_input, "x">}) -> tensor<16xf32> {
  %t0 = exir.alloc : tensor<16xf32>
  %t = exir.aten "aten::relu.out"(%x, %t0) {operand_segments = array<i32: 1, 1>} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %k0 = exir.alloc : tensor<16xf32>
  %keep = exir.aten "aten::relu.out"(%t, %k0) {operand_segments = array<i32: 1, 1>} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %r = exir.cond %p (%keep) : tensor<i1>, (tensor<16xf32>) -> tensor<16xf32> {
  ^bb0(%a: tensor<16xf32>):
    %s0 = exir.alloc : tensor<16xf32>
    %s = exir.aten "aten::sin.out"(%a, %s0) {operand_segments = array<i32: 1, 1>} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    exir.yield %s : tensor<16xf32>
  } {
  ^bb0(%a: tensor<16xf32>):
    %c0 = exir.alloc : tensor<16xf32>
    %c = exir.aten "aten::cos.out"(%a, %c0) {operand_segments = array<i32: 1, 1>} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    exir.yield %c : tensor<16xf32>
  }
  %o0 = exir.alloc : tensor<16xf32>
  %o = exir.aten "aten::add.out"(%r, %keep, %o0) {alpha = 1 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %o : tensor<16xf32>
}

// -----

// A loop's results are its carried values: planned like any op result
// (exir.mems on the while), live from the loop to their last use.
// CHECK-LABEL: func.func @loop
// CHECK-SAME: exir.arena_sizes = array<i64: 0, 80>
// CHECK: exir.while(%{{.*}}) (%{{.*}}) {exir.mems = [#exir.mem<1, 32, 16>]}
// CHECK: exir.alloc {exir.mem = #exir.mem<1, 48, 16>} : tensor<i1>
// CHECK: exir.alloc {exir.mem = #exir.mem<1, 64, 16>} : tensor<i64>
func.func @loop(%i0: tensor<i64> {exir.input = #exir.input<user_input, "i">},
                %n: tensor<i64> {exir.input = #exir.input<user_input, "n">}) -> tensor<i64> {
  %r = exir.while (%i0) (%n) : (tensor<i64>, tensor<i64>) -> tensor<i64> {
  ^bb0(%i: tensor<i64>, %m: tensor<i64>):
    %l0 = exir.alloc : tensor<i1>
    %lt = exir.aten "aten::lt.Tensor_out"(%i, %m, %l0) {operand_segments = array<i32: 1, 1, 1>} : (tensor<i64>, tensor<i64>, tensor<i1>) -> tensor<i1>
    exir.yield %lt : tensor<i1>
  } {
  ^bb0(%i: tensor<i64>, %m: tensor<i64>):
    %j0 = exir.alloc : tensor<i64>
    %j = exir.aten "aten::add.Scalar_out"(%i, %j0) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>, other = 1 : i64} : (tensor<i64>, tensor<i64>) -> tensor<i64>
    exir.yield %j : tensor<i64>
  }
  return %r : tensor<i64>
}
