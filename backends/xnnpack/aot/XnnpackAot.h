//===- XnnpackAot.h - ahead-of-time half of XnnpackBackend ------*- C++ -*-===//
//
// `--backend xnnpack`: which core ATen ops go to XNNPACK, and preprocess: a
// region to an ExecuTorch XNNPACK delegate blob (../format/XnnFormat.h).
//
// What is taken is what XnnpackBackend's runtime half runs, all static
// float32: on Debian 12's XNNPACK (a 2022 snapshot), 2-d convolution
// (regular, grouped, depthwise; eval-mode batch norm folds into it, or runs
// alone as a 1x1 depthwise convolution), linear layers (addmm, mm) with
// constant weights, elementwise add / sub / mul / div / minimum / maximum
// (tensors or scalars, with broadcasting), relu / hardtanh / clamp (fused
// into the producing node when it is the only user), sigmoid, leaky relu,
// elu, abs, neg, sqrt, ceil, floor, softmax over the last dim, max and
// average pooling, mean over H and W (global average pooling), reshapes
// (view/squeeze/unsqueeze/clone) and constant padding; as the runtime's own
// kernels (node kinds that XNNPACK snapshot lacks and upstream's runs
// natively): cat (Concatenate2..5, chained past five inputs), slice_copy
// with step 1 (StaticSlice), permute_copy / transpose_copy
// (StaticTranspose), bmm (BatchMatrixMultiply), tanh, gelu (erf form),
// exp, log, sin, cos and rsqrt; and expand_copy to its operand's own shape
// (matmul's decomposition writes one per operand), which costs no node.
// Tensors whose shapes are only known at run
// time stay portable (the partitioner declines them before asking here).
// Every refusal carries a reason (exir-partition's report-refusals).
//
// Layout: XNNPACK's convolutions and pooling work on NHWC. Region inputs and
// outputs stay in the program's layout (NCHW); preprocess inserts a
// StaticTranspose where a value changes layout and keeps values NHWC
// between NHWC nodes, the way ExecuTorch's XNNPACK partitioner does; cat,
// slice and permute of an NHWC value work on it in NHWC (axis, offsets and
// permutation mapped), so they cost no transpose pair.
// Constant weights are baked into the blob (converted to XNNPACK's layouts)
// and stay out of the arguments XNNPACK reads.
//
// Options (`--backend xnnpack:opt:opt`):
//   scratch   declare the delegate's workspace as planned scratch (memory
//             planning places it; one delegate entry per call site).
// Without `scratch` the handle owns its workspace and is shared by every
// call of the lowered module.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "backends/AotBackend.h"
#include "backends/xnnpack/format/XnnGraphWriter.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ptec::aot::xnnpack {

constexpr const char *kXnnpackAotName = "xnnpack";
constexpr const char *kXnnpackAotId = "XnnpackBackend";

std::unique_ptr<AotBackend> createXnnpackAotBackend(llvm::StringRef options,
                                                    std::string *error);

/// How one accepted op becomes XNNPACK nodes.
struct OpPlan {
  enum class Form {
    Conv,       ///< convolution (regular, grouped or depthwise)
    BatchNorm,  ///< 1x1 depthwise convolution (or folded into a convolution)
    Pool,       ///< max or average pooling
    GlobalPool, ///< mean over H and W
    Linear,     ///< addmm / mm with a constant right operand
    Binary,     ///< elementwise two-input node (scalar `other` allowed)
    Unary,      ///< one-input node (clamp bounds in `clamp`)
    Softmax,    ///< over the last dim
    Reshape,    ///< same elements, new shape
    Pad,        ///< constant padding
    Quantize,   ///< quantize_per_tensor to int8 (XnnpackQuantized.cpp)
    Dequantize, ///< dequantize_per_tensor of an int8 activation
    QuantizedWeight, ///< a weight's dequantize (or its transpose): read by its user
    Concat,     ///< aten::cat: Concatenate2..5 (chained past 5 inputs)
    Slice,      ///< slice_copy with step 1: StaticSlice
    Transpose,  ///< permute_copy / transpose_copy: StaticTranspose
    BatchMatMul, ///< bmm: BatchMatrixMultiply
  };
  Form form = Form::Unary;
  fb_xnnpack::XNodeUnion node{};
  ptec::xnnpack::OutputClamp clamp;
  float alpha = 0;          ///< leaky relu slope, elu alpha
  bool scalarOther = false; ///< binary op with a scalar second operand
  float scalar = 0;
  ptec::xnnpack::ConvParams conv;
  ptec::xnnpack::PoolParams pool;
  mlir::Value input, other, weight, bias; ///< operands by role (null when absent)
  mlir::Value mean, var;                  ///< batch norm statistics
  double eps = 0;
  std::vector<uint32_t> padPre, padPost;  ///< per dim, outermost first
  float padValue = 0;
  std::vector<mlir::Value> inputs; ///< Concat: every operand, in order
  int64_t axis = 0;                ///< Concat: the dim joined (>= 0)
  std::vector<uint32_t> perm;      ///< Transpose: result dim i is input dim perm[i]
  std::vector<uint32_t> offsets;   ///< Slice: per input dim (sizes: the result's)
  /// A plan of `form` writing `node` that reads `input` (fields by role).
  static OpPlan of(Form form, fb_xnnpack::XNodeUnion node = {}, mlir::Value input = {}) {
    OpPlan p;
    p.form = form, p.node = node, p.input = input;
    return p;
  }
  /// Output clamp a producer may absorb (relu, hardtanh, clamp).
  bool isClamp() const {
    return form == Form::Unary && node == fb_xnnpack::XNodeUnion::XNNClamp;
  }
};

/// A value's data when it is a constant the blob can bake (a weight), null
/// otherwise. Capability checks ask the module (constantWeightOf);
/// preprocess asks the region function's `exir.weight_value` argument
/// attributes. The data lets the checks read int8 parameters (weight scales
/// and zero points, biases) before accepting an op.
using IsConstant = std::function<mlir::ElementsAttr(mlir::Value)>;

/// The module's view (capability checks): constantWeightOf's value.
mlir::ElementsAttr moduleConstant(mlir::Value v);

/// Why XnnpackBackend's runtime would refuse (or, for XNNPACK's asserts,
/// abort on) the int8 parameters of `op`, planned as `p`, when the lowering
/// computes it in int8 (XnnpackQuantized.cpp's pattern: activations read
/// through per-tensor dequantizes, the result only quantized); nullopt when
/// they fit or `op` is not computed in int8. Capability checks refuse such
/// an op, so it stays on the portable kernels.
std::optional<std::string> int8ComputeProblem(mlir::Operation *op, const OpPlan &p,
                                              const IsConstant &isConstant);

/// The plan for `op`, or nullopt with the reason XNNPACK (as installed on
/// Debian 12) cannot take it in `why`.
std::optional<OpPlan> planOp(mlir::Operation *op, const IsConstant &isConstant,
                             std::string *why);

/// planOp's part for quantize / dequantize ops and the transpose of a
/// dequantized weight (XnnpackQuantized.cpp); nullopt with `handled` false
/// for any other op.
std::optional<OpPlan> planQuantizedOp(mlir::Operation *op, const IsConstant &isConstant,
                                      std::string *why, bool *handled);

/// A weight an int8 convolution or linear can take: the dequantize of a
/// constant int8 tensor (per tensor, or per channel along the output
/// channels), possibly transposed [1, 0] for addmm / mm.
bool isQuantizedWeight(mlir::Value v, const IsConstant &isConstant);

/// A group with the weight dequantizes no member reads left out; nullopt
/// when a convolution or linear's int8 weight is outside the group.
std::optional<llvm::SmallVector<mlir::Operation *, 4>>
keepQuantizedWeights(llvm::ArrayRef<mlir::Operation *> ops);

/// Why the backend refuses `op` (nullopt: accepted). Same as planOp.
std::optional<std::string> refuseOp(mlir::Operation *op);

/// One region to a blob; `workspaceBytes` receives the handle's workspace
/// size (the scratch it would declare). Reports errors on `region`.
mlir::FailureOr<std::string> lowerRegion(mlir::func::FuncOp region, uint64_t *workspaceBytes,
                                         std::map<std::string, std::string> *namedData = nullptr,
                                         std::vector<unsigned> *bakedArgs = nullptr);

} // namespace ptec::aot::xnnpack
