// Fixed bug (found by inplace_differential): a write through a diagonal view
// does not compile. exir-functionalize scatters it back with
// aten::diagonal_scatter, which legalize leaves as it is and no portable
// kernel implements:
//   no portable kernel for 'aten::diagonal_scatter.out' (needed by 'aten::diagonal_scatter')
// in every option combination. PyTorch: x.diagonal().add_(0.5); return x * 1
// (x mutated: its final contents are the first output).
module attributes {exir.phase = "import", exir.version = "1.1"} {
  func.func @forward(%x0: tensor<3x3xf32> {exir.input = #exir.input<user_input, "x0">}) -> (tensor<3x3xf32> {exir.output = #exir.output<user_output>}) {
    %v0 = exir.aten "aten::diagonal"(%x0) {dim1 = 0 : i64, dim2 = 1 : i64, offset = 0 : i64, operand_segments = array<i32: 1>} : (tensor<3x3xf32>) -> tensor<3xf32>
    %v1 = exir.aten "aten::add_.Scalar"(%v0) {other = 5.000000e-01 : f64, operand_segments = array<i32: 1>} : (tensor<3xf32>) -> tensor<3xf32>
    %v2 = exir.aten "aten::mul.Scalar"(%x0) {other = 1.000000e+00 : f64, operand_segments = array<i32: 1>} : (tensor<3x3xf32>) -> tensor<3x3xf32>
    return %v2 : tensor<3x3xf32>
  }
}
