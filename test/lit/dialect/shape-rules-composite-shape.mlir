// Shape rules of the composite shape ops that legalize-to-core-aten decomposes
// (dialects/exir/IR/ShapeRulesCompositeShape.cpp). The programs of the first
// chunk have the result types PyTorch 2.15 gives them (generated with its meta
// functions): the rules must accept each. The chunks after it are refused.
// RUN: ptec-opt %s --exir-verify-each --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @pad_enum
func.func @pad_enum(%a0: tensor<2x3x7xf32>) -> (tensor<2x3x6xf32>) {
  %r = exir.aten "aten::_pad_enum"(%a0) {pad = array<i64: 1, -2>, mode = 3 : i64, operand_segments = array<i32: 1>} : (tensor<2x3x7xf32>) -> (tensor<2x3x6xf32>)
  return %r : tensor<2x3x6xf32>
}

// CHECK-LABEL: func.func @pad_circular
func.func @pad_circular(%a0: tensor<2x3x7xf32>) -> (tensor<2x4x10xf32>) {
  %r = exir.aten "aten::_pad_circular"(%a0) {pad = array<i64: 2, 1, 1, 0>, operand_segments = array<i32: 1>} : (tensor<2x3x7xf32>) -> (tensor<2x4x10xf32>)
  return %r : tensor<2x4x10xf32>
}

// CHECK-LABEL: func.func @unsafe_split_with_sizes
func.func @unsafe_split_with_sizes(%a0: tensor<4x5xf32>) -> (tensor<4x2xf32>, tensor<4x3xf32>) {
  %r:2 = exir.aten "aten::unsafe_split_with_sizes"(%a0) {split_sizes = array<i64: 2, 3>, dim = 1 : i64, operand_segments = array<i32: 1>} : (tensor<4x5xf32>) -> (tensor<4x2xf32>, tensor<4x3xf32>)
  return %r#0, %r#1 : tensor<4x2xf32>, tensor<4x3xf32>
}

// CHECK-LABEL: func.func @unsafe_chunk
func.func @unsafe_chunk(%a0: tensor<2x3x7xf32>) -> (tensor<2x3x3xf32>, tensor<2x3x3xf32>, tensor<2x3x1xf32>) {
  %r:3 = exir.aten "aten::unsafe_chunk"(%a0) {chunks = 3 : i64, dim = -1 : i64, operand_segments = array<i32: 1>} : (tensor<2x3x7xf32>) -> (tensor<2x3x3xf32>, tensor<2x3x3xf32>, tensor<2x3x1xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x3x3xf32>, tensor<2x3x3xf32>, tensor<2x3x1xf32>
}

// CHECK-LABEL: func.func @hsplit_array
func.func @hsplit_array(%a0: tensor<4x5xf32>) -> (tensor<4x1xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %r:3 = exir.aten "aten::hsplit.array"(%a0) {indices = array<i64: 1, 3>, operand_segments = array<i32: 1>} : (tensor<4x5xf32>) -> (tensor<4x1xf32>, tensor<4x2xf32>, tensor<4x2xf32>)
  return %r#0, %r#1, %r#2 : tensor<4x1xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}

// CHECK-LABEL: func.func @vsplit_int
func.func @vsplit_int(%a0: tensor<4x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>) {
  %r:2 = exir.aten "aten::vsplit.int"(%a0) {sections = 2 : i64, operand_segments = array<i32: 1>} : (tensor<4x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>)
  return %r#0, %r#1 : tensor<2x5xf32>, tensor<2x5xf32>
}

// CHECK-LABEL: func.func @dsplit_array
func.func @dsplit_array(%a0: tensor<2x3x7xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x0xf32>, tensor<2x3x5xf32>) {
  %r:3 = exir.aten "aten::dsplit.array"(%a0) {indices = array<i64: 5, 2>, operand_segments = array<i32: 1>} : (tensor<2x3x7xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x0xf32>, tensor<2x3x5xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x3x5xf32>, tensor<2x3x0xf32>, tensor<2x3x5xf32>
}

// CHECK-LABEL: func.func @rot90_odd
func.func @rot90_odd(%a0: tensor<2x3x7xf32>) -> (tensor<7x3x2xf32>) {
  %r = exir.aten "aten::rot90"(%a0) {k = 3 : i64, dims = array<i64: 2, 0>, operand_segments = array<i32: 1>} : (tensor<2x3x7xf32>) -> (tensor<7x3x2xf32>)
  return %r : tensor<7x3x2xf32>
}

// CHECK-LABEL: func.func @channel_shuffle
func.func @channel_shuffle(%a0: tensor<1x6x2x3xf32>) -> (tensor<1x6x2x3xf32>) {
  %r = exir.aten "aten::native_channel_shuffle"(%a0) {groups = 3 : i64, operand_segments = array<i32: 1>} : (tensor<1x6x2x3xf32>) -> (tensor<1x6x2x3xf32>)
  return %r : tensor<1x6x2x3xf32>
}

// CHECK-LABEL: func.func @movedim_list
func.func @movedim_list(%a0: tensor<2x3x7xf32>) -> (tensor<7x3x2xf32>) {
  %r = exir.aten "aten::movedim.intlist"(%a0) {source = array<i64: 0, -1>, destination = array<i64: 2, 0>, operand_segments = array<i32: 1>} : (tensor<2x3x7xf32>) -> (tensor<7x3x2xf32>)
  return %r : tensor<7x3x2xf32>
}

// CHECK-LABEL: func.func @swapdims
func.func @swapdims(%a0: tensor<2x3x7xf32>) -> (tensor<7x3x2xf32>) {
  %r = exir.aten "aten::swapdims"(%a0) {dim0 = -1 : i64, dim1 = 0 : i64, operand_segments = array<i32: 1>} : (tensor<2x3x7xf32>) -> (tensor<7x3x2xf32>)
  return %r : tensor<7x3x2xf32>
}

// CHECK-LABEL: func.func @ravel
func.func @ravel(%a0: tensor<2x3x7xf32>) -> (tensor<42xf32>) {
  %r = exir.aten "aten::ravel"(%a0) {operand_segments = array<i32: 1>} : (tensor<2x3x7xf32>) -> (tensor<42xf32>)
  return %r : tensor<42xf32>
}

// CHECK-LABEL: func.func @broadcast_to
func.func @broadcast_to(%a0: tensor<4x1xf32>) -> (tensor<2x4x5xf32>) {
  %r = exir.aten "aten::broadcast_to"(%a0) {size = array<i64: 2, -1, 5>, operand_segments = array<i32: 1>} : (tensor<4x1xf32>) -> (tensor<2x4x5xf32>)
  return %r : tensor<2x4x5xf32>
}

// CHECK-LABEL: func.func @atleast_3d
func.func @atleast_3d(%a0: tensor<3xf32>) -> (tensor<1x3x1xf32>) {
  %r = exir.aten "aten::atleast_3d"(%a0) {operand_segments = array<i32: 1>} : (tensor<3xf32>) -> (tensor<1x3x1xf32>)
  return %r : tensor<1x3x1xf32>
}

// CHECK-LABEL: func.func @atleast_2d_seq
func.func @atleast_2d_seq(%a0: tensor<3xf32>, %a1: tensor<2x3x7xf32>) -> (tensor<1x3xf32>, tensor<2x3x7xf32>) {
  %r:2 = exir.aten "aten::atleast_2d.Sequence"(%a0, %a1) {operand_segments = array<i32: 2>} : (tensor<3xf32>, tensor<2x3x7xf32>) -> (tensor<1x3xf32>, tensor<2x3x7xf32>)
  return %r#0, %r#1 : tensor<1x3xf32>, tensor<2x3x7xf32>
}

// CHECK-LABEL: func.func @meshgrid
func.func @meshgrid(%a0: tensor<4xf32>, %a1: tensor<f32>, %a2: tensor<3xf32>) -> (tensor<4x1x3xf32>, tensor<4x1x3xf32>, tensor<4x1x3xf32>) {
  %r:3 = exir.aten "aten::meshgrid"(%a0, %a1, %a2) {operand_segments = array<i32: 3>} : (tensor<4xf32>, tensor<f32>, tensor<3xf32>) -> (tensor<4x1x3xf32>, tensor<4x1x3xf32>, tensor<4x1x3xf32>)
  return %r#0, %r#1, %r#2 : tensor<4x1x3xf32>, tensor<4x1x3xf32>, tensor<4x1x3xf32>
}

// CHECK-LABEL: func.func @column_stack
func.func @column_stack(%a0: tensor<4xf32>, %a1: tensor<4x2xf32>) -> (tensor<4x3xf32>) {
  %r = exir.aten "aten::column_stack"(%a0, %a1) {operand_segments = array<i32: 2>} : (tensor<4xf32>, tensor<4x2xf32>) -> (tensor<4x3xf32>)
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @dstack
func.func @dstack(%a0: tensor<4x5xf32>, %a1: tensor<4x5xf32>) -> (tensor<4x5x2xf32>) {
  %r = exir.aten "aten::dstack"(%a0, %a1) {operand_segments = array<i32: 2>} : (tensor<4x5xf32>, tensor<4x5xf32>) -> (tensor<4x5x2xf32>)
  return %r : tensor<4x5x2xf32>
}

// CHECK-LABEL: func.func @row_stack
func.func @row_stack(%a0: tensor<5xf32>, %a1: tensor<4x5xf32>) -> (tensor<5x5xf32>) {
  %r = exir.aten "aten::row_stack"(%a0, %a1) {operand_segments = array<i32: 2>} : (tensor<5xf32>, tensor<4x5xf32>) -> (tensor<5x5xf32>)
  return %r : tensor<5x5xf32>
}

// CHECK-LABEL: func.func @repeat_interleave_tensor
func.func @repeat_interleave_tensor(%a0: tensor<4x5xf32>, %a1: tensor<4xi64>) -> (tensor<6x5xf32>) {
  %r = exir.aten "aten::repeat_interleave.self_Tensor"(%a0, %a1) {dim = 0 : i64, output_size = 6 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x5xf32>, tensor<4xi64>) -> (tensor<6x5xf32>)
  return %r : tensor<6x5xf32>
}

// CHECK-LABEL: func.func @diag_vector
func.func @diag_vector(%a0: tensor<3xf32>) -> (tensor<5x5xf32>) {
  %r = exir.aten "aten::diag"(%a0) {diagonal = -2 : i64, operand_segments = array<i32: 1>} : (tensor<3xf32>) -> (tensor<5x5xf32>)
  return %r : tensor<5x5xf32>
}

// CHECK-LABEL: func.func @diag_matrix
func.func @diag_matrix(%a0: tensor<4x5xf32>) -> (tensor<2xf32>) {
  %r = exir.aten "aten::diag"(%a0) {diagonal = 3 : i64, operand_segments = array<i32: 1>} : (tensor<4x5xf32>) -> (tensor<2xf32>)
  return %r : tensor<2xf32>
}

// CHECK-LABEL: func.func @diag_embed
func.func @diag_embed(%a0: tensor<4x5xf32>) -> (tensor<6x4x6xf32>) {
  %r = exir.aten "aten::diag_embed"(%a0) {offset = 1 : i64, dim1 = 0 : i64, dim2 = 2 : i64, operand_segments = array<i32: 1>} : (tensor<4x5xf32>) -> (tensor<6x4x6xf32>)
  return %r : tensor<6x4x6xf32>
}

// CHECK-LABEL: func.func @diagflat
func.func @diagflat(%a0: tensor<4x5xf32>) -> (tensor<21x21xf32>) {
  %r = exir.aten "aten::diagflat"(%a0) {offset = -1 : i64, operand_segments = array<i32: 1>} : (tensor<4x5xf32>) -> (tensor<21x21xf32>)
  return %r : tensor<21x21xf32>
}

// CHECK-LABEL: func.func @take_along_dim
func.func @take_along_dim(%a0: tensor<4x5xf32>, %a1: tensor<1x3xi64>) -> (tensor<4x3xf32>) {
  %r = exir.aten "aten::take_along_dim"(%a0, %a1) {dim = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x5xf32>, tensor<1x3xi64>) -> (tensor<4x3xf32>)
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @msort
func.func @msort(%a0: tensor<4x5xf32>) -> (tensor<4x5xf32>) {
  %r = exir.aten "aten::msort"(%a0) {operand_segments = array<i32: 1>} : (tensor<4x5xf32>) -> (tensor<4x5xf32>)
  return %r : tensor<4x5xf32>
}

// CHECK-LABEL: func.func @count_nonzero_list
func.func @count_nonzero_list(%a0: tensor<2x3x7xf32>) -> (tensor<3xi64>) {
  %r = exir.aten "aten::count_nonzero.dim_IntList"(%a0) {dim = array<i64: 0, 2>, operand_segments = array<i32: 1>} : (tensor<2x3x7xf32>) -> (tensor<3xi64>)
  return %r : tensor<3xi64>
}

// CHECK-LABEL: func.func @count_nonzero_all
func.func @count_nonzero_all(%a0: tensor<2x3x7xf32>) -> (tensor<i64>) {
  %r = exir.aten "aten::count_nonzero"(%a0) {operand_segments = array<i32: 1>} : (tensor<2x3x7xf32>) -> (tensor<i64>)
  return %r : tensor<i64>
}

// CHECK-LABEL: func.func @fliplr
func.func @fliplr(%a0: tensor<2x3x7xf32>) -> (tensor<2x3x7xf32>) {
  %r = exir.aten "aten::fliplr"(%a0) {operand_segments = array<i32: 1>} : (tensor<2x3x7xf32>) -> (tensor<2x3x7xf32>)
  return %r : tensor<2x3x7xf32>
}

// -----

func.func @pad_enum_mode(%a0: tensor<2x3xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{padding mode 5 is not 0 (constant), 1 (reflect), 2 (replicate) or 3 (circular)}}
  %r = exir.aten "aten::_pad_enum"(%a0) {pad = array<i64: 1, 1>, mode = 5 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

func.func @vsplit_uneven(%a0: tensor<4x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>) {
  // expected-error @+1 {{dim 0 of float32[4, 5] does not split into 3 equal sections}}
  %r:2 = exir.aten "aten::vsplit.int"(%a0) {sections = 3 : i64, operand_segments = array<i32: 1>} : (tensor<4x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>)
  return %r#0, %r#1 : tensor<2x5xf32>, tensor<2x5xf32>
}

// -----

func.func @channel_shuffle_groups(%a0: tensor<1x6x2xf32>) -> tensor<1x6x2xf32> {
  // expected-error @+1 {{channel_shuffle needs groups > 0 that divide the 6 channels, got 4}}
  %r = exir.aten "aten::channel_shuffle"(%a0) {groups = 4 : i64, operand_segments = array<i32: 1>} : (tensor<1x6x2xf32>) -> tensor<1x6x2xf32>
  return %r : tensor<1x6x2xf32>
}

// -----

func.func @diag_rank(%a0: tensor<2x3x4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{diag needs a 1-dim or 2-dim tensor, got float32[2, 3, 4]}}
  %r = exir.aten "aten::diag"(%a0) {diagonal = 0 : i64, operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @take_along_dim_int32(%a0: tensor<4x5xf32>, %a1: tensor<4x1xi32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{take_along_dim needs int64 indices, got int32[4, 1]}}
  %r = exir.aten "aten::take_along_dim"(%a0, %a1) {dim = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x5xf32>, tensor<4x1xi32>) -> tensor<4x1xf32>
  return %r : tensor<4x1xf32>
}

// -----

func.func @movedim_lengths(%a0: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  // expected-error @+1 {{movedim: source [0, 1] and destination [2] have different lengths}}
  %r = exir.aten "aten::movedim.intlist"(%a0) {source = array<i64: 0, 1>, destination = array<i64: 2>, operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  return %r : tensor<3x4x2xf32>
}

// -----

func.func @ravel_declared(%a0: tensor<2x3xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{result #0 is declared float32[5], but the operator produces float32[6] for these arguments}}
  %r = exir.aten "aten::ravel"(%a0) {operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<5xf32>
  return %r : tensor<5xf32>
}
