//===- Passes.td - ptec transformation passes --------------*- tablegen -*-===//
//
// Every pass of the pipeline, in pipeline order. One pass per .cpp file, one
// lit test file per pass under test/lit/passes/.
//
//===----------------------------------------------------------------------===//

#ifndef PTEC_PASSES_TD
#define PTEC_PASSES_TD

include "mlir/Pass/PassBase.td"

def LegalizeToCoreAten : Pass<"exir-legalize-to-core", "mlir::ModuleOp"> {
  let summary = "Decompose training-IR and composite ops into core ATen";
  let description = [{
    Rewrites non-core operators (linear, conv2d, batch_norm, layer_norm,
    dropout in eval mode, matmul, flatten, reshape/view family,
    scaled_dot_product_attention, ...) into core ATen operators, turns views
    into their `_copy` forms and drops no-ops (detach, alias, eval dropout).
  }];
  let dependentDialects = ["ptec::exir::ExirDialect"];
}

def ReinplaceState : Pass<"exir-reinplace-state", "mlir::ModuleOp"> {
  let summary = "Turn functional updates of mutable buffers into in-place ops";
  let description = [{
    The KV-cache pattern (index_put / slice_scatter / copy into a slice of a
    mutated buffer) becomes the in-place form with the storage-sharing
    annotation `exir.inplace_of`, when no later reader needs the old value.
  }];
}

def PlaceWriteBack : Pass<"exir-place-write-back", "mlir::ModuleOp"> {
  let summary = "Insert exir.copy_ for mutated state at the earliest safe point";
  let description = [{
    For each buffer_mutation / user_input_mutation output, inserts
    `exir.copy_(state, value)` right after the last of: the op computing the
    value, every reader of the state or its aliases, every mutation of the
    value or its aliases. Dependent copies fall back to end-of-method order.
    The mutation outputs are then removed from the method's results.
  }];
  let options = [
    Option<"atEnd", "at-end", "bool", /*default=*/"false",
           "Place every copy right before the return (baseline for comparison)">
  ];
}

def Partition : Pass<"exir-partition", "mlir::ModuleOp"> {
  let summary = "Group ops a backend accepts into exir.delegate_region ops";
  let options = [
    ListOption<"backends", "backends", "std::string",
               "Backends to partition for, in priority order">
  ];
}

def OutlineDelegates : Pass<"exir-outline-delegates", "mlir::ModuleOp"> {
  let summary = "Outline delegate regions into lowered modules and calls";
  let description = [{
    Each region becomes an `exir.lowered_module` (via the backend's
    preprocess) and an `exir.delegate_call`. A function called several times
    is lowered once: all its call sites call the same lowered module.
  }];
}

def ToOutVariants : Pass<"exir-to-out-variants", "mlir::ModuleOp"> {
  let summary = "Rewrite functional ATen ops to their .out forms with exir.alloc";
  let description = [{
    Every op left on the portable CPU path becomes its out-variant writing into
    an `exir.alloc`. Ops with no out-variant or no portable kernel are all
    reported together, each with its source location.
  }];
}

def PlanMemory : Pass<"exir-plan-memory", "mlir::ModuleOp"> {
  let summary = "Assign arena offsets to planned tensors (exir.mem)";
  let options = [
    Option<"algorithm", "algorithm", "std::string", /*default=*/"\"best\"",
           "greedy, best-fit, first-fit or best (smallest of all)">
  ];
}

#endif // PTEC_PASSES_TD
