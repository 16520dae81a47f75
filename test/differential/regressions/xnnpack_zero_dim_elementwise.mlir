// Fixed bug (found by inplace_differential, also in a functional program):
// XnnpackBackend takes an elementwise op on a 0-d tensor ahead of time, and
// its runtime refuses the blob when the program loads:
//   backend 'XnnpackBackend' init failed (InvalidArgument): node 0 (XNNAdd,
//   debug handle 0): the output is declared [], the operator produces [1]
// Every --backend xnnpack combination; the others pass. (Either the
// capability refuses rank 0, or the lowering declares it as [1].)
module attributes {exir.phase = "import", exir.version = "1.1"} {
  func.func @forward(%x0: tensor<f32> {exir.input = #exir.input<user_input, "x0">}) -> (tensor<f32> {exir.output = #exir.output<user_output>}) {
    %v0 = exir.aten "aten::add.Scalar"(%x0) {other = 5.000000e-01 : f64, operand_segments = array<i32: 1>} : (tensor<f32>) -> tensor<f32>
    return %v0 : tensor<f32>
  }
}
