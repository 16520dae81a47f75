module attributes {exir.phase = "import", exir.version = "1.1"} {
  func.func @forward(%x: tensor<2x6xf32> {exir.input = #exir.input<user_input, "x">}) -> (tensor<2x2xf32> {exir.output = #exir.output<user_output>}, tensor<2x4xf32> {exir.output = #exir.output<user_output>}, tensor<2x3xf32> {exir.output = #exir.output<user_output>}, tensor<2x3xf32> {exir.output = #exir.output<user_output>}, tensor<2xf32> {exir.output = #exir.output<user_output>}) {
    %a:2 = exir.aten "aten::split_with_sizes"(%x) {split_sizes = array<i64: 2, 4>, dim = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2x6xf32>) -> (tensor<2x2xf32>, tensor<2x4xf32>)
    %b:2 = exir.aten "aten::split.Tensor"(%x) {split_size = 3 : i64, dim = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
    %c:2 = exir.aten "aten::unbind.int"(%a#0) {dim = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    return %a#0, %a#1, %b#0, %b#1, %c#1 : tensor<2x2xf32>, tensor<2x4xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>
  }
}
