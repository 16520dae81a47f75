// RUN: ptec-opt %s --split-input-file --exir-extract-calls | FileCheck %s
// RUN: ptec-opt %s --split-input-file --exir-extract-calls --exir-inline-calls | FileCheck %s --check-prefix=INLINE

// Three instances of `blk`, structurally identical and reading a parameter:
// one private function, three calls; each call feeds the next. Inlining gives
// the flat chain back.

// CHECK-LABEL: func.func @three(
// CHECK: %[[C0:.*]] = call @blk(%arg0, %arg1) {exir.scope = "blk"}
// CHECK: %[[C1:.*]] = call @blk(%[[C0]], %arg1) {exir.scope = "blk@1"}
// CHECK: %[[C2:.*]] = call @blk(%[[C1]], %arg1) {exir.scope = "blk@2"}
// CHECK: return %[[C2]]
// CHECK: func.func private @blk(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: exir.aten "aten::add.Tensor"(%arg0, %arg1)
// CHECK-NOT: exir.scope
// CHECK-NEXT: exir.aten "aten::sin"
// CHECK-NEXT: return
// INLINE-LABEL: func.func @three(
// INLINE-COUNT-3: exir.aten "aten::sin"
// INLINE-NOT: call
// INLINE-NOT: func.func private
func.func @three(%x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">}, %b: tensor<4xf32> {exir.input = #exir.input<parameter, "blk.b">}) -> tensor<4xf32> {
  %0 = exir.aten "aten::add.Tensor"(%x, %b) {alpha = 1 : i64, exir.scope = "blk", operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = exir.aten "aten::sin"(%0) {exir.scope = "blk", operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = exir.aten "aten::add.Tensor"(%1, %b) {alpha = 1 : i64, exir.scope = "blk@1", operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = exir.aten "aten::sin"(%2) {exir.scope = "blk@1", operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %4 = exir.aten "aten::add.Tensor"(%3, %b) {alpha = 1 : i64, exir.scope = "blk@2", operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %5 = exir.aten "aten::sin"(%4) {exir.scope = "blk@2", operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %5 : tensor<4xf32>
}

// -----

// Instances that differ (alpha 2 in the second) are not the same function;
// with no identical partner neither is outlined. Ops without a scope stay.

// CHECK-LABEL: func.func @differ(
// CHECK-NOT: call
// CHECK: return
func.func @differ(%x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">}, %b: tensor<4xf32> {exir.input = #exir.input<buffer, "blk.b">}) -> tensor<4xf32> {
  %0 = exir.aten "aten::add.Tensor"(%x, %b) {alpha = 1 : i64, exir.scope = "blk", operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = exir.aten "aten::add.Tensor"(%0, %b) {alpha = 2 : i64, exir.scope = "blk@1", operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = exir.aten "aten::neg"(%1) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// Two submodules with the same ops get two functions (the scope names the
// submodule); an intermediate value used after the run becomes a result.

// CHECK-LABEL: func.func @two_modules(
// CHECK: %[[P:.*]]:2 = call @p(%arg0, %arg1)
// CHECK: %[[P1:.*]]:2 = call @p(%[[P]]#1, %arg1)
// CHECK: call @q(
// CHECK: call @q(
// CHECK: func.func private @p(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK: func.func private @q(
func.func @two_modules(%x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">}, %w: tensor<4xf32> {exir.input = #exir.input<constant, "c">}) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = exir.aten "aten::mul.Tensor"(%x, %w) {exir.scope = "p", operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = exir.aten "aten::neg"(%0) {exir.scope = "p", operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = exir.aten "aten::mul.Tensor"(%1, %w) {exir.scope = "p@1", operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = exir.aten "aten::neg"(%2) {exir.scope = "p@1", operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %4 = exir.aten "aten::mul.Tensor"(%3, %w) {exir.scope = "q", operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %5 = exir.aten "aten::mul.Tensor"(%4, %w) {exir.scope = "q@1", operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %2, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A reused module that reads no weight (one ReLU applied after each conv) is
// not outlined: its call would cost what its body does, and the function
// boundary would cut the backend's region around every use.

// CHECK-LABEL: func.func @weight_free(
// CHECK-NOT: call
// CHECK-COUNT-2: aten::relu
// CHECK-NOT: call
// CHECK: return
func.func @weight_free(%x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">}, %w: tensor<4xf32> {exir.input = #exir.input<parameter, "c.w">}) -> tensor<4xf32> {
  %0 = exir.aten "aten::mul.Tensor"(%x, %w) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = exir.aten "aten::relu"(%0) {exir.scope = "relu", operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = exir.aten "aten::mul.Tensor"(%1, %w) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = exir.aten "aten::relu"(%2) {exir.scope = "relu@1", operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}
