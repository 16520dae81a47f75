// RUN: ptec-opt %s --split-input-file --exir-fold-constants | FileCheck %s

// The transposed weight of a linear layer is computed by the compiler: the
// permute disappears, a new constant holds the transposed bytes, and the
// original weight (now unused) leaves the method and the program.
// CHECK-NOT: exir.weight @w "parameter"
// CHECK: exir.weight @"w@permute_copy(1,0)" "constant" = dense_resource<{{.*}}> : tensor<3x2xf32>
// CHECK-NOT: exir.weight @w "parameter"
exir.weight @w "parameter" = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32> {exir.input = #exir.input<user_input, "x">}, %[[WT:.*]]: tensor<3x2xf32> {exir.input = #exir.input<constant, "w@permute_copy(1,0)">})
func.func @forward(%x: tensor<4x3xf32> {exir.input = #exir.input<user_input, "x">},
                   %w: tensor<2x3xf32> {exir.input = #exir.input<parameter, "w">}) -> tensor<4x2xf32> {
  // CHECK-NOT: permute_copy"
  // CHECK: exir.aten "aten::mm"(%[[X]], %[[WT]])
  %wt = exir.aten "aten::permute_copy"(%w) {dims = array<i64: 1, 0>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %y = exir.aten "aten::mm"(%x, %wt) {operand_segments = array<i32: 1, 1>} : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
// The permuted bytes, little-endian f32: 1 4 / 2 5 / 3 6.
// CHECK: w_permute_copy_1_0_: "0x100000000000803F00008040000000400000A040000040400000C040"

// -----

// The weight is still used elsewhere: it stays. Mutable buffers and user
// inputs are never folded.
// CHECK-LABEL: func.func @kept
func.func @kept(%x: tensor<2x2xf32> {exir.input = #exir.input<user_input, "x">},
                %w: tensor<2x2xf32> {exir.input = #exir.input<parameter, "w2">},
                %n: tensor<2x2xf32> {exir.input = #exir.input<buffer, "n">}) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  // CHECK: exir.aten "aten::permute_copy"(%arg0)
  %a = exir.aten "aten::permute_copy"(%x) {dims = array<i64: 1, 0>, operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK: exir.aten "aten::permute_copy"(%arg2)
  %b = exir.aten "aten::permute_copy"(%n) {dims = array<i64: 1, 0>, operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK-NOT: exir.aten "aten::view_copy"
  %c = exir.aten "aten::view_copy"(%w) {size = array<i64: 2, 2>, operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %d = exir.aten "aten::add.Tensor"(%c, %w) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %a, %b, %d : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
exir.weight @w2 "parameter" = dense<1.0> : tensor<2x2xf32>
exir.weight @n "buffer" mutable = dense<0.0> : tensor<2x2xf32>

// -----

// Two transposes of one square weight with the same result type but other
// dims are two constants (they once shared one name, so the second read the
// first's bytes).
// CHECK-LABEL: exir.weight @"sq@transpose_copy.int(0,0)" "constant" = dense_resource<{{.*}}> : tensor<2x2xf32>
// CHECK: exir.weight @"sq@transpose_copy.int(0,1)" "constant" = dense_resource<{{.*}}> : tensor<2x2xf32>
exir.weight @sq "parameter" = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
func.func @forward(%w: tensor<2x2xf32> {exir.input = #exir.input<parameter, "sq">})
    -> (tensor<2x2xf32> {exir.output = #exir.output<user_output>}, tensor<2x2xf32> {exir.output = #exir.output<user_output>}) {
  %t = exir.aten "aten::transpose_copy.int"(%w) {dim0 = 0 : i64, dim1 = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %u = exir.aten "aten::transpose_copy.int"(%w) {dim0 = 0 : i64, dim1 = 0 : i64, operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %t, %u : tensor<2x2xf32>, tensor<2x2xf32>
}
