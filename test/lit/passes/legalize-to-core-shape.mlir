// RUN: ptec-opt %s --split-input-file --exir-legalize-to-core --verify-diagnostics | FileCheck %s

// The Shape family (passes/LegalizeShape*.cpp): composite shape, split/join,
// padding, indexing and sorting ops into core ops with portable kernels, and
// the refusals by name.

// Constant padding: negative pads crop (a slice; a negative end counts from
// the end), constant_pad_nd grows by the rest.
// CHECK-LABEL: func.func @pad_constant
// CHECK: %[[A:.*]] = exir.aten "aten::slice_copy.Tensor"(%arg0) {dim = 3 : i64, end = #exir.none, operand_segments = array<i32: 1>, start = 1 : i64
// CHECK: %[[B:.*]] = exir.aten "aten::slice_copy.Tensor"(%[[A]]) {dim = 2 : i64, end = -1 : i64, operand_segments = array<i32: 1>, start = #exir.none
// CHECK: exir.aten "aten::constant_pad_nd"(%[[B]]) {operand_segments = array<i32: 1>, pad = array<i64: 0, 2, 1, 0>, value = 2.500000e+00 : f64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x5x7xf32>
// CHECK-NOT: aten::pad
func.func @pad_constant(%x: tensor<2x3x5x6xf32>) -> tensor<2x3x5x7xf32> {
  %y = exir.aten "aten::pad"(%x) {pad = array<i64: -1, 2, 1, -1>, mode = "constant", value = 2.5 : f64, operand_segments = array<i32: 1>} : (tensor<2x3x5x6xf32>) -> tensor<2x3x5x7xf32>
  return %y : tensor<2x3x5x7xf32>
}

// -----

// An integer tensor takes the value as PyTorch casts it (truncated).
// CHECK-LABEL: func.func @pad_constant_int
// CHECK: exir.aten "aten::constant_pad_nd"(%arg0) {operand_segments = array<i32: 1>, pad = array<i64: 1, 1>, value = 2 : i64}
func.func @pad_constant_int(%x: tensor<3x4xi64>) -> tensor<3x6xi64> {
  %y = exir.aten "aten::pad"(%x) {pad = array<i64: 1, 1>, value = 2.7 : f64, operand_segments = array<i32: 1>} : (tensor<3x4xi64>) -> tensor<3x6xi64>
  return %y : tensor<3x6xi64>
}

// -----

// CHECK-LABEL: func.func @pad_reflect
// CHECK: exir.aten "aten::reflection_pad2d"(%arg0) {operand_segments = array<i32: 1>, padding = array<i64: 1, 2, 2, 1>}
func.func @pad_reflect(%x: tensor<2x3x5x6xf32>) -> tensor<2x3x8x9xf32> {
  %y = exir.aten "aten::pad"(%x) {pad = array<i64: 1, 2, 2, 1>, mode = "reflect", operand_segments = array<i32: 1>} : (tensor<2x3x5x6xf32>) -> tensor<2x3x8x9xf32>
  return %y : tensor<2x3x8x9xf32>
}

// -----

// _pad_enum mode 2 (replicate) with a negative pad: grow, then crop.
// CHECK-LABEL: func.func @pad_replicate_negative
// CHECK: %[[P:.*]] = exir.aten "aten::replication_pad1d"(%arg0) {operand_segments = array<i32: 1>, padding = array<i64: 2, 0>} : (tensor<2x3x5xi64>) -> tensor<2x3x7xi64>
// CHECK: exir.aten "aten::slice_copy.Tensor"(%[[P]]) {dim = 2 : i64, end = -1 : i64
func.func @pad_replicate_negative(%x: tensor<2x3x5xi64>) -> tensor<2x3x6xi64> {
  %y = exir.aten "aten::_pad_enum"(%x) {pad = array<i64: 2, -1>, mode = 2 : i64, operand_segments = array<i32: 1>} : (tensor<2x3x5xi64>) -> tensor<2x3x6xi64>
  return %y : tensor<2x3x6xi64>
}

// -----

// Circular: the dim's last 2 elements, the dim, its first one.
// CHECK-LABEL: func.func @pad_circular
// CHECK: %[[L:.*]] = exir.aten "aten::slice_copy.Tensor"(%arg0) {dim = 2 : i64, end = #exir.none, operand_segments = array<i32: 1>, start = -2 : i64
// CHECK: %[[R:.*]] = exir.aten "aten::slice_copy.Tensor"(%arg0) {dim = 2 : i64, end = 1 : i64, operand_segments = array<i32: 1>, start = 0 : i64
// CHECK: exir.aten "aten::cat"(%[[L]], %arg0, %[[R]]) {dim = 2 : i64
func.func @pad_circular(%x: tensor<2x3x5xf32>) -> tensor<2x3x8xf32> {
  %y = exir.aten "aten::pad"(%x) {pad = array<i64: 2, 1>, mode = "circular", operand_segments = array<i32: 1>} : (tensor<2x3x5xf32>) -> tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}

// -----

// Run-time shapes: the same ops, which read the run-time sizes (the crop's
// end is open, the kernel pads what it gets).
// CHECK-LABEL: func.func @pad_dynamic
// CHECK: %[[C:.*]] = exir.aten "aten::slice_copy.Tensor"(%arg0) {dim = 1 : i64, end = #exir.none, operand_segments = array<i32: 1>, start = 1 : i64
// CHECK: exir.aten "aten::constant_pad_nd"(%[[C]])
func.func @pad_dynamic(%x: tensor<2x16xf32> {exir.dynamic_dims = array<i64: 1>}) -> tensor<2x17xf32> {
  %y = exir.aten "aten::pad"(%x) {pad = array<i64: -1, 2>, mode = "constant", operand_segments = array<i32: 1>} : (tensor<2x16xf32>) -> tensor<2x17xf32>
  return %y : tensor<2x17xf32>
}

// -----

// constant_pad_nd (core) with a negative pad: upstream's kernel only grows.
// CHECK-LABEL: func.func @constant_pad_nd_crop
// CHECK: %[[C:.*]] = exir.aten "aten::slice_copy.Tensor"(%arg0) {dim = 1 : i64, end = #exir.none, operand_segments = array<i32: 1>, start = 1 : i64
// CHECK: exir.aten "aten::constant_pad_nd"(%[[C]]) {operand_segments = array<i32: 1>, pad = array<i64: 0, 2>, value = 5.000000e-01 : f64}
func.func @constant_pad_nd_crop(%x: tensor<3x4xf32>) -> tensor<3x5xf32> {
  %y = exir.aten "aten::constant_pad_nd"(%x) {pad = array<i64: -1, 2>, value = 0.5 : f64, operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// -----

func.func @pad_reflect_rank(%x: tensor<1x2x3x8xf32>) -> tensor<1x2x3x10xf32> {
  // expected-error @+1 {{'aten::pad' with mode 'reflect' and 2 pads on a 4-dim input is not supported: PyTorch pads 1, 2 or 3 trailing dims of a batched or unbatched input}}
  %y = exir.aten "aten::pad"(%x) {pad = array<i64: 1, 1>, mode = "reflect", operand_segments = array<i32: 1>} : (tensor<1x2x3x8xf32>) -> tensor<1x2x3x10xf32>
  return %y : tensor<1x2x3x10xf32>
}

// -----

// chunk: torch's piece sizes, one split_with_sizes_copy.
// CHECK-LABEL: func.func @chunk
// CHECK: exir.aten "aten::split_with_sizes_copy"(%arg0) {dim = 1 : i64, operand_segments = array<i32: 1>, split_sizes = array<i64: 3, 3, 1>}
func.func @chunk(%x: tensor<2x7xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>) {
  %y:3 = exir.aten "aten::chunk"(%x) {chunks = 3 : i64, dim = -1 : i64, operand_segments = array<i32: 1>} : (tensor<2x7xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>)
  return %y#0, %y#1, %y#2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>
}

// -----

// tensor_split with indices out of order: Python slice bounds per piece.
// CHECK-LABEL: func.func @tensor_split_unordered
// CHECK: exir.aten "aten::slice_copy.Tensor"(%arg0) {dim = 1 : i64, end = 3 : i64, operand_segments = array<i32: 1>, start = 0 : i64
// CHECK: exir.aten "aten::slice_copy.Tensor"(%arg0) {dim = 1 : i64, end = 3 : i64, operand_segments = array<i32: 1>, start = 3 : i64
// CHECK: exir.aten "aten::slice_copy.Tensor"(%arg0) {dim = 1 : i64, end = 6 : i64, operand_segments = array<i32: 1>, start = 1 : i64
func.func @tensor_split_unordered(%x: tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x0xf32>, tensor<2x5xf32>) {
  %y:3 = exir.aten "aten::tensor_split.indices"(%x) {indices = array<i64: 3, 1>, dim = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x0xf32>, tensor<2x5xf32>)
  return %y#0, %y#1, %y#2 : tensor<2x3xf32>, tensor<2x0xf32>, tensor<2x5xf32>
}

// -----

// CHECK-LABEL: func.func @hsplit
// CHECK: exir.aten "aten::split_with_sizes_copy"(%arg0) {dim = 1 : i64, operand_segments = array<i32: 1>, split_sizes = array<i64: 2, 2>}
func.func @hsplit(%x: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %y:2 = exir.aten "aten::hsplit.int"(%x) {sections = 2 : i64, operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>)
  return %y#0, %y#1 : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

func.func @tensor_split_tensor(%x: tensor<6xf32>, %s: tensor<i64>) -> (tensor<3xf32>, tensor<3xf32>) {
  // expected-error @+1 {{'aten::tensor_split.tensor_indices_or_sections' is not supported: its split points are the values of a tensor, known only from the data; pass them as Python ints}}
  %y:2 = exir.aten "aten::tensor_split.tensor_indices_or_sections"(%x, %s) {dim = 0 : i64, operand_segments = array<i32: 1, 1>} : (tensor<6xf32>, tensor<i64>) -> (tensor<3xf32>, tensor<3xf32>)
  return %y#0, %y#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// narrow with a negative start: the start wrapped into the dim.
// CHECK-LABEL: func.func @narrow_negative
// CHECK: exir.aten "aten::slice_copy.Tensor"(%arg0) {dim = 1 : i64, end = 7 : i64, operand_segments = array<i32: 1>, start = 5 : i64
func.func @narrow_negative(%x: tensor<2x8xf32>) -> tensor<2x2xf32> {
  %y = exir.aten "aten::narrow"(%x) {dim = -1 : i64, start = -3 : i64, length = 2 : i64, operand_segments = array<i32: 1>} : (tensor<2x8xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// narrow with a run-time start (x.narrow(0, p.item(), 2)): the slice's
// bounds are symbolic, start wrapped as (start + n) mod max(n, 1).
// CHECK-LABEL: func.func @narrow_runtime_start
// CHECK: %[[U:.*]] = exir.sym_item %arg1
// CHECK: %[[N:.*]] = exir.sym_size %arg0, 0
// CHECK: %[[AD:.*]] = exir.sym "add"(%[[U]], %[[N]])
// CHECK: %[[W:.*]] = exir.sym "mod"(%[[AD]], %{{.*}})
// CHECK: %[[E:.*]] = exir.sym "add"(%[[W]], %{{.*}})
// CHECK: exir.aten "aten::slice_copy.Tensor"(%arg0, %[[W]], %[[E]]) {dim = 0 : i64, end = 8 : i64, exir.static_shape, exir.sym_args = ["start", "end"], operand_segments = array<i32: 1>, start = 6 : i64
func.func @narrow_runtime_start(%x: tensor<8x3xf32>, %p: tensor<i64>) -> tensor<2x3xf32> {
  %u = exir.sym_item %p : tensor<i64>
  %y = exir.aten "aten::narrow"(%x, %u) {dim = 0 : i64, start = 6 : i64, length = 2 : i64, exir.sym_args = ["start"], exir.static_shape, operand_segments = array<i32: 1>} : (tensor<8x3xf32>, i64) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @flips
// CHECK: exir.aten "aten::flip"(%arg0) {dims = array<i64: 1>
// CHECK: %[[F:.*]] = exir.aten "aten::flip"(%arg0) {dims = array<i64: 1>
// CHECK: exir.aten "aten::transpose_copy.int"(%[[F]]) {dim0 = 0 : i64, dim1 = 1 : i64
// CHECK: exir.aten "aten::flip"(%arg0) {dims = array<i64: 0, 1>
func.func @flips(%x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<4x3xf32>, tensor<3x4xf32>) {
  %a = exir.aten "aten::fliplr"(%x) {operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %b = exir.aten "aten::rot90"(%x) {k = 1 : i64, dims = array<i64: 0, 1>, operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %c = exir.aten "aten::rot90"(%x) {k = -2 : i64, dims = array<i64: 0, 1>, operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %a, %b, %c : tensor<3x4xf32>, tensor<4x3xf32>, tensor<3x4xf32>
}

// -----

// triu(x, 1): zeros where tril(ones, 0) holds (masked_fill writes them
// whatever x holds there).
// CHECK-LABEL: func.func @triu
// CHECK: %[[O:.*]] = exir.aten "aten::full_like"(%arg0) {device = #exir.none, dtype = i1, fill_value = true
// CHECK: %[[L:.*]] = exir.aten "aten::tril"(%[[O]]) {diagonal = 0 : i64
// CHECK: exir.aten "aten::masked_fill.Scalar"(%arg0, %[[L]]) {operand_segments = array<i32: 1, 1>, value = 0.000000e+00 : f64}
func.func @triu(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %y = exir.aten "aten::triu"(%x) {diagonal = 1 : i64, operand_segments = array<i32: 1>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

// roll without dims: flattened, rolled along 0, viewed back.
// CHECK-LABEL: func.func @roll_flat
// CHECK: %[[F:.*]] = exir.aten "aten::view_copy"(%arg0) {operand_segments = array<i32: 1>, size = array<i64: 15>}
// CHECK: %[[R:.*]] = exir.aten "aten::roll"(%[[F]]) {dims = array<i64: 0>, operand_segments = array<i32: 1>, shifts = array<i64: 4>}
// CHECK: exir.aten "aten::view_copy"(%[[R]]) {operand_segments = array<i32: 1>, size = array<i64: 3, 5>}
func.func @roll_flat(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %y = exir.aten "aten::roll"(%x) {shifts = array<i64: 4>, dims = array<i64>, operand_segments = array<i32: 1>} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// -----

// CHECK-LABEL: func.func @channel_shuffle
// CHECK: %[[V:.*]] = exir.aten "aten::view_copy"(%arg0) {operand_segments = array<i32: 1>, size = array<i64: 2, 3, 2, 5>}
// CHECK: %[[P:.*]] = exir.aten "aten::permute_copy"(%[[V]]) {dims = array<i64: 0, 2, 1, 3>
// CHECK: exir.aten "aten::view_copy"(%[[P]]) {operand_segments = array<i32: 1>, size = array<i64: 2, 6, 5>}
func.func @channel_shuffle(%x: tensor<2x6x5xf32>) -> tensor<2x6x5xf32> {
  %y = exir.aten "aten::channel_shuffle"(%x) {groups = 3 : i64, operand_segments = array<i32: 1>} : (tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
  return %y : tensor<2x6x5xf32>
}

// -----

// CHECK-LABEL: func.func @moves
// CHECK: exir.aten "aten::permute_copy"(%arg0) {dims = array<i64: 1, 2, 0>
// CHECK: exir.aten "aten::transpose_copy.int"(%arg0) {dim0 = 0 : i64, dim1 = 2 : i64
// CHECK: exir.aten "aten::expand_copy"(%arg1) {
func.func @moves(%x: tensor<2x3x4xf32>, %y: tensor<4x1xf32>) -> (tensor<3x4x2xf32>, tensor<4x3x2xf32>, tensor<2x4x5xf32>) {
  %a = exir.aten "aten::movedim.int"(%x) {source = 0 : i64, destination = 2 : i64, operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %b = exir.aten "aten::swapaxes"(%x) {axis0 = 0 : i64, axis1 = 2 : i64, operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %c = exir.aten "aten::broadcast_to"(%y) {size = array<i64: 2, 4, 5>, operand_segments = array<i32: 1>} : (tensor<4x1xf32>) -> tensor<2x4x5xf32>
  return %a, %b, %c : tensor<3x4x2xf32>, tensor<4x3x2xf32>, tensor<2x4x5xf32>
}

// -----

// repeat_interleave by an int: a size-1 dim after `dim`, expanded, folded.
// CHECK-LABEL: func.func @repeat_interleave_int
// CHECK: %[[U:.*]] = exir.aten "aten::view_copy"(%arg0) {operand_segments = array<i32: 1>, size = array<i64: 2, 3, 1>}
// CHECK: %[[E:.*]] = exir.aten "aten::expand_copy"(%[[U]]) {implicit = false, operand_segments = array<i32: 1>, size = array<i64: 2, 3, 2>}
// CHECK: exir.aten "aten::view_copy"(%[[E]]) {operand_segments = array<i32: 1>, size = array<i64: 2, 6>}
func.func @repeat_interleave_int(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %y = exir.aten "aten::repeat_interleave.self_int"(%x) {repeats = 2 : i64, dim = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  return %y : tensor<2x6xf32>
}

// -----

// By a tensor of repeats: index_select by repeat_interleave.Tensor's indices.
// CHECK-LABEL: func.func @repeat_interleave_tensor
// CHECK: %[[I:.*]] = exir.aten "aten::repeat_interleave.Tensor"(%arg1) {operand_segments = array<i32: 1>, output_size = 6 : i64}
// CHECK: exir.aten "aten::index_select"(%arg0, %[[I]]) {dim = 0 : i64
func.func @repeat_interleave_tensor(%x: tensor<4x2xf32>, %r: tensor<4xi64>) -> tensor<6x2xf32> {
  %y = exir.aten "aten::repeat_interleave.self_Tensor"(%x, %r) {dim = 0 : i64, output_size = 6 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x2xf32>, tensor<4xi64>) -> tensor<6x2xf32>
  return %y : tensor<6x2xf32>
}

// -----

func.func @repeat_interleave_no_size(%x: tensor<4x2xf32>, %r: tensor<4xi64>) -> tensor<?x2xf32> {
  // expected-error @+1 {{'aten::repeat_interleave.self_Tensor' without output_size is not supported: the result's length is the sum of the repeats, known only from the data; pass output_size}}
  %y = exir.aten "aten::repeat_interleave.self_Tensor"(%x, %r) {dim = 0 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x2xf32>, tensor<4xi64>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// -----

// one_hot: x[..., None] == arange(n), as int64.
// CHECK-LABEL: func.func @one_hot
// CHECK: %[[U:.*]] = exir.aten "aten::view_copy"(%arg0) {operand_segments = array<i32: 1>, size = array<i64: 3, 1>}
// CHECK: %[[A:.*]] = exir.aten "aten::arange.start_step"() {device = #exir.none, dtype = i64, end = 5 : i64
// CHECK: %[[E:.*]] = exir.aten "aten::eq.Tensor"(%[[U]], %[[A]])
// CHECK: exir.aten "aten::_to_copy"(%[[E]]) {device = #exir.none, dtype = i64
func.func @one_hot(%x: tensor<3xi64>) -> tensor<3x5xi64> {
  %y = exir.aten "aten::one_hot"(%x) {num_classes = 5 : i64, operand_segments = array<i32: 1>} : (tensor<3xi64>) -> tensor<3x5xi64>
  return %y : tensor<3x5xi64>
}

// -----

func.func @one_hot_data(%x: tensor<3xi64>) -> tensor<3x?xi64> {
  // expected-error @+1 {{'aten::one_hot' with num_classes=-1 is not supported: the number of classes is the input's maximum + 1, known only from the data; pass num_classes}}
  %y = exir.aten "aten::one_hot"(%x) {num_classes = -1 : i64, operand_segments = array<i32: 1>} : (tensor<3xi64>) -> tensor<3x?xi64>
  return %y : tensor<3x?xi64>
}

// -----

// meshgrid with xy indexing: the first two inputs swap places in the grid.
// CHECK-LABEL: func.func @meshgrid_xy
// CHECK: %[[A:.*]] = exir.aten "aten::view_copy"(%arg0) {operand_segments = array<i32: 1>, size = array<i64: 1, 4>}
// CHECK: exir.aten "aten::expand_copy"(%[[A]]) {implicit = false, operand_segments = array<i32: 1>, size = array<i64: 3, 4>}
// CHECK: %[[B:.*]] = exir.aten "aten::view_copy"(%arg1) {operand_segments = array<i32: 1>, size = array<i64: 3, 1>}
// CHECK: exir.aten "aten::expand_copy"(%[[B]]) {implicit = false, operand_segments = array<i32: 1>, size = array<i64: 3, 4>}
func.func @meshgrid_xy(%a: tensor<4xf32>, %b: tensor<3xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %y:2 = exir.aten "aten::meshgrid.indexing"(%a, %b) {indexing = "xy", operand_segments = array<i32: 2>} : (tensor<4xf32>, tensor<3xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>)
  return %y#0, %y#1 : tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @stacks
// CHECK: %[[A:.*]] = exir.aten "aten::view_copy"(%arg0) {operand_segments = array<i32: 1>, size = array<i64: 4, 1>}
// CHECK: %[[B:.*]] = exir.aten "aten::view_copy"(%arg1) {operand_segments = array<i32: 1>, size = array<i64: 4, 1>}
// CHECK: exir.aten "aten::cat"(%[[A]], %[[B]]) {dim = 1 : i64
func.func @stacks(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4x2xf32> {
  %y = exir.aten "aten::column_stack"(%a, %b) {operand_segments = array<i32: 2>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// diag_embed with an offset: the input padded by |offset|, placed where the
// column is the row + offset, zeros elsewhere (where, not a product).
// CHECK-LABEL: func.func @diag_embed
// CHECK: %[[P:.*]] = exir.aten "aten::constant_pad_nd"(%arg0) {operand_segments = array<i32: 1>, pad = array<i64: 1, 0>
// CHECK: %[[V:.*]] = exir.aten "aten::view_copy"(%[[P]]) {operand_segments = array<i32: 1>, size = array<i64: 2, 1, 4>}
// CHECK: %[[S:.*]] = exir.aten "aten::add.Scalar"
// CHECK: %[[C:.*]] = exir.aten "aten::eq.Tensor"(%{{.*}}, %[[S]])
// CHECK: exir.aten "aten::where.self"(%[[C]], %[[V]], %{{.*}}) {{.*}} -> tensor<2x4x4xf32>
func.func @diag_embed(%x: tensor<2x3xf32>) -> tensor<2x4x4xf32> {
  %y = exir.aten "aten::diag_embed"(%x) {offset = 1 : i64, dim1 = -2 : i64, dim2 = -1 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x4x4xf32>
  return %y : tensor<2x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @diag_matrix
// CHECK: exir.aten "aten::diagonal_copy"(%arg0) {dim1 = 0 : i64, dim2 = 1 : i64, offset = 1 : i64
func.func @diag_matrix(%x: tensor<4x5xf32>) -> tensor<4xf32> {
  %y = exir.aten "aten::diag"(%x) {diagonal = 1 : i64, operand_segments = array<i32: 1>} : (tensor<4x5xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @take
// CHECK: %[[F:.*]] = exir.aten "aten::view_copy"(%arg0) {operand_segments = array<i32: 1>, size = array<i64: 20>}
// CHECK: exir.aten "aten::index.Tensor"(%[[F]], %arg1) {indices = array<i1: true>
func.func @take(%x: tensor<4x5xf32>, %i: tensor<2x2xi64>) -> tensor<2x2xf32> {
  %y = exir.aten "aten::take"(%x, %i) {operand_segments = array<i32: 1, 1>} : (tensor<4x5xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// index_add: index_put with accumulate at position `dim` of the index list;
// alpha scales the source first.
// CHECK-LABEL: func.func @index_add
// CHECK: %[[S:.*]] = exir.aten "aten::mul.Scalar"(%arg2) {operand_segments = array<i32: 1>, other = 2.500000e+00 : f64}
// CHECK: exir.aten "aten::index_put"(%arg0, %arg1, %[[S]]) {accumulate = true, indices = array<i1: false, true>
func.func @index_add(%x: tensor<4x5xf32>, %i: tensor<3xi64>, %s: tensor<4x3xf32>) -> tensor<4x5xf32> {
  %y = exir.aten "aten::index_add"(%x, %i, %s) {dim = 1 : i64, alpha = 2.5 : f64, operand_segments = array<i32: 1, 1, 1>} : (tensor<4x5xf32>, tensor<3xi64>, tensor<4x3xf32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

// CHECK-LABEL: func.func @index_fill
// CHECK: %[[V:.*]] = exir.aten "aten::full"() {device = #exir.none, dtype = i64, fill_value = 4 : i64
// CHECK: exir.aten "aten::index_put"(%arg0, %arg1, %[[V]]) {accumulate = false, indices = array<i1: false, true>
func.func @index_fill(%x: tensor<3x5xi64>, %i: tensor<1xi64>) -> tensor<3x5xi64> {
  %y = exir.aten "aten::index_fill.int_Scalar"(%x, %i) {dim = -1 : i64, value = 4 : i64, operand_segments = array<i32: 1, 1>} : (tensor<3x5xi64>, tensor<1xi64>) -> tensor<3x5xi64>
  return %y : tensor<3x5xi64>
}

// -----

// scatter_reduce sum without self: the scattered positions zeroed first.
// CHECK-LABEL: func.func @scatter_sum_exclude
// CHECK: %[[Z:.*]] = exir.aten "aten::scatter.value"(%arg0, %arg1) {dim = 0 : i64, operand_segments = array<i32: 1, 1>, value = 0.000000e+00 : f64}
// CHECK: exir.aten "aten::scatter_add"(%[[Z]], %arg1, %arg2) {dim = 0 : i64
func.func @scatter_sum_exclude(%x: tensor<3x4xf32>, %i: tensor<2x4xi64>, %s: tensor<2x4xf32>) -> tensor<3x4xf32> {
  %y = exir.aten "aten::scatter_reduce.two"(%x, %i, %s) {dim = 0 : i64, reduce = "sum", include_self = false, operand_segments = array<i32: 1, 1, 1>} : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

// mean of integers: PyTorch's floor division by the count.
// CHECK-LABEL: func.func @scatter_mean_int
// CHECK: %[[S:.*]] = exir.aten "aten::scatter_add"(%arg0, %arg1, %arg2)
// CHECK: %[[C:.*]] = exir.aten "aten::scatter_add"(%{{.*}}, %arg1, %{{.*}})
// CHECK: exir.aten "aten::div.Tensor_mode"(%[[S]], %[[C]]) {operand_segments = array<i32: 1, 1>, rounding_mode = "floor"}
func.func @scatter_mean_int(%x: tensor<3x4xi64>, %i: tensor<4x4xi64>, %s: tensor<4x4xi64>) -> tensor<3x4xi64> {
  %y = exir.aten "aten::scatter_reduce.two"(%x, %i, %s) {dim = 0 : i64, reduce = "mean", operand_segments = array<i32: 1, 1, 1>} : (tensor<3x4xi64>, tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<3x4xi64>
  return %y : tensor<3x4xi64>
}

// -----

// amax: the one-hot mask of index entries against positions, the identity
// (-inf) elsewhere, the max over the entries, combined with self where hit.
// CHECK-LABEL: func.func @scatter_amax
// CHECK: %[[M:.*]] = exir.aten "aten::eq.Tensor"({{.*}} -> tensor<5x3x4xi1>
// CHECK: %[[V:.*]] = exir.aten "aten::where.self"(%[[M]], %{{.*}}, %{{.*}}) {{.*}} -> tensor<5x3x4xf32>
// CHECK: %[[R:.*]] = exir.aten "aten::amax"(%[[V]]) {dim = array<i64: 0>
// CHECK: %[[H:.*]] = exir.aten "aten::any.dim"(%[[M]]) {dim = 0 : i64
// CHECK: %[[C:.*]] = exir.aten "aten::maximum"(%arg0, %[[R]])
// CHECK: exir.aten "aten::where.self"(%[[H]], %[[C]], %arg0)
func.func @scatter_amax(%x: tensor<3x4xf32>, %i: tensor<5x4xi64>, %s: tensor<5x4xf32>) -> tensor<3x4xf32> {
  %y = exir.aten "aten::scatter_reduce.two"(%x, %i, %s) {dim = 0 : i64, reduce = "amax", operand_segments = array<i32: 1, 1, 1>} : (tensor<3x4xf32>, tensor<5x4xi64>, tensor<5x4xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

func.func @scatter_prod_large(%x: tensor<8192x4xf32>, %i: tensor<8192x4xi64>, %s: tensor<8192x4xf32>) -> tensor<8192x4xf32> {
  // expected-error @+1 {{'aten::scatter_reduce.two' with reduce='prod' over 268435456 index-position pairs is not supported: no scatter kernel reduces with 'prod', and its dense formulation is limited to 16777216 elements}}
  %y = exir.aten "aten::scatter_reduce.two"(%x, %i, %s) {dim = 0 : i64, reduce = "prod", operand_segments = array<i32: 1, 1, 1>} : (tensor<8192x4xf32>, tensor<8192x4xi64>, tensor<8192x4xf32>) -> tensor<8192x4xf32>
  return %y : tensor<8192x4xf32>
}

// -----

// A small sort is exact and stable: each element's rank (the elements that
// sort before it, plus the equal ones before it), values and indices
// scattered to their ranks.
// CHECK-LABEL: func.func @sort_small
// CHECK: %[[T:.*]] = exir.aten "aten::transpose_copy.int"(%arg0) {dim0 = 0 : i64, dim1 = 1 : i64
// CHECK: exir.aten "aten::gt.Tensor"
// CHECK: exir.aten "aten::isnan"
// CHECK: %[[R:.*]] = exir.aten "aten::sum.dim_IntList"({{.*}}) {dim = array<i64: 2>, dtype = i64
// CHECK: %[[V:.*]] = exir.aten "aten::scatter.src"(%[[T]], %[[R]], %[[T]]) {dim = 1 : i64
// CHECK: exir.aten "aten::scatter.src"(%{{.*}}, %[[R]], %{{.*}}) {dim = 1 : i64
// CHECK-NOT: aten::topk
func.func @sort_small(%x: tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xi64>) {
  %y:2 = exir.aten "aten::sort"(%x) {dim = 0 : i64, descending = true, operand_segments = array<i32: 1>} : (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xi64>)
  return %y#0, %y#1 : tensor<5x3xf32>, tensor<5x3xi64>
}

// -----

// A large sort is topk over the whole dim (equal elements in any order).
// CHECK-LABEL: func.func @sort_large
// CHECK: exir.aten "aten::topk"(%arg0) {dim = 0 : i64, k = 4096 : i64, largest = false, operand_segments = array<i32: 1>, sorted = true}
func.func @sort_large(%x: tensor<4096xf32>) -> tensor<4096xi64> {
  %y = exir.aten "aten::argsort"(%x) {dim = 0 : i64, operand_segments = array<i32: 1>} : (tensor<4096xf32>) -> tensor<4096xi64>
  return %y : tensor<4096xi64>
}

// -----

func.func @sort_large_stable(%x: tensor<4096xf32>) -> (tensor<4096xf32>, tensor<4096xi64>) {
  // expected-error @+1 {{'aten::sort.stable' with stable=True over 4096 elements (1 times) is not supported: there is no sort kernel}}
  %y:2 = exir.aten "aten::sort.stable"(%x) {stable = true, dim = 0 : i64, operand_segments = array<i32: 1>} : (tensor<4096xf32>) -> (tensor<4096xf32>, tensor<4096xi64>)
  return %y#0, %y#1 : tensor<4096xf32>, tensor<4096xi64>
}

// -----

// embedding_bag (sum): each position's bag from the offsets, the rows of the
// valid positions added into their bag with index_put(accumulate).
// CHECK-LABEL: func.func @embedding_bag_sum
// CHECK: exir.aten "aten::le.Tensor"
// CHECK: %[[R:.*]] = exir.aten "aten::embedding"(%arg0, %arg1)
// CHECK: exir.aten "aten::index_put"({{.*}}) {accumulate = true, indices = array<i1: true>
// CHECK-NOT: aten::embedding_bag
func.func @embedding_bag_sum(%w: tensor<10x3xf32>, %i: tensor<6xi64>, %o: tensor<2xi64>) -> tensor<2x3xf32> {
  %y:4 = exir.aten "aten::embedding_bag.padding_idx"(%w, %i, %o) {scale_grad_by_freq = false, mode = 0 : i64, sparse = false, include_last_offset = false, padding_idx = #exir.none, operand_segments = array<i32: 1, 1, 1, 0>} : (tensor<10x3xf32>, tensor<6xi64>, tensor<2xi64>) -> (tensor<2x3xf32>, tensor<6xi64>, tensor<2xi64>, tensor<2xi64>)
  return %y#0 : tensor<2x3xf32>
}

// -----

func.func @embedding_bag_aux(%w: tensor<10x3xf32>, %i: tensor<6xi64>, %o: tensor<2xi64>) -> tensor<6xi64> {
  // expected-error @+1 {{'aten::embedding_bag' with its offset2bag, bag_size or max_indices results read is not supported: only the bags are computed}}
  %y:4 = exir.aten "aten::embedding_bag"(%w, %i, %o) {mode = 0 : i64, operand_segments = array<i32: 1, 1, 1, 0>} : (tensor<10x3xf32>, tensor<6xi64>, tensor<2xi64>) -> (tensor<2x3xf32>, tensor<6xi64>, tensor<2xi64>, tensor<2xi64>)
  return %y#1 : tensor<6xi64>
}

// -----

func.func @argwhere(%x: tensor<4x5xf32>) -> tensor<?x2xi64> {
  // expected-error @+1 {{'aten::argwhere' is not supported: its result's length is the number of nonzero elements, known only from the data}}
  %y = exir.aten "aten::argwhere"(%x) {operand_segments = array<i32: 1>} : (tensor<4x5xf32>) -> tensor<?x2xi64>
  return %y : tensor<?x2xi64>
}

// -----

// unflatten on run-time shapes: the other dims' run-time sizes, the -1 left
// for the view kernel to infer.
// CHECK-LABEL: func.func @unflatten_dynamic
// CHECK: %[[S:.*]] = exir.sym_size %arg0, 1
// CHECK: exir.aten "aten::view_copy"(%arg0, %[[S]]) {exir.sym_args = ["size[2]"], operand_segments = array<i32: 1>, size = array<i64: -1, 2, 6>}
func.func @unflatten_dynamic(%x: tensor<32x6xf32> {exir.dynamic_dims = array<i64: 0>}) -> tensor<16x2x6xf32> {
  %y = exir.aten "aten::unflatten.int"(%x) {dim = 0 : i64, sizes = array<i64: -1, 2>, operand_segments = array<i32: 1>} : (tensor<32x6xf32>) -> tensor<16x2x6xf32>
  return %y : tensor<16x2x6xf32>
}

// -----

// numpy_T reverses the dims.
// CHECK-LABEL: func.func @numpy_t
// CHECK: exir.aten "aten::permute_copy"(%arg0) {dims = array<i64: 2, 1, 0>, operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
func.func @numpy_t(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %y = exir.aten "aten::numpy_T"(%x) {operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  return %y : tensor<4x3x2xf32>
}

// -----

// scatter(reduce='add') is scatter_reduce 'sum' with self: scatter_add.
// scatter(value, reduce='multiply') is 'prod' of a full source of the value.
// CHECK-LABEL: func.func @scatter_old_reduce
// CHECK: %[[A:.*]] = exir.aten "aten::scatter_add"(%arg0, %arg1, %arg2) {dim = 1 : i64
// CHECK: %[[F:.*]] = exir.aten "aten::full"() {{.*}}fill_value = 2.000000e+00 : f64{{.*}}size = array<i64: 3, 2>
// CHECK: exir.aten "aten::prod.dim_int"
// CHECK: exir.aten "aten::mul.Tensor"
func.func @scatter_old_reduce(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %s: tensor<3x2xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %a = exir.aten "aten::scatter.reduce"(%x, %i, %s) {dim = 1 : i64, reduce = "add", operand_segments = array<i32: 1, 1, 1>} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  %m = exir.aten "aten::scatter.value_reduce"(%x, %i) {dim = 1 : i64, value = 2.0 : f64, reduce = "multiply", operand_segments = array<i32: 1, 1>} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x4xf32>
  return %a, %m : tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// bucketize: how many boundaries are not >= x (right: not > x), summed in
// int32 for out_int32; a float number is a 0-dim tensor of the float boundaries'
// dtype (PyTorch's result_type), a float 0-dim x against int boundaries keeps its dtype.
// CHECK-LABEL: func.func @bucketize
// CHECK: %[[U:.*]] = exir.aten "aten::view_copy"(%arg0) {{.*}}size = array<i64: 2, 3, 1>
// CHECK: %[[GE:.*]] = exir.aten "aten::ge.Tensor"(%arg1, %[[U]]) {{.*}} -> tensor<2x3x4xi1>
// CHECK: %[[N:.*]] = exir.aten "aten::logical_not"(%[[GE]])
// CHECK: exir.aten "aten::sum.dim_IntList"(%[[N]]) {dim = array<i64: -1>, dtype = i64, {{.*}} -> tensor<2x3xi64>
// CHECK: %[[GT:.*]] = exir.aten "aten::gt.Tensor"(%arg1, %{{.*}})
// CHECK: %[[N2:.*]] = exir.aten "aten::logical_not"(%[[GT]])
// CHECK: exir.aten "aten::sum.dim_IntList"(%[[N2]]) {dim = array<i64: -1>, dtype = i32, {{.*}} -> tensor<2x3xi32>
// CHECK: %[[S:.*]] = exir.aten "aten::scalar_tensor"() {{.*}}dtype = f32{{.*}}s = 5.000000e-01
// CHECK: %[[SU:.*]] = exir.aten "aten::view_copy"(%[[S]]) {{.*}}size = array<i64: 1>
// CHECK: exir.aten "aten::ge.Tensor"(%arg1, %[[SU]])
// CHECK: -> tensor<i64>
// CHECK: %[[IF:.*]] = exir.aten "aten::_to_copy"(%arg2) {{.*}}dtype = f64
// CHECK: exir.aten "aten::ge.Tensor"(%[[IF]], %{{.*}}) {{.*}} -> tensor<3xi1>
func.func @bucketize(%x: tensor<2x3xf32>, %b: tensor<4xf32>, %ib: tensor<3xi64>, %d: tensor<f64>) -> (tensor<2x3xi64>, tensor<2x3xi32>, tensor<i64>, tensor<i64>) {
  %l = exir.aten "aten::bucketize.Tensor"(%x, %b) {out_int32 = false, right = false, operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xi64>
  %r = exir.aten "aten::bucketize.Tensor"(%x, %b) {out_int32 = true, right = true, operand_segments = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xi32>
  %s = exir.aten "aten::bucketize.Scalar"(%b) {self = 0.5 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<i64>
  %z = exir.aten "aten::bucketize.Tensor"(%d, %ib) {out_int32 = false, right = false, operand_segments = array<i32: 1, 1>} : (tensor<f64>, tensor<3xi64>) -> tensor<i64>
  return %l, %r, %s, %z : tensor<2x3xi64>, tensor<2x3xi32>, tensor<i64>, tensor<i64>
}

// -----

// mT / mH swap the last two dims; matrix_H (a matrix) too. On real dtypes the
// conjugate is the tensor itself.
// CHECK-LABEL: func.func @matrix_transposes
// CHECK: exir.aten "aten::permute_copy"(%arg0) {dims = array<i64: 0, 2, 1>{{.*}} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
// CHECK: exir.aten "aten::permute_copy"(%arg0) {dims = array<i64: 0, 2, 1>{{.*}} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
// CHECK: exir.aten "aten::permute_copy"(%arg1) {dims = array<i64: 1, 0>{{.*}} : (tensor<3x5xi64>) -> tensor<5x3xi64>
// CHECK-NOT: "aten::mT"
// CHECK-NOT: "aten::mH"
// CHECK-NOT: "aten::matrix_H"
func.func @matrix_transposes(%x: tensor<2x3x4xf32>, %m: tensor<3x5xi64>) -> (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<5x3xi64>) {
  %a = exir.aten "aten::mT"(%x) {operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %b = exir.aten "aten::mH"(%x) {operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %c = exir.aten "aten::matrix_H"(%m) {operand_segments = array<i32: 1>} : (tensor<3x5xi64>) -> tensor<5x3xi64>
  return %a, %b, %c : tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<5x3xi64>
}

// -----

// Unique values have a data-dependent length: refused by name.
func.func @unique_consecutive(%x: tensor<5xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'aten::unique_consecutive' is not supported: its result's length is the number of distinct values}}
  %u:3 = exir.aten "aten::unique_consecutive"(%x) {return_inverse = false, return_counts = false, operand_segments = array<i32: 1>} : (tensor<5xf32>) -> (tensor<5xf32>, tensor<0xi64>, tensor<0xi64>)
  return %u#0 : tensor<5xf32>
}

// -----

// linalg_diagonal is diagonal_copy with dim1 = -2, dim2 = -1 by default.
// CHECK-LABEL: func.func @linalg_diagonal
// CHECK: exir.aten "aten::diagonal_copy"(%arg0) {dim1 = -2 : i64, dim2 = -1 : i64, offset = 0 : i64{{.*}} -> tensor<2x3xf32>
// CHECK: exir.aten "aten::diagonal_copy"(%arg0) {dim1 = 0 : i64, dim2 = 2 : i64, offset = 1 : i64{{.*}} -> tensor<3x2xf32>
func.func @linalg_diagonal(%x: tensor<2x3x4xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>) {
  %a = exir.aten "aten::linalg_diagonal"(%x) {operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %b = exir.aten "aten::linalg_diagonal"(%x) {offset = 1 : i64, dim1 = 0 : i64, dim2 = 2 : i64, operand_segments = array<i32: 1>} : (tensor<2x3x4xf32>) -> tensor<3x2xf32>
  return %a, %b : tensor<2x3xf32>, tensor<3x2xf32>
}

// -----

// kthvalue gathers the sorted values and indices at k - 1; median.dim at the
// lower middle, or at the first NaN when there is one; nanmedian at the lower
// middle of the numbers. Without keepdim the gathered dim is viewed away.
// CHECK-LABEL: func.func @order_statistics
// CHECK: %[[K:.*]] = exir.aten "aten::full"() {{.*}}fill_value = 1 : i64{{.*}}size = array<i64: 2, 1>
// CHECK: exir.aten "aten::gather"(%{{.*}}, %[[K]]) {dim = 1 : i64
// CHECK: exir.aten "aten::gather"(%{{.*}}, %[[K]]) {dim = 1 : i64
// CHECK: exir.aten "aten::view_copy"{{.*}} -> tensor<2xf32>
// CHECK: %[[N:.*]] = exir.aten "aten::sum.dim_IntList"{{.*}} -> tensor<2x1xi64>
// CHECK: %[[FIRST:.*]] = exir.aten "aten::rsub.Scalar"(%[[N]]) {{.*}}other = 4 : i64
// CHECK: %[[ANY:.*]] = exir.aten "aten::gt.Scalar"(%[[N]])
// CHECK: %[[MID:.*]] = exir.aten "aten::full"() {{.*}}fill_value = 1 : i64
// CHECK: %[[P:.*]] = exir.aten "aten::where.self"(%[[ANY]], %[[FIRST]], %[[MID]])
// CHECK: exir.aten "aten::gather"(%{{.*}}, %[[P]]) {dim = 1 : i64{{.*}} -> tensor<2x1xf32>
// CHECK: %[[NN:.*]] = exir.aten "aten::sum.dim_IntList"{{.*}} -> tensor<1xi64>
// CHECK: %[[B:.*]] = exir.aten "aten::rsub.Scalar"(%[[NN]]) {{.*}}other = 7 : i64
// CHECK: %[[Q:.*]] = exir.aten "aten::div.Scalar_mode"(%[[B]]) {{.*}}rounding_mode = "trunc"
// CHECK: exir.aten "aten::gather"(%{{.*}}, %[[Q]]) {dim = 0 : i64
// CHECK: exir.aten "aten::view_copy"{{.*}} -> tensor<f32>
// CHECK-NOT: "aten::kthvalue"
// CHECK-NOT: "aten::median
// CHECK-NOT: "aten::nanmedian
func.func @order_statistics(%x: tensor<2x4xf32>) -> (tensor<2xf32>, tensor<2xi64>, tensor<2x1xf32>, tensor<2x1xi64>, tensor<f32>) {
  %k:2 = exir.aten "aten::kthvalue"(%x) {k = 2 : i64, dim = 1 : i64, keepdim = false, operand_segments = array<i32: 1>} : (tensor<2x4xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  %m:2 = exir.aten "aten::median.dim"(%x) {dim = -1 : i64, keepdim = true, operand_segments = array<i32: 1>} : (tensor<2x4xf32>) -> (tensor<2x1xf32>, tensor<2x1xi64>)
  %n = exir.aten "aten::nanmedian"(%x) {operand_segments = array<i32: 1>} : (tensor<2x4xf32>) -> tensor<f32>
  return %k#0, %k#1, %m#0, %m#1, %n : tensor<2xf32>, tensor<2xi64>, tensor<2x1xf32>, tensor<2x1xi64>, tensor<f32>
}

// -----

// searchsorted: bucketize's count per row of a 2-dim sequence; side 'right'
// compares with gt; a sorter gathers the sequence first.
// CHECK-LABEL: func.func @searchsorted
// CHECK: %[[XU:.*]] = exir.aten "aten::view_copy"(%arg1) {{.*}} -> tensor<2x3x1xf32>
// CHECK: %[[SU:.*]] = exir.aten "aten::view_copy"(%arg0) {{.*}} -> tensor<2x1x4xf32>
// CHECK: %[[GE:.*]] = exir.aten "aten::ge.Tensor"(%[[SU]], %[[XU]]) {{.*}} -> tensor<2x3x4xi1>
// CHECK: %[[NOT:.*]] = exir.aten "aten::logical_not"(%[[GE]])
// CHECK: exir.aten "aten::sum.dim_IntList"(%[[NOT]]) {{.*}}dtype = i64{{.*}} -> tensor<2x3xi64>
// CHECK: %[[G:.*]] = exir.aten "aten::gather"(%arg0, %arg2) {dim = 1 : i64
// CHECK: %[[GU:.*]] = exir.aten "aten::view_copy"(%[[G]])
// CHECK: exir.aten "aten::gt.Tensor"(%[[GU]]
// CHECK: exir.aten "aten::sum.dim_IntList"{{.*}}dtype = i32{{.*}} -> tensor<2x3xi32>
// CHECK-NOT: searchsorted
func.func @searchsorted(%s: tensor<2x4xf32>, %x: tensor<2x3xf32>, %o: tensor<2x4xi64>) -> (tensor<2x3xi64>, tensor<2x3xi32>) {
  %a = exir.aten "aten::searchsorted.Tensor"(%s, %x) {operand_segments = array<i32: 1, 1, 0>} : (tensor<2x4xf32>, tensor<2x3xf32>) -> tensor<2x3xi64>
  %b = exir.aten "aten::searchsorted.Tensor"(%s, %x, %o) {side = "right", out_int32 = true, operand_segments = array<i32: 1, 1, 1>} : (tensor<2x4xf32>, tensor<2x3xf32>, tensor<2x4xi64>) -> tensor<2x3xi32>
  return %a, %b : tensor<2x3xi64>, tensor<2x3xi32>
}

// -----

// put: index_put on the flattened tensor at the flattened, wrapped index.
// CHECK-LABEL: func.func @put
// CHECK: %[[F:.*]] = exir.aten "aten::view_copy"(%arg0) {{.*}} -> tensor<6xf32>
// CHECK: %[[I:.*]] = exir.aten "aten::view_copy"(%arg1) {{.*}} -> tensor<3xi64>
// CHECK: %[[S:.*]] = exir.aten "aten::view_copy"(%arg2) {{.*}} -> tensor<3xf32>
// CHECK: %[[W:.*]] = exir.aten "aten::where.self"
// CHECK: %[[P:.*]] = exir.aten "aten::index_put"(%[[F]], %[[W]], %[[S]]) {accumulate = true
// CHECK: exir.aten "aten::view_copy"(%[[P]]) {{.*}} -> tensor<2x3xf32>
func.func @put(%x: tensor<2x3xf32>, %i: tensor<3x1xi64>, %s: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %r = exir.aten "aten::put"(%x, %i, %s) {accumulate = true, operand_segments = array<i32: 1, 1, 1>} : (tensor<2x3xf32>, tensor<3x1xi64>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// index_reduce is scatter_reduce with the index expanded along dim.
// CHECK-LABEL: func.func @index_reduce
// CHECK: exir.aten "aten::view_copy"(%arg1) {{.*}} -> tensor<1x2xi64>
// CHECK: exir.aten "aten::expand_copy"{{.*}} -> tensor<3x2xi64>
// CHECK-NOT: "aten::index_reduce"
func.func @index_reduce(%x: tensor<3x4xf32>, %i: tensor<2xi64>, %s: tensor<3x2xf32>) -> tensor<3x4xf32> {
  %r = exir.aten "aten::index_reduce"(%x, %i, %s) {dim = 1 : i64, reduce = "amax", include_self = false, operand_segments = array<i32: 1, 1, 1>} : (tensor<3x4xf32>, tensor<2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// nonzero_static: the output row of each nonzero element is its cumsum; the
// row's flat index is picked by a [size, n] compare, unravelled per dim and
// filled with fill_value where the row has no element.
// CHECK-LABEL: func.func @nonzero_static
// CHECK: %[[M:.*]] = exir.aten "aten::ne.Scalar"
// CHECK: exir.aten "aten::cumsum"
// CHECK: exir.aten "aten::eq.Tensor"{{.*}} -> tensor<4x6xi1>
// CHECK: %[[IDX:.*]] = exir.aten "aten::sum.dim_IntList"{{.*}} -> tensor<4xi64>
// CHECK: %[[F:.*]] = exir.aten "aten::any.dim"
// CHECK: %[[Q0:.*]] = exir.aten "aten::div.Scalar_mode"(%[[IDX]]) {{.*}}other = 3 : i64
// CHECK: %[[R0:.*]] = exir.aten "aten::remainder.Scalar"(%[[Q0]]) {{.*}}other = 2 : i64
// CHECK: %[[FILL:.*]] = exir.aten "aten::full"() {{.*}}fill_value = -7 : i64
// CHECK: %[[C0:.*]] = exir.aten "aten::where.self"(%[[F]], %[[R0]], %[[FILL]])
// CHECK: exir.aten "aten::stack"(%[[C0]], %{{.*}}) {dim = 1 : i64{{.*}} -> tensor<4x2xi64>
// CHECK-NOT: nonzero_static
func.func @nonzero_static(%x: tensor<2x3xf32>) -> tensor<4x2xi64> {
  %r = exir.aten "aten::nonzero_static"(%x) {size = 4 : i64, fill_value = -7 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<4x2xi64>
  return %r : tensor<4x2xi64>
}
