//===- Emitter.cpp - exir IR to an ExecuTorch program ---------------------===//
//
// Conventions (spec/pte-format.md section 4): one chain per method; values in
// definition order; scalars get a fresh value at each use; KernelCall args are
// every schema argument in schema order followed by the return(s); out and
// in-place results reuse their storage's value; buffer-mutation outputs are
// gone (write-back placement turned them into exir.copy_).
// This file walks each method (arguments, ops, returns) and assembles the
// program; values are made in EmitValues.cpp, instructions in EmitOps.cpp
// and EmitControlFlow.cpp.
//
//===----------------------------------------------------------------------===//

#include "emitter/Emitter.h"
#include "emitter/MethodEmitter.h"

#include "dialects/exir/IR/Dynamism.h"
#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <algorithm>

namespace ptec {

using namespace mlir;
namespace fb = executorch_flatbuffer;

namespace emit {

LogicalResult MethodEmitter::emitArguments(func::FuncOp func) {
  for (BlockArgument arg : func.getArguments()) {
    Location loc = func.getLoc();
    exir::InputAttr in = exir::getInputAttr(func, arg.getArgNumber());
    llvm::StringRef kind = in ? in.getKind().getValue() : "user_input";
    auto mem = func.getArgAttrOfType<exir::MemAttr>(arg.getArgNumber(), "exir.mem");
    if (kind == "user_input") {
      FailureOr<int32_t> idx =
          addTensor(loc, arg.getType(), mem, 0, {},
                    "argument " + std::to_string(arg.getArgNumber()) + " (a user input)");
      if (failed(idx))
        return failure();
      markDynamic(arg, *idx);
      values_[arg] = *idx;
      plan_->inputs.push_back(*idx);
      continue;
    }
    llvm::StringRef fqn = in.getFqn() ? in.getFqn().getValue() : "";
    auto weight = symbols_.lookup<exir::WeightOp>(fqn);
    if (!weight)
      return func.emitError("argument ")
             << arg.getArgNumber() << " names weight '" << fqn
             << "' but the module has no exir.weight of that name";
    if (weight.getValue().getType() != arg.getType())
      return func.emitError("argument ")
             << arg.getArgNumber() << " has type " << arg.getType()
             << " but weight '" << fqn << "' is "
             << weight.getValue().getType();
    // A constant nothing reads (a weight a delegate baked into its own
    // data) is not in the program at all.
    if (!mem && arg.use_empty())
      continue;
    // A planned buffer is mutable state: initial bytes go to the mutable
    // segment and the tensor lives in the arena. Everything else is constant,
    // in the program or (externalWeights) in the .ptd under its name.
    bool external = options_.externalWeights && !mem;
    // A constant held in a resource blob (what the importer makes of every
    // weight) is lent to the writer, not copied, whether it goes to the
    // program or to the .ptd: it lives as long as the module, which
    // outlives writing. The blob's size is checked against its type first.
    const uint8_t *lent = nullptr;
    size_t lentSize = 0;
    if (!mem) {
      if (auto res = llvm::dyn_cast<DenseResourceElementsAttr>(weight.getValue()))
        if (AsmResourceBlob *blob = res.getRawHandle().getBlob()) {
          if (failed(exir::checkBlobSize(weight, res)))
            return failure();
          ArrayRef<char> d = blob->getData();
          lent = reinterpret_cast<const uint8_t *>(d.data());
          lentSize = d.size();
        }
    }
    if (lent && !external) {
      uint32_t dataIdx = pb_.addConstantView(lent, lentSize);
      FailureOr<int32_t> idx = addTensor(loc, arg.getType(), mem, dataIdx, fqn);
      if (failed(idx))
        return failure();
      values_[arg] = *idx;
      continue;
    }
    std::vector<uint8_t> bytes;
    if (!lent && failed(exir::getElementsBytes(weight, weight.getValue(), bytes)))
      return failure();
    uint32_t dataIdx = 0;
    if (mem) {
      auto [it, first] = stateData_.try_emplace(fqn, 0);
      if (first)
        it->second = pb_.addMutableData(bytes.data(), bytes.size());
      dataIdx = it->second;
    } else if (!external)
      dataIdx = pb_.addConstant(std::move(bytes));
    FailureOr<int32_t> idx = addTensor(loc, arg.getType(), mem, dataIdx, fqn);
    if (failed(idx))
      return failure();
    if (external) {
      fb::TensorT &t = *plan_->values[*idx]->val.AsTensor();
      t.extra_tensor_info = std::make_unique<fb::ExtraTensorInfoT>();
      t.extra_tensor_info->fully_qualified_name = fqn.str();
      t.extra_tensor_info->location = fb::TensorDataLocation::EXTERNAL;
      pte::PtdEntry &e = pb_.external[fqn.str()];
      if (lent) {
        e.lent = lent;
        e.lentSize = lentSize;
      } else {
        e.bytes = std::move(bytes);
      }
      e.scalarType = static_cast<int8_t>(t.scalar_type);
      e.sizes = t.sizes;
    }
    values_[arg] = *idx;
  }
  return success();
}

LogicalResult MethodEmitter::emitBlock(Block &block) {
  for (Operation &op : block) {
    if (llvm::isa<exir::YieldOp>(op))
      continue; // read by the control-flow op that holds the block
    if (failed(emitOp(op)))
      return failure();
  }
  return success();
}

LogicalResult MethodEmitter::emitOp(Operation &op) {
  currentLoc_ = op.getLoc();
  if (auto alloc = llvm::dyn_cast<exir::AllocOp>(op)) {
    auto mem = alloc->getAttrOfType<exir::MemAttr>("exir.mem");
    if (!mem)
      return alloc.emitError("exir.alloc is not planned; run "
                             "exir-plan-memory before emitting");
    FailureOr<int32_t> idx = addTensor(op.getLoc(), alloc.getType(), mem, 0);
    if (failed(idx))
      return failure();
    markDynamic(alloc.getResult(), *idx);
    values_[alloc.getResult()] = *idx;
    return success();
  }
  if (auto aten = llvm::dyn_cast<exir::AtenOp>(op))
    return aten.getOpName() == "aten::view" ? emitView(aten) : emitAten(aten);
  if (auto copy = llvm::dyn_cast<exir::CopyOp>(op))
    return emitCopy(copy);
  if (llvm::isa<exir::SymSizeOp, exir::SymItemOp, exir::SymConstOp, exir::SymOp>(op))
    return emitSymbolic(&op);
  if (auto call = llvm::dyn_cast<exir::DelegateCallOp>(op))
    return emitDelegateCall(call);
  if (auto cond = llvm::dyn_cast<exir::CondOp>(op))
    return emitCond(cond);
  if (auto loop = llvm::dyn_cast<exir::WhileOp>(op))
    return emitWhile(loop);
  if (auto ret = llvm::dyn_cast<func::ReturnOp>(op))
    return emitReturn(ret);
  return op.emitError("cannot emit '")
         << op.getName() << "' into an ExecuTorch program";
}

LogicalResult MethodEmitter::emitReturn(func::ReturnOp ret) {
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    exir::OutputAttr out = exir::getOutputAttr(func_, i);
    if (out && out.getKind().getValue() == "buffer_mutation")
      return func_.emitError("output ")
             << i << " is a buffer mutation; run exir-place-write-back "
                     "before emitting";
    FailureOr<int32_t> idx = valueOf(ret.getLoc(), v);
    if (failed(idx))
      return failure();
    plan_->outputs.push_back(*idx);
  }
  return success();
}

FailureOr<std::unique_ptr<fb::ExecutionPlanT>>
MethodEmitter::emit(func::FuncOp func) {
  auto plan = std::make_unique<fb::ExecutionPlanT>();
  plan_ = plan.get();
  plan->name = func.getSymName().str();
  plan->chains.push_back(std::make_unique<fb::ChainT>());
  chain_ = plan->chains.back().get();

  auto arenas = func->getAttrOfType<DenseI64ArrayAttr>("exir.arena_sizes");
  if (!arenas)
    return func.emitError("method '")
           << func.getSymName()
           << "' has no memory plan; run exir-plan-memory before emitting";
  plan->non_const_buffer_sizes.assign(arenas.asArrayRef().begin(),
                                      arenas.asArrayRef().end());
  if (plan->non_const_buffer_sizes.empty())
    plan->non_const_buffer_sizes = {0, 0};
  plan->non_const_buffer_sizes[0] = 0;

  dynamic_ = exir::findDynamicValues(func);
  if (failed(emitArguments(func)))
    return failure();

  func_ = func;
  if (failed(emitBlock(func.getBody().front())))
    return failure();
  return plan;
}

} // namespace emit

LogicalResult emitProgram(ModuleOp module, pte::ProgramBuilder &out,
                          const EmitOptions &options, EmitStats *stats) {
  std::vector<func::FuncOp> funcs;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isDeclaration() && f.isPublic())
      funcs.push_back(f);
  if (funcs.empty())
    return module.emitError("the program has no methods (no public func.func)");
  std::sort(funcs.begin(), funcs.end(), [](func::FuncOp a, func::FuncOp b) {
    return a.getSymName() < b.getSymName();
  });
  out.program.version = 0;
  llvm::StringMap<uint32_t> stateData;
  for (func::FuncOp f : funcs) {
    emit::MethodEmitter m(module, out, options, stateData);
    FailureOr<std::unique_ptr<fb::ExecutionPlanT>> plan = m.emit(f);
    if (failed(plan))
      return failure();
    if (stats) {
      EmitStats::Method s;
      s.name = (*plan)->name;
      s.numValues = (*plan)->values.size();
      s.numInstructions = (*plan)->chains.front()->instructions.size();
      s.numDelegates = (*plan)->delegates.size();
      s.numDelegateCalls = m.numDelegateCalls;
      s.arenaSizes = (*plan)->non_const_buffer_sizes;
      s.instructionLocs = std::move(m.instructionLocs);
      stats->methods.push_back(std::move(s));
    }
    out.program.execution_plan.push_back(std::move(*plan));
  }
  return success();
}

} // namespace ptec
