//===- XnnpackQuantChecks.cpp - int8 parameters checked before lowering ---===//
//
// The int8 lowering (XnnpackQuantized.cpp) computes an op in int8 when its
// activations are read through per-tensor dequantizes and its result is only
// quantized (through a relu / clamp it applies). Such an op becomes an
// XNNPACK int8 operator whose parameters XNNPACK checks when the delegate is
// initialised, and some of which it asserts on. int8ComputeProblem asks the
// same questions at compile time (format/XnnQuantLimits.h): the capability
// check refuses an op that fails them, so it stays on the portable kernels
// and the program never reaches a delegate that refuses it.
//
//===----------------------------------------------------------------------===//

#include "backends/xnnpack/aot/XnnpackQdq.h"
#include "backends/xnnpack/format/XnnQuant.h"
#include "backends/xnnpack/format/XnnQuantLimits.h"

using namespace mlir;

namespace ptec::aot::xnnpack {

using namespace qdq;
using Form = OpPlan::Form;
using Kind = fb_xnnpack::XNodeUnion;

namespace {

Operation *soleUser(Value v) { return v.hasOneUse() ? *v.getUsers().begin() : nullptr; }

/// The per-tensor dequantize `v` comes from, with parameters the lowering
/// takes; nullopt otherwise (the op then reads float32: not int8 compute).
std::optional<Qdq> activationDequantize(Value v) {
  std::optional<Qdq> q = v ? decode(v.getDefiningOp()) : std::nullopt;
  if (!q || q->quantize || q->perChannel || !isInt8(q->input) || !isF32(q->result) ||
      !fitsInt8Activation(*q).empty())
    return std::nullopt;
  return q;
}

/// The per-tensor quantize that takes `op`'s result, through a clamp the op
/// applies (`clamp` set to its bounds); nullopt when there is none.
std::optional<Qdq> resultQuantize(Operation *op, bool clampable, const IsConstant &isConstant,
                                  ptec::xnnpack::OutputClamp *clamp) {
  Operation *user = soleUser(op->getResult(0));
  if (clampable && user) {
    std::optional<OpPlan> c = planOp(user, isConstant, nullptr);
    if (c && c->isClamp()) {
      *clamp = c->clamp;
      user = soleUser(user->getResult(0));
    }
  }
  std::optional<Qdq> q = user ? decode(user) : std::nullopt;
  if (!q || !q->quantize || !isF32(q->input) || !isInt8(q->result) ||
      !fitsInt8Activation(*q).empty())
    return std::nullopt;
  return q;
}

/// Why a convolution or linear with these int8 parameters is refused.
std::optional<std::string> convProblem(const OpPlan &p, const Qdq &in, const Qdq &out,
                                       const IsConstant &isConstant) {
  std::string why;
  FailureOr<Int8Weight> w = readWeight(isConstant, p.weight, &why, /*withData=*/false);
  if (failed(w))
    return why;
  const float inScale = float(in.scale), outScale = float(out.scale);
  if (std::string bad = ptec::xnnpack::requantProblem(inScale, w->scales, outScale); !bad.empty())
    return bad;
  if (!p.bias)
    return std::nullopt;
  std::vector<double> b;
  if (failed(constantNumbers(isConstant, p.bias, b)))
    return "the bias is not a readable constant";
  // Products per output: input channels per group x kernel (a convolution's
  // [O, I/g, KH, KW] filter), or the linear's inner dim.
  const std::vector<uint64_t> &d = w->dims;
  const uint64_t depth = p.form == Form::Conv ? numel(d) / (d.empty() ? 1 : d[0])
                                              : numel(shapeOf(p.input)) /
                                                    std::max<uint64_t>(1, shapeOf(p.input).front());
  const uint64_t channels = b.size();
  if (w->scales.size() != 1 && w->scales.size() != channels)
    return "the bias does not have one element per output channel";
  std::vector<float> bias(b.begin(), b.end());
  if (std::string bad = ptec::xnnpack::biasProblem(bias, inScale, w->scales, depth);
      !bad.empty())
    return bad;
  return std::nullopt;
}

} // namespace

std::optional<std::string> int8ComputeProblem(Operation *op, const OpPlan &p,
                                              const IsConstant &isConstant) {
  // The forms lowerQuantizedCompute computes in int8, and whether a clamp
  // fuses into them.
  bool clampable = false;
  switch (p.form) {
  case Form::Conv:
  case Form::Linear:
    clampable = true;
    if (!isQuantizedWeight(p.weight, isConstant))
      return std::nullopt;
    break;
  case Form::Binary:
    clampable = true;
    if (p.node != Kind::XNNAdd && p.node != Kind::XNNSubtract && p.node != Kind::XNNMultiply)
      return std::nullopt;
    break;
  case Form::Pool:
    clampable = true;
    if (p.node != Kind::XNNMaxPooling2d)
      return std::nullopt;
    break;
  case Form::Unary:
    if (!p.isClamp())
      return std::nullopt;
    break;
  default:
    return std::nullopt;
  }
  std::optional<Qdq> in = activationDequantize(p.input);
  if (!in || (p.form == Form::Binary && (!p.other || !activationDequantize(p.other))))
    return std::nullopt;
  ptec::xnnpack::OutputClamp clamp;
  if (p.isClamp())
    clamp = p.clamp;
  std::optional<Qdq> out = resultQuantize(op, clampable, isConstant, &clamp);
  if (!out)
    return std::nullopt;
  // The output range the operator clamps to: XNNPACK refuses an empty one
  // (a clamp above the largest value the output quantization holds).
  int8_t lo = -128, hi = 127;
  ptec::xnnpack::quantizedBounds(clamp.lo, clamp.hi, float(out->scale), int32_t(out->zeroPoint),
                                 &lo, &hi);
  // Adds, subtracts and multiplies fall back to the runtime's own loop
  // when XNNPACK refuses their parameters; the others have no fallback.
  if (p.form != Form::Binary)
    if (std::string bad = ptec::xnnpack::rangeProblem(lo, hi); !bad.empty())
      return bad;
  if (p.form == Form::Conv || p.form == Form::Linear)
    return convProblem(p, *in, *out, isConstant);
  return std::nullopt;
}

} // namespace ptec::aot::xnnpack
