// RUN: aot-compile %models/demo_ops/model.pt2 --compile-to=import | FileCheck %s

// The ops the demo backend accepts (sin, mm + add), two outputs.

// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[A:[^:]*]]: tensor<2x2xf32> {exir.input = #exir.input<user_input, "a">}
// CHECK: exir.aten "aten::sin"(%[[A]])
// CHECK: %[[MM:.*]] = exir.aten "aten::mm"(%[[A]],
// CHECK: exir.aten "aten::add.Tensor"(%[[MM]],
// CHECK: return %{{.*}}, %{{.*}} : tensor<2x2xf32>, tensor<2x2xf32>
