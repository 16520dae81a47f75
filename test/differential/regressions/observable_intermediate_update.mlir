// Fixed wrong result (state semantics): in the chain cache -> %1 -> %2, the intermediate
// %1 is a user output and another buffer's new value. Making link 1 in place
// would let the write-back of %2 overwrite what the caller reads.
module attributes {exir.phase = "import", exir.version = "1.1"} {
  exir.weight @cache "buffer" mutable = dense<[[0.5, -0.25], [1.0, 0.75], [2.0, 3.0], [4.0, 5.0]]> : tensor<4x2xf32>
  exir.weight @snap "buffer" mutable = dense<0.0> : tensor<4x2xf32>
  func.func @forward(%cache: tensor<4x2xf32> {exir.input = #exir.input<buffer, "cache">},
                     %snap: tensor<4x2xf32> {exir.input = #exir.input<buffer, "snap">},
                     %k: tensor<2x2xf32> {exir.input = #exir.input<user_input, "k">},
                     %v: tensor<2x2xf32> {exir.input = #exir.input<user_input, "v">})
      -> (tensor<4x2xf32> {exir.output = #exir.output<buffer_mutation, "cache">},
          tensor<4x2xf32> {exir.output = #exir.output<buffer_mutation, "snap">},
          tensor<4x2xf32> {exir.output = #exir.output<user_output>}) {
    %1 = exir.aten "aten::slice_scatter"(%cache, %k) {dim = 0 : i64, start = 0 : i64, end = 2 : i64, step = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
    %2 = exir.aten "aten::slice_scatter"(%1, %v) {dim = 0 : i64, start = 2 : i64, end = 4 : i64, step = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
    return %2, %1, %1 : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
  }
}
