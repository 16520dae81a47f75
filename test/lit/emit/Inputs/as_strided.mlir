module attributes {exir.phase = "import", exir.version = "1.1"} {
  func.func @forward(%x: tensor<2x3xf32> {exir.input = #exir.input<user_input, "x">}, %v: tensor<2x2xf32> {exir.input = #exir.input<user_input, "v">}) -> (tensor<3x2xf32> {exir.output = #exir.output<user_output>}, tensor<2xf32> {exir.output = #exir.output<user_output>}, tensor<2x3xf32> {exir.output = #exir.output<user_output>}) {
    %t = exir.aten "aten::as_strided"(%x) {size = array<i64: 3, 2>, stride = array<i64: 1, 3>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %o = exir.aten "aten::as_strided"(%x) {size = array<i64: 2>, stride = array<i64: 2>, storage_offset = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
    %s = exir.aten "aten::as_strided_scatter"(%x, %v) {size = array<i64: 2, 2>, stride = array<i64: 3, 1>, storage_offset = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x3xf32>
    return %t, %o, %s : tensor<3x2xf32>, tensor<2xf32>, tensor<2x3xf32>
  }
}
