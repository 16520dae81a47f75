// RUN: ptec-opt %s --split-input-file --exir-plan-memory --verify-diagnostics | FileCheck %s
// RUN: ptec-opt %s --split-input-file --exir-plan-memory=algorithm=greedy --verify-diagnostics | FileCheck %s --check-prefix=GREEDY

// A chain a -> t1 -> t2 -> t3. Sizes are 16-byte rounded; arena 0 is reserved.
// At most two of the four 64-byte tensors are live at once (the input dies
// at the first relu), so the plan is 128 bytes, not 256.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: exir.mem = #exir.mem<1, {{[0-9]+}}, 64>
// CHECK-SAME: exir.arena_sizes = array<i64: 0, 128>
// CHECK-SAME: exir.plan = {algorithm = "{{.*}}", lower_bound = 128 : i64, total = 128 : i64}
// GREEDY-LABEL: func.func @chain
// GREEDY-SAME: exir.arena_sizes = array<i64: 0, 128>
func.func @chain(%a: tensor<16xf32> {exir.input = #exir.input<user_input>}) -> tensor<16xf32> {
  // CHECK: exir.alloc {exir.mem = #exir.mem<1, {{[0-9]+}}, 64>}
  %0 = exir.alloc : tensor<16xf32>
  %1 = exir.aten "aten::relu.out"(%a, %0) {operand_segments = array<i32: 1, 1>} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  // CHECK: exir.alloc {exir.mem = #exir.mem<1, {{[0-9]+}}, 64>}
  %2 = exir.alloc : tensor<16xf32>
  %3 = exir.aten "aten::relu.out"(%1, %2) {operand_segments = array<i32: 1, 1>} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  // CHECK: exir.alloc {exir.mem = #exir.mem<1, {{[0-9]+}}, 64>}
  %4 = exir.alloc : tensor<16xf32>
  %5 = exir.aten "aten::relu.out"(%3, %4) {operand_segments = array<i32: 1, 1>} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %5 : tensor<16xf32>
}

// -----

// A written buffer is state: planned for the whole method. Parameters are
// constants and are not planned.
// CHECK-LABEL: func.func @state
func.func @state(%w: tensor<4xf32> {exir.input = #exir.input<parameter, "w">},
                 %n: tensor<4xf32> {exir.input = #exir.input<buffer, "n">}) -> tensor<4xf32> {
  // CHECK-SAME: #exir.input<parameter, "w">}
  // CHECK-SAME: #exir.input<buffer, "n">, exir.mem = #exir.mem<1, {{[0-9]+}}, 16>}
  // CHECK-SAME: exir.arena_sizes = array<i64: 0, 32>
  %0 = exir.alloc : tensor<4xf32>
  %1 = exir.aten "aten::add.out"(%n, %w, %0) {alpha = 1 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  exir.copy_ %n, %1 : tensor<4xf32>, tensor<4xf32>
  %2 = exir.alloc : tensor<4xf32>
  %3 = exir.aten "aten::relu.out"(%w, %2) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}
// %0 dies at the copy and %2 starts after it, so they share 16 bytes beside
// the buffer's 16.

// -----

func.func @unplanned(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{result 0 of 'aten::relu' has no planned storage; run exir-to-out-variants first}}
  %0 = exir.aten "aten::relu"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
