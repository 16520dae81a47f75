// RUN: aot-compile %models/resnet_block/model.pt2 --compile-to=import | FileCheck %s

// Two 3x3 convolutions, a 1x1 downsample branch and the residual add.

// CHECK: exir.weight @conv1.weight "parameter" = dense_resource<conv1_weight> : tensor<16x8x3x3xf32>
// CHECK: exir.weight @downsample.0.weight "parameter" = dense_resource<downsample_0_weight> : tensor<16x8x1x1xf32>
// CHECK: exir.weight @downsample.1.running_var "buffer"
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: {exir.input = #exir.input<parameter, "downsample.0.weight">}
// CHECK: exir.aten "aten::convolution"({{.*}}) {{{.*}}stride = array<i64: 2, 2>
// CHECK: exir.aten "aten::relu"
// CHECK: exir.aten "aten::convolution"
// CHECK: exir.aten "aten::convolution"
// CHECK: exir.aten "aten::add.Tensor"
// CHECK: exir.aten "aten::relu"
// CHECK: return
