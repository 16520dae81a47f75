// Fixed wrong result (state semantics): outputs [b <- b + 1, a <- b]. Every state takes
// the value computed from the OLD states, so `a` must receive the old `b`
// (copies used to follow output order and gave `a` the new `b`), plus a swap
// [p <- q, q <- p] that needs a snapshot.
module attributes {exir.phase = "import", exir.version = "1.1"} {
  exir.weight @b "buffer" mutable = dense<[[0.5, -0.25], [1.0, 0.75]]> : tensor<2x2xf32>
  exir.weight @a "buffer" mutable = dense<[[2.0, 3.0], [4.0, 5.0]]> : tensor<2x2xf32>
  exir.weight @p "buffer" mutable = dense<[[1.0, 1.0], [1.0, 1.0]]> : tensor<2x2xf32>
  exir.weight @q "buffer" mutable = dense<[[-1.0, -2.0], [-3.0, -4.0]]> : tensor<2x2xf32>
  func.func @forward(%b: tensor<2x2xf32> {exir.input = #exir.input<buffer, "b">},
                     %a: tensor<2x2xf32> {exir.input = #exir.input<buffer, "a">},
                     %p: tensor<2x2xf32> {exir.input = #exir.input<buffer, "p">},
                     %q: tensor<2x2xf32> {exir.input = #exir.input<buffer, "q">},
                     %x: tensor<2x2xf32> {exir.input = #exir.input<user_input, "x">})
      -> (tensor<2x2xf32> {exir.output = #exir.output<buffer_mutation, "b">},
          tensor<2x2xf32> {exir.output = #exir.output<buffer_mutation, "a">},
          tensor<2x2xf32> {exir.output = #exir.output<buffer_mutation, "p">},
          tensor<2x2xf32> {exir.output = #exir.output<buffer_mutation, "q">},
          tensor<2x2xf32> {exir.output = #exir.output<user_output>}) {
    %nb = exir.aten "aten::add.Scalar"(%b) {alpha = 1 : i64, other = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %o = exir.aten "aten::mul.Tensor"(%a, %x) {operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    return %nb, %b, %q, %p, %o : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
  }
}
