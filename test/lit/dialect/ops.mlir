// RUN: ptec-opt %s | ptec-opt | FileCheck %s
// Round trip of every exir op through the printer and parser.

// CHECK: exir.weight @fc.weight "parameter" = dense<1.000000e+00> : tensor<2x2xf32>
exir.weight @"fc.weight" "parameter" = dense<1.0> : tensor<2x2xf32>
// CHECK: exir.weight @count "buffer" mutable = dense<0> : tensor<i64>
exir.weight @count "buffer" mutable = dense<0> : tensor<i64>

// CHECK-LABEL: func.func @forward
// CHECK-SAME: {exir.input = #exir.input<user_input>}
// CHECK-SAME: {exir.input = #exir.input<parameter, "fc.weight">}
// CHECK-SAME: {exir.output = #exir.output<buffer_mutation, "count">}
func.func @forward(%x: tensor<2x2xf32> {exir.input = #exir.input<user_input>},
                   %w: tensor<2x2xf32> {exir.input = #exir.input<parameter, "fc.weight">},
                   %n: tensor<i64> {exir.input = #exir.input<buffer, "count">})
    -> (tensor<i64> {exir.output = #exir.output<buffer_mutation, "count">},
        tensor<2x2xf32> {exir.output = #exir.output<user_output>}) {
  // CHECK: exir.aten "aten::mm"(%{{.*}}, %{{.*}}) {operand_segments = array<i32: 1, 1>}
  %y = exir.aten "aten::mm"(%x, %w) {operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK: exir.aten "aten::add.Scalar"(%{{.*}}) {alpha = 1 : i64, operand_segments = array<i32: 1>, other = 1 : i64}
  %n1 = exir.aten "aten::add.Scalar"(%n) {other = 1 : i64, alpha = 1 : i64, operand_segments = array<i32: 1>} : (tensor<i64>) -> tensor<i64>
  // CHECK: exir.copy_ %{{.*}}, %{{.*}} : tensor<i64>, tensor<i64>
  exir.copy_ %n, %n1 : tensor<i64>, tensor<i64>
  // CHECK: exir.alloc {exir.mem = #exir.mem<1, 0, 16>} : tensor<2x2xf32>
  %o = exir.alloc {exir.mem = #exir.mem<1, 0, 16>} : tensor<2x2xf32>
  return %n1, %y : tensor<i64>, tensor<2x2xf32>
}

// CHECK: exir.lowered_module @demo_0
// CHECK-SAME: share_handle_across_calls
exir.lowered_module @demo_0 {backend = "BackendWithCompilerDemo", blob = "1version:0#",
    compile_specs = [#exir.compile_spec<"max_value", "\04">],
    function_type = (tensor<2x2xf32>) -> tensor<2x2xf32>,
    share_handle_across_calls, scratch = [#exir.scratch<64, 16>]}

// CHECK-LABEL: func.func @calls
func.func @calls(%x: tensor<2x2xf32> {exir.input = #exir.input<user_input>}) -> tensor<2x2xf32> {
  // CHECK: exir.delegate_region "BackendWithCompilerDemo"
  %r = exir.delegate_region "BackendWithCompilerDemo" {
    %s = exir.aten "aten::sin"(%x) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    exir.yield %s : tensor<2x2xf32>
  } : tensor<2x2xf32>
  // CHECK: exir.delegate_call @demo_0(%{{.*}}) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %c = exir.delegate_call @demo_0(%r) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}
