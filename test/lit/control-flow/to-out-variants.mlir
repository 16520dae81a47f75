// RUN: ptec-opt %s --exir-to-out-variants | FileCheck %s

// Ops inside control-flow regions get out variants like any other, with
// their exir.alloc inside the region. A yielded value whose storage is not
// made in its region (a block argument, a value from above) is cloned first:
// a cond's results alias its branch's storage (MoveCall) and a loop copies
// its body results into the carried values, so neither may be a value
// planned elsewhere.

// CHECK-LABEL: func.func @cond
// CHECK: exir.cond %{{.*}}(%[[X:.*]]) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4xf32>):
// CHECK-NEXT:   %[[S:.*]] = exir.alloc : tensor<4xf32>
// CHECK-NEXT:   %[[SIN:.*]] = exir.aten "aten::sin.out"(%[[A]], %[[S]])
// CHECK-NEXT:   exir.yield %[[SIN]] : tensor<4xf32>
// CHECK-NEXT: } {
// CHECK-NEXT: ^bb0(%[[B:.*]]: tensor<4xf32>):
// CHECK-NEXT:   %[[C:.*]] = exir.alloc : tensor<4xf32>
// CHECK-NEXT:   %[[CLONE:.*]] = exir.aten "aten::clone.out"(%[[B]], %[[C]])
// CHECK-NEXT:   exir.yield %[[CLONE]] : tensor<4xf32>
func.func @cond(%p: tensor<i1> {exir.input = #exir.input<user_input, "p">},
                %x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">}) -> tensor<4xf32> {
  %r = exir.cond %p (%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %s = exir.aten "aten::sin"(%a) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
    exir.yield %s : tensor<4xf32>
  } {
  ^bb0(%b: tensor<4xf32>):
    exir.yield %b : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// The loop condition's yield is only read (JumpFalseCall): no clone. The
// body's yield of an extra value is cloned.
// CHECK-LABEL: func.func @loop
// CHECK: exir.while
// CHECK: exir.aten "aten::lt.Tensor_out"
// CHECK-NEXT: exir.yield %{{.*}} : tensor<i1>
// CHECK: ^bb0(%[[I:.*]]: tensor<i64>, %[[N:.*]]: tensor<i64>):
// CHECK: exir.aten "aten::add.Scalar_out"(%[[I]],
// CHECK: exir.aten "aten::clone.out"(%[[N]],
// CHECK: exir.yield
func.func @loop(%i0: tensor<i64> {exir.input = #exir.input<user_input, "i">},
                %n: tensor<i64> {exir.input = #exir.input<user_input, "n">}) -> tensor<i64> {
  %r = exir.while (%i0) (%n) : (tensor<i64>, tensor<i64>) -> tensor<i64> {
  ^bb0(%i: tensor<i64>, %m: tensor<i64>):
    %lt = exir.aten "aten::lt.Tensor"(%i, %m) {operand_segments = array<i32: 1, 1>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
    exir.yield %lt : tensor<i1>
  } {
  ^bb0(%i: tensor<i64>, %m: tensor<i64>):
    %j = exir.aten "aten::add.Scalar"(%i) {alpha = 1 : i64, operand_segments = array<i32: 1>, other = 1 : i64} : (tensor<i64>) -> tensor<i64>
    exir.yield %m : tensor<i64>
  }
  return %r : tensor<i64>
}
