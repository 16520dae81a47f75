// Fixed bug, the same as fold_constants_name_collision.mlir with another op
// (found by inplace_differential as seed 432 after a fix for transpose's
// dims): exir-fold-constants names the folds of both unsqueezes of buffer b2
// 'b2@unsqueeze_copy' ([2, 1, 3] and [1, 2, 3]), and the second fails in
// every option combination:
//   folded constant 'b2@unsqueeze_copy' already exists with another type
// The name leaves out arguments that decide the result (dim here), so any
// op folded twice on one weight with such arguments can collide.
module attributes {exir.phase = "import", exir.version = "1.1"} {
  exir.weight @b2 "buffer" = dense<[[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]> : tensor<2x3xf32>
  func.func @forward(%b2: tensor<2x3xf32> {exir.input = #exir.input<buffer, "b2">}, %x0: tensor<2x3xf32> {exir.input = #exir.input<user_input, "x0">}) -> (tensor<2x3xf32> {exir.output = #exir.output<user_output>}) {
    %a = exir.aten "aten::unsqueeze"(%b2) {dim = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
    %b = exir.aten "aten::unsqueeze"(%b2) {dim = 0 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
    %c = exir.aten "aten::neg"(%x0) {operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    return %c : tensor<2x3xf32>
  }
}
