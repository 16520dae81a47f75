//===- XnnpackLoweringLayout.cpp - data-movement nodes of the lowering ----===//
//
// cat, slice, permute / transpose and bmm. The first three follow their
// input's layout: a value that only exists in NHWC (a convolution or
// pooling result) is concatenated, sliced or permuted as it is, with the
// axis, offsets or permutation mapped onto NHWC's dims, instead of being
// transposed back to NCHW first: a cut between convolutions and a cat then
// costs no StaticTranspose pair, which is what upstream's partitioner writes
// for such a graph.
//
//===----------------------------------------------------------------------===//

#include "backends/xnnpack/aot/XnnpackLowering.h"

using namespace mlir;

namespace ptec::aot::xnnpack::lowering {

LogicalResult Lowering::lowerConcat(Operation *op, const OpPlan &p) {
  Value result = op->getResult(0);
  // NHWC when one of the inputs only exists in NHWC; the others follow.
  Layout l = kAsIs;
  if (shapeOf(result).size() == 4)
    for (Value v : p.inputs)
      if (!isConstant(v) && onlyNhwc(v))
        l = kNhwc;
  const uint32_t axis = l == kNhwc ? nhwcDim(uint32_t(p.axis)) : uint32_t(p.axis);
  std::vector<uint32_t> ids;
  for (Value v : p.inputs) {
    FailureOr<uint32_t> id = get(v, l);
    if (failed(id))
      return failure();
    ids.push_back(*id);
  }
  const uint32_t out = define(result, l);
  // XNNPACK joins at most 5 values per node: past that, each node joins the
  // previous node's result and up to 4 more inputs (upstream's split).
  uint32_t acc = kNone;
  size_t next = 0;
  while (next < ids.size()) {
    std::vector<uint32_t> group;
    if (acc != kNone)
      group.push_back(acc);
    while (group.size() < 5 && next < ids.size())
      group.push_back(ids[next++]);
    uint32_t to = out;
    if (next < ids.size()) {
      std::vector<uint64_t> d = w_.dims(out);
      d[axis] = 0;
      for (uint32_t g : group)
        d[axis] += w_.dims(g)[axis];
      to = w_.addValue(d);
    }
    w_.addConcat(axis, group, to, debugHandle(op));
    acc = to;
  }
  return success();
}

LogicalResult Lowering::lowerSlice(Operation *op, const OpPlan &p) {
  const Layout l = shapeOf(p.input).size() == 4 && onlyNhwc(p.input) ? kNhwc : kAsIs;
  FailureOr<uint32_t> in = get(p.input, l);
  if (failed(in))
    return failure();
  std::vector<uint32_t> offsets = p.offsets;
  if (l == kNhwc)
    for (uint32_t d = 0; d < 4; ++d)
      offsets[nhwcDim(d)] = p.offsets[d];
  const uint32_t out = define(op->getResult(0), l);
  std::vector<uint32_t> sizes;
  for (uint64_t d : w_.dims(out))
    sizes.push_back(uint32_t(d));
  w_.addSlice(*in, out, offsets, sizes, debugHandle(op));
  return success();
}

LogicalResult Lowering::lowerTranspose(Operation *op, const OpPlan &p) {
  Value result = op->getResult(0);
  const bool nhwc = p.perm.size() == 4 && onlyNhwc(p.input);
  FailureOr<uint32_t> in = get(p.input, nhwc ? kNhwc : kAsIs);
  if (failed(in))
    return failure();
  // Result dim i is input dim perm[i], which an NHWC copy holds at
  // nhwcDim(perm[i]).
  std::vector<uint32_t> perm = p.perm;
  if (nhwc)
    for (uint32_t &d : perm)
      d = nhwcDim(d);
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == i;
  if (identity) {
    // permute(0, 2, 3, 1) of an NHWC value: the NHWC bytes are the result.
    const uint32_t id = *in;
    values_[result].id[kAsIs] = id;
    return success();
  }
  w_.addTranspose(*in, define(result, kAsIs), perm, debugHandle(op));
  return success();
}

LogicalResult Lowering::lowerBatchMatMul(Operation *op, const OpPlan &p) {
  FailureOr<uint32_t> a = get(p.input, kAsIs);
  FailureOr<uint32_t> b = get(p.other, kAsIs);
  if (failed(a) || failed(b))
    return failure();
  w_.addBatchMatMul(*a, *b, define(op->getResult(0), kAsIs), 0, debugHandle(op));
  return success();
}

} // namespace ptec::aot::xnnpack::lowering
