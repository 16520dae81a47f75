// RUN: aot-compile %models/mlp/model.pt2 --compile-to=import --print-weights | FileCheck %s

// Two linear layers with relu: parameters become exir.weight blobs and
// arguments with their kind and fqn; omitted defaults (alpha, beta) are filled.

// CHECK: module attributes {{{.*}}exir.version = "1.{{[0-9]+}}"
// CHECK: exir.weight @fc1.weight "parameter" = dense_resource<fc1_weight> : tensor<64x32xf32>
// CHECK: exir.weight @fc1.bias "parameter" = dense_resource<fc1_bias> : tensor<64xf32>
// CHECK: exir.weight @fc2.weight "parameter" = dense_resource<fc2_weight> : tensor<16x64xf32>
// CHECK: exir.weight @fc2.bias "parameter" = dense_resource<fc2_bias> : tensor<16xf32>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[W1:[^:]*]]: tensor<64x32xf32> {exir.input = #exir.input<parameter, "fc1.weight">}
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x32xf32> {exir.input = #exir.input<user_input, "x">}
// CHECK-SAME: -> (tensor<4x16xf32> {exir.output = #exir.output<user_output>})
// CHECK: %[[T:.*]] = exir.aten "aten::permute"(%[[W1]]) {dims = array<i64: 1, 0>
// CHECK: exir.aten "aten::addmm"(%{{.*}}, %[[X]], %[[T]]) {alpha = 1 : i64, beta = 1 : i64
// CHECK: exir.aten "aten::relu"
// CHECK: exir.aten "aten::addmm"
// CHECK: return %{{.*}} : tensor<4x16xf32>
// CHECK: dialect_resources
// CHECK: fc1_weight: "0x10000000
