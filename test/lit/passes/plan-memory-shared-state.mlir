// RUN: ptec-opt %s --split-input-file --exir-plan-memory=share-mutable-buffers=true --verify-diagnostics | FileCheck %s
// RUN: ptec-opt %s --split-input-file --exir-plan-memory | FileCheck %s --check-prefix=OWN

// Two methods share the buffers either of them writes: one place per FQN in
// arena 2 (sorted by FQN: "a" at 0, "b" at 64), the same in both methods and
// also where a method only reads it ("b" in @decode); arena 2 has the same
// size everywhere. A buffer nobody writes ("c") stays a constant. Without the
// option every method plans its own written buffers in arena 1.
// CHECK-LABEL: func.func @decode
// CHECK-SAME: #exir.input<buffer, "b">, exir.mem = #exir.mem<2, 64, 16>}
// CHECK-SAME: #exir.input<buffer, "a">, exir.mem = #exir.mem<2, 0, 64>}
// CHECK-SAME: #exir.input<buffer, "c">}
// CHECK-SAME: exir.arena_sizes = array<i64: 0, {{[0-9]+}}, 80>
// CHECK-LABEL: func.func @prefill
// CHECK-SAME: #exir.input<buffer, "a">, exir.mem = #exir.mem<2, 0, 64>}
// CHECK-SAME: #exir.input<buffer, "b">, exir.mem = #exir.mem<2, 64, 16>}
// CHECK-SAME: exir.arena_sizes = array<i64: 0, {{[0-9]+}}, 80>
// OWN-LABEL: func.func @decode
// OWN-SAME: #exir.input<buffer, "b">}
// OWN-SAME: #exir.input<buffer, "a">, exir.mem = #exir.mem<1,
// OWN-SAME: exir.arena_sizes = array<i64: 0, {{[0-9]+}}>
// OWN-LABEL: func.func @prefill
// OWN-SAME: #exir.input<buffer, "b">, exir.mem = #exir.mem<1,
func.func @decode(%b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">},
                  %a: tensor<16xf32> {exir.input = #exir.input<buffer, "a">},
                  %c: tensor<4xf32> {exir.input = #exir.input<buffer, "c">},
                  %x: tensor<16xf32> {exir.input = #exir.input<user_input>}) -> tensor<4xf32> {
  exir.copy_ %a, %x : tensor<16xf32>, tensor<16xf32>
  %0 = exir.alloc : tensor<4xf32>
  %1 = exir.aten "aten::add.out"(%b, %c, %0) {alpha = 1 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func @prefill(%a: tensor<16xf32> {exir.input = #exir.input<buffer, "a">},
                   %b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">},
                   %x: tensor<4xf32> {exir.input = #exir.input<user_input>}) -> tensor<16xf32> {
  exir.copy_ %b, %x : tensor<4xf32>, tensor<4xf32>
  %0 = exir.alloc : tensor<16xf32>
  %1 = exir.aten "aten::relu.out"(%a, %0) {operand_segments = array<i32: 1, 1>} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %1 : tensor<16xf32>
}

// -----

// One name, two shapes: the methods cannot share it.
func.func @prefill(%k: tensor<8xf32> {exir.input = #exir.input<buffer, "k">},
                   %x: tensor<8xf32> {exir.input = #exir.input<user_input>}) {
  exir.copy_ %k, %x : tensor<8xf32>, tensor<8xf32>
  return
}
// expected-error @+1 {{mutable buffer 'k' is 'tensor<4xf32>' in method 'decode' but 'tensor<8xf32>' in method 'prefill'; methods can only share a buffer of one dtype and shape}}
func.func @decode(%k: tensor<4xf32> {exir.input = #exir.input<buffer, "k">},
                  %x: tensor<4xf32> {exir.input = #exir.input<user_input>}) {
  return
}
