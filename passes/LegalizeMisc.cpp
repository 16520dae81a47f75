//===- LegalizeMisc.cpp - factories, membership, list helpers -------------===//
//
// legalize-to-core-aten rewrites of the composite ops of no larger family:
//  - factories: eye (n and n x m) as a comparison of two aranges; linspace
//    and logspace with PyTorch's two-sided formula (the first half counts up
//    from start, the second down from end, so both ends are exact); the Hann
//    window as PyTorch's cosine of a scaled arange;
//  - isin as a broadcast comparison reduced with any;
//  - sum_to_size, _dim_arange, concatenate;
//  - list helpers: pad_sequence (pads, then stacks), block_diag (pads each
//    block to the full width, then stacks rows), vander and linalg_vander
//    (powers of an arange), combinations (index_select with index lists
//    computed here);
// and refuses where(condition), whose size depends on the data, the ops that
// return Python numbers (numel, dim, sym_storage_offset, __getitem__.t) and
// _foreach_add_ (an optimizer step).
//
//===----------------------------------------------------------------------===//

#include "passes/Legalizer.h"

#include <cmath>

namespace ptec::legalize {
namespace {

/// `v` as element type `t` (a copy only when it differs).
FailureOr<Value> castTo(Legalizer &L, Value v, Type t) {
  if (tensorType(v).getElementType() == t)
    return v;
  return L.make("aten::_to_copy", {{v}}, {L.dtype("dtype", t)});
}

/// arange(n) of element type `t`.
FailureOr<Value> arangeN(Legalizer &L, int64_t n, Type t) {
  return L.make("aten::arange", {}, {L.i64("end", n), L.dtype("dtype", t)});
}

/// A tensor of `shape` filled with `value`, of element type `t`.
FailureOr<Value> filled(Legalizer &L, ArrayRef<int64_t> shape, double value, Type t) {
  return L.make("aten::full", {}, {L.ints("size", shape), L.f64("fill_value", value),
                                   L.dtype("dtype", t)});
}

FailureOr<Value> unsqueeze(Legalizer &L, Value v, int64_t dim) {
  return L.make("aten::unsqueeze_copy", {{v}}, {L.i64("dim", dim)});
}

/// The element type the op produces.
Type resultElement(Legalizer &L) { return L.resultType().getElementType(); }

LogicalResult eye(Legalizer &L) {
  int64_t n = intArg(L.op, "n", 0);
  int64_t m = L.op.getOpName() == "aten::eye.m" ? intArg(L.op, "m", 0) : n;
  Type i64 = L.b.getI64Type();
  FailureOr<Value> rows = arangeN(L, n, i64);
  if (succeeded(rows))
    rows = unsqueeze(L, *rows, 1);
  FailureOr<Value> cols = arangeN(L, m, i64);
  if (failed(rows) || failed(cols))
    return failure();
  FailureOr<Value> eq = L.make("aten::eq.Tensor", {{*rows}, {*cols}});
  if (failed(eq))
    return failure();
  return L.replaceWith(castTo(L, *eq, resultElement(L)));
}

double scalarArg(exir::AtenOp op, StringRef name, double dflt) {
  Attribute a = op->getAttr(name);
  if (auto f = llvm::dyn_cast_or_null<FloatAttr>(a))
    return f.getValueAsDouble();
  if (auto i = llvm::dyn_cast_or_null<IntegerAttr>(a))
    return static_cast<double>(i.getInt());
  if (auto b = llvm::dyn_cast_or_null<BoolAttr>(a))
    return b.getValue() ? 1.0 : 0.0;
  return dflt;
}

/// A bound of linspace/logspace as a 0-dim tensor of element type `t`: the
/// tensor argument (viewed 0-dim, converted) or the scalar one.
FailureOr<Value> boundOf(Legalizer &L, StringRef name, Type t) {
  if (Value v = L.operand(name)) {
    FailureOr<Value> scalar = L.view(v, {});
    if (failed(scalar))
      return failure();
    return castTo(L, *scalar, t);
  }
  return filled(L, {}, scalarArg(L.op, name, 0), t);
}

/// linspace's values in element type `t` (floating), PyTorch's way: with
/// step = (end - start) / (steps - 1), element i is start + i * step in the
/// first half and end - (steps - 1 - i) * step in the second.
FailureOr<Value> linspaceValues(Legalizer &L, Value start, Value end, int64_t steps, Type t) {
  RankedTensorType shape1 = RankedTensorType::get({steps}, t);
  if (steps <= 1)
    return L.make("aten::expand_copy", shape1, {{start}}, {L.ints("size", {steps})});
  FailureOr<Value> step = L.make("aten::sub.Tensor", {{end}, {start}});
  if (succeeded(step))
    step = L.make("aten::div.Scalar", {{*step}}, {L.f64("other", static_cast<double>(steps - 1))});
  FailureOr<Value> idx = arangeN(L, steps, t);
  if (failed(step) || failed(idx))
    return failure();
  FailureOr<Value> up = L.make("aten::mul.Tensor", {{*idx}, {*step}});
  if (succeeded(up))
    up = L.make("aten::add.Tensor", {{*up}, {start}});
  // (steps - 1 - i) * step, subtracted from end.
  FailureOr<Value> down =
      L.make("aten::rsub.Scalar", {{*idx}}, {L.f64("other", static_cast<double>(steps - 1))});
  if (succeeded(down))
    down = L.make("aten::mul.Tensor", {{*down}, {*step}});
  if (succeeded(down))
    down = L.make("aten::sub.Tensor", {{end}, {*down}});
  FailureOr<Value> firstHalf =
      L.make("aten::lt.Scalar", {{*idx}}, {L.i64("other", steps / 2)});
  if (failed(up) || failed(down) || failed(firstHalf))
    return failure();
  return L.make("aten::where.self", {{*firstHalf}, {*up}, {*down}});
}

LogicalResult linspace(Legalizer &L) {
  Type t = resultElement(L);
  if (!llvm::isa<FloatType>(t))
    return L.refuse("with an integer dtype is not supported: export it as a float "
                    "linspace followed by a conversion");
  int64_t steps = intArg(L.op, "steps", 0);
  FailureOr<Value> start = boundOf(L, "start", t), end = boundOf(L, "end", t);
  if (failed(start) || failed(end))
    return failure();
  FailureOr<Value> lin = linspaceValues(L, *start, *end, steps, t);
  if (failed(lin) || L.op.getOpName().starts_with("aten::linspace"))
    return L.replaceWith(lin);
  // logspace: base ** linspace.
  return L.replaceWith(
      L.make("aten::pow.Scalar", {{*lin}}, {L.f64("self", scalarArg(L.op, "base", 10.0))}));
}

LogicalResult hannWindow(Legalizer &L) {
  Type t = resultElement(L);
  if (!llvm::isa<FloatType>(t))
    return L.refuse("with a non-floating dtype is not supported");
  int64_t n = intArg(L.op, "window_length", 0);
  if (n <= 1)
    return L.replaceWith(filled(L, {n}, 1.0, t));
  // A periodic window is the first n points of the symmetric one of n + 1.
  double denom = static_cast<double>(boolArg(L.op, "periodic", true) ? n : n - 1);
  FailureOr<Value> w = arangeN(L, n, t);
  if (succeeded(w))
    w = L.make("aten::mul.Scalar", {{*w}}, {L.f64("other", 2.0 * M_PI / denom)});
  if (succeeded(w))
    w = L.make("aten::cos", {{*w}});
  if (succeeded(w))
    w = L.make("aten::mul.Scalar", {{*w}}, {L.f64("other", -0.5)});
  if (succeeded(w))
    w = L.make("aten::add.Scalar", {{*w}}, {L.f64("other", 0.5)});
  return L.replaceWith(w);
}

LogicalResult isin(Legalizer &L) {
  StringRef name = L.op.getOpName();
  FailureOr<Value> hit = failure();
  if (name == "aten::isin.Tensor_Scalar") {
    hit = L.make("aten::eq.Scalar", {{L.operand("elements")}},
                 {L.attr("other", L.op->getAttr("test_element"))});
  } else {
    Value test = L.operand("test_elements");
    RankedTensorType tt = tensorType(test);
    FailureOr<Value> flat = L.view(test, {tt.getNumElements()});
    if (failed(flat))
      return failure();
    if (name == "aten::isin.Scalar_Tensor") {
      hit = L.make("aten::eq.Scalar", {{*flat}}, {L.attr("other", L.op->getAttr("element"))});
      if (succeeded(hit))
        hit = L.make("aten::any", {{*hit}});
    } else {
      FailureOr<Value> e = unsqueeze(L, L.operand("elements"), -1);
      if (succeeded(e))
        hit = L.make("aten::eq.Tensor", {{*e}, {*flat}});
      if (succeeded(hit))
        hit = L.make("aten::any.dim", {{*hit}}, {L.i64("dim", -1), L.boolean("keepdim", false)});
    }
  }
  if (succeeded(hit) && boolArg(L.op, "invert", false))
    hit = L.make("aten::logical_not", {{*hit}});
  return L.replaceWith(hit);
}

LogicalResult sumToSize(Legalizer &L) {
  Value self = L.operand("self");
  RankedTensorType st = tensorType(self), rt = L.resultType();
  int64_t lead = st.getRank() - rt.getRank();
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < st.getRank(); ++d)
    if (d < lead || (rt.getDimSize(d - lead) == 1 && st.getDimSize(d) != 1))
      dims.push_back(d);
  if (dims.empty())
    return L.replaceWith(L.view(self, rt.getShape()));
  FailureOr<Value> s = L.make("aten::sum.dim_IntList", {{self}},
                              {L.ints("dim", dims), L.boolean("keepdim", true),
                               L.dtype("dtype", st.getElementType())});
  if (failed(s))
    return failure();
  return L.replaceWith(L.view(*s, rt.getShape()));
}

LogicalResult dimArange(Legalizer &L) {
  return L.replaceWith(arangeN(L, L.resultType().getDimSize(0), L.b.getI64Type()));
}

/// `v` padded with `value`: `before`/`after` elements on dim `dim`.
FailureOr<Value> padDim(Legalizer &L, Value v, int64_t dim, int64_t before, int64_t after,
                        double value) {
  if (before == 0 && after == 0)
    return v;
  int64_t rank = tensorType(v).getRank();
  SmallVector<int64_t> pad(2 * (rank - dim), 0);
  pad[pad.size() - 2] = before;
  pad[pad.size() - 1] = after;
  return L.make("aten::constant_pad_nd", {{v}}, {L.ints("pad", pad), L.f64("value", value)});
}

LogicalResult padSequence(Legalizer &L) {
  SmallVector<Value> seqs(L.op.getTensorInputs());
  bool left = false;
  if (auto side = L.op->getAttrOfType<StringAttr>("padding_side")) {
    if (side.getValue() != "left" && side.getValue() != "right")
      return L.refuse("with padding_side '" + side.getValue() + "' is not supported");
    left = side.getValue() == "left";
  }
  auto value = L.op->getAttrOfType<FloatAttr>("padding_value");
  double pv = value ? value.getValueAsDouble() : 0.0;
  int64_t longest = 0;
  for (Value s : seqs)
    longest = std::max(longest, tensorType(s).getDimSize(0));
  Operands padded;
  for (Value s : seqs) {
    int64_t missing = longest - tensorType(s).getDimSize(0);
    FailureOr<Value> p = padDim(L, s, 0, left ? missing : 0, left ? 0 : missing, pv);
    if (failed(p))
      return failure();
    padded.push_back(*p);
  }
  int64_t dim = boolArg(L.op, "batch_first", false) ? 0 : 1;
  return L.replaceWith(L.make("aten::stack", {padded}, {L.i64("dim", dim)}));
}

LogicalResult blockDiag(Legalizer &L) {
  RankedTensorType rt = L.resultType();
  Type t = rt.getElementType();
  int64_t col = 0, width = rt.getDimSize(1);
  Operands rows;
  for (Value v : L.op.getTensorInputs()) {
    RankedTensorType vt = tensorType(v);
    int64_t r = vt.getRank() == 2 ? vt.getDimSize(0) : 1;
    int64_t c = vt.getRank() == 0 ? 1 : vt.getShape().back();
    FailureOr<Value> block = L.view(v, {r, c});
    if (succeeded(block))
      block = castTo(L, *block, t);
    if (succeeded(block))
      block = padDim(L, *block, 1, col, width - col - c, 0.0);
    if (failed(block))
      return failure();
    rows.push_back(*block);
    col += c;
  }
  return L.replaceWith(L.make("aten::cat", {rows}, {L.i64("dim", 0)}));
}

/// x[..., None] ** exps, with exps = 0..n-1 (or n-1..0) as int64.
LogicalResult vanderPowers(Legalizer &L, bool increasing) {
  Value x = L.op.getTensorInputs().front();
  RankedTensorType rt = L.resultType();
  int64_t n = rt.getShape().back();
  Type i64 = L.b.getI64Type();
  FailureOr<Value> exps =
      increasing ? arangeN(L, n, i64)
                 : L.make("aten::arange.start_step", {},
                          {L.i64("start", n - 1), L.i64("end", -1), L.i64("step", -1),
                           L.dtype("dtype", i64)});
  FailureOr<Value> base = castTo(L, x, rt.getElementType());
  if (succeeded(base))
    base = unsqueeze(L, *base, -1);
  if (failed(exps) || failed(base))
    return failure();
  return L.replaceWith(L.make("aten::pow.Tensor_Tensor", {{*base}, {*exps}}));
}

/// Index lists of torch.combinations (itertools order), one per position.
SmallVector<SmallVector<int64_t>> combinationIndices(int64_t n, int64_t r, bool replacement) {
  SmallVector<SmallVector<int64_t>> cols(r);
  SmallVector<int64_t> cur(r, 0);
  if (!replacement)
    for (int64_t j = 0; j < r; ++j)
      cur[j] = j;
  auto valid = [&] { return r > 0 && cur[r - 1] < n; };
  while (valid()) {
    for (int64_t j = 0; j < r; ++j)
      cols[j].push_back(cur[j]);
    int64_t j = r - 1;
    while (j >= 0 && cur[j] == (replacement ? n - 1 : n - r + j))
      --j;
    if (j < 0)
      break;
    ++cur[j];
    for (int64_t k = j + 1; k < r; ++k)
      cur[k] = replacement ? cur[j] : cur[k - 1] + 1;
  }
  return cols;
}

/// An int64 index list as a tensor: one full() per run of equal values.
FailureOr<Value> indexList(Legalizer &L, ArrayRef<int64_t> values) {
  Operands runs;
  for (size_t i = 0; i < values.size();) {
    size_t j = i;
    while (j < values.size() && values[j] == values[i])
      ++j;
    FailureOr<Value> run = filled(L, {static_cast<int64_t>(j - i)},
                                  static_cast<double>(values[i]), L.b.getI64Type());
    if (failed(run))
      return failure();
    runs.push_back(*run);
    i = j;
  }
  if (runs.size() == 1)
    return runs.front();
  return L.make("aten::cat", {runs}, {L.i64("dim", 0)});
}

LogicalResult combinations(Legalizer &L) {
  Value self = L.operand("self");
  RankedTensorType rt = L.resultType();
  int64_t r = intArg(L.op, "r", 2), n = tensorType(self).getDimSize(0);
  if (rt.getNumElements() == 0)
    return L.replaceWith(filled(L, rt.getShape(), 0.0, rt.getElementType()));
  constexpr int64_t kMaxIndices = 4096;
  if (rt.getNumElements() > kMaxIndices)
    return L.refuse("with more than " + Twine(kMaxIndices) +
                    " indices is not supported (its index lists are built at compile time)");
  auto cols = combinationIndices(n, r, boolArg(L.op, "with_replacement", false));
  Operands picked;
  for (const auto &col : cols) {
    FailureOr<Value> idx = indexList(L, col);
    if (failed(idx))
      return failure();
    FailureOr<Value> sel = L.make("aten::index_select", {{self}, {*idx}}, {L.i64("dim", 0)});
    if (failed(sel))
      return failure();
    picked.push_back(*sel);
  }
  return L.replaceWith(L.make("aten::stack", {picked}, {L.i64("dim", 1)}));
}

/// cartesian_prod: meshgrid(indexing='ij') of the 1-D inputs, each
/// flattened, stacked as columns (one input: that input).
LogicalResult cartesianProd(Legalizer &L) {
  SmallVector<Value> ins(L.op.getTensorInputs());
  if (ins.size() == 1)
    return L.replace({ins.front()});
  SmallVector<int64_t> grid;
  int64_t total = 1;
  for (Value v : ins) {
    grid.push_back(tensorType(v).getDimSize(0));
    total *= grid.back();
  }
  Operands cols;
  for (auto [i, v] : llvm::enumerate(ins)) {
    SmallVector<int64_t> along(grid.size(), 1);
    along[i] = grid[i];
    FailureOr<Value> col = L.view(v, along);
    if (succeeded(col))
      col = L.make("aten::expand_copy", {{*col}}, {L.ints("size", grid)});
    if (succeeded(col))
      col = L.view(*col, {total});
    if (failed(col))
      return failure();
    cols.push_back(*col);
  }
  return L.replaceWith(L.make("aten::stack", {cols}, {L.i64("dim", 1)}));
}

/// squeeze_copy without dims: every size-1 dim (static shapes).
LogicalResult squeezeAll(Legalizer &L) {
  RankedTensorType t = tensorType(L.operand("self"));
  SmallVector<int64_t> dims;
  for (int64_t i = 0; i < t.getRank(); ++i)
    if (t.getDimSize(i) == 1)
      dims.push_back(i);
  return L.replaceWith(L.make("aten::squeeze_copy.dims", {{L.operand("self")}},
                              {L.ints("dim", dims)}));
}

/// _reshape_alias with the contiguous strides of its size is a view.
LogicalResult reshapeAlias(Legalizer &L) {
  auto size = L.op->getAttrOfType<DenseI64ArrayAttr>("size");
  auto stride = L.op->getAttrOfType<DenseI64ArrayAttr>("stride");
  if (!size || !stride || size.size() != stride.size())
    return L.refuse("without matching size and stride lists is not supported");
  int64_t expect = 1;
  for (int64_t i = size.size() - 1; i >= 0; --i) {
    if (size[i] != 1 && stride[i] != expect)
      return L.refuse("with non-contiguous strides is not supported: it would read "
                      "the storage in another order than a view");
    expect *= size[i];
  }
  return L.replaceWith(L.view(L.operand("self"), size.asArrayRef()));
}

} // namespace

void addMiscLegalizations(LegalizeTable &t) {
  addLegalizations(t, {"aten::eye", "aten::eye.m"}, eye);
  addLegalizations(t,
                   {"aten::linspace", "aten::logspace", "aten::linspace.Tensor_Tensor",
                    "aten::linspace.Tensor_Scalar", "aten::linspace.Scalar_Tensor",
                    "aten::logspace.Tensor_Tensor", "aten::logspace.Tensor_Scalar",
                    "aten::logspace.Scalar_Tensor"},
                   linspace);
  // The special_ spellings of softmax and log_softmax take the same arguments.
  addLegalizations(t, {"aten::special_softmax"},
                   [](Legalizer &L) { return L.softmax("aten::_softmax"); }, Dynamic::Handled);
  addLegalizations(t, {"aten::special_log_softmax"},
                   [](Legalizer &L) { return L.softmax("aten::_log_softmax"); },
                   Dynamic::Handled);
  addLegalizations(t, {"aten::hann_window", "aten::hann_window.periodic"}, hannWindow);
  addLegalizations(t, {"aten::isin.Tensor_Tensor", "aten::isin.Tensor_Scalar",
                       "aten::isin.Scalar_Tensor"},
                   isin);
  addLegalizations(t, {"aten::concat", "aten::concatenate"},
                   [](Legalizer &L) { return L.rename("aten::cat"); }, Dynamic::Handled);
  addLegalizations(t, {"aten::sum_to_size"}, sumToSize);
  addLegalizations(t, {"aten::_dim_arange"}, dimArange);
  addLegalizations(t, {"aten::pad_sequence"}, padSequence);
  addLegalizations(t, {"aten::block_diag"}, blockDiag);
  addLegalizations(t, {"aten::vander"},
                   [](Legalizer &L) { return vanderPowers(L, boolArg(L.op, "increasing", false)); });
  addLegalizations(t, {"aten::linalg_vander"},
                   [](Legalizer &L) { return vanderPowers(L, /*increasing=*/true); });
  addLegalizations(t, {"aten::combinations"}, combinations);
  addLegalizations(t, {"aten::cartesian_prod"}, cartesianProd);
  addLegalizations(t, {"aten::squeeze_copy"}, squeezeAll);
  addLegalizations(t, {"aten::_reshape_alias"}, reshapeAlias);
  addRefusals(t, {"aten::where"},
              "where(condition) returns the indices of the true elements, whose count "
              "depends on the data; use where(condition, x, y) or a mask");
  addRefusals(t, {"aten::numel", "aten::dim", "aten::sym_storage_offset", "aten::__getitem__.t"},
              "it returns a Python number or list element, not a tensor, which torch.export "
              "evaluates while tracing; a graph that still holds it uses the result as a "
              "value: use x.shape / len(...) in Python, or compute it as a tensor");
  addRefusals(t, {"aten::_foreach_add_.Scalar"},
              "an optimizer's in-place update of a list of tensors (torch._foreach_add_); "
              "export the model for inference without its optimizer step");
}

} // namespace ptec::legalize
