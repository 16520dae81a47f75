// RUN: ptec-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect --exir-place-write-back | FileCheck %s
// RUN: ptec-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect --exir-place-write-back=at-end=true | FileCheck %s --check-prefix=END

// The copy lands right after the op computing the value, not at the end; the
// mutation output is gone from the signature and the return.

// CHECK-LABEL: func.func @after_value
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32> {exir.input = #exir.input<user_input, "x">}, %[[B:.*]]: tensor<4xf32> {exir.input = #exir.input<buffer, "b">})
// CHECK-SAME: -> (tensor<4xf32> {exir.output = #exir.output<user_output>})
// CHECK-SAME: exir.write_back = {at_end = false, copies = 1 : i64, earliest = 1 : i64, in_place = 0 : i64, snapshots = 0 : i64}
// CHECK: %[[N:.*]] = exir.aten "aten::add.Tensor"(%[[B]], %[[X]])
// CHECK-NEXT: exir.copy_ %[[B]], %[[N]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: %[[Y:.*]] = exir.aten "aten::mul.Tensor"(%[[X]], %[[X]])
// CHECK-NEXT: %[[Z:.*]] = exir.aten "aten::mul.Tensor"(%[[Y]], %[[Y]])
// CHECK-NEXT: return %[[Z]] : tensor<4xf32>
// END-LABEL: func.func @after_value
// END-SAME: exir.write_back = {at_end = true, copies = 1 : i64, earliest = 0 : i64, in_place = 0 : i64, snapshots = 0 : i64}
// END: exir.aten "aten::mul.Tensor"
// END-NEXT: %[[Z:.*]] = exir.aten "aten::mul.Tensor"
// END-NEXT: exir.copy_
// END-NEXT: return %[[Z]] : tensor<4xf32>
func.func @after_value(%x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">},
                       %b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "b">},
        tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %n = exir.aten "aten::add.Tensor"(%b, %x) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = exir.aten "aten::mul.Tensor"(%x, %x) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %z = exir.aten "aten::mul.Tensor"(%y, %y) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %n, %z : tensor<4xf32>, tensor<4xf32>
}

// -----

// A read of the old value placed after the new value is computed keeps the
// copy after that read, also through a view of the buffer.

// CHECK-LABEL: func.func @old_value_read_later
// CHECK: %[[N:.*]] = exir.aten "aten::add.Scalar"
// CHECK-NEXT: %[[V:.*]] = exir.aten "aten::view"
// CHECK-NEXT: %[[R:.*]] = exir.aten "aten::mul.Tensor"(%[[V]],
// CHECK-NEXT: exir.copy_ %{{.*}}, %[[N]]
// CHECK-NEXT: exir.aten "aten::relu"(%[[R]])
// CHECK-NEXT: return
func.func @old_value_read_later(%x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">},
                                %b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "b">},
        tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %n = exir.aten "aten::add.Scalar"(%b) {other = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %v = exir.aten "aten::view"(%b) {size = array<i64: 4>, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %r = exir.aten "aten::mul.Tensor"(%v, %x) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = exir.aten "aten::relu"(%r) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %n, %s : tensor<4xf32>, tensor<4xf32>
}

// -----

// A mutation of the value after it is computed: the copy snapshots the final
// value, so it goes after the in-place op (and after the in-place op on the
// in-place op's result, which is the same storage).

// CHECK-LABEL: func.func @value_mutated_later
// CHECK: %[[N:.*]] = exir.aten "aten::add.Scalar"
// CHECK-NEXT: exir.aten "aten::mul_.Scalar"(%[[N]])
// CHECK-NEXT: exir.aten "aten::relu_"
// CHECK-NEXT: exir.copy_ %{{.*}}, %[[N]]
// CHECK-NEXT: exir.aten "aten::neg"
func.func @value_mutated_later(%b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "b">},
        tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %n = exir.aten "aten::add.Scalar"(%b) {other = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %m = exir.aten "aten::mul_.Scalar"(%n) {other = 2.0 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %k = exir.aten "aten::relu_"(%m) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %o = exir.aten "aten::neg"(%k) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %n, %o : tensor<4xf32>, tensor<4xf32>
}

// -----

// Dependent copies: the value written into `a` is a view of `b`, which the
// second copy overwrites. The copy that reads `b` runs first, each as early
// as it may: `a`'s after the last read of `a`, `b`'s right after it.

// CHECK-LABEL: func.func @dependent_copies
// CHECK-SAME: (%[[A:[^:]*]]: tensor<4xf32> {exir.input = #exir.input<buffer, "a">}, %[[B:[^:]*]]: tensor<4xf32>
// CHECK-SAME: exir.write_back = {at_end = false, copies = 2 : i64, earliest = 0 : i64, in_place = 0 : i64, snapshots = 0 : i64}
// CHECK: %[[VA:.*]] = exir.aten "aten::view"(%[[B]])
// CHECK: %[[NB:.*]] = exir.aten "aten::add.Scalar"(%[[B]])
// CHECK: exir.aten "aten::relu"
// CHECK-NEXT: exir.copy_ %[[A]], %[[VA]]
// CHECK-NEXT: exir.copy_ %[[B]], %[[NB]]
// CHECK-NEXT: return %{{.*}} : tensor<4xf32>
func.func @dependent_copies(%a: tensor<4xf32> {exir.input = #exir.input<buffer, "a">},
                            %b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "a">},
        tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "b">},
        tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %va = exir.aten "aten::view"(%b) {size = array<i64: 4>, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %nb = exir.aten "aten::add.Scalar"(%b) {other = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %r = exir.aten "aten::relu"(%a) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %va, %nb, %r : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Independent copies at one point keep the output order.

// CHECK-LABEL: func.func @independent_copies
// CHECK-SAME: (%[[A:[^:]*]]: tensor<4xf32> {exir.input = #exir.input<buffer, "a">}, %[[B:[^:]*]]: tensor<4xf32>
// CHECK: %[[NB:.*]] = exir.aten "aten::add.Scalar"(%[[B]])
// CHECK-NEXT: %[[NA:.*]] = exir.aten "aten::add.Tensor"(%[[A]], %[[B]])
// CHECK-NEXT: exir.copy_ %[[A]], %[[NA]]
// CHECK-NEXT: exir.copy_ %[[B]], %[[NB]]
// CHECK-NEXT: exir.aten "aten::relu"
func.func @independent_copies(%a: tensor<4xf32> {exir.input = #exir.input<buffer, "a">},
                              %b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">},
                              %x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "a">},
        tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "b">},
        tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %nb = exir.aten "aten::add.Scalar"(%b) {other = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %na = exir.aten "aten::add.Tensor"(%a, %b) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = exir.aten "aten::relu"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %na, %nb, %r : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// The storage-sharing annotation of re-inplacing: `exir.inplace_of = 0` makes
// the op write its operand 0, and its result the same storage. Writing into
// the value later delays the copy; writing into the state delays it too.

// CHECK-LABEL: func.func @inplace_of_annotation
// CHECK: %[[N:.*]] = exir.aten "aten::add.Scalar"
// CHECK-NEXT: %[[M:.*]] = exir.aten "aten::mul.Tensor"(%[[N]], %{{.*}}) {exir.inplace_of = 0 : i64
// CHECK-NEXT: exir.aten "aten::abs"(%[[M]]) {exir.inplace_of = 0 : i64
// CHECK-NEXT: exir.copy_ %{{.*}}, %[[N]]
// CHECK-NEXT: exir.aten "aten::neg"
func.func @inplace_of_annotation(%x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">},
                                 %b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "b">},
        tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %n = exir.aten "aten::add.Scalar"(%b) {other = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %m = exir.aten "aten::mul.Tensor"(%n, %x) {exir.inplace_of = 0 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %k = exir.aten "aten::abs"(%m) {exir.inplace_of = 0 : i64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %o = exir.aten "aten::neg"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %n, %o : tensor<4xf32>, tensor<4xf32>
}

// -----

// A lineage already fully in place (an in-place op, then an annotated one)
// needs no copy; the output is still removed.

// CHECK-LABEL: func.func @fully_in_place
// CHECK-SAME: -> (tensor<4xf32> {exir.output = #exir.output<user_output>})
// CHECK-SAME: exir.write_back = {at_end = false, copies = 0 : i64, earliest = 0 : i64, in_place = 1 : i64, snapshots = 0 : i64}
// CHECK-NOT: exir.copy_
// CHECK: return %{{.*}} : tensor<4xf32>
// END-LABEL: func.func @fully_in_place
// END-SAME: exir.write_back = {at_end = true, copies = 0 : i64, earliest = 0 : i64, in_place = 1 : i64, snapshots = 0 : i64}
// END-NOT: exir.copy_
// END: return
func.func @fully_in_place(%x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">},
                          %b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "b">},
        tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %n = exir.aten "aten::add_.Scalar"(%b) {other = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %m = exir.aten "aten::mul.Tensor"(%n, %x) {exir.inplace_of = 0 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %o = exir.aten "aten::neg"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %m, %o : tensor<4xf32>, tensor<4xf32>
}

// -----

// Returning the state itself unchanged is trivially in place.

// CHECK-LABEL: func.func @state_returned_unchanged
// CHECK-SAME: {exir.input = #exir.input<buffer, "b">}) attributes {exir.write_back = {at_end = false, copies = 0 : i64, earliest = 0 : i64, in_place = 1 : i64, snapshots = 0 : i64}}
// CHECK-NEXT: return{{$}}
func.func @state_returned_unchanged(%b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "b">}) {
  return %b : tensor<4xf32>
}

// -----

// Foreach-style list mutation: `_foreach_add_` writes every tensor of its
// `Tensor(a!)[]` argument, here the new value; the copy goes after it.

// CHECK-LABEL: func.func @foreach_list_mutation
// CHECK: %[[N:.*]] = exir.aten "aten::add.Scalar"
// CHECK-NEXT: exir.aten "aten::relu"
// CHECK-NEXT: exir.aten "aten::_foreach_add_.Scalar"(%{{.*}}, %[[N]])
// CHECK-NEXT: exir.copy_ %{{.*}}, %[[N]]
// CHECK-NEXT: exir.aten "aten::neg"
func.func @foreach_list_mutation(%x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">},
                                 %b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "b">},
        tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %n = exir.aten "aten::add.Scalar"(%b) {other = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %r = exir.aten "aten::relu"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  exir.aten "aten::_foreach_add_.Scalar"(%r, %n) {scalar = 1.0 : f64, operand_segments = array<i32: 2>} : (tensor<4xf32>, tensor<4xf32>) -> ()
  %o = exir.aten "aten::neg"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %n, %o : tensor<4xf32>, tensor<4xf32>
}

// -----

// A graph with no inputs at all (and so no state): nothing to do, no crash.

// CHECK-LABEL: func.func @no_inputs()
// CHECK-SAME: -> tensor<4xf32> {
// CHECK-NOT: exir.copy_
func.func @no_inputs() -> tensor<4xf32> {
  %z = exir.aten "aten::zeros"() {size = array<i64: 4>, operand_segments = array<i32>} : () -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

// A new value that depends on no input (and a state touched by nothing) goes
// right after its op; a value that is another input goes at the start.

// CHECK-LABEL: func.func @value_from_nothing
// CHECK-SAME: (%[[A:[^:]*]]: tensor<4xf32> {exir.input = #exir.input<buffer, "a">}, %[[B:[^:]*]]: tensor<4xf32> {exir.input = #exir.input<buffer, "b">}, %[[X:[^:]*]]: tensor<4xf32>
// CHECK-NEXT: exir.copy_ %[[B]], %[[X]]
// CHECK-NEXT: %[[Z:.*]] = exir.aten "aten::zeros"
// CHECK-NEXT: exir.copy_ %[[A]], %[[Z]]
// CHECK-NEXT: exir.aten "aten::neg"
func.func @value_from_nothing(%a: tensor<4xf32> {exir.input = #exir.input<buffer, "a">},
                              %b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">},
                              %x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "a">},
        tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "b">},
        tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %z = exir.aten "aten::zeros"() {size = array<i64: 4>, operand_segments = array<i32>} : () -> tensor<4xf32>
  %o = exir.aten "aten::neg"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %z, %x, %o : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// USER_INPUT_MUTATION: the target names the user input as the importer does
// (in #exir.input) or by the `exir.name` argument attribute. Unlike a buffer
// mutation, the output stays (as upstream keeps it): it returns the input
// itself, which holds the new value once its copy ran.

// CHECK-LABEL: func.func @user_input_mutation
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4xf32> {exir.input = #exir.input<user_input, "x">}, %[[Y:[^:]*]]: tensor<4xf32> {exir.input = #exir.input<user_input>, exir.name = "y"})
// CHECK-SAME: -> (tensor<4xf32> {exir.output = #exir.output<user_input_mutation, "x">}, tensor<4xf32> {exir.output = #exir.output<user_input_mutation, "y">}, tensor<4xf32> {exir.output = #exir.output<user_output>})
// CHECK: %[[NX:.*]] = exir.aten "aten::add.Scalar"(%[[X]])
// CHECK-NEXT: exir.copy_ %[[X]], %[[NX]]
// CHECK-NEXT: %[[NY:.*]] = exir.aten "aten::mul.Tensor"(%[[Y]], %[[Y]])
// CHECK-NEXT: exir.copy_ %[[Y]], %[[NY]]
// CHECK-NEXT: %[[O:.*]] = exir.aten "aten::neg"
// CHECK-NEXT: return %[[X]], %[[Y]], %[[O]]
// END-LABEL: func.func @user_input_mutation
// END: exir.aten "aten::neg"
// END-NEXT: exir.copy_ %arg0, %{{.*}}
// END-NEXT: exir.copy_ %arg1, %{{.*}}
// END-NEXT: return
func.func @user_input_mutation(%x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">},
                               %y: tensor<4xf32> {exir.input = #exir.input<user_input>, exir.name = "y"})
    -> (tensor<4xf32> {exir.output = #exir.output<user_input_mutation, "x">},
        tensor<4xf32> {exir.output = #exir.output<user_input_mutation, "y">},
        tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %nx = exir.aten "aten::add.Scalar"(%x) {other = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %ny = exir.aten "aten::mul.Tensor"(%y, %y) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %o = exir.aten "aten::neg"(%nx) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %nx, %ny, %o : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A delegate call is opaque: it reads and writes all its operands, and its
// results alias them. Here it reads the old buffer after the new value exists,
// and its result, which may be the buffer, is read once more after that.

exir.lowered_module @demo_0 {backend = "BackendWithCompilerDemo", blob = "1version:0#",
    compile_specs = [], function_type = (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>,
    share_handle_across_calls, scratch = []}

// CHECK-LABEL: func.func @delegate_call_is_opaque
// CHECK: %[[N:.*]] = exir.aten "aten::add.Scalar"
// CHECK-NEXT: exir.aten "aten::neg"
// CHECK-NEXT: %[[D:.*]] = exir.delegate_call @demo_0
// CHECK-NEXT: exir.aten "aten::relu"(%[[D]])
// CHECK-NEXT: exir.copy_ %{{.*}}, %[[N]]
// CHECK-NEXT: exir.aten "aten::neg"
func.func @delegate_call_is_opaque(%x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">},
                                   %b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "b">},
        tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %n = exir.aten "aten::add.Scalar"(%b) {other = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %e = exir.aten "aten::neg"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %d = exir.delegate_call @demo_0(%b, %e) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = exir.aten "aten::relu"(%d) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %o = exir.aten "aten::neg"(%r) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %n, %o : tensor<4xf32>, tensor<4xf32>
}

// -----

// A call into a sub-function is opaque too: it may write the new value, so
// the copy waits for it. The callee's own mutation output is removed and the
// caller's use of it becomes the state operand it passed.

// CHECK-LABEL: func.func private @helper
// CHECK-SAME: (%[[S:[^:]*]]: tensor<4xf32> {exir.input = #exir.input<buffer, "s">}) -> (tensor<4xf32> {exir.output = #exir.output<user_output>})
// CHECK-NEXT: exir.aten "aten::add_.Scalar"(%[[S]])
// CHECK-NEXT: %[[R:.*]] = exir.aten "aten::neg"
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
func.func private @helper(%s: tensor<4xf32> {exir.input = #exir.input<buffer, "s">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "s">},
        tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %n = exir.aten "aten::add_.Scalar"(%s) {other = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %r = exir.aten "aten::neg"(%n) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %n, %r : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @call_is_opaque
// CHECK: %[[N:.*]] = exir.aten "aten::add.Scalar"
// CHECK-NEXT: %[[C:.*]] = call @helper(%[[N]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: exir.copy_ %{{.*}}, %[[N]]
// CHECK-NEXT: exir.aten "aten::mul.Tensor"(%[[N]], %[[C]])
func.func @call_is_opaque(%b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "b">},
        tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %n = exir.aten "aten::add.Scalar"(%b) {other = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %m, %c = func.call @helper(%n) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %o = exir.aten "aten::mul.Tensor"(%m, %c) {operand_segments = array<i32: 1, 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %n, %o : tensor<4xf32>, tensor<4xf32>
}

// -----

// An op the compiler does not know (here from another dialect) is opaque: it
// may write the new value, so the copy waits for it.

// CHECK-LABEL: func.func @unknown_op_is_opaque
// CHECK: %[[N:.*]] = exir.aten "aten::add.Scalar"
// CHECK-NEXT: "mystery.op"(%[[N]])
// CHECK-NEXT: exir.copy_ %{{.*}}, %[[N]]
// CHECK-NEXT: exir.aten "aten::neg"
func.func @unknown_op_is_opaque(%x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">},
                                %b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "b">},
        tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %n = exir.aten "aten::add.Scalar"(%b) {other = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  "mystery.op"(%n) : (tensor<4xf32>) -> ()
  %o = exir.aten "aten::neg"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %n, %o : tensor<4xf32>, tensor<4xf32>
}

// -----

// Functions with control flow are fine as long as they mutate no state.

// CHECK-LABEL: func.func @blocks_without_state
// CHECK-NOT: exir.write_back
// CHECK: cf.br
func.func @blocks_without_state(%x: tensor<4xf32>) -> tensor<4xf32> {
  "cf.br"()[^bb1] : () -> ()
^bb1:
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{expected a single-block method body}}
func.func @blocks_with_state(%b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "b">}) {
  "cf.br"()[^bb1] : () -> ()
^bb1:
  return %b : tensor<4xf32>
}

// -----

// expected-error @+1 {{output 0 is a buffer_mutation of 'missing', but no buffer argument has that name}}
func.func @unknown_state(%b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "missing">}) {
  return %b : tensor<4xf32>
}

// -----

// expected-error @+1 {{output 0 writes a value of type 'tensor<2xf32>' back into 'b' of type 'tensor<4xf32>'}}
func.func @shape_mismatch(%b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">},
                          %x: tensor<2xf32> {exir.input = #exir.input<user_input, "x">})
    -> (tensor<2xf32> {exir.output = #exir.output<buffer_mutation, "b">}) {
  return %x : tensor<2xf32>
}

// -----

// Regression: outputs [b <- b + 1, a <- b]. Every state receives a value
// computed from the OLD states, so `a` must get the old `b`: its copy runs
// before the copy that overwrites `b`, whatever the output order (the old
// end-of-method fallback followed output order and gave `a` the new `b`).
// Here it needs nothing computed, so it is the first op.

// CHECK-LABEL: func.func @dependent_by_meaning
// CHECK-SAME: (%[[A:[^:]*]]: tensor<4xf32> {exir.input = #exir.input<buffer, "a">}, %[[B:[^:]*]]: tensor<4xf32>
// CHECK-SAME: exir.write_back = {at_end = false, copies = 2 : i64, earliest = 2 : i64, in_place = 0 : i64, snapshots = 0 : i64}
// CHECK-NEXT: exir.copy_ %[[A]], %[[B]]
// CHECK-NEXT: %[[NB:.*]] = exir.aten "aten::add.Scalar"(%[[B]])
// CHECK-NEXT: exir.copy_ %[[B]], %[[NB]]
// CHECK-NEXT: exir.aten "aten::neg"
// END-LABEL: func.func @dependent_by_meaning
// END: exir.aten "aten::neg"
// END-NEXT: exir.copy_ %arg0, %arg1
// END-NEXT: exir.copy_ %arg1, %{{.*}}
// END-NEXT: return
func.func @dependent_by_meaning(%a: tensor<4xf32> {exir.input = #exir.input<buffer, "a">},
                                %b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">},
                                %x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "b">},
        tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "a">},
        tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %nb = exir.aten "aten::add.Scalar"(%b) {other = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %o = exir.aten "aten::neg"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %nb, %b, %o : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A swap, [a <- b, b <- a]: each copy reads what the other overwrites. The
// cycle is broken by a snapshot of `b` taken first; then `b` gets the old
// `a`, and `a` the snapshot.

// CHECK-LABEL: func.func @swap
// CHECK-SAME: (%[[A:[^:]*]]: tensor<4xf32> {exir.input = #exir.input<buffer, "a">}, %[[B:[^:]*]]: tensor<4xf32>
// CHECK-SAME: exir.write_back = {at_end = false, copies = 2 : i64, earliest = 2 : i64, in_place = 0 : i64, snapshots = 1 : i64}
// CHECK-NEXT: %[[S:.*]] = exir.aten "aten::clone"(%[[B]])
// CHECK-NEXT: exir.copy_ %[[B]], %[[A]]
// CHECK-NEXT: exir.copy_ %[[A]], %[[S]]
// CHECK-NEXT: exir.aten "aten::neg"
// END-LABEL: func.func @swap
// END: exir.aten "aten::neg"
// END-NEXT: %[[S:.*]] = exir.aten "aten::clone"(%arg1)
// END-NEXT: exir.copy_ %arg1, %arg0
// END-NEXT: exir.copy_ %arg0, %[[S]]
// END-NEXT: return
func.func @swap(%a: tensor<4xf32> {exir.input = #exir.input<buffer, "a">},
                %b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">},
                %x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "a">},
        tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "b">},
        tensor<4xf32> {exir.output = #exir.output<user_output>}) {
  %o = exir.aten "aten::neg"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %b, %a, %o : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// The new value is a view of the state itself (b <- b.t()): copying it in
// place would read what it writes. It is snapshotted first.

// CHECK-LABEL: func.func @value_views_own_state
// CHECK: %[[T:.*]] = exir.aten "aten::t"
// CHECK-NEXT: %[[S:.*]] = exir.aten "aten::clone"(%[[T]])
// CHECK-NEXT: %[[R:.*]] = exir.aten "aten::relu"(%[[T]])
// CHECK-NEXT: exir.copy_ %{{.*}}, %[[S]]
// CHECK-NEXT: return %[[R]]
func.func @value_views_own_state(%b: tensor<3x3xf32> {exir.input = #exir.input<buffer, "b">})
    -> (tensor<3x3xf32> {exir.output = #exir.output<buffer_mutation, "b">},
        tensor<3x3xf32> {exir.output = #exir.output<user_output>}) {
  %t = exir.aten "aten::t"(%b) {operand_segments = array<i32: 1>} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %r = exir.aten "aten::relu"(%t) {operand_segments = array<i32: 1>} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %t, %r : tensor<3x3xf32>, tensor<3x3xf32>
}

// -----

// A user output that is the old state (or a view of it) is read after the
// method, so the copy must not overwrite what it shows: the output becomes a
// snapshot taken before the copy.

// CHECK-LABEL: func.func @old_state_is_user_output
// CHECK-SAME: snapshots = 2 : i64
// CHECK: %[[S0:.*]] = exir.aten "aten::clone"(%[[B:[^)]*]])
// CHECK-NEXT: %[[NB:.*]] = exir.aten "aten::add.Scalar"(%[[B]])
// CHECK-NEXT: %[[V:.*]] = exir.aten "aten::view"(%[[B]])
// CHECK-NEXT: %[[S1:.*]] = exir.aten "aten::clone"(%[[V]])
// CHECK-NEXT: exir.copy_ %[[B]], %[[NB]]
// CHECK-NEXT: return %[[S0]], %[[S1]]
func.func @old_state_is_user_output(%b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "b">},
        tensor<4xf32> {exir.output = #exir.output<user_output>},
        tensor<2x2xf32> {exir.output = #exir.output<user_output>}) {
  %nb = exir.aten "aten::add.Scalar"(%b) {other = 1.0 : f64, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %v = exir.aten "aten::view"(%b) {size = array<i64: 2, 2>, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<2x2xf32>
  return %nb, %b, %v : tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>
}

// -----

// expected-error @+1 {{outputs 0 and 1 both mutate 'b'; an exported program writes each state once}}
func.func @two_mutations_of_one_buffer(%b: tensor<4xf32> {exir.input = #exir.input<buffer, "b">},
                                       %x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">})
    -> (tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "b">},
        tensor<4xf32> {exir.output = #exir.output<buffer_mutation, "b">}) {
  return %x, %x : tensor<4xf32>, tensor<4xf32>
}
