//===- Passes.td - ptec transformation passes --------------*- tablegen -*-===//
//
// Every pass of the pipeline, in pipeline order. One pass per .cpp file, one
// lit test file per pass under test/lit/passes/.
//
//===----------------------------------------------------------------------===//

#ifndef PTEC_PASSES_TD
#define PTEC_PASSES_TD

include "mlir/Pass/PassBase.td"

def Functionalize : Pass<"exir-functionalize", "mlir::ModuleOp"> {
  let summary = "In-place ops and writes through views become value semantics";
  let description = [{
    The graphs torch.export writes today keep in-place ops (`relu_`, `add_`,
    `copy_`, `index_put_`, ...) and write through views (`slice` + `copy_`).
    Driven by the schema alias annotations, each write becomes its functional
    op; a write through a view is scattered back into its base (slice_scatter,
    select_scatter, ...); later reads of the base or of any view of it see the
    new values; written buffers, parameters and user inputs get their
    buffer_mutation / user_input_mutation outputs. What cannot be made
    functional exactly is refused with the node and the rule.
    Counters: `exir.functionalize` (writes, view_writes, replays, state).
  }];
  let dependentDialects = ["ptec::exir::ExirDialect"];
}

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

def FoldConstants : Pass<"exir-fold-constants", "mlir::ModuleOp"> {
  let summary = "Evaluate layout ops on constant weights at compile time";
  let description = [{
    A permute/transpose/view/squeeze/unsqueeze/clone whose operands are all
    parameters or constants (e.g. the transposed weight of every `linear`)
    is computed once by the compiler: its result becomes a new constant
    weight, so the runtime neither recomputes it at each call nor plans
    memory for it. Weights that end up unused are removed.
  }];
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
    value or its aliases, every other copy that reads the state. Cycles (a
    swap) and returned values that alias a written state get a snapshot
    (aten::clone). Buffer mutation outputs are then removed; a user input
    mutation output returns the input itself.
  }];
  let options = [
    Option<"atEnd", "at-end", "bool", /*default=*/"false",
           "Place every copy right before the return (baseline for comparison)">
  ];
}

def ExtractCalls : Pass<"exir-extract-calls", "mlir::ModuleOp"> {
  let summary = "Outline repeated submodule calls into one function and N calls";
  let description = [{
    Ops carry the submodule instance they came from (`exir.scope = "step@3"`,
    set by the importer from nn_module_stack for repeated instances). Each
    contiguous run of ops of one instance is a call; runs of instances of
    one submodule (`step`, `step@1`, ...) whose op sequences are structurally
    identical become ONE private func.func and one func.call per run, so
    that later passes lower the body once.
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

def Partition : Pass<"exir-partition", "mlir::ModuleOp"> {
  let summary = "Group ops a backend accepts into exir.delegate_region ops";
  let description = [{
    Capability-based: each op goes to the first backend (priority order)
    that accepts it. Accepted ops grow maximal groups, in program order,
    that never create a cycle through other ops and never span an op that
    writes memory. The backend's grouping hook then cuts each group into
    the regions it can lower; each becomes an implicit-capture
    `exir.delegate_region`. Private (callee) functions are partitioned too.
  }];
  let options = [
    ListOption<"backends", "backends", "std::string",
               "Backends to partition for, in priority order (name[:options])">,
    Option<"reportRefusals", "report-refusals", "bool", /*default=*/"false",
           "Emit a remark for each op no backend takes, with the reasons">
  ];
}

def OutlineDelegates : Pass<"exir-outline-delegates", "mlir::ModuleOp"> {
  let summary = "Outline delegate regions into lowered modules and calls";
  let description = [{
    Each region becomes an `exir.lowered_module` (via the backend's
    preprocess) and an `exir.delegate_call`. A function called several times
    is lowered once: all its call sites call the same lowered module.
  }];
  let options = [
    Option<"shareDelegates", "share-delegates", "bool", /*default=*/"true",
           "Keep the backend's share_handle_across_calls (false: one delegate per call)">
  ];
}

def InlineCalls : Pass<"exir-inline-calls", "mlir::ModuleOp"> {
  let summary = "Inline calls to private functions; methods become flat chains";
  let description = [{
    Undoes exir-extract-calls after delegation: every func.call of a private
    function is replaced by a copy of its body (delegate calls keep calling
    the one lowered module), and the private functions are erased.
  }];
}

def AliasViews : Pass<"exir-alias-views", "mlir::ModuleOp"> {
  let summary = "Reshape-like copies become aliasing views where nothing writes after them";
  let description = [{
    `view_copy`, `squeeze_copy` and `unsqueeze_copy` of contiguous data have
    their source's bytes. Each becomes `aten::view` (sharing the source's
    storage: no kernel, no planned copy) unless something writes that
    storage after it (a write-back copy, an in-place update, an opaque op),
    decided by the alias analysis. Counters: `exir.alias_views`.
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
           "greedy, best-fit, first-fit or best (smallest of all)">,
    Option<"shareMutableBuffers", "share-mutable-buffers", "bool",
           /*default=*/"false",
           "Plan every mutable buffer into arena 2 at one offset per FQN, the "
           "same in every method, so the methods share their state">
  ];
}

#endif // PTEC_PASSES_TD
