// RUN: aot-compile %models/mutate_input/model.pt2 --compile-to=import | FileCheck %s

// A model that writes to its input: the new value is a user_input_mutation
// result naming the input.

// CHECK-NOT: exir.weight
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3xf32> {exir.input = #exir.input<user_input, "x">}
// CHECK-SAME: -> (tensor<2x3xf32> {exir.output = #exir.output<user_input_mutation, "x">}, tensor<2x3xf32> {exir.output = #exir.output<user_output>})
// CHECK: %[[NEW:.*]] = exir.aten "aten::add.Scalar"(%[[X]])
// CHECK: return %[[NEW]], %{{.*}}
