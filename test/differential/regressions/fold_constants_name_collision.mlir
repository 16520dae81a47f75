// Fixed bug (found by inplace_differential as seed 1804, reduced to this
// functional program): exir-fold-constants folds both transposes of the
// (never written) buffer b1 and names both results 'b1@transpose_copy.int';
// their types differ ([3, 4] and, for dim0 = dim1, [4, 3]) and the second
// fold fails in every option combination:
//   folded constant 'b1@transpose_copy.int' already exists with another type
// (Two folds of one op on one weight with the same type and different
// arguments are fine: slices [0:2] and [2:4] compile and agree.)
module attributes {exir.phase = "import", exir.version = "1.1"} {
  exir.weight @b1 "buffer" = dense<[[0.724, -0.780, -0.166], [0.751, 0.735, 0.325], [0.768, 0.288, 0.681], [0.501, 0.147, 0.975]]> : tensor<4x3xf32>
  func.func @forward(%b1: tensor<4x3xf32> {exir.input = #exir.input<buffer, "b1">}, %x0: tensor<4x3xf32> {exir.input = #exir.input<user_input, "x0">}) -> (tensor<3x4xf32> {exir.output = #exir.output<user_output>}, tensor<4x3xf32> {exir.output = #exir.output<user_output>}) {
    %v10 = exir.aten "aten::transpose.int"(%b1) {dim0 = 0 : i64, dim1 = 1 : i64, operand_segments = array<i32: 1>} : (tensor<4x3xf32>) -> tensor<3x4xf32>
    %v11 = exir.aten "aten::transpose.int"(%b1) {dim0 = 0 : i64, dim1 = 0 : i64, operand_segments = array<i32: 1>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
    return %v10, %v11 : tensor<3x4xf32>, tensor<4x3xf32>
  }
}
