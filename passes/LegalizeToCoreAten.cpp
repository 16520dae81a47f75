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
#include "llvm/ADT/StringSwitch.h"

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
  replace(SmallVector<Value>(newOp->getResults()));
  return success();
}

/// A slice over a whole dimension with step 1 is the identity. Not when
/// start or end is a symbolic int: the types then hold the sizes at the
/// bound, where the slice may be whole, while a run-time end can be smaller.
static bool isFullSlice(exir::AtenOp op, Value whole, Value part) {
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

LogicalResult Legalizer::run(bool &error) {
  StringRef name = op.getOpName();
  // Identity slices (torch.export writes `x[:, a:b] = y` as slice/slice_scatter
  // over every leading dim): drop them so state updates can be done in place.
  // Not on run-time shapes: equal types there are equal bounds, and e.g. a
  // slice_scatter's src may hold fewer rows than the slice at run time.
  if ((name == "aten::slice.Tensor" || name == "aten::slice_copy.Tensor") && !dynamic &&
      isFullSlice(op, operandOf(op, "self"), op->getResult(0))) {
    replace({operandOf(op, "self")});
    return success();
  }
  if (name == "aten::slice_scatter" && !dynamic &&
      isFullSlice(op, operandOf(op, "self"), operandOf(op, "src"))) {
    replace({operandOf(op, "src")});
    return success();
  }
  // Views: same arguments, copy semantics.
  StringRef copyForm = llvm::StringSwitch<StringRef>(name)
                           .Case("aten::view", "aten::view_copy")
                           .Case("aten::_unsafe_view", "aten::view_copy")
                           .Case("aten::permute", "aten::permute_copy")
                           .Case("aten::expand", "aten::expand_copy")
                           .Case("aten::slice.Tensor", "aten::slice_copy.Tensor")
                           .Case("aten::select.int", "aten::select_copy.int")
                           .Case("aten::unsqueeze", "aten::unsqueeze_copy")
                           .Case("aten::squeeze.dim", "aten::squeeze_copy.dim")
                           .Case("aten::squeeze.dims", "aten::squeeze_copy.dims")
                           .Case("aten::transpose.int", "aten::transpose_copy.int")
                           .Case("aten::t", "aten::t_copy")
                           .Case("aten::split_with_sizes", "aten::split_with_sizes_copy")
                           .Case("aten::split.Tensor", "aten::split_copy.Tensor")
                           .Case("aten::unbind.int", "aten::unbind_copy.int")
                           .Case("aten::diagonal", "aten::diagonal_copy")
                           .Case("aten::unfold", "aten::unfold_copy")
                           .Default("");
  LogicalResult r = failure();
  if (!copyForm.empty()) {
    r = rename(copyForm);
  } else if (name == "aten::unflatten.int" && !dynamic) {
    // A reshape to the result's (static) shape.
    RankedTensorType rt = tensorType(op->getResult(0));
    r = replaceWith(view(op.getInputs().front(), rt.getShape()));
  } else if (name == "aten::reshape") {
    r = rename("aten::view_copy", {{"shape", "size"}});
  } else if (llvm::is_contained({"aten::detach", "aten::alias", "aten::contiguous",
                                 "aten::lift_fresh", "aten::detach_"},
                                name) ||
             ((name == "aten::dropout" || name == "aten::feature_dropout") &&
              !boolArg(op, "train", false))) {
    replace({op.getInputs().front()});
    return success();
  } else if (name == "aten::copy" && op->getNumOperands() == 2 && !dynamic &&
             op->getOperand(1).getType() == op->getResult(0).getType()) {
    // A functional copy of a same-typed source (what `buf.copy_(src)` becomes)
    // IS the source: no temporary, and write-back copies the source itself.
    replace({op->getOperand(1)});
    return success();
  } else if (name.starts_with("aten::_assert") ||
             name.starts_with("aten::sym_constrain_range")) {
    if (!op->use_empty())
      return failure();
    op->erase();
    return success();
  } else if (dynamic && (llvm::is_contained({"aten::conv1d", "aten::conv2d",
                                              "aten::batch_norm",
                                              "aten::adaptive_avg_pool2d", "aten::max_pool2d",
                                              "aten::squeeze"},
                                             name))) {
    // These decompositions derive sizes from static types; with dynamic
    // shapes those are upper bounds, not the run-time sizes. (linear,
    // matmul, flatten and attention reshape with run-time sizes; softmax,
    // layer_norm and whole-tensor mean/sum take only dims.)
    // (relu6, silu, hardswish and hardsigmoid are not here: they become
    // elementwise ops of the same type, whose kernels take the run-time
    // shape of their input, so they stay valid under dynamic shapes.)
    op.emitError("'") << name
                      << "' on a dynamically shaped value is not supported yet: its "
                         "decomposition needs static shapes (export with "
                         "run_decompositions() to get core ATen ops)";
    error = true;
    return failure();
  } else if (name == "aten::linear") {
    r = linear();
  } else if (name == "aten::conv1d") {
    r = convolution(1);
  } else if (name == "aten::conv2d") {
    r = convolution(2);
  } else if (name == "aten::batch_norm") {
    r = batchNorm();
  } else if (name == "aten::diagonal_scatter") {
    r = diagonalScatter();
  } else if (name == "aten::as_strided" || name == "aten::as_strided_copy") {
    r = asStrided(/*scatter=*/false);
  } else if (name == "aten::as_strided_scatter") {
    r = asStrided(/*scatter=*/true);
  } else if (name == "aten::zero") {
    // What `zero_` becomes: no kernel of its own; a fill with 0.
    r = replaceWith(make("aten::fill.Scalar", op->getResult(0).getType(),
                         {{op.getInputs().front()}}, {i64("value", 0)}));
  } else if (name == "aten::index_copy") {
    // What `index_copy_` becomes (KV caches): index_put with the index at
    // position `dim` of the index list, None before it.
    int64_t dim = intArg(op, "dim", 0);
    RankedTensorType st = tensorType(op.getInputs().front());
    if (dim < 0 && st)
      dim += st.getRank();
    if (!st || dim < 0 || dim >= st.getRank()) {
      op.emitError("index_copy: dim out of range");
      error = true;
      return failure();
    }
    SmallVector<bool> present(dim + 1, false);
    present.back() = true;
    r = replaceWith(make("aten::index_put", op->getResult(0).getType(),
                         {{operandOf(op, "self")}, {operandOf(op, "index")},
                          {operandOf(op, "source")}},
                         {attr("indices", b.getDenseBoolArrayAttr(present))}));
  } else if (name == "aten::_native_batch_norm_legit_functional" ||
             name == "aten::_native_batch_norm_legit.no_stats") {
    r = batchNormLegit();
  } else if ((name == "aten::dropout" || name == "aten::feature_dropout" ||
              name == "aten::native_dropout") &&
             boolArg(op, "train", false)) {
    auto p = op->getAttrOfType<FloatAttr>("p");
    if (p && p.getValueAsDouble() == 0 && name != "aten::native_dropout") {
      replace({op.getInputs().front()});
      return success();
    }
    op.emitError("'") << name
                      << "' in training mode is random (it zeroes elements at each "
                         "call); export the model in eval mode (model.eval()) so that "
                         "dropout is the identity";
    error = true;
    return failure();
  } else if (name == "aten::layer_norm") {
    r = layerNorm();
  } else if (name == "aten::matmul") {
    r = matmulOp();
  } else if (name == "aten::scaled_dot_product_attention") {
    r = sdpa();
  } else if (name == "aten::softmax.int") {
    r = softmax("aten::_softmax");
  } else if (name == "aten::log_softmax.int") {
    r = softmax("aten::_log_softmax");
  } else if (name == "aten::flatten.using_ints") {
    r = flatten();
  } else if (name == "aten::adaptive_avg_pool2d") {
    r = adaptiveAvgPool();
  } else if (name == "aten::max_pool2d") {
    r = maxPool2d();
  } else if (llvm::is_contained({"aten::relu6", "aten::silu", "aten::hardswish",
                                 "aten::hardsigmoid"},
                                name)) {
    r = hardActivation(name.drop_front(6));
  } else if (name == "aten::mean") {
    r = reduceAll("aten::mean.dim");
  } else if (name == "aten::sum") {
    r = reduceAll("aten::sum.dim_IntList");
  } else if (succeeded(overload(name))) {
    return success();
  } else {
    return failure(); // Already core (or left for later passes to report).
  }
  if (failed(r))
    error = true;
  return r;
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
    bool error = false;
    for (auto [op, dynamic] : work)
      (void)Legalizer(op, dynamic).run(error);
    if (error)
      signalPassFailure();
  }
};

} // namespace
} // namespace ptec
