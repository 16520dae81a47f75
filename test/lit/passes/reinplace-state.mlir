// RUN: ptec-opt %s --split-input-file --exir-reinplace-state | FileCheck %s
// RUN: ptec-opt %s --split-input-file --exir-reinplace-state --exir-place-write-back | FileCheck %s --check-prefix=WB

// KV-cache update: the new cache is a slice_scatter of the old one, and the
// attention reads only the new cache. The update becomes in place and
// write-back then has nothing left to copy.

// CHECK-LABEL: func.func @kv_slice_scatter
// CHECK-SAME: exir.reinplace_state = {marked = 1 : i64}
// CHECK: %[[N:.*]] = exir.aten "aten::slice_scatter"(%{{.*}}, %{{.*}}) {dim = 1 : i64, end = 3 : i64, exir.inplace_of = 0 : i64
// CHECK: exir.aten "aten::mm"(%{{.*}}, %[[N]])
// WB-LABEL: func.func @kv_slice_scatter
// WB-SAME: -> (tensor<4x4xf32> {exir.output = #exir.output<user_output>})
// WB-SAME: exir.write_back = {at_end = false, copies = 0 : i64, earliest = 0 : i64, in_place = 1 : i64, snapshots = 0 : i64}
// WB-NOT: exir.copy_
// WB: return
func.func @kv_slice_scatter(%k: tensor<4x1xf32> {exir.input = #exir.input<user_input, "k">},
                            %q: tensor<4x4xf32> {exir.input = #exir.input<user_input, "q">},
                            %cache: tensor<4x4xf32> {exir.input = #exir.input<buffer, "cache">})
    -> (tensor<4x4xf32> {exir.output = #exir.output<buffer_mutation, "cache">},
        tensor<4x4xf32> {exir.output = #exir.output<user_output>}) {
  %q2 = exir.aten "aten::relu"(%q) {operand_segments = array<i32: 1>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %n = exir.aten "aten::slice_scatter"(%cache, %k) {dim = 1 : i64, start = 2 : i64, end = 3 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %s = exir.aten "aten::mm"(%q2, %n) {operand_segments = array<i32: 1, 1>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %n, %s : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// index_put then select_scatter: a chain of updates starting at the buffer;
// every link becomes in place.

// CHECK-LABEL: func.func @chain_index_put_select_scatter
// CHECK-SAME: exir.reinplace_state = {marked = 2 : i64}
// CHECK: exir.aten "aten::index_put"({{.*}}) {exir.inplace_of = 0 : i64
// CHECK: exir.aten "aten::select_scatter"({{.*}}) {dim = 0 : i64, exir.inplace_of = 0 : i64
// WB-LABEL: func.func @chain_index_put_select_scatter
// WB-NOT: exir.copy_
// WB: return
func.func @chain_index_put_select_scatter(%pos: tensor<1xi64> {exir.input = #exir.input<user_input, "pos">},
                                          %v: tensor<1x4xf32> {exir.input = #exir.input<user_input, "v">},
                                          %row: tensor<4xf32> {exir.input = #exir.input<user_input, "row">},
                                          %cache: tensor<8x4xf32> {exir.input = #exir.input<buffer, "cache">})
    -> (tensor<8x4xf32> {exir.output = #exir.output<buffer_mutation, "cache">},
        tensor<8x4xf32> {exir.output = #exir.output<user_output>}) {
  %a = exir.aten "aten::index_put"(%cache, %pos, %v) {indices = array<i1: true>, operand_segments = array<i32: 1, 1, 1>} : (tensor<8x4xf32>, tensor<1xi64>, tensor<1x4xf32>) -> tensor<8x4xf32>
  %b = exir.aten "aten::select_scatter"(%a, %row) {dim = 0 : i64, index = 7 : i64, operand_segments = array<i32: 1, 1>} : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  %o = exir.aten "aten::neg"(%b) {operand_segments = array<i32: 1>} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %b, %o : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// copy into a slice, as functionalization writes `cache[:, 2:3].copy_(k)`:
// slice_scatter(cache, slice_scatter(slice(cache), k)). The outer update is
// in place; the inner one builds a fresh slice-sized value and stays as is.

// CHECK-LABEL: func.func @copy_into_slice
// CHECK-SAME: exir.reinplace_state = {marked = 1 : i64}
// CHECK: %[[SL:.*]] = exir.aten "aten::slice.Tensor"
// CHECK: %[[IN:.*]] = exir.aten "aten::slice_scatter"(%[[SL]], %{{.*}}) {dim = 1 : i64, end = 1 : i64, operand_segments
// CHECK: exir.aten "aten::slice_scatter"(%{{.*}}, %[[IN]]) {dim = 1 : i64, end = 3 : i64, exir.inplace_of = 0 : i64
// WB-LABEL: func.func @copy_into_slice
// WB-NOT: exir.copy_
// WB: return
func.func @copy_into_slice(%k: tensor<4x1xf32> {exir.input = #exir.input<user_input, "k">},
                           %cache: tensor<4x4xf32> {exir.input = #exir.input<buffer, "cache">})
    -> (tensor<4x4xf32> {exir.output = #exir.output<buffer_mutation, "cache">},
        tensor<4x4xf32> {exir.output = #exir.output<user_output>}) {
  %sl = exir.aten "aten::slice.Tensor"(%cache) {dim = 1 : i64, start = 2 : i64, end = 3 : i64, operand_segments = array<i32: 1>} : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %in = exir.aten "aten::slice_scatter"(%sl, %k) {dim = 1 : i64, start = 0 : i64, end = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = exir.aten "aten::slice_scatter"(%cache, %in) {dim = 1 : i64, start = 2 : i64, end = 3 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = exir.aten "aten::neg"(%n) {operand_segments = array<i32: 1>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %n, %o : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// The old cache is read after the update: no in-place update, and the copy
// goes after that read.

// CHECK-LABEL: func.func @old_value_read_later
// CHECK-SAME: exir.reinplace_state = {marked = 0 : i64}
// CHECK-NOT: exir.inplace_of
// WB-LABEL: func.func @old_value_read_later
// WB: %[[N:.*]] = exir.aten "aten::slice_scatter"
// WB-NEXT: exir.aten "aten::mm"
// WB-NEXT: exir.copy_ %{{.*}}, %[[N]]
// WB-NEXT: exir.aten "aten::neg"
func.func @old_value_read_later(%k: tensor<4x1xf32> {exir.input = #exir.input<user_input, "k">},
                                %q: tensor<4x4xf32> {exir.input = #exir.input<user_input, "q">},
                                %cache: tensor<4x4xf32> {exir.input = #exir.input<buffer, "cache">})
    -> (tensor<4x4xf32> {exir.output = #exir.output<buffer_mutation, "cache">},
        tensor<4x4xf32> {exir.output = #exir.output<user_output>}) {
  %n = exir.aten "aten::slice_scatter"(%cache, %k) {dim = 1 : i64, start = 2 : i64, end = 3 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %s = exir.aten "aten::mm"(%q, %cache) {operand_segments = array<i32: 1, 1>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %o = exir.aten "aten::neg"(%s) {operand_segments = array<i32: 1>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %n, %o : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A view of the old cache taken before the update but read after it also
// blocks the update.

// CHECK-LABEL: func.func @old_view_read_later
// CHECK-NOT: exir.inplace_of
// CHECK: return
func.func @old_view_read_later(%k: tensor<4x1xf32> {exir.input = #exir.input<user_input, "k">},
                               %cache: tensor<4x4xf32> {exir.input = #exir.input<buffer, "cache">})
    -> (tensor<4x4xf32> {exir.output = #exir.output<buffer_mutation, "cache">},
        tensor<4x4xf32> {exir.output = #exir.output<user_output>}) {
  %t = exir.aten "aten::t"(%cache) {operand_segments = array<i32: 1>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %n = exir.aten "aten::slice_scatter"(%cache, %k) {dim = 1 : i64, start = 2 : i64, end = 3 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = exir.aten "aten::neg"(%t) {operand_segments = array<i32: 1>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %n, %o : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// The update's source is a view of the cache itself: writing in place would
// overwrite what it reads.

// CHECK-LABEL: func.func @source_aliases_state
// CHECK-NOT: exir.inplace_of
// CHECK: return
func.func @source_aliases_state(%cache: tensor<4x4xf32> {exir.input = #exir.input<buffer, "cache">})
    -> (tensor<4x4xf32> {exir.output = #exir.output<buffer_mutation, "cache">}) {
  %sl = exir.aten "aten::slice.Tensor"(%cache) {dim = 1 : i64, start = 0 : i64, end = 1 : i64, operand_segments = array<i32: 1>} : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %n = exir.aten "aten::slice_scatter"(%cache, %sl) {dim = 1 : i64, start = 2 : i64, end = 3 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  return %n : tensor<4x4xf32>
}

// -----

// A method output that is the old cache (here a view of it) must keep the old
// contents.

// CHECK-LABEL: func.func @old_value_is_an_output
// CHECK-NOT: exir.inplace_of
// CHECK: return
func.func @old_value_is_an_output(%k: tensor<4x1xf32> {exir.input = #exir.input<user_input, "k">},
                                  %cache: tensor<4x4xf32> {exir.input = #exir.input<buffer, "cache">})
    -> (tensor<4x4xf32> {exir.output = #exir.output<buffer_mutation, "cache">},
        tensor<4x4xf32> {exir.output = #exir.output<user_output>}) {
  %v = exir.aten "aten::alias"(%cache) {operand_segments = array<i32: 1>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %n = exir.aten "aten::slice_scatter"(%cache, %k) {dim = 1 : i64, start = 2 : i64, end = 3 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  return %n, %v : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A chain whose second link is blocked (the first link's value is read after
// it): only the first link is in place, and the copy of the second link's
// value waits for that read.

// CHECK-LABEL: func.func @chain_blocked_midway
// CHECK-SAME: exir.reinplace_state = {marked = 1 : i64}
// CHECK: %[[A:.*]] = exir.aten "aten::index_copy"({{.*}}) {dim = 0 : i64, exir.inplace_of = 0 : i64
// CHECK: %[[B:.*]] = exir.aten "aten::copy"(%[[A]], %{{.*}}) {operand_segments
// WB-LABEL: func.func @chain_blocked_midway
// WB: %[[A:.*]] = exir.aten "aten::index_copy"
// WB-NEXT: %[[B:.*]] = exir.aten "aten::copy"(%[[A]],
// WB-NEXT: exir.aten "aten::neg"(%[[A]])
// WB-NEXT: exir.copy_ %{{.*}}, %[[B]]
// WB-NEXT: return
func.func @chain_blocked_midway(%idx: tensor<1xi64> {exir.input = #exir.input<user_input, "idx">},
                                %src: tensor<1x4xf32> {exir.input = #exir.input<user_input, "src">},
                                %full: tensor<8x4xf32> {exir.input = #exir.input<user_input, "full">},
                                %cache: tensor<8x4xf32> {exir.input = #exir.input<buffer, "cache">})
    -> (tensor<8x4xf32> {exir.output = #exir.output<buffer_mutation, "cache">},
        tensor<8x4xf32> {exir.output = #exir.output<user_output>}) {
  %a = exir.aten "aten::index_copy"(%cache, %idx, %src) {dim = 0 : i64, operand_segments = array<i32: 1, 1, 1>} : (tensor<8x4xf32>, tensor<1xi64>, tensor<1x4xf32>) -> tensor<8x4xf32>
  %b = exir.aten "aten::copy"(%a, %full) {operand_segments = array<i32: 1, 1>} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %o = exir.aten "aten::neg"(%a) {operand_segments = array<i32: 1>} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %b, %o : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// A user input mutated by a functional update is handled like a buffer; an
// update of state that is not written back is left alone.

// CHECK-LABEL: func.func @user_input_and_unrelated
// CHECK-SAME: exir.reinplace_state = {marked = 1 : i64}
// CHECK: exir.aten "aten::select_scatter"(%{{.*}}, %{{.*}}) {dim = 0 : i64, exir.inplace_of = 0 : i64
// CHECK: exir.aten "aten::slice_scatter"(%{{.*}}, %{{.*}}) {dim = 0 : i64, end = 1 : i64, operand_segments
// WB-LABEL: func.func @user_input_and_unrelated
// WB-NOT: exir.copy_
// WB: return
func.func @user_input_and_unrelated(%x: tensor<2x4xf32> {exir.input = #exir.input<user_input, "x">},
                                    %row: tensor<4xf32> {exir.input = #exir.input<user_input, "row">},
                                    %b: tensor<2x4xf32> {exir.input = #exir.input<buffer, "b">})
    -> (tensor<2x4xf32> {exir.output = #exir.output<user_input_mutation, "x">},
        tensor<2x4xf32> {exir.output = #exir.output<user_output>}) {
  %nx = exir.aten "aten::select_scatter"(%x, %row) {dim = 0 : i64, index = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %r2 = exir.aten "aten::view"(%row) {size = array<i64: 1, 4>, operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<1x4xf32>
  %nb = exir.aten "aten::slice_scatter"(%b, %r2) {dim = 0 : i64, start = 0 : i64, end = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  return %nx, %nb : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Regression: the first link of a chain is also a user output. Making it in
// place would make that output share the cache's storage, and the second
// link (or the write-back of its value) would then overwrite what the caller
// reads. Nothing is marked; the copy of the final value comes after the
// return's value is computed and leaves it untouched.

// CHECK-LABEL: func.func @intermediate_is_user_output
// CHECK-SAME: exir.reinplace_state = {marked = 0 : i64}
// CHECK-NOT: exir.inplace_of
// CHECK: return
// WB-LABEL: func.func @intermediate_is_user_output
// WB: %[[A:.*]] = exir.aten "aten::slice_scatter"
// WB-NEXT: %[[B:.*]] = exir.aten "aten::slice_scatter"(%[[A]],
// WB-NEXT: exir.copy_ %{{.*}}, %[[B]]
// WB-NEXT: return %[[A]]
func.func @intermediate_is_user_output(%k: tensor<4x1xf32> {exir.input = #exir.input<user_input, "k">},
                                       %v: tensor<4x1xf32> {exir.input = #exir.input<user_input, "v">},
                                       %cache: tensor<4x4xf32> {exir.input = #exir.input<buffer, "cache">})
    -> (tensor<4x4xf32> {exir.output = #exir.output<buffer_mutation, "cache">},
        tensor<4x4xf32> {exir.output = #exir.output<user_output>}) {
  %a = exir.aten "aten::slice_scatter"(%cache, %k) {dim = 1 : i64, start = 0 : i64, end = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %b = exir.aten "aten::slice_scatter"(%a, %v) {dim = 1 : i64, start = 1 : i64, end = 2 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  return %b, %a : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// The same with the intermediate value written back into ANOTHER buffer:
// it is observable through that buffer, so it keeps its own storage.

// CHECK-LABEL: func.func @intermediate_is_other_state
// CHECK-SAME: exir.reinplace_state = {marked = 0 : i64}
// CHECK-NOT: exir.inplace_of
// CHECK: return
func.func @intermediate_is_other_state(%k: tensor<4x1xf32> {exir.input = #exir.input<user_input, "k">},
                                       %v: tensor<4x1xf32> {exir.input = #exir.input<user_input, "v">},
                                       %cache: tensor<4x4xf32> {exir.input = #exir.input<buffer, "cache">},
                                       %snap: tensor<4x4xf32> {exir.input = #exir.input<buffer, "snap">})
    -> (tensor<4x4xf32> {exir.output = #exir.output<buffer_mutation, "cache">},
        tensor<4x4xf32> {exir.output = #exir.output<buffer_mutation, "snap">}) {
  %a = exir.aten "aten::slice_scatter"(%cache, %k) {dim = 1 : i64, start = 0 : i64, end = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %b = exir.aten "aten::slice_scatter"(%a, %v) {dim = 1 : i64, start = 1 : i64, end = 2 : i64, operand_segments = array<i32: 1, 1>} : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  return %b, %a : tensor<4x4xf32>, tensor<4x4xf32>
}
