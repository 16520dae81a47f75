//===- XnnpackLowering.h - the region lowering's state ----------*- C++ -*-===//
//
// Internal to the aot half: the Lowering class is shared by the float32
// lowering (XnnpackLowering.cpp) and the int8 one (XnnpackQuantized.cpp),
// which extend the same value map and writer.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "backends/xnnpack/aot/XnnpackAot.h"

#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ptec::aot::xnnpack::lowering {

using namespace mlir;
using Kind = fb_xnnpack::XNodeUnion;
using Form = OpPlan::Form;
using ptec::xnnpack::GraphWriter;
using ptec::xnnpack::OutputClamp;
using Dims = std::vector<uint64_t>;

inline constexpr const char *kWeightValueAttr = "exir.weight_value";

/// A constant's float32 data, owned jointly by the lowering's cache and by
/// every reader: a reader holds its own owner, so the data outlives any
/// later insertion into the cache (a DenseMap rehash moves its values).
using FloatData = std::shared_ptr<const std::vector<float>>;
inline constexpr uint32_t kNone = ptec::xnnpack::kInvalidValueId;

enum Layout { kAsIs = 0, kNhwc = 1 };

inline Dims shapeOf(Value v) {
  Dims d;
  for (int64_t s : llvm::cast<RankedTensorType>(v.getType()).getShape())
    d.push_back(uint64_t(s));
  return d;
}

inline Dims toNhwc(const Dims &d) { return {d[0], d[2], d[3], d[1]}; }

/// Where NCHW dim `d` of a 4-d value sits in its NHWC copy.
inline uint32_t nhwcDim(uint32_t d) {
  static const uint32_t at[4] = {0, 3, 1, 2};
  return at[d];
}

inline uint64_t numel(const Dims &d) {
  uint64_t n = 1;
  for (uint64_t x : d)
    n *= x;
  return n;
}

/// NCHW-ordered 4-d data to NHWC.
inline std::vector<float> nchwToNhwc(const std::vector<float> &in, const Dims &d) {
  std::vector<float> out(in.size());
  const uint64_t n = d[0], c = d[1], h = d[2], w = d[3];
  for (uint64_t a = 0; a < n; ++a)
    for (uint64_t k = 0; k < c; ++k)
      for (uint64_t y = 0; y < h; ++y)
        for (uint64_t x = 0; x < w; ++x)
          out[((a * h + y) * w + x) * c + k] = in[((a * c + k) * h + y) * w + x];
  return out;
}

class Lowering {
public:
  explicit Lowering(func::FuncOp region) : region_(region) {}
  FailureOr<std::string> run(uint64_t *workspaceBytes);

private:
  struct Entry {
    uint32_t id[2] = {kNone, kNone};
  };
  /// A baked region argument's data (exir.weight_value), null otherwise.
  ElementsAttr constantAttr(Value v) {
    auto arg = llvm::dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &region_.getBody().front())
      return {};
    return region_.getArgAttrOfType<ElementsAttr>(arg.getArgNumber(), kWeightValueAttr);
  }
  bool isConstant(Value v) { return bool(constantAttr(v)); }
  LogicalResult fail(Operation *at, const Twine &why) {
    at->emitError("xnnpack backend: ") << why;
    return failure();
  }
  /// `v`'s float32 data (a baked constant, or a dequantized int8 weight),
  /// checked to hold `expected` elements when given (~0: any count).
  FailureOr<FloatData> constantData(Value v, uint64_t expected = ~uint64_t(0));
  /// A float32 constant of `dims`: its bytes go to the program's named data
  /// under their SHA-256 (hex), as upstream's serializer keys them, and the
  /// blob only names the key. XnnpackBackend frees the blob after init, so
  /// a constant an operator reads while running must live outside it; named
  /// data is also shared by every delegate and method that uses the bytes.
  uint32_t constantValue(const Dims &dims, const float *data);
  /// Raw bytes to named data (as constantValue); returns the constant index.
  /// `prefix` goes before the hash (upstream names per-channel scales
  /// "scale_<sha256>").
  uint32_t namedConstant(std::string bytes, const char *prefix = "");
  FailureOr<uint32_t> constantIn(Value v, Layout l, unsigned rank);
  FailureOr<uint32_t> get(Value v, Layout l);
  /// Node moving 4-d value `from` (shape `d`, NCHW) into `to` in layout `l`:
  /// a reshape when both layouts are the same bytes, else a transpose.
  void addLayoutMove(const Dims &d, uint32_t from, uint32_t to, Layout l);
  bool onlyNhwc(Value v) const {
    auto it = values_.find(v);
    return it != values_.end() && it->second.id[kNhwc] != kNone && it->second.id[kAsIs] == kNone;
  }
  uint32_t define(Value v, Layout l) {
    Dims d = shapeOf(v);
    uint32_t id = w_.addValue(l == kNhwc ? toNhwc(d) : d);
    values_[v].id[l] = id;
    return id;
  }
  /// The clamp of a relu / hardtanh / clamp that only consumes `r`, which
  /// the producer then applies (the clamp's result becomes `r`'s values).
  OutputClamp absorbClamp(Value r);
  uint32_t debugHandle(Operation *op) const {
    if (auto h = op->getAttrOfType<IntegerAttr>("exir.debug_handle"))
      return uint32_t(h.getValue().getZExtValue());
    // The node's debug handle from its location (exir::tagInputLoc).
    auto handles = exir::debugHandlesOf(op->getLoc());
    return handles.empty() ? 0 : uint32_t(handles.front());
  }
  LogicalResult lowerOp(Operation *op, const OpPlan &p);
  LogicalResult lowerConv(Operation *op, const OpPlan &p);
  LogicalResult lowerBatchNorm(Operation *op, const OpPlan &p);
  /// Batch norm `bn` over `c` channels as y = x * s + t (its statistics
  /// and affine parameters checked to be [c] constants).
  LogicalResult batchNormAffine(const OpPlan &bn, uint64_t c, std::vector<double> &s,
                                std::vector<double> &t);
  LogicalResult lowerLinear(Operation *op, const OpPlan &p);
  LogicalResult lowerBinary(Operation *op, const OpPlan &p);
  // Data-movement nodes (XnnpackLoweringLayout.cpp).
  LogicalResult lowerConcat(Operation *op, const OpPlan &p);
  LogicalResult lowerSlice(Operation *op, const OpPlan &p);
  LogicalResult lowerTranspose(Operation *op, const OpPlan &p);
  LogicalResult lowerBatchMatMul(Operation *op, const OpPlan &p);
  LogicalResult finishOutputs();

  // int8 (XnnpackQuantized.cpp). A quantized value is an IR value whose
  // elements live in an XNNPACK qint8 value: the result of a quantize the
  // region computes in int8, and every dequantize of it (which then costs
  // nothing). Float users get an XNNConvert to float32 when they need one.
  struct QEntry {
    uint32_t id[2] = {kNone, kNone};
    float scale = 1;
    int32_t zeroPoint = 0;
  };
  bool isQuantized(Value v) const { return qvalues_.count(v) != 0; }
  /// `v`'s qint8 value in layout `l` (a transpose or reshape on first use).
  FailureOr<uint32_t> getQ(Value v, Layout l);
  uint32_t defineQ(Value v, Layout l, float scale, int32_t zeroPoint);
  bool onlyNhwcQ(Value v) const {
    auto it = qvalues_.find(v);
    return it != qvalues_.end() && it->second.id[kNhwc] != kNone &&
           it->second.id[kAsIs] == kNone;
  }
  /// A float32 copy of a quantized value (XNNConvert), for float users.
  FailureOr<uint32_t> floatOf(Value v, Layout l);
  /// Float data of a dequantized constant weight (for a float32 lowering).
  FailureOr<FloatData> dequantizedData(Value v);
  /// Region argument `arg` of an integer type: an int8 input its
  /// dequantizes describe.
  FailureOr<uint32_t> quantizedInput(BlockArgument arg);
  /// Lowers `op` if it is a quantize / dequantize or an op computed in int8
  /// (all activations dequantized, result only quantized); false: lower it
  /// in float32.
  FailureOr<bool> lowerQuantized(Operation *op, const OpPlan &p);
  FailureOr<bool> lowerQuantizedCompute(Operation *op, const OpPlan &p);
  /// Constants of a filter read through a dequantize: the int8 data in
  /// XNNPACK's layout, and its value id (qcint8 per channel, qint8 per tensor).
  FailureOr<uint32_t> quantizedFilter(Value weight, bool depthwise, bool linear,
                                      std::vector<float> *scales);
  ptec::xnnpack::QuantParams perChannelParams(const std::vector<float> &scales,
                                              int32_t channelDim);
  FailureOr<uint32_t> quantizedBias(Value bias, float inputScale,
                                    const std::vector<float> &weightScales, bool perChannel,
                                    uint64_t n);

public:
  /// Named data the blob refers to, by key (filled by run()).
  std::map<std::string, std::string> named;
  /// Region arguments baked into the blob (constants), not passed at run time.
  std::vector<unsigned> baked;

private:
  func::FuncOp region_;
  GraphWriter w_;
  uint32_t runtimeInputs_ = 0; // region arguments the call passes
  llvm::DenseMap<Value, Entry> values_;
  // Ownership rule of this class: no pointer, reference or iterator into
  // one of these maps is kept across a call that may insert into it (a
  // DenseMap moves every value when it grows). Entries are copied out, or,
  // for constant data, shared through FloatData.
  llvm::DenseMap<Value, FloatData> data_;
  llvm::DenseMap<Operation *, OpPlan> plans_;
  /// Batch norms folded into the convolution that feeds them.
  llvm::DenseMap<Operation *, Operation *> foldedInto_;
  llvm::DenseSet<Operation *> absorbed_;
  llvm::DenseMap<Value, QEntry> qvalues_;
};

} // namespace ptec::aot::xnnpack::lowering
