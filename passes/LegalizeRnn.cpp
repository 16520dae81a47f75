//===- LegalizeRnn.cpp - recurrent layers and cells, unrolled -------------===//
//
// legalize-to-core-aten rewrites of gru / lstm / rnn_tanh / rnn_relu (the
// `.input` overloads: a padded sequence whose length is static in the
// exported graph) and of their single-step cells. As torch's own
// decomposition (torch/_decomp/decompositions.py, _rnn_helper and the
// one_layer_* functions) does, each layer and direction
//  - projects the whole sequence at once: x @ W_ihᵀ + b_ih (addmm),
//  - then unrolls over time: h @ W_hhᵀ + b_hh (addmm), the gates sliced in
//    torch's order (GRU: r, z, n; LSTM: i, f, g, o), sigmoid/tanh/relu and
//    elementwise arithmetic; the reverse direction walks time backwards;
//  - stacks the step outputs; a bidirectional layer concatenates both
//    directions' outputs on the feature dim, which feeds the next layer.
// Final states are stacked in (layer, direction) order. batch_first
// transposes in and out. LSTM projections (proj_size) multiply h by W_hrᵀ
// after each step. Dropout between layers in training mode is random and is
// refused; the `.data` overloads (packed sequences) need the values of
// batch_sizes at compile time and are refused.
//
//===----------------------------------------------------------------------===//

#include "passes/LegalizeNNSupport.h"

namespace ptec::legalize {
namespace {

enum class Cell { Gru, Lstm, Tanh, Relu };

Cell cellOf(StringRef name) {
  if (name.contains("gru"))
    return Cell::Gru;
  if (name.contains("lstm"))
    return Cell::Lstm;
  return name.contains("relu") ? Cell::Relu : Cell::Tanh;
}

int64_t gateCount(Cell c) { return c == Cell::Gru ? 3 : c == Cell::Lstm ? 4 : 1; }

/// The weights of one layer and direction, transposed once for the products.
struct Weights {
  Value wihT, bih; // [In, G*H], [G*H] (null without biases)
  Value whhT, bhh; // [Hout, G*H], [G*H]
  Value whrT;      // LSTM projection [H, Hout], or null
};

struct State {
  Value h, c; // c: LSTM only
};

/// One time step from the input projection `pre` ([B, G*H], b_ih included).
State step(NNOps &o, Cell cell, const Weights &w, int64_t H, Value pre, State s) {
  Value hg = o.addmm(w.bhh, s.h, w.whhT);
  auto gate = [&](Value v, int64_t k) { return o.slice(v, 1, k * H, (k + 1) * H); };
  switch (cell) {
  case Cell::Gru: {
    Value pre0 = gate(pre, 0);
    Value r = o.unary("aten::sigmoid", o.add(gate(hg, 0), pre0));
    Value pre1 = gate(pre, 1);
    Value z = o.unary("aten::sigmoid", o.add(gate(hg, 1), pre1));
    Value hn = o.mul(gate(hg, 2), r);
    Value n = o.unary("aten::tanh", o.add(gate(pre, 2), hn));
    return {o.add(o.mul(o.sub(s.h, n), z), n), {}};
  }
  case Cell::Lstm: {
    Value gates = o.add(hg, pre);
    Value i = o.unary("aten::sigmoid", gate(gates, 0));
    Value f = o.unary("aten::sigmoid", gate(gates, 1));
    Value g = o.unary("aten::tanh", gate(gates, 2));
    Value out = o.unary("aten::sigmoid", gate(gates, 3));
    Value ig = o.mul(i, g);
    Value c = o.add(o.mul(f, s.c), ig);
    Value h = o.mul(out, o.unary("aten::tanh", c));
    if (w.whrT)
      h = o.mm(h, w.whrT);
    return {h, c};
  }
  case Cell::Tanh:
    return {o.unary("aten::tanh", o.add(hg, pre)), {}};
  case Cell::Relu:
    return {o.unary("aten::relu", o.add(hg, pre)), {}};
  }
  return {};
}

/// One layer in one direction over x [T, B, In]: the outputs [T, B, Hout]
/// and the final state.
std::pair<Value, State> layer(NNOps &o, Cell cell, const Weights &w, int64_t H, Value x,
                              State s, bool reverse) {
  RankedTensorType xt = NNOps::typeOf(x);
  int64_t T = xt.getDimSize(0), B = xt.getDimSize(1), In = xt.getDimSize(2);
  Value pre = o.addmm(w.bih, o.view(x, {T * B, In}), w.wihT);
  pre = o.view(pre, {T, B, gateCount(cell) * H});
  SmallVector<Value> outs(T);
  for (int64_t k = 0; k < T; ++k) {
    int64_t t = reverse ? T - 1 - k : k;
    s = step(o, cell, w, H, o.select(pre, 0, t), s);
    outs[t] = s.h;
  }
  return {o.stack(outs, 0), s};
}

/// The weights of group `g` of `params` (w_ih, w_hh[, b_ih, b_hh][, w_hr]).
Weights weightsOf(NNOps &o, OperandRange params, int64_t g, bool biases, bool proj) {
  int64_t size = 2 + (biases ? 2 : 0) + (proj ? 1 : 0);
  auto p = [&](int64_t i) { return params[g * size + i]; };
  Weights w;
  w.wihT = o.t(p(0));
  w.whhT = o.t(p(1));
  if (biases) {
    w.bih = p(2);
    w.bhh = p(3);
  }
  if (proj)
    w.whrT = o.t(p(biases ? 4 : 2));
  return w;
}

/// gru/lstm/rnn_tanh/rnn_relu.input.
LogicalResult rnn(Legalizer &L) {
  exir::AtenOp op = L.op;
  Cell cell = cellOf(op.getOpName());
  const schema::FunctionSchema *s = op.getSchema();
  OperandRange params = op.getArgOperands(s->findArgument("params"));
  OperandRange hx = op.getArgOperands(s->findArgument("hx"));
  bool biases = boolArg(op, "has_biases", true), bidir = boolArg(op, "bidirectional", false);
  bool batchFirst = boolArg(op, "batch_first", false);
  int64_t layers = intArg(op, "num_layers", 1), dirs = bidir ? 2 : 1;
  auto dropout = op->getAttrOfType<FloatAttr>("dropout");
  if (boolArg(op, "train", false) && dropout && dropout.getValueAsDouble() != 0 && layers > 1)
    return L.refuse("with dropout in training mode is not supported: dropout is random; "
                    "export the model in eval mode (model.eval())");
  Value x = L.operand("input");
  RankedTensorType xt = tensorType(x);
  size_t wantHx = cell == Cell::Lstm ? 2 : 1;
  if (!xt || xt.getRank() != 3 || hx.size() != wantHx)
    return L.refuse("needs a 3-D input and " + Twine(wantHx) + " initial state(s)");
  RankedTensorType h0t = tensorType(hx[0]);
  RankedTensorType c0t = cell == Cell::Lstm ? tensorType(hx[1]) : h0t;
  if (!h0t || !c0t || h0t.getRank() != 3 || c0t.getRank() != 3)
    return L.refuse("needs 3-D initial states");
  int64_t H = c0t.getDimSize(2);
  bool proj = cell == Cell::Lstm && h0t.getDimSize(2) != H;
  int64_t group = 2 + (biases ? 2 : 0) + (proj ? 1 : 0);
  if (static_cast<int64_t>(params.size()) != layers * dirs * group)
    return L.refuse("has " + Twine(params.size()) + " weights where num_layers=" +
                    Twine(layers) + ", bidirectional=" + Twine(bidir) + " need " +
                    Twine(layers * dirs * group));
  int64_t T = xt.getDimSize(batchFirst ? 1 : 0);
  if (T < 1)
    return L.refuse("over an empty sequence is not supported");

  NNOps o(L);
  Value in = batchFirst ? o.permute(x, {1, 0, 2}) : x;
  SmallVector<Value> hn, cn;
  for (int64_t l = 0; l < layers; ++l) {
    SmallVector<Value> outs;
    for (int64_t d = 0; d < dirs; ++d) {
      int64_t idx = l * dirs + d;
      State st{o.select(hx[0], 0, idx), cell == Cell::Lstm ? o.select(hx[1], 0, idx) : Value()};
      auto [out, fin] = layer(o, cell, weightsOf(o, params, idx, biases, proj), H, in, st, d == 1);
      outs.push_back(out);
      hn.push_back(fin.h);
      cn.push_back(fin.c);
    }
    in = o.cat(outs, 2);
  }
  Value out = batchFirst ? o.permute(in, {1, 0, 2}) : in;
  SmallVector<Value> results = {out, o.stack(hn, 0)};
  if (cell == Cell::Lstm)
    results.push_back(o.stack(cn, 0));
  return o.finish(results);
}

/// gru_cell, lstm_cell, rnn_tanh_cell, rnn_relu_cell: one step.
LogicalResult rnnCell(Legalizer &L) {
  exir::AtenOp op = L.op;
  Cell cell = cellOf(op.getOpName());
  const schema::FunctionSchema *s = op.getSchema();
  OperandRange hx = op.getArgOperands(s->findArgument("hx"));
  Value x = L.operand("input");
  size_t wantHx = cell == Cell::Lstm ? 2 : 1;
  if (!tensorType(x) || tensorType(x).getRank() != 2 || hx.size() != wantHx ||
      !tensorType(hx[0]) || tensorType(hx[0]).getRank() != 2)
    return L.refuse("needs a 2-D input and 2-D state(s) [batch, features]");
  NNOps o(L);
  Weights w;
  w.wihT = o.t(L.operand("w_ih"));
  w.whhT = o.t(L.operand("w_hh"));
  w.bih = L.operand("b_ih");
  w.bhh = L.operand("b_hh");
  int64_t H = tensorType(L.operand("w_hh")).getDimSize(1);
  if (cell == Cell::Lstm)
    H = tensorType(hx[1]).getDimSize(1);
  State st{hx[0], cell == Cell::Lstm ? Value(hx[1]) : Value()};
  State r = step(o, cell, w, H, o.addmm(w.bih, x, w.wihT), st);
  if (cell == Cell::Lstm)
    return o.finish({r.h, r.c});
  return o.finish({r.h});
}

LogicalResult packedRnn(Legalizer &L) {
  return L.refuse("(a packed sequence) is not supported: unrolling it needs the values of "
                  "batch_sizes at compile time; pass the padded sequence (the .input form) "
                  "instead of a PackedSequence");
}

} // namespace

void addRnnLegalizations(LegalizeTable &t) {
  addLegalizations(t,
                   {"aten::gru.input", "aten::lstm.input", "aten::rnn_tanh.input",
                    "aten::rnn_relu.input"},
                   rnn);
  addLegalizations(t,
                   {"aten::gru.data", "aten::lstm.data", "aten::rnn_tanh.data",
                    "aten::rnn_relu.data"},
                   packedRnn);
  addLegalizations(t,
                   {"aten::gru_cell", "aten::lstm_cell", "aten::rnn_tanh_cell",
                    "aten::rnn_relu_cell"},
                   rnnCell);
}

} // namespace ptec::legalize
