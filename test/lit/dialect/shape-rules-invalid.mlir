// Shape rules of exir.aten (dialects/exir/IR/ShapeRules*.cpp): arguments that
// make no sense for the operator, and declared results that are not what the
// operator computes. lit runs ptec-opt with --exir-verify-each, which adds
// the rules to the verifier; the flag is repeated here for readers.
// RUN: ptec-opt %s --exir-verify-each --split-input-file --verify-diagnostics

func.func @permute_out_of_range(%a0: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{dims [0, 5] is not a permutation of 0..1 for float32[2, 3]: dim 5 is out of range}}
  %r = exir.aten "aten::permute"(%a0) {dims = array<i64: 0, 5>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

func.func @permute_duplicate(%a0: tensor<2x3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{dims [1, 1] is not a permutation of 0..1 for float32[2, 3]: dim 1 appears twice}}
  %r = exir.aten "aten::permute"(%a0) {dims = array<i64: 1, 1>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}

// -----

func.func @permute_empty(%a0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{dims [] is not a permutation of 0..1 for float32[2, 3]: 0 entries for 2 dims}}
  %r = exir.aten "aten::permute"(%a0) {dims = array<i64>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

func.func @permute_copy_negative_duplicate(%a0: tensor<2x3x4xf32>) -> tensor<4x4x2xf32> {
  // expected-error @+1 {{dim 2 appears twice}}
  %r = exir.aten "aten::permute_copy"(%a0) {dims = array<i64: -1, 2, 0>, operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<4x4x2xf32>
  return %r : tensor<4x4x2xf32>
}

// -----

func.func @permute_wrong_result(%a0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{result #0 is declared float32[2, 3], but the operator produces float32[3, 2] for these arguments}}
  %r = exir.aten "aten::permute"(%a0) {dims = array<i64: 1, 0>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

func.func @declared_dtype(%a0: tensor<2x2xf32>, %a1: tensor<2x2xf32>) -> tensor<2x2xf64> {
  // expected-error @+1 {{result #0 is declared float64[2, 2], but the operator produces float32[2, 2]}}
  %r = exir.aten "aten::add.Tensor"(%a0, %a1) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf64>
  return %r : tensor<2x2xf64>
}

// -----

func.func @declared_rank(%a0: tensor<2x2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{result #0 is declared float32[4], but the operator produces float32[2, 2]}}
  %r = exir.aten "aten::relu"(%a0) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @broadcast_mismatch(%a0: tensor<2x3xf32>, %a1: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{shapes do not broadcast: 'self' [2, 3] and 'other' [4] differ at dim 1 of the result (3 vs 4)}}
  %r = exir.aten "aten::mul.Tensor"(%a0, %a1) {operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

func.func @promotion_int_float(%a0: tensor<3xi64>, %a1: tensor<3xf32>) -> tensor<3xi64> {
  // expected-error @+1 {{declared int64[3], but the operator produces float32[3]}}
  %r = exir.aten "aten::add.Tensor"(%a0, %a1) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<3xi64>, tensor<3xf32>) -> tensor<3xi64>
  return %r : tensor<3xi64>
}

// -----

func.func @true_division_of_ints(%a0: tensor<3xi32>, %a1: tensor<3xi32>) -> tensor<3xi32> {
  // expected-error @+1 {{declared int32[3], but the operator produces float32[3]}}
  %r = exir.aten "aten::div.Tensor"(%a0, %a1) {operand_segments = array<i32: 1, 1>} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %r : tensor<3xi32>
}

// -----

func.func @comparison_is_bool(%a0: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{declared float32[3], but the operator produces bool[3]}}
  %r = exir.aten "aten::lt.Scalar"(%a0) {other = 0.5 : f64, operand_segments = array<i32: 1>} : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

func.func @float_alpha_on_ints(%a0: tensor<3xi64>, %a1: tensor<3xi64>) -> tensor<3xi64> {
  // expected-error @+1 {{alpha must not be a floating point number for integral operands}}
  %r = exir.aten "aten::add.Tensor"(%a0, %a1) {alpha = 2.5 : f64, operand_segments = array<i32: 1, 1>} : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %r : tensor<3xi64>
}

// -----

func.func @sub_bool(%a0: tensor<3xi1>, %a1: tensor<3xi1>) -> tensor<3xi1> {
  // expected-error @+1 {{subtraction with a bool operand is not supported}}
  %r = exir.aten "aten::sub.Tensor"(%a0, %a1) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return %r : tensor<3xi1>
}

// -----

func.func @bitwise_float(%a0: tensor<3xf32>, %a1: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{bitwise operators need integer or bool operands, got float32}}
  %r = exir.aten "aten::bitwise_and.Tensor"(%a0, %a1) {operand_segments = array<i32: 1, 1>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

func.func @where_condition_dtype(%a0: tensor<3xf32>, %a1: tensor<3xf32>, %a2: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'condition' must be a bool tensor, got float32}}
  %r = exir.aten "aten::where.self"(%a0, %a1, %a2) {operand_segments = array<i32: 1, 1, 1>} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

func.func @clamp_neither(%a0: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{at least one of 'min' and 'max' must not be None}}
  %r = exir.aten "aten::clamp"(%a0) {max = #exir.none, min = #exir.none, operand_segments = array<i32: 1>} : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

func.func @masked_fill_mask_dtype(%a0: tensor<3xf32>, %a1: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'mask' must be a bool tensor, got float32}}
  %r = exir.aten "aten::masked_fill.Scalar"(%a0, %a1) {value = 0.0 : f64, operand_segments = array<i32: 1, 1>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

func.func @view_count(%a0: tensor<2x3xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{size [4, 2] has 8 elements, but the input has 6}}
  %r = exir.aten "aten::view"(%a0) {size = array<i64: 4, 2>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----

func.func @view_two_inferred(%a0: tensor<2x3xf32>) -> tensor<6x1xf32> {
  // expected-error @+1 {{only one dim of size [-1, -1] can be -1}}
  %r = exir.aten "aten::view_copy"(%a0) {size = array<i64: -1, -1>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<6x1xf32>
  return %r : tensor<6x1xf32>
}

// -----

func.func @view_infer_uneven(%a0: tensor<2x3xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{size [4, -1] does not fit a tensor of 6 elements}}
  %r = exir.aten "aten::view"(%a0) {size = array<i64: 4, -1>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----

func.func @reshape_ok_wrong_declared(%a0: tensor<2x3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{declared float32[3, 3], but the operator produces float32[3, 2]}}
  %r = exir.aten "aten::reshape"(%a0) {shape = array<i64: 3, -1>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}

// -----

func.func @transpose_dim_range(%a0: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{dim1 2 is out of range for a tensor of rank 2 (expected -2..1)}}
  %r = exir.aten "aten::transpose.int"(%a0) {dim0 = 0 : i64, dim1 = 2 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

func.func @unsqueeze_dim_range(%a0: tensor<2x3xf32>) -> tensor<2x3x1xf32> {
  // expected-error @+1 {{dim 4 is out of range for a tensor of rank 3 (expected -3..2)}}
  %r = exir.aten "aten::unsqueeze"(%a0) {dim = 4 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  return %r : tensor<2x3x1xf32>
}

// -----

func.func @select_index_range(%a0: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{index 3 is out of range for dim 1 of size 3}}
  %r = exir.aten "aten::select.int"(%a0) {dim = 1 : i64, index = 3 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @select_zero_dim(%a0: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'self' must have at least 1 dims, got float32[]}}
  %r = exir.aten "aten::select_copy.int"(%a0) {dim = 0 : i64, index = 0 : i64, operand_segments = array<i32: 1>} : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

func.func @slice_step(%a0: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{slice step must be positive, got 0}}
  %r = exir.aten "aten::slice.Tensor"(%a0) {dim = 0 : i64, end = 2 : i64, start = 0 : i64, step = 0 : i64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @slice_clamped_length(%a0: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{declared float32[3], but the operator produces float32[2]}}
  %r = exir.aten "aten::slice_copy.Tensor"(%a0) {dim = 0 : i64, end = 100 : i64, start = 1 : i64, step = 2 : i64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

func.func @narrow_past_end(%a0: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{start (2) + length (3) exceeds dim 0 of size 4}}
  %r = exir.aten "aten::narrow"(%a0) {dim = 0 : i64, length = 3 : i64, start = 2 : i64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

func.func @expand_non_singleton(%a0: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{cannot expand float32[2, 3] to [4, 3]: dim 0 has size 2, not 1}}
  %r = exir.aten "aten::expand"(%a0) {size = array<i64: 4, 3>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

func.func @squeeze_dims_duplicate(%a0: tensor<1x3x1xf32>) -> tensor<3x1xf32> {
  // expected-error @+1 {{dim 0 appears more than once in dim [0, 0]}}
  %r = exir.aten "aten::squeeze.dims"(%a0) {dim = array<i64: 0, 0>, operand_segments = array<i32: 1>} : (tensor<1x3x1xf32>) -> tensor<3x1xf32>
  return %r : tensor<3x1xf32>
}

// -----

func.func @flatten_order(%a0: tensor<2x3x4xf32>) -> tensor<24xf32> {
  // expected-error @+1 {{start_dim (2) comes after end_dim (0)}}
  %r = exir.aten "aten::flatten.using_ints"(%a0) {end_dim = 0 : i64, start_dim = 2 : i64, operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return %r : tensor<24xf32>
}

// -----

func.func @split_sizes_sum(%a0: tensor<5x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  // expected-error @+1 {{split sizes [2, 2] add up to 4, but dim 0 has size 5}}
  %r:2 = exir.aten "aten::split_with_sizes_copy"(%a0) {dim = 0 : i64, split_sizes = array<i64: 2, 2>, operand_segments = array<i32: 1>} : (tensor<5x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  return %r#0, %r#1 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

func.func @split_result_count(%a0: tensor<5x2xf32>) -> (tensor<2x2xf32>, tensor<3x2xf32>) {
  // expected-error @+1 {{has 2 results, but the operator produces 3}}
  %r:2 = exir.aten "aten::split_copy.Tensor"(%a0) {dim = 0 : i64, split_size = 2 : i64, operand_segments = array<i32: 1>} : (tensor<5x2xf32>) -> (tensor<2x2xf32>, tensor<3x2xf32>)
  return %r#0, %r#1 : tensor<2x2xf32>, tensor<3x2xf32>
}

// -----

func.func @cat_mismatch(%a0: tensor<2x3xf32>, %a1: tensor<2x4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{sizes must match except in dim 0: float32[2, 3] and float32[2, 4] (entry 1)}}
  %r = exir.aten "aten::cat"(%a0, %a1) {dim = 0 : i64, operand_segments = array<i32: 2>} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

func.func @cat_rank(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{tensors must have the same number of dims, got float32[2, 3] and float32[3] (entry 1)}}
  %r = exir.aten "aten::cat"(%a0, %a1) {dim = 1 : i64, operand_segments = array<i32: 2>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

// -----

func.func @stack_shapes(%a0: tensor<2x3xf32>, %a1: tensor<3x2xf32>) -> tensor<2x2x3xf32> {
  // expected-error @+1 {{stack needs tensors of one shape, got float32[2, 3] and float32[3, 2] (entry 1)}}
  %r = exir.aten "aten::stack"(%a0, %a1) {dim = 0 : i64, operand_segments = array<i32: 2>} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2x3xf32>
  return %r : tensor<2x2x3xf32>
}

// -----

func.func @mm_inner(%a0: tensor<2x3xf32>, %a1: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'self' float32[2, 3] and 'mat2' float32[4, 5] cannot be multiplied: inner dims 3 and 4 differ}}
  %r = exir.aten "aten::mm"(%a0, %a1) {operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

func.func @mm_dtype(%a0: tensor<2x3xf32>, %a1: tensor<3x5xf64>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'self' and 'mat2' must have the same dtype, got float32 and float64}}
  %r = exir.aten "aten::mm"(%a0, %a1) {operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<3x5xf64>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

func.func @bmm_batches(%a0: tensor<2x3x4xf32>, %a1: tensor<3x4x5xf32>) -> tensor<2x3x5xf32> {
  // expected-error @+1 {{must have the same number of batches}}
  %r = exir.aten "aten::bmm"(%a0, %a1) {operand_segments = array<i32: 1, 1>} : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}

// -----

func.func @addmm_bias(%a0: tensor<7xf32>, %a1: tensor<2x3xf32>, %a2: tensor<3x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{shapes do not broadcast: 'self' [7] and 'product' [2, 5] differ at dim 1 of the result (7 vs 5)}}
  %r = exir.aten "aten::addmm"(%a0, %a1, %a2) {alpha = 1 : i64, beta = 1 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<7xf32>, tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

func.func @matmul_inner(%a0: tensor<2x3x4xf32>, %a1: tensor<5x6xf32>) -> tensor<2x3x6xf32> {
  // expected-error @+1 {{cannot be multiplied: inner dims 4 and 5 differ}}
  %r = exir.aten "aten::matmul"(%a0, %a1) {operand_segments = array<i32: 1, 1>} : (tensor<2x3x4xf32>, tensor<5x6xf32>) -> tensor<2x3x6xf32>
  return %r : tensor<2x3x6xf32>
}

// -----

func.func @conv_channels(%a0: tensor<1x3x8x8xf32>, %a1: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'weight' float32[4, 2, 3, 3] with groups=1 expects 2 input channels, but 'input' float32[1, 3, 8, 8] has 3}}
  %r = exir.aten "aten::convolution"(%a0, %a1) {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false, operand_segments = array<i32: 1, 1, 0>} : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %r : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_kernel_too_big(%a0: tensor<1x3x2x2xf32>, %a1: tensor<4x3x3x3xf32>) -> tensor<1x4x1x1xf32> {
  // expected-error @+1 {{the kernel (3 with dilation) is larger than the padded input (2) in spatial dim 0}}
  %r = exir.aten "aten::convolution"(%a0, %a1) {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false, operand_segments = array<i32: 1, 1, 0>} : (tensor<1x3x2x2xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x1x1xf32>
  return %r : tensor<1x4x1x1xf32>
}

// -----

func.func @conv_stride_zero(%a0: tensor<1x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'stride' [0, 1] must be positive}}
  %r = exir.aten "aten::convolution"(%a0, %a1) {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 0, 1>, transposed = false, operand_segments = array<i32: 1, 1, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %r : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_output_shape(%a0: tensor<1x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>, %a2: tensor<4xf32>) -> tensor<1x4x3x3xf32> {
  // expected-error @+1 {{declared float32[1, 4, 3, 3], but the operator produces float32[1, 4, 4, 4]}}
  %r = exir.aten "aten::convolution"(%a0, %a1, %a2) {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = false, operand_segments = array<i32: 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  return %r : tensor<1x4x3x3xf32>
}

// -----

func.func @conv_bias(%a0: tensor<1x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>, %a2: tensor<3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'bias' float32[3] must be 1-dim with 4 elements}}
  %r = exir.aten "aten::convolution"(%a0, %a1, %a2) {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false, operand_segments = array<i32: 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>
  return %r : tensor<1x4x6x6xf32>
}

// -----

func.func @maxpool_padding(%a0: tensor<1x3x8x8xf32>) -> (tensor<1x3x6x6xf32>, tensor<1x3x6x6xi64>) {
  // expected-error @+1 {{padding [2, 2] must be at most half of the kernel [2, 2]}}
  %r:2 = exir.aten "aten::max_pool2d_with_indices"(%a0) {ceil_mode = false, dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 2, 2>, stride = array<i64: 2, 2>, operand_segments = array<i32: 1>} : (tensor<1x3x8x8xf32>) -> (tensor<1x3x6x6xf32>, tensor<1x3x6x6xi64>)
  return %r#0, %r#1 : tensor<1x3x6x6xf32>, tensor<1x3x6x6xi64>
}

// -----

func.func @maxpool_indices_dtype(%a0: tensor<1x3x8x8xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xi32>) {
  // expected-error @+1 {{result #1 is declared int32[1, 3, 4, 4], but the operator produces int64[1, 3, 4, 4]}}
  %r:2 = exir.aten "aten::max_pool2d_with_indices"(%a0) {ceil_mode = false, dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>, operand_segments = array<i32: 1>} : (tensor<1x3x8x8xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xi32>)
  return %r#0, %r#1 : tensor<1x3x4x4xf32>, tensor<1x3x4x4xi32>
}

// -----

func.func @avgpool_ceil(%a0: tensor<1x1x5x5xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{declared float32[1, 1, 2, 2], but the operator produces float32[1, 1, 3, 3]}}
  %r = exir.aten "aten::avg_pool2d"(%a0) {ceil_mode = true, count_include_pad = true, divisor_override = #exir.none, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>, operand_segments = array<i32: 1>} : (tensor<1x1x5x5xf32>) -> tensor<1x1x2x2xf32>
  return %r : tensor<1x1x2x2xf32>
}

// -----

func.func @layer_norm_shape(%a0: tensor<2x3x4xf32>, %a1: tensor<3xf32>, %a2: tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>) {
  // expected-error @+1 {{normalized_shape [3] must match the trailing dims of 'input' float32[2, 3, 4]}}
  %r:3 = exir.aten "aten::native_layer_norm"(%a0, %a1, %a2) {eps = 1.0e-05 : f64, normalized_shape = array<i64: 3>, operand_segments = array<i32: 1, 1, 1>} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x3x4xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>
}

// -----

func.func @batch_norm_channels(%a0: tensor<1x3x4x4xf32>, %a1: tensor<3xf32>, %a2: tensor<3xf32>, %a3: tensor<4xf32>, %a4: tensor<3xf32>) -> (tensor<1x3x4x4xf32>, tensor<0xf32>, tensor<0xf32>) {
  // expected-error @+1 {{'running_mean' float32[4] must have 3 elements, one per channel}}
  %r:3 = exir.aten "aten::_native_batch_norm_legit_no_training"(%a0, %a1, %a2, %a3, %a4) {eps = 1.0e-05 : f64, momentum = 1.0e-01 : f64, operand_segments = array<i32: 1, 1, 1, 1, 1>} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32>, tensor<3xf32>) -> (tensor<1x3x4x4xf32>, tensor<0xf32>, tensor<0xf32>)
  return %r#0, %r#1, %r#2 : tensor<1x3x4x4xf32>, tensor<0xf32>, tensor<0xf32>
}

// -----

func.func @softmax_dim(%a0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{dim 2 is out of range for a tensor of rank 2 (expected -2..1)}}
  %r = exir.aten "aten::_softmax"(%a0) {dim = 2 : i64, half_to_float = false, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

func.func @sum_dims_duplicate(%a0: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{dim 1 appears more than once in dim [1, -1]}}
  %r = exir.aten "aten::sum.dim_IntList"(%a0) {dim = array<i64: 1, -1>, keepdim = false, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @sum_int_is_int64(%a0: tensor<2x3xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{declared int32[2], but the operator produces int64[2]}}
  %r = exir.aten "aten::sum.dim_IntList"(%a0) {dim = array<i64: 1>, keepdim = false, operand_segments = array<i32: 1>} : (tensor<2x3xi32>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}

// -----

func.func @mean_int(%a0: tensor<2x3xi64>) -> tensor<2x1xi64> {
  // expected-error @+1 {{mean needs a floating or complex dtype, got int64}}
  %r = exir.aten "aten::mean.dim"(%a0) {dim = array<i64: 1>, keepdim = true, operand_segments = array<i32: 1>} : (tensor<2x3xi64>) -> tensor<2x1xi64>
  return %r : tensor<2x1xi64>
}

// -----

func.func @mean_keepdim(%a0: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{declared float32[2], but the operator produces float32[2, 1]}}
  %r = exir.aten "aten::mean.dim"(%a0) {dim = array<i64: -1>, keepdim = true, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @argmax_dtype(%a0: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{declared float32[2], but the operator produces int64[2]}}
  %r = exir.aten "aten::argmax"(%a0) {dim = 1 : i64, keepdim = false, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @topk_k(%a0: tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>) {
  // expected-error @+1 {{k = 4 is out of range for dim 1 of size 3}}
  %r:2 = exir.aten "aten::topk"(%a0) {dim = -1 : i64, k = 4 : i64, largest = true, sorted = true, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  return %r#0, %r#1 : tensor<2x4xf32>, tensor<2x4xi64>
}

// -----

func.func @gather_index_dtype(%a0: tensor<2x3xf32>, %a1: tensor<2x3xi32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'index' must be an int64 tensor, got int32[2, 3]}}
  %r = exir.aten "aten::gather"(%a0, %a1) {dim = 1 : i64, sparse_grad = false, operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

func.func @index_select_rank(%a0: tensor<4x3xf32>, %a1: tensor<2x2xi64>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'index' must have 0 to 1 dims, got int64[2, 2]}}
  %r = exir.aten "aten::index_select"(%a0, %a1) {dim = 0 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x3xf32>, tensor<2x2xi64>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

func.func @index_too_many(%a0: tensor<4xf32>, %a1: tensor<2xi64>, %a2: tensor<2xi64>) -> tensor<2xf32> {
  // expected-error @+1 {{too many indices (2) for a tensor of rank 1}}
  %r = exir.aten "aten::index.Tensor"(%a0, %a1, %a2) {indices = array<i1: true, true>, operand_segments = array<i32: 1, 2>} : (tensor<4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @index_float_index(%a0: tensor<4x3xf32>, %a1: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{index 0 must be an int64, int32, bool or uint8 tensor, got float32[2]}}
  %r = exir.aten "aten::index.Tensor"(%a0, %a1) {indices = array<i1: true>, operand_segments = array<i32: 1, 1>} : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

func.func @index_put_values(%a0: tensor<4x3xf32>, %a1: tensor<2xi64>, %a2: tensor<5xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'values' float32[5] cannot be broadcast to the indexed shape [2, 3]}}
  %r = exir.aten "aten::index_put"(%a0, %a1, %a2) {accumulate = false, indices = array<i1: true>, operand_segments = array<i32: 1, 1, 1>} : (tensor<4x3xf32>, tensor<2xi64>, tensor<5xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

func.func @slice_scatter_src(%a0: tensor<4x3xf32>, %a1: tensor<3x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'src' float32[3, 3] must have the shape of the part of float32[4, 3] it replaces, [2, 3]}}
  %r = exir.aten "aten::slice_scatter"(%a0, %a1) {dim = 0 : i64, end = 2 : i64, start = 0 : i64, step = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

func.func @select_scatter_src(%a0: tensor<4x3xf32>, %a1: tensor<4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'src' float32[4] must have the shape of the part of float32[4, 3] it replaces, [3]}}
  %r = exir.aten "aten::select_scatter"(%a0, %a1) {dim = 0 : i64, index = 0 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

func.func @embedding_indices(%a0: tensor<10x4xf32>, %a1: tensor<3xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'indices' must be an int32 or int64 tensor, got float32[3]}}
  %r = exir.aten "aten::embedding"(%a0, %a1) {padding_idx = -1 : i64, scale_grad_by_freq = false, sparse = false, operand_segments = array<i32: 1, 1>} : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

func.func @full_dtype_from_value() -> tensor<2xf32> {
  // expected-error @+1 {{declared float32[2], but the operator produces int64[2]}}
  %r = exir.aten "aten::full"() {device = #exir.none, dtype = #exir.none, fill_value = 1 : i64, layout = #exir.none, pin_memory = #exir.none, size = array<i64: 2>, operand_segments = array<i32>} : () -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @zeros_negative() -> tensor<0xf32> {
  // expected-error @+1 {{'size' [-1] has a negative size}}
  %r = exir.aten "aten::zeros"() {size = array<i64: -1>, operand_segments = array<i32>} : () -> tensor<0xf32>
  return %r : tensor<0xf32>
}

// -----

func.func @arange_length() -> tensor<3xi64> {
  // expected-error @+1 {{declared int64[3], but the operator produces int64[4]}}
  %r = exir.aten "aten::arange.start_step"() {end = 10 : i64, start = 0 : i64, step = 3 : i64, operand_segments = array<i32>} : () -> tensor<3xi64>
  return %r : tensor<3xi64>
}

// -----

func.func @arange_sign() -> tensor<0xi64> {
  // expected-error @+1 {{arange bounds [10, 0) are inconsistent with the step 1}}
  %r = exir.aten "aten::arange.start_step"() {end = 0 : i64, start = 10 : i64, step = 1 : i64, operand_segments = array<i32>} : () -> tensor<0xi64>
  return %r : tensor<0xi64>
}

// -----

func.func @to_copy_dtype(%a0: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{declared float32[3], but the operator produces int64[3]}}
  %r = exir.aten "aten::_to_copy"(%a0) {dtype = i64, operand_segments = array<i32: 1>} : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

func.func @dim_order_not_permutation(%a0: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  // expected-error @+1 {{dim_order [0, 2, 2, 1] is not a permutation of 0..3}}
  %r = exir.aten "dim_order_ops::_to_dim_order_copy"(%a0) {dim_order = array<i64: 0, 2, 2, 1>, operand_segments = array<i32: 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return %r : tensor<1x2x3x4xf32>
}

// -----

func.func @assert_metadata(%a0: tensor<2x3xf32>) {
  // expected-error @+1 {{the tensor is float32[2, 3], but the program asserts size [3, 2]}}
  exir.aten "aten::_assert_tensor_metadata"(%a0) {size = array<i64: 3, 2>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> ()
  return
}

// -----

func.func @number_result_as_tensor(%a0: tensor<2x3xf32>) -> tensor<i64> {
  // expected-error @+1 {{result #0 is declared int64[], but the operator returns a number, not a tensor}}
  %r = exir.aten "aten::size.int"(%a0) {dim = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<i64>
  return %r : tensor<i64>
}

// -----

func.func @rank_limit(%a0: tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>) -> tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32> {
  // expected-error @+1 {{operand #0 has 17 dims; the runtime supports at most 16}}
  %r = exir.aten "aten::relu"(%a0) {operand_segments = array<i32: 1>} : (tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>) -> tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>
  return %r : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>
}

// -----

func.func @out_variant_shape(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>, %a2: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{out argument 'out' is declared float32[3], but the operator produces float32[2, 3] for these arguments}}
  %r = exir.aten "aten::add.out"(%a0, %a1, %a2) {alpha = 1 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

func.func @inplace_grows(%a0: tensor<3xf32>, %a1: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{the result float32[2, 3] does not fit in 'self' float32[3], which the op writes}}
  %r = exir.aten "aten::add_.Tensor"(%a0, %a1) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

func.func @inplace_float_into_int(%a0: tensor<3xi64>, %a1: tensor<3xf32>) -> tensor<3xi64> {
  // expected-error @+1 {{the result dtype float32 cannot be cast to the dtype of 'self' (int64), which the op writes}}
  %r = exir.aten "aten::mul_.Tensor"(%a0, %a1) {operand_segments = array<i32: 1, 1>} : (tensor<3xi64>, tensor<3xf32>) -> tensor<3xi64>
  return %r : tensor<3xi64>
}

// -----

func.func @pad_odd(%a0: tensor<2x3xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{the pad list [1, 1, 1] must have an even length}}
  %r = exir.aten "aten::constant_pad_nd"(%a0) {pad = array<i64: 1, 1, 1>, value = 0 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

func.func @pad_negative_size(%a0: tensor<2x3xf32>) -> tensor<2x0xf32> {
  // expected-error @+1 {{padding (-2, -2) makes dim 1 of float32[2, 3] negative}}
  %r = exir.aten "aten::constant_pad_nd"(%a0) {pad = array<i64: -2, -2>, value = 0 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x0xf32>
  return %r : tensor<2x0xf32>
}

// -----

func.func @upsample_rank(%a0: tensor<3x8x8xf32>) -> tensor<3x16x16xf32> {
  // expected-error @+1 {{'self' must have 4 dims, got float32[3, 8, 8]}}
  %r = exir.aten "aten::upsample_nearest2d"(%a0) {output_size = array<i64: 16, 16>, scales_h = #exir.none, scales_w = #exir.none, operand_segments = array<i32: 1>} : (tensor<3x8x8xf32>) -> tensor<3x16x16xf32>
  return %r : tensor<3x16x16xf32>
}

// -----

func.func @einsum_sizes(%a0: tensor<2x3xf32>, %a1: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{label 'j' has sizes 3 and 4}}
  %r = exir.aten "aten::einsum"(%a0, %a1) {equation = "ij,jk->ik", path = #exir.none, operand_segments = array<i32: 2>} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

func.func @sdpa_embedding(%a0: tensor<1x2x4x8xf32>, %a1: tensor<1x2x4x6xf32>, %a2: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  // expected-error @+1 {{'query' float32[1, 2, 4, 8] and 'key' float32[1, 2, 4, 6] must have the same embedding size}}
  %r = exir.aten "aten::scaled_dot_product_attention"(%a0, %a1, %a2) {dropout_p = 0.0 : f64, is_causal = false, scale = #exir.none, enable_gqa = false, operand_segments = array<i32: 1, 1, 1, 0>} : (tensor<1x2x4x8xf32>, tensor<1x2x4x6xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  return %r : tensor<1x2x4x8xf32>
}

// -----

func.func @group_norm_groups(%a0: tensor<2x6x4xf32>) -> tensor<2x6x4xf32> {
  // expected-error @+1 {{the channels of 'input' float32[2, 6, 4] must be divisible by num_groups=4}}
  %r = exir.aten "aten::group_norm"(%a0) {num_groups = 4 : i64, eps = 1.0e-05 : f64, cudnn_enabled = true, operand_segments = array<i32: 1, 0, 0>} : (tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
  return %r : tensor<2x6x4xf32>
}

// -----

func.func @repeat_fewer(%a0: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{repeats [2] has fewer entries than float32[2, 3] has dims}}
  %r = exir.aten "aten::repeat"(%a0) {repeats = array<i64: 2>, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

func.func @one_hot_dtype(%a0: tensor<3xi32>) -> tensor<3x4xi64> {
  // expected-error @+1 {{one_hot needs an int64 tensor, got int32[3]}}
  %r = exir.aten "aten::one_hot"(%a0) {num_classes = 4 : i64, operand_segments = array<i32: 1>} : (tensor<3xi32>) -> tensor<3x4xi64>
  return %r : tensor<3x4xi64>
}

// -----

func.func @dequantize_dtype(%a0: tensor<2x3xi32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'input' int32[2, 3] must have the quantized dtype int8}}
  %r = exir.aten "quantized_decomposed::dequantize_per_tensor"(%a0) {dtype = i8, out_dtype = #exir.none, quant_max = 127 : i64, quant_min = -128 : i64, scale = 1.0e-01 : f64, zero_point = 0 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xi32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

func.func @quantize_channels(%a0: tensor<4x3xf32>, %a1: tensor<3xf32>, %a2: tensor<3xi64>) -> tensor<4x3xi8> {
  // expected-error @+1 {{'scales' float32[3] must have one entry per channel (4)}}
  %r = exir.aten "quantized_decomposed::quantize_per_channel"(%a0, %a1, %a2) {axis = 0 : i64, dtype = i8, quant_max = 127 : i64, quant_min = -128 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xi64>) -> tensor<4x3xi8>
  return %r : tensor<4x3xi8>
}

// -----

func.func @huge_sizes_saturate(%a0: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{size [4611686018427387904, 8] has 9223372036854775807 elements, but the input has 4}}
  %r = exir.aten "aten::view"(%a0) {size = array<i64: 4611686018427387904, 8>, operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

func.func @huge_split_bounded(%a0: tensor<4611686018427387904xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{the operator produces 4611686018427387904 tensors here, more than the op declares}}
  %r = exir.aten "aten::split_copy.Tensor"(%a0) {dim = 0 : i64, split_size = 1 : i64, operand_segments = array<i32: 1>} : (tensor<4611686018427387904xf32>) -> tensor<1xf32>
  return %r : tensor<1xf32>
}

// -----

func.func @huge_slice_step(%a0: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{declared float32[2], but the operator produces float32[1]}}
  %r = exir.aten "aten::slice.Tensor"(%a0) {dim = 0 : i64, end = #exir.none, start = #exir.none, step = 9223372036854775807 : i64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @pixel_shuffle_channels(%a0: tensor<1x6x2x2xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+1 {{channels (6) must be divisible by 4}}
  %r = exir.aten "aten::pixel_shuffle"(%a0) {upscale_factor = 2 : i64, operand_segments = array<i32: 1>} : (tensor<1x6x2x2xf32>) -> tensor<1x1x4x4xf32>
  return %r : tensor<1x1x4x4xf32>
}
