// Shape rules of the composite NN ops (dialects/exir/IR/ShapeRulesCompositeNN.cpp):
// each rule refuses arguments PyTorch refuses and results it would not give.
// RUN: ptec-opt %s --exir-verify-each --split-input-file --verify-diagnostics

func.func @gru_state_wrong_layers(%x: tensor<2x2x4xf32>, %h: tensor<1x2x3xf32>, %a: tensor<9x4xf32>, %b: tensor<9x3xf32>) -> (tensor<2x2x3xf32>, tensor<1x2x3xf32>) {
  // expected-error @+1 {{initial state float32[1, 2, 3] must be [num_layers * directions = 2, batch = 2, hidden] of float32}}
  %o:2 = exir.aten "aten::gru.input"(%x, %h, %a, %b) {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = true, batch_first = false, operand_segments = array<i32: 1, 1, 2>} : (tensor<2x2x4xf32>, tensor<1x2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>) -> (tensor<2x2x3xf32>, tensor<1x2x3xf32>)
  return %o#0, %o#1 : tensor<2x2x3xf32>, tensor<1x2x3xf32>
}

// -----

func.func @lstm_output_features(%x: tensor<2x3x4xf32>, %h: tensor<1x2x3xf32>, %c: tensor<1x2x5xf32>, %a: tensor<20x4xf32>, %b: tensor<20x3xf32>, %r: tensor<3x5xf32>) -> (tensor<2x3x5xf32>, tensor<1x2x3xf32>, tensor<1x2x5xf32>) {
  // expected-error @+1 {{result #0 is declared float32[2, 3, 5], but the operator produces float32[2, 3, 3]}}
  %o:3 = exir.aten "aten::lstm.input"(%x, %h, %c, %a, %b, %r) {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, batch_first = true, operand_segments = array<i32: 1, 2, 3>} : (tensor<2x3x4xf32>, tensor<1x2x3xf32>, tensor<1x2x5xf32>, tensor<20x4xf32>, tensor<20x3xf32>, tensor<3x5xf32>) -> (tensor<2x3x5xf32>, tensor<1x2x3xf32>, tensor<1x2x5xf32>)
  return %o#0, %o#1, %o#2 : tensor<2x3x5xf32>, tensor<1x2x3xf32>, tensor<1x2x5xf32>
}

// -----

func.func @cell_state_dtype(%x: tensor<2x3xf32>, %h: tensor<2x2xf64>, %a: tensor<6x3xf32>, %b: tensor<6x2xf32>) -> tensor<2x2xf64> {
  // expected-error @+1 {{the state must be a tensor of the input's dtype}}
  %g = exir.aten "aten::gru_cell"(%x, %h, %a, %b) {operand_segments = array<i32: 1, 1, 1, 1, 0, 0>} : (tensor<2x3xf32>, tensor<2x2xf64>, tensor<6x3xf32>, tensor<6x2xf32>) -> tensor<2x2xf64>
  return %g : tensor<2x2xf64>
}

// -----

func.func @conv_mode_bad_padding(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x2x2xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{padding must be 'valid' or 'same', got 'full'}}
  %c = exir.aten "aten::_convolution_mode"(%x, %w) {stride = array<i64: 1, 1>, padding = "full", dilation = array<i64: 1, 1>, groups = 1 : i64, operand_segments = array<i32: 1, 1, 0>} : (tensor<1x2x4x4xf32>, tensor<3x2x2x2xf32>) -> tensor<1x3x4x4xf32>
  return %c : tensor<1x3x4x4xf32>
}

// -----

func.func @thnn_conv2d_channels(%x: tensor<1x3x4x4xf32>, %w: tensor<3x2x2x2xf32>) -> tensor<1x3x3x3xf32> {
  // expected-error @+1 {{'weight' float32[3, 2, 2, 2] with groups=1 does not take the 3 channels of float32[1, 3, 4, 4]}}
  %c = exir.aten "aten::thnn_conv2d"(%x, %w) {kernel_size = array<i64: 2, 2>, operand_segments = array<i32: 1, 1, 0>} : (tensor<1x3x4x4xf32>, tensor<3x2x2x2xf32>) -> tensor<1x3x3x3xf32>
  return %c : tensor<1x3x3x3xf32>
}

// -----

func.func @max_pool1d_indices_padding(%x: tensor<1x2x6xf32>) -> (tensor<1x2x4xf32>, tensor<1x2x4xi64>) {
  // expected-error @+1 {{padding must be at most half of the kernel}}
  %m:2 = exir.aten "aten::max_pool1d_with_indices"(%x) {kernel_size = array<i64: 2>, stride = array<i64>, padding = array<i64: 2>, dilation = array<i64: 1>, ceil_mode = false, operand_segments = array<i32: 1>} : (tensor<1x2x6xf32>) -> (tensor<1x2x4xf32>, tensor<1x2x4xi64>)
  return %m#0, %m#1 : tensor<1x2x4xf32>, tensor<1x2x4xi64>
}

// -----

func.func @adaptive_max_pool3d_sizes(%x: tensor<1x2x4x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) {
  // expected-error @+1 {{'output_size' [2, 2] must have 1 or 3 entries}}
  %m:2 = exir.aten "aten::adaptive_max_pool3d"(%x) {output_size = array<i64: 2, 2>, operand_segments = array<i32: 1>} : (tensor<1x2x4x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  return %m#0, %m#1 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>
}

// -----

func.func @max_unpool_indices_dtype(%x: tensor<1x2x2x2xf32>, %i: tensor<1x2x2x2xi32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+1 {{'indices' int32[1, 2, 2, 2] must be int64 shaped like float32[1, 2, 2, 2]}}
  %a = exir.aten "aten::max_unpool2d"(%x, %i) {output_size = array<i64: 4, 4>, operand_segments = array<i32: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi32>) -> tensor<1x2x4x4xf32>
  return %a : tensor<1x2x4x4xf32>
}

// -----

func.func @upsample3d_rank(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x8x8x8xf32> {
  // expected-error @+1 {{'input' must have 5 dims, got float32[1, 2, 4, 4]}}
  %a = exir.aten "aten::upsample_nearest3d.vec"(%x) {output_size = array<i64: 8, 8, 8>, scale_factors = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8x8xf32>
  return %a : tensor<1x2x8x8x8xf32>
}

// -----

func.func @upsample1d_scale_and_size(%x: tensor<1x2x4xf32>) -> tensor<1x2x8xf32> {
  // expected-error @+1 {{give exactly one of output_size and scale_factors}}
  %a = exir.aten "aten::upsample_linear1d.vec"(%x) {output_size = array<i64: 8>, align_corners = false, scale_factors = array<f64: 2.0>, operand_segments = array<i32: 1>} : (tensor<1x2x4xf32>) -> tensor<1x2x8xf32>
  return %a : tensor<1x2x8xf32>
}

// -----

func.func @upsample_bicubic_scaled_size(%x: tensor<1x2x4x5xf32>) -> tensor<1x2x6x8xf32> {
  // expected-error @+1 {{result #0 is declared float32[1, 2, 6, 8], but the operator produces float32[1, 2, 6, 7]}}
  %a = exir.aten "aten::upsample_bicubic2d.vec"(%x) {output_size = #exir.none, align_corners = false, scale_factors = array<f64: 1.5, 1.5>, operand_segments = array<i32: 1>} : (tensor<1x2x4x5xf32>) -> tensor<1x2x6x8xf32>
  return %a : tensor<1x2x6x8xf32>
}

// -----

func.func @grid_sampler_grid_last_dim(%x: tensor<1x2x3x3x3xf32>, %g: tensor<1x2x2x2x2xf32>) -> tensor<1x2x2x2x2xf32> {
  // expected-error @+1 {{'grid' float32[1, 2, 2, 2, 2] must be [N, spatial..., 3] with the batch size of 'input' float32[1, 2, 3, 3, 3]}}
  %a = exir.aten "aten::grid_sampler"(%x, %g) {interpolation_mode = 0 : i64, padding_mode = 0 : i64, align_corners = false, operand_segments = array<i32: 1, 1>} : (tensor<1x2x3x3x3xf32>, tensor<1x2x2x2x2xf32>) -> tensor<1x2x2x2x2xf32>
  return %a : tensor<1x2x2x2x2xf32>
}

// -----

func.func @affine_grid_theta(%t: tensor<2x3x3xf32>) -> tensor<2x3x4x2xf32> {
  // expected-error @+1 {{'theta' float32[2, 3, 3] must be a floating [2, 2, 3] for size [2, 1, 3, 4]}}
  %b = exir.aten "aten::affine_grid_generator"(%t) {size = array<i64: 2, 1, 3, 4>, align_corners = false, operand_segments = array<i32: 1>} : (tensor<2x3x3xf32>) -> tensor<2x3x4x2xf32>
  return %b : tensor<2x3x4x2xf32>
}
