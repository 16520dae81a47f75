//===- LegalizeViews.cpp - flatten, diagonal and as_strided ---------------===//
//
// legalize-to-core-aten rewrites for view-shaped ops that are not a plain
// rename to a `_copy` form: flatten (a reshape), diagonal_scatter and
// as_strided / as_strided_scatter (index arithmetic over self's storage).
//
//===----------------------------------------------------------------------===//

#include "passes/Legalizer.h"

namespace ptec::legalize {

/// diagonal_scatter(self, src, offset, dim1, dim2) (what a write through a
/// `diagonal` view becomes): move dim1 and dim2 to the front, put src's
/// elements at the index pairs (i, i + offset) with index_put, move back.
LogicalResult Legalizer::diagonalScatter() {
  Value self = operandOf(op, "self"), src = operandOf(op, "src");
  RankedTensorType st = tensorType(self), vt = tensorType(src);
  if (!st || !vt || st.getRank() < 2 || vt.getRank() != st.getRank() - 1 || dynamic)
    return emitError(loc, "diagonal_scatter needs static shapes of ranks r and r - 1");
  int64_t r = st.getRank(), o = intArg(op, "offset", 0);
  int64_t d1 = intArg(op, "dim1", 0), d2 = intArg(op, "dim2", 1);
  d1 = d1 < 0 ? d1 + r : d1;
  d2 = d2 < 0 ? d2 + r : d2;
  if (d1 < 0 || d2 < 0 || d1 >= r || d2 >= r || d1 == d2)
    return emitError(loc, "diagonal_scatter: dims out of range");
  int64_t n = vt.getShape().back();
  if (n == 0) {
    return replace({self});
  }
  SmallVector<int64_t> perm = {d1, d2}, inverse(r), permShape;
  for (int64_t d = 0; d < r; ++d)
    if (d != d1 && d != d2)
      perm.push_back(d);
  for (auto [i, d] : llvm::enumerate(perm)) {
    inverse[d] = static_cast<int64_t>(i);
    permShape.push_back(st.getDimSize(d));
  }
  SmallVector<int64_t> srcPerm = {r - 2}, srcShape = {n};
  for (int64_t d = 0; d < r - 2; ++d) {
    srcPerm.push_back(d);
    srcShape.push_back(vt.getDimSize(d));
  }
  auto selfP = make("aten::permute_copy", withShape(st, permShape), {{self}}, {ints("dims", perm)});
  auto srcP = make("aten::permute_copy", withShape(vt, srcShape), {{src}}, {ints("dims", srcPerm)});
  if (failed(selfP) || failed(srcP))
    return failure();
  auto index = [&](int64_t start) {
    return make("aten::arange.start_step", RankedTensorType::get({n}, b.getI64Type()), {},
                {i64("start", start), i64("end", start + n), i64("step", 1),
                 attr("dtype", TypeAttr::get(b.getI64Type()))});
  };
  auto i = index(std::max<int64_t>(-o, 0)), j = index(std::max<int64_t>(o, 0));
  if (failed(i) || failed(j))
    return failure();
  auto put = make("aten::index_put", withShape(st, permShape), {{*selfP}, {*i, *j}, {*srcP}},
                  {attr("indices", b.getDenseBoolArrayAttr({true, true}))});
  if (failed(put))
    return failure();
  return replaceWith(make("aten::permute_copy", st, {{*put}}, {ints("dims", inverse)}));
}

/// as_strided(self, size, stride, storage_offset) reads self's storage at
/// offset + sum(i_k * stride_k): the as_strided_copy kernel. as_strided_scatter
/// (a write through such a view) writes src there, as flat indexing: the
/// indices are one arange per dimension (broadcast sum), and index_put writes
/// the flattened self. Storage is self's contiguous layout, which is what
/// PyTorch addresses only when self is not itself a view: an operand made by
/// a view copy is refused.
LogicalResult Legalizer::asStrided(bool scatter) {
  Value self = operandOf(op, "self");
  RankedTensorType st = tensorType(self), rt = tensorType(op->getResult(0));
  auto size = op->getAttrOfType<DenseI64ArrayAttr>("size");
  auto stride = op->getAttrOfType<DenseI64ArrayAttr>("stride");
  auto offsetAttr = op->getAttrOfType<IntegerAttr>("storage_offset");
  if (!st || !rt || !st.hasStaticShape() || dynamic || !size || !stride ||
      size.size() != stride.size() || size.empty())
    return emitError(loc, "as_strided needs static shapes, sizes and strides of rank >= 1");
  if (auto def = self.getDefiningOp<exir::AtenOp>()) {
    StringRef base = def.getOpName().split('.').first;
    if (base.ends_with("_copy"))
      return emitError(loc) << "as_strided of a view ('" << def.getOpName()
                            << "'): PyTorch addresses the view's base storage there; "
                               "not supported";
  }
  int64_t offset = offsetAttr ? offsetAttr.getInt() : 0, count = st.getNumElements();
  int64_t last = offset, rank = static_cast<int64_t>(size.size());
  for (auto [sz, str] : llvm::zip(size.asArrayRef(), stride.asArrayRef())) {
    if (sz < 0 || str < 0)
      return emitError(loc, "as_strided with a negative size or stride");
    if (sz == 0)
      last = -1;
    else if (last >= 0)
      last += (sz - 1) * str;
  }
  if (offset < 0 || last >= count)
    return emitError(loc) << "as_strided reads element " << last << " of a tensor of "
                          << count << " elements";
  if (!scatter) // the portable kernel reads self's storage the same way
    return rename("aten::as_strided_copy");
  if (last < 0) { // an empty view: nothing to write
    return replace({self});
  }
  auto i64Type = [&](ArrayRef<int64_t> shape) { return RankedTensorType::get(shape, b.getI64Type()); };
  FailureOr<Value> index;
  for (int64_t k = 0; k < rank; ++k) {
    int64_t sz = size[k], str = stride[k];
    SmallVector<int64_t> shape(rank, 1);
    shape[k] = sz;
    // arange(0, sz * str, str), or zeros for a 0 stride.
    auto a = make("aten::arange.start_step", i64Type({sz}), {},
                  {i64("start", str == 0 ? 0 : offset * (k == 0)),
                   i64("end", str == 0 ? sz : offset * (k == 0) + sz * str),
                   i64("step", str == 0 ? 1 : str), attr("dtype", TypeAttr::get(b.getI64Type()))});
    if (succeeded(a) && str == 0)
      a = make("aten::mul.Scalar", i64Type({sz}), {{*a}}, {i64("other", 0)});
    if (succeeded(a) && str == 0 && k == 0 && offset != 0)
      a = make("aten::add.Scalar", i64Type({sz}), {{*a}},
               {i64("other", offset), i64("alpha", 1)});
    if (failed(a))
      return failure();
    FailureOr<Value> term = make("aten::view_copy", i64Type(shape), {{*a}}, {ints("size", shape)});
    if (failed(term))
      return failure();
    if (k == 0) {
      index = term;
      continue;
    }
    SmallVector<int64_t> sumShape(size.asArrayRef().take_front(k + 1));
    sumShape.append(rank - k - 1, 1);
    index = make("aten::add.Tensor", i64Type(sumShape), {{*index}, {*term}}, {i64("alpha", 1)});
    if (failed(index))
      return failure();
  }
  FailureOr<Value> flat = view(self, {count});
  if (failed(flat))
    return failure();
  auto present = attr("indices", b.getDenseBoolArrayAttr({true}));
  Value src = operandOf(op, "src");
  RankedTensorType vt = tensorType(src);
  if (!vt || vt.getShape() != size.asArrayRef())
    return emitError(loc, "as_strided_scatter: src does not have the view's size");
  FailureOr<Value> put = make("aten::index_put", tensorType(*flat), {{*flat}, {*index}, {src}},
                              {present});
  if (failed(put))
    return failure();
  return replaceWith(view(*put, st.getShape()));
}

LogicalResult Legalizer::flatten() {
  Value x = operandOf(op, "self");
  int64_t r = tensorType(x).getRank();
  if (r == 0)
    return replaceWith(view(x, {1}));
  int64_t start = intArg(op, "start_dim", 0), end = intArg(op, "end_dim", -1);
  start = start < 0 ? start + r : start;
  end = end < 0 ? end + r : end;
  if (start < 0 || end >= r || start > end)
    return emitError(loc, "flatten: dims out of range");
  SmallVector<DimProduct> dims = dimsOf(x, 0, start);
  dims.push_back(foldDims(x, start, end + 1));
  llvm::append_range(dims, dimsOf(x, end + 1, r));
  return replaceWith(reshape(x, dims));
}

void addViewLegalizations(LegalizeTable &t) {
  addLegalizations(t, {"aten::diagonal_scatter"},
                   [](Legalizer &L) { return L.diagonalScatter(); }, Dynamic::Handled);
  addLegalizations(t, {"aten::as_strided", "aten::as_strided_copy"},
                   [](Legalizer &L) { return L.asStrided(/*scatter=*/false); },
                   Dynamic::Handled);
  addLegalizations(t, {"aten::as_strided_scatter"},
                   [](Legalizer &L) { return L.asStrided(/*scatter=*/true); },
                   Dynamic::Handled);
  addLegalizations(t, {"aten::flatten.using_ints"}, [](Legalizer &L) { return L.flatten(); },
                   Dynamic::Handled);
  addRefusals(t, {"aten::view.dtype", "aten::view_copy.dtype"},
              "it reinterprets a tensor's bytes as another dtype, which no portable kernel "
              "does; convert the values with .to(dtype), or do the bit cast outside the model");
  addRefusals(t, {"aten::view_as_real", "aten::view_as_real_copy"},
              "complex numbers: ExecuTorch's portable kernels have no complex dtype; keep "
              "real and imaginary parts as separate real tensors");
}

} // namespace ptec::legalize
