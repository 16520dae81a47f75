// RUN: ptec-opt %s --exir-partition="backends=xnnpack report-refusals=true" --verify-diagnostics | FileCheck %s
// RUN: not ptec-opt %s --exir-partition="backends=xnnpack:bogus" 2>&1 | FileCheck %s --check-prefix=BADOPT

// BADOPT: error: exir-partition: xnnpack: unknown option 'bogus' (known: scratch)

// A conv with a constant weight, the relu and the permute after it form one
// XNNPACK region; what the backend cannot run stays portable, with a reason.
// CHECK-LABEL: func.func @forward
// CHECK: aten::gelu
// CHECK: exir.delegate_region "XnnpackBackend"
// CHECK-NEXT: aten::convolution
// CHECK-NEXT: aten::relu
// CHECK-NEXT: aten::permute_copy
// An elementwise op on a 0-d tensor is taken (the capability table both
// halves share allows 0-d for it; the runtime computes it as [1]).
// CHECK-NEXT: aten::add.Scalar
// CHECK-NEXT: exir.yield
// CHECK-NOT: exir.delegate_region
// CHECK: return
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
    %2 = exir.aten "aten::permute_copy"(%1) {dims = array<i64: 0, 2, 3, 1>, operand_segments = array<i32: 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x8x8x4xf32>
    // expected-remark @+1 {{not delegated (xnnpack: the convolution weight is not a constant (XNNPACK packs weights at load))}}
    %3 = exir.aten "aten::convolution"(%x, %y) {dilation = array<i64: 1, 1>, groups = 1 : i64, operand_segments = array<i32: 1, 1, 0>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    // expected-remark @+1 {{not delegated (xnnpack: gelu with approximate='tanh' (XNNPACK's gelu is the erf form))}}
    %4 = exir.aten "aten::gelu"(%m) {approximate = "tanh", operand_segments = array<i32: 1>} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %5 = exir.aten "aten::add.Scalar"(%s) {other = 5.000000e-01 : f64, operand_segments = array<i32: 1>} : (tensor<f32>) -> tensor<f32>
    return %1, %2, %3, %4, %5 : tensor<1x4x8x8xf32>, tensor<1x8x8x4xf32>, tensor<1x4x8x8xf32>, tensor<2x8xf32>, tensor<f32>
  }

// PT2E int8: the quantize / dequantize pairs and the per-channel weight
// dequantize (moved next to the convolution it feeds) join the
// convolution's region (XNNPACK runs it in int8); a uint8 quantize stays
// portable.
// CHECK-LABEL: func.func @qconv
// CHECK: exir.delegate_region "XnnpackBackend"
// CHECK-NEXT: quantized_decomposed::quantize_per_tensor
// CHECK-NEXT: quantized_decomposed::dequantize_per_tensor
// CHECK-NEXT: quantized_decomposed::dequantize_per_channel
// CHECK-NEXT: aten::convolution
// CHECK-NEXT: aten::relu
// CHECK-NEXT: quantized_decomposed::quantize_per_tensor
// CHECK-NEXT: quantized_decomposed::dequantize_per_tensor
// CHECK-NEXT: exir.yield
// CHECK: quantized_decomposed::quantize_per_tensor"{{.*}}quant_max = 255
// CHECK-NOT: exir.delegate_region
  exir.weight @qw "buffer" = dense<1> : tensor<4x3x3x3xi8>
  exir.weight @qs "buffer" = dense<0.01> : tensor<4xf32>
  exir.weight @qz "buffer" = dense<0> : tensor<4xi64>
  func.func @qconv(%x: tensor<1x3x8x8xf32> {exir.input = #exir.input<user_input, "x">},
                   %w: tensor<4x3x3x3xi8> {exir.input = #exir.input<buffer, "qw">},
                   %s: tensor<4xf32> {exir.input = #exir.input<buffer, "qs">},
                   %z: tensor<4xi64> {exir.input = #exir.input<buffer, "qz">})
      -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xui8>) {
    %0 = exir.aten "quantized_decomposed::dequantize_per_channel"(%w, %s, %z) {axis = 0 : i64, dtype = i8, operand_segments = array<i32: 1, 1, 1>, out_dtype = #exir.none, quant_max = 127 : i64, quant_min = -127 : i64} : (tensor<4x3x3x3xi8>, tensor<4xf32>, tensor<4xi64>) -> tensor<4x3x3x3xf32>
    %1 = exir.aten "quantized_decomposed::quantize_per_tensor"(%x) {dtype = i8, operand_segments = array<i32: 1>, quant_max = 127 : i64, quant_min = -128 : i64, scale = 2.0e-02 : f64, zero_point = 3 : i64} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xi8>
    %2 = exir.aten "quantized_decomposed::dequantize_per_tensor"(%1) {dtype = i8, operand_segments = array<i32: 1>, out_dtype = #exir.none, quant_max = 127 : i64, quant_min = -128 : i64, scale = 2.0e-02 : f64, zero_point = 3 : i64} : (tensor<1x3x8x8xi8>) -> tensor<1x3x8x8xf32>
    %3 = exir.aten "aten::convolution"(%2, %0) {dilation = array<i64: 1, 1>, groups = 1 : i64, operand_segments = array<i32: 1, 1, 0>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    %4 = exir.aten "aten::relu"(%3) {operand_segments = array<i32: 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    %5 = exir.aten "quantized_decomposed::quantize_per_tensor"(%4) {dtype = i8, operand_segments = array<i32: 1>, quant_max = 127 : i64, quant_min = -128 : i64, scale = 5.0e-02 : f64, zero_point = -128 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xi8>
    %6 = exir.aten "quantized_decomposed::dequantize_per_tensor"(%5) {dtype = i8, operand_segments = array<i32: 1>, out_dtype = #exir.none, quant_max = 127 : i64, quant_min = -128 : i64, scale = 5.0e-02 : f64, zero_point = -128 : i64} : (tensor<1x4x8x8xi8>) -> tensor<1x4x8x8xf32>
    // expected-remark @+1 {{not delegated (xnnpack: only float32 to int8 quantization is lowered)}}
    %7 = exir.aten "quantized_decomposed::quantize_per_tensor"(%6) {dtype = ui8, operand_segments = array<i32: 1>, quant_max = 255 : i64, quant_min = 0 : i64, scale = 5.0e-02 : f64, zero_point = 0 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xui8>
    return %6, %7 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xui8>
  }

// A portable op between the activations' quantizes splits the int8 chain
// in two groups. The weight's dequantize and transpose read only weights
// (int8 weights are buffers the method never writes) and feed one op, so
// they join that op's group: the addmm packs its weight in the second
// region, although torch.export put the weight ops first.
// CHECK-LABEL: func.func @qsplit
// CHECK: exir.delegate_region "XnnpackBackend"
// CHECK-NEXT: quantized_decomposed::quantize_per_tensor
// CHECK-NEXT: quantized_decomposed::dequantize_per_tensor
// CHECK-NEXT: exir.yield
// CHECK: aten::cumsum
// CHECK: exir.delegate_region "XnnpackBackend"
// CHECK: quantized_decomposed::dequantize_per_channel
// CHECK-NEXT: aten::permute_copy
// CHECK-NEXT: aten::addmm
// CHECK: exir.yield
// CHECK-NEXT: } :
// CHECK-NEXT: return
  exir.weight @lw "buffer" = dense<1> : tensor<8x16xi8>
  exir.weight @ls "buffer" = dense<0.01> : tensor<8xf32>
  exir.weight @lz "buffer" = dense<0> : tensor<8xi64>
  exir.weight @lb "parameter" = dense<0.5> : tensor<8xf32>
  func.func @qsplit(%x: tensor<4x16xf32> {exir.input = #exir.input<user_input, "x">},
                    %w: tensor<8x16xi8> {exir.input = #exir.input<buffer, "lw">},
                    %s: tensor<8xf32> {exir.input = #exir.input<buffer, "ls">},
                    %z: tensor<8xi64> {exir.input = #exir.input<buffer, "lz">},
                    %b: tensor<8xf32> {exir.input = #exir.input<parameter, "lb">})
      -> tensor<4x8xf32> {
    %0 = exir.aten "quantized_decomposed::dequantize_per_channel"(%w, %s, %z) {axis = 0 : i64, dtype = i8, operand_segments = array<i32: 1, 1, 1>, out_dtype = #exir.none, quant_max = 127 : i64, quant_min = -127 : i64} : (tensor<8x16xi8>, tensor<8xf32>, tensor<8xi64>) -> tensor<8x16xf32>
    %1 = exir.aten "aten::permute_copy"(%0) {dims = array<i64: 1, 0>, operand_segments = array<i32: 1>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %2 = exir.aten "quantized_decomposed::quantize_per_tensor"(%x) {dtype = i8, operand_segments = array<i32: 1>, quant_max = 127 : i64, quant_min = -128 : i64, scale = 2.0e-02 : f64, zero_point = 3 : i64} : (tensor<4x16xf32>) -> tensor<4x16xi8>
    %3 = exir.aten "quantized_decomposed::dequantize_per_tensor"(%2) {dtype = i8, operand_segments = array<i32: 1>, out_dtype = #exir.none, quant_max = 127 : i64, quant_min = -128 : i64, scale = 2.0e-02 : f64, zero_point = 3 : i64} : (tensor<4x16xi8>) -> tensor<4x16xf32>
    // expected-remark @+1 {{not delegated (xnnpack: not an operator the XNNPACK backend lowers)}}
    %4 = exir.aten "aten::cumsum"(%3) {dim = 1 : i64, dtype = #exir.none, operand_segments = array<i32: 1>} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %5 = exir.aten "quantized_decomposed::quantize_per_tensor"(%4) {dtype = i8, operand_segments = array<i32: 1>, quant_max = 127 : i64, quant_min = -128 : i64, scale = 5.0e-02 : f64, zero_point = 0 : i64} : (tensor<4x16xf32>) -> tensor<4x16xi8>
    %6 = exir.aten "quantized_decomposed::dequantize_per_tensor"(%5) {dtype = i8, operand_segments = array<i32: 1>, out_dtype = #exir.none, quant_max = 127 : i64, quant_min = -128 : i64, scale = 5.0e-02 : f64, zero_point = 0 : i64} : (tensor<4x16xi8>) -> tensor<4x16xf32>
    %7 = exir.aten "aten::addmm"(%b, %6, %1) {alpha = 1 : i64, beta = 1 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<8xf32>, tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
    %8 = exir.aten "quantized_decomposed::quantize_per_tensor"(%7) {dtype = i8, operand_segments = array<i32: 1>, quant_max = 127 : i64, quant_min = -128 : i64, scale = 4.0e-02 : f64, zero_point = -1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xi8>
    %9 = exir.aten "quantized_decomposed::dequantize_per_tensor"(%8) {dtype = i8, operand_segments = array<i32: 1>, out_dtype = #exir.none, quant_max = 127 : i64, quant_min = -128 : i64, scale = 4.0e-02 : f64, zero_point = -1 : i64} : (tensor<4x8xi8>) -> tensor<4x8xf32>
    return %9 : tensor<4x8xf32>
  }

// Data movement, batched matmul and the transcendental unaries the runtime
// runs as its own kernels (upstream's XNNPACK has them as operators): one
// region. A strided slice and a cat with an empty input stay portable.
// CHECK-LABEL: func.func @layout
// CHECK: exir.delegate_region "XnnpackBackend"
// CHECK-NEXT: aten::cat
// CHECK-NEXT: aten::slice_copy.Tensor
// CHECK-NEXT: aten::transpose_copy.int
// CHECK-NEXT: aten::bmm
// CHECK-NEXT: aten::tanh
// CHECK-NEXT: aten::gelu
// CHECK-NEXT: aten::exp
// CHECK-NEXT: aten::log
// CHECK-NEXT: aten::sin
// CHECK-NEXT: aten::cos
// CHECK-NEXT: aten::rsqrt
// CHECK-NEXT: aten::cat
// CHECK-NEXT: exir.yield
// CHECK-NOT: exir.delegate_region
// CHECK: return
  func.func @layout(%a: tensor<2x3x4xf32> {exir.input = #exir.input<user_input, "a">},
                    %b: tensor<2x5x4xf32> {exir.input = #exir.input<user_input, "b">},
                    %e: tensor<0xf32> {exir.input = #exir.input<user_input, "e">})
      -> (tensor<2x4x4xf32>, tensor<2x2x4xf32>, tensor<2x28x4xf32>) {
    %0 = exir.aten "aten::cat"(%a, %b) {dim = 1 : i64, operand_segments = array<i32: 2>} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x8x4xf32>
    %1 = exir.aten "aten::slice_copy.Tensor"(%0) {dim = 1 : i64, end = 6 : i64, start = 2 : i64, step = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
    %2 = exir.aten "aten::transpose_copy.int"(%1) {dim0 = 1 : i64, dim1 = 2 : i64, operand_segments = array<i32: 1>} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %3 = exir.aten "aten::bmm"(%1, %2) {operand_segments = array<i32: 1, 1>} : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %4 = exir.aten "aten::tanh"(%3) {operand_segments = array<i32: 1>} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %5 = exir.aten "aten::gelu"(%4) {approximate = "none", operand_segments = array<i32: 1>} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %6 = exir.aten "aten::exp"(%5) {operand_segments = array<i32: 1>} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %7 = exir.aten "aten::log"(%6) {operand_segments = array<i32: 1>} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %8 = exir.aten "aten::sin"(%7) {operand_segments = array<i32: 1>} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %9 = exir.aten "aten::cos"(%8) {operand_segments = array<i32: 1>} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %10 = exir.aten "aten::rsqrt"(%9) {operand_segments = array<i32: 1>} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    // expected-remark @+1 {{not delegated (xnnpack: a slice with a step other than 1 (XNNPACK slices contiguous ranges))}}
    %11 = exir.aten "aten::slice_copy.Tensor"(%0) {dim = 1 : i64, end = #exir.none, start = 0 : i64, step = 4 : i64, operand_segments = array<i32: 1>} : (tensor<2x8x4xf32>) -> tensor<2x2x4xf32>
    // expected-remark @+1 {{not delegated (xnnpack: every input must be a non-empty static float32 tensor of the result's rank)}}
    %12 = exir.aten "aten::cat"(%11, %e) {dim = 1 : i64, operand_segments = array<i32: 2>} : (tensor<2x2x4xf32>, tensor<0xf32>) -> tensor<2x2x4xf32>
    // Seven inputs: one cat op (the lowering chains Concatenate5 and Concatenate3).
    %13 = exir.aten "aten::cat"(%10, %10, %10, %10, %10, %10, %1) {dim = 1 : i64, operand_segments = array<i32: 7>} : (tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x28x4xf32>
    return %10, %12, %13 : tensor<2x4x4xf32>, tensor<2x2x4xf32>, tensor<2x28x4xf32>
  }

// matmul's decomposition expands an operand to the shape it already has:
// taken (no node is written for it), so the bmm stays with its neighbours;
// a real broadcast stays portable.
// CHECK-LABEL: func.func @expand
// CHECK: exir.delegate_region "XnnpackBackend"
// CHECK-NEXT: aten::expand_copy
// CHECK-NEXT: aten::bmm
// CHECK-NEXT: exir.yield
// CHECK: aten::expand_copy"{{.*}}tensor<1x4x4xf32>) -> tensor<3x4x4xf32>
  func.func @expand(%a: tensor<3x4x4xf32> {exir.input = #exir.input<user_input, "a">},
                    %b: tensor<1x4x4xf32> {exir.input = #exir.input<user_input, "b">})
      -> (tensor<3x4x4xf32>, tensor<3x4x4xf32>) {
    %0 = exir.aten "aten::expand_copy"(%a) {implicit = false, operand_segments = array<i32: 1>, size = array<i64: 3, 4, 4>} : (tensor<3x4x4xf32>) -> tensor<3x4x4xf32>
    %1 = exir.aten "aten::bmm"(%0, %a) {operand_segments = array<i32: 1, 1>} : (tensor<3x4x4xf32>, tensor<3x4x4xf32>) -> tensor<3x4x4xf32>
    // expected-remark @+1 {{not delegated (xnnpack: this XNNPACK (Debian 12, 2022) has no broadcast-copy operator)}}
    %2 = exir.aten "aten::expand_copy"(%b) {implicit = false, operand_segments = array<i32: 1>, size = array<i64: 3, 4, 4>} : (tensor<1x4x4xf32>) -> tensor<3x4x4xf32>
    return %1, %2 : tensor<3x4x4xf32>, tensor<3x4x4xf32>
  }

// A group must be convex. The mm reads only a constant buffer; the permute
// reads the mm's result through the portable slice and slice_scatter, so one
// region holding both would have to run before and after them: the group is
// cut there (the mm alone, then the permute and the add).
// CHECK-LABEL: func.func @convex
// CHECK: exir.delegate_region "XnnpackBackend"
// CHECK-NEXT: aten::mm
// CHECK-NEXT: exir.yield
// CHECK: aten::slice_scatter
// CHECK: exir.delegate_region "XnnpackBackend"
// CHECK-NEXT: aten::permute_copy
// CHECK-NEXT: aten::add.Tensor
// CHECK-NEXT: exir.yield
  exir.weight @cb "buffer" = dense<[[0.75, 0.08], [-0.79, 0.23]]> : tensor<2x2xf32>
  func.func @convex(%x: tensor<2x2xf32> {exir.input = #exir.input<user_input, "x">},
                    %b: tensor<2x2xf32> {exir.input = #exir.input<buffer, "cb">})
      -> tensor<2x2xf32> {
    %0 = exir.aten "aten::mm"(%b, %b) {operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    // expected-remark @+1 {{not delegated (xnnpack: a slice with a step other than 1 (XNNPACK slices contiguous ranges))}}
    %1 = exir.aten "aten::slice_copy.Tensor"(%0) {dim = 0 : i64, end = 2 : i64, start = 0 : i64, step = 2 : i64, operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<1x2xf32>
    // expected-remark @+1 {{not delegated (xnnpack: not an operator the XNNPACK backend lowers)}}
    %2 = exir.aten "aten::slice_scatter"(%0, %1) {dim = 0 : i64, end = 2 : i64, start = 0 : i64, step = 2 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
    %3 = exir.aten "aten::permute_copy"(%2) {dims = array<i64: 1, 0>, operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %4 = exir.aten "aten::add.Tensor"(%3, %x) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    return %4 : tensor<2x2xf32>
  }
}
