// Fixed wrong result (state semantics): the delegated mm (demo backend) reads the OLD
// cache; the cache update between the mm and its add is made in place by
// re-inplacing. The update used to look pure, so partitioning sank the mm
// after it and the mm read the NEW cache (--backend none was right).
module attributes {exir.phase = "import", exir.version = "1.1"} {
  exir.weight @cache "buffer" mutable = dense<[[0.5, -0.25], [1.0, 0.75]]> : tensor<2x2xf32>
  func.func @forward(%cache: tensor<2x2xf32> {exir.input = #exir.input<buffer, "cache">},
                     %a: tensor<2x2xf32> {exir.input = #exir.input<user_input, "a">},
                     %row: tensor<2xf32> {exir.input = #exir.input<user_input, "row">},
                     %b: tensor<2x2xf32> {exir.input = #exir.input<user_input, "b">})
      -> (tensor<2x2xf32> {exir.output = #exir.output<buffer_mutation, "cache">},
          tensor<2x2xf32> {exir.output = #exir.output<user_output>}) {
    %m = exir.aten "aten::mm"(%a, %cache) {operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %n = exir.aten "aten::select_scatter"(%cache, %row) {dim = 0 : i64, index = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
    %o = exir.aten "aten::add.Tensor"(%m, %b) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    return %n, %o : tensor<2x2xf32>, tensor<2x2xf32>
  }
}
