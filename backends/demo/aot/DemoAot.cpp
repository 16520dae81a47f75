//===- DemoAot.cpp - ahead-of-time half of BackendWithCompilerDemo --------===//

#include "backends/demo/aot/DemoAot.h"

#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace ptec::aot::demo {
namespace {

constexpr llvm::StringLiteral kSin = "aten::sin";
constexpr llvm::StringLiteral kMm = "aten::mm";
constexpr llvm::StringLiteral kAdd = "aten::add.Tensor";

std::string typeText(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

/// The static float32 tensor type of `v`, or null.
RankedTensorType f32Tensor(Value v) {
  auto t = llvm::dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape() || !t.getElementType().isF32())
    return nullptr;
  return t;
}

/// Operands then results.
SmallVector<Value> allValues(Operation *op) {
  SmallVector<Value> v(op->getOperands());
  v.append(op->result_begin(), op->result_end());
  return v;
}

int64_t leadingDim(RankedTensorType t) { return t.getRank() == 0 ? 1 : t.getDimSize(0); }

/// The producer of `v` when it is an exir.aten `name`.
exir::AtenOp producer(Value v, llvm::StringRef name) {
  auto op = v.getDefiningOp<exir::AtenOp>();
  return op && op.getOpName() == name ? op : exir::AtenOp();
}

class DemoAotBackend final : public AotBackend {
public:
  explicit DemoAotBackend(DemoAotOptions options) : options_(options) {}

  llvm::StringRef id() const override { return kDemoAotId; }
  llvm::StringRef name() const override { return kDemoAotName; }

  std::optional<std::string> refuse(Operation *op) const override {
    auto aten = llvm::dyn_cast<exir::AtenOp>(op);
    if (!aten)
      return "not an ATen operator";
    llvm::StringRef name = aten.getOpName();
    bool known = (name == kSin && options_.sin) ||
                 ((name == kMm || name == kAdd) && options_.mmAdd);
    if (!known)
      return "the demo runtime computes only sin and mm-then-add";
    if (op->getNumResults() != 1)
      return "expected one result";
    for (Value v : allValues(op))
      if (!f32Tensor(v))
        return "operands and results must be static float32 tensors, got " +
               typeText(v.getType());
    RankedTensorType out = f32Tensor(op->getResult(0));
    RankedTensorType first = f32Tensor(op->getOperand(0));
    if (leadingDim(first) > kDemoMaxValue)
      return "leading dimension " + std::to_string(leadingDim(first)) +
             " of the first input exceeds max_value " + std::to_string(kDemoMaxValue);
    if (name == kSin)
      return op->getNumOperands() == 1 ? std::nullopt
                                       : std::optional<std::string>("expected one operand");
    if (name == kMm) {
      for (Value v : allValues(op))
        if (f32Tensor(v).getShape() != llvm::ArrayRef<int64_t>{2, 2})
          return "mm must be 2x2 @ 2x2 (the runtime multiplies 2x2 matrices)";
      return std::nullopt;
    }
    // add.Tensor: elementwise, no broadcasting, alpha 1.
    if (op->getNumOperands() != 2)
      return "expected two operands";
    for (Value v : op->getOperands())
      if (f32Tensor(v).getShape() != out.getShape())
        return "add operands must have the result's shape (no broadcasting)";
    if (!isScalarOne(aten.getArgAttr("alpha")))
      return "add with alpha other than 1";
    return std::nullopt;
  }

  /// Fixed patterns: each sin alone; an mm whose only user is an add that
  /// adds a third, distinct value. Other accepted ops stay portable.
  llvm::SmallVector<OpGroup> group(llvm::ArrayRef<Operation *> ops) const override {
    if (options_.wholeGroups)
      return AotBackend::group(ops);
    llvm::SmallVector<OpGroup> groups;
    llvm::SmallPtrSet<Operation *, 8> inGroup(ops.begin(), ops.end());
    llvm::SmallPtrSet<Operation *, 8> taken;
    for (Operation *op : ops) {
      auto aten = llvm::cast<exir::AtenOp>(op);
      if (taken.contains(op))
        continue;
      if (aten.getOpName() == kSin) {
        groups.push_back({op});
        taken.insert(op);
        continue;
      }
      if (aten.getOpName() != kMm || !op->getResult(0).hasOneUse())
        continue;
      Operation *add = *op->getResult(0).getUsers().begin();
      auto addOp = llvm::dyn_cast<exir::AtenOp>(add);
      if (!addOp || addOp.getOpName() != kAdd || !inGroup.contains(add) ||
          taken.contains(add))
        continue;
      Value mmOut = op->getResult(0);
      Value b = add->getOperand(0) == mmOut ? add->getOperand(1) : add->getOperand(0);
      Value a = op->getOperand(0), x = op->getOperand(1);
      if (b == mmOut || a == x || b == a || b == x)
        continue; // the runtime needs four distinct arguments
      groups.push_back({op, add});
      taken.insert(op);
      taken.insert(add);
    }
    return groups;
  }

  FailureOr<PreprocessResult> preprocess(func::FuncOp region) const override {
    Block &body = region.getBody().front();
    llvm::SmallVector<exir::AtenOp> ops;
    for (Operation &op : body.without_terminator()) {
      auto aten = llvm::dyn_cast<exir::AtenOp>(&op);
      if (!aten)
        return region.emitError("demo backend: unsupported op ") << op.getName();
      if (std::optional<std::string> why = refuse(aten))
        return region.emitError("demo backend: '")
               << aten.getOpName() << "' refused: " << *why;
      ops.push_back(aten);
    }
    if (failed(checkConventions(region, ops)))
      return failure();

    PreprocessResult result;
    std::string records;
    for (exir::AtenOp op : ops) {
      auto out = f32Tensor(op->getResult(0));
      int64_t handle = -1;
      if (auto h = op->getAttrOfType<IntegerAttr>("exir.debug_handle"))
        handle = h.getInt();
      else if (auto handles = exir::debugHandlesOf(op->getLoc()); !handles.empty())
        handle = handles.front();
      records += "op:demo::" + dottedOpName(op.getOpName()) +
                 ", numel:" + std::to_string(out.getNumElements()) +
                 ", dtype:torch.float32<debug_handle>" + std::to_string(handle) + "#";
    }
    result.blob = std::to_string(ops.size()) + "version:0#" + records;

    // Compile spec 0 (the runtime reads it whatever its key): one byte, the
    // leading dimension of the first input, as upstream callers pass it.
    auto first = llvm::cast<RankedTensorType>(region.getArgumentTypes().front());
    result.compileSpecs.push_back(
        {"max_value", std::string(1, static_cast<char>(leadingDim(first)))});
    if (options_.scratchBytes > 0) {
      uint32_t n = static_cast<uint32_t>(options_.scratchBytes);
      std::string le(4, '\0');
      for (int i = 0; i < 4; ++i)
        le[i] = static_cast<char>((n >> (8 * i)) & 0xff);
      result.compileSpecs.push_back({"scratch_bytes", le});
      result.scratch.push_back({options_.scratchBytes, 16});
    }
    result.shareHandleAcrossCalls = true; // the handle is read-only after init
    return result;
  }

private:
  /// The runtime reads args by position: [x, y] for sin, [a, x, b, out]
  /// for mm-then-add.
  LogicalResult checkConventions(func::FuncOp region,
                                 llvm::MutableArrayRef<exir::AtenOp> ops) const {
    Block &body = region.getBody().front();
    Operation *ret = body.getTerminator();
    auto refuseRegion = [&](const char *why) {
      return region.emitError("demo backend cannot compute this region: ") << why;
    };
    if (ret->getNumOperands() != 1)
      return refuseRegion("it must have exactly one result");
    if (ops.size() == 1 && ops[0].getOpName() == kSin) {
      if (region.getNumArguments() != 1 || ops[0]->getOperand(0) != body.getArgument(0) ||
          ret->getOperand(0) != ops[0]->getResult(0))
        return refuseRegion("a sin region takes [x] and returns sin(x)");
      return success();
    }
    if (ops.size() == 2 && ops[0].getOpName() == kMm && ops[1].getOpName() == kAdd) {
      Value mmOut = ops[0]->getResult(0);
      Operation *add = ops[1];
      Value b = add->getOperand(0) == mmOut ? add->getOperand(1) : add->getOperand(0);
      if (region.getNumArguments() != 3 || ops[0]->getOperand(0) != body.getArgument(0) ||
          ops[0]->getOperand(1) != body.getArgument(1) || b != body.getArgument(2) ||
          !mmOut.hasOneUse() || ret->getOperand(0) != add->getResult(0))
        return refuseRegion("an mm-then-add region takes [a, x, b] and returns a@x + b");
      return success();
    }
    return refuseRegion("only a single sin or mm followed by add.Tensor");
  }

  DemoAotOptions options_;
};

} // namespace

std::string dottedOpName(llvm::StringRef opName) {
  auto [ns, rest] = opName.split("::");
  auto [name, overload] = rest.split('.');
  return (ns + "." + name + "." + (overload.empty() ? "default" : overload)).str();
}

bool parseDemoAotOptions(llvm::StringRef text, DemoAotOptions &options,
                         std::string *error) {
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, ':', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef part : parts) {
    auto [key, value] = part.split('=');
    if (key == "scratch") {
      int64_t n = 0;
      if (!llvm::to_integer(value, n) || n <= 0 || n > UINT32_MAX) {
        *error = "demo: scratch=N needs a positive byte count, got '" + value.str() + "'";
        return false;
      }
      options.scratchBytes = n;
      continue;
    }
    if (key == "group" && value == "whole") {
      options.wholeGroups = true;
      continue;
    }
    if (key == "ops") {
      options.sin = options.mmAdd = false;
      llvm::SmallVector<llvm::StringRef> ops;
      value.split(ops, '+');
      for (llvm::StringRef op : ops) {
        if (op == "sin")
          options.sin = true;
        else if (op == "mm_add")
          options.mmAdd = true;
        else {
          *error = "demo: unknown pattern '" + op.str() + "' in ops= (sin, mm_add)";
          return false;
        }
      }
      continue;
    }
    *error = "demo: unknown option '" + part.str() + "' (scratch=N, ops=sin+mm_add, group=whole)";
    return false;
  }
  return true;
}

std::unique_ptr<AotBackend> createDemoAotBackend(llvm::StringRef text, std::string *error) {
  DemoAotOptions options;
  if (!parseDemoAotOptions(text, options, error))
    return nullptr;
  return std::make_unique<DemoAotBackend>(options);
}

} // namespace ptec::aot::demo
