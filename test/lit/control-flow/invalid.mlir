// RUN: ptec-opt %s --split-input-file --verify-diagnostics

// Region signatures of exir.cond and exir.while (docs/ir.md, "Control flow").

func.func @pred_not_bool(%p: tensor<i64>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{predicate must be a rank-0 i1 tensor}}
  %r = exir.cond %p (%x) : tensor<i64>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    exir.yield %a : tensor<4xf32>
  } {
  ^bb0(%a: tensor<4xf32>):
    exir.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @branch_args(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{the else region's arguments do not match the op's inputs}}
  %r = exir.cond %p (%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    exir.yield %a : tensor<4xf32>
  } {
    exir.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @branch_yield(%p: tensor<i1>, %x: tensor<4xf32>, %y: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{the then region yields 1 values of the wrong types}}
  %r = exir.cond %p (%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    exir.yield %y : tensor<2xf32>
  } {
  ^bb0(%a: tensor<4xf32>):
    exir.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @loop_cond(%i0: tensor<i64>) -> tensor<i64> {
  // expected-error @+1 {{the cond region must yield one rank-0 i1 tensor}}
  %r = exir.while (%i0) () : (tensor<i64>) -> tensor<i64> {
  ^bb0(%i: tensor<i64>):
    exir.yield %i : tensor<i64>
  } {
  ^bb0(%i: tensor<i64>):
    exir.yield %i : tensor<i64>
  }
  return %r : tensor<i64>
}

// -----

func.func @loop_body(%i0: tensor<i64>, %b: tensor<i1>, %n: tensor<i64>) -> tensor<i64> {
  // expected-error @+1 {{the body region's arguments do not match the op's inputs}}
  %r = exir.while (%i0) (%n) : (tensor<i64>, tensor<i64>) -> tensor<i64> {
  ^bb0(%i: tensor<i64>, %m: tensor<i64>):
    exir.yield %b : tensor<i1>
  } {
  ^bb0(%i: tensor<i64>):
    exir.yield %i : tensor<i64>
  }
  return %r : tensor<i64>
}
