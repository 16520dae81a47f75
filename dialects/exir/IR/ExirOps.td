//===- ExirOps.td - exir operations ------------------------*- tablegen -*-===//

#ifndef PTEC_EXIR_OPS_TD
#define PTEC_EXIR_OPS_TD

include "dialects/exir/IR/ExirBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/RegionKindInterface.td"

class Exir_Op<string mnemonic, list<Trait> traits = []>
    : Op<Exir_Dialect, mnemonic, traits>;

def Exir_CompileSpecAttr : Exir_Attr<"CompileSpec", "compile_spec"> {
  let summary = "one backend compile spec: key and raw value bytes";
  let parameters = (ins "::mlir::StringAttr":$key, "::mlir::StringAttr":$value);
  let assemblyFormat = "`<` $key `,` $value `>`";
}

//===----------------------------------------------------------------------===//
// Weights
//===----------------------------------------------------------------------===//

def Exir_WeightOp : Exir_Op<"weight", [Symbol, IsolatedFromAbove]> {
  let summary = "program-level weight, buffer or constant, keyed by its fqn";
  let description = [{
    Holds the bytes of a parameter, buffer or lifted constant, normally as a
    `dense_resource` blob so large data never goes through attributes. Methods
    receive the tensor as an argument whose `#exir.input` names this symbol.
    `kind` is `parameter`, `buffer` or `constant`; `mutable` marks buffers that
    some method writes.

    ```mlir
    exir.weight @"fc.weight" "parameter" = dense_resource<fc_weight> : tensor<16x32xf32>
    exir.weight @count "buffer" mutable = dense_resource<count> : tensor<i64>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$kind,
                       UnitAttr:$is_mutable, ElementsAttr:$value);
  let assemblyFormat = "$sym_name $kind (`mutable` $is_mutable^)? attr-dict `=` $value";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// ATen operators
//===----------------------------------------------------------------------===//

def Exir_AtenOp : Exir_Op<"aten", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "one ATen operator overload, checked against the schema registry";
  let description = [{
    `op_name` is the qualified overload (`aten::add.Tensor`; no overload for the
    default one). Tensor-like schema arguments (`Tensor`, `Tensor?`, `Tensor[]`,
    `Tensor?[]`) are operands, in schema order; `operand_segments` gives the
    number of operands of each tensor-like argument (0 for a None `Tensor?`).
    For a `Tensor?[]` argument, a `DenseBoolArrayAttr` under the argument's
    name marks which list elements are present. Every other schema argument is
    a named attribute under its schema name: integers `i64`, floats `f64`,
    booleans, strings, `array<i64: ...>` for int lists, a `TypeAttr` for dtypes,
    a string for layouts, memory formats and devices, `#exir.none` for None.

    Dynamic shapes: a `SymInt` argument (or element of a `SymInt[]`) whose
    value is only known at run time is an `i64` operand after the tensor
    operands, bound by the `exir.sym_args` string array ("size[1]" for
    element 1 of `size`, "end" for a scalar), one entry per such operand in
    order. The attribute itself then holds the value at the shapes' upper
    bounds, so shape rules and memory planning see the largest program.

    ```mlir
    %v = exir.aten "aten::view"(%x, %s) {size = array<i64: 1, 32, 4, 8>,
           exir.sym_args = ["size[1]"], operand_segments = array<i32: 1>}
           : (tensor<1x32x32xf32>, i64) -> tensor<1x32x4x8xf32>
    ```

    ```mlir
    %y = exir.aten "aten::add.Tensor"(%a, %b) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>}
           : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins StrAttr:$op_name, Variadic<AnyType>:$inputs,
                       DenseI32ArrayAttr:$operand_segments);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $op_name `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The registry schema of this op, or null when unknown.
    const ::ptec::schema::FunctionSchema *getSchema();
    /// The schema half of verify(): the operator exists, operands and
    /// attributes match its arguments, the result count its returns.
    ::mlir::LogicalResult verifySchema();
    /// Operands of schema argument `argIndex` (must be tensor-like).
    ::mlir::OperandRange getArgOperands(unsigned argIndex);
    /// Index of the tensor-like schema argument operand `operandIndex` belongs
    /// to, or -1 when the op has no schema.
    int getSchemaArgForOperand(unsigned operandIndex);
    /// Operand that result `resultIndex` shares storage with, from the
    /// schema's alias annotations (`-> Tensor(a!)` of an out or in-place op,
    /// `-> Tensor(a)` of a view), or null when the result is fresh or the op
    /// has no schema.
    ::mlir::Value getAliasedOperand(unsigned resultIndex);
    /// Tensor operands (the ones operand_segments counts), then the
    /// symbolic-int operands named by `exir.sym_args`.
    unsigned getNumTensorInputs();
    ::mlir::OperandRange getTensorInputs() {
      return getInputs().take_front(getNumTensorInputs());
    }
    ::mlir::OperandRange getSymOperands() {
      return getInputs().drop_front(getNumTensorInputs());
    }
    /// The `exir.sym_args` bindings, parallel to getSymOperands().
    ::mlir::ArrayAttr getSymArgs();
    /// Non-tensor argument value by schema name, or null when absent.
    ::mlir::Attribute getArgAttr(::llvm::StringRef name) {
      return (*this)->getAttr(name);
    }
  }];
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$opName, "::mlir::TypeRange":$resultTypes,
                   "::mlir::ValueRange":$inputs,
                   "::llvm::ArrayRef<int32_t>":$segments,
                   "::llvm::ArrayRef<::mlir::NamedAttribute>":$args)>,
    OpBuilder<(ins "::mlir::StringAttr":$opName, "::mlir::TypeRange":$resultTypes,
                   "::mlir::ValueRange":$inputs,
                   "::llvm::ArrayRef<int32_t>":$segments,
                   "::llvm::ArrayRef<::mlir::NamedAttribute>":$args)>
  ];
}

//===----------------------------------------------------------------------===//
// Symbolic sizes (dynamic shapes)
//===----------------------------------------------------------------------===//

def Exir_SymSizeOp : Exir_Op<"sym_size", [Pure]> {
  let summary = "the run-time size of one dimension of a tensor";
  let description = [{
    Emitted as the prim op `aten::sym_size.int`, which writes the size into a
    placeholder `Int` value at run time.

    ```mlir
    %s = exir.sym_size %x, 1 : tensor<1x32x32xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, I64Attr:$dim);
  let results = (outs I64:$result);
  let assemblyFormat = "$input `,` $dim attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Exir_SymItemOp : Exir_Op<"sym_item", [Pure]> {
  let summary = "the run-time value of a one-element integer tensor";
  let description = [{
    What `x.item()` is in an exported graph (`aten::item` /
    `aten::_local_scalar_dense`): a data-dependent symbolic int. Emitted as
    the prim op `aten::_local_scalar_dense`, which writes the element into a
    placeholder `Int` value at run time.

    ```mlir
    %u = exir.sym_item %pos : tensor<i64>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs I64:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Exir_SymConstOp : Exir_Op<"sym_const", [Pure]> {
  let summary = "a literal operand of symbolic size arithmetic";
  let arguments = (ins I64Attr:$value);
  let results = (outs I64:$result);
  let assemblyFormat = "$value attr-dict";
}

def Exir_SymOp : Exir_Op<"sym", [Pure]> {
  let summary = "integer arithmetic on symbolic sizes";
  let description = [{
    `fn` is one of add, sub, mul, floordiv, mod (Python semantics: rounding
    toward negative infinity), max, min (two operands) or neg (one). Emitted
    as the prim op `executorch_prim::<fn>.Scalar` (`sym_max`, `sym_min` for
    max and min).

    ```mlir
    %n = exir.sym "mul"(%s, %c) : (i64, i64) -> i64
    ```
  }];
  let arguments = (ins StrAttr:$fn, Variadic<I64>:$args);
  let results = (outs I64:$result);
  let assemblyFormat = "$fn `(` $args `)` attr-dict `:` functional-type($args, $result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// State: write-back copies and planned allocations
//===----------------------------------------------------------------------===//

def Exir_CopyOp : Exir_Op<"copy_", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "write `src` into the storage of `dst` (mutable state write-back)";
  let description = [{
    Placed by write-back placement for each buffer or user-input mutation, at
    the earliest point that keeps the end-of-method meaning. Emitted as the
    ExecuTorch kernel `aten::copy_`.

    ```mlir
    exir.copy_ %count, %next : tensor<i64>, tensor<i64>
    ```
  }];
  let arguments = (ins Arg<AnyType, "", [MemWrite]>:$dst,
                       Arg<AnyType, "", [MemRead]>:$src);
  let assemblyFormat = "$dst `,` $src attr-dict `:` type($dst) `,` type($src)";
  let hasVerifier = 1;
}

def Exir_AllocOp : Exir_Op<"alloc", [MemoryEffects<[MemAlloc]>]> {
  let summary = "a fresh memory-planned tensor (the `out` of an out-variant)";
  let description = [{
    Memory planning sets `exir.mem = #exir.mem<arena, offset, size>`.

    ```mlir
    %out = exir.alloc : tensor<4x16xf32>
    ```
  }];
  let results = (outs AnyType:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Delegation
//===----------------------------------------------------------------------===//

def Exir_YieldOp : Exir_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["DelegateRegionOp", "CondOp", "WhileOp"]>]> {
  let summary = "results of a delegate region or of a control-flow region";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* no values */ }]>];
}

def Exir_DelegateRegionOp : Exir_Op<"delegate_region", [
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "a group of ops claimed by one backend (implicit capture)";
  let description = [{
    The first stage of partitioning: ops a backend accepts are grouped here,
    using values from above. Outlining turns each region into an
    `exir.lowered_module` and an `exir.delegate_call`.

    ```mlir
    %r = exir.delegate_region "BackendWithCompilerDemo" {
      %s = exir.aten "aten::sin"(%x) ...
      exir.yield %s : tensor<2x2xf32>
    } : tensor<2x2xf32>
    ```
  }];
  let arguments = (ins StrAttr:$backend);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$backend attr-dict-with-keyword $body `:` type($results)";
  let hasVerifier = 1;
}

def Exir_LoweredModuleOp : Exir_Op<"lowered_module", [Symbol, IsolatedFromAbove]> {
  let summary = "a region compiled by a backend: blob, specs, sharing, scratch";
  let description = [{
    The result of a backend's ahead-of-time `preprocess`. One lowered module
    is created per outlined region, however many times it is called. When
    `share_handle_across_calls` is set and `scratch` is empty, all calls in one
    method share one delegate entry (one `init`). `named_data` maps keys
    the blob refers to (string attributes holding the bytes) to the program's
    named data, which every delegate and method naming a key shares.

    ```mlir
    exir.lowered_module @demo_0 {backend = "BackendWithCompilerDemo",
        blob = "1version:0#op:demo::aten.sin.default, numel:4, dtype:torch.float32<debug_handle>1#",
        compile_specs = [#exir.compile_spec<"max_value", "\04">],
        function_type = (tensor<2x2xf32>) -> tensor<2x2xf32>,
        share_handle_across_calls, scratch = []}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$backend,
                       StrAttr:$blob,
                       TypedArrayAttrBase<Exir_CompileSpecAttr, "compile specs">:$compile_specs,
                       TypeAttrOf<FunctionType>:$function_type,
                       UnitAttr:$share_handle_across_calls,
                       DefaultValuedAttr<TypedArrayAttrBase<Exir_ScratchSpecAttr,
                           "scratch specs">, "{}">:$scratch,
                       OptionalAttr<DictionaryAttr>:$named_data);
  let assemblyFormat = "$sym_name attr-dict";
  let extraClassDeclaration = [{
    /// True when every call of this module in one method may use one delegate
    /// entry: the backend opted in and declared no scratch.
    bool sharesHandle() {
      return getShareHandleAcrossCalls() && getScratch().empty();
    }
  }];
}

def Exir_DelegateCallOp : Exir_Op<"delegate_call", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "call a lowered module with this call site's arguments";
  let description = [{
    ```mlir
    %y = exir.delegate_call @demo_0(%x) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$operands);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, $results)
  }];
}

//===----------------------------------------------------------------------===//
// Control flow (torch.ops.higher_order.cond / while_loop)
//===----------------------------------------------------------------------===//

def Exir_CondOp : Exir_Op<"cond", [RecursiveMemoryEffects]> {
  let summary = "run one of two regions, chosen by a boolean tensor";
  let description = [{
    `torch.ops.higher_order.cond`. `pred` is a `tensor<i1>` (rank 0). Both
    regions take the `inputs` as block arguments (they also may use values
    from above) and end in `exir.yield` of the op's result types. The
    emitter inlines both regions into the method's chain with
    `JumpFalseCall`s and moves the taken branch's results into the op's
    result values with `MoveCall` (docs/ir.md, "Control flow").

    ```mlir
    %r = exir.cond %p (%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%a: tensor<4xf32>):
      %s = exir.aten "aten::sin"(%a) ...
      exir.yield %s : tensor<4xf32>
    } {
    ^bb0(%a: tensor<4xf32>):
      %c = exir.aten "aten::cos"(%a) ...
      exir.yield %c : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins AnyRankedTensor:$pred, Variadic<AnyType>:$inputs);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$then_region, SizedRegion<1>:$else_region);
  let assemblyFormat = [{
    $pred `(` $inputs `)` attr-dict `:` type($pred) `,` functional-type($inputs, $results)
    $then_region $else_region
  }];
  let hasVerifier = 1;
}

def Exir_WhileOp : Exir_Op<"while", [RecursiveMemoryEffects, AttrSizedOperandSegments]> {
  let summary = "repeat a body region while a condition region yields true";
  let description = [{
    `torch.ops.higher_order.while_loop`. Both regions take the carried
    values, then the extra (loop-invariant) values, as block arguments. The
    condition region yields one `tensor<i1>` (rank 0); the body yields the
    next carried values. The results are the carried values when the
    condition first yields false (the initial ones for zero iterations).
    Memory planning gives each result its own storage (`exir.mems`); the
    emitter copies the initial values and each iteration's body results
    there (docs/ir.md, "Control flow").

    ```mlir
    %r = exir.while (%i0) (%n) : (tensor<i64>, tensor<i64>) -> tensor<i64> {
    ^bb0(%i: tensor<i64>, %m: tensor<i64>):
      %lt = exir.aten "aten::lt.Tensor"(%i, %m) ...
      exir.yield %lt : tensor<i1>
    } {
    ^bb0(%i: tensor<i64>, %m: tensor<i64>):
      %j = exir.aten "aten::add.Scalar"(%i) ...
      exir.yield %j : tensor<i64>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$carried, Variadic<AnyType>:$extra);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$cond_region, SizedRegion<1>:$body_region);
  let assemblyFormat = [{
    `(` $carried `)` `(` $extra `)` attr-dict `:` functional-type(operands, results)
    $cond_region $body_region
  }];
  let hasVerifier = 1;
}

#endif // PTEC_EXIR_OPS_TD
