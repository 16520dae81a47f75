//===- FoldConstants.cpp - layout ops on constants at compile time --------===//
//
// `linear` becomes `addmm(b, x, permute_copy(W))`: without folding, every call
// transposes W again and the memory plan holds a second copy of it. Layout ops
// (which move bytes but compute nothing) over parameters and constants are
// evaluated here instead, and their results become new constant weights.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

namespace ptec {
#define GEN_PASS_DEF_FOLDCONSTANTS
#include "passes/Passes.h.inc"

using namespace mlir;

namespace {

size_t elementBytes(Type t) {
  unsigned bits = t.getIntOrFloatBitWidth();
  return bits == 1 ? 1 : bits / 8;
}

/// `in` (shape `inShape`) permuted so that output dim k is input dim perm[k].
std::vector<uint8_t> permute(ArrayRef<uint8_t> in, ArrayRef<int64_t> inShape,
                             ArrayRef<int64_t> perm, size_t elem) {
  size_t rank = inShape.size();
  SmallVector<int64_t> inStride(rank, 1), outShape(rank);
  for (int64_t i = static_cast<int64_t>(rank) - 2; i >= 0; --i)
    inStride[i] = inStride[i + 1] * inShape[i + 1];
  for (size_t k = 0; k < rank; ++k)
    outShape[k] = inShape[perm[k]];
  std::vector<uint8_t> out(in.size());
  SmallVector<int64_t> idx(rank, 0);
  size_t numel = in.size() / elem;
  for (size_t o = 0; o < numel; ++o) {
    int64_t src = 0;
    for (size_t k = 0; k < rank; ++k)
      src += idx[k] * inStride[perm[k]];
    std::memcpy(&out[o * elem], &in[src * elem], elem);
    for (int64_t k = static_cast<int64_t>(rank) - 1; k >= 0; --k) {
      if (++idx[k] < outShape[k])
        break;
      idx[k] = 0;
    }
  }
  return out;
}

/// The permutation an op applies, or nullopt for a pure reshape/copy; sets
/// `foldable` to false for ops this pass does not evaluate.
std::optional<SmallVector<int64_t>> permutationOf(exir::AtenOp op, bool &foldable) {
  StringRef name = op.getOpName();
  auto in = llvm::cast<RankedTensorType>(op->getOperand(0).getType());
  int64_t rank = in.getRank();
  auto identity = [&] {
    SmallVector<int64_t> p;
    for (int64_t i = 0; i < rank; ++i)
      p.push_back(i);
    return p;
  };
  auto norm = [&](int64_t d) { return d < 0 ? d + rank : d; };
  foldable = true;
  if (name == "aten::permute_copy") {
    SmallVector<int64_t> p;
    for (int64_t d : op->getAttrOfType<DenseI64ArrayAttr>("dims").asArrayRef())
      p.push_back(norm(d));
    return p;
  }
  if (name == "aten::transpose_copy.int" || name == "aten::t_copy") {
    SmallVector<int64_t> p = identity();
    if (rank < 2)
      return std::nullopt;
    int64_t a = rank - 2, b = rank - 1;
    if (name == "aten::transpose_copy.int") {
      a = norm(op->getAttrOfType<IntegerAttr>("dim0").getInt());
      b = norm(op->getAttrOfType<IntegerAttr>("dim1").getInt());
    }
    std::swap(p[a], p[b]);
    return p;
  }
  if (llvm::is_contained({"aten::view_copy", "aten::unsqueeze_copy",
                          "aten::squeeze_copy.dim", "aten::squeeze_copy.dims",
                          "aten::clone", "aten::alias_copy",
                          "aten::detach_copy", "aten::lift_fresh_copy"},
                         name))
    return std::nullopt;
  foldable = false;
  return std::nullopt;
}

/// A short, deterministic description of the op for the new weight's name:
/// its name and every integer (list) argument, in schema order, since those
/// decide the folded bytes (`w@permute_copy(1,0)`, `w@transpose_copy.int(0,1)`,
/// `w@unsqueeze_copy(0)`). Two folds of one weight share a name only when
/// they compute the same bytes.
std::string describe(exir::AtenOp op) {
  std::string s = "@" + op.getOpName().rsplit("::").second.str();
  SmallVector<std::string> parts;
  if (const schema::FunctionSchema *schema = op.getSchema())
    for (const schema::Argument &a : schema->arguments) {
      Attribute v = op->getAttr(a.name);
      if (auto i = llvm::dyn_cast_or_null<IntegerAttr>(v); i && !llvm::isa<BoolAttr>(v))
        parts.push_back(std::to_string(i.getInt()));
      else if (auto list = llvm::dyn_cast_or_null<DenseI64ArrayAttr>(v))
        for (int64_t d : list.asArrayRef())
          parts.push_back(std::to_string(d));
    }
  if (!parts.empty())
    s += "(" + llvm::join(parts, ",") + ")";
  return s;
}

struct FoldConstantsPass : impl::FoldConstantsBase<FoldConstantsPass> {
  using FoldConstantsBase::FoldConstantsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (func.isPublic() && !func.isDeclaration() &&
          failed(foldFunction(func, symbols)))
        return signalPassFailure();
    removeUnusedWeights(module, symbols);
  }

  /// The constant weight behind `v` (a parameter or constant argument, a
  /// buffer that no method writes, or a value folded earlier in `folded`),
  /// or null.
  exir::WeightOp constantWeight(func::FuncOp func, Value v, SymbolTable &symbols,
                                const DenseMap<Value, exir::WeightOp> &folded) {
    if (exir::WeightOp w = folded.lookup(v))
      return w;
    auto arg = llvm::dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner()->getParentOp() != func)
      return {};
    exir::InputAttr in = exir::getInputAttr(func, arg.getArgNumber());
    if (!in || !in.getFqn() || in.getKind().getValue() == "user_input")
      return {};
    auto w = symbols.lookup<exir::WeightOp>(in.getFqn().getValue());
    if (!w || w.getIsMutable())
      return {};
    return w;
  }

  LogicalResult foldFunction(func::FuncOp func, SymbolTable &symbols) {
    OpBuilder b(func.getContext());
    // Every fold's result becomes a new constant argument; they are added in
    // one go at the end (one at a time rebuilds the signature each time).
    SmallVector<exir::AtenOp> foldedOps;
    SmallVector<exir::WeightOp> foldedWeights;
    DenseMap<Value, exir::WeightOp> folded;
    for (auto op : func.getBody().front().getOps<exir::AtenOp>()) {
      if (op->getNumOperands() != 1 || op->getNumResults() != 1)
        continue;
      bool foldable = false;
      std::optional<SmallVector<int64_t>> perm = permutationOf(op, foldable);
      if (!foldable)
        continue;
      exir::WeightOp src = constantWeight(func, op->getOperand(0), symbols, folded);
      auto resultType = llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
      if (!src || !resultType || !resultType.hasStaticShape())
        continue;
      auto inType = llvm::cast<RankedTensorType>(op->getOperand(0).getType());
      if (src.getValue().getType() != inType)
        return op.emitError("operand type ")
               << inType << " is not the type " << src.getValue().getType()
               << " of the weight @" << src.getSymName() << " it reads";
      if (inType.getElementType() != resultType.getElementType() ||
          inType.getNumElements() != resultType.getNumElements())
        continue;

      std::string name = (src.getSymName() + describe(op)).str();
      auto existing = symbols.lookup<exir::WeightOp>(name);
      if (existing && existing.getValue().getType() != resultType)
        return op.emitError("folded constant '") << name << "' already exists "
                                                    "with another type";
      if (!existing) {
        std::vector<uint8_t> bytes;
        if (failed(exir::getElementsBytes(src, src.getValue(), bytes)))
          return failure();
        if (perm)
          bytes = permute(bytes, inType.getShape(), *perm,
                          elementBytes(inType.getElementType()));
        b.setInsertionPointAfter(src);
        existing = b.create<exir::WeightOp>(
            src.getLoc(), name, "constant", /*is_mutable=*/false,
            exir::makeResourceElements(resultType, name, bytes));
        symbols.insert(existing);
      }
      foldedOps.push_back(op);
      foldedWeights.push_back(existing);
      folded[op->getResult(0)] = existing;
    }
    // The folded values are new constant arguments of the method, in order.
    unsigned first = func.getNumArguments();
    SmallVector<unsigned> indices(foldedOps.size(), first);
    SmallVector<Type> types;
    SmallVector<DictionaryAttr> attrs;
    SmallVector<Location> locs;
    for (auto [op, w] : llvm::zip(foldedOps, foldedWeights)) {
      auto input = exir::InputAttr::get(func.getContext(), b.getStringAttr("constant"),
                                        b.getStringAttr(w.getSymName()));
      types.push_back(op->getResult(0).getType());
      attrs.push_back(
          b.getDictionaryAttr(b.getNamedAttr(exir::ExirDialect::kInputAttrName, input)));
      locs.push_back(op.getLoc());
    }
    if (!foldedOps.empty())
      func.insertArguments(indices, types, attrs, locs);
    for (auto [i, op] : llvm::enumerate(foldedOps)) {
      op->getResult(0).replaceAllUsesWith(func.getArgument(first + i));
      op->erase();
    }
    // Weights no longer used by this method leave its signature.
    llvm::BitVector unused(func.getNumArguments());
    for (BlockArgument arg : func.getArguments()) {
      exir::InputAttr in = exir::getInputAttr(func, arg.getArgNumber());
      if (arg.use_empty() && in && in.getKind().getValue() != "user_input" &&
          in.getKind().getValue() != "buffer")
        unused.set(arg.getArgNumber());
    }
    (void)func.eraseArguments(unused);
    return success();
  }

  void removeUnusedWeights(ModuleOp module, SymbolTable &symbols) {
    llvm::StringSet<> used;
    for (auto func : module.getOps<func::FuncOp>())
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        if (exir::InputAttr in = exir::getInputAttr(func, i))
          if (in.getFqn())
            used.insert(in.getFqn().getValue());
    // Symbol uses, collected once (a walk per weight is quadratic); unknown
    // uses keep every weight, as symbolKnownUseEmpty would.
    std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(module);
    if (!uses)
      return;
    DenseSet<StringAttr> referenced;
    for (const SymbolTable::SymbolUse &use : *uses)
      referenced.insert(use.getSymbolRef().getRootReference());
    for (auto w : llvm::make_early_inc_range(module.getOps<exir::WeightOp>()))
      if (!used.contains(w.getSymName()) && !referenced.contains(w.getSymNameAttr()))
        symbols.erase(w);
  }
};

} // namespace
} // namespace ptec
