//===- LegalizeToCoreAten.cpp - non-core ATen ops to core ATen ------------===//
//
// The training IR that torch.export produces by default keeps composite ops
// (linear, conv2d, batch_norm, layer_norm, matmul, ...) and views. ExecuTorch
// programs run core ATen ops with copy semantics, so this pass
//  - renames views to their `_copy` forms (same arguments),
//  - drops no-ops (detach, alias, contiguous, eval-mode dropout, asserts),
//  - decomposes composites into core ops.
// An op it cannot legalize is left for to-out-variants, which reports every
// op without a kernel together.
// This file is the driver: it picks each op's rewrite by name and does the
// renames and no-op removal itself; the decompositions live in Legalize*.cpp
// by op family, on the Legalizer class of Legalizer.h.
//
//===----------------------------------------------------------------------===//

#include "passes/Legalizer.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace ptec {
#define GEN_PASS_DEF_LEGALIZETOCOREATEN
#include "passes/Passes.h.inc"

namespace legalize {

LogicalResult Legalizer::rename(StringRef newName,
                                ArrayRef<std::pair<StringRef, StringRef>> renames) {
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute na : op->getDiscardableAttrs()) {
    StringRef n = na.getName().getValue();
    for (auto [from, to] : renames)
      if (n == from)
        n = to;
    attrs.push_back(attr(n, na.getValue()));
  }
  // Symbolic-int bindings follow their argument's new name.
  for (NamedAttribute &na : attrs) {
    auto binds = llvm::dyn_cast<ArrayAttr>(na.getValue());
    if (na.getName() != exir::kSymArgsAttrName || !binds)
      continue;
    SmallVector<Attribute> renamed;
    for (Attribute a : binds) {
      std::string entry = llvm::cast<StringAttr>(a).str();
      for (auto [from, to] : renames)
        if (StringRef(entry).starts_with(from) &&
            (entry.size() == from.size() || entry[from.size()] == '['))
          entry = to.str() + entry.substr(from.size());
      renamed.push_back(b.getStringAttr(entry));
    }
    na = attr(exir::kSymArgsAttrName, b.getArrayAttr(renamed));
  }
  auto newOp = b.create<exir::AtenOp>(loc, newName, op->getResultTypes(),
                                      op.getInputs(), op.getOperandSegments(),
                                      attrs);
  return replace(SmallVector<Value>(newOp->getResults()));
}

LogicalResult Legalizer::replace(ArrayRef<Value> values) {
  if (values.size() != op->getNumResults())
    return op.emitError("internal: the rewrite of '")
           << op.getOpName() << "' gives " << values.size() << " values for "
           << op->getNumResults() << " results";
  for (auto [i, r, v] : llvm::enumerate(op->getResults(), values))
    if (r.getType() != v.getType())
      return op.emitError("internal: the rewrite of '")
             << op.getOpName() << "' computes " << v.getType() << " for result #" << i
             << ", which the graph declares " << r.getType();
  for (auto [r, v] : llvm::zip(op->getResults(), values))
    r.replaceAllUsesWith(v);
  op->erase();
  return success();
}

void addLegalizations(LegalizeTable &t, std::initializer_list<const char *> names,
                      LegalizeFn fn, Dynamic dynamic) {
  for (const char *n : names)
    t[n] = LegalizeRule{fn, dynamic};
}

void addRefusals(LegalizeTable &t, std::initializer_list<const char *> names,
                 const char *reason) {
  for (const char *n : names)
    t[n] = LegalizeRule{[](Legalizer &L) -> LogicalResult {
                          const LegalizeRule &r = legalizeTable().find(L.op.getOpName())->second;
                          return L.op.emitError("'") << L.op.getOpName()
                                                     << "' is not supported: " << r.refusal;
                        },
                        Dynamic::Handled, reason};
}

const LegalizeTable &legalizeTable() {
  static const LegalizeTable table = [] {
    LegalizeTable t;
    addCoreLegalizations(t);
    addElementwiseLegalizations(t);
    addLinearAlgebraLegalizations(t);
    addNormalizationLegalizations(t);
    addOverloadLegalizations(t);
    addViewLegalizations(t);
    addNNLegalizations(t);
    addRnnLegalizations(t);
    addResampleLegalizations(t);
    addShapeLegalizations(t);
    addMiscLegalizations(t);
    addReduceLegalizations(t);
    return t;
  }();
  return table;
}

LogicalResult Legalizer::run() {
  const LegalizeTable &t = legalizeTable();
  auto it = t.find(op.getOpName());
  if (it == t.end())
    return success(); // already core, or left for later passes to report
  if (dynamic && it->second.dynamic == Dynamic::Refuse)
    // The rewrite derives sizes from static types; with dynamic shapes
    // those are upper bounds, not the run-time sizes.
    return op.emitError("'") << op.getOpName()
                             << "' on a dynamically shaped value is not supported yet: its "
                                "decomposition needs static shapes (export with "
                                "run_decompositions() to get core ATen ops)";
  return it->second.fn(*this);
}

namespace {

/// A slice over a whole dimension with step 1 is the identity. Not when
/// start or end is a symbolic int: the types then hold the sizes at the
/// bound, where the slice may be whole, while a run-time end can be smaller.
bool isFullSlice(exir::AtenOp op, Value whole, Value part) {
  if (!whole || !part || whole.getType() != part.getType())
    return false;
  if (!op.getSymOperands().empty())
    return false;
  if (intArg(op, "step", 1) != 1)
    return false;
  Attribute start = op->getAttr("start");
  return !start || llvm::isa<exir::NoneAttr>(start) ||
         llvm::cast<IntegerAttr>(start).getInt() == 0;
}

/// Views: same arguments, copy semantics.
const llvm::StringMap<StringRef> &copyForms() {
  static const llvm::StringMap<StringRef> m = {
      {"aten::view", "aten::view_copy"},
      {"aten::_unsafe_view", "aten::view_copy"},
      {"aten::permute", "aten::permute_copy"},
      {"aten::expand", "aten::expand_copy"},
      {"aten::slice.Tensor", "aten::slice_copy.Tensor"},
      {"aten::select.int", "aten::select_copy.int"},
      {"aten::unsqueeze", "aten::unsqueeze_copy"},
      {"aten::squeeze.dim", "aten::squeeze_copy.dim"},
      {"aten::squeeze.dims", "aten::squeeze_copy.dims"},
      {"aten::transpose.int", "aten::transpose_copy.int"},
      {"aten::t", "aten::t_copy"},
      {"aten::split_with_sizes", "aten::split_with_sizes_copy"},
      {"aten::split.Tensor", "aten::split_copy.Tensor"},
      {"aten::unbind.int", "aten::unbind_copy.int"},
      {"aten::diagonal", "aten::diagonal_copy"},
      {"aten::unfold", "aten::unfold_copy"},
  };
  return m;
}

LogicalResult copyForm(Legalizer &L) {
  return L.rename(copyForms().lookup(L.op.getOpName()));
}

// Identity slices (torch.export writes `x[:, a:b] = y` as slice/slice_scatter
// over every leading dim): drop them so state updates can be done in place.
// Not on run-time shapes: equal types there are equal bounds, and e.g. a
// slice_scatter's src may hold fewer rows than the slice at run time.
LogicalResult slice(Legalizer &L) {
  if (!L.dynamic && isFullSlice(L.op, L.operand("self"), L.op->getResult(0)))
    return L.replace({L.operand("self")});
  if (L.op.getOpName() == "aten::slice.Tensor")
    return copyForm(L);
  return success();
}

LogicalResult sliceScatter(Legalizer &L) {
  if (!L.dynamic && isFullSlice(L.op, L.operand("self"), L.operand("src")))
    return L.replace({L.operand("src")});
  return success();
}

/// No-ops: the op's result is its input.
LogicalResult identity(Legalizer &L) { return L.replace({L.op.getInputs().front()}); }

LogicalResult evalDropout(Legalizer &L) {
  if (!boolArg(L.op, "train", false) && L.op.getOpName() != "aten::native_dropout")
    return identity(L);
  auto p = L.op->getAttrOfType<FloatAttr>("p");
  if (boolArg(L.op, "train", false) && p && p.getValueAsDouble() == 0 &&
      L.op.getOpName() != "aten::native_dropout")
    return identity(L);
  if (!boolArg(L.op, "train", false))
    return success(); // eval-mode native_dropout: its kernel runs it
  return L.op.emitError("'") << L.op.getOpName()
                             << "' in training mode is random (it zeroes elements at each "
                                "call); export the model in eval mode (model.eval()) so that "
                                "dropout is the identity";
}

// A functional copy of a same-typed source (what `buf.copy_(src)` becomes)
// IS the source: no temporary, and write-back copies the source itself.
LogicalResult copy(Legalizer &L) {
  exir::AtenOp op = L.op;
  if (op->getNumOperands() == 2 && !L.dynamic &&
      op->getOperand(1).getType() == op->getResult(0).getType())
    return L.replace({op->getOperand(1)});
  return success();
}

/// Asserts and range constraints without users vanish.
LogicalResult assertion(Legalizer &L) {
  if (L.op->use_empty())
    L.op->erase();
  return success();
}

/// What `zero_` becomes: no kernel of its own; a fill with 0.
LogicalResult zero(Legalizer &L) {
  return L.replaceWith(L.make("aten::fill.Scalar", L.op->getResult(0).getType(),
                              {{L.op.getInputs().front()}}, {L.i64("value", 0)}));
}

/// What `index_copy_` becomes (KV caches): index_put with the index at
/// position `dim` of the index list, None before it.
LogicalResult indexCopy(Legalizer &L) {
  exir::AtenOp op = L.op;
  int64_t dim = intArg(op, "dim", 0);
  RankedTensorType st = tensorType(op.getInputs().front());
  if (dim < 0 && st)
    dim += st.getRank();
  if (!st || dim < 0 || dim >= st.getRank())
    return op.emitError("index_copy: dim out of range");
  SmallVector<bool> present(dim + 1, false);
  present.back() = true;
  return L.replaceWith(L.make("aten::index_put", op->getResult(0).getType(),
                              {{L.operand("self")}, {L.operand("index")}, {L.operand("source")}},
                              {L.attr("indices", L.b.getDenseBoolArrayAttr(present))}));
}

} // namespace

void addCoreLegalizations(LegalizeTable &t) {
  for (const auto &e : copyForms())
    if (e.getKey() != "aten::slice.Tensor")
      t[e.getKey()] = LegalizeRule{copyForm, Dynamic::Handled};
  addLegalizations(t, {"aten::slice.Tensor", "aten::slice_copy.Tensor"}, slice,
                   Dynamic::Handled);
  addLegalizations(t, {"aten::slice_scatter"}, sliceScatter, Dynamic::Handled);
  addLegalizations(
      t, {"aten::reshape"},
      [](Legalizer &L) { return L.rename("aten::view_copy", {{"shape", "size"}}); },
      Dynamic::Handled);
  addLegalizations(t,
                   {"aten::detach", "aten::alias", "aten::contiguous", "aten::lift_fresh",
                    "aten::lift", "aten::detach_"},
                   identity, Dynamic::Handled);
  addLegalizations(t,
                   {"aten::dropout", "aten::feature_dropout", "aten::alpha_dropout",
                    "aten::feature_alpha_dropout", "aten::native_dropout"},
                   evalDropout, Dynamic::Handled);
  addLegalizations(t, {"aten::copy"}, copy, Dynamic::Handled);
  addLegalizations(t,
                   {"aten::_assert_async", "aten::_assert_async.msg", "aten::_assert_scalar",
                    "aten::_assert_tensor_metadata", "aten::sym_constrain_range",
                    "aten::sym_constrain_range_for_size"},
                   assertion, Dynamic::Handled);
  addRefusals(t, {"aten::_functional_assert_async.msg"},
              "a functional assert whose result is a token the program would have to carry; "
              "export with torch._check(...) in the model, which torch.export turns into "
              "checks ptec drops or runs");
  addLegalizations(t, {"aten::zero"}, zero, Dynamic::Handled);
  addLegalizations(t, {"aten::index_copy"}, indexCopy, Dynamic::Handled);
}

} // namespace legalize

namespace {
using namespace mlir;
using legalize::Legalizer;

struct LegalizeToCoreAtenPass
    : impl::LegalizeToCoreAtenBase<LegalizeToCoreAtenPass> {
  using LegalizeToCoreAtenBase::LegalizeToCoreAtenBase;

  void runOnOperation() override {
    SmallVector<std::pair<exir::AtenOp, bool>> work;
    getOperation().walk([&](func::FuncOp func) {
      llvm::DenseSet<Value> dynamic = exir::findDynamicValues(func);
      func.walk([&](exir::AtenOp op) {
        work.push_back({op, exir::usesDynamicValue(op, dynamic)});
      });
    });
    bool ok = true;
    for (auto [op, dynamic] : work)
      ok &= succeeded(Legalizer(op, dynamic).run());
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
} // namespace ptec
