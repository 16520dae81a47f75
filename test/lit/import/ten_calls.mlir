// RUN: aot-compile %models/ten_calls/model.pt2 --compile-to=import | FileCheck %s

// One submodule called ten times in a loop: the exported graph is unrolled,
// all calls read the same weights.

// CHECK-COUNT-1: exir.weight @step.a "parameter"
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[A:[^:]*]]: tensor<2x2xf32> {exir.input = #exir.input<parameter, "step.a">}
// CHECK-COUNT-10: exir.aten "aten::mm"(%[[A]],
// CHECK-NOT: exir.aten "aten::mm"
// CHECK: return
