//===- LegalizeShapeSort.cpp - sort, argsort, msort, counting -------------===//
//
// legalize-to-core-aten rewrites of the sorts, which have no portable
// kernel (topk has one), and of the counting ops:
//  - sort / sort.stable / argsort / argsort.stable / msort. Along a dim of n
//    elements, where the comparisons fit (outer * n * n <= kStableLimit),
//    each element's rank in the stable order is computed exactly: the
//    number of elements that sort before it, plus the equal ones at lower
//    indices (NaN sorts after everything ascending, before everything
//    descending, and equals NaN, as PyTorch's sort); values and indices are
//    scattered to their ranks. That is PyTorch's stable sort, ties and NaN
//    included, on every runtime. Larger sorts use topk(k = n, largest =
//    descending, sorted): the values are the same, but equal elements may
//    come in any order (upstream's topk does not keep them in index order),
//    which PyTorch allows for stable=False only, so a stable sort that large
//    is refused;
//  - bucketize (.Tensor, .Scalar): the count of boundaries before each
//    element, by a broadcast compare and a sum;
//  - argwhere and nonzero_numpy are refused: their length is the number of
//    nonzero elements, known only from the data.
//
//===----------------------------------------------------------------------===//

#include "passes/LegalizeShape.h"

namespace ptec::legalize {
namespace {
using namespace shape;

/// The largest comparison matrix (elements) of the exact stable sort.
constexpr int64_t kStableLimit = int64_t(1) << 22;

struct Sorted {
  Value values, indices;
};

/// x with dims a and b swapped (x itself when a == b).
FailureOr<Value> swap(Legalizer &L, Value x, int64_t a, int64_t b) {
  if (a == b)
    return x;
  return L.make("aten::transpose_copy.int", {{x}}, {L.i64("dim0", a), L.i64("dim1", b)});
}

/// Ranks of the stable order along the last dim of `x`.
FailureOr<Value> stableRanks(Legalizer &L, Value x, bool descending) {
  RankedTensorType t = tensorType(x);
  int64_t r = t.getRank(), n = t.getShape().back();
  Type et = t.getElementType();
  Value key = x;
  if (et.isInteger(1)) {
    FailureOr<Value> k = cast(L, x, L.b.getI64Type());
    if (failed(k))
      return failure();
    key = *k;
  }
  FailureOr<Value> a = unsqueeze(L, key, r);     // x_i: [.., n, 1]
  FailureOr<Value> b = unsqueeze(L, key, r - 1); // x_j: [.., 1, n]
  if (failed(a) || failed(b))
    return failure();
  FailureOr<Value> before = binary(L, descending ? "aten::gt.Tensor" : "aten::lt.Tensor", *b, *a);
  FailureOr<Value> equal = binary(L, "aten::eq.Tensor", *b, *a);
  if (failed(before) || failed(equal))
    return failure();
  if (!llvm::isa<IntegerType>(et)) {
    FailureOr<Value> na = L.make("aten::isnan", {{*a}});
    FailureOr<Value> nb = L.make("aten::isnan", {{*b}});
    if (failed(na) || failed(nb))
      return failure();
    // NaN is the largest: ascending, a number sorts before a NaN;
    // descending, a NaN before a number.
    Value nan = descending ? *nb : *na, num = descending ? *na : *nb;
    FailureOr<Value> notNum = L.make("aten::logical_not", {{num}});
    FailureOr<Value> extra = failed(notNum) ? notNum : binary(L, "aten::logical_and", nan, *notNum);
    if (succeeded(extra))
      before = binary(L, "aten::logical_or", *before, *extra);
    FailureOr<Value> both = binary(L, "aten::logical_and", *na, *nb);
    if (succeeded(both))
      equal = binary(L, "aten::logical_or", *equal, *both);
    if (failed(before) || failed(equal))
      return failure();
  }
  // Equal elements keep their order: j sorts first when j < i.
  FailureOr<Value> js = arangeAt(L, n, 1, 2), is = arangeAt(L, n, 0, 2);
  if (failed(js) || failed(is))
    return failure();
  FailureOr<Value> lower = binary(L, "aten::lt.Tensor", *js, *is);
  FailureOr<Value> ties = failed(lower) ? lower : binary(L, "aten::logical_and", *equal, *lower);
  FailureOr<Value> first = failed(ties) ? ties : binary(L, "aten::logical_or", *before, *ties);
  if (failed(first))
    return failure();
  return L.make("aten::sum.dim_IntList", {{*first}},
                {L.ints("dim", {r}), L.boolean("keepdim", false), L.dtype("dtype", L.b.getI64Type())});
}

/// values and indices of x sorted along dim.
FailureOr<Sorted> sortAlong(Legalizer &L, Value x, int64_t dim, bool descending, bool stable) {
  RankedTensorType t = tensorType(x);
  Type i64 = L.b.getI64Type();
  if (t.getRank() == 0) {
    FailureOr<Value> zero = full(L, {}, L.b.getI64IntegerAttr(0), i64);
    if (failed(zero))
      return failure();
    return Sorted{x, *zero};
  }
  int64_t r = t.getRank(), n = t.getDimSize(dim);
  int64_t outer = n == 0 ? 0 : t.getNumElements() / n;
  if (outer * n * n > kStableLimit) {
    if (stable)
      return L.refuse("with stable=True over " + Twine(n) + " elements (" + Twine(outer) +
                      " times) is not supported: there is no sort kernel; the exact stable "
                      "formulation compares every pair (limited to " + Twine(kStableLimit) +
                      " comparisons) and topk may order equal elements differently");
    FailureOr<SmallVector<Value>> tk =
        L.makeAll("aten::topk", {{x}},
                  {L.i64("k", n), L.i64("dim", dim), L.boolean("largest", descending),
                   L.boolean("sorted", true)});
    if (failed(tk))
      return failure();
    return Sorted{(*tk)[0], (*tk)[1]};
  }
  FailureOr<Value> xl = swap(L, x, dim, r - 1);
  if (failed(xl))
    return failure();
  FailureOr<Value> ranks = stableRanks(L, *xl, descending);
  FailureOr<Value> pos = arangeAt(L, n, r - 1, r);
  if (failed(ranks) || failed(pos))
    return failure();
  FailureOr<Value> allPos = expand(L, *pos, tensorType(*xl).getShape());
  if (failed(allPos))
    return failure();
  // Element i goes to its rank (a permutation: every slot is written).
  FailureOr<Value> vals =
      L.make("aten::scatter.src", {{*xl}, {*ranks}, {*xl}}, {L.i64("dim", r - 1)});
  FailureOr<Value> idx =
      L.make("aten::scatter.src", {{*allPos}, {*ranks}, {*allPos}}, {L.i64("dim", r - 1)});
  if (failed(vals) || failed(idx))
    return failure();
  FailureOr<Value> v = swap(L, *vals, dim, r - 1), i = swap(L, *idx, dim, r - 1);
  if (failed(v) || failed(i))
    return failure();
  return Sorted{*v, *i};
}

LogicalResult sort(Legalizer &L) {
  StringRef name = L.op.getOpName();
  Value x = L.operand("self");
  int64_t rank = tensorType(x).getRank();
  bool msort = name == "aten::msort";
  int64_t dim = msort ? 0 : wrapDim(intArg(L.op, "dim", -1), rank);
  bool descending = !msort && boolArg(L.op, "descending", false);
  bool stable = boolArg(L.op, "stable", false);
  FailureOr<Sorted> s = sortAlong(L, x, dim, descending, stable);
  if (failed(s))
    return failure();
  if (name.starts_with("aten::argsort"))
    return L.replace({s->indices});
  if (msort)
    return L.replace({s->values});
  return L.replace({s->values, s->indices});
}

/// kthvalue / median / median.dim / nanmedian / nanmedian.dim: the element
/// at a position of the sorted order along dim (NaN sorts last), and its
/// index, read with `gather`. kthvalue: position k - 1. median: the lower
/// middle (n - 1) / 2, or the first NaN (n - #NaN) when there is one, as
/// PyTorch's kernel returns NaN and the index of the first NaN. nanmedian:
/// the lower middle of the numbers, (n - 1 - #NaN) / 2 truncated (0 when
/// every element is NaN: that NaN). The median of every element sorts the
/// flattened tensor. Equal elements are ordered as the stable sort orders
/// them.
LogicalResult orderStatistic(Legalizer &L) {
  StringRef name = L.op.getOpName();
  Value x = L.operand("self");
  RankedTensorType t = tensorType(x);
  if (!t)
    return success();
  bool all = name == "aten::median" || name == "aten::nanmedian";
  bool ignoreNan = name.starts_with("aten::nanmedian");
  bool kth = name == "aten::kthvalue";
  bool keepdim = !all && boolArg(L.op, "keepdim", false);
  int64_t dim = 0;
  if (all) {
    FailureOr<Value> flat = L.view(x, {t.getNumElements()});
    if (failed(flat))
      return failure();
    x = *flat;
  } else {
    dim = wrapDim(intArg(L.op, "dim", -1), t.getRank());
  }
  RankedTensorType xt = tensorType(x);
  Type i64 = L.b.getI64Type();
  if (xt.getRank() == 0) {
    // A 0-dim tensor is its own statistic, at index 0.
    FailureOr<Value> zero = full(L, {}, L.b.getI64IntegerAttr(0), i64);
    if (failed(zero))
      return failure();
    return L.replace({x, *zero});
  }
  int64_t n = xt.getDimSize(dim);
  if (n == 0)
    return L.refuse("of an empty dim is not supported: PyTorch raises for it");
  int64_t fixed = kth ? intArg(L.op, "k", 1) - 1 : (n - 1) / 2;
  if (fixed < 0 || fixed >= n)
    return L.refuse("with k out of range 1.." + Twine(n) + " is not supported: PyTorch raises");
  FailureOr<Sorted> s = sortAlong(L, x, dim, /*descending=*/false, /*stable=*/false);
  if (failed(s))
    return failure();
  SmallVector<int64_t> kept(xt.getShape());
  kept[dim] = 1;
  bool floating = !llvm::isa<IntegerType>(xt.getElementType());
  FailureOr<Value> pos;
  if (kth || !floating) {
    pos = full(L, kept, L.b.getI64IntegerAttr(fixed), i64);
  } else {
    FailureOr<Value> isNan = L.make("aten::isnan", {{x}});
    if (failed(isNan))
      return failure();
    FailureOr<Value> nans =
        L.make("aten::sum.dim_IntList", {{*isNan}},
               {L.ints("dim", {dim}), L.boolean("keepdim", true), L.dtype("dtype", i64)});
    if (failed(nans))
      return failure();
    if (ignoreNan) {
      FailureOr<Value> numbersBelow =
          L.make("aten::rsub.Scalar", {{*nans}}, {L.i64("other", n - 1)});
      if (failed(numbersBelow))
        return failure();
      pos = L.make("aten::div.Scalar_mode", {{*numbersBelow}},
                   {L.i64("other", 2), L.attr("rounding_mode", L.b.getStringAttr("trunc"))});
    } else {
      FailureOr<Value> firstNan = L.make("aten::rsub.Scalar", {{*nans}}, {L.i64("other", n)});
      FailureOr<Value> anyNan = L.make("aten::gt.Scalar", {{*nans}}, {L.i64("other", 0)});
      FailureOr<Value> mid = full(L, kept, L.b.getI64IntegerAttr(fixed), i64);
      if (failed(firstNan) || failed(anyNan) || failed(mid))
        return failure();
      pos = L.make("aten::where.self", {{*anyNan}, {*firstNan}, {*mid}});
    }
  }
  if (failed(pos))
    return failure();
  FailureOr<Value> v = L.make("aten::gather", {{s->values}, {*pos}}, {L.i64("dim", dim)});
  if (failed(v))
    return failure();
  if (all)
    return L.replaceWith(L.view(*v, {}));
  FailureOr<Value> i = L.make("aten::gather", {{s->indices}, {*pos}}, {L.i64("dim", dim)});
  if (failed(i))
    return failure();
  if (!keepdim) {
    ArrayRef<int64_t> shape = L.resultType(0).getShape();
    v = L.view(*v, shape);
    if (succeeded(v))
      i = L.view(*i, shape);
    if (failed(v) || failed(i))
      return failure();
  }
  return L.replace({*v, *i});
}

/// 0 bool, 1 integer, 2 floating: PyTorch's promotion categories.
int category(Type t) { return t.isInteger(1) ? 0 : llvm::isa<IntegerType>(t) ? 1 : 2; }

/// The dtype bucketize compares x with the boundaries in: PyTorch's
/// result_type. A number or 0-dim x takes the boundaries' dtype unless it is
/// of a higher category (a float number then is float32, a 0-dim tensor
/// keeps its dtype); otherwise promote_types, where integers compare exactly
/// in int64.
Type bucketizeCompareType(Type x, Type b, bool zeroDim, bool number) {
  MLIRContext *ctx = x.getContext();
  if (x == b)
    return x;
  if (zeroDim || number) {
    if (category(x) <= category(b))
      return b;
    if (!number)
      return x;
    return category(x) == 2 ? Type(Float32Type::get(ctx)) : Type(IntegerType::get(ctx, 64));
  }
  auto fx = llvm::dyn_cast<FloatType>(x), fb = llvm::dyn_cast<FloatType>(b);
  if (fx && fb) {
    if (fx.getWidth() == fb.getWidth()) // float16 with bfloat16
      return Float32Type::get(ctx);
    return fx.getWidth() > fb.getWidth() ? x : b;
  }
  if (fx || fb)
    return fx ? x : b;
  return IntegerType::get(ctx, 64);
}

/// bucketize's and searchsorted's result: over the last dim, how many
/// boundaries b are before x (!(b >= x); with `right`, !(b > x)), in the
/// op's result dtype. `bounds` and `xu` broadcast against each other.
LogicalResult replaceWithCountBefore(Legalizer &L, Value bounds, Value xu, bool right) {
  FailureOr<Value> notBefore = binary(L, right ? "aten::gt.Tensor" : "aten::ge.Tensor", bounds, xu);
  if (failed(notBefore))
    return failure();
  FailureOr<Value> before = L.make("aten::logical_not", {{*notBefore}});
  if (failed(before))
    return failure();
  Type out = L.resultType().getElementType();
  return L.replaceWith(L.make("aten::sum.dim_IntList", {{*before}},
                              {L.ints("dim", {-1}), L.boolean("keepdim", false),
                               L.dtype("dtype", out)}));
}

/// bucketize(x, boundaries, out_int32, right): the number of boundaries b
/// with !(b >= x) (right: !(b > x)), PyTorch's binary-search predicate (so a
/// NaN x lands past the last boundary, as there), by a broadcast compare
/// with the 1-D boundaries and a sum over them, both sides first converted
/// to the dtype PyTorch compares in.
LogicalResult bucketize(Legalizer &L) {
  Value x = L.operand("self"), bounds = L.operand("boundaries");
  Type bt = tensorType(bounds).getElementType();
  Type ct;
  if (!x) {
    Attribute v = L.op->getAttr("self");
    Type vt = llvm::isa<FloatAttr>(v)  ? Type(L.b.getF64Type())
              : llvm::isa<BoolAttr>(v) ? Type(L.b.getI1Type())
                                       : Type(L.b.getI64Type());
    ct = bucketizeCompareType(vt, bt, /*zeroDim=*/true, /*number=*/true);
    FailureOr<Value> s =
        L.make("aten::scalar_tensor", {}, {L.attr("s", v), L.dtype("dtype", ct)});
    if (failed(s))
      return failure();
    x = *s;
  } else {
    ct = bucketizeCompareType(tensorType(x).getElementType(), bt,
                              tensorType(x).getRank() == 0, /*number=*/false);
  }
  FailureOr<Value> xc = cast(L, x, ct);
  FailureOr<Value> bc = cast(L, bounds, ct);
  if (failed(xc) || failed(bc))
    return failure();
  FailureOr<Value> xu = unsqueeze(L, *xc, tensorType(*xc).getRank());
  if (failed(xu))
    return failure();
  bool right = boolArg(L.op, "right", false);
  return replaceWithCountBefore(L, *bc, *xu, right);
}

/// searchsorted.Tensor(sorted_sequence, x, out_int32, right, side, sorter):
/// bucketize's count of the sequence's elements s with !(s >= x) (right or
/// side 'right': !(s > x)), per row of an N-dim sequence (compared against
/// x[..., :, None] as [..., 1, M]); with a sorter, the sequence is first
/// gathered in its order.
LogicalResult searchsorted(Legalizer &L) {
  Value seq = L.operand("sorted_sequence"), x = L.operand("self");
  Value sorter = L.operand("sorter");
  RankedTensorType st = tensorType(seq), xt = tensorType(x);
  if (!st || !xt)
    return success();
  bool right = boolArg(L.op, "right", false);
  if (auto side = L.op->getAttrOfType<StringAttr>("side"))
    right = side.getValue() == "right";
  int64_t r = st.getRank();
  if (sorter) {
    FailureOr<Value> ordered = L.make("aten::gather", {{seq}, {sorter}}, {L.i64("dim", r - 1)});
    if (failed(ordered))
      return failure();
    seq = *ordered;
  }
  Type ct = bucketizeCompareType(xt.getElementType(), st.getElementType(), xt.getRank() == 0,
                                 /*number=*/false);
  FailureOr<Value> xc = cast(L, x, ct);
  FailureOr<Value> sc = cast(L, seq, ct);
  if (failed(xc) || failed(sc))
    return failure();
  FailureOr<Value> xu = unsqueeze(L, *xc, xt.getRank());
  FailureOr<Value> su = r > 1 ? unsqueeze(L, *sc, r - 1) : sc;
  if (failed(xu) || failed(su))
    return failure();
  return replaceWithCountBefore(L, *su, *xu, right);
}

/// nonzero_static(x, size, fill_value): the coordinates of the first `size`
/// nonzero elements in row-major order, rows past their count filled with
/// fill_value. Dense, on the flattened x: element j is output row
/// cumsum(x != 0)[j] (1-based); row r takes the flat index of the nonzero
/// element of its row ([size, n] compare, limited to 2^24 elements), then
/// its coordinates (flat / stride) % size per dim, stacked.
LogicalResult nonzeroStatic(Legalizer &L) {
  constexpr int64_t kDenseLimit = int64_t(1) << 24;
  Value x = L.operand("self");
  RankedTensorType t = tensorType(x);
  int64_t size = intArg(L.op, "size", 0), fill = intArg(L.op, "fill_value", -1);
  int64_t n = t.getNumElements(), rank = t.getRank();
  Type i64 = L.b.getI64Type();
  if (rank == 0)
    return L.refuse("of a 0-dim tensor is not supported");
  if (size * n > kDenseLimit)
    return L.refuse("with size * numel above " + Twine(kDenseLimit) +
                    " is not supported: its dense formulation compares every pair");
  if (size == 0 || n == 0)
    return L.replaceWith(full(L, {size, rank}, L.b.getI64IntegerAttr(fill), i64));
  FailureOr<Value> flat = L.view(x, {n});
  if (failed(flat))
    return failure();
  FailureOr<Value> mask = L.make("aten::ne.Scalar", {{*flat}}, {L.i64("other", 0)});
  if (failed(mask))
    return failure();
  FailureOr<Value> maskInt = cast(L, *mask, i64);
  if (failed(maskInt))
    return failure();
  FailureOr<Value> rows =
      L.make("aten::cumsum", {{*maskInt}}, {L.i64("dim", 0), L.dtype("dtype", i64)});
  if (failed(rows))
    return failure();
  FailureOr<Value> rowOf = L.view(*rows, {1, n});
  FailureOr<Value> maskRow = L.view(*mask, {1, n});
  FailureOr<Value> wanted = arange(L, size, 1);
  if (failed(rowOf) || failed(maskRow) || failed(wanted))
    return failure();
  FailureOr<Value> wantedCol = L.view(*wanted, {size, 1});
  if (failed(wantedCol))
    return failure();
  FailureOr<Value> sameRow = binary(L, "aten::eq.Tensor", *rowOf, *wantedCol);
  if (failed(sameRow))
    return failure();
  FailureOr<Value> match = binary(L, "aten::logical_and", *sameRow, *maskRow);
  FailureOr<Value> positions = arangeAt(L, n, 1, 2);
  if (failed(match) || failed(positions))
    return failure();
  FailureOr<Value> picked = whereScalar(L, *match, *positions, L.b.getI64IntegerAttr(0));
  if (failed(picked))
    return failure();
  FailureOr<Value> flatIdx =
      L.make("aten::sum.dim_IntList", {{*picked}},
             {L.ints("dim", {1}), L.boolean("keepdim", false), L.dtype("dtype", i64)});
  FailureOr<Value> found =
      L.make("aten::any.dim", {{*match}}, {L.i64("dim", 1), L.boolean("keepdim", false)});
  if (failed(flatIdx) || failed(found))
    return failure();
  Operands coords;
  int64_t stride = n;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dimSize = t.getDimSize(d);
    stride /= dimSize;
    FailureOr<Value> q = L.make("aten::div.Scalar_mode", {{*flatIdx}},
                                {L.i64("other", stride),
                                 L.attr("rounding_mode", L.b.getStringAttr("floor"))});
    if (failed(q))
      return failure();
    FailureOr<Value> r = L.make("aten::remainder.Scalar", {{*q}}, {L.i64("other", dimSize)});
    if (failed(r))
      return failure();
    FailureOr<Value> c = whereScalar(L, *found, *r, L.b.getI64IntegerAttr(fill));
    if (failed(c))
      return failure();
    coords.push_back(*c);
  }
  return L.replaceWith(L.make("aten::stack", {coords}, {L.i64("dim", 1)}));
}

} // namespace

void addShapeSortLegalizations(LegalizeTable &t) {
  addLegalizations(t, {"aten::bucketize.Tensor", "aten::bucketize.Scalar"}, bucketize);
  addLegalizations(t, {"aten::searchsorted.Tensor"}, searchsorted);
  addLegalizations(t, {"aten::sort", "aten::sort.stable", "aten::argsort", "aten::argsort.stable",
                       "aten::msort"},
                   sort);
  addLegalizations(t,
                   {"aten::kthvalue", "aten::median", "aten::median.dim", "aten::nanmedian",
                    "aten::nanmedian.dim"},
                   orderStatistic);
  addRefusals(t, {"aten::argwhere", "aten::nonzero_numpy"},
              "its result's length is the number of nonzero elements, known only from the "
              "data, and every tensor of a program is planned before it runs (use a mask, or "
              "torch.where with three arguments)");
  addRefusals(t, {"aten::_unique2", "aten::unique_consecutive"},
              "its result's length is the number of distinct values, known only from the "
              "data, and every tensor of a program is planned before it runs (compute the "
              "unique values outside the model)");
  addLegalizations(t, {"aten::nonzero_static"}, nonzeroStatic);
  addRefusals(t, {"aten::mode"},
              "the most frequent value along a dim has no ExecuTorch portable kernel and ptec "
              "no decomposition of it yet; compute it outside the model");
}

} // namespace ptec::legalize
