// RUN: ptec-opt %s --split-input-file --exir-functionalize --verify-diagnostics | FileCheck %s

// Functionalization (docs/passes/functionalize.md): one chunk per view kind and
// mutating-op family; the refusals at the end name the node and the rule.
// CHECK-LABEL: func.func @inplace_intermediate
// CHECK-SAME: -> (tensor<4xf32> {exir.output = #exir.output<user_output>})
// CHECK-SAME: exir.functionalize = {replays = 0 : i64, state = 0 : i64, view_writes = 0 : i64, writes = 2 : i64}
// CHECK: %[[A:.*]] = exir.aten "aten::neg"
// CHECK: %[[R:.*]] = exir.aten "aten::relu"(%[[A]])
// CHECK: %[[M:.*]] = exir.aten "aten::mul.Scalar"(%[[R]])
// CHECK: %[[S:.*]] = exir.aten "aten::add.Tensor"(%[[M]], %[[M]])
// CHECK: return %[[S]]

// In-place ops on an intermediate: the functional op, same operands.
func.func @inplace_intermediate(%x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">})
    -> (tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %a = exir.aten "aten::neg"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %r = exir.aten "aten::relu_"(%a) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %m = exir.aten "aten::mul_.Scalar"(%a) {other = 2.0 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %s = exir.aten "aten::add.Tensor"(%a, %r) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// CHECK: exir.weight @n "buffer" mutable
// CHECK-LABEL: func.func @counter_and_input
// CHECK-SAME: -> (tensor<i64> {exir.output = #exir.output<buffer_mutation, "n">}, tensor<4xf32> {exir.output = #exir.output<user_input_mutation, "x">}, tensor<4xf32> {exir.output = #exir.output<user_output>})
// CHECK: %[[N:.*]] = exir.aten "aten::add.Scalar"(%arg0)
// CHECK: %[[X:.*]] = exir.aten "aten::add.Tensor"(%arg1, %arg2)
// CHECK: %[[O:.*]] = exir.aten "aten::mul.Tensor"(%[[X]], %arg2)
// CHECK: return %[[N]], %[[X]], %[[O]]

// A counter buffer (`self.n += 1`) and `x += y` on a user input.
exir.weight @n "buffer" = dense<0> : tensor<i64>
func.func @counter_and_input(%n: tensor<i64> {exir.input = #exir.input<buffer, "n">},
                             %x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">},
                             %y: tensor<4xf32> {exir.input = #exir.input<user_input, "y">})
    -> (tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %n1 = exir.aten "aten::add_.Scalar"(%n) {other = 1 : i64, operand_segments = array<i32: 1>} : (tensor<i64>) -> tensor<i64>
  %x1 = exir.aten "aten::add_.Tensor"(%x, %y) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %o = exir.aten "aten::mul.Tensor"(%x, %y) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %o : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @slice_select_copy
// CHECK-SAME: -> (tensor<4x2xf32> {exir.output = #exir.output<buffer_mutation, "b">}, tensor<4x2xf32> {exir.output = #exir.output<user_output>})
// CHECK: %[[S:.*]] = exir.aten "aten::slice.Tensor"(%arg0)
// CHECK: %[[C:.*]] = exir.aten "aten::copy"(%[[S]], %arg1)
// CHECK: %[[B1:.*]] = exir.aten "aten::slice_scatter"(%arg0, %[[C]]) {dim = 0 : i64, end = 3 : i64, operand_segments = array<i32: 1, 1>, start = 1 : i64, step = 1 : i64}
// CHECK: %[[R:.*]] = exir.aten "aten::select.int"(%[[B1]])
// CHECK: %[[C2:.*]] = exir.aten "aten::copy"(%[[R]], %arg2)
// CHECK: %[[B2:.*]] = exir.aten "aten::select_scatter"(%[[B1]], %[[C2]]) {dim = 0 : i64, index = 0 : i64
// CHECK: %[[O:.*]] = exir.aten "aten::neg"(%[[B2]])
// CHECK: return %[[B2]], %[[O]]

// `b[1:3] = v` and `b2[0] = w`: slice / select + copy_ on buffers.
exir.weight @b "buffer" = dense<0.0> : tensor<4x2xf32>
func.func @slice_select_copy(%b: tensor<4x2xf32> {exir.input = #exir.input<buffer, "b">},
                             %v: tensor<2x2xf32> {exir.input = #exir.input<user_input, "v">},
                             %w: tensor<2xf32> {exir.input = #exir.input<user_input, "w">})
    -> (tensor<4x2xf32> {exir.output = #exir.output<user_output>}) {
  %s = exir.aten "aten::slice.Tensor"(%b) {dim = 0 : i64, start = 1 : i64, end = 3 : i64, step = 1 : i64, operand_segments = array<i32: 1>} : (tensor<4x2xf32>) -> tensor<2x2xf32>
  %c = exir.aten "aten::copy_"(%s, %v) {operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = exir.aten "aten::select.int"(%b) {dim = 0 : i64, index = 0 : i64, operand_segments = array<i32: 1>} : (tensor<4x2xf32>) -> tensor<2xf32>
  %c2 = exir.aten "aten::copy_"(%r, %w) {operand_segments = array<i32: 1, 1>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %o = exir.aten "aten::neg"(%b) {operand_segments = array<i32: 1>} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return %o : tensor<4x2xf32>
}

// -----

// CHECK-LABEL: func.func @stale_view_and_chain
// CHECK-SAME: -> (tensor<2x4xf32> {exir.output = #exir.output<user_input_mutation, "x">}, tensor<4xf32> {exir.output = #exir.output<user_output>})
// CHECK-SAME: replays = 1 : i64, state = 1 : i64, view_writes = 2 : i64, writes = 3 : i64
// CHECK: exir.aten "aten::select.int"(%arg0)
// CHECK: %[[F:.*]] = exir.aten "aten::view"(%arg0) {{.*}}size = array<i64: 8>
// CHECK: %[[P:.*]] = exir.aten "aten::slice.Tensor"(%[[F]])
// CHECK: %[[FILL:.*]] = exir.aten "aten::fill.Scalar"(%[[P]])
// CHECK: %[[F2:.*]] = exir.aten "aten::slice_scatter"(%[[F]], %[[FILL]])
// CHECK: %[[X2:.*]] = exir.aten "aten::view"(%[[F2]]) {{.*}}size = array<i64: 2, 4>
// CHECK: %[[ROW:.*]] = exir.aten "aten::select.int"(%[[X2]])
// CHECK: %[[O:.*]] = exir.aten "aten::neg"(%[[ROW]])
// CHECK: return %[[X2]], %[[O]]

// A view made before a write through another view, read after it: re-derived.
// A chain view -> slice: `x.view(-1)[2:5].fill_(1)` written back through both.
func.func @stale_view_and_chain(%x: tensor<2x4xf32> {exir.input = #exir.input<user_input, "x">})
    -> (tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %row = exir.aten "aten::select.int"(%x) {dim = 0 : i64, index = 0 : i64, operand_segments = array<i32: 1>} : (tensor<2x4xf32>) -> tensor<4xf32>
  %flat = exir.aten "aten::view"(%x) {size = array<i64: 8>, operand_segments = array<i32: 1>} : (tensor<2x4xf32>) -> tensor<8xf32>
  %part = exir.aten "aten::slice.Tensor"(%flat) {dim = 0 : i64, start = 2 : i64, end = 5 : i64, step = 1 : i64, operand_segments = array<i32: 1>} : (tensor<8xf32>) -> tensor<3xf32>
  %f = exir.aten "aten::fill_.Scalar"(%part) {value = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<3xf32>) -> tensor<3xf32>
  %o = exir.aten "aten::neg"(%row) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %o : tensor<4xf32>
}

// -----

// A parameter written in place becomes a mutable buffer (never folded).
// CHECK: exir.weight @m "buffer" mutable
// CHECK-LABEL: func.func @transpose_permute
// CHECK-SAME: %arg0: tensor<2x3xf32> {exir.input = #exir.input<buffer, "m">}
// CHECK-SAME: -> (tensor<2x3xf32> {exir.output = #exir.output<buffer_mutation, "m">}, tensor<3x2x4xf32> {exir.output = #exir.output<user_input_mutation, "z">}, tensor<2x3xf32> {exir.output = #exir.output<user_output>})
// CHECK: %[[T:.*]] = exir.aten "aten::t"(%arg0)
// CHECK: %[[R:.*]] = exir.aten "aten::select.int"(%[[T]])
// CHECK: %[[A:.*]] = exir.aten "aten::add.Scalar"(%[[R]])
// CHECK: %[[T2:.*]] = exir.aten "aten::select_scatter"(%[[T]], %[[A]])
// CHECK: %[[M:.*]] = exir.aten "aten::t"(%[[T2]])
// CHECK: %[[P:.*]] = exir.aten "aten::permute"(%arg1) {dims = array<i64: 1, 2, 0>
// CHECK: %[[Q:.*]] = exir.aten "aten::mul.Scalar"(%[[P]])
// CHECK: %[[Z:.*]] = exir.aten "aten::permute"(%[[Q]]) {dims = array<i64: 2, 0, 1>
// CHECK: %[[O:.*]] = exir.aten "aten::neg"(%[[M]])
// CHECK: return %[[M]], %[[Z]], %[[O]]

// Writes through t() and permute: the inverse layout op.
exir.weight @m "parameter" = dense<1.0> : tensor<2x3xf32>
func.func @transpose_permute(%m: tensor<2x3xf32> {exir.input = #exir.input<parameter, "m">},
                             %z: tensor<3x2x4xf32> {exir.input = #exir.input<user_input, "z">})
    -> (tensor<2x3xf32> {exir.output = #exir.output<user_output>}) {
  %t = exir.aten "aten::t"(%m) {operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r = exir.aten "aten::select.int"(%t) {dim = 0 : i64, index = 0 : i64, operand_segments = array<i32: 1>} : (tensor<3x2xf32>) -> tensor<2xf32>
  %a = exir.aten "aten::add_.Scalar"(%r) {other = 1 : i64, alpha = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2xf32>) -> tensor<2xf32>
  %p = exir.aten "aten::permute"(%z) {dims = array<i64: 1, 2, 0>, operand_segments = array<i32: 1>} : (tensor<3x2x4xf32>) -> tensor<2x4x3xf32>
  %q = exir.aten "aten::mul_.Scalar"(%p) {other = 3.0 : f64, operand_segments = array<i32: 1>} : (tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  %o = exir.aten "aten::neg"(%m) {operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %o : tensor<2x3xf32>
}

// -----

// CHECK: exir.weight @rm "buffer" mutable
// CHECK: exir.weight @rv "buffer" mutable
// CHECK-LABEL: func.func @bn_train
// CHECK-SAME: -> (tensor<3xf32> {exir.output = #exir.output<buffer_mutation, "rm">}, tensor<3xf32> {exir.output = #exir.output<buffer_mutation, "rv">}, tensor<2x3x4x4xf32> {exir.output = #exir.output<user_output>})
// CHECK: %[[BN:.*]]:5 = exir.aten "aten::_native_batch_norm_legit_functional"(%arg0, %arg1, %arg2) {eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64, operand_segments = array<i32: 1, 0, 0, 1, 1>, training = true}
// CHECK: return %[[BN]]#3, %[[BN]]#4, %[[BN]]#0

// Training-mode batch_norm writes its running statistics (no `!` in ATen's
// schema): the functional form returns their new values.
exir.weight @rm "buffer" = dense<0.0> : tensor<3xf32>
exir.weight @rv "buffer" = dense<1.0> : tensor<3xf32>
func.func @bn_train(%x: tensor<2x3x4x4xf32> {exir.input = #exir.input<user_input, "x">},
                    %rm: tensor<3xf32> {exir.input = #exir.input<buffer, "rm">},
                    %rv: tensor<3xf32> {exir.input = #exir.input<buffer, "rv">})
    -> (tensor<2x3x4x4xf32> {exir.output = #exir.output<user_output>}) {
  %y = exir.aten "aten::batch_norm"(%x, %rm, %rv) {training = true, momentum = 0.1 : f64, eps = 1.0e-5 : f64, cudnn_enabled = true, operand_segments = array<i32: 1, 0, 0, 1, 1>} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return %y : tensor<2x3x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @index_copy_and_out
// CHECK-SAME: -> (tensor<1x2x8x4xf32> {exir.output = #exir.output<buffer_mutation, "cache">}, tensor<1x2x8x4xf32> {exir.output = #exir.output<user_output>})
// CHECK: %[[C:.*]] = exir.aten "aten::index_copy"(%arg2, %arg0, %arg1) {dim = 2 : i64
// CHECK: %[[E:.*]] = exir.aten "aten::neg"(%[[C]])
// CHECK: %[[O:.*]] = exir.aten "aten::add.Tensor"(%[[C]], %[[E]])
// CHECK: return %[[C]], %[[O]]

// index_copy_ into a KV-cache buffer, and an out variant writing a fresh buffer.
exir.weight @cache "buffer" = dense<0.0> : tensor<1x2x8x4xf32>
func.func @index_copy_and_out(%pos: tensor<1xi64> {exir.input = #exir.input<user_input, "pos">},
                              %k: tensor<1x2x1x4xf32> {exir.input = #exir.input<user_input, "k">},
                              %cache: tensor<1x2x8x4xf32> {exir.input = #exir.input<buffer, "cache">})
    -> (tensor<1x2x8x4xf32> {exir.output = #exir.output<user_output>}) {
  %c = exir.aten "aten::index_copy_"(%cache, %pos, %k) {dim = 2 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<1x2x8x4xf32>, tensor<1xi64>, tensor<1x2x1x4xf32>) -> tensor<1x2x8x4xf32>
  %e = exir.aten "aten::neg"(%cache) {operand_segments = array<i32: 1>} : (tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %o = exir.aten "aten::add.out"(%cache, %e, %e) {operand_segments = array<i32: 1, 1, 1>} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %e : tensor<1x2x8x4xf32>
}

// -----

func.func @expand_write(%x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">})
    -> (tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  // expected-note @+1 {{the view written through is made here}}
  %e = exir.aten "aten::expand"(%x) {size = array<i64: 2, 4>, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<2x4xf32>
  // expected-error @+1 {{cannot functionalize a write through 'aten::expand'}}
  %a = exir.aten "aten::add_.Scalar"(%e) {other = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{constant 'c' is written in place; only buffers, parameters and user inputs can hold state}}
func.func @constant_write(%c: tensor<4xf32> {exir.input = #exir.input<constant, "c">})
    -> (tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %a = exir.aten "aten::add_.Scalar"(%c) {other = 1 : i64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %n = exir.aten "aten::neg"(%c) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %n : tensor<4xf32>
}

// -----

exir.weight @s "buffer" = dense<0.0> : tensor<4xf32>
// expected-error @+1 {{'s' is written in place and also has an explicit buffer_mutation output; which one is final is ambiguous}}
func.func @mixed(%s: tensor<4xf32> {exir.input = #exir.input<buffer, "s">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "s">}, tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %a = exir.aten "aten::add_.Scalar"(%s) {other = 1 : i64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %n = exir.aten "aten::neg"(%s) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %n, %n : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @transpose_inplace(%x: tensor<2x3xf32> {exir.input = #exir.input<user_input, "x">})
    -> (tensor<3x2xf32> {exir.output = #exir.output<user_output>}) {
  // expected-error @+1 {{cannot functionalize 'aten::t_': it changes its argument's shape or strides in place}}
  %t = exir.aten "aten::t_"(%x) {operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}

// -----

func.func @overlapping_as_strided(%x: tensor<8xf32> {exir.input = #exir.input<user_input, "x">})
    -> (tensor<8xf32> {exir.output = #exir.output<user_output>}) {
  // expected-note @+1 {{the view written through is made here}}
  %v = exir.aten "aten::as_strided"(%x) {size = array<i64: 3, 4>, stride = array<i64: 2, 1>, operand_segments = array<i32: 1>} : (tensor<8xf32>) -> tensor<3x4xf32>
  // expected-error @+1 {{cannot functionalize a write through 'aten::as_strided': the as_strided view has overlapping elements}}
  %a = exir.aten "aten::zero_"(%v) {operand_segments = array<i32: 1>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %x : tensor<8xf32>
}

// -----

// A write through a slice whose bounds are run-time values (x[u0:u0 + 8] with
// u0 = pos.item(), ExecuTorch's dynamic KV-cache update): the slice_scatter
// keeps the symbolic start and end. (They used to be dropped, so the write
// landed at the bounds' upper values: a silent wrong result.)
// CHECK-LABEL: func.func @symbolic_slice_write
// CHECK: %[[U:.*]] = exir.sym_item %arg1
// CHECK: %[[E:.*]] = exir.sym "add"(%[[U]]
// CHECK: %[[W:.*]] = exir.aten "aten::copy"(%{{.*}}, %arg2)
// CHECK: exir.aten "aten::slice_scatter"(%arg0, %[[W]], %[[U]], %[[E]]) {dim = 0 : i64, end = 16 : i64, exir.sym_args = ["start", "end"]
func.func @symbolic_slice_write(%c: tensor<16x2xf32> {exir.input = #exir.input<user_input, "c">}, %p: tensor<i64> {exir.input = #exir.input<user_input, "p">}, %v: tensor<8x2xf32> {exir.input = #exir.input<user_input, "v">}) -> (tensor<16x2xf32> {exir.output = #exir.output<user_output>}) {
  %u = exir.sym_item %p : tensor<i64>
  %k = exir.sym_const 8
  %e = exir.sym "add"(%u, %k) : (i64, i64) -> i64
  %s = exir.aten "aten::slice.Tensor"(%c, %u, %e) {dim = 0 : i64, end = 16 : i64, exir.sym_args = ["start", "end"], operand_segments = array<i32: 1>, start = 8 : i64, step = 1 : i64} : (tensor<16x2xf32>, i64, i64) -> tensor<8x2xf32>
  %w = exir.aten "aten::copy_"(%s, %v) {non_blocking = false, operand_segments = array<i32: 1, 1>} : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x2xf32>
  %r = exir.aten "aten::mul.Scalar"(%c) {other = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<16x2xf32>) -> tensor<16x2xf32>
  return %r : tensor<16x2xf32>
}

// -----

// Writes through the results of list views: each result of split / unbind /
// tensor_split is a known slice or select of its base, so a write through one
// is a slice_scatter / select_scatter into the base, and a piece read after
// its base was written is re-derived as that slice.
// CHECK-LABEL: func.func @split_unbind_writes
// CHECK-SAME: -> (tensor<6x3xf32> {exir.output = #exir.output<buffer_mutation, "b">}, tensor<2x3xf32> {exir.output = #exir.output<user_output>})
// CHECK-SAME: exir.functionalize = {replays = 1 : i64, state = 1 : i64, view_writes = 3 : i64, writes = 6 : i64}
// CHECK: %[[P:.*]]:3 = exir.aten "aten::split.Tensor"(%arg0)
// CHECK: %[[A:.*]] = exir.aten "aten::add.Scalar"(%[[P]]#0)
// CHECK: %[[B1:.*]] = exir.aten "aten::slice_scatter"(%arg0, %[[A]]) {dim = 0 : i64, end = 2 : i64, operand_segments = array<i32: 1, 1>, start = 0 : i64, step = 1 : i64}
// CHECK: %[[U:.*]]:6 = exir.aten "aten::unbind.int"(%[[B1]])
// CHECK: %[[C:.*]] = exir.aten "aten::copy"(%[[U]]#4, %arg1)
// CHECK: %[[B2:.*]] = exir.aten "aten::select_scatter"(%[[B1]], %[[C]]) {dim = 0 : i64, index = 4 : i64
// CHECK: %[[T:.*]]:3 = exir.aten "aten::tensor_split.indices"(%[[B2]])
// CHECK: %[[M:.*]] = exir.aten "aten::mul.Scalar"(%[[T]]#0)
// CHECK: %[[B3:.*]] = exir.aten "aten::slice_scatter"(%[[B2]], %[[M]]) {dim = 1 : i64, end = 2 : i64, operand_segments = array<i32: 1, 1>, start = 0 : i64, step = 1 : i64}
// CHECK: %[[R:.*]] = exir.aten "aten::slice.Tensor"(%[[B3]]) {dim = 0 : i64, end = 4 : i64, operand_segments = array<i32: 1>, start = 2 : i64, step = 1 : i64}
// CHECK: %[[O:.*]] = exir.aten "aten::neg"(%[[R]])
// CHECK: return %[[B3]], %[[O]]
exir.weight @b "buffer" = dense<0.0> : tensor<6x3xf32>
func.func @split_unbind_writes(%b: tensor<6x3xf32> {exir.input = #exir.input<buffer, "b">},
                               %v: tensor<3xf32> {exir.input = #exir.input<user_input, "v">})
    -> (tensor<2x3xf32> {exir.output = #exir.output<user_output>}) {
  %p:3 = exir.aten "aten::split.Tensor"(%b) {split_size = 2 : i64, dim = 0 : i64, operand_segments = array<i32: 1>} : (tensor<6x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
  %a = exir.aten "aten::add_.Scalar"(%p#0) {other = 1 : i64, operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u:6 = exir.aten "aten::unbind.int"(%b) {dim = 0 : i64, operand_segments = array<i32: 1>} : (tensor<6x3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  %c = exir.aten "aten::copy_"(%u#4, %v) {non_blocking = false, operand_segments = array<i32: 1, 1>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // Unordered indices: pieces [0:2], [2:1] (empty) and [1:3] of dim 1.
  %t:3 = exir.aten "aten::tensor_split.indices"(%b) {indices = array<i64: 2, 1>, dim = 1 : i64, operand_segments = array<i32: 1>} : (tensor<6x3xf32>) -> (tensor<6x2xf32>, tensor<6x0xf32>, tensor<6x2xf32>)
  %m = exir.aten "aten::mul_.Scalar"(%t#0) {other = 2 : i64, operand_segments = array<i32: 1>} : (tensor<6x2xf32>) -> tensor<6x2xf32>
  // A piece made before the writes, read after them.
  %o = exir.aten "aten::neg"(%p#1) {operand_segments = array<i32: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %o : tensor<2x3xf32>
}

// -----

// A write through narrow: a negative start counts from the end of the dim; a
// start known only at run time gives the scatter symbolic bounds, wrapped the
// same way ((start + n) mod max(n, 1), end = that + length).
// CHECK-LABEL: func.func @narrow_writes
// CHECK: %[[S1:.*]] = exir.aten "aten::slice_scatter"(%arg0, %{{.*}}) {dim = 0 : i64, end = 8 : i64, operand_segments = array<i32: 1, 1>, start = 6 : i64, step = 1 : i64}
// CHECK: %[[U:.*]] = exir.sym_item %arg1
// CHECK: %[[N:.*]] = exir.sym_size %[[S1]], 0
// CHECK: %[[ONE:.*]] = exir.sym_const 1
// CHECK: %[[MX:.*]] = exir.sym "max"(%[[N]], %[[ONE]])
// CHECK: %[[AD:.*]] = exir.sym "add"(%[[U]], %[[N]])
// CHECK: %[[W:.*]] = exir.sym "mod"(%[[AD]], %[[MX]])
// CHECK: %[[E:.*]] = exir.sym "add"(%[[W]], %{{.*}})
// CHECK: exir.aten "aten::slice_scatter"(%[[S1]], %{{.*}}, %[[W]], %[[E]]) {dim = 0 : i64, end = 8 : i64, exir.static_shape, exir.sym_args = ["start", "end"]
exir.weight @c "buffer" = dense<0.0> : tensor<8x2xf32>
func.func @narrow_writes(%c: tensor<8x2xf32> {exir.input = #exir.input<buffer, "c">},
                         %p: tensor<i64> {exir.input = #exir.input<user_input, "p">})
    -> (tensor<8x2xf32> {exir.output = #exir.output<user_output>}) {
  %n = exir.aten "aten::narrow"(%c) {dim = 0 : i64, start = -2 : i64, length = 2 : i64, operand_segments = array<i32: 1>} : (tensor<8x2xf32>) -> tensor<2x2xf32>
  %z = exir.aten "aten::zero_"(%n) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %u = exir.sym_item %p : tensor<i64>
  %m = exir.aten "aten::narrow"(%c, %u) {dim = 0 : i64, start = 6 : i64, length = 2 : i64, exir.sym_args = ["start"], exir.static_shape, operand_segments = array<i32: 1>} : (tensor<8x2xf32>, i64) -> tensor<2x2xf32>
  %f = exir.aten "aten::fill_.Scalar"(%m) {value = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = exir.aten "aten::mul.Scalar"(%c) {other = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<8x2xf32>) -> tensor<8x2xf32>
  return %r : tensor<8x2xf32>
}

// -----

// A list view of a value whose shape is only known at run time: its pieces'
// offsets are not known, so a write through one is still refused.
func.func @dynamic_split_write(%x: tensor<8x2xf32> {exir.input = #exir.input<user_input, "x">, exir.dynamic_dims = array<i64: 0>})
    -> (tensor<8x2xf32> {exir.output = #exir.output<user_output>}) {
  %t = exir.aten "aten::clone"(%x) {operand_segments = array<i32: 1>} : (tensor<8x2xf32>) -> tensor<8x2xf32>
  // expected-note @+1 {{the view written through is made here}}
  %p:2 = exir.aten "aten::split.Tensor"(%t) {split_size = 4 : i64, dim = 0 : i64, operand_segments = array<i32: 1>} : (tensor<8x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>)
  // expected-error @+1 {{cannot functionalize a write through 'aten::split.Tensor': the base's shape is only known at run time, so where its pieces lie in it is not known when the program is compiled}}
  %a = exir.aten "aten::add_.Scalar"(%p#0) {other = 1 : i64, operand_segments = array<i32: 1>} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return %t : tensor<8x2xf32>
}
