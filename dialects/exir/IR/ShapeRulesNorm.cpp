//===- ShapeRulesNorm.cpp - batch, layer, group and RMS norms -------------===//
//
// Normalizations keep the input's shape and dtype. Per-channel tensors
// (weight, bias, running statistics) have one element per channel; layer
// norms normalize trailing dims that match normalized_shape. The saved
// statistics of batch norm are [C] in training and may be empty ([0]) in
// eval, so their length is not compared; their dtype may be float32 for
// reduced-precision inputs, so it is compared only for float32/float64.
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ShapeRulesSupport.h"

using namespace mlir;

namespace ptec::exir::rules {
namespace {

/// The dtype of saved statistics: the input's, except that reduced
/// precision inputs may keep float32 statistics (left open).
Type statsDtype(Type input) {
  return input.isF32() || input.isF64() ? input : Type();
}

LogicalResult perChannel(RuleContext &c, ArrayRef<StringRef> names, int64_t channels) {
  for (StringRef n : names) {
    RankedTensorType t = c.type(n);
    if (t && numel(t.getShape()) != channels)
      return c.fail("'" + n + "' " + describe(t) + " must have " +
                    llvm::Twine(channels) + " elements, one per channel");
  }
  return success();
}

LogicalResult batchNorm(RuleContext &c) {
  RankedTensorType in;
  if (failed(c.require("input", in)) || failed(c.requireRank("input", in, 2, kMaxTensorRank)))
    return failure();
  int64_t channels = in.getDimSize(1);
  if (failed(perChannel(c, {"weight", "bias", "running_mean", "running_var"}, channels)))
    return failure();
  StringRef name = c.getOp().getOpName();
  bool training = c.has("training") ? c.getBool("training")
                                    : c.has("use_input_stats") && c.getBool("use_input_stats");
  bool needsStats = !training && !name.contains("instance_norm") && !name.contains("no_stats");
  if (needsStats && c.has("running_mean") && (!c.type("running_mean") || !c.type("running_var")))
    return c.fail("running_mean and running_var are needed in eval mode");
  c.produce(Spec::like(in));
  if (name.contains("native_batch_norm") || name.contains("_native_batch_norm_legit")) {
    Type stats = statsDtype(in.getElementType());
    c.produce({kDataDependent}, stats); // [C] in training, maybe [0] in eval
    c.produce({kDataDependent}, stats);
    if (name.contains("functional")) { // the updated running statistics
      for (StringRef n : {"running_mean", "running_var"})
        if (RankedTensorType t = c.type(n))
          c.produce(Spec::like(t));
    }
  }
  return success();
}

/// Trailing dims of `in` must be `normalized`; returns the count of leading
/// dims in `axis`.
LogicalResult normalizedDims(RuleContext &c, RankedTensorType in, ArrayRef<int64_t> normalized,
                             int64_t &axis) {
  if (normalized.empty())
    return c.fail("normalized_shape must not be empty");
  axis = in.getRank() - normalized.size();
  if (axis < 0 || in.getShape().take_back(normalized.size()) != normalized)
    return c.fail("normalized_shape " + describeShape(normalized) +
                  " must match the trailing dims of 'input' " + describe(in));
  for (StringRef n : {"weight", "bias"}) {
    RankedTensorType t = c.type(n);
    if (t && t.getShape() != normalized)
      return c.fail("'" + n + "' " + describe(t) + " must have normalized_shape " +
                    describeShape(normalized));
  }
  return success();
}

LogicalResult layerNorm(RuleContext &c) {
  RankedTensorType in;
  Shape normalized = c.getInts("normalized_shape");
  int64_t axis;
  if (failed(c.require("input", in)) || failed(normalizedDims(c, in, normalized, axis)))
    return failure();
  c.produce(Spec::like(in));
  if (c.getOp().getOpName().contains("native_layer_norm")) {
    Shape stats(in.getShape());
    for (int64_t i = axis; i < in.getRank(); ++i)
      stats[i] = 1;
    c.produce(stats, statsDtype(in.getElementType()));
    c.produce(stats, statsDtype(in.getElementType()));
  }
  return success();
}

LogicalResult layerNormBackward(RuleContext &c) {
  RankedTensorType g, in;
  Shape normalized = c.getInts("normalized_shape");
  int64_t axis;
  if (failed(c.require("grad_out", g)) || failed(c.require("input", in)) ||
      failed(normalizedDims(c, in, normalized, axis)))
    return failure();
  if (g.getShape() != in.getShape())
    return c.fail("'grad_out' " + describe(g) + " must have the shape of 'input' " +
                  describe(in));
  c.produce(Spec::like(in));
  c.produce(normalized, in.getElementType());
  return c.succeed(normalized, in.getElementType());
}

LogicalResult groupNorm(RuleContext &c) {
  RankedTensorType in;
  if (failed(c.require("input", in)) || failed(c.requireRank("input", in, 2, kMaxTensorRank)))
    return failure();
  int64_t channels = in.getDimSize(1), groups = c.getInt("num_groups");
  if (groups <= 0 || channels % groups != 0)
    return c.fail("the channels of 'input' " + describe(in) +
                  " must be divisible by num_groups=" + llvm::Twine(groups));
  if (failed(perChannel(c, {"weight", "bias"}, channels)))
    return failure();
  return c.succeed(Spec::like(in));
}

LogicalResult nativeGroupNorm(RuleContext &c) {
  RankedTensorType in;
  if (failed(c.require("input", in)))
    return failure();
  int64_t n = c.getInt("N"), ch = c.getInt("C"), hw = c.getInt("HxW"),
          group = c.getInt("group");
  int64_t count = mulSat(mulSat(n, ch), hw);
  if (count != numel(in.getShape()))
    return c.fail("N*C*HxW = " + llvm::Twine(count) +
                  " must be the element count of 'input' " + describe(in));
  if (group <= 0 || ch % group != 0)
    return c.fail("C=" + llvm::Twine(ch) + " must be divisible by group=" +
                  llvm::Twine(group));
  if (failed(perChannel(c, {"weight", "bias"}, ch)))
    return failure();
  if (c.getOp().getOpName().contains("backward")) {
    c.produce(Spec::like(in));
    c.produce({ch}, in.getElementType());
    return c.succeed({ch}, in.getElementType());
  }
  c.produce(Spec::like(in));
  c.produce({n, group}, statsDtype(in.getElementType()));
  return c.succeed({n, group}, statsDtype(in.getElementType()));
}

} // namespace

void addNormRules(RuleTable &t) {
  addRules(t, {"batch_norm", "native_batch_norm", "_native_batch_norm_legit",
               "_native_batch_norm_legit.no_stats", "_native_batch_norm_legit_functional",
               "_native_batch_norm_legit_no_training", "instance_norm"},
           batchNorm);
  addRules(t, {"layer_norm", "native_layer_norm", "rms_norm"}, layerNorm);
  addRules(t, {"native_layer_norm_backward"}, layerNormBackward);
  addRules(t, {"group_norm"}, groupNorm);
  addRules(t, {"native_group_norm", "native_group_norm_backward"}, nativeGroupNorm);
}

} // namespace ptec::exir::rules
