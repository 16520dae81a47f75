// Reshapes after outlining (no constant folding left to run): a reshape of a
// planned input and of an intermediate alias their storage; a reshape of a
// constant weight (not planned) becomes executorch_prim::et_view.
module attributes {exir.phase = "outline", exir.version = "1.1"} {
  exir.weight @w "constant" = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  func.func @forward(%w: tensor<2x2xf32> {exir.input = #exir.input<constant, "w">},
                     %x: tensor<2x2xf32> {exir.input = #exir.input<user_input, "x">})
      -> (tensor<4xf32> {exir.output = #exir.output<user_output>},
          tensor<1x4xf32> {exir.output = #exir.output<user_output>},
          tensor<4xf32> {exir.output = #exir.output<user_output>}) {
    %r = exir.aten "aten::relu"(%x) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %a = exir.aten "aten::view_copy"(%r) {size = array<i64: 4>, operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<4xf32>
    %b = exir.aten "aten::unsqueeze_copy"(%a) {dim = 0 : i64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<1x4xf32>
    %c = exir.aten "aten::view_copy"(%w) {size = array<i64: 4>, operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<4xf32>
    return %a, %b, %c : tensor<4xf32>, tensor<1x4xf32>, tensor<4xf32>
  }
}
