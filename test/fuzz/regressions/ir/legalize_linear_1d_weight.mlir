// ir_fuzz: aten::linear with a 1-D weight (valid PyTorch, accepted by the
// shape rules) read past the weight's shape in legalize's transposeLast2
// (ASan/UBSan: SmallVector index out of range). Now an error naming the op.
func.func @forward(%x: tensor<2x3xf32>, %w: tensor<3xf32>) -> tensor<2xf32> {
  %r = exir.aten "aten::linear"(%x, %w) {operand_segments = array<i32: 1, 1, 0>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
