//===- LegalizeShapeJoin.cpp - joins, repeats, grids and diagonals --------===//
//
// legalize-to-core-aten rewrites of composite ops that build a larger
// tensor from their inputs (torch's decompositions are the reference):
//  - hstack/vstack/row_stack/dstack/column_stack: views to at least 1, 2 or
//    3 dims (or columns), then cat;
//  - tile (repeat with the dims padded by 1s), repeat_interleave.self_int
//    (unsqueeze, expand, view), repeat_interleave.self_Tensor with an
//    output_size (index_select by repeat_interleave.Tensor's indices);
//  - meshgrid (both indexings) and broadcast_tensors: views and expands;
//  - one_hot (a comparison with arange), diag / diag_embed / diagflat (a
//    where over an index comparison, as torch's reference: the diagonal
//    reads the input, every other element is 0, whatever the input holds).
//
//===----------------------------------------------------------------------===//

#include "passes/LegalizeShape.h"

namespace ptec::legalize {
namespace {
using namespace shape;

SmallVector<int64_t> atLeastShape(ArrayRef<int64_t> s, size_t n) {
  SmallVector<int64_t> out(s.begin(), s.end());
  if (out.size() >= n)
    return out;
  if (out.empty())
    return SmallVector<int64_t>(n, 1);
  if (out.size() == 1)
    return n == 2 ? SmallVector<int64_t>{1, out[0]} : SmallVector<int64_t>{1, out[0], 1};
  out.push_back(1);
  return out;
}

/// hstack, vstack, row_stack, dstack, column_stack.
LogicalResult stacks(Legalizer &L) {
  StringRef name = L.op.getOpName();
  SmallVector<Value> parts;
  int64_t dim = 0;
  for (Value v : L.op.getTensorInputs()) {
    RankedTensorType t = tensorType(v);
    SmallVector<int64_t> shape;
    if (name == "aten::hstack") {
      shape = atLeastShape(t.getShape(), 1);
    } else if (name == "aten::dstack") {
      shape = atLeastShape(t.getShape(), 3);
    } else if (name == "aten::column_stack") {
      shape = t.getRank() <= 1 ? SmallVector<int64_t>{t.getNumElements(), 1}
                               : SmallVector<int64_t>(t.getShape());
    } else {
      shape = atLeastShape(t.getShape(), 2);
    }
    FailureOr<Value> p = L.view(v, shape);
    if (failed(p))
      return failure();
    parts.push_back(*p);
  }
  if (parts.empty())
    return L.refuse("needs at least one tensor");
  if (name == "aten::hstack")
    dim = tensorType(parts.front()).getRank() == 1 ? 0 : 1;
  else if (name == "aten::dstack")
    dim = 2;
  else if (name == "aten::column_stack")
    dim = 1;
  if (parts.size() == 1)
    return L.replaceWith(L.make("aten::clone", {{parts.front()}}));
  return L.replaceWith(cat(L, parts, dim));
}

/// tile(x, dims): repeat, with dims padded by leading 1s to x's rank.
LogicalResult tile(Legalizer &L) {
  Value x = L.operand("self");
  auto dims = L.op->getAttrOfType<DenseI64ArrayAttr>("dims");
  if (!dims)
    return L.refuse("needs its dims");
  SmallVector<int64_t> reps(dims.asArrayRef());
  int64_t rank = tensorType(x).getRank();
  if (static_cast<int64_t>(reps.size()) < rank)
    reps.insert(reps.begin(), rank - reps.size(), 1);
  return L.replaceWith(L.make("aten::repeat", {{x}}, {L.ints("repeats", reps)}));
}

/// The tensor repeat_interleave works on (the flattened self without a
/// dim) and the dim it repeats along.
FailureOr<std::pair<Value, int64_t>> interleaveOperand(Legalizer &L) {
  Value x = L.operand("self");
  RankedTensorType t = tensorType(x);
  Attribute d = L.op->getAttr("dim");
  if (!d || llvm::isa<exir::NoneAttr>(d)) {
    FailureOr<Value> flat = L.view(x, {t.getNumElements()});
    if (failed(flat))
      return failure();
    return std::make_pair(*flat, int64_t(0));
  }
  if (t.getRank() == 0) {
    FailureOr<Value> one = L.view(x, {1});
    if (failed(one))
      return failure();
    return std::make_pair(*one, int64_t(0));
  }
  return std::make_pair(x, wrapDim(llvm::cast<IntegerAttr>(d).getInt(), t.getRank()));
}

/// repeat_interleave.self_int: each element along dim repeated r times:
/// a size-1 dim after it, expanded to r, folded into dim.
LogicalResult repeatInterleaveInt(Legalizer &L) {
  int64_t r = intArg(L.op, "repeats", 1);
  FailureOr<std::pair<Value, int64_t>> in = interleaveOperand(L);
  if (failed(in))
    return failure();
  auto [x, d] = *in;
  ArrayRef<int64_t> s = tensorType(x).getShape();
  SmallVector<int64_t> unsq(s.begin(), s.end()), expanded, folded(s.begin(), s.end());
  unsq.insert(unsq.begin() + d + 1, 1);
  expanded = unsq;
  expanded[d + 1] = r;
  folded[d] = s[d] * r;
  FailureOr<Value> v = L.view(x, unsq);
  if (succeeded(v))
    v = expand(L, *v, expanded);
  if (failed(v))
    return failure();
  return L.replaceWith(L.view(*v, folded));
}

/// repeat_interleave.self_Tensor: index_select by the indices
/// repeat_interleave.Tensor makes of the repeats (its kernel); the length
/// is output_size, which must be given (else it is data-dependent).
LogicalResult repeatInterleaveTensor(Legalizer &L) {
  Attribute os = L.op->getAttr("output_size");
  if (!os || !llvm::isa<IntegerAttr>(os))
    return L.refuse("without output_size is not supported: the result's length is the sum "
                    "of the repeats, known only from the data; pass output_size");
  FailureOr<std::pair<Value, int64_t>> in = interleaveOperand(L);
  if (failed(in))
    return failure();
  auto [x, d] = *in;
  Value reps = L.operand("repeats");
  int64_t n = tensorType(x).getDimSize(d);
  FailureOr<Value> r = cast(L, reps, L.b.getI64Type());
  if (succeeded(r) && tensorType(*r).getRank() == 0)
    r = L.view(*r, {1});
  if (succeeded(r) && tensorType(*r).getDimSize(0) == 1 && n != 1)
    r = expand(L, *r, {n});
  if (failed(r))
    return failure();
  FailureOr<Value> idx = L.make("aten::repeat_interleave.Tensor", {{*r}}, {L.attr("output_size", os)});
  if (failed(idx))
    return failure();
  return L.replaceWith(L.make("aten::index_select", {{x}, {*idx}}, {L.i64("dim", d)}));
}

/// one_hot(x, n): x[..., None] == arange(n), as int64.
LogicalResult oneHot(Legalizer &L) {
  int64_t n = intArg(L.op, "num_classes", -1);
  if (n < 0)
    return L.refuse("with num_classes=-1 is not supported: the number of classes is the "
                    "input's maximum + 1, known only from the data; pass num_classes");
  Value x = L.operand("self");
  FailureOr<Value> u = unsqueeze(L, x, tensorType(x).getRank());
  FailureOr<Value> a = arange(L, n);
  if (failed(u) || failed(a))
    return failure();
  FailureOr<Value> eq = binary(L, "aten::eq.Tensor", *u, *a);
  if (failed(eq))
    return failure();
  return L.replaceWith(cast(L, *eq, L.b.getI64Type()));
}

/// meshgrid / meshgrid.indexing: input i viewed along its own dim of the
/// grid (the first two swapped for "xy") and expanded.
LogicalResult meshgrid(Legalizer &L) {
  auto indexing = L.op->getAttrOfType<StringAttr>("indexing");
  bool xy = indexing && indexing.getValue() == "xy";
  SmallVector<Value> ins(L.op.getTensorInputs());
  if (ins.empty())
    return L.refuse("needs at least one tensor");
  SmallVector<int64_t> shape;
  for (Value v : ins)
    shape.push_back(tensorType(v).getNumElements());
  if (xy && ins.size() >= 2)
    std::swap(shape[0], shape[1]);
  SmallVector<Value> outs;
  for (auto [i, v] : llvm::enumerate(ins)) {
    int64_t pos = static_cast<int64_t>(i);
    if (xy && ins.size() >= 2 && pos < 2)
      pos = 1 - pos;
    SmallVector<int64_t> vshape(shape.size(), 1);
    vshape[pos] = shape[pos];
    FailureOr<Value> e = L.view(v, vshape);
    if (succeeded(e))
      e = expand(L, *e, shape);
    if (failed(e))
      return failure();
    outs.push_back(*e);
  }
  return L.replace(outs);
}

LogicalResult broadcastTensors(Legalizer &L) {
  SmallVector<Value> outs;
  for (auto [v, r] : llvm::zip(L.op.getTensorInputs(), L.op->getResults())) {
    FailureOr<Value> e = expand(L, v, tensorType(r).getShape());
    if (failed(e))
      return failure();
    outs.push_back(*e);
  }
  return L.replace(outs);
}

/// The last dim of x on the diagonal `offset` of the planes (dim1, dim2) of
/// a result one rank higher, zeros elsewhere (torch's diag_embed reference:
/// pad by |offset|, compare index ranges, where).
FailureOr<Value> diagEmbed(Legalizer &L, Value x, int64_t offset, int64_t dim1, int64_t dim2) {
  RankedTensorType t = tensorType(x);
  int64_t r = t.getRank() + 1;
  dim1 = wrapDim(dim1, r);
  dim2 = wrapDim(dim2, r);
  if (dim1 == dim2)
    return L.refuse("needs two different dims");
  if (dim1 > dim2) {
    std::swap(dim1, dim2);
    offset = -offset;
  }
  int64_t n = t.getShape().back(), m = n + std::abs(offset);
  Value v = x;
  if (offset != 0) {
    FailureOr<Value> p = L.make(
        "aten::constant_pad_nd", {{x}},
        {L.ints("pad", {offset > 0 ? offset : 0, offset > 0 ? 0 : -offset}),
         L.attr("value", scalarFor(L, t.getElementType(), 0))});
    if (failed(p))
      return failure();
    v = *p;
  }
  // v's batch dims, then a 1 for dim1 and its last dim for dim2.
  SmallVector<int64_t> vshape(t.getShape().drop_back());
  int64_t batch = vshape.size();
  vshape.push_back(1);
  vshape.push_back(m);
  SmallVector<int64_t> perm;
  for (int64_t d = 0, next = 0; d < r; ++d)
    perm.push_back(d == dim1 ? batch : d == dim2 ? batch + 1 : next++);
  FailureOr<Value> vv = L.view(v, vshape);
  if (succeeded(vv))
    vv = permute(L, *vv, perm);
  FailureOr<Value> rows = arangeAt(L, m, dim1, r);
  FailureOr<Value> cols = arangeAt(L, m, dim2, r);
  if (failed(vv) || failed(rows) || failed(cols))
    return failure();
  // Element (i, j) of a plane is on the diagonal when j == i + offset.
  FailureOr<Value> shifted = *rows;
  if (offset != 0)
    shifted = L.make("aten::add.Scalar", {{*rows}}, {L.i64("other", offset), L.i64("alpha", 1)});
  if (failed(shifted))
    return failure();
  FailureOr<Value> cond = binary(L, "aten::eq.Tensor", *cols, *shifted);
  if (failed(cond))
    return failure();
  return whereScalar(L, *cond, *vv, scalarFor(L, t.getElementType(), 0));
}

LogicalResult diagEmbedOp(Legalizer &L) {
  return L.replaceWith(diagEmbed(L, L.operand("self"), intArg(L.op, "offset", 0),
                                 intArg(L.op, "dim1", -2), intArg(L.op, "dim2", -1)));
}

/// diag: a vector's diagonal matrix, or a matrix's diagonal (diagonal_copy).
LogicalResult diag(Legalizer &L) {
  Value x = L.operand("self");
  int64_t o = intArg(L.op, "diagonal", 0);
  if (tensorType(x).getRank() == 1)
    return L.replaceWith(diagEmbed(L, x, o, 0, 1));
  if (tensorType(x).getRank() != 2)
    return L.refuse("needs a 1-dim or 2-dim tensor");
  return L.replaceWith(L.make("aten::diagonal_copy", {{x}},
                              {L.i64("offset", o), L.i64("dim1", 0), L.i64("dim2", 1)}));
}

LogicalResult diagflat(Legalizer &L) {
  Value x = L.operand("self");
  FailureOr<Value> flat = L.view(x, {tensorType(x).getNumElements()});
  if (failed(flat))
    return failure();
  return L.replaceWith(diagEmbed(L, *flat, intArg(L.op, "offset", 0), 0, 1));
}

} // namespace

void addShapeJoinLegalizations(LegalizeTable &t) {
  addLegalizations(t, {"aten::hstack", "aten::vstack", "aten::row_stack", "aten::dstack",
                       "aten::column_stack"},
                   stacks);
  addLegalizations(t, {"aten::tile"}, tile);
  addLegalizations(t, {"aten::repeat_interleave.self_int"}, repeatInterleaveInt);
  addLegalizations(t, {"aten::repeat_interleave.self_Tensor"}, repeatInterleaveTensor);
  addLegalizations(t, {"aten::one_hot"}, oneHot);
  addLegalizations(t, {"aten::meshgrid", "aten::meshgrid.indexing"}, meshgrid);
  addLegalizations(t, {"aten::broadcast_tensors"}, broadcastTensors);
  addLegalizations(t, {"aten::diag_embed"}, diagEmbedOp);
  addLegalizations(t, {"aten::diag"}, diag);
  addLegalizations(t, {"aten::diagflat"}, diagflat);
}

} // namespace ptec::legalize
