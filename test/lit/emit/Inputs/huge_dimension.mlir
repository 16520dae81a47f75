module attributes {exir.phase = "import", exir.version = "1.1"} {
  func.func @forward(%x: tensor<2147483648xf32> {exir.input = #exir.input<user_input, "x">}) -> (tensor<2147483648xf32> {exir.output = #exir.output<user_output>}) {
    %y = exir.aten "aten::neg"(%x) {operand_segments = array<i32: 1>} : (tensor<2147483648xf32>) -> tensor<2147483648xf32>
    return %y : tensor<2147483648xf32>
  }
}
