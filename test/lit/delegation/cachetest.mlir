// RUN: ptec-opt %s --exir-partition="backends=cachetest report-refusals=true" --verify-diagnostics | FileCheck %s --check-prefix=PART
// RUN: ptec-opt %s --exir-partition=backends=cachetest --exir-outline-delegates | FileCheck %s

// The cachetest backend takes linears (addmm, mm) whose weight and bias are
// immutable exir.weight constants, one region each, and bakes the weights
// into the blob: signature header "PTCX", version 1, then N=3, K=4,
// workspace 4*N=12, 0, W = wT^T, b (zeros for mm). A buffer operand stays
// portable.

// PART: exir.delegate_region "PtecCacheTestBackend" {
// PART-NEXT: exir.aten "aten::addmm"
// PART-NEXT: exir.yield
// PART: exir.delegate_region "PtecCacheTestBackend" {
// PART-NEXT: exir.aten "aten::mm"
// PART-NEXT: exir.yield
// PART: exir.aten "aten::mm"(%arg0, %arg3)

// CHECK: exir.lowered_module @cachetest_0 {backend = "PtecCacheTestBackend", blob = "PTCX\01\00\00\00{{.*}}\03\00\00\00\04\00\00\00\0C\00\00\00\00\00\00\00{{.*}}\00\00\00@\00\00@@", compile_specs = [], function_type = (tensor<3xf32>, tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>, share_handle_across_calls}
// CHECK: exir.lowered_module @cachetest_1 {backend = "PtecCacheTestBackend", blob = "PTCX{{.*}}\00\00\00\00\00\00\00\00\00\00\00\00", compile_specs = [], function_type = (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>, share_handle_across_calls}
// CHECK-LABEL: func.func @forward(
// CHECK: exir.delegate_call @cachetest_0(%arg2, %arg0, %arg1)
// CHECK: exir.delegate_call @cachetest_1(%arg0, %arg1)
// CHECK: exir.aten "aten::mm"(%arg0, %arg3)

module {
  exir.weight @w "constant" = dense<1.0> : tensor<4x3xf32>
  exir.weight @b "parameter" = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  exir.weight @s "buffer" mutable = dense<0.0> : tensor<4x3xf32>
  func.func @forward(%x: tensor<2x4xf32> {exir.input = #exir.input<user_input, "x">},
                     %w: tensor<4x3xf32> {exir.input = #exir.input<constant, "w">},
                     %b: tensor<3xf32> {exir.input = #exir.input<parameter, "b">},
                     %s: tensor<4x3xf32> {exir.input = #exir.input<buffer, "s">})
      -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
    %0 = exir.aten "aten::addmm"(%b, %x, %w) {alpha = 1 : i64, beta = 1 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<3xf32>, tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    %1 = exir.aten "aten::mm"(%x, %w) {operand_segments = array<i32: 1, 1>} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    // expected-remark @+1 {{not delegated (cachetest: weight: weights must be parameters or constants)}}
    %2 = exir.aten "aten::mm"(%x, %s) {operand_segments = array<i32: 1, 1>} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    // expected-remark @+1 {{not delegated (cachetest: the cachetest backend computes only linear layers (addmm, mm))}}
    %n = exir.aten "aten::neg"(%w) {operand_segments = array<i32: 1>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
    // expected-remark @+1 {{not delegated (cachetest: weight: weights must be method arguments (constants), not computed values)}}
    %3 = exir.aten "aten::mm"(%x, %n) {operand_segments = array<i32: 1, 1>} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    // expected-remark @+1 {{not delegated (cachetest: the cachetest backend computes only linear layers (addmm, mm))}}
    %4 = exir.aten "aten::add.Tensor"(%2, %3) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    return %0, %1, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
  }
}
