// RUN: aot-compile %models/mobilenet_block/model.pt2 --compile-to=import | FileCheck %s

// Depthwise convolution (groups = channels), relu6 as hardtanh, residual add.

// CHECK: exir.weight @depthwise.weight "parameter" = dense_resource<depthwise_weight> : tensor<32x1x3x3xf32>
// CHECK-LABEL: func.func @forward(
// CHECK: exir.aten "aten::convolution"
// CHECK: exir.aten "aten::hardtanh"({{.*}}) {max_val = 6.000000e+00 : f64, min_val = 0.000000e+00 : f64
// CHECK: exir.aten "aten::convolution"({{.*}}) {{{.*}}groups = 32 : i64
// CHECK: exir.aten "aten::hardtanh"
// CHECK: exir.aten "aten::convolution"
// CHECK: exir.aten "aten::add.Tensor"({{.*}}) {alpha = 1 : i64
// CHECK: return
