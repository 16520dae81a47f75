// A two-layer decoder step with a KV cache per layer, as exported and
// legalized to core ATen: d_model 64, 128 cached positions, 4 new tokens,
// FFN hidden 256. Each layer updates its caches (index_put at the new
// positions) early, then attention reads the updated caches and the FFN
// computes several intermediates. Used by bench/writeback_bench.py.
module {
  exir.weight @"layers.0.wq" "parameter" = dense<0.01> : tensor<64x64xf32>
  exir.weight @"layers.0.wk" "parameter" = dense<0.01> : tensor<64x64xf32>
  exir.weight @"layers.0.wv" "parameter" = dense<0.01> : tensor<64x64xf32>
  exir.weight @"layers.0.wo" "parameter" = dense<0.01> : tensor<64x64xf32>
  exir.weight @"layers.0.w1" "parameter" = dense<0.01> : tensor<64x256xf32>
  exir.weight @"layers.0.w2" "parameter" = dense<0.01> : tensor<256x64xf32>
  exir.weight @"layers.0.k_cache" "buffer" mutable = dense<0.0> : tensor<128x64xf32>
  exir.weight @"layers.0.v_cache" "buffer" mutable = dense<0.0> : tensor<128x64xf32>
  exir.weight @"layers.1.wq" "parameter" = dense<0.01> : tensor<64x64xf32>
  exir.weight @"layers.1.wk" "parameter" = dense<0.01> : tensor<64x64xf32>
  exir.weight @"layers.1.wv" "parameter" = dense<0.01> : tensor<64x64xf32>
  exir.weight @"layers.1.wo" "parameter" = dense<0.01> : tensor<64x64xf32>
  exir.weight @"layers.1.w1" "parameter" = dense<0.01> : tensor<64x256xf32>
  exir.weight @"layers.1.w2" "parameter" = dense<0.01> : tensor<256x64xf32>
  exir.weight @"layers.1.k_cache" "buffer" mutable = dense<0.0> : tensor<128x64xf32>
  exir.weight @"layers.1.v_cache" "buffer" mutable = dense<0.0> : tensor<128x64xf32>
  func.func @forward(%x: tensor<4x64xf32> {exir.input = #exir.input<user_input, "x">},
                     %pos: tensor<4xi64> {exir.input = #exir.input<user_input, "pos">},
                     %wq_0: tensor<64x64xf32> {exir.input = #exir.input<parameter, "layers.0.wq">},
                     %wk_0: tensor<64x64xf32> {exir.input = #exir.input<parameter, "layers.0.wk">},
                     %wv_0: tensor<64x64xf32> {exir.input = #exir.input<parameter, "layers.0.wv">},
                     %wo_0: tensor<64x64xf32> {exir.input = #exir.input<parameter, "layers.0.wo">},
                     %w1_0: tensor<64x256xf32> {exir.input = #exir.input<parameter, "layers.0.w1">},
                     %w2_0: tensor<256x64xf32> {exir.input = #exir.input<parameter, "layers.0.w2">},
                     %wq_1: tensor<64x64xf32> {exir.input = #exir.input<parameter, "layers.1.wq">},
                     %wk_1: tensor<64x64xf32> {exir.input = #exir.input<parameter, "layers.1.wk">},
                     %wv_1: tensor<64x64xf32> {exir.input = #exir.input<parameter, "layers.1.wv">},
                     %wo_1: tensor<64x64xf32> {exir.input = #exir.input<parameter, "layers.1.wo">},
                     %w1_1: tensor<64x256xf32> {exir.input = #exir.input<parameter, "layers.1.w1">},
                     %w2_1: tensor<256x64xf32> {exir.input = #exir.input<parameter, "layers.1.w2">},
                     %k_cache_0: tensor<128x64xf32> {exir.input = #exir.input<buffer, "layers.0.k_cache">},
                     %v_cache_0: tensor<128x64xf32> {exir.input = #exir.input<buffer, "layers.0.v_cache">},
                     %k_cache_1: tensor<128x64xf32> {exir.input = #exir.input<buffer, "layers.1.k_cache">},
                     %v_cache_1: tensor<128x64xf32> {exir.input = #exir.input<buffer, "layers.1.v_cache">})
      -> (tensor<128x64xf32> {exir.output = #exir.output<buffer_mutation, "layers.0.k_cache">},
          tensor<128x64xf32> {exir.output = #exir.output<buffer_mutation, "layers.0.v_cache">},
          tensor<128x64xf32> {exir.output = #exir.output<buffer_mutation, "layers.1.k_cache">},
          tensor<128x64xf32> {exir.output = #exir.output<buffer_mutation, "layers.1.v_cache">},
          tensor<4x64xf32> {exir.output = #exir.output<user_output>}) {
    %v1 = exir.aten "aten::mm"(%x, %wq_0) {operand_segments = array<i32: 1, 1>} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
    %v2 = exir.aten "aten::mm"(%x, %wk_0) {operand_segments = array<i32: 1, 1>} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
    %v3 = exir.aten "aten::mm"(%x, %wv_0) {operand_segments = array<i32: 1, 1>} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
    %v4 = exir.aten "aten::index_put"(%k_cache_0, %pos, %v2) {indices = array<i1: true>, operand_segments = array<i32: 1, 1, 1>} : (tensor<128x64xf32>, tensor<4xi64>, tensor<4x64xf32>) -> tensor<128x64xf32>
    %v5 = exir.aten "aten::index_put"(%v_cache_0, %pos, %v3) {indices = array<i1: true>, operand_segments = array<i32: 1, 1, 1>} : (tensor<128x64xf32>, tensor<4xi64>, tensor<4x64xf32>) -> tensor<128x64xf32>
    %v6 = exir.aten "aten::t_copy"(%v4) {operand_segments = array<i32: 1>} : (tensor<128x64xf32>) -> tensor<64x128xf32>
    %v7 = exir.aten "aten::mm"(%v1, %v6) {operand_segments = array<i32: 1, 1>} : (tensor<4x64xf32>, tensor<64x128xf32>) -> tensor<4x128xf32>
    %v8 = exir.aten "aten::mul.Scalar"(%v7) {other = 0.125 : f64, operand_segments = array<i32: 1>} : (tensor<4x128xf32>) -> tensor<4x128xf32>
    %v9 = exir.aten "aten::_softmax"(%v8) {dim = 1 : i64, half_to_float = false, operand_segments = array<i32: 1>} : (tensor<4x128xf32>) -> tensor<4x128xf32>
    %v10 = exir.aten "aten::mm"(%v9, %v5) {operand_segments = array<i32: 1, 1>} : (tensor<4x128xf32>, tensor<128x64xf32>) -> tensor<4x64xf32>
    %v11 = exir.aten "aten::mm"(%v10, %wo_0) {operand_segments = array<i32: 1, 1>} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
    %v12 = exir.aten "aten::add.Tensor"(%x, %v11) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
    %v13 = exir.aten "aten::mm"(%v12, %w1_0) {operand_segments = array<i32: 1, 1>} : (tensor<4x64xf32>, tensor<64x256xf32>) -> tensor<4x256xf32>
    %v14 = exir.aten "aten::relu"(%v13) {operand_segments = array<i32: 1>} : (tensor<4x256xf32>) -> tensor<4x256xf32>
    %v15 = exir.aten "aten::mm"(%v14, %w2_0) {operand_segments = array<i32: 1, 1>} : (tensor<4x256xf32>, tensor<256x64xf32>) -> tensor<4x64xf32>
    %v16 = exir.aten "aten::add.Tensor"(%v12, %v15) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
    %v17 = exir.aten "aten::mm"(%v16, %wq_1) {operand_segments = array<i32: 1, 1>} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
    %v18 = exir.aten "aten::mm"(%v16, %wk_1) {operand_segments = array<i32: 1, 1>} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
    %v19 = exir.aten "aten::mm"(%v16, %wv_1) {operand_segments = array<i32: 1, 1>} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
    %v20 = exir.aten "aten::index_put"(%k_cache_1, %pos, %v18) {indices = array<i1: true>, operand_segments = array<i32: 1, 1, 1>} : (tensor<128x64xf32>, tensor<4xi64>, tensor<4x64xf32>) -> tensor<128x64xf32>
    %v21 = exir.aten "aten::index_put"(%v_cache_1, %pos, %v19) {indices = array<i1: true>, operand_segments = array<i32: 1, 1, 1>} : (tensor<128x64xf32>, tensor<4xi64>, tensor<4x64xf32>) -> tensor<128x64xf32>
    %v22 = exir.aten "aten::t_copy"(%v20) {operand_segments = array<i32: 1>} : (tensor<128x64xf32>) -> tensor<64x128xf32>
    %v23 = exir.aten "aten::mm"(%v17, %v22) {operand_segments = array<i32: 1, 1>} : (tensor<4x64xf32>, tensor<64x128xf32>) -> tensor<4x128xf32>
    %v24 = exir.aten "aten::mul.Scalar"(%v23) {other = 0.125 : f64, operand_segments = array<i32: 1>} : (tensor<4x128xf32>) -> tensor<4x128xf32>
    %v25 = exir.aten "aten::_softmax"(%v24) {dim = 1 : i64, half_to_float = false, operand_segments = array<i32: 1>} : (tensor<4x128xf32>) -> tensor<4x128xf32>
    %v26 = exir.aten "aten::mm"(%v25, %v21) {operand_segments = array<i32: 1, 1>} : (tensor<4x128xf32>, tensor<128x64xf32>) -> tensor<4x64xf32>
    %v27 = exir.aten "aten::mm"(%v26, %wo_1) {operand_segments = array<i32: 1, 1>} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
    %v28 = exir.aten "aten::add.Tensor"(%v16, %v27) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
    %v29 = exir.aten "aten::mm"(%v28, %w1_1) {operand_segments = array<i32: 1, 1>} : (tensor<4x64xf32>, tensor<64x256xf32>) -> tensor<4x256xf32>
    %v30 = exir.aten "aten::relu"(%v29) {operand_segments = array<i32: 1>} : (tensor<4x256xf32>) -> tensor<4x256xf32>
    %v31 = exir.aten "aten::mm"(%v30, %w2_1) {operand_segments = array<i32: 1, 1>} : (tensor<4x256xf32>, tensor<256x64xf32>) -> tensor<4x64xf32>
    %v32 = exir.aten "aten::add.Tensor"(%v28, %v31) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
    return %v4, %v5, %v20, %v21, %v32 : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<4x64xf32>
  }
}
