// RUN: ptec-opt %s --exir-partition="backends=demo" | FileCheck %s

// No delegation inside or across control flow: a sin the demo backend takes
// at the top level is delegated, the same op inside a cond branch stays a
// portable op, and the cond itself is never part of a region.
// CHECK-LABEL: func.func @f
// CHECK: exir.delegate_region "BackendWithCompilerDemo"
// CHECK-NEXT: exir.aten "aten::sin"
// CHECK: exir.cond
// CHECK-NEXT: ^bb0
// CHECK-NEXT: exir.aten "aten::sin"
// CHECK-NOT: exir.delegate_region
func.func @f(%p: tensor<i1> {exir.input = #exir.input<user_input, "p">},
             %x: tensor<2x2xf32> {exir.input = #exir.input<user_input, "x">}) -> tensor<2x2xf32> {
  %t = exir.aten "aten::sin"(%x) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = exir.cond %p (%t) : tensor<i1>, (tensor<2x2xf32>) -> tensor<2x2xf32> {
  ^bb0(%a: tensor<2x2xf32>):
    %s = exir.aten "aten::sin"(%a) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    exir.yield %s : tensor<2x2xf32>
  } {
  ^bb0(%a: tensor<2x2xf32>):
    exir.yield %a : tensor<2x2xf32>
  }
  return %r : tensor<2x2xf32>
}
