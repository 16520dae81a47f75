// An embedding lookup whose indices come from the user: an index past the
// table fails at run time, and the program's stack traces name the line.
module attributes {exir.phase = "outline", exir.version = "1.1"} {
  exir.weight @table "parameter" = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  func.func @forward(%t: tensor<3x2xf32> {exir.input = #exir.input<parameter, "table">},
                     %i: tensor<2xi64> {exir.input = #exir.input<user_input, "i">})
      -> (tensor<2x2xf32> {exir.output = #exir.output<user_output>}) {
    %e = exir.aten "aten::embedding"(%t, %i) {operand_segments = array<i32: 1, 1>} : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<2x2xf32> loc("emb"("model.py":12:0))
    %r = exir.aten "aten::relu"(%e) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32> loc("act"(unknown))
    return %r : tensor<2x2xf32>
  }
}
