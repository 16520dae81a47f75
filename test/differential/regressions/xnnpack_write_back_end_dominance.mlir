// Found by inplace_differential (seed 272), reduced to a functional program.
// With --backend xnnpack --write-back end the partition made two XNNPACK
// groups that depend on each other through portable ops: group A = {add,
// unsqueeze, add(mm, .)}, group B = {view(sub(unsqueeze)), relu}; A feeds
// sub feeds B, B feeds mm feeds A's last add. Each op's own producers did
// not reach A, so the old check let the last add join A, and wrapping the
// groups left a use before its definition ("operand #0 does not dominate
// this use"). A group is one region, so the check now follows group edges.
module attributes {exir.phase = "import", exir.version = "1.1"} {
  exir.weight @b0 "buffer" mutable = dense<[[-0.334, -0.115], [-0.589, 0.318]]> : tensor<2x2xf32>
  func.func @forward(%b0: tensor<2x2xf32> {exir.input = #exir.input<buffer, "b0">}, %x1: tensor<2x3xf32> {exir.input = #exir.input<user_input, "x1">}) -> (tensor<2x2xf32> {exir.output = #exir.output<buffer_mutation, "b0">}, tensor<2x3xf32> {exir.output = #exir.output<user_input_mutation, "x1">}, tensor<2x2xf32> {exir.output = #exir.output<user_output>}) {
    %1 = exir.aten "aten::add.Tensor"(%b0, %b0) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %3 = exir.aten "aten::unsqueeze"(%x1) {dim = 0 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
    %4 = exir.aten "aten::sub.Tensor"(%3, %3) {alpha = -2.500000e-01 : f64, operand_segments = array<i32: 1, 1>} : (tensor<1x2x3xf32>, tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
    %5 = exir.aten "aten::view"(%4) {size = array<i64: 2, 3>, operand_segments = array<i32: 1>} : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
    %7 = exir.aten "aten::relu"(%b0) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %8 = exir.aten "aten::mm"(%7, %7) {operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %9 = exir.aten "aten::add.Tensor"(%8, %1) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    return %7, %5, %9 : tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>
  }
}
