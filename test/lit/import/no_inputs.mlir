// RUN: aot-compile %models/no_inputs/model.pt2 --compile-to=import | FileCheck %s

// No user inputs: only parameters. Factory ops get every default filled in
// (dtype as a type, layout and device as strings).

// CHECK-LABEL: func.func @forward(
// CHECK-NOT: user_input
// CHECK-SAME: -> (tensor<3x4xf32> {exir.output = #exir.output<user_output>})
// CHECK: exir.aten "aten::full"() {device = "cpu", dtype = f32, fill_value = 1 : i64, layout = "strided", operand_segments = array<i32>, pin_memory = false, size = array<i64: 3, 4>} : () -> tensor<3x4xf32>
// CHECK: exir.aten "aten::mul.Tensor"
// CHECK: exir.aten "aten::add.Tensor"
