//===- MethodEmitter.h - one method of the program (emitter internal) -----===//
//
// The state of emitting one method: its values, its chain, the operators it
// uses. Emitter.cpp walks the method, EmitValues.cpp makes values,
// EmitOps.cpp the straight-line ops' instructions, EmitControlFlow.cpp
// exir.cond and exir.while.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "emitter/Emitter.h"

#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ptec::emit {

using namespace mlir;
namespace fb = executorch_flatbuffer;

class MethodEmitter {
public:
  MethodEmitter(ModuleOp module, pte::ProgramBuilder &pb,
                const EmitOptions &options, llvm::StringMap<uint32_t> &stateData)
      : module_(module), symbols_(module), pb_(pb), options_(options),
        stateData_(stateData) {}

  FailureOr<std::unique_ptr<fb::ExecutionPlanT>> emit(func::FuncOp func);

private:
  // --- values ---
  template <typename T> int32_t addValue(T &&v) {
    auto ev = std::make_unique<fb::EValueT>();
    ev->val.Set(std::forward<T>(v));
    plan_->values.push_back(std::move(ev));
    return static_cast<int32_t>(plan_->values.size() - 1);
  }
  int32_t addInt(int64_t v) { fb::IntT t; t.int_val = v; return addValue(std::move(t)); }
  int32_t addBool(bool v) { fb::BoolT t; t.bool_val = v; return addValue(std::move(t)); }
  int32_t addDouble(double v) { fb::DoubleT t; t.double_val = v; return addValue(std::move(t)); }
  int32_t addNull() { return addValue(fb::NullT()); }
  int32_t addString(llvm::StringRef s) { fb::StringT t; t.string_val = s.str(); return addValue(std::move(t)); }
  /// `what` names the value in errors ("user input 0"); empty: its fqn, else
  /// the node named by `loc`.
  FailureOr<int32_t> addTensor(Location loc, Type type, exir::MemAttr mem,
                               uint32_t dataBufferIdx, llvm::StringRef fqn = {},
                               const std::string &what = {});
  FailureOr<int32_t> addArgValue(Location loc, Attribute attr,
                                 const schema::Argument &arg);
  FailureOr<int32_t> valueOf(Location loc, Value v);

  // --- instructions ---
  /// Appends one instruction; `call` is its arguments table (KernelCallT,
  /// DelegateCallT, MoveCallT, JumpFalseCallT or FreeCallT).
  template <typename Call> void addInstruction(Call call) {
    auto instr = std::make_unique<fb::InstructionT>();
    instr->instr_args.Set(std::move(call));
    chain_->instructions.push_back(std::move(instr));
    instructionLocs.push_back(currentLoc_);
    if (options_.emitStackTraces)
      chain_->stacktrace.push_back(framesOf(currentLoc_));
  }
  /// The user's source frames of `loc` (the exported node's stack trace,
  /// innermost last as upstream writes them); empty when it has none.
  static std::unique_ptr<fb::FrameListT> framesOf(Location loc) {
    auto frames = std::make_unique<fb::FrameListT>();
    std::string name;
    std::function<void(Location)> walk = [&](Location l) {
      if (auto n = llvm::dyn_cast<NameLoc>(l)) {
        name = n.getName().str();
        walk(n.getChildLoc());
      } else if (auto f = llvm::dyn_cast<FileLineColLoc>(l)) {
        // Line 0 is the importer's stand-in (the input file itself, for a
        // node without a stack trace): keep only the node's name then, so
        // the program does not depend on where its input was.
        if (f.getLine() == 0)
          return;
        auto frame = std::make_unique<fb::FrameT>();
        frame->filename = f.getFilename().str();
        frame->lineno = static_cast<int32_t>(f.getLine());
        frame->name = name;
        frames->items.push_back(std::move(frame));
      } else if (auto c = llvm::dyn_cast<CallSiteLoc>(l)) {
        walk(c.getCaller());
        walk(c.getCallee());
      } else if (auto fused = llvm::dyn_cast<FusedLoc>(l)) {
        for (Location inner : fused.getLocations())
          walk(inner);
      }
    };
    walk(loc);
    if (frames->items.empty() && !name.empty()) {
      auto frame = std::make_unique<fb::FrameT>();
      frame->name = name;
      frames->items.push_back(std::move(frame));
    }
    return frames;
  }
  int32_t operatorIndex(const std::string &name, const std::string &overload);
  LogicalResult emitAten(exir::AtenOp op);
  LogicalResult emitView(exir::AtenOp op);
  LogicalResult emitCopy(exir::CopyOp op);
  LogicalResult emitDelegateCall(exir::DelegateCallOp op);
  LogicalResult emitArguments(func::FuncOp func);
  /// The ops of `block` in order (its exir.yield excluded; the caller reads
  /// it); the body of a method, a branch or a loop.
  LogicalResult emitBlock(Block &block);
  LogicalResult emitOp(Operation &op);
  LogicalResult emitReturn(func::ReturnOp ret);
  // Control flow (EmitControlFlow.cpp).
  LogicalResult emitCond(exir::CondOp op);
  LogicalResult emitWhile(exir::WhileOp op);
  /// A JumpFalseCall on value `cond`; returns its instruction index so the
  /// destination can be patched once known.
  size_t addJumpFalse(int32_t cond, int32_t destination);
  void patchJump(size_t instruction, int32_t destination);
  /// An unconditional jump: a JumpFalseCall on a fresh Bool(false).
  size_t addJump(int32_t destination) { return addJumpFalse(addBool(false), destination); }
  void addMove(int32_t from, int32_t to);
  /// aten::copy_(dst, src): the data of `src` into `dst`'s storage.
  void addCopyKernel(int32_t dst, int32_t src);
  int32_t numInstructions() const {
    return static_cast<int32_t>(chain_->instructions.size());
  }
  LogicalResult emitSymbolic(Operation *op);
  /// Symbolic-int operands of `op` by binding ("size[1]", "end"): their value
  /// indices, to use instead of the attribute's upper-bound numbers.
  FailureOr<llvm::StringMap<int32_t>> symBindings(exir::AtenOp op);
  /// A value with a run-time shape: DYNAMIC_BOUND, its sizes the bound.
  void markDynamic(Value v, int32_t idx) {
    if (dynamic_.contains(v))
      plan_->values[idx]->val.AsTensor()->shape_dynamism =
          fb::TensorShapeDynamism::DYNAMIC_BOUND;
  }

  ModuleOp module_;
  SymbolTable symbols_;
  pte::ProgramBuilder &pb_;
  const EmitOptions &options_;
  // Mutable-segment index of each buffer's initial state, by FQN, for all
  // methods: written once however many methods plan the buffer.
  llvm::StringMap<uint32_t> &stateData_;
  func::FuncOp func_;
  fb::ExecutionPlanT *plan_ = nullptr;
  fb::ChainT *chain_ = nullptr;
  llvm::DenseMap<Value, int32_t> values_;
  llvm::DenseSet<Value> dynamic_; // tensors with run-time shapes
  std::map<std::pair<std::string, std::string>, int32_t> operators_;
  llvm::DenseMap<Operation *, int32_t> sharedDelegates_;
  Location currentLoc_ = UnknownLoc::get(module_.getContext());

public:
  size_t numDelegateCalls = 0;
  std::vector<Location> instructionLocs;
};

} // namespace ptec::emit
