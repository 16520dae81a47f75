//===- OutlineDelegates.cpp - delegate regions to lowered modules ---------===//
//
// Stage two of delegation: each exir.delegate_region becomes a private
// func.func (arguments: the values it captured, in first-use order; results:
// what it yields), which the backend's preprocess compiles into an
// exir.lowered_module @<backend>_<n>; the region becomes an
// exir.delegate_call of it and the function is dropped. A region inside a
// function called N times yields ONE lowered module called N times once the
// calls are inlined (exir-inline-calls).
//
//===----------------------------------------------------------------------===//

#include "backends/AotBackend.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <map>

namespace ptec {
#define GEN_PASS_DEF_OUTLINEDELEGATES
#include "passes/Passes.h.inc"

using namespace mlir;

namespace {

/// Values used in `region` but defined outside it, in first-use order.
llvm::SetVector<Value> capturedValues(exir::DelegateRegionOp region) {
  llvm::SetVector<Value> captured;
  region.getBody().walk([&](Operation *op) {
    for (Value v : op->getOperands())
      if (!region->isAncestor(v.getParentRegion()->getParentOp()))
        captured.insert(v);
  });
  return captured;
}

/// For preprocess: each captured method argument keeps its `exir.input`
/// on the region function's argument, and one backed by an immutable
/// exir.weight also gets that weight's value as `exir.weight_value` (a
/// reference to the same resource, no copy), so a backend can bake
/// constant weights into its blob.
void annotateWeights(func::FuncOp fn, llvm::ArrayRef<Value> captured,
                     SymbolTable &symbols) {
  for (auto [i, v] : llvm::enumerate(captured)) {
    auto arg = llvm::dyn_cast<BlockArgument>(v);
    auto parent = arg ? llvm::dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                      : func::FuncOp();
    if (!parent || arg.getOwner() != &parent.getBody().front())
      continue;
    exir::InputAttr input = exir::getInputAttr(parent, arg.getArgNumber());
    if (!input) {
      // An argument of a function extracted for lower-once-call-many: a
      // weight when every call passes the same immutable one.
      if (aot::ConstantWeight w = aot::constantWeightOf(v))
        fn.setArgAttr(i, "exir.weight_value", w.value);
      continue;
    }
    fn.setArgAttr(i, exir::ExirDialect::kInputAttrName, input);
    if (!input.getFqn())
      continue;
    auto weight = symbols.lookup<exir::WeightOp>(input.getFqn());
    if (weight && !weight.getIsMutable())
      fn.setArgAttr(i, "exir.weight_value", weight.getValue());
  }
}

struct OutlineDelegatesPass : impl::OutlineDelegatesBase<OutlineDelegatesPass> {
  using OutlineDelegatesBase::OutlineDelegatesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<exir::DelegateRegionOp> regions;
    module.walk([&](exir::DelegateRegionOp r) { regions.push_back(r); });
    if (regions.empty())
      return;

    SymbolTable symbols(module);
    // New lowered modules go together, after the existing ones (or the
    // weights), before the functions, in region order.
    Operation *anchor = nullptr;
    for (Operation &op : module.getBody()->getOperations())
      if (llvm::isa<exir::LoweredModuleOp, exir::WeightOp>(op))
        anchor = &op;

    std::map<std::pair<std::string, std::string>, std::unique_ptr<aot::AotBackend>> cache;
    std::map<std::string, unsigned> nextIndex;
    for (exir::DelegateRegionOp region : regions) {
      std::string options;
      if (auto o = region->getAttrOfType<StringAttr>("exir.backend_options"))
        options = o.getValue().str();
      auto &backend = cache[{region.getBackend().str(), options}];
      if (!backend) {
        std::string error;
        backend = aot::createAotBackendForId(region.getBackend(), options, &error);
        if (!backend) {
          region.emitError("cannot outline delegate region: ") << error;
          return signalPassFailure();
        }
      }
      exir::LoweredModuleOp lowered = outline(region, *backend, anchor, symbols, nextIndex);
      if (!lowered)
        return signalPassFailure();
      anchor = lowered;
    }
  }

  exir::LoweredModuleOp outline(exir::DelegateRegionOp region,
                                const aot::AotBackend &backend, Operation *anchor,
                                SymbolTable &symbols,
                                std::map<std::string, unsigned> &nextIndex) {
    MLIRContext *ctx = region.getContext();
    llvm::SetVector<Value> captured = capturedValues(region);
    Operation *yield = region.getBody().front().getTerminator();
    SmallVector<Type> inputs;
    for (Value v : captured)
      inputs.push_back(v.getType());
    auto type = FunctionType::get(ctx, inputs, region.getResultTypes());

    // The region as a function, handed to preprocess, then dropped.
    OpBuilder b(ctx);
    OwningOpRef<func::FuncOp> fn =
        b.create<func::FuncOp>(region.getLoc(), "delegate_region", type);
    fn->setPrivate();
    Block *entry = fn->addEntryBlock();
    IRMapping map;
    for (auto [v, arg] : llvm::zip(captured, entry->getArguments()))
      map.map(v, arg);
    annotateWeights(*fn, captured.getArrayRef(), symbols);
    b.setInsertionPointToEnd(entry);
    for (Operation &op : region.getBody().front().without_terminator())
      b.clone(op, map);
    SmallVector<Value> results;
    for (Value v : yield->getOperands())
      results.push_back(map.lookupOrDefault(v));
    b.create<func::ReturnOp>(region.getLoc(), results);

    FailureOr<aot::PreprocessResult> pre = backend.preprocess(*fn);
    if (failed(pre))
      return nullptr;

    // Arguments the backend baked in are not passed at run time (their
    // weights then need no constant of their own in the program).
    SmallVector<Value> passed;
    llvm::SmallDenseSet<unsigned> baked(pre->bakedArgs.begin(), pre->bakedArgs.end());
    for (unsigned i : baked)
      if (i >= captured.size() || !fn->getArgAttr(i, "exir.weight_value")) {
        region.emitError("backend '")
            << backend.name() << "' says it baked argument " << i
            << ", which is not a constant weight of the region";
        return nullptr;
      }
    for (auto [i, v] : llvm::enumerate(captured))
      if (!baked.contains(static_cast<unsigned>(i)))
        passed.push_back(v);
    if (!baked.empty()) {
      SmallVector<Type> kept;
      for (Value v : passed)
        kept.push_back(v.getType());
      type = FunctionType::get(ctx, kept, region.getResultTypes());
    }

    // @<backend>_<n>, the first free n.
    std::string name;
    unsigned &n = nextIndex[backend.name().str()];
    do
      name = backend.name().str() + "_" + std::to_string(n++);
    while (symbols.lookup(name));

    SmallVector<Attribute> specs;
    for (const aot::CompileSpec &s : pre->compileSpecs)
      specs.push_back(exir::CompileSpecAttr::get(ctx, b.getStringAttr(s.key),
                                                 b.getStringAttr(s.value)));
    SmallVector<Attribute> scratch;
    for (const aot::ScratchSpec &s : pre->scratch)
      scratch.push_back(exir::ScratchSpecAttr::get(ctx, s.size, s.alignment));

    ModuleOp module = getOperation();
    if (anchor)
      b.setInsertionPointAfter(anchor);
    else
      b.setInsertionPointToStart(module.getBody());
    auto lowered = b.create<exir::LoweredModuleOp>(
        region.getLoc(), b.getStringAttr(name), b.getStringAttr(backend.id()),
        b.getStringAttr(pre->blob), b.getArrayAttr(specs), TypeAttr::get(type),
        pre->shareHandleAcrossCalls && shareDelegates ? b.getUnitAttr() : UnitAttr(),
        scratch.empty() ? ArrayAttr() : b.getArrayAttr(scratch), DictionaryAttr());
    if (!pre->namedData.empty()) {
      SmallVector<NamedAttribute> named;
      for (const auto &[key, bytes] : pre->namedData)
        named.push_back(b.getNamedAttr(key, b.getStringAttr(bytes)));
      lowered.setNamedDataAttr(b.getDictionaryAttr(named));
    }
    symbols.insert(lowered);

    b.setInsertionPoint(region);
    auto call = b.create<exir::DelegateCallOp>(
        region.getLoc(), region.getResultTypes(),
        FlatSymbolRefAttr::get(lowered.getSymNameAttr()), passed);
    region->replaceAllUsesWith(call->getResults());
    region->erase();
    return lowered;
  }
};

} // namespace
} // namespace ptec
