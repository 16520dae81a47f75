// RUN: ptec-opt %s --split-input-file --exir-partition=backends=demo | FileCheck %s
// RUN: ptec-opt %s --split-input-file --exir-partition="backends=demo:group=whole" | FileCheck %s --check-prefix=WHOLE
// RUN: ptec-opt %s --split-input-file --exir-partition="backends=demo:ops=sin" | FileCheck %s --check-prefix=SIN
// RUN: ptec-opt %s --split-input-file --exir-partition=backends=none | FileCheck %s --check-prefix=NONE
// RUN: ptec-opt %s --split-input-file --exir-partition="backends=demo:ops=sin,demo:ops=mm_add" | FileCheck %s --check-prefix=PRIO

// The demo backend's fixed patterns: mm-then-add and sin, each its own
// region (implicit capture); with group=whole the maximal group is one
// region; with ops=sin only the sin is taken.

// CHECK-LABEL: func.func @step(
// CHECK: %[[MA:.*]] = exir.delegate_region "BackendWithCompilerDemo" {
// CHECK-NEXT: %[[MM:.*]] = exir.aten "aten::mm"(%arg0, %arg1)
// CHECK-NEXT: %[[ADD:.*]] = exir.aten "aten::add.Tensor"(%[[MM]], %arg2)
// CHECK-NEXT: exir.yield %[[ADD]] : tensor<2x2xf32>
// CHECK: %[[S:.*]] = exir.delegate_region "BackendWithCompilerDemo" {
// CHECK-NEXT: exir.aten "aten::sin"(%[[MA]])
// CHECK: return %[[S]]
// WHOLE-LABEL: func.func @step(
// WHOLE: exir.delegate_region "BackendWithCompilerDemo" attributes {exir.backend_options = "group=whole"} {
// WHOLE-NEXT: exir.aten "aten::mm"
// WHOLE-NEXT: exir.aten "aten::add.Tensor"
// WHOLE-NEXT: exir.aten "aten::sin"
// WHOLE-NEXT: exir.yield
// WHOLE-NOT: exir.delegate_region
// SIN-LABEL: func.func @step(
// SIN: exir.aten "aten::mm"
// SIN-NEXT: exir.aten "aten::add.Tensor"
// SIN-NEXT: exir.delegate_region "BackendWithCompilerDemo" attributes {exir.backend_options = "ops=sin"} {
// SIN-NEXT: exir.aten "aten::sin"
// NONE-NOT: exir.delegate_region
// Priority order: the first backend that takes an op gets it.
// PRIO-LABEL: func.func @step(
// PRIO: exir.delegate_region "BackendWithCompilerDemo" attributes {exir.backend_options = "ops=mm_add"} {
// PRIO-NEXT: exir.aten "aten::mm"
// PRIO: exir.delegate_region "BackendWithCompilerDemo" attributes {exir.backend_options = "ops=sin"} {
// PRIO-NEXT: exir.aten "aten::sin"
func.func @step(%a: tensor<2x2xf32>, %x: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = exir.aten "aten::mm"(%a, %x) {operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = exir.aten "aten::add.Tensor"(%0, %b) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %2 = exir.aten "aten::sin"(%1) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %2 : tensor<2x2xf32>
}

// -----

// No cycle through an op the backend refuses: sin(relu(sin(x))) cannot be
// one group. The independent sin(y) joins the newest group. Ops that use a
// region's result move after it.

// WHOLE-LABEL: func.func @no_cycle(
// WHOLE: %[[G0:.*]] = exir.delegate_region "BackendWithCompilerDemo" attributes {{.*}} {
// WHOLE-NEXT: exir.aten "aten::sin"(%arg0)
// WHOLE: %[[R:.*]] = exir.aten "aten::relu"(%[[G0]])
// WHOLE: %[[G1:.*]]:2 = exir.delegate_region "BackendWithCompilerDemo" attributes {{.*}} {
// WHOLE-NEXT: exir.aten "aten::sin"(%[[R]])
// WHOLE-NEXT: exir.aten "aten::sin"(%arg1)
// WHOLE: exir.aten "aten::neg"(%[[G1]]#1)
// WHOLE: return
func.func @no_cycle(%x: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = exir.aten "aten::sin"(%x) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = exir.aten "aten::relu"(%0) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %2 = exir.aten "aten::sin"(%1) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %3 = exir.aten "aten::sin"(%y) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %4 = exir.aten "aten::neg"(%3) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %2, %4 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// A write (exir.copy_) closes every open group: the sin before it and the
// sin after it are separate regions, and the copy stays between them.

// WHOLE-LABEL: func.func @barrier(
// WHOLE: exir.delegate_region
// WHOLE: exir.copy_
// WHOLE: exir.delegate_region
func.func @barrier(%x: tensor<2x2xf32>, %s: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = exir.aten "aten::sin"(%x) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  exir.copy_ %s, %0 : tensor<2x2xf32>, tensor<2x2xf32>
  %1 = exir.aten "aten::sin"(%s) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

// -----

// Capability: dtypes and shapes. f16 sin, a 3x3 mm, a broadcasting add and a
// leading dimension above max_value (4) stay portable; mm whose result has
// another user is not the mm-then-add pattern.

// CHECK-LABEL: func.func @refused(
// CHECK-NOT: exir.delegate_region
// CHECK: return
func.func @refused(%h: tensor<2xf16>, %m: tensor<3x3xf32>, %v: tensor<2x2xf32>, %r: tensor<2xf32>, %big: tensor<8xf32>) -> (tensor<2xf16>, tensor<3x3xf32>, tensor<2x2xf32>, tensor<8xf32>, tensor<2x2xf32>) {
  %0 = exir.aten "aten::sin"(%h) {operand_segments = array<i32: 1>} : (tensor<2xf16>) -> tensor<2xf16>
  %1 = exir.aten "aten::mm"(%m, %m) {operand_segments = array<i32: 1, 1>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %2 = exir.aten "aten::add.Tensor"(%v, %r) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %3 = exir.aten "aten::sin"(%big) {operand_segments = array<i32: 1>} : (tensor<8xf32>) -> tensor<8xf32>
  %4 = exir.aten "aten::mm"(%v, %v) {operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0, %1, %2, %3, %4 : tensor<2xf16>, tensor<3x3xf32>, tensor<2x2xf32>, tensor<8xf32>, tensor<2x2xf32>
}

// -----

// Private callee functions are partitioned inside.

// CHECK-LABEL: func.func @caller(
// CHECK: call @callee
// CHECK-LABEL: func.func private @callee(
// CHECK: exir.delegate_region "BackendWithCompilerDemo"
func.func @caller(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = func.call @callee(%x) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
func.func private @callee(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = exir.aten "aten::sin"(%x) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// sin(x) and sin(y) form one group placed where its last op was; the neg
// that reads the first sin moves after the region.

// WHOLE-LABEL: func.func @moves(
// WHOLE: %[[G:.*]]:2 = exir.delegate_region
// WHOLE: exir.aten "aten::neg"(%[[G]]#0)
func.func @moves(%x: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = exir.aten "aten::sin"(%x) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = exir.aten "aten::neg"(%0) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %2 = exir.aten "aten::sin"(%y) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %1, %2 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// A re-inplaced update (exir.inplace_of) writes the cache: it closes the open
// group, so the mm that reads the OLD cache is never moved after it (the
// mm-then-add pair cannot form across the write and stays portable).
// Regression: the update used to look pure and the mm was sunk past it.

// CHECK-LABEL: func.func @inplace_update_is_a_barrier(
// CHECK-NOT: exir.delegate_region
// CHECK: %[[MM:.*]] = exir.aten "aten::mm"(%arg0, %arg1)
// CHECK-NEXT: exir.aten "aten::slice_scatter"(%arg1, %arg2) {{.*}}exir.inplace_of = 0
// CHECK-NEXT: exir.aten "aten::add.Tensor"(%[[MM]], %arg3)
// WHOLE-LABEL: func.func @inplace_update_is_a_barrier(
// WHOLE: exir.delegate_region
// WHOLE-NEXT: exir.aten "aten::mm"(%arg0, %arg1)
// WHOLE-NEXT: exir.yield
// WHOLE-NEXT: }
// WHOLE-NEXT: exir.aten "aten::slice_scatter"
// WHOLE-NEXT: exir.delegate_region
// WHOLE-NEXT: exir.aten "aten::add.Tensor"
func.func @inplace_update_is_a_barrier(%a: tensor<2x2xf32>, %cache: tensor<2x2xf32>, %k: tensor<2x1xf32>, %b: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %m = exir.aten "aten::mm"(%a, %cache) {operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %n = exir.aten "aten::slice_scatter"(%cache, %k) {dim = 1 : i64, start = 0 : i64, end = 1 : i64, exir.inplace_of = 0 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
  %o = exir.aten "aten::add.Tensor"(%m, %b) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %n, %o : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// A group whose results nobody uses is dead code: it is dropped, not lowered
// into a delegate call without results (found by differential testing).

// CHECK-LABEL: func.func @dead_group(
// CHECK-NOT: exir.delegate_region
// CHECK-NOT: aten::mm
// CHECK: return %arg0
func.func @dead_group(%a: tensor<2x2xf32>, %x: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %m = exir.aten "aten::mm"(%a, %x) {operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %o = exir.aten "aten::add.Tensor"(%m, %b) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %a : tensor<2x2xf32>
}

// -----

// Backends compile fixed shapes: ops on a dynamic input stay outside every
// region (the demo backend would otherwise take this sin).
// CHECK-LABEL: func.func @dynamic_sin
// CHECK-NOT: exir.delegate_region
// CHECK: exir.aten "aten::sin"
func.func @dynamic_sin(%x: tensor<2x2xf32> {exir.dynamic_dims = array<i64: 0>}) -> tensor<2x2xf32> {
  %y = exir.aten "aten::sin"(%x) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// A group is one region, so an op depends on a group through any other
// group it reaches. Here {sin(a)} feeds cos feeds {sin(cos), sin(b)} feeds
// cos feeds the add: the add must not join sin(a)'s group although its own
// producers (cos, sin(a)) reach only the second group directly (that was a
// cycle, "operand does not dominate this use"; found by differential testing
// with --backend xnnpack --write-back end).
// WHOLE-LABEL: func.func @group_cycle(
// WHOLE: %[[G0:.*]] = exir.delegate_region
// WHOLE-NEXT: exir.aten "aten::sin"(%arg0)
// WHOLE: %[[C1:.*]] = exir.aten "aten::cos"(%[[G0]])
// WHOLE: %[[G1:.*]]:2 = exir.delegate_region
// WHOLE-NEXT: exir.aten "aten::sin"(%[[C1]])
// WHOLE-NEXT: exir.aten "aten::sin"(%arg1)
// WHOLE: %[[C2:.*]] = exir.aten "aten::cos"(%[[G1]]#1)
// WHOLE: %[[G2:.*]] = exir.delegate_region
// WHOLE-NEXT: exir.aten "aten::add.Tensor"(%[[C2]], %[[G0]])
// WHOLE: return %[[G1]]#0, %[[G2]]
func.func @group_cycle(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %s1 = exir.aten "aten::sin"(%a) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %c1 = exir.aten "aten::cos"(%s1) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %s2 = exir.aten "aten::sin"(%c1) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %s3 = exir.aten "aten::sin"(%b) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %c2 = exir.aten "aten::cos"(%s3) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %o = exir.aten "aten::add.Tensor"(%c2, %s1) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %s2, %o : tensor<2x2xf32>, tensor<2x2xf32>
}
