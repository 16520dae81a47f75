//===- XnnQuantizedShapes.cpp - int8 steps at a call's own sizes ----------===//
//
// createQuantizedStep sets an int8 step up for the blob's dims (the upper
// bound of dynamic dims). When a call brings smaller inputs, XnnShapes.h
// carries its sizes through the graph and this file recomputes what an int8
// step reads at setup or in its own loops: the XNNPACK operators take batch
// and spatial sizes per setup as the float ones do, and the own loops read
// their element, row and window counts from the step. What an operator
// bakes at creation (channel counts, weights, quantization) does not change
// with the sizes shape inference accepts.
//
//===----------------------------------------------------------------------===//

#include "backends/xnnpack/runtime/XnnQuantized.h"

#include "backends/xnnpack/runtime/XnnShapes.h"

namespace ptec::xnnpack {

using rt::Error;
namespace fb = fb_xnnpack;
using Kind = fb::XNodeUnion;
using Op = QuantStep::Op;

Error reshapeQuantizedStep(Step &s, const fb::XNode *node, const GraphPlan &plan,
                           const std::vector<Dims> &dims, std::string *why) {
  QuantStep &q = *s.quant;
  const Dims &in = dims[s.in0], &out = dims[s.out];
  const uint64_t inNumel = numelOf(in), outNumel = numelOf(out);
  auto bad = [&](const std::string &text) {
    *why = text;
    return Error::InvalidArgument;
  };
  auto need4d = [&]() {
    return in.size() == 4 && out.size() == 4 ? Error::Ok
                                             : bad("needs 4-d NHWC input and output");
  };
  auto copyShape = [](const Dims &d, size_t *rank, size_t *shape) {
    *rank = d.size();
    for (size_t k = 0; k < d.size(); ++k)
      shape[k] = d[k];
  };
  switch (q.op) {
  case Op::ToInt8: case Op::ToFloat:
    s.batch = inNumel;
    break;
  case Op::ToDynamic: case Op::DynamicFullyConnected:
    // Rows follow the batch dims; a row keeps its `depth` elements.
    if (q.depth == 0 || inNumel % q.depth != 0)
      return bad("its input " + dimsText(in) + " is not whole rows of " +
                 std::to_string(q.depth));
    q.rows = inNumel / q.depth;
    s.batch = inNumel;
    break;
  case Op::ConvQs8: case Op::ConvQc8: case Op::FullyConnectedQs8:
    if (s.kind == Kind::XNNFullyConnected) {
      // Every leading dim is batch; the last keeps the filter's channels.
      const Dims &bound = plan.values[s.in0].dims;
      const uint64_t inC = bound.empty() ? 0 : bound.back();
      if (inC == 0 || in.empty() || in.back() != inC)
        return bad("its input " + dimsText(in) + " does not end in " + std::to_string(inC) +
                   " channels");
      if (q.op == Op::ConvQc8) // run as a 1x1 convolution over [1, 1, M, K]
        s.batch = 1, s.height = 1, s.width = inNumel / inC;
      else
        s.batch = inNumel / inC;
    } else {
      PTEC_TRY(need4d());
      s.batch = in[0], s.height = in[1], s.width = in[2];
    }
    break;
  case Op::Add: case Op::Subtract: case Op::Multiply: case Op::BinaryLoop:
    copyShape(in, &s.rank0, s.shape0);
    copyShape(dims[s.in1], &s.rank1, s.shape1);
    break;
  case Op::MaxPool: case Op::AvgPool:
    PTEC_TRY(need4d());
    s.batch = in[0], s.height = in[1], s.width = in[2];
    q.outH = out[1], q.outW = out[2];
    q.numel = outNumel;
    break;
  case Op::GlobalAvgLoop:
    PTEC_TRY(need4d());
    s.batch = in[0], s.width = in[1] * in[2];
    break;
  case Op::Clamp: case Op::Sigmoid: case Op::Tanh: case Op::Requantize: case Op::Copy:
    s.batch = inNumel;
    q.numel = inNumel;
    break;
  case Op::Pad:
    copyShape(in, &s.rank0, s.shape0);
    break;
  case Op::Transpose:
    copyShape(in, &s.rank0, s.shape0);
    q.numel = inNumel;
    break;
  case Op::Slice:
    // Offsets stay; the sizes are what shape inference gave the output.
    if (out.size() != in.size())
      return bad("its output " + dimsText(out) + " lost the input's rank");
    copyShape(in, &s.rank0, s.shape0);
    for (size_t k = 0; k < out.size(); ++k)
      q.sizes[k] = out[k];
    q.numel = outNumel;
    break;
  case Op::Concat: {
    const uint32_t axis = static_cast<const fb::_XNNCat *>(node->xnode_union())->axis();
    if (axis >= out.size())
      return bad("axis " + std::to_string(axis) + " is past the output's dims");
    q.outer = 1;
    for (size_t k = 0; k < axis; ++k)
      q.outer *= out[k];
    for (size_t i = 0; i < q.inputs.size(); ++i)
      q.chunk[i] = q.outer ? numelOf(dims[q.inputs[i]]) / q.outer : 0;
    break;
  }
  }
  return Error::Ok;
}

} // namespace ptec::xnnpack
