// Programs PyTorch accepts, with the result types it gives them: the shape
// rules (dialects/exir/IR/ShapeRules*.cpp) must accept every one. Type
// promotion, broadcasting, Python slice clamping, data-dependent sizes,
// out-variants and in-place forms.
// RUN: ptec-opt %s --exir-verify-each | FileCheck %s

// CHECK-LABEL: func.func @add_broadcast
func.func @add_broadcast(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = exir.aten "aten::add.Tensor"(%a0, %a1) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @add_zero_dim_lower_priority
func.func @add_zero_dim_lower_priority(%a0: tensor<3xi32>, %a1: tensor<i64>) -> tensor<3xi32> {
  %r = exir.aten "aten::add.Tensor"(%a0, %a1) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<3xi32>, tensor<i64>) -> tensor<3xi32>
  return %r : tensor<3xi32>
}

// CHECK-LABEL: func.func @add_zero_dim_higher_category
func.func @add_zero_dim_higher_category(%a0: tensor<3xi64>, %a1: tensor<f64>) -> tensor<3xf64> {
  %r = exir.aten "aten::add.Tensor"(%a0, %a1) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<3xi64>, tensor<f64>) -> tensor<3xf64>
  return %r : tensor<3xf64>
}

// CHECK-LABEL: func.func @add_zero_dim_float_same_category
func.func @add_zero_dim_float_same_category(%a0: tensor<3xf32>, %a1: tensor<f64>) -> tensor<3xf32> {
  %r = exir.aten "aten::add.Tensor"(%a0, %a1) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<3xf32>, tensor<f64>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @add_scalar_float_on_ints
func.func @add_scalar_float_on_ints(%a0: tensor<3xi64>) -> tensor<3xf32> {
  %r = exir.aten "aten::add.Scalar"(%a0) {alpha = 1 : i64, other = 2.5 : f64, operand_segments = array<i32: 1>} : (tensor<3xi64>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @add_scalar_int_keeps_int32
func.func @add_scalar_int_keeps_int32(%a0: tensor<3xi32>) -> tensor<3xi32> {
  %r = exir.aten "aten::add.Scalar"(%a0) {alpha = 1 : i64, other = 2 : i64, operand_segments = array<i32: 1>} : (tensor<3xi32>) -> tensor<3xi32>
  return %r : tensor<3xi32>
}

// CHECK-LABEL: func.func @add_scalar_int_on_bool
func.func @add_scalar_int_on_bool(%a0: tensor<3xi1>) -> tensor<3xi64> {
  %r = exir.aten "aten::add.Scalar"(%a0) {alpha = 1 : i64, other = 1 : i64, operand_segments = array<i32: 1>} : (tensor<3xi1>) -> tensor<3xi64>
  return %r : tensor<3xi64>
}

// CHECK-LABEL: func.func @mul_uint8_int8
func.func @mul_uint8_int8(%a0: tensor<3xui8>, %a1: tensor<3xi8>) -> tensor<3xi16> {
  %r = exir.aten "aten::mul.Tensor"(%a0, %a1) {operand_segments = array<i32: 1, 1>} : (tensor<3xui8>, tensor<3xi8>) -> tensor<3xi16>
  return %r : tensor<3xi16>
}

// CHECK-LABEL: func.func @mul_half_bfloat
func.func @mul_half_bfloat(%a0: tensor<3xf16>, %a1: tensor<3xbf16>) -> tensor<3xf32> {
  %r = exir.aten "aten::mul.Tensor"(%a0, %a1) {operand_segments = array<i32: 1, 1>} : (tensor<3xf16>, tensor<3xbf16>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @div_true
func.func @div_true(%a0: tensor<3xi64>, %a1: tensor<3xi64>) -> tensor<3xf32> {
  %r = exir.aten "aten::div.Tensor"(%a0, %a1) {operand_segments = array<i32: 1, 1>} : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @div_floor
func.func @div_floor(%a0: tensor<3xi64>, %a1: tensor<3xi64>) -> tensor<3xi64> {
  %r = exir.aten "aten::div.Tensor_mode"(%a0, %a1) {rounding_mode = "floor", operand_segments = array<i32: 1, 1>} : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %r : tensor<3xi64>
}

// CHECK-LABEL: func.func @eq_bool
func.func @eq_bool(%a0: tensor<2x1xf32>, %a1: tensor<3xi64>) -> tensor<2x3xi1> {
  %r = exir.aten "aten::eq.Tensor"(%a0, %a1) {operand_segments = array<i32: 1, 1>} : (tensor<2x1xf32>, tensor<3xi64>) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @pow_int_scalar
func.func @pow_int_scalar(%a0: tensor<3xi32>) -> tensor<3xi32> {
  %r = exir.aten "aten::pow.Tensor_Scalar"(%a0) {exponent = 2 : i64, operand_segments = array<i32: 1>} : (tensor<3xi32>) -> tensor<3xi32>
  return %r : tensor<3xi32>
}

// CHECK-LABEL: func.func @where_broadcast
func.func @where_broadcast(%a0: tensor<2x1xi1>, %a1: tensor<3xf32>, %a2: tensor<f64>) -> tensor<2x3xf32> {
  %r = exir.aten "aten::where.self"(%a0, %a1, %a2) {operand_segments = array<i32: 1, 1, 1>} : (tensor<2x1xi1>, tensor<3xf32>, tensor<f64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @where_scalar_other
func.func @where_scalar_other(%a0: tensor<3xi1>, %a1: tensor<3xi64>) -> tensor<3xf32> {
  %r = exir.aten "aten::where.ScalarOther"(%a0, %a1) {other = 5.0e-01 : f64, operand_segments = array<i32: 1, 1>} : (tensor<3xi1>, tensor<3xi64>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @clamp_int_float_bound
func.func @clamp_int_float_bound(%a0: tensor<3xi64>) -> tensor<3xf32> {
  %r = exir.aten "aten::clamp"(%a0) {max = #exir.none, min = 5.0e-01 : f64, operand_segments = array<i32: 1>} : (tensor<3xi64>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @clamp_half
func.func @clamp_half(%a0: tensor<3xf16>) -> tensor<3xf16> {
  %r = exir.aten "aten::clamp"(%a0) {max = 1 : i64, min = #exir.none, operand_segments = array<i32: 1>} : (tensor<3xf16>) -> tensor<3xf16>
  return %r : tensor<3xf16>
}

// CHECK-LABEL: func.func @hardtanh
func.func @hardtanh(%a0: tensor<3xf32>) -> tensor<3xf32> {
  %r = exir.aten "aten::hardtanh"(%a0) {max_val = 6.0 : f64, min_val = 0.0 : f64, operand_segments = array<i32: 1>} : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @sin_of_ints
func.func @sin_of_ints(%a0: tensor<3xi64>) -> tensor<3xf32> {
  %r = exir.aten "aten::sin"(%a0) {operand_segments = array<i32: 1>} : (tensor<3xi64>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @abs_keeps
func.func @abs_keeps(%a0: tensor<3xi32>) -> tensor<3xi32> {
  %r = exir.aten "aten::abs"(%a0) {operand_segments = array<i32: 1>} : (tensor<3xi32>) -> tensor<3xi32>
  return %r : tensor<3xi32>
}

// CHECK-LABEL: func.func @softmax_half_to_float
func.func @softmax_half_to_float(%a0: tensor<2x3xf16>) -> tensor<2x3xf32> {
  %r = exir.aten "aten::_softmax"(%a0) {dim = -1 : i64, half_to_float = true, operand_segments = array<i32: 1>} : (tensor<2x3xf16>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @gelu_tanh
func.func @gelu_tanh(%a0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = exir.aten "aten::gelu"(%a0) {approximate = "tanh", operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @masked_fill_broadcasts
func.func @masked_fill_broadcasts(%a0: tensor<3xf32>, %a1: tensor<2x3xi1>) -> tensor<2x3xf32> {
  %r = exir.aten "aten::masked_fill.Scalar"(%a0, %a1) {value = 0.0 : f64, operand_segments = array<i32: 1, 1>} : (tensor<3xf32>, tensor<2x3xi1>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @sum_bool_is_int64
func.func @sum_bool_is_int64(%a0: tensor<4x5xi1>) -> tensor<5xi64> {
  %r = exir.aten "aten::sum.dim_IntList"(%a0) {dim = array<i64: 0>, keepdim = false, operand_segments = array<i32: 1>} : (tensor<4x5xi1>) -> tensor<5xi64>
  return %r : tensor<5xi64>
}

// CHECK-LABEL: func.func @sum_all
func.func @sum_all(%a0: tensor<2x3xf32>) -> tensor<f32> {
  %r = exir.aten "aten::sum"(%a0) {operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<f32>
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @sum_none_dims_keepdim
func.func @sum_none_dims_keepdim(%a0: tensor<2x3xf32>) -> tensor<1x1xf32> {
  %r = exir.aten "aten::sum.dim_IntList"(%a0) {dim = #exir.none, keepdim = true, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}

// CHECK-LABEL: func.func @mean_keepdim
func.func @mean_keepdim(%a0: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  %r = exir.aten "aten::mean.dim"(%a0) {dim = array<i64: -1, -2>, keepdim = true, operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  return %r : tensor<2x1x1xf32>
}

// CHECK-LABEL: func.func @amax_all
func.func @amax_all(%a0: tensor<2x3xf32>) -> tensor<f32> {
  %r = exir.aten "aten::amax"(%a0) {dim = array<i64>, keepdim = false, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<f32>
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @argmax_flat
func.func @argmax_flat(%a0: tensor<2x3xf32>) -> tensor<i64> {
  %r = exir.aten "aten::argmax"(%a0) {dim = #exir.none, keepdim = false, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<i64>
  return %r : tensor<i64>
}

// CHECK-LABEL: func.func @max_dim
func.func @max_dim(%a0: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xi64>) {
  %r:2 = exir.aten "aten::max.dim"(%a0) {dim = 1 : i64, keepdim = false, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  return %r#0, %r#1 : tensor<2xf32>, tensor<2xi64>
}

// CHECK-LABEL: func.func @any_uint8
func.func @any_uint8(%a0: tensor<2x3xui8>) -> tensor<ui8> {
  %r = exir.aten "aten::any.dims"(%a0) {dim = #exir.none, keepdim = false, operand_segments = array<i32: 1>} : (tensor<2x3xui8>) -> tensor<ui8>
  return %r : tensor<ui8>
}

// CHECK-LABEL: func.func @var_keepdim
func.func @var_keepdim(%a0: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %r = exir.aten "aten::var.correction"(%a0) {correction = #exir.none, dim = array<i64: 1>, keepdim = true, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %r : tensor<2x1xf32>
}

// CHECK-LABEL: func.func @cumsum_int
func.func @cumsum_int(%a0: tensor<3xi32>) -> tensor<3xi64> {
  %r = exir.aten "aten::cumsum"(%a0) {dim = 0 : i64, dtype = #exir.none, operand_segments = array<i32: 1>} : (tensor<3xi32>) -> tensor<3xi64>
  return %r : tensor<3xi64>
}

// CHECK-LABEL: func.func @topk
func.func @topk(%a0: tensor<5xf32>) -> (tensor<2xf32>, tensor<2xi64>) {
  %r:2 = exir.aten "aten::topk"(%a0) {dim = -1 : i64, k = 2 : i64, largest = true, sorted = true, operand_segments = array<i32: 1>} : (tensor<5xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  return %r#0, %r#1 : tensor<2xf32>, tensor<2xi64>
}

// CHECK-LABEL: func.func @sort
func.func @sort(%a0: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %r:2 = exir.aten "aten::sort"(%a0) {descending = false, dim = -1 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  return %r#0, %r#1 : tensor<2x3xf32>, tensor<2x3xi64>
}

// CHECK-LABEL: func.func @view_infer
func.func @view_infer(%a0: tensor<2x3xf32>) -> tensor<6xf32> {
  %r = exir.aten "aten::view"(%a0) {size = array<i64: -1>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<6xf32>
  return %r : tensor<6xf32>
}

// CHECK-LABEL: func.func @view_dtype_smaller
func.func @view_dtype_smaller(%a0: tensor<2x4xf32>) -> tensor<2x16xi8> {
  %r = exir.aten "aten::view.dtype"(%a0) {dtype = i8, operand_segments = array<i32: 1>} : (tensor<2x4xf32>) -> tensor<2x16xi8>
  return %r : tensor<2x16xi8>
}

// CHECK-LABEL: func.func @permute_negative
func.func @permute_negative(%a0: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %r = exir.aten "aten::permute"(%a0) {dims = array<i64: -1, 0, 1>, operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %r : tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @t_vector
func.func @t_vector(%a0: tensor<3xf32>) -> tensor<3xf32> {
  %r = exir.aten "aten::t"(%a0) {operand_segments = array<i32: 1>} : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @transpose_scalar
func.func @transpose_scalar(%a0: tensor<f32>) -> tensor<f32> {
  %r = exir.aten "aten::transpose.int"(%a0) {dim0 = 0 : i64, dim1 = -1 : i64, operand_segments = array<i32: 1>} : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @unsqueeze_last
func.func @unsqueeze_last(%a0: tensor<2x3xf32>) -> tensor<2x3x1xf32> {
  %r = exir.aten "aten::unsqueeze"(%a0) {dim = -1 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  return %r : tensor<2x3x1xf32>
}

// CHECK-LABEL: func.func @squeeze_all
func.func @squeeze_all(%a0: tensor<1x3x1xf32>) -> tensor<3xf32> {
  %r = exir.aten "aten::squeeze"(%a0) {operand_segments = array<i32: 1>} : (tensor<1x3x1xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @squeeze_non_one
func.func @squeeze_non_one(%a0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = exir.aten "aten::squeeze.dim"(%a0) {dim = 0 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @select_negative
func.func @select_negative(%a0: tensor<2x3xf32>) -> tensor<2xf32> {
  %r = exir.aten "aten::select.int"(%a0) {dim = -1 : i64, index = -3 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// CHECK-LABEL: func.func @slice_python_end
func.func @slice_python_end(%a0: tensor<10xf32>) -> tensor<2xf32> {
  %r = exir.aten "aten::slice.Tensor"(%a0) {dim = 0 : i64, end = 9223372036854775807 : i64, start = -3 : i64, step = 2 : i64, operand_segments = array<i32: 1>} : (tensor<10xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// CHECK-LABEL: func.func @slice_none
func.func @slice_none(%a0: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %r = exir.aten "aten::slice_copy.Tensor"(%a0) {dim = 1 : i64, end = #exir.none, start = #exir.none, step = 1 : i64, operand_segments = array<i32: 1>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}

// CHECK-LABEL: func.func @narrow_negative_start
func.func @narrow_negative_start(%a0: tensor<4x5xf32>) -> tensor<4x2xf32> {
  %r = exir.aten "aten::narrow"(%a0) {dim = 1 : i64, length = 2 : i64, start = -2 : i64, operand_segments = array<i32: 1>} : (tensor<4x5xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// CHECK-LABEL: func.func @expand_new_dims
func.func @expand_new_dims(%a0: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %r = exir.aten "aten::expand"(%a0) {implicit = false, size = array<i64: 2, -1, 4>, operand_segments = array<i32: 1>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @diagonal_offset
func.func @diagonal_offset(%a0: tensor<3x4xf32>) -> tensor<2xf32> {
  %r = exir.aten "aten::diagonal"(%a0) {dim1 = 0 : i64, dim2 = 1 : i64, offset = -1 : i64, operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// CHECK-LABEL: func.func @unfold
func.func @unfold(%a0: tensor<7xf32>) -> tensor<3x3xf32> {
  %r = exir.aten "aten::unfold"(%a0) {dimension = 0 : i64, size = 3 : i64, step = 2 : i64, operand_segments = array<i32: 1>} : (tensor<7xf32>) -> tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}

// CHECK-LABEL: func.func @flatten_scalar
func.func @flatten_scalar(%a0: tensor<f32>) -> tensor<1xf32> {
  %r = exir.aten "aten::flatten.using_ints"(%a0) {end_dim = -1 : i64, start_dim = 0 : i64, operand_segments = array<i32: 1>} : (tensor<f32>) -> tensor<1xf32>
  return %r : tensor<1xf32>
}

// CHECK-LABEL: func.func @unflatten
func.func @unflatten(%a0: tensor<2x12xf32>) -> tensor<2x3x4xf32> {
  %r = exir.aten "aten::unflatten.int"(%a0) {dim = 1 : i64, sizes = array<i64: 3, -1>, operand_segments = array<i32: 1>} : (tensor<2x12xf32>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @split_uneven
func.func @split_uneven(%a0: tensor<5x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<1x2xf32>) {
  %r:3 = exir.aten "aten::split.Tensor"(%a0) {dim = 0 : i64, split_size = 2 : i64, operand_segments = array<i32: 1>} : (tensor<5x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<1x2xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<1x2xf32>
}

// CHECK-LABEL: func.func @chunk_fewer
func.func @chunk_fewer(%a0: tensor<6xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %r:3 = exir.aten "aten::chunk"(%a0) {chunks = 4 : i64, dim = 0 : i64, operand_segments = array<i32: 1>} : (tensor<6xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %r#0, %r#1, %r#2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// CHECK-LABEL: func.func @tensor_split_sections
func.func @tensor_split_sections(%a0: tensor<7xf32>) -> (tensor<3xf32>, tensor<2xf32>, tensor<2xf32>) {
  %r:3 = exir.aten "aten::tensor_split.sections"(%a0) {dim = 0 : i64, sections = 3 : i64, operand_segments = array<i32: 1>} : (tensor<7xf32>) -> (tensor<3xf32>, tensor<2xf32>, tensor<2xf32>)
  return %r#0, %r#1, %r#2 : tensor<3xf32>, tensor<2xf32>, tensor<2xf32>
}

// CHECK-LABEL: func.func @tensor_split_indices
func.func @tensor_split_indices(%a0: tensor<7xf32>) -> (tensor<1xf32>, tensor<4xf32>, tensor<2xf32>) {
  %r:3 = exir.aten "aten::tensor_split.indices"(%a0) {dim = 0 : i64, indices = array<i64: 1, 5>, operand_segments = array<i32: 1>} : (tensor<7xf32>) -> (tensor<1xf32>, tensor<4xf32>, tensor<2xf32>)
  return %r#0, %r#1, %r#2 : tensor<1xf32>, tensor<4xf32>, tensor<2xf32>
}

// CHECK-LABEL: func.func @unbind
func.func @unbind(%a0: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %r:3 = exir.aten "aten::unbind.int"(%a0) {dim = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %r#0, %r#1, %r#2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// CHECK-LABEL: func.func @cat_legacy_empty_and_promotion
func.func @cat_legacy_empty_and_promotion(%a0: tensor<2x3xi32>, %a1: tensor<0xf32>, %a2: tensor<4x3xf32>) -> tensor<6x3xf32> {
  %r = exir.aten "aten::cat"(%a0, %a1, %a2) {dim = 0 : i64, operand_segments = array<i32: 3>} : (tensor<2x3xi32>, tensor<0xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
  return %r : tensor<6x3xf32>
}

// CHECK-LABEL: func.func @stack_last
func.func @stack_last(%a0: tensor<3xf32>, %a1: tensor<3xf32>) -> tensor<3x2xf32> {
  %r = exir.aten "aten::stack"(%a0, %a1) {dim = -1 : i64, operand_segments = array<i32: 2>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @hstack
func.func @hstack(%a0: tensor<2xf32>, %a1: tensor<3xf32>) -> tensor<5xf32> {
  %r = exir.aten "aten::hstack"(%a0, %a1) {operand_segments = array<i32: 2>} : (tensor<2xf32>, tensor<3xf32>) -> tensor<5xf32>
  return %r : tensor<5xf32>
}

// CHECK-LABEL: func.func @vstack
func.func @vstack(%a0: tensor<3xf32>, %a1: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = exir.aten "aten::vstack"(%a0, %a1) {operand_segments = array<i32: 2>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @repeat
func.func @repeat(%a0: tensor<3xf32>) -> tensor<2x6xf32> {
  %r = exir.aten "aten::repeat"(%a0) {repeats = array<i64: 2, 2>, operand_segments = array<i32: 1>} : (tensor<3xf32>) -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

// CHECK-LABEL: func.func @tile_short
func.func @tile_short(%a0: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %r = exir.aten "aten::tile"(%a0) {dims = array<i64: 2>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

// CHECK-LABEL: func.func @repeat_interleave
func.func @repeat_interleave(%a0: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %r = exir.aten "aten::repeat_interleave.self_int"(%a0) {dim = 1 : i64, output_size = #exir.none, repeats = 2 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

// CHECK-LABEL: func.func @index_adjacent
func.func @index_adjacent(%a0: tensor<4x5x6xf32>, %a1: tensor<2x3xi64>, %a2: tensor<3xi64>) -> tensor<4x2x3xf32> {
  %r = exir.aten "aten::index.Tensor"(%a0, %a1, %a2) {indices = array<i1: false, true, true>, operand_segments = array<i32: 1, 2>} : (tensor<4x5x6xf32>, tensor<2x3xi64>, tensor<3xi64>) -> tensor<4x2x3xf32>
  return %r : tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @index_apart
func.func @index_apart(%a0: tensor<4x5x6xf32>, %a1: tensor<2xi64>, %a2: tensor<2xi64>) -> tensor<2x5xf32> {
  %r = exir.aten "aten::index.Tensor"(%a0, %a1, %a2) {indices = array<i1: true, false, true>, operand_segments = array<i32: 1, 2>} : (tensor<4x5x6xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// CHECK-LABEL: func.func @index_mask
func.func @index_mask(%a0: tensor<4x5xf32>, %a1: tensor<4xi1>) -> tensor<3x5xf32> {
  %r = exir.aten "aten::index.Tensor"(%a0, %a1) {indices = array<i1: true>, operand_segments = array<i32: 1, 1>} : (tensor<4x5xf32>, tensor<4xi1>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// CHECK-LABEL: func.func @index_put
func.func @index_put(%a0: tensor<4x3xf32>, %a1: tensor<2xi64>, %a2: tensor<3xf32>) -> tensor<4x3xf32> {
  %r = exir.aten "aten::index_put"(%a0, %a1, %a2) {accumulate = false, indices = array<i1: true>, operand_segments = array<i32: 1, 1, 1>} : (tensor<4x3xf32>, tensor<2xi64>, tensor<3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @index_select
func.func @index_select(%a0: tensor<4x3xf32>, %a1: tensor<5xi64>) -> tensor<5x3xf32> {
  %r = exir.aten "aten::index_select"(%a0, %a1) {dim = 0 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x3xf32>, tensor<5xi64>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}

// CHECK-LABEL: func.func @gather
func.func @gather(%a0: tensor<4x3xf32>, %a1: tensor<4x2xi64>) -> tensor<4x2xf32> {
  %r = exir.aten "aten::gather"(%a0, %a1) {dim = 1 : i64, sparse_grad = false, operand_segments = array<i32: 1, 1>} : (tensor<4x3xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// CHECK-LABEL: func.func @scatter
func.func @scatter(%a0: tensor<4x3xf32>, %a1: tensor<4x2xi64>, %a2: tensor<4x2xf32>) -> tensor<4x3xf32> {
  %r = exir.aten "aten::scatter.src"(%a0, %a1, %a2) {dim = 1 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<4x3xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @nonzero
func.func @nonzero(%a0: tensor<4x3xf32>) -> tensor<5x2xi64> {
  %r = exir.aten "aten::nonzero"(%a0) {operand_segments = array<i32: 1>} : (tensor<4x3xf32>) -> tensor<5x2xi64>
  return %r : tensor<5x2xi64>
}

// CHECK-LABEL: func.func @embedding
func.func @embedding(%a0: tensor<10x4xf32>, %a1: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %r = exir.aten "aten::embedding"(%a0, %a1) {padding_idx = -1 : i64, scale_grad_by_freq = false, sparse = false, operand_segments = array<i32: 1, 1>} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @slice_scatter
func.func @slice_scatter(%a0: tensor<4x3xf32>, %a1: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %r = exir.aten "aten::slice_scatter"(%a0, %a1) {dim = 0 : i64, end = #exir.none, start = 2 : i64, step = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @mm
func.func @mm(%a0: tensor<2x3xf32>, %a1: tensor<3x5xf32>) -> tensor<2x5xf32> {
  %r = exir.aten "aten::mm"(%a0, %a1) {operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// CHECK-LABEL: func.func @addmm
func.func @addmm(%a0: tensor<5xf32>, %a1: tensor<2x3xf32>, %a2: tensor<3x5xf32>) -> tensor<2x5xf32> {
  %r = exir.aten "aten::addmm"(%a0, %a1, %a2) {alpha = 1 : i64, beta = 1 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<5xf32>, tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// CHECK-LABEL: func.func @matmul_vector_matrix
func.func @matmul_vector_matrix(%a0: tensor<3xf32>, %a1: tensor<3x4xf32>) -> tensor<4xf32> {
  %r = exir.aten "aten::matmul"(%a0, %a1) {operand_segments = array<i32: 1, 1>} : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @matmul_batched_broadcast
func.func @matmul_batched_broadcast(%a0: tensor<2x1x3x4xf32>, %a1: tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32> {
  %r = exir.aten "aten::matmul"(%a0, %a1) {operand_segments = array<i32: 1, 1>} : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  return %r : tensor<2x5x3x6xf32>
}

// CHECK-LABEL: func.func @linear
func.func @linear(%a0: tensor<2x3xf32>, %a1: tensor<4x3xf32>, %a2: tensor<4xf32>) -> tensor<2x4xf32> {
  %r = exir.aten "aten::linear"(%a0, %a1, %a2) {operand_segments = array<i32: 1, 1, 1>} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @linear_1d_weight
func.func @linear_1d_weight(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>) -> tensor<2xf32> {
  %r = exir.aten "aten::linear"(%a0, %a1) {operand_segments = array<i32: 1, 1, 0>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// CHECK-LABEL: func.func @conv_transposed
func.func @conv_transposed(%a0: tensor<1x4x5x5xf32>, %a1: tensor<4x2x3x3xf32>) -> tensor<1x2x10x10xf32> {
  %r = exir.aten "aten::convolution"(%a0, %a1) {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = true, operand_segments = array<i32: 1, 1, 0>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x10x10xf32>
  return %r : tensor<1x2x10x10xf32>
}

// CHECK-LABEL: func.func @conv_grouped
func.func @conv_grouped(%a0: tensor<1x4x8x8xf32>, %a1: tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32> {
  %r = exir.aten "aten::convolution"(%a0, %a1) {dilation = array<i64: 2, 2>, groups = 2 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false, operand_segments = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %r : tensor<1x6x6x6xf32>
}

// CHECK-LABEL: func.func @conv2d_unbatched
func.func @conv2d_unbatched(%a0: tensor<3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) -> tensor<4x6x6xf32> {
  %r = exir.aten "aten::conv2d"(%a0, %a1) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, operand_segments = array<i32: 1, 1, 0>} : (tensor<3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<4x6x6xf32>
  return %r : tensor<4x6x6xf32>
}

// CHECK-LABEL: func.func @conv1d_same
func.func @conv1d_same(%a0: tensor<1x2x10xf32>, %a1: tensor<3x2x3xf32>) -> tensor<1x3x10xf32> {
  %r = exir.aten "aten::conv1d.padding"(%a0, %a1) {dilation = array<i64: 1>, groups = 1 : i64, padding = "same", stride = array<i64: 1>, operand_segments = array<i32: 1, 1, 0>} : (tensor<1x2x10xf32>, tensor<3x2x3xf32>) -> tensor<1x3x10xf32>
  return %r : tensor<1x3x10xf32>
}

// CHECK-LABEL: func.func @maxpool_ceil
func.func @maxpool_ceil(%a0: tensor<1x1x5x5xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>) {
  %r:2 = exir.aten "aten::max_pool2d_with_indices"(%a0) {ceil_mode = true, dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>, operand_segments = array<i32: 1>} : (tensor<1x1x5x5xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>)
  return %r#0, %r#1 : tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>
}

// CHECK-LABEL: func.func @avgpool_default_stride
func.func @avgpool_default_stride(%a0: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  %r = exir.aten "aten::avg_pool2d"(%a0) {ceil_mode = false, count_include_pad = true, divisor_override = #exir.none, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64>, operand_segments = array<i32: 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %r : tensor<1x3x4x4xf32>
}

// CHECK-LABEL: func.func @adaptive_avg_pool
func.func @adaptive_avg_pool(%a0: tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32> {
  %r = exir.aten "aten::_adaptive_avg_pool2d"(%a0) {output_size = array<i64: 1, 1>, operand_segments = array<i32: 1>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32>
  return %r : tensor<1x3x1x1xf32>
}

// CHECK-LABEL: func.func @layer_norm
func.func @layer_norm(%a0: tensor<2x3x4xf32>, %a1: tensor<3x4xf32>, %a2: tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>) {
  %r:3 = exir.aten "aten::native_layer_norm"(%a0, %a1, %a2) {eps = 1.0e-05 : f64, normalized_shape = array<i64: 3, 4>, operand_segments = array<i32: 1, 1, 1>} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>
}

// CHECK-LABEL: func.func @batch_norm_eval
func.func @batch_norm_eval(%a0: tensor<1x3x4x4xf32>, %a1: tensor<3xf32>, %a2: tensor<3xf32>, %a3: tensor<3xf32>, %a4: tensor<3xf32>) -> (tensor<1x3x4x4xf32>, tensor<0xf32>, tensor<0xf32>) {
  %r:3 = exir.aten "aten::_native_batch_norm_legit_no_training"(%a0, %a1, %a2, %a3, %a4) {eps = 1.0e-05 : f64, momentum = 1.0e-01 : f64, operand_segments = array<i32: 1, 1, 1, 1, 1>} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<1x3x4x4xf32>, tensor<0xf32>, tensor<0xf32>)
  return %r#0, %r#1, %r#2 : tensor<1x3x4x4xf32>, tensor<0xf32>, tensor<0xf32>
}

// CHECK-LABEL: func.func @pad_two_dims
func.func @pad_two_dims(%a0: tensor<2x3xf32>) -> tensor<6x5xf32> {
  %r = exir.aten "aten::constant_pad_nd"(%a0) {pad = array<i64: 1, 1, 2, 2>, value = 0 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<6x5xf32>
  return %r : tensor<6x5xf32>
}

// CHECK-LABEL: func.func @upsample_scales
func.func @upsample_scales(%a0: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  %r = exir.aten "aten::upsample_nearest2d.vec"(%a0) {output_size = #exir.none, scale_factors = array<f64: 2.0, 2.0>, operand_segments = array<i32: 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return %r : tensor<1x3x8x8xf32>
}

// CHECK-LABEL: func.func @pixel_shuffle
func.func @pixel_shuffle(%a0: tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32> {
  %r = exir.aten "aten::pixel_shuffle"(%a0) {upscale_factor = 2 : i64, operand_segments = array<i32: 1>} : (tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

// CHECK-LABEL: func.func @full_bool
func.func @full_bool() -> tensor<2xi1> {
  %r = exir.aten "aten::full"() {dtype = #exir.none, fill_value = true, size = array<i64: 2>, operand_segments = array<i32>} : () -> tensor<2xi1>
  return %r : tensor<2xi1>
}

// CHECK-LABEL: func.func @full_float
func.func @full_float() -> tensor<2x3xf32> {
  %r = exir.aten "aten::full"() {fill_value = 1.5 : f64, size = array<i64: 2, 3>, operand_segments = array<i32>} : () -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @full_given_dtype
func.func @full_given_dtype() -> tensor<2xi64> {
  %r = exir.aten "aten::full"() {dtype = i64, fill_value = 1.5 : f64, size = array<i64: 2>, operand_segments = array<i32>} : () -> tensor<2xi64>
  return %r : tensor<2xi64>
}

// CHECK-LABEL: func.func @arange_int
func.func @arange_int() -> tensor<5xi64> {
  %r = exir.aten "aten::arange"() {end = 5 : i64, operand_segments = array<i32>} : () -> tensor<5xi64>
  return %r : tensor<5xi64>
}

// CHECK-LABEL: func.func @arange_float
func.func @arange_float() -> tensor<3xf32> {
  %r = exir.aten "aten::arange.start_step"() {end = 2.5 : f64, start = 1.0 : f64, step = 5.0e-01 : f64, operand_segments = array<i32>} : () -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @arange_negative_step
func.func @arange_negative_step() -> tensor<4xi64> {
  %r = exir.aten "aten::arange.start_step"() {end = 0 : i64, start = 10 : i64, step = -3 : i64, operand_segments = array<i32>} : () -> tensor<4xi64>
  return %r : tensor<4xi64>
}

// CHECK-LABEL: func.func @scalar_tensor
func.func @scalar_tensor() -> tensor<f32> {
  %r = exir.aten "aten::scalar_tensor"() {s = 3 : i64, operand_segments = array<i32>} : () -> tensor<f32>
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @zeros_like_keeps
func.func @zeros_like_keeps(%a0: tensor<2xi32>) -> tensor<2xi32> {
  %r = exir.aten "aten::zeros_like"(%a0) {operand_segments = array<i32: 1>} : (tensor<2xi32>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}

// CHECK-LABEL: func.func @to_copy
func.func @to_copy(%a0: tensor<3xf32>) -> tensor<3xf16> {
  %r = exir.aten "aten::_to_copy"(%a0) {dtype = f16, operand_segments = array<i32: 1>} : (tensor<3xf32>) -> tensor<3xf16>
  return %r : tensor<3xf16>
}

// CHECK-LABEL: func.func @copy_broadcast
func.func @copy_broadcast(%a0: tensor<2x3xf32>, %a1: tensor<3xf64>) -> tensor<2x3xf32> {
  %r = exir.aten "aten::copy"(%a0, %a1) {non_blocking = false, operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<3xf64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @einsum_explicit
func.func @einsum_explicit(%a0: tensor<2x3x4xf32>, %a1: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %r = exir.aten "aten::einsum"(%a0, %a1) {equation = "bij,bjk->bik", path = #exir.none, operand_segments = array<i32: 2>} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}

// CHECK-LABEL: func.func @einsum_implicit
func.func @einsum_implicit(%a0: tensor<3x4xf32>, %a1: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %r = exir.aten "aten::einsum"(%a0, %a1) {equation = "ij,jk", path = #exir.none, operand_segments = array<i32: 2>} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// CHECK-LABEL: func.func @einsum_ellipsis
func.func @einsum_ellipsis(%a0: tensor<7x3x4xf32>, %a1: tensor<4x5xf32>) -> tensor<7x3x5xf32> {
  %r = exir.aten "aten::einsum"(%a0, %a1) {equation = "...ij,jk->...ik", path = #exir.none, operand_segments = array<i32: 2>} : (tensor<7x3x4xf32>, tensor<4x5xf32>) -> tensor<7x3x5xf32>
  return %r : tensor<7x3x5xf32>
}

// CHECK-LABEL: func.func @sdpa
func.func @sdpa(%a0: tensor<1x2x4x8xf32>, %a1: tensor<1x2x6x8xf32>, %a2: tensor<1x2x6x5xf32>) -> tensor<1x2x4x5xf32> {
  %r = exir.aten "aten::scaled_dot_product_attention"(%a0, %a1, %a2) {dropout_p = 0.0 : f64, enable_gqa = false, is_causal = false, scale = #exir.none, operand_segments = array<i32: 1, 1, 1, 0>} : (tensor<1x2x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x5xf32>) -> tensor<1x2x4x5xf32>
  return %r : tensor<1x2x4x5xf32>
}

// CHECK-LABEL: func.func @out_variant
func.func @out_variant(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>, %a2: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = exir.aten "aten::add.out"(%a0, %a1, %a2) {alpha = 1 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @out_variant_factory
func.func @out_variant_factory(%a0: tensor<2xi64>) -> tensor<2xi64> {
  %r = exir.aten "aten::zeros.out"(%a0) {size = array<i64: 2>, operand_segments = array<i32: 1>} : (tensor<2xi64>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}

// CHECK-LABEL: func.func @out_variant_list
func.func @out_variant_list(%a0: tensor<5xf32>, %a1: tensor<2xf32>, %a2: tensor<2xf32>, %a3: tensor<1xf32>) {
  exir.aten "aten::split_copy.Tensor_out"(%a0, %a1, %a2, %a3) {dim = 0 : i64, split_size = 2 : i64, operand_segments = array<i32: 1, 3>} : (tensor<5xf32>, tensor<2xf32>, tensor<2xf32>, tensor<1xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @inplace_broadcast_into_self
func.func @inplace_broadcast_into_self(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = exir.aten "aten::add_.Tensor"(%a0, %a1) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @inplace_view
func.func @inplace_view(%a0: tensor<2xf32>) -> tensor<2x1xf32> {
  %r = exir.aten "aten::unsqueeze_"(%a0) {dim = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2xf32>) -> tensor<2x1xf32>
  return %r : tensor<2x1xf32>
}

// CHECK-LABEL: func.func @dim_order_copy
func.func @dim_order_copy(%a0: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %r = exir.aten "dim_order_ops::_to_dim_order_copy"(%a0) {dim_order = array<i64: 0, 2, 3, 1>, dtype = #exir.none, operand_segments = array<i32: 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return %r : tensor<1x2x3x4xf32>
}

// CHECK-LABEL: func.func @et_view
func.func @et_view(%a0: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %r = exir.aten "executorch_prim::et_view.default"(%a0) {size = array<i64: 3, 2>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @size_is_a_number
func.func @size_is_a_number(%a0: tensor<2x3xf32>) -> i64 {
  %r = exir.aten "aten::size.int"(%a0) {dim = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> i64
  return %r : i64
}

// CHECK-LABEL: func.func @quantize_per_tensor
func.func @quantize_per_tensor(%a0: tensor<2x3xf32>) -> tensor<2x3xi8> {
  %r = exir.aten "quantized_decomposed::quantize_per_tensor"(%a0) {dtype = i8, quant_max = 127 : i64, quant_min = -128 : i64, scale = 1.0e-01 : f64, zero_point = 0 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x3xi8>
  return %r : tensor<2x3xi8>
}

// CHECK-LABEL: func.func @dequantize_per_channel
func.func @dequantize_per_channel(%a0: tensor<4x3xi8>, %a1: tensor<4xf32>, %a2: tensor<4xi64>) -> tensor<4x3xf32> {
  %r = exir.aten "quantized_decomposed::dequantize_per_channel"(%a0, %a1, %a2) {axis = 0 : i64, dtype = i8, out_dtype = #exir.none, quant_max = 127 : i64, quant_min = -128 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<4x3xi8>, tensor<4xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @assert_metadata_holds
func.func @assert_metadata_holds(%a0: tensor<2x3xf32>) {
  exir.aten "aten::_assert_tensor_metadata"(%a0) {dtype = f32, size = array<i64: 2, 3>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> ()
  return
}
