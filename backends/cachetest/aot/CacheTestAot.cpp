//===- CacheTestAot.cpp - ahead-of-time half of PtecCacheTestBackend ------===//

#include "backends/cachetest/aot/CacheTestAot.h"

#include "dialects/exir/IR/ExirDialect.h"
#include "runtime/backend/cache/ContextBlobHeader.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"

#include <cstring>

using namespace mlir;

namespace ptec::aot::cachetest {
namespace {

constexpr llvm::StringLiteral kAddmm = "aten::addmm";
constexpr llvm::StringLiteral kMm = "aten::mm";

/// Static float32 tensor of rank `rank`, or null.
RankedTensorType f32Tensor(Value v, int64_t rank) {
  auto t = llvm::dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape() || !t.getElementType().isF32() || t.getRank() != rank)
    return nullptr;
  return t;
}

/// The immutable exir.weight behind `v` when `v` is a method argument with
/// #exir.input<parameter|constant, fqn>; otherwise null and `why` set.
exir::WeightOp constantWeight(Value v, std::string &why) {
  auto arg = llvm::dyn_cast<BlockArgument>(v);
  auto func = arg ? llvm::dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                  : func::FuncOp();
  if (!func || arg.getOwner() != &func.getBody().front()) {
    why = "weights must be method arguments (constants), not computed values";
    return nullptr;
  }
  exir::InputAttr input = exir::getInputAttr(func, arg.getArgNumber());
  if (!input || !input.getFqn() ||
      (input.getKind().getValue() != "parameter" && input.getKind().getValue() != "constant")) {
    why = "weights must be parameters or constants";
    return nullptr;
  }
  auto module = func->getParentOfType<ModuleOp>();
  auto weight = module ? llvm::dyn_cast_or_null<exir::WeightOp>(
                             SymbolTable::lookupSymbolIn(module, input.getFqn()))
                       : exir::WeightOp();
  if (!weight) {
    why = "no exir.weight holds '" + input.getFqn().getValue().str() + "'";
    return nullptr;
  }
  if (weight.getIsMutable()) {
    why = "weight '" + input.getFqn().getValue().str() + "' is mutable";
    return nullptr;
  }
  return weight;
}

/// Operands of a linear: bias (null for mm), x, wT.
struct Linear {
  Value bias, x, wT;
};

Linear operandsOf(exir::AtenOp op) {
  if (op.getOpName() == kAddmm && op->getNumOperands() == 3)
    return {op->getOperand(0), op->getOperand(1), op->getOperand(2)};
  if (op.getOpName() == kMm && op->getNumOperands() == 2)
    return {Value(), op->getOperand(0), op->getOperand(1)};
  return {};
}

/// Shapes and attributes (not weight provenance): why not, or nullopt.
std::optional<std::string> refuseShape(exir::AtenOp op) {
  llvm::StringRef name = op.getOpName();
  if (name != kAddmm && name != kMm)
    return "the cachetest backend computes only linear layers (addmm, mm)";
  Linear l = operandsOf(op);
  if (!l.x || op->getNumResults() != 1)
    return "unexpected operand or result count";
  RankedTensorType x = f32Tensor(l.x, 2), wT = f32Tensor(l.wT, 2),
                   y = f32Tensor(op->getResult(0), 2);
  if (!x || !wT || !y)
    return "x, weight and result must be static 2-d float32 tensors";
  const int64_t m = x.getDimSize(0), k = x.getDimSize(1), n = wT.getDimSize(1);
  if (wT.getDimSize(0) != k || y.getDimSize(0) != m || y.getDimSize(1) != n)
    return "shapes do not form [M, K] @ [K, N] -> [M, N]";
  if (k <= 0 || n <= 0 || k > (1 << 20) || n > (1 << 20) || n * k > (int64_t(1) << 28))
    return "weight too large or empty";
  if (l.bias) {
    RankedTensorType b = f32Tensor(l.bias, 1);
    if (!b || b.getDimSize(0) != n)
      return "bias must be a float32 [N] tensor (no other broadcasting)";
    if (!isScalarOne(op.getArgAttr("alpha")) || !isScalarOne(op.getArgAttr("beta")))
      return "addmm with alpha or beta other than 1";
    if (l.bias == l.x || l.bias == l.wT)
      return "bias is also another operand";
  }
  if (l.x == l.wT)
    return "x is also the weight";
  return std::nullopt;
}

bool readFloats(Operation *at, ElementsAttr value, size_t count, std::vector<float> &out) {
  std::vector<uint8_t> bytes;
  if (failed(exir::getElementsBytes(at, value, bytes)))
    return false;
  if (bytes.size() != count * sizeof(float)) {
    at->emitError("cachetest backend: weight has ")
        << bytes.size() << " bytes, expected " << count * sizeof(float);
    return false;
  }
  out.resize(count);
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits = uint32_t(bytes[4 * i]) | uint32_t(bytes[4 * i + 1]) << 8 |
                    uint32_t(bytes[4 * i + 2]) << 16 | uint32_t(bytes[4 * i + 3]) << 24;
    std::memcpy(&out[i], &bits, sizeof bits);
  }
  return true;
}

void putU32(std::string &out, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<char>(v >> (8 * i)));
}

void putF32(std::string &out, float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  putU32(out, bits);
}

class CacheTestAotBackend final : public AotBackend {
public:
  llvm::StringRef id() const override { return kCacheTestAotId; }
  llvm::StringRef name() const override { return kCacheTestAotName; }

  std::optional<std::string> refuse(Operation *op) const override {
    auto aten = llvm::dyn_cast<exir::AtenOp>(op);
    if (!aten)
      return "not an ATen operator";
    if (std::optional<std::string> why = refuseShape(aten))
      return why;
    Linear l = operandsOf(aten);
    std::string why;
    if (!constantWeight(l.wT, why))
      return "weight: " + why;
    if (l.bias && !constantWeight(l.bias, why))
      return "bias: " + why;
    return std::nullopt;
  }

  /// One linear per region: the region function's arguments are then
  /// exactly [bias, x, wT] or [x, wT].
  llvm::SmallVector<OpGroup> group(llvm::ArrayRef<Operation *> ops) const override {
    llvm::SmallVector<OpGroup> groups;
    for (Operation *op : ops)
      groups.push_back({op});
    return groups;
  }

  FailureOr<PreprocessResult> preprocess(func::FuncOp region) const override {
    auto refuseRegion = [&](const llvm::Twine &why) {
      return region.emitError("cachetest backend cannot compute this region: ") << why;
    };
    Block &body = region.getBody().front();
    auto ops = body.without_terminator();
    if (std::distance(ops.begin(), ops.end()) != 1)
      return refuseRegion("it must hold exactly one linear (addmm or mm)");
    auto op = llvm::dyn_cast<exir::AtenOp>(&*ops.begin());
    if (!op)
      return refuseRegion("not an ATen operator");
    if (std::optional<std::string> why = refuseShape(op))
      return refuseRegion(*why);
    Linear l = operandsOf(op);
    Operation *ret = body.getTerminator();
    const unsigned nargs = l.bias ? 3 : 2;
    bool layout = region.getNumArguments() == nargs && ret->getNumOperands() == 1 &&
                  ret->getOperand(0) == op->getResult(0);
    if (layout && l.bias)
      layout = l.bias == body.getArgument(0) && l.x == body.getArgument(1) &&
               l.wT == body.getArgument(2);
    else if (layout)
      layout = l.x == body.getArgument(0) && l.wT == body.getArgument(1);
    if (!layout)
      return refuseRegion(l.bias ? "an addmm region takes [bias, x, wT] and returns the addmm"
                                 : "an mm region takes [x, wT] and returns the mm");

    // The weights' bytes, from the attributes OutlineDelegates put on the
    // region's arguments.
    auto weightValue = [&](unsigned i) {
      return region.getArgAttrOfType<ElementsAttr>(i, kWeightValueAttrName);
    };
    const unsigned wIndex = l.bias ? 2 : 1;
    ElementsAttr wValue = weightValue(wIndex);
    ElementsAttr bValue = l.bias ? weightValue(0) : ElementsAttr();
    if (!wValue || (l.bias && !bValue))
      return refuseRegion("its weights are not constants (no exir.weight_value on the "
                          "region's weight arguments)");
    auto wT = llvm::cast<RankedTensorType>(l.wT.getType());
    const int64_t k = wT.getDimSize(0), n = wT.getDimSize(1);
    if (wValue.getShapedType().getShape() != wT.getShape() ||
        (bValue && bValue.getShapedType().getShape() != llvm::ArrayRef<int64_t>{n}))
      return refuseRegion("a weight's value does not have its argument's shape");

    std::vector<float> wTData, bias(static_cast<size_t>(n), 0.0f);
    if (!readFloats(region, wValue, static_cast<size_t>(k * n), wTData))
      return failure();
    if (bValue && !readFloats(region, bValue, static_cast<size_t>(n), bias))
      return failure();
    // W = wT transposed: [N, K] row-major, as the runtime half reads it.
    std::vector<float> w(static_cast<size_t>(n * k));
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < k; ++c)
        w[r * k + c] = wTData[c * n + r];

    PreprocessResult result;
    result.blob = makeCacheTestAotBlob(w, bias, static_cast<uint32_t>(k));
    if (result.blob.empty())
      return refuseRegion("cannot encode the weights");
    result.shareHandleAcrossCalls = true; // execute keeps no per-call state
    return result;
  }
};

} // namespace

std::string makeCacheTestAotBlob(const std::vector<float> &weight,
                                 const std::vector<float> &bias, uint32_t inFeatures) {
  const size_t n = bias.size();
  if (n == 0 || inFeatures == 0 || n > UINT32_MAX / 4 || weight.size() != n * inFeatures)
    return {};
  std::string payload;
  payload.reserve(16 + 4 * (weight.size() + n));
  putU32(payload, static_cast<uint32_t>(n));
  putU32(payload, inFeatures);
  putU32(payload, static_cast<uint32_t>(4 * n)); // workspace: one output row
  putU32(payload, 0);
  for (float f : weight)
    putF32(payload, f);
  for (float f : bias)
    putF32(payload, f);
  const uint64_t signature = rt::cache::fnv1a64(payload.data(), payload.size());
  uint8_t header[rt::cache::kContextBlobHeaderSize];
  rt::cache::writeContextBlobHeader(signature, payload.size(), header);
  return std::string(reinterpret_cast<const char *>(header), sizeof header) + payload;
}

std::unique_ptr<AotBackend> createCacheTestAotBackend(llvm::StringRef options,
                                                      std::string *error) {
  if (!options.empty()) {
    *error = "cachetest: takes no options, got '" + options.str() + "'";
    return nullptr;
  }
  return std::make_unique<CacheTestAotBackend>();
}

} // namespace ptec::aot::cachetest
