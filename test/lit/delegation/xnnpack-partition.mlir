// RUN: ptec-opt %s --exir-partition="backends=xnnpack report-refusals=true" --verify-diagnostics | FileCheck %s
// RUN: not ptec-opt %s --exir-partition="backends=xnnpack:bogus" 2>&1 | FileCheck %s --check-prefix=BADOPT

// BADOPT: error: exir-partition: xnnpack: unknown option 'bogus' (known: scratch)

// A conv with a constant weight and the relu after it form one XNNPACK
// region; what Debian 12's XNNPACK cannot run stays portable, with a reason.
// CHECK-LABEL: func.func @forward
// CHECK: exir.delegate_region "XnnpackBackend"
// CHECK-NEXT: aten::convolution
// CHECK-NEXT: aten::relu
// CHECK-NEXT: exir.yield
// CHECK: aten::permute_copy
// CHECK-NOT: exir.delegate_region
module {
  exir.weight @w "parameter" = dense<0.5> : tensor<4x3x3x3xf32>
  func.func @forward(%x: tensor<1x3x8x8xf32> {exir.input = #exir.input<user_input, "x">},
                     %w: tensor<4x3x3x3xf32> {exir.input = #exir.input<parameter, "w">},
                     %y: tensor<4x3x3x3xf32> {exir.input = #exir.input<user_input, "y">},
                     %m: tensor<2x8xf32> {exir.input = #exir.input<user_input, "m">},
                     %s: tensor<f32> {exir.input = #exir.input<user_input, "s">})
      -> (tensor<1x4x8x8xf32>, tensor<1x8x8x4xf32>, tensor<1x4x8x8xf32>, tensor<2x8xf32>, tensor<f32>) {
    %0 = exir.aten "aten::convolution"(%x, %w) {dilation = array<i64: 1, 1>, groups = 1 : i64, operand_segments = array<i32: 1, 1, 0>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    %1 = exir.aten "aten::relu"(%0) {operand_segments = array<i32: 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    // expected-remark @+1 {{not delegated (xnnpack: this XNNPACK (Debian 12, 2022) has no transpose operator)}}
    %2 = exir.aten "aten::permute_copy"(%1) {dims = array<i64: 0, 2, 3, 1>, operand_segments = array<i32: 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x8x8x4xf32>
    // expected-remark @+1 {{not delegated (xnnpack: the convolution weight is not a constant (XNNPACK packs weights at load))}}
    %3 = exir.aten "aten::convolution"(%x, %y) {dilation = array<i64: 1, 1>, groups = 1 : i64, operand_segments = array<i32: 1, 1, 0>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    // expected-remark @+1 {{not delegated (xnnpack: this XNNPACK (Debian 12, 2022) has no gelu operator)}}
    %4 = exir.aten "aten::gelu"(%m) {approximate = "none", operand_segments = array<i32: 1>} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // The runtime half declares 0-d values as [1] and would refuse the blob.
    // expected-remark @+1 {{not delegated (xnnpack: a 0-d (scalar) result, which the XNNPACK runtime half does not take)}}
    %5 = exir.aten "aten::add.Scalar"(%s) {other = 5.000000e-01 : f64, operand_segments = array<i32: 1>} : (tensor<f32>) -> tensor<f32>
    return %1, %2, %3, %4, %5 : tensor<1x4x8x8xf32>, tensor<1x8x8x4xf32>, tensor<1x4x8x8xf32>, tensor<2x8xf32>, tensor<f32>
  }
}
