// RUN: aot-compile %models/two_methods/prefill.pt2:prefill %models/two_methods/decode.pt2:decode --compile-to=import | FileCheck %s

// Two exported programs as two methods of one module: the weights they share
// (same fqn, same bytes) exist once.

// CHECK-COUNT-1: exir.weight @proj.weight "parameter" = dense_resource<proj_weight> : tensor<32x16xf32>
// CHECK-NOT: exir.weight @proj.weight
// CHECK-LABEL: func.func @prefill(
// CHECK-SAME: tensor<1x4x16xf32> {exir.input = #exir.input<user_input,
// CHECK-LABEL: func.func @decode(
// CHECK-SAME: {exir.input = #exir.input<parameter, "proj.weight">}
// CHECK-SAME: tensor<1x1x16xf32> {exir.input = #exir.input<user_input,
// CHECK: return
