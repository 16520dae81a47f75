// RUN: aot-compile %models/transformer_layer/model.pt2 --compile-to=import | FileCheck %s

// Attention, layer norm, softmax, gelu. `x * scale` passes a Python float for
// a Tensor argument: the importer picks the Scalar overload.

// CHECK: exir.weight @q_proj.weight "parameter" = dense_resource<q_proj_weight> : tensor<32x32xf32>
// CHECK: exir.weight @norm2.bias "parameter"
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: tensor<1x8x32xf32> {exir.input = #exir.input<user_input, "x">}
// CHECK: exir.aten "aten::addmm"
// CHECK: exir.aten "aten::bmm"
// CHECK: exir.aten "aten::mul.Scalar"({{.*}}) {operand_segments = array<i32: 1>, other = {{.*}} : f64}
// CHECK: exir.aten "aten::_softmax"({{.*}}) {dim = -1 : i64, half_to_float = false
// CHECK: %{{.*}}:3 = exir.aten "aten::native_layer_norm"({{.*}}) {eps = 1.000000e-05 : f64, normalized_shape = array<i64: 32>, operand_segments = array<i32: 1, 1, 1>}
// CHECK: exir.aten "aten::gelu"({{.*}}) {approximate = "none"
// CHECK: exir.aten "aten::native_layer_norm"
// CHECK: return
