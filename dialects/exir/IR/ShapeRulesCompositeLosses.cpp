//===- ShapeRulesCompositeLosses.cpp - loss functions ---------------------===//
//
// Rules of the losses that legalize-to-core-aten decomposes
// (passes/LegalizeReduceLosses.cpp): reduction 0 ('none') keeps the
// pointwise shape (or the target's for class-index losses), 1 and 2 give a
// 0-dim result. Registered with the composite reductions
// (ShapeRulesCompositeReduce.cpp).
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ShapeRulesSupport.h"

using namespace mlir;

namespace ptec::exir::rules {
namespace {

Type floatOrDefault(RuleContext &c, Type t) {
  return isFloating(t) || isComplex(t) ? t : c.defaultFloat();
}

int64_t reductionOf(RuleContext &c) { return c.getInt("reduction"); }

LogicalResult checkReduction(RuleContext &c) {
  int64_t r = reductionOf(c);
  if (r < 0 || r > 2)
    return c.fail("reduction must be 0 (none), 1 (mean) or 2 (sum), got " + llvm::Twine(r));
  return success();
}

/// Pointwise losses of broadcast operands; 'mean' and 'sum' give 0-dim.
LogicalResult pointwiseLoss(RuleContext &c, ArrayRef<StringRef> names) {
  SmallVector<ArrayRef<int64_t>> shapes;
  SmallVector<StringRef> present;
  ResultType rt;
  for (StringRef n : names) {
    RankedTensorType t = c.type(n);
    if (!t)
      continue;
    shapes.push_back(t.getShape());
    present.push_back(n);
    rt.add(t);
  }
  Shape shape;
  if (failed(checkReduction(c)) || failed(c.broadcast(shapes, present, shape)))
    return failure();
  Type e = rt.get();
  return c.succeed(reductionOf(c) == 0 ? shape : Shape{}, e ? floatOrDefault(c, e) : e);
}

LogicalResult selfTargetLoss(RuleContext &c) {
  return pointwiseLoss(c, {"self", "target", "weight", "pos_weight"});
}
LogicalResult inputTargetLoss(RuleContext &c) { return pointwiseLoss(c, {"input", "target"}); }
LogicalResult rankingLoss(RuleContext &c) {
  return pointwiseLoss(c, {"input1", "input2", "target"});
}

/// nll_loss and its forms: self [N, C, d...] or [C], target [N, d...] or [].
LogicalResult nllLoss(RuleContext &c) {
  RankedTensorType self, target;
  if (failed(c.require("self", self)) || failed(c.require("target", target)) ||
      failed(checkReduction(c)))
    return failure();
  int64_t classDim = self.getRank() < 2 ? 0 : 1;
  Shape expected(self.getShape());
  if (self.getRank() == 0)
    return c.fail("'self' must have at least one dim");
  expected.erase(expected.begin() + classDim);
  if (target.getShape() != ArrayRef<int64_t>(expected))
    return c.fail("'target' " + describe(target) + " must have the shape of 'self' " +
                  describe(self) + " without its class dim");
  if (!isIntegral(target.getElementType(), false))
    return c.fail("'target' must hold integer class indices, got " + describe(target));
  if (RankedTensorType w = c.type("weight"))
    if (numel(w.getShape()) != self.getDimSize(classDim))
      return c.fail("'weight' " + describe(w) + " must have one element per class");
  Type e = self.getElementType();
  c.produce(reductionOf(c) == 0 ? expected : Shape{}, e);
  if (c.getOp().getOpName().contains("_forward"))
    c.produce({}, e);
  return success();
}

LogicalResult crossEntropy(RuleContext &c) {
  RankedTensorType self, target;
  if (failed(c.require("self", self)) || failed(c.require("target", target)) ||
      failed(checkReduction(c)))
    return failure();
  if (self.getRank() == 0)
    return c.fail("'self' must have at least one dim");
  int64_t classDim = self.getRank() < 2 ? 0 : 1;
  Shape expected(self.getShape());
  expected.erase(expected.begin() + classDim);
  if (target.getShape() != self.getShape()) {
    if (target.getShape() != ArrayRef<int64_t>(expected))
      return c.fail("'target' " + describe(target) + " must be class indices shaped like " +
                    describeShape(expected) + " or probabilities shaped like 'self' " +
                    describe(self));
    if (!isIntegral(target.getElementType(), false))
      return c.fail("'target' class indices must be integers, got " + describe(target));
  }
  return c.succeed(reductionOf(c) == 0 ? expected : Shape{}, self.getElementType());
}

LogicalResult cosineEmbeddingLoss(RuleContext &c) {
  RankedTensorType a, b, target;
  if (failed(c.require("input1", a)) || failed(c.require("input2", b)) ||
      failed(c.require("target", target)) || failed(checkReduction(c)))
    return failure();
  if (a.getShape() != b.getShape() || target.getRank() + 1 != a.getRank())
    return c.fail("'input1' " + describe(a) + ", 'input2' " + describe(b) + " and 'target' " +
                  describe(target) + " do not fit together");
  return c.succeed(reductionOf(c) == 0 ? Shape(target.getShape()) : Shape{},
                   a.getElementType());
}

LogicalResult marginLoss(RuleContext &c) {
  RankedTensorType self;
  if (failed(c.require("self", self)) || failed(checkReduction(c)) ||
      failed(c.requireRank("self", self, 0, 2)))
    return failure();
  // 'none' of a 0- or 1-dim input: [1] in PyTorch's meta functions (what
  // torch.export declares), although eager returns a 0-dim tensor.
  Shape none = self.getRank() == 2 ? Shape{self.getDimSize(0)} : Shape{1};
  c.produce(reductionOf(c) == 0 ? none : Shape{}, self.getElementType());
  if (c.getOp().getOpName().contains("_forward"))
    c.produce(self.getShape(), self.getElementType());
  return success();
}

LogicalResult tripletLoss(RuleContext &c) {
  RankedTensorType a, p, n;
  if (failed(c.require("anchor", a)) || failed(c.require("positive", p)) ||
      failed(c.require("negative", n)) || failed(checkReduction(c)))
    return failure();
  Shape shape;
  if (failed(c.broadcast({a.getShape(), p.getShape(), n.getShape()},
                         {"anchor", "positive", "negative"}, shape)))
    return failure();
  if (!shape.empty())
    shape.pop_back();
  return c.succeed(reductionOf(c) == 0 ? shape : Shape{}, a.getElementType());
}

} // namespace

void addCompositeLossRules(RuleTable &t) {
  addRules(t,
           {"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
            "binary_cross_entropy_with_logits", "kl_div", "soft_margin_loss",
            "hinge_embedding_loss"},
           selfTargetLoss);
  addRules(t, {"poisson_nll_loss"}, inputTargetLoss);
  addRules(t, {"margin_ranking_loss"}, rankingLoss);
  addRules(t,
           {"nll_loss", "nll_loss2d", "nll_loss_forward", "nll_loss2d_forward", "nll_loss_nd"},
           nllLoss);
  addRules(t, {"cross_entropy_loss"}, crossEntropy);
  addRules(t, {"cosine_embedding_loss"}, cosineEmbeddingLoss);
  addRules(t, {"multi_margin_loss", "multilabel_margin_loss", "multilabel_margin_loss_forward"},
           marginLoss);
  addRules(t, {"triplet_margin_loss"}, tripletLoss);
}

} // namespace ptec::exir::rules
