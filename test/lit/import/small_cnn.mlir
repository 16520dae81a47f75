// RUN: aot-compile %models/small_cnn/model.pt2 --compile-to=import | FileCheck %s

// conv + batch norm + relu + max pool: optional tensors, int lists, multi-result
// ops (batch norm, max_pool2d_with_indices) and buffers.

// CHECK: exir.weight @conv1.weight "parameter" = dense_resource<conv1_weight> : tensor<8x3x3x3xf32>
// CHECK: exir.weight @bn1.running_mean "buffer" = dense_resource<bn1_running_mean> : tensor<8xf32>
// CHECK: exir.weight @bn1.num_batches_tracked "buffer" = dense_resource<bn1_num_batches_tracked> : tensor<i64>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: {exir.input = #exir.input<buffer, "bn1.running_mean">}
// CHECK-SAME: tensor<1x3x16x16xf32> {exir.input = #exir.input<user_input, "x">}
// CHECK: %[[C:.*]] = exir.aten "aten::convolution"({{.*}}) {dilation = array<i64: 1, 1>, groups = 1 : i64, operand_segments = array<i32: 1, 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false}
// CHECK: %[[BN:.*]]:3 = exir.aten "aten::_native_batch_norm_legit_no_training"(%[[C]], {{.*}}) {eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64
// CHECK: exir.aten "aten::relu"(%[[BN]]#0)
// CHECK: %{{.*}}:2 = exir.aten "aten::max_pool2d_with_indices"({{.*}}) {ceil_mode = false, dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, operand_segments = array<i32: 1>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>}
// CHECK-SAME: -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xi64>)
// CHECK: exir.aten "aten::mean.dim"({{.*}}) {dim = array<i64: -1, -2>, dtype = #exir.none, keepdim = true
// CHECK: exir.aten "aten::addmm"
