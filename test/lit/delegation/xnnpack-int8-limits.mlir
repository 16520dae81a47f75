// RUN: ptec-opt %s --exir-partition="backends=xnnpack report-refusals=true" --verify-diagnostics | FileCheck %s

// int8 parameters XNNPACK would refuse when the delegate is initialised, or
// abort on, keep their ops on the portable kernels (format/XnnQuantLimits.h);
// the rest of each chain is still delegated.

// A per-tensor requantization scale below 2^-32 (input scale 2^-33, weight
// and output scale 1): XNNPACK's parameter setup asserts on it.
// CHECK-LABEL: func.func @tiny_requant
// CHECK: exir.delegate_region "XnnpackBackend"
// CHECK-NEXT: quantized_decomposed::quantize_per_tensor
// CHECK-NEXT: quantized_decomposed::dequantize_per_tensor
// CHECK-NEXT: exir.yield
// CHECK: aten::convolution"{{.*}}exir.refused = "xnnpack: int8 parameters
// CHECK: exir.delegate_region "XnnpackBackend"
// CHECK-NEXT: quantized_decomposed::quantize_per_tensor
module {
  exir.weight @w "buffer" = dense<1> : tensor<4x3x3x3xi8>
  func.func @tiny_requant(%x: tensor<1x3x8x8xf32> {exir.input = #exir.input<user_input, "x">},
                          %w: tensor<4x3x3x3xi8> {exir.input = #exir.input<buffer, "w">})
      -> tensor<1x4x8x8xi8> {
    // expected-remark @+1 {{not delegated (it computes from weights only, for an op that stays on portable kernels)}}
    %0 = exir.aten "quantized_decomposed::dequantize_per_tensor"(%w) {dtype = i8, operand_segments = array<i32: 1>, out_dtype = #exir.none, quant_max = 127 : i64, quant_min = -127 : i64, scale = 1.0 : f64, zero_point = 0 : i64} : (tensor<4x3x3x3xi8>) -> tensor<4x3x3x3xf32>
    %1 = exir.aten "quantized_decomposed::quantize_per_tensor"(%x) {dtype = i8, operand_segments = array<i32: 1>, quant_max = 127 : i64, quant_min = -128 : i64, scale = 1.16415321826934814453125e-10 : f64, zero_point = 0 : i64} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xi8>
    %2 = exir.aten "quantized_decomposed::dequantize_per_tensor"(%1) {dtype = i8, operand_segments = array<i32: 1>, out_dtype = #exir.none, quant_max = 127 : i64, quant_min = -128 : i64, scale = 1.16415321826934814453125e-10 : f64, zero_point = 0 : i64} : (tensor<1x3x8x8xi8>) -> tensor<1x3x8x8xf32>
    // expected-remark @+1 {{not delegated (xnnpack: int8 parameters XNNPACK does not take: requantization scale 1.164153e-10 (input scale x weight scale / output scale) is below 2^-32)}}
    %3 = exir.aten "aten::convolution"(%2, %0) {dilation = array<i64: 1, 1>, groups = 1 : i64, operand_segments = array<i32: 1, 1, 0>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    %4 = exir.aten "quantized_decomposed::quantize_per_tensor"(%3) {dtype = i8, operand_segments = array<i32: 1>, quant_max = 127 : i64, quant_min = -128 : i64, scale = 1.0 : f64, zero_point = 0 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xi8>
    return %4 : tensor<1x4x8x8xi8>
  }

// A bias that overflows int32 once quantized (0.5 / (1e-6 x 0.01) = 5e7 plus
// the products is fine; 500 / (1e-6 x 0.01) = 5e10 is not): the int32 bias
// would wrap and the results would be silently wrong.
// CHECK-LABEL: func.func @bias_overflow
// CHECK: aten::convolution"{{.*}}exir.refused = "xnnpack: int8 parameters XNNPACK does not take: bias 500
  exir.weight @bw "buffer" = dense<1> : tensor<4x3x1x1xi8>
  exir.weight @bs "buffer" = dense<0.01> : tensor<4xf32>
  exir.weight @bz "buffer" = dense<0> : tensor<4xi64>
  exir.weight @bb "parameter" = dense<500.0> : tensor<4xf32>
  func.func @bias_overflow(%x: tensor<1x3x8x8xf32> {exir.input = #exir.input<user_input, "x">},
                           %w: tensor<4x3x1x1xi8> {exir.input = #exir.input<buffer, "bw">},
                           %s: tensor<4xf32> {exir.input = #exir.input<buffer, "bs">},
                           %z: tensor<4xi64> {exir.input = #exir.input<buffer, "bz">},
                           %b: tensor<4xf32> {exir.input = #exir.input<parameter, "bb">})
      -> tensor<1x4x8x8xi8> {
    // expected-remark @+1 {{not delegated (it computes from weights only, for an op that stays on portable kernels)}}
    %0 = exir.aten "quantized_decomposed::dequantize_per_channel"(%w, %s, %z) {axis = 0 : i64, dtype = i8, operand_segments = array<i32: 1, 1, 1>, out_dtype = #exir.none, quant_max = 127 : i64, quant_min = -127 : i64} : (tensor<4x3x1x1xi8>, tensor<4xf32>, tensor<4xi64>) -> tensor<4x3x1x1xf32>
    %1 = exir.aten "quantized_decomposed::quantize_per_tensor"(%x) {dtype = i8, operand_segments = array<i32: 1>, quant_max = 127 : i64, quant_min = -128 : i64, scale = 1.0e-06 : f64, zero_point = 0 : i64} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xi8>
    %2 = exir.aten "quantized_decomposed::dequantize_per_tensor"(%1) {dtype = i8, operand_segments = array<i32: 1>, out_dtype = #exir.none, quant_max = 127 : i64, quant_min = -128 : i64, scale = 1.0e-06 : f64, zero_point = 0 : i64} : (tensor<1x3x8x8xi8>) -> tensor<1x3x8x8xf32>
    // expected-remark-re @+1 {{not delegated (xnnpack: int8 parameters XNNPACK does not take: bias 500 of output channel 0 is 5{{.*}} overflows int32)}}
    %3 = exir.aten "aten::convolution"(%2, %0, %b) {dilation = array<i64: 1, 1>, groups = 1 : i64, operand_segments = array<i32: 1, 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    %4 = exir.aten "quantized_decomposed::quantize_per_tensor"(%3) {dtype = i8, operand_segments = array<i32: 1>, quant_max = 127 : i64, quant_min = -128 : i64, scale = 1.0 : f64, zero_point = 0 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xi8>
    return %4 : tensor<1x4x8x8xi8>
  }

// Parameters XNNPACK defines no int8 value with, or that the delegate's one
// int8 value cannot carry: a subnormal scale, a dequantize whose parameters
// differ from its quantize's, a weight zero point other than 0, an output
// range the fused relu leaves empty (zero point 127: relu's 0 is the largest
// value), which XNNPACK's max pooling refuses.
// CHECK-LABEL: func.func @odd_params
  exir.weight @ow "buffer" = dense<1> : tensor<4x3x1x1xi8>
  exir.weight @os "buffer" = dense<0.01> : tensor<4xf32>
  exir.weight @oz "buffer" = dense<[0, 1, 0, 0]> : tensor<4xi64>
  func.func @odd_params(%x: tensor<1x3x8x8xf32> {exir.input = #exir.input<user_input, "x">},
                        %w: tensor<4x3x1x1xi8> {exir.input = #exir.input<buffer, "ow">},
                        %s: tensor<4xf32> {exir.input = #exir.input<buffer, "os">},
                        %z: tensor<4xi64> {exir.input = #exir.input<buffer, "oz">})
      -> (tensor<1x3x8x8xi8>, tensor<1x3x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x3x8x8xi8>) {
    // expected-remark @+1 {{not delegated (xnnpack: the scale 1e-40 is below float32's normal range (XNNPACK takes normal scales only))}}
    %0 = exir.aten "quantized_decomposed::quantize_per_tensor"(%x) {dtype = i8, operand_segments = array<i32: 1>, quant_max = 127 : i64, quant_min = -128 : i64, scale = 1.0e-40 : f64, zero_point = 0 : i64} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xi8>
    %1 = exir.aten "quantized_decomposed::quantize_per_tensor"(%x) {dtype = i8, operand_segments = array<i32: 1>, quant_max = 127 : i64, quant_min = -128 : i64, scale = 2.0e-02 : f64, zero_point = 3 : i64} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xi8>
    // expected-remark @+1 {{not delegated (xnnpack: its scale or zero point differs from its quantize's)}}
    %2 = exir.aten "quantized_decomposed::dequantize_per_tensor"(%1) {dtype = i8, operand_segments = array<i32: 1>, out_dtype = #exir.none, quant_max = 127 : i64, quant_min = -128 : i64, scale = 4.0e-02 : f64, zero_point = 3 : i64} : (tensor<1x3x8x8xi8>) -> tensor<1x3x8x8xf32>
    // expected-remark @+1 {{not delegated (xnnpack: a dequantized constant that is not an int8 weight XNNPACK takes (symmetric, per tensor or per output channel, normal scales): weight zero point 1 is not 0 (XNNPACK's int8 weights are symmetric))}}
    %3 = exir.aten "quantized_decomposed::dequantize_per_channel"(%w, %s, %z) {axis = 0 : i64, dtype = i8, operand_segments = array<i32: 1, 1, 1>, out_dtype = #exir.none, quant_max = 127 : i64, quant_min = -127 : i64} : (tensor<4x3x1x1xi8>, tensor<4xf32>, tensor<4xi64>) -> tensor<4x3x1x1xf32>
    // expected-remark @+1 {{not delegated (xnnpack: the convolution weight is not a constant (XNNPACK packs weights at load))}}
    %4 = exir.aten "aten::convolution"(%2, %3) {dilation = array<i64: 1, 1>, groups = 1 : i64, operand_segments = array<i32: 1, 1, 0>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x8x8xf32>
    %5 = exir.aten "quantized_decomposed::dequantize_per_tensor"(%1) {dtype = i8, operand_segments = array<i32: 1>, out_dtype = #exir.none, quant_max = 127 : i64, quant_min = -128 : i64, scale = 2.0e-02 : f64, zero_point = 3 : i64} : (tensor<1x3x8x8xi8>) -> tensor<1x3x8x8xf32>
    // expected-remark @+1 {{not delegated (xnnpack: int8 parameters XNNPACK does not take: the quantized output range [127, 127] is empty (a clamp that leaves one value))}}
    %6:2 = exir.aten "aten::max_pool2d_with_indices"(%5) {ceil_mode = false, dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, operand_segments = array<i32: 1>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>) -> (tensor<1x3x8x8xf32>, tensor<1x3x8x8xi64>)
    %7 = exir.aten "aten::relu"(%6#0) {operand_segments = array<i32: 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
    %8 = exir.aten "quantized_decomposed::quantize_per_tensor"(%7) {dtype = i8, operand_segments = array<i32: 1>, quant_max = 127 : i64, quant_min = -128 : i64, scale = 2.0e-02 : f64, zero_point = 127 : i64} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xi8>
    return %0, %2, %4, %8 : tensor<1x3x8x8xi8>, tensor<1x3x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x3x8x8xi8>
  }
}
