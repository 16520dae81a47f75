// RUN: ptec-opt %s --split-input-file --exir-reinplace-state --exir-place-write-back --canonicalize --cse --symbol-dce | FileCheck %s
// RUN: ptec-opt %s --split-input-file --canonicalize --cse | FileCheck %s --check-prefix=CSE

// Memory effects of exir.aten. A functional update that re-inplacing made
// write its state (exir.inplace_of) is a write; MLIR's own cleanups must see
// it. Regression: the fully in-place cache update has no SSA user left after
// write-back, and canonicalize used to delete it as a pure op.

// CHECK-LABEL: func.func @inplace_update_survives_cleanup
// CHECK-SAME: in_place = 1
// CHECK: exir.aten "aten::mm"(%arg1, %arg2)
// CHECK-NEXT: exir.aten "aten::slice_scatter"(%arg2, %arg0) {{.*}}exir.inplace_of = 0
// CHECK-NEXT: return
func.func @inplace_update_survives_cleanup(
    %k: tensor<4x1xf32> {exir.input = #exir.input<user_input, "k">},
    %q: tensor<4x4xf32> {exir.input = #exir.input<user_input, "q">},
    %cache: tensor<4x4xf32> {exir.input = #exir.input<buffer, "cache">})
    -> (tensor<4x4xf32> {exir.output = #exir.output<buffer_mutation, "cache">},
        tensor<4x4xf32> {exir.output = #exir.output<user_output>}) {
  %s = exir.aten "aten::mm"(%q, %cache) {operand_segments = array<i32: 1, 1>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %n = exir.aten "aten::slice_scatter"(%cache, %k) {dim = 1 : i64, start = 2 : i64, end = 3 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  return %n, %s : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Two equal reads of a value separated by an in-place write of its storage
// are not merged by CSE (the second sees the new contents); equal reads with
// no write between them are. Unused functional ops still fold away.

// CSE-LABEL: func.func @reads_do_not_cross_writes
// CSE: %[[A:.*]] = exir.aten "aten::neg"(%arg0)
// CSE-NOT: aten::sin
// CSE-NEXT: exir.aten "aten::slice_scatter"(%arg0, %arg1) {{.*}}exir.inplace_of = 0
// CSE-NEXT: %[[B:.*]] = exir.aten "aten::neg"(%arg0)
// CSE-NEXT: return %[[A]], %[[A]], %[[B]]
func.func @reads_do_not_cross_writes(%s: tensor<4xf32>, %k: tensor<1xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = exir.aten "aten::neg"(%s) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %a2 = exir.aten "aten::neg"(%s) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %dead = exir.aten "aten::sin"(%s) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %n = exir.aten "aten::slice_scatter"(%s, %k) {dim = 0 : i64, start = 0 : i64, end = 1 : i64, exir.inplace_of = 0 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  %b = exir.aten "aten::neg"(%s) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %a, %a2, %b : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

