// RUN: ptec-opt %s --split-input-file --exir-outline-delegates --verify-diagnostics | FileCheck %s
// RUN: ptec-opt %s --split-input-file --exir-outline-delegates=share-delegates=false --verify-diagnostics | FileCheck %s --check-prefix=NOSHARE

// A sin region: blob in upstream's grammar, max_value = leading dim (one
// byte), the share flag, no scratch written; the region is a call now.

// CHECK: exir.lowered_module @demo_0 {backend = "BackendWithCompilerDemo", blob = "1version:0#op:demo::aten.sin.default, numel:4, dtype:torch.float32<debug_handle>-1#", compile_specs = [#exir.compile_spec<"max_value", "\02">], function_type = (tensor<2x2xf32>) -> tensor<2x2xf32>, share_handle_across_calls}
// CHECK-LABEL: func.func @sin(
// CHECK-NEXT: %[[C:.*]] = exir.delegate_call @demo_0(%arg0) : (tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT: return %[[C]]
// NOSHARE: exir.lowered_module @demo_0 {backend = "BackendWithCompilerDemo", blob = "{{[^"]*}}", compile_specs = [#exir.compile_spec<"max_value", "\02">], function_type = (tensor<2x2xf32>) -> tensor<2x2xf32>}
func.func @sin(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = exir.delegate_region "BackendWithCompilerDemo" {
    %1 = exir.aten "aten::sin"(%x) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    exir.yield %1 : tensor<2x2xf32>
  } : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// mm-then-add: arguments [a, x, b] in first-use order, two records; a debug
// handle on the op is written into its record.

// CHECK: exir.lowered_module @demo_0 {backend = "BackendWithCompilerDemo", blob = "2version:0#op:demo::aten.mm.default, numel:4, dtype:torch.float32<debug_handle>7#op:demo::aten.add.Tensor, numel:4, dtype:torch.float32<debug_handle>-1#"
// CHECK-SAME: function_type = (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK-LABEL: func.func @mm_add(
// CHECK: exir.delegate_call @demo_0(%arg0, %arg1, %arg2)
func.func @mm_add(%a: tensor<2x2xf32>, %x: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = exir.delegate_region "BackendWithCompilerDemo" {
    %1 = exir.aten "aten::mm"(%a, %x) {exir.debug_handle = 7 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %2 = exir.aten "aten::add.Tensor"(%b, %1) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    exir.yield %2 : tensor<2x2xf32>
  } : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Two regions with identical blobs stay two lowered modules (sharing is by
// lowered-module identity, never by bytes).

// CHECK: exir.lowered_module @demo_0
// CHECK: exir.lowered_module @demo_1
// CHECK-LABEL: func.func @two_regions(
// CHECK: exir.delegate_call @demo_0(%arg0)
// CHECK: exir.delegate_call @demo_1(%arg1)
func.func @two_regions(%x: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = exir.delegate_region "BackendWithCompilerDemo" {
    %1 = exir.aten "aten::sin"(%x) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    exir.yield %1 : tensor<2x2xf32>
  } : tensor<2x2xf32>
  %2 = exir.delegate_region "BackendWithCompilerDemo" {
    %3 = exir.aten "aten::sin"(%y) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    exir.yield %3 : tensor<2x2xf32>
  } : tensor<2x2xf32>
  return %0, %2 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// Scratch mode: a scratch spec and the scratch_bytes compile spec after
// max_value (spec 0); the share flag stays but scratch disables sharing.

// CHECK: exir.lowered_module @demo_0 {{{.*}}compile_specs = [#exir.compile_spec<"max_value", "\02">, #exir.compile_spec<"scratch_bytes", "@\00\00\00">]{{.*}}, scratch = [#exir.scratch<64, 16>], share_handle_across_calls}
func.func @scratch(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = exir.delegate_region "BackendWithCompilerDemo" attributes {exir.backend_options = "scratch=64"} {
    %1 = exir.aten "aten::sin"(%x) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    exir.yield %1 : tensor<2x2xf32>
  } : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// A name already taken is skipped.

// CHECK: exir.lowered_module @demo_0 {backend = "Other"
// CHECK: exir.lowered_module @demo_1 {backend = "BackendWithCompilerDemo"
exir.lowered_module @demo_0 {backend = "Other", blob = "", compile_specs = [], function_type = () -> ()}
func.func @taken(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = exir.delegate_region "BackendWithCompilerDemo" {
    %1 = exir.aten "aten::sin"(%x) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    exir.yield %1 : tensor<2x2xf32>
  } : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// preprocess refuses what the runtime cannot compute: a lone mm.

func.func @lone_mm(%a: tensor<2x2xf32>, %x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{demo backend cannot compute this region: only a single sin or mm followed by add.Tensor}}
  %0 = exir.delegate_region "BackendWithCompilerDemo" {
    %1 = exir.aten "aten::mm"(%a, %x) {operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    exir.yield %1 : tensor<2x2xf32>
  } : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @unknown(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{cannot outline delegate region: no ahead-of-time backend has the runtime id 'NoSuchBackend'}}
  %0 = exir.delegate_region "NoSuchBackend" {
    %1 = exir.aten "aten::sin"(%x) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    exir.yield %1 : tensor<2x2xf32>
  } : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Weights a backend bakes into its data (XnnpackBackend: every constant, as
// named data) are not passed by the call: the call and the lowered module's
// type hold the other inputs only, and the constants' bytes travel with the
// lowered module (named_data, keyed by SHA-256).
// CHECK-LABEL: exir.lowered_module @xnnpack_0
// CHECK-SAME: function_type = (tensor<3x4xf32>) -> tensor<3x2xf32>
// CHECK-SAME: named_data = {
// CHECK-LABEL: func.func @baked(
// CHECK: exir.delegate_call @xnnpack_0(%arg1) : (tensor<3x4xf32>) -> tensor<3x2xf32>
module {
  exir.weight @b "parameter" = dense<[1.0, -1.0]> : tensor<2xf32>
  exir.weight @wT "parameter" = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  func.func @baked(%b: tensor<2xf32> {exir.input = #exir.input<parameter, "b">}, %x: tensor<3x4xf32> {exir.input = #exir.input<user_input, "x">}, %wT: tensor<4x2xf32> {exir.input = #exir.input<parameter, "wT">}) -> tensor<3x2xf32> {
    %0 = exir.delegate_region "XnnpackBackend" {
      %1 = exir.aten "aten::addmm"(%b, %x, %wT) {alpha = 1 : i64, beta = 1 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<2xf32>, tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
      exir.yield %1 : tensor<3x2xf32>
    } : tensor<3x2xf32>
    return %0 : tensor<3x2xf32>
  }
}
