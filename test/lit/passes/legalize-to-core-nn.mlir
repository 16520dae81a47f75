// RUN: ptec-opt %s --split-input-file --exir-verify-each --exir-legalize-to-core --verify-diagnostics | FileCheck %s
//
// The NN family of legalize-to-core-aten (passes/LegalizeRnn.cpp, LegalizeNN.cpp,
// LegalizeResample.cpp): each op, what it becomes, and every refusal.

// gru.input: one addmm for the whole sequence's input projection, then per step an addmm, the r/z/n gates (sigmoid, sigmoid, tanh) and the blend; steps stacked.
// CHECK-LABEL: func.func @gru
// CHECK: %[[WIH:.*]] = exir.aten "aten::permute_copy"(%{{.*}}) {dims = array<i64: 1, 0>{{.*}} -> tensor<4x9xf32>
// CHECK: exir.aten "aten::addmm"({{.*}}) {{.*}} -> tensor<4x9xf32>
// CHECK-COUNT-2: exir.aten "aten::sigmoid"
// CHECK: exir.aten "aten::tanh"
// CHECK: exir.aten "aten::stack"({{.*}}) {dim = 0 : i64{{.*}} -> tensor<2x2x3xf32>
// CHECK-NOT: aten::gru.input
func.func @gru(%x: tensor<2x2x4xf32>, %h: tensor<1x2x3xf32>, %wih: tensor<9x4xf32>, %whh: tensor<9x3xf32>, %bih: tensor<9xf32>, %bhh: tensor<9xf32>) -> (tensor<2x2x3xf32>, tensor<1x2x3xf32>) {
  %o:2 = exir.aten "aten::gru.input"(%x, %h, %wih, %whh, %bih, %bhh) {has_biases = true, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, batch_first = false, operand_segments = array<i32: 1, 1, 4>} : (tensor<2x2x4xf32>, tensor<1x2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>) -> (tensor<2x2x3xf32>, tensor<1x2x3xf32>)
  return %o#0, %o#1 : tensor<2x2x3xf32>, tensor<1x2x3xf32>
}

// -----

// lstm.input with a projection (h0 narrower than c0): no biases (mm), the gates, h projected by W_hr after every step; three results.
// CHECK-LABEL: func.func @lstm_proj
// CHECK-NOT: aten::addmm
// CHECK: exir.aten "aten::mm"({{.*}}) {{.*}} -> tensor<3x8xf32>
// CHECK-COUNT-3: exir.aten "aten::sigmoid"
// CHECK: exir.aten "aten::mm"({{.*}}) {{.*}} -> tensor<3x1xf32>
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x3x1xf32>, tensor<1x3x1xf32>, tensor<1x3x2xf32>
func.func @lstm_proj(%x: tensor<1x3x4xf32>, %h: tensor<1x3x1xf32>, %c: tensor<1x3x2xf32>, %wih: tensor<8x4xf32>, %whh: tensor<8x1xf32>, %whr: tensor<1x2xf32>) -> (tensor<1x3x1xf32>, tensor<1x3x1xf32>, tensor<1x3x2xf32>) {
  %o:3 = exir.aten "aten::lstm.input"(%x, %h, %c, %wih, %whh, %whr) {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, batch_first = false, operand_segments = array<i32: 1, 2, 3>} : (tensor<1x3x4xf32>, tensor<1x3x1xf32>, tensor<1x3x2xf32>, tensor<8x4xf32>, tensor<8x1xf32>, tensor<1x2xf32>) -> (tensor<1x3x1xf32>, tensor<1x3x1xf32>, tensor<1x3x2xf32>)
  return %o#0, %o#1, %o#2 : tensor<1x3x1xf32>, tensor<1x3x1xf32>, tensor<1x3x2xf32>
}

// -----

// rnn_tanh.input, bidirectional and batch_first: transposed in, both directions concatenated on the features, transposed out.
// CHECK-LABEL: func.func @rnn_tanh_bidir
// CHECK: exir.aten "aten::permute_copy"(%{{.*}}) {dims = array<i64: 1, 0, 2>{{.*}} -> tensor<2x1x3xf32>
// CHECK: exir.aten "aten::tanh"
// CHECK: exir.aten "aten::cat"({{.*}}) {dim = 2 : i64{{.*}} -> tensor<2x1x4xf32>
// CHECK: exir.aten "aten::permute_copy"(%{{.*}}) {dims = array<i64: 1, 0, 2>{{.*}} -> tensor<1x2x4xf32>
func.func @rnn_tanh_bidir(%x: tensor<1x2x3xf32>, %h: tensor<2x1x2xf32>, %a: tensor<2x3xf32>, %b: tensor<2x2xf32>, %c: tensor<2x3xf32>, %d: tensor<2x2xf32>) -> (tensor<1x2x4xf32>, tensor<2x1x2xf32>) {
  %o:2 = exir.aten "aten::rnn_tanh.input"(%x, %h, %a, %b, %c, %d) {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = true, batch_first = true, operand_segments = array<i32: 1, 1, 4>} : (tensor<1x2x3xf32>, tensor<2x1x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>) -> (tensor<1x2x4xf32>, tensor<2x1x2xf32>)
  return %o#0, %o#1 : tensor<1x2x4xf32>, tensor<2x1x2xf32>
}

// -----

// rnn_relu.input and the four cells: relu / tanh / the gates, no cell op left.
// CHECK-LABEL: func.func @relu_and_cells
// CHECK: exir.aten "aten::relu"
// CHECK-NOT: aten::rnn_relu.input
// CHECK-NOT: _cell"
func.func @relu_and_cells(%x: tensor<1x2x3xf32>, %h: tensor<1x2x2xf32>, %a: tensor<2x3xf32>, %b: tensor<2x2xf32>, %x2: tensor<2x3xf32>, %h2: tensor<2x2xf32>, %g1: tensor<6x3xf32>, %g2: tensor<6x2xf32>, %l1: tensor<8x3xf32>, %l2: tensor<8x2xf32>, %bias: tensor<2xf32>) -> (tensor<1x2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %o:2 = exir.aten "aten::rnn_relu.input"(%x, %h, %a, %b) {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, batch_first = false, operand_segments = array<i32: 1, 1, 2>} : (tensor<1x2x3xf32>, tensor<1x2x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>) -> (tensor<1x2x2xf32>, tensor<1x2x2xf32>)
  %g = exir.aten "aten::gru_cell"(%x2, %h2, %g1, %g2) {operand_segments = array<i32: 1, 1, 1, 1, 0, 0>} : (tensor<2x3xf32>, tensor<2x2xf32>, tensor<6x3xf32>, tensor<6x2xf32>) -> tensor<2x2xf32>
  %l:2 = exir.aten "aten::lstm_cell"(%x2, %h2, %h2, %l1, %l2) {operand_segments = array<i32: 1, 2, 1, 1, 0, 0>} : (tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<8x3xf32>, tensor<8x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  %t = exir.aten "aten::rnn_tanh_cell"(%x2, %h2, %a, %b, %bias, %bias) {operand_segments = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %r = exir.aten "aten::rnn_relu_cell"(%x2, %h2, %a, %b) {operand_segments = array<i32: 1, 1, 1, 1, 0, 0>} : (tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %o#0, %g, %l#0, %l#1, %t, %r : tensor<1x2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// gru.data (a packed sequence) is refused by name: its batch sizes are data.
func.func @gru_data(%x: tensor<3x4xf32>, %bs: tensor<2xi64>, %h: tensor<1x2x3xf32>, %a: tensor<9x4xf32>, %b: tensor<9x3xf32>) -> (tensor<3x3xf32>, tensor<1x2x3xf32>) {
  // expected-error @+1 {{'aten::gru.data' (a packed sequence) is not supported: unrolling it needs the values of batch_sizes}}
  %o:2 = exir.aten "aten::gru.data"(%x, %bs, %h, %a, %b) {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, operand_segments = array<i32: 1, 1, 1, 2>} : (tensor<3x4xf32>, tensor<2xi64>, tensor<1x2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>) -> (tensor<3x3xf32>, tensor<1x2x3xf32>)
  return %o#0, %o#1 : tensor<3x3xf32>, tensor<1x2x3xf32>
}

// -----

// rnn_tanh.data (a packed sequence) is refused by name: its batch sizes are data.
func.func @rnn_tanh_data(%x: tensor<3x4xf32>, %bs: tensor<2xi64>, %h: tensor<1x2x3xf32>, %a: tensor<3x4xf32>, %b: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<1x2x3xf32>) {
  // expected-error @+1 {{'aten::rnn_tanh.data' (a packed sequence) is not supported: unrolling it needs the values of batch_sizes}}
  %o:2 = exir.aten "aten::rnn_tanh.data"(%x, %bs, %h, %a, %b) {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, operand_segments = array<i32: 1, 1, 1, 2>} : (tensor<3x4xf32>, tensor<2xi64>, tensor<1x2x3xf32>, tensor<3x4xf32>, tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<1x2x3xf32>)
  return %o#0, %o#1 : tensor<3x3xf32>, tensor<1x2x3xf32>
}

// -----

// rnn_relu.data (a packed sequence) is refused by name: its batch sizes are data.
func.func @rnn_relu_data(%x: tensor<3x4xf32>, %bs: tensor<2xi64>, %h: tensor<1x2x3xf32>, %a: tensor<3x4xf32>, %b: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<1x2x3xf32>) {
  // expected-error @+1 {{'aten::rnn_relu.data' (a packed sequence) is not supported: unrolling it needs the values of batch_sizes}}
  %o:2 = exir.aten "aten::rnn_relu.data"(%x, %bs, %h, %a, %b) {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, operand_segments = array<i32: 1, 1, 1, 2>} : (tensor<3x4xf32>, tensor<2xi64>, tensor<1x2x3xf32>, tensor<3x4xf32>, tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<1x2x3xf32>)
  return %o#0, %o#1 : tensor<3x3xf32>, tensor<1x2x3xf32>
}

// -----

// lstm.data too.
func.func @lstm_data(%x: tensor<3x4xf32>, %bs: tensor<2xi64>, %h: tensor<1x2x3xf32>, %a: tensor<12x4xf32>, %b: tensor<12x3xf32>) -> (tensor<3x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>) {
  // expected-error @+1 {{'aten::lstm.data' (a packed sequence) is not supported}}
  %o:3 = exir.aten "aten::lstm.data"(%x, %bs, %h, %h, %a, %b) {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, operand_segments = array<i32: 1, 1, 2, 2>} : (tensor<3x4xf32>, tensor<2xi64>, tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<12x4xf32>, tensor<12x3xf32>) -> (tensor<3x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>)
  return %o#0, %o#1, %o#2 : tensor<3x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>
}

// -----

// Dropout between stacked layers in training mode is random: refused.
func.func @gru_train_dropout(%x: tensor<2x1x2xf32>, %h: tensor<2x1x1xf32>, %a: tensor<3x2xf32>, %b: tensor<3x1xf32>, %c: tensor<3x1xf32>) -> (tensor<2x1x1xf32>, tensor<2x1x1xf32>) {
  // expected-error @+1 {{'aten::gru.input' with dropout in training mode is not supported}}
  %o:2 = exir.aten "aten::gru.input"(%x, %h, %a, %b, %c, %b) {has_biases = false, num_layers = 2 : i64, dropout = 0.5 : f64, train = true, bidirectional = false, batch_first = false, operand_segments = array<i32: 1, 1, 4>} : (tensor<2x1x2xf32>, tensor<2x1x1xf32>, tensor<3x2xf32>, tensor<3x1xf32>, tensor<3x1xf32>, tensor<3x1xf32>) -> (tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  return %o#0, %o#1 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
}

// -----

// conv3d: the depth taps stacked beside the channels, one 2-D convolution (the weight viewed [O, C*KD, KH, KW]), depth unfolded again; a core 3-D convolution the same.
// CHECK-LABEL: func.func @conv3d
// CHECK: exir.aten "aten::stack"({{.*}}) {dim = 2 : i64{{.*}} -> tensor<1x2x2x3x4x4xf32>
// CHECK: exir.aten "aten::view_copy"(%{{.*}}) {{.*}}size = array<i64: 3, 4, 2, 2>
// CHECK: exir.aten "aten::convolution"({{.*}}) {{.*}}transposed = false{{.*}} -> tensor<3x3x3x3xf32>
// CHECK: exir.aten "aten::permute_copy"(%{{.*}}) {dims = array<i64: 0, 2, 1, 3, 4>{{.*}} -> tensor<1x3x3x3x3xf32>
// CHECK-NOT: tensor<1x3x3x3x3xf32>) -> tensor
// CHECK: exir.aten "aten::convolution"({{.*}}) -> tensor<3x3x3x3xf32>
func.func @conv3d(%x: tensor<1x2x4x4x4xf32>, %w: tensor<3x2x2x2x2xf32>, %b: tensor<3xf32>) -> (tensor<1x3x3x3x3xf32>, tensor<1x3x3x3x3xf32>) {
  %y = exir.aten "aten::conv3d"(%x, %w, %b) {operand_segments = array<i32: 1, 1, 1>} : (tensor<1x2x4x4x4xf32>, tensor<3x2x2x2x2xf32>, tensor<3xf32>) -> tensor<1x3x3x3x3xf32>
  %z = exir.aten "aten::convolution"(%x, %w, %b) {stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, transposed = false, output_padding = array<i64: 0, 0, 0>, groups = 1 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<1x2x4x4x4xf32>, tensor<3x2x2x2x2xf32>, tensor<3xf32>) -> tensor<1x3x3x3x3xf32>
  return %y, %z : tensor<1x3x3x3x3xf32>, tensor<1x3x3x3x3xf32>
}

// -----

// A 2-D core convolution is left for its kernel.
// CHECK-LABEL: func.func @conv2d_core_kept
// CHECK-NEXT: exir.aten "aten::convolution"
// CHECK-NEXT: return
func.func @conv2d_core_kept(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x2x2xf32>) -> tensor<1x3x3x3xf32> {
  %z = exir.aten "aten::convolution"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64, operand_segments = array<i32: 1, 1, 0>} : (tensor<1x2x4x4xf32>, tensor<3x2x2x2xf32>) -> tensor<1x3x3x3xf32>
  return %z : tensor<1x3x3x3xf32>
}

// -----

// padding='same' with an even kernel: the odd unit of padding goes on the right (constant_pad_nd), the rest is symmetric; 'valid' is zero padding. _convolution_mode alike.
// CHECK-LABEL: func.func @conv_same_valid
// CHECK: exir.aten "aten::constant_pad_nd"(%{{.*}}) {{.*}}pad = array<i64: 0, 0, 0, 1>{{.*}} -> tensor<1x2x6x5xf32>
// CHECK: exir.aten "aten::convolution"({{.*}}) {{.*}}padding = array<i64: 0, 1>{{.*}} -> tensor<1x3x5x5xf32>
// CHECK: exir.aten "aten::convolution"({{.*}}) {{.*}}padding = array<i64: 0>{{.*}} -> tensor<1x3x3xf32>
// CHECK: exir.aten "aten::convolution"({{.*}}) {{.*}}padding = array<i64: 1, 1>{{.*}} -> tensor<1x3x5x5xf32>
// CHECK-NOT: padding = "
func.func @conv_same_valid(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x2x3xf32>, %x1: tensor<1x2x5xf32>, %w1: tensor<3x2x3xf32>, %w3: tensor<3x2x3x3xf32>) -> (tensor<1x3x5x5xf32>, tensor<1x3x3xf32>, tensor<1x3x5x5xf32>) {
  %a = exir.aten "aten::conv2d.padding"(%x, %w) {padding = "same", operand_segments = array<i32: 1, 1, 0>} : (tensor<1x2x5x5xf32>, tensor<3x2x2x3xf32>) -> tensor<1x3x5x5xf32>
  %b = exir.aten "aten::conv1d.padding"(%x1, %w1) {padding = "valid", operand_segments = array<i32: 1, 1, 0>} : (tensor<1x2x5xf32>, tensor<3x2x3xf32>) -> tensor<1x3x3xf32>
  %c = exir.aten "aten::_convolution_mode"(%x, %w3) {stride = array<i64: 1, 1>, padding = "same", dilation = array<i64: 1, 1>, groups = 1 : i64, operand_segments = array<i32: 1, 1, 0>} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x5x5xf32>
  return %a, %b, %c : tensor<1x3x5x5xf32>, tensor<1x3x3xf32>, tensor<1x3x5x5xf32>
}

// -----

// Unbatched conv1d/conv2d get a batch dim and lose it again.
// CHECK-LABEL: func.func @conv_unbatched
// CHECK: exir.aten "aten::unsqueeze_copy"(%{{.*}}) {dim = 0 : i64{{.*}} -> tensor<1x2x5x5xf32>
// CHECK: exir.aten "aten::convolution"({{.*}}) {{.*}}padding = array<i64: 1, 1>{{.*}} -> tensor<1x3x5x5xf32>
// CHECK: exir.aten "aten::squeeze_copy.dim"(%{{.*}}) {dim = 0 : i64{{.*}} -> tensor<3x5x5xf32>
// CHECK: exir.aten "aten::convolution"({{.*}}) {{.*}}stride = array<i64: 2>{{.*}} -> tensor<1x3x2xf32>
func.func @conv_unbatched(%x: tensor<2x5x5xf32>, %w: tensor<3x2x3x3xf32>, %x1: tensor<2x5xf32>, %w1: tensor<3x2x2xf32>) -> (tensor<3x5x5xf32>, tensor<3x2xf32>) {
  %a = exir.aten "aten::conv2d"(%x, %w) {padding = array<i64: 1>, operand_segments = array<i32: 1, 1, 0>} : (tensor<2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<3x5x5xf32>
  %b = exir.aten "aten::conv1d"(%x1, %w1) {stride = array<i64: 2>, operand_segments = array<i32: 1, 1, 0>} : (tensor<2x5xf32>, tensor<3x2x2xf32>) -> tensor<3x2xf32>
  return %a, %b : tensor<3x5x5xf32>, tensor<3x2xf32>
}

// -----

// conv3d.padding 'same' becomes the 3-D decomposition with depth padding.
// CHECK-LABEL: func.func @conv3d_same
// CHECK: exir.aten "aten::constant_pad_nd"(%{{.*}}) {{.*}}pad = array<i64: 0, 0, 0, 0, 1, 1>
// CHECK: exir.aten "aten::convolution"({{.*}}) {{.*}}padding = array<i64: 1, 1>{{.*}} -> tensor<3x2x3x3xf32>
func.func @conv3d_same(%x: tensor<1x2x3x3x3xf32>, %w: tensor<2x2x3x3x3xf32>) -> tensor<1x2x3x3x3xf32> {
  %a = exir.aten "aten::conv3d.padding"(%x, %w) {padding = "same", operand_segments = array<i32: 1, 1, 0>} : (tensor<1x2x3x3x3xf32>, tensor<2x2x3x3x3xf32>) -> tensor<1x2x3x3x3xf32>
  return %a : tensor<1x2x3x3x3xf32>
}

// -----

// Transposed 1-D/2-D convolutions and the old entry points become `convolution` with every argument spelled out.
// CHECK-LABEL: func.func @conv_forms
// CHECK: exir.aten "aten::convolution"({{.*}}) {{.*}}output_padding = array<i64: 1>{{.*}}stride = array<i64: 2>, transposed = true{{.*}} -> tensor<1x3x7xf32>
// CHECK: exir.aten "aten::convolution"({{.*}}) {{.*}}transposed = true{{.*}} -> tensor<1x4x6x6xf32>
// CHECK: exir.aten "aten::convolution"({{.*}}) {{.*}}transposed = false{{.*}} -> tensor<1x3x3x3xf32>
// CHECK: exir.aten "aten::convolution"({{.*}}) {{.*}}transposed = false{{.*}} -> tensor<1x3x3x3xf32>
// CHECK: exir.aten "aten::convolution"({{.*}}) {{.*}}padding = array<i64: 1, 0>{{.*}}stride = array<i64: 2, 1>{{.*}} -> tensor<1x3x2x2xf32>
// CHECK-NOT: conv_transpose
// CHECK-NOT: _convolution
// CHECK-NOT: thnn_conv2d
func.func @conv_forms(%x1: tensor<1x2x3xf32>, %w1: tensor<2x3x2xf32>, %x: tensor<1x2x4x4xf32>, %wt: tensor<2x2x3x3xf32>, %w: tensor<3x2x2x2xf32>, %w3: tensor<3x2x3x3xf32>) -> (tensor<1x3x7xf32>, tensor<1x4x6x6xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x2x2xf32>) {
  %a = exir.aten "aten::conv_transpose1d"(%x1, %w1) {stride = array<i64: 2>, padding = array<i64: 0>, output_padding = array<i64: 1>, groups = 1 : i64, dilation = array<i64: 1>, operand_segments = array<i32: 1, 1, 0>} : (tensor<1x2x3xf32>, tensor<2x3x2xf32>) -> tensor<1x3x7xf32>
  %b = exir.aten "aten::conv_transpose2d.input"(%x, %wt) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, output_padding = array<i64: 0, 0>, groups = 2 : i64, dilation = array<i64: 1, 1>, operand_segments = array<i32: 1, 1, 0>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  %c = exir.aten "aten::_convolution"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64, benchmark = false, deterministic = false, cudnn_enabled = true, allow_tf32 = true, operand_segments = array<i32: 1, 1, 0>} : (tensor<1x2x4x4xf32>, tensor<3x2x2x2xf32>) -> tensor<1x3x3x3xf32>
  %d = exir.aten "aten::_convolution.deprecated"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64, benchmark = false, deterministic = false, cudnn_enabled = true, operand_segments = array<i32: 1, 1, 0>} : (tensor<1x2x4x4xf32>, tensor<3x2x2x2xf32>) -> tensor<1x3x3x3xf32>
  %e = exir.aten "aten::thnn_conv2d"(%x, %w3) {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 1>, padding = array<i64: 1, 0>, operand_segments = array<i32: 1, 1, 0>} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x2x2xf32>
  return %a, %b, %c, %d, %e : tensor<1x3x7xf32>, tensor<1x4x6x6xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x2x2xf32>
}

// -----

// conv_transpose3d: one 2-D transposed convolution whose output channels hold the depth taps, each tap added into its output depths (strided slice_scatter); slow_conv3d: the 3-D decomposition.
// CHECK-LABEL: func.func @conv3d_forms
// CHECK: exir.aten "aten::convolution"({{.*}}) {{.*}}transposed = true{{.*}} -> tensor<2x4x3x3xf32>
// CHECK: exir.aten "aten::full"
// CHECK-COUNT-2: exir.aten "aten::slice_scatter"
// CHECK: exir.aten "aten::convolution"({{.*}}) {{.*}}transposed = false{{.*}} -> tensor<1x3x1x1xf32>
// CHECK-NOT: conv_transpose3d
// CHECK-NOT: slow_conv3d
func.func @conv3d_forms(%x: tensor<1x2x2x2x2xf32>, %wt: tensor<2x2x2x2x2xf32>, %w: tensor<3x2x2x2x2xf32>) -> (tensor<1x2x3x3x3xf32>, tensor<1x3x1x1x1xf32>) {
  %a = exir.aten "aten::conv_transpose3d.input"(%x, %wt) {stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0>, output_padding = array<i64: 0, 0, 0>, groups = 1 : i64, dilation = array<i64: 1, 1, 1>, operand_segments = array<i32: 1, 1, 0>} : (tensor<1x2x2x2x2xf32>, tensor<2x2x2x2x2xf32>) -> tensor<1x2x3x3x3xf32>
  %b = exir.aten "aten::slow_conv3d"(%x, %w) {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0>, operand_segments = array<i32: 1, 1, 0>} : (tensor<1x2x2x2x2xf32>, tensor<3x2x2x2x2xf32>) -> tensor<1x3x1x1x1xf32>
  return %a, %b : tensor<1x2x3x3x3xf32>, tensor<1x3x1x1x1xf32>
}

// -----

// 1-D pools run the 2-D kernels over a unit height; 3-D pools are two 2-D passes, (H, W) then (D, H*W).
// CHECK-LABEL: func.func @pools
// CHECK: exir.aten "aten::avg_pool2d"({{.*}}) {{.*}}kernel_size = array<i64: 1, 2>{{.*}} -> tensor<1x2x1x3xf32>
// CHECK: exir.aten "aten::max_pool2d_with_indices"({{.*}}) {{.*}}kernel_size = array<i64: 1, 2>{{.*}} -> (tensor<1x2x1x3xf32>, tensor<1x2x1x3xi64>)
// CHECK: exir.aten "aten::max_pool2d_with_indices"({{.*}}) {{.*}}kernel_size = array<i64: 1, 2>
// CHECK: exir.aten "aten::avg_pool2d"({{.*}}) {{.*}} -> tensor<1x8x2x2xf32>
// CHECK: exir.aten "aten::avg_pool2d"({{.*}}) {{.*}}kernel_size = array<i64: 2, 1>{{.*}} -> tensor<1x2x2x4xf32>
// CHECK: exir.aten "aten::max_pool2d_with_indices"({{.*}}) -> (tensor<1x8x2x2xf32>, tensor<1x8x2x2xi64>)
// CHECK: exir.aten "aten::max_pool2d_with_indices"({{.*}}) -> (tensor<1x2x2x4xf32>, tensor<1x2x2x4xi64>)
// CHECK: exir.aten "aten::gather"
// CHECK-NOT: pool1d
// CHECK-NOT: pool3d
func.func @pools(%x: tensor<1x2x6xf32>, %v: tensor<1x2x4x4x4xf32>) -> (tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xi64>, tensor<1x2x2x2x2xf32>, tensor<1x2x2x2x2xf32>, tensor<1x2x2x2x2xi64>) {
  %a = exir.aten "aten::avg_pool1d"(%x) {kernel_size = array<i64: 2>, stride = array<i64>, padding = array<i64: 0>, ceil_mode = false, count_include_pad = true, operand_segments = array<i32: 1>} : (tensor<1x2x6xf32>) -> tensor<1x2x3xf32>
  %m:2 = exir.aten "aten::max_pool1d_with_indices"(%x) {kernel_size = array<i64: 2>, stride = array<i64>, padding = array<i64: 0>, dilation = array<i64: 1>, ceil_mode = false, operand_segments = array<i32: 1>} : (tensor<1x2x6xf32>) -> (tensor<1x2x3xf32>, tensor<1x2x3xi64>)
  %b = exir.aten "aten::max_pool1d"(%x) {kernel_size = array<i64: 2>, stride = array<i64>, padding = array<i64: 0>, dilation = array<i64: 1>, ceil_mode = false, operand_segments = array<i32: 1>} : (tensor<1x2x6xf32>) -> tensor<1x2x3xf32>
  %c = exir.aten "aten::avg_pool3d"(%v) {kernel_size = array<i64: 2, 2, 2>, stride = array<i64>, padding = array<i64: 0, 0, 0>, ceil_mode = false, count_include_pad = true, divisor_override = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32>
  %d:2 = exir.aten "aten::max_pool3d_with_indices"(%v) {kernel_size = array<i64: 2, 2, 2>, stride = array<i64>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, ceil_mode = false, operand_segments = array<i32: 1>} : (tensor<1x2x4x4x4xf32>) -> (tensor<1x2x2x2x2xf32>, tensor<1x2x2x2x2xi64>)
  return %a, %b, %m#1, %c, %d#0, %d#1 : tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xi64>, tensor<1x2x2x2x2xf32>, tensor<1x2x2x2x2xf32>, tensor<1x2x2x2x2xi64>
}

// -----

// max_pool3d without indices: only the values.
// CHECK-LABEL: func.func @max_pool3d
// CHECK-COUNT-2: aten::max_pool2d_with_indices
// CHECK-NOT: aten::gather
func.func @max_pool3d(%v: tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32> {
  %d = exir.aten "aten::max_pool3d"(%v) {kernel_size = array<i64: 2, 2, 2>, stride = array<i64>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, ceil_mode = false, operand_segments = array<i32: 1>} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32>
  return %d : tensor<1x2x2x2x2xf32>
}

// -----

// Adaptive pools: average through _adaptive_avg_pool2d (1-D on a unit height, 3-D in two passes, 1x1x1 as a mean); max by gathering each window (padded to the widest by its last index) and max.dim, or max_pool2d_with_indices when the windows divide evenly.
// CHECK-LABEL: func.func @adaptive
// CHECK: exir.aten "aten::_adaptive_avg_pool2d"({{.*}}) {{.*}}output_size = array<i64: 1, 4>
// CHECK: exir.aten "aten::_adaptive_avg_pool2d"({{.*}}) {{.*}}output_size = array<i64: 2, 2>
// CHECK: exir.aten "aten::_adaptive_avg_pool2d"({{.*}}) {{.*}}output_size = array<i64: 2, 4>
// CHECK: exir.aten "aten::mean.dim"
// CHECK: exir.aten "aten::index_select"
// CHECK: exir.aten "aten::max.dim"({{.*}}) {dim = -1 : i64
// CHECK: exir.aten "aten::max_pool2d_with_indices"({{.*}}) {{.*}}kernel_size = array<i64: 2, 2>
// CHECK: exir.aten "aten::max.dim"
// CHECK-NOT: adaptive_
func.func @adaptive(%x: tensor<1x2x7xf32>, %v: tensor<1x2x3x5x5xf32>, %p: tensor<1x2x4x4xf32>) -> (tensor<1x2x4xf32>, tensor<1x2x2x2x2xf32>, tensor<1x2x1x1x1xf32>, tensor<1x2x3xf32>, tensor<1x2x3xi64>, tensor<1x2x2x2xf32>, tensor<1x2x2x2x2xi64>) {
  %a = exir.aten "aten::adaptive_avg_pool1d"(%x) {output_size = array<i64: 4>, operand_segments = array<i32: 1>} : (tensor<1x2x7xf32>) -> tensor<1x2x4xf32>
  %b = exir.aten "aten::adaptive_avg_pool3d"(%v) {output_size = array<i64: 2, 2, 2>, operand_segments = array<i32: 1>} : (tensor<1x2x3x5x5xf32>) -> tensor<1x2x2x2x2xf32>
  %c = exir.aten "aten::_adaptive_avg_pool3d"(%v) {output_size = array<i64: 1, 1, 1>, operand_segments = array<i32: 1>} : (tensor<1x2x3x5x5xf32>) -> tensor<1x2x1x1x1xf32>
  %d:2 = exir.aten "aten::adaptive_max_pool1d"(%x) {output_size = array<i64: 3>, operand_segments = array<i32: 1>} : (tensor<1x2x7xf32>) -> (tensor<1x2x3xf32>, tensor<1x2x3xi64>)
  %e:2 = exir.aten "aten::adaptive_max_pool2d"(%p) {output_size = array<i64: 2, 2>, operand_segments = array<i32: 1>} : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  %f:2 = exir.aten "aten::adaptive_max_pool3d"(%v) {output_size = array<i64: 2, 2, 2>, operand_segments = array<i32: 1>} : (tensor<1x2x3x5x5xf32>) -> (tensor<1x2x2x2x2xf32>, tensor<1x2x2x2x2xi64>)
  return %a, %b, %c, %d#0, %d#1, %e#0, %f#1 : tensor<1x2x4xf32>, tensor<1x2x2x2x2xf32>, tensor<1x2x1x1x1xf32>, tensor<1x2x3xf32>, tensor<1x2x3xi64>, tensor<1x2x2x2xf32>, tensor<1x2x2x2x2xi64>
}

// -----

// max_unpool: zeros, then index_put at each plane's offset plus the flat index.
// CHECK-LABEL: func.func @unpool
// CHECK: exir.aten "aten::full"
// CHECK: exir.aten "aten::index_put"({{.*}}) -> tensor<32xf32>
// CHECK: exir.aten "aten::index_put"({{.*}}) -> tensor<128xf32>
// CHECK-NOT: max_unpool
func.func @unpool(%x: tensor<1x2x2x2xf32>, %i: tensor<1x2x2x2xi64>, %y: tensor<1x2x2x2x2xf32>, %j: tensor<1x2x2x2x2xi64>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4x4xf32>) {
  %a = exir.aten "aten::max_unpool2d"(%x, %i) {output_size = array<i64: 4, 4>, operand_segments = array<i32: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) -> tensor<1x2x4x4xf32>
  %b = exir.aten "aten::max_unpool3d"(%y, %j) {output_size = array<i64: 4, 4, 4>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, operand_segments = array<i32: 1, 1>} : (tensor<1x2x2x2x2xf32>, tensor<1x2x2x2x2xi64>) -> tensor<1x2x4x4x4xf32>
  return %a, %b : tensor<1x2x4x4xf32>, tensor<1x2x4x4x4xf32>
}

// -----

// fractional_max_pool2d draws random windows: refused.
func.func @fractional_max_pool2d(%x: tensor<1x2x4x4xf32>, %r: tensor<1x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) {
  // expected-error @+1 {{'aten::fractional_max_pool2d' is not supported: its windows come from random samples}}
  %a:2 = exir.aten "aten::fractional_max_pool2d"(%x, %r) {kernel_size = array<i64: 2, 2>, output_size = array<i64: 2, 2>, operand_segments = array<i32: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<1x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  return %a#0, %a#1 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>
}

// -----

// fractional_max_pool3d draws random windows: refused.
func.func @fractional_max_pool3d(%x: tensor<1x2x4x4x4xf32>, %r: tensor<1x2x3xf32>) -> (tensor<1x2x2x2x2xf32>, tensor<1x2x2x2x2xi64>) {
  // expected-error @+1 {{'aten::fractional_max_pool3d' is not supported: its windows come from random samples}}
  %a:2 = exir.aten "aten::fractional_max_pool3d"(%x, %r) {kernel_size = array<i64: 2, 2, 2>, output_size = array<i64: 2, 2, 2>, operand_segments = array<i32: 1, 1>} : (tensor<1x2x4x4x4xf32>, tensor<1x2x3xf32>) -> (tensor<1x2x2x2x2xf32>, tensor<1x2x2x2x2xi64>)
  return %a#0, %a#1 : tensor<1x2x2x2x2xf32>, tensor<1x2x2x2x2xi64>
}

// -----

// im2col gathers the padded rows and columns of every kernel offset; col2im adds each offset's blocks into the padded image (strided slice_scatter) and crops.
// CHECK-LABEL: func.func @im2col_col2im
// CHECK: exir.aten "aten::constant_pad_nd"
// CHECK: exir.aten "aten::index_select"({{.*}}) {dim = 2 : i64
// CHECK: exir.aten "aten::index_select"({{.*}}) {dim = 3 : i64
// CHECK: exir.aten "aten::permute_copy"(%{{.*}}) {dims = array<i64: 0, 1, 2, 4, 3, 5>
// CHECK-COUNT-8: exir.aten "aten::slice_scatter"
// CHECK-NOT: aten::im2col
// CHECK-NOT: aten::col2im
func.func @im2col_col2im(%x: tensor<1x2x4x4xf32>, %c: tensor<1x8x9xf32>) -> (tensor<1x8x9xf32>, tensor<1x2x4x4xf32>) {
  %a = exir.aten "aten::im2col"(%x) {kernel_size = array<i64: 2, 2>, dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, operand_segments = array<i32: 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x8x9xf32>
  %b = exir.aten "aten::col2im"(%c) {output_size = array<i64: 4, 4>, kernel_size = array<i64: 2, 2>, dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, operand_segments = array<i32: 1>} : (tensor<1x8x9xf32>) -> tensor<1x2x4x4xf32>
  return %a, %b : tensor<1x8x9xf32>, tensor<1x2x4x4xf32>
}

// -----

// Nearest/linear in 1-D run the 2-D kernels over a unit height; 2-D default forms become .vec when their scales agree with the output size.
// CHECK-LABEL: func.func @upsample_kernels
// CHECK: exir.aten "aten::upsample_nearest2d.vec"({{.*}}) {operand_segments = array<i32: 1>, output_size = array<i64: 1, 8>, scale_factors = #exir.none}
// CHECK: exir.aten "aten::upsample_nearest2d.vec"({{.*}}) {{.*}}scale_factors = array<f64: 1.000000e+00, 2.000000e+00>
// CHECK: exir.aten "aten::upsample_bilinear2d.vec"({{.*}}) {align_corners = true{{.*}}output_size = array<i64: 1, 6>
// CHECK: exir.aten "aten::upsample_bilinear2d.vec"({{.*}}) {{.*}}scale_factors = array<f64: 1.500000e+00, 2.000000e+00>
// CHECK: exir.aten "aten::upsample_nearest2d.vec"({{.*}}) {{.*}}output_size = array<i64: 6, 8>
// CHECK-NOT: nearest1d
// CHECK-NOT: linear1d
func.func @upsample_kernels(%x: tensor<1x2x4xf32>, %p: tensor<1x2x4x4xf32>) -> (tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x6xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) {
  %a = exir.aten "aten::upsample_nearest1d"(%x) {output_size = array<i64: 8>, scales = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x2x4xf32>) -> tensor<1x2x8xf32>
  %b = exir.aten "aten::upsample_nearest1d.vec"(%x) {output_size = #exir.none, scale_factors = array<f64: 2.0>, operand_segments = array<i32: 1>} : (tensor<1x2x4xf32>) -> tensor<1x2x8xf32>
  %c = exir.aten "aten::upsample_linear1d.vec"(%x) {output_size = array<i64: 6>, align_corners = true, scale_factors = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x2x4xf32>) -> tensor<1x2x6xf32>
  %d = exir.aten "aten::upsample_bilinear2d"(%p) {output_size = array<i64: 6, 8>, align_corners = false, scales_h = 1.5 : f64, scales_w = 2.0 : f64, operand_segments = array<i32: 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x8xf32>
  %e = exir.aten "aten::upsample_nearest2d"(%p) {output_size = array<i64: 6, 8>, scales_h = #exir.none, scales_w = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x8xf32>
  return %a, %b, %c, %d, %e : tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x6xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>
}

// -----

// Separable resampling, last dim first: nearest(-exact) one index_select per resized dim (indices floor((i [+ 0.5]) * scale) in float32), trilinear two taps per dim, bicubic four.
// CHECK-LABEL: func.func @upsample_separable
// CHECK: exir.aten "aten::arange.start_step"() {{{.*}}dtype = f32, end = 6 : i64
// CHECK: exir.aten "aten::floor"
// CHECK: exir.aten "aten::index_select"({{.*}}) {dim = 4 : i64{{.*}} -> tensor<1x1x2x3x6xf32>
// CHECK: exir.aten "aten::index_select"({{.*}}) {dim = 2 : i64{{.*}} -> tensor<1x1x4x3x6xf32>
// CHECK: exir.aten "aten::add.Scalar"({{.*}}) {alpha = 1 : i64, operand_segments = array<i32: 1>, other = 5.000000e-01 : f64}
// CHECK-COUNT-6: exir.aten "aten::index_select"
// CHECK-COUNT-8: exir.aten "aten::index_select"
// CHECK-NOT: nearest3d
// CHECK-NOT: nearest_exact
// CHECK-NOT: trilinear
// CHECK-NOT: bicubic
func.func @upsample_separable(%v: tensor<1x1x2x3x3xf32>, %p: tensor<1x2x4x4xf32>) -> (tensor<1x1x4x3x6xf32>, tensor<1x1x3x3x5xf32>, tensor<1x1x3x4x5xf32>, tensor<1x2x6x5xf32>) {
  %a = exir.aten "aten::upsample_nearest3d.vec"(%v) {output_size = array<i64: 4, 3, 6>, scale_factors = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x1x2x3x3xf32>) -> tensor<1x1x4x3x6xf32>
  %b = exir.aten "aten::_upsample_nearest_exact3d"(%v) {output_size = array<i64: 3, 3, 5>, scales_d = #exir.none, scales_h = #exir.none, scales_w = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x1x2x3x3xf32>) -> tensor<1x1x3x3x5xf32>
  %c = exir.aten "aten::upsample_trilinear3d"(%v) {output_size = array<i64: 3, 4, 5>, align_corners = false, scales_d = #exir.none, scales_h = #exir.none, scales_w = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x1x2x3x3xf32>) -> tensor<1x1x3x4x5xf32>
  %d = exir.aten "aten::upsample_bicubic2d.vec"(%p) {output_size = array<i64: 6, 5>, align_corners = true, scale_factors = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x5xf32>
  return %a, %b, %c, %d : tensor<1x1x4x3x6xf32>, tensor<1x1x3x3x5xf32>, tensor<1x1x3x4x5xf32>, tensor<1x2x6x5xf32>
}

// -----

// The remaining nearest-exact, linear and bicubic overloads.
// CHECK-LABEL: func.func @upsample_overloads
// CHECK-NOT: _upsample_nearest_exact
// CHECK-NOT: upsample_linear1d"
// CHECK-NOT: upsample_trilinear3d.vec
// CHECK-NOT: upsample_bicubic2d"
func.func @upsample_overloads(%x: tensor<1x2x4xf32>, %p: tensor<1x2x4x4xf32>, %v: tensor<1x1x2x3x3xf32>) -> (tensor<1x2x6xf32>, tensor<1x2x6xf32>, tensor<1x2x6x3xf32>, tensor<1x2x6x3xf32>, tensor<1x1x4x6x6xf32>, tensor<1x2x6xf32>, tensor<1x1x4x6x6xf32>, tensor<1x2x6x3xf32>) {
  %a = exir.aten "aten::_upsample_nearest_exact1d"(%x) {output_size = array<i64: 6>, scales = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x2x4xf32>) -> tensor<1x2x6xf32>
  %b = exir.aten "aten::_upsample_nearest_exact1d.vec"(%x) {output_size = array<i64: 6>, scale_factors = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x2x4xf32>) -> tensor<1x2x6xf32>
  %c = exir.aten "aten::_upsample_nearest_exact2d"(%p) {output_size = array<i64: 6, 3>, scales_h = #exir.none, scales_w = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x3xf32>
  %d = exir.aten "aten::_upsample_nearest_exact2d.vec"(%p) {output_size = array<i64: 6, 3>, scale_factors = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x3xf32>
  %e = exir.aten "aten::_upsample_nearest_exact3d.vec"(%v) {output_size = #exir.none, scale_factors = array<f64: 2.0, 2.0, 2.0>, operand_segments = array<i32: 1>} : (tensor<1x1x2x3x3xf32>) -> tensor<1x1x4x6x6xf32>
  %f = exir.aten "aten::upsample_linear1d"(%x) {output_size = array<i64: 6>, align_corners = false, scales = 1.7 : f64, operand_segments = array<i32: 1>} : (tensor<1x2x4xf32>) -> tensor<1x2x6xf32>
  %g = exir.aten "aten::upsample_trilinear3d.vec"(%v) {output_size = #exir.none, align_corners = false, scale_factors = array<f64: 2.0, 2.0, 2.0>, operand_segments = array<i32: 1>} : (tensor<1x1x2x3x3xf32>) -> tensor<1x1x4x6x6xf32>
  %h = exir.aten "aten::upsample_bicubic2d"(%p) {output_size = array<i64: 6, 3>, align_corners = false, scales_h = #exir.none, scales_w = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x3xf32>
  return %a, %b, %c, %d, %e, %f, %g, %h : tensor<1x2x6xf32>, tensor<1x2x6xf32>, tensor<1x2x6x3xf32>, tensor<1x2x6x3xf32>, tensor<1x1x4x6x6xf32>, tensor<1x2x6xf32>, tensor<1x1x4x6x6xf32>, tensor<1x2x6x3xf32>
}

// -----

// Antialiasing: bilinear .vec to its default form (which has a kernel); bicubic by masked, normalised taps over the widened support.
// CHECK-LABEL: func.func @upsample_aa
// CHECK: exir.aten "aten::_upsample_bilinear2d_aa"({{.*}}) {{.*}}output_size = array<i64: 2, 2>{{.*}}scales_h = #exir.none
// CHECK: exir.aten "aten::where.self"
// CHECK: exir.aten "aten::index_select"
// CHECK-NOT: bicubic2d_aa
// CHECK-NOT: aa.vec
func.func @upsample_aa(%p: tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %a = exir.aten "aten::_upsample_bilinear2d_aa.vec"(%p) {output_size = array<i64: 2, 2>, align_corners = false, scale_factors = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %b = exir.aten "aten::_upsample_bicubic2d_aa.vec"(%p) {output_size = array<i64: 2, 2>, align_corners = false, scale_factors = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %c = exir.aten "aten::_upsample_bicubic2d_aa"(%p) {output_size = array<i64: 2, 2>, align_corners = false, scales_h = #exir.none, scales_w = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  return %a, %b, %c : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// _upsample_lanczos2d_aa is refused.
func.func @lanczos(%p: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  // expected-error @+1 {{'aten::_upsample_lanczos2d_aa' is not supported: no portable kernel computes Lanczos resampling}}
  %a = exir.aten "aten::_upsample_lanczos2d_aa"(%p) {output_size = array<i64: 2, 2>, align_corners = false, scales_h = #exir.none, scales_w = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  return %a : tensor<1x2x2x2xf32>
}

// -----

// _upsample_lanczos2d_aa.vec is refused.
func.func @lanczos(%p: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  // expected-error @+1 {{'aten::_upsample_lanczos2d_aa.vec' is not supported: no portable kernel computes Lanczos resampling}}
  %a = exir.aten "aten::_upsample_lanczos2d_aa.vec"(%p) {output_size = array<i64: 2, 2>, align_corners = false, scale_factors = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  return %a : tensor<1x2x2x2xf32>
}

// -----

// grid_sampler on 4-D input is grid_sampler_2d; affine_grid_generator a bmm of the base grid with thetaᵀ.
// CHECK-LABEL: func.func @grids
// CHECK: exir.aten "aten::grid_sampler_2d"({{.*}}) {align_corners = false, interpolation_mode = 1 : i64, operand_segments = array<i32: 1, 1>, padding_mode = 2 : i64}
// CHECK: exir.aten "aten::bmm"({{.*}}) -> tensor<2x12x2xf32>
// CHECK-NOT: aten::grid_sampler"
// CHECK-NOT: affine_grid_generator
func.func @grids(%x: tensor<2x3x4x4xf32>, %g: tensor<2x5x5x2xf32>, %t: tensor<2x2x3xf32>) -> (tensor<2x3x5x5xf32>, tensor<2x3x4x2xf32>) {
  %a = exir.aten "aten::grid_sampler"(%x, %g) {interpolation_mode = 1 : i64, padding_mode = 2 : i64, align_corners = false, operand_segments = array<i32: 1, 1>} : (tensor<2x3x4x4xf32>, tensor<2x5x5x2xf32>) -> tensor<2x3x5x5xf32>
  %b = exir.aten "aten::affine_grid_generator"(%t) {size = array<i64: 2, 1, 3, 4>, align_corners = false, operand_segments = array<i32: 1>} : (tensor<2x2x3xf32>) -> tensor<2x3x4x2xf32>
  return %a, %b : tensor<2x3x5x5xf32>, tensor<2x3x4x2xf32>
}

// -----

// Volumetric grid sampling has no kernel: refused.
func.func @grid3d(%x: tensor<1x2x3x3x3xf32>, %g: tensor<1x2x2x2x3xf32>) -> (tensor<1x2x2x2x2xf32>, tensor<1x2x2x2x2xf32>) {
  // expected-error @+1 {{'aten::grid_sampler' on a volumetric (5-D) input is not supported: there is no grid_sampler_3d kernel}}
  %a = exir.aten "aten::grid_sampler"(%x, %g) {interpolation_mode = 0 : i64, padding_mode = 0 : i64, align_corners = false, operand_segments = array<i32: 1, 1>} : (tensor<1x2x3x3x3xf32>, tensor<1x2x2x2x3xf32>) -> tensor<1x2x2x2x2xf32>
  // expected-error @+1 {{'aten::grid_sampler_3d' is not supported: there is no grid_sampler_3d kernel}}
  %b = exir.aten "aten::grid_sampler_3d"(%x, %g) {interpolation_mode = 0 : i64, padding_mode = 0 : i64, align_corners = false, operand_segments = array<i32: 1, 1>} : (tensor<1x2x3x3x3xf32>, tensor<1x2x2x2x3xf32>) -> tensor<1x2x2x2x2xf32>
  return %a, %b : tensor<1x2x2x2x2xf32>, tensor<1x2x2x2x2xf32>
}

// -----

// Dynamic shapes: a core 2-D convolution stays for its kernel; a 3-D one, and the decompositions (which size everything from static types), are refused.
// CHECK-LABEL: func.func @dynamic_conv2d_kept
// CHECK-NEXT: exir.aten "aten::convolution"
// CHECK-NEXT: return
func.func @dynamic_conv2d_kept(%x: tensor<4x2x4x4xf32> {exir.dynamic_dims = array<i64: 0>}, %w: tensor<3x2x2x2xf32>) -> tensor<4x3x3x3xf32> {
  %z = exir.aten "aten::convolution"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64, operand_segments = array<i32: 1, 1, 0>} : (tensor<4x2x4x4xf32>, tensor<3x2x2x2xf32>) -> tensor<4x3x3x3xf32>
  return %z : tensor<4x3x3x3xf32>
}

// -----

func.func @dynamic_conv3d(%x: tensor<4x2x4x4x4xf32> {exir.dynamic_dims = array<i64: 0>}, %w: tensor<3x2x2x2x2xf32>) -> tensor<4x3x3x3x3xf32> {
  // expected-error @+1 {{'aten::convolution' in 3-D on a dynamically shaped value is not supported yet}}
  %z = exir.aten "aten::convolution"(%x, %w) {stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, transposed = false, output_padding = array<i64: 0, 0, 0>, groups = 1 : i64, operand_segments = array<i32: 1, 1, 0>} : (tensor<4x2x4x4x4xf32>, tensor<3x2x2x2x2xf32>) -> tensor<4x3x3x3x3xf32>
  return %z : tensor<4x3x3x3x3xf32>
}

// -----

func.func @dynamic_gru(%x: tensor<2x4x3xf32> {exir.dynamic_dims = array<i64: 1>}, %h: tensor<1x4x3xf32>, %a: tensor<9x3xf32>, %b: tensor<9x3xf32>) -> (tensor<2x4x3xf32>, tensor<1x4x3xf32>) {
  // expected-error @+1 {{'aten::gru.input' on a dynamically shaped value is not supported yet}}
  %o:2 = exir.aten "aten::gru.input"(%x, %h, %a, %b) {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, batch_first = false, operand_segments = array<i32: 1, 1, 2>} : (tensor<2x4x3xf32>, tensor<1x4x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>) -> (tensor<2x4x3xf32>, tensor<1x4x3xf32>)
  return %o#0, %o#1 : tensor<2x4x3xf32>, tensor<1x4x3xf32>
}
