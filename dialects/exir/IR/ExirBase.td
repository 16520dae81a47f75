//===- ExirBase.td - exir dialect and attributes -----------*- tablegen -*-===//
//
// The exir dialect models an ExecuTorch program at the ATen level: one
// builtin.module per program, one func.func per method.
//
//===----------------------------------------------------------------------===//

#ifndef PTEC_EXIR_BASE_TD
#define PTEC_EXIR_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def Exir_Dialect : Dialect {
  let name = "exir";
  let cppNamespace = "::ptec::exir";
  let summary = "ExecuTorch program IR at the ATen operator level";
  let description = [{
    Methods are functions. Graph-input kinds and fully qualified names are
    argument attributes (`exir.input`), output kinds are result attributes
    (`exir.output`). ATen operators are one generic op, `exir.aten`, that names
    its overload and is checked against the operator schema registry.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 0;
  let extraClassDeclaration = [{
    /// Name of the argument attribute carrying an #exir.input.
    static constexpr llvm::StringLiteral kInputAttrName = "exir.input";
    /// Name of the result attribute carrying an #exir.output.
    static constexpr llvm::StringLiteral kOutputAttrName = "exir.output";
    /// Name of the module attribute with the IR schema version ("major.minor").
    static constexpr llvm::StringLiteral kVersionAttrName = "exir.version";

    /// Whether the exir.aten verifier also runs the shape rules
    /// (ShapeRules.h), so that every verification (after each pass, after
    /// parsing) checks them. On by default in debug builds.
    bool semanticChecksEnabled() const { return semanticChecks; }
    void setSemanticChecks(bool on) { semanticChecks = on; }

    /// The schema of an exir.aten op name (null if unknown), cached per name:
    /// the registry's lookup parses and allocates, and passes ask for the
    /// schema of every op many times.
    const ::ptec::schema::FunctionSchema *lookupSchema(::mlir::StringAttr opName);

  private:
    bool semanticChecks = kSemanticChecksByDefault;
    ::llvm::DenseMap<::mlir::StringAttr, const ::ptec::schema::FunctionSchema *> schemaCache;
    ::llvm::sys::SmartRWMutex<true> schemaCacheMutex; // passes may run in threads

  public:
  }];
}

class Exir_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Exir_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// A StringAttr written as a bare keyword (`parameter`), not a quoted string.
def Exir_KeywordParameter : AttrParameter<"::mlir::StringAttr", "keyword"> {
  let parser = [{ [&]() -> ::mlir::FailureOr<::mlir::StringAttr> {
    std::string s;
    if ($_parser.parseKeywordOrString(&s))
      return ::mlir::failure();
    return ::mlir::StringAttr::get($_parser.getContext(), s);
  }() }];
  let printer = [{ $_printer << $_self.getValue(); }];
}

def Exir_InputAttr : Exir_Attr<"Input", "input"> {
  let summary = "kind and fully qualified name of a graph input";
  let description = [{
    `kind` is one of `user_input`, `parameter`, `buffer`, `constant`,
    `custom_obj`. `fqn` is the state-dict name (empty for user inputs).

    ```mlir
    %w: tensor<16x32xf32> {exir.input = #exir.input<parameter, "fc.weight">}
    ```
  }];
  let parameters = (ins Exir_KeywordParameter:$kind,
                        OptionalParameter<"::mlir::StringAttr">:$fqn);
  let assemblyFormat = "`<` $kind (`,` $fqn^)? `>`";
  let genVerifyDecl = 1;
}

def Exir_OutputAttr : Exir_Attr<"Output", "output"> {
  let summary = "kind of a method output and the state it writes back";
  let description = [{
    `kind` is one of `user_output`, `buffer_mutation`, `user_input_mutation`.
    `target` names the mutated buffer (fqn) or user input (argument name).

    ```mlir
    -> (tensor<i64> {exir.output = #exir.output<buffer_mutation, "count">})
    ```
  }];
  let parameters = (ins Exir_KeywordParameter:$kind,
                        OptionalParameter<"::mlir::StringAttr">:$target);
  let assemblyFormat = "`<` $kind (`,` $target^)? `>`";
  let genVerifyDecl = 1;
}

def Exir_NoneAttr : Exir_Attr<"None", "none"> {
  let summary = "an explicit None argument";
}

def Exir_MemAttr : Exir_Attr<"Mem", "mem"> {
  let summary = "memory-planned location: arena id and byte offset";
  let description = [{
    Set by memory planning. `id` 0 is reserved (constants); planned arenas
    start at 1. `size` is the planned (16-byte rounded) size in bytes.

    ```mlir
    %0 = exir.alloc {exir.mem = #exir.mem<1, 64, 128>} : tensor<4x8xf32>
    ```
  }];
  let parameters = (ins "int64_t":$id, "int64_t":$offset, "int64_t":$size);
  let assemblyFormat = "`<` $id `,` $offset `,` $size `>`";
}

def Exir_ScratchSpecAttr : Exir_Attr<"ScratchSpec", "scratch"> {
  let summary = "scratch memory a lowered module asks for at each call";
  let parameters = (ins "int64_t":$size, "int64_t":$alignment);
  let assemblyFormat = "`<` $size `,` $alignment `>`";
}

#endif // PTEC_EXIR_BASE_TD
