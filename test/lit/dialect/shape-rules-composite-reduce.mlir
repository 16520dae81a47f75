// Shape rules of the composite reductions, products and losses
// (dialects/exir/IR/ShapeRulesCompositeReduce.cpp): results PyTorch gives
// (accepted), then arguments it refuses and declared results it does not
// compute. lit runs ptec-opt with --exir-verify-each, which adds the rules to
// the verifier.
// RUN: ptec-opt %s --exir-verify-each --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @accepted
func.func @accepted(%x: tensor<2x3x4xf32>, %i: tensor<3x3xi32>, %t: tensor<2x4xi64>, %q: tensor<2xf32>) {
  // Norms reduce over dim (matrix norms: the last two by default).
  %a = exir.aten "aten::linalg_matrix_norm"(%x) {ord = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<2xf32>
  %b = exir.aten "aten::norm.ScalarOpt_dtype"(%x) {p = 2 : i64, dtype = f64, operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<f64>
  // trace of integers is int64; count_nonzero int64.
  %c = exir.aten "aten::trace"(%i) {operand_segments = array<i32: 1>} : (tensor<3x3xi32>) -> tensor<i64>
  %d = exir.aten "aten::count_nonzero"(%x) {dim = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xi64>
  // diff shrinks its dim by n (not below 0); integer trapezoid gives float32.
  %e = exir.aten "aten::diff"(%x) {n = 9 : i64, dim = 1 : i64, operand_segments = array<i32: 1, 0, 0>} : (tensor<2x3x4xf32>) -> tensor<2x0x4xf32>
  %f = exir.aten "aten::trapezoid.dx"(%i) {dx = 1 : i64, dim = -1 : i64, operand_segments = array<i32: 1>} : (tensor<3x3xi32>) -> tensor<3xf32>
  // quantile with a 1-dim q leads with it; cummax adds int64 indices.
  %g = exir.aten "aten::quantile"(%x, %q) {dim = 1 : i64, keepdim = true, interpolation = "linear", operand_segments = array<i32: 1, 1>} : (tensor<2x3x4xf32>, tensor<2xf32>) -> tensor<2x2x1x4xf32>
  %h:2 = exir.aten "aten::cummax"(%x) {dim = 2 : i64, operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xi64>)
  // Losses: 'none' keeps the target's shape, 'mean' is 0-dim.
  %k = exir.aten "aten::cross_entropy_loss"(%x, %t) {reduction = 0 : i64, operand_segments = array<i32: 1, 1, 0>} : (tensor<2x3x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  %l:2 = exir.aten "aten::nll_loss_forward"(%x, %t) {reduction = 1 : i64, ignore_index = -100 : i64, operand_segments = array<i32: 1, 1, 0>} : (tensor<2x3x4xf32>, tensor<2x4xi64>) -> (tensor<f32>, tensor<f32>)
  // einsum-like products.
  %m = exir.aten "aten::kron"(%i, %x) {operand_segments = array<i32: 1, 1>} : (tensor<3x3xi32>, tensor<2x3x4xf32>) -> tensor<2x9x12xf32>
  %n = exir.aten "aten::tensordot"(%x, %x) {dims_self = array<i64: 1, 2>, dims_other = array<i64: 1, 2>, operand_segments = array<i32: 1, 1>} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x2xf32>
  // Factorizations: the declared results are taken as given.
  %o:2 = exir.aten "aten::linalg_slogdet"(%i) {operand_segments = array<i32: 1>} : (tensor<3x3xi32>) -> (tensor<i32>, tensor<f32>)
  return
}

// -----

func.func @norm_of_integers(%x: tensor<3xi64>) -> tensor<i64> {
  // expected-error @+1 {{norms need a floating or complex tensor, got int64[3]}}
  %y = exir.aten "aten::norm.Scalar"(%x) {p = 2 : i64, operand_segments = array<i32: 1>} : (tensor<3xi64>) -> tensor<i64>
  return %y : tensor<i64>
}

// -----

func.func @diff_negative_order(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{order must be non-negative, got -1}}
  %y = exir.aten "aten::diff"(%x) {n = -1 : i64, dim = 0 : i64, operand_segments = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

func.func @nll_target_shape(%x: tensor<4x5xf32>, %t: tensor<5xi64>) -> tensor<f32> {
  // expected-error @+1 {{'target' int64[5] must have the shape of 'self' float32[4, 5] without its class dim}}
  %y = exir.aten "aten::nll_loss_nd"(%x, %t) {reduction = 1 : i64, ignore_index = -100 : i64, operand_segments = array<i32: 1, 1, 0>} : (tensor<4x5xf32>, tensor<5xi64>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

func.func @cross_without_size_3(%a: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{dim 1 of [2, 4] must have size 3}}
  %y = exir.aten "aten::linalg_cross"(%a, %a) {dim = -1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

func.func @loss_reduction(%a: tensor<2x4xf32>) -> tensor<f32> {
  // expected-error @+1 {{reduction must be 0 (none), 1 (mean) or 2 (sum), got 3}}
  %y = exir.aten "aten::mse_loss"(%a, %a) {reduction = 3 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

func.func @wrong_declared_result(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{result #0 is declared float32[3], but the operator produces float32[2, 3] for these arguments}}
  %y = exir.aten "aten::logcumsumexp"(%x) {dim = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
