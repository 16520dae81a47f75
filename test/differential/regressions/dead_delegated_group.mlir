// Found by state_diff (seed 34 of the first generator): an a @ x + b whose
// result nobody uses was grouped for the demo backend and lowered into a
// delegate call without results, which the backend refused: a compile error
// on a valid program. Dead groups are now dropped by partitioning.
module attributes {exir.phase = "import", exir.version = "1.1"} {
  exir.weight @b2 "buffer" mutable = dense<[[0.983, 0.545], [-0.178, -0.769]]> : tensor<2x2xf32>
  func.func @forward(%b2: tensor<2x2xf32> {exir.input = #exir.input<buffer, "b2">},
                     %x0: tensor<2x2xf32> {exir.input = #exir.input<user_input, "x0">},
                     %m0: tensor<2x2xf32> {exir.input = #exir.input<user_input, "m0">})
      -> (tensor<2x2xf32> {exir.output = #exir.output<buffer_mutation, "b2">},
          tensor<2x2xf32> {exir.output = #exir.output<user_input_mutation, "m0">},
          tensor<2x2xf32> {exir.output = #exir.output<user_output>}) {
    %v2 = exir.aten "aten::mm"(%m0, %x0) {operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %v3 = exir.aten "aten::add.Tensor"(%v2, %b2) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %v6 = exir.aten "aten::t"(%b2) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %v11 = exir.aten "aten::clone"(%v6) {memory_format = #exir.none, operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %v9 = exir.aten "aten::mm"(%x0, %v6) {operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    return %v11, %v9, %v6 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
  }
}
