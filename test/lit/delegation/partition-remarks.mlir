// RUN: ptec-opt %s --exir-partition="backends=demo report-refusals=true" --verify-diagnostics -o /dev/null
// RUN: not ptec-opt %s --exir-partition=backends=nosuch 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not ptec-opt %s --exir-partition="backends=demo:bogus=1" 2>&1 | FileCheck %s --check-prefix=BADOPT

// UNKNOWN: error: exir-partition: unknown backend 'nosuch'; known: {{.*}}demo
// BADOPT: error: exir-partition: demo: unknown option 'bogus=1'

// Each op no backend takes gets a remark with every backend's reason.
func.func @why(%h: tensor<2xf16>, %m: tensor<3x3xf32>, %big: tensor<8xf32>) -> (tensor<2xf16>, tensor<3x3xf32>, tensor<8xf32>) {
  // expected-remark @+1 {{not delegated (demo: operands and results must be static float32 tensors, got tensor<2xf16>)}}
  %0 = exir.aten "aten::sin"(%h) {operand_segments = array<i32: 1>} : (tensor<2xf16>) -> tensor<2xf16>
  // expected-remark @+1 {{not delegated (demo: mm must be 2x2 @ 2x2}}
  %1 = exir.aten "aten::mm"(%m, %m) {operand_segments = array<i32: 1, 1>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  // expected-remark @+1 {{not delegated (demo: leading dimension 8 of the first input exceeds max_value 4)}}
  %2 = exir.aten "aten::sin"(%big) {operand_segments = array<i32: 1>} : (tensor<8xf32>) -> tensor<8xf32>
  // expected-remark @+1 {{not delegated (demo: the demo runtime computes only sin and mm-then-add)}}
  %3 = exir.aten "aten::neg"(%2) {operand_segments = array<i32: 1>} : (tensor<8xf32>) -> tensor<8xf32>
  return %0, %1, %3 : tensor<2xf16>, tensor<3x3xf32>, tensor<8xf32>
}
