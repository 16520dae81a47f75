// A slice whose end is a symbolic int (here s - s % 2) and whose value at the
// bound is the whole dimension has the same type as its operand: legalize
// took it for an identity slice and dropped it, so every run-time size where
// the end is below the rows (odd sizes, and 1) returned all rows. Found by
// state_diff --dynamic (seed 58 and six others in the first 1000).
module attributes {exir.phase = "import", exir.version = "1.2"} {
  func.func @forward(%x: tensor<8x2xf32> {exir.dynamic_dims = array<i64: 0>, exir.input = #exir.input<user_input, "x">}) -> (tensor<8x2xf32> {exir.output = #exir.output<user_output>}) {
    %s1 = exir.sym_size %x, 0 : tensor<8x2xf32>
    %s2 = exir.sym_const 2
    %s3 = exir.sym "mod"(%s1, %s2) : (i64, i64) -> i64
    %s4 = exir.sym "sub"(%s1, %s3) : (i64, i64) -> i64
    %v0 = exir.aten "aten::slice.Tensor"(%x, %s4) {dim = 0 : i64, end = 8 : i64, start = 0 : i64, step = 1 : i64, exir.sym_args = ["end"], operand_segments = array<i32: 1>} : (tensor<8x2xf32>, i64) -> tensor<8x2xf32>
    %v1 = exir.aten "aten::neg"(%v0) {operand_segments = array<i32: 1>} : (tensor<8x2xf32>) -> tensor<8x2xf32>
    return %v1 : tensor<8x2xf32>
  }
}
