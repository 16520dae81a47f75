// RUN: ptec-opt %s --split-input-file --verify-diagnostics

func.func @unknown_op(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{unknown operator 'aten::frobnicate': ptec does not know it}}
  %y = exir.aten "aten::frobnicate"(%x) {operand_segments = array<i32: 1>} : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @missing_operand(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{operand_segments has 1 entries but 'aten::mm' has more tensor arguments (missing 'mat2')}}
  %y = exir.aten "aten::mm"(%x) {operand_segments = array<i32: 1>} : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @wrong_attr_kind(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{argument 'alpha' expects Scalar, got "one"}}
  %y = exir.aten "aten::add.Tensor"(%x, %x) {alpha = "one", operand_segments = array<i32: 1, 1>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @stray_attr(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'aten::relu' has no argument named 'inplace'}}
  %y = exir.aten "aten::relu"(%x) {inplace = true, operand_segments = array<i32: 1>} : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @wrong_result_count(%x: tensor<2xf32>) {
  // expected-error @+1 {{'aten::relu' returns 1 values, op has 0 results}}
  exir.aten "aten::relu"(%x) {operand_segments = array<i32: 1>} : (tensor<2xf32>) -> ()
  return
}

// -----

// expected-error @+1 {{unknown graph input kind 'weights'}}
func.func @bad_input_kind(%x: tensor<2xf32> {exir.input = #exir.input<weights, "w">}) {
  return
}

// -----

func.func @copy_mismatch(%a: tensor<2xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{shape mismatch}}
  exir.copy_ %a, %b : tensor<2xf32>, tensor<3xf32>
  return
}

// -----

func.func @bad_callee(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'nope' does not name an exir.lowered_module}}
  %y = exir.delegate_call @nope(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @inplace_of_out_of_range(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{exir.inplace_of must be the index of an operand of an op with one result}}
  %y = exir.aten "aten::neg"(%x) {exir.inplace_of = 3 : i64, operand_segments = array<i32: 1>} : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @inplace_of_type_mismatch(%x: tensor<2x2xf32>, %k: tensor<2x1xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{exir.inplace_of names operand 1 of type 'tensor<2x1xf32>', but the result is 'tensor<2x2xf32>'}}
  %y = exir.aten "aten::slice_scatter"(%x, %k) {dim = 1 : i64, start = 0 : i64, end = 1 : i64, exir.inplace_of = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// Symbolic-int operands (dynamic shapes) must each be bound by exir.sym_args.
func.func @sym_unbound(%x: tensor<8xf32>, %s: i64) -> tensor<8xf32> {
  // expected-error @+1 {{has 1 symbolic operands but exir.sym_args binds 0}}
  %y = exir.aten "aten::view"(%x, %s) {size = array<i64: 8>, operand_segments = array<i32: 1>} : (tensor<8xf32>, i64) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func @sym_bad_target(%x: tensor<8xf32>, %s: i64) -> tensor<8xf32> {
  // expected-error @+1 {{exir.sym_args entry 'size[1]' does not name an int list element of the op}}
  %y = exir.aten "aten::view"(%x, %s) {size = array<i64: 8>, exir.sym_args = ["size[1]"], operand_segments = array<i32: 1>} : (tensor<8xf32>, i64) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func @sym_names_tensor(%x: tensor<8xf32>, %s: i64) -> tensor<8xf32> {
  // expected-error @+1 {{exir.sym_args names 'self', which is not a non-tensor argument of 'aten::view'}}
  %y = exir.aten "aten::view"(%x, %s) {size = array<i64: 8>, exir.sym_args = ["self"], operand_segments = array<i32: 1>} : (tensor<8xf32>, i64) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func @sym_size_dim(%x: tensor<8xf32>) -> i64 {
  // expected-error @+1 {{dim 1 is out of range for a rank-1 tensor}}
  %s = exir.sym_size %x, 1 : tensor<8xf32>
  return %s : i64
}

// -----

func.func @sym_fn(%a: i64) -> i64 {
  // expected-error @+1 {{unknown symbolic function 'pow'}}
  %s = exir.sym "pow"(%a, %a) : (i64, i64) -> i64
  return %s : i64
}

// -----

func.func @sym_arity(%a: i64) -> i64 {
  // expected-error @+1 {{'mul' takes 2 operands, got 1}}
  %s = exir.sym "mul"(%a) : (i64) -> i64
  return %s : i64
}

// -----

func.func @sym_item_float(%x: tensor<f32>) -> i64 {
  // expected-error @+1 {{needs an integer tensor (a symbolic int), got 'f32'}}
  %s = exir.sym_item %x : tensor<f32>
  return %s : i64
}

// -----

func.func @sym_item_many(%x: tensor<2xi64>) -> i64 {
  // expected-error @+1 {{needs a tensor of exactly one element, got 'tensor<2xi64>'}}
  %s = exir.sym_item %x : tensor<2xi64>
  return %s : i64
}
