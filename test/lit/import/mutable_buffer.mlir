// RUN: aot-compile %models/mutable_buffer/model.pt2 --compile-to=import | FileCheck %s

// A counter and a KV-cache style buffer, both written back: the weights are
// `mutable` and the new values are buffer_mutation results.

// CHECK: exir.weight @count "buffer" mutable = dense_resource<count> : tensor<i64>
// CHECK: exir.weight @cache "buffer" mutable = dense_resource<cache> : tensor<1x16x8xf32>
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[COUNT:[^:]*]]: tensor<i64> {exir.input = #exir.input<buffer, "count">}
// CHECK-SAME: %[[CACHE:[^:]*]]: tensor<1x16x8xf32> {exir.input = #exir.input<buffer, "cache">}
// CHECK-SAME: -> (tensor<i64> {exir.output = #exir.output<buffer_mutation, "count">}, tensor<1x16x8xf32> {exir.output = #exir.output<buffer_mutation, "cache">}, tensor<1x8xf32> {exir.output = #exir.output<user_output>})
// CHECK: %[[N:.*]] = exir.aten "aten::add.Scalar"(%[[COUNT]]) {alpha = 1 : i64, operand_segments = array<i32: 1>, other = 1 : i64}
// CHECK: exir.aten "aten::slice_scatter"
// CHECK: %[[NEW:.*]] = exir.aten "aten::slice_scatter"(%[[CACHE]],
// CHECK: return %[[N]], %[[NEW]], %{{.*}} : tensor<i64>, tensor<1x16x8xf32>, tensor<1x8xf32>
