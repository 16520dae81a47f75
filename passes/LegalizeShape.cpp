//===- LegalizeShape.cpp - padding, splits, narrow, rearranging -----------===//
//
// legalize-to-core-aten rewrites of the training IR's composite shape ops
// (torch's decompositions are the reference for each):
//  - pad / _pad_enum / _pad_circular: constant_pad_nd, reflection_padNd or
//    replication_padNd for the growing part of each pad (their kernels), a
//    slice for the negative part (a crop); circular padding is slices + cat;
//  - chunk, tensor_split, unsafe_split*, hsplit/vsplit/dsplit, split.sizes:
//    split_with_sizes_copy with the pieces' sizes, or one slice per piece
//    when index lists make pieces that overlap or leave gaps;
//  - narrow / narrow_copy: a slice (its start wrapped as narrow wraps it),
//    also when the start is only known at run time (symbolic start and end);
//  - fliplr/flipud/rot90 (flip + transpose), triu (masked_fill with a tril
//    of ones: the tril kernel exists, triu's does not), channel_shuffle,
//    movedim/moveaxis/swapaxes/swapdims/numpy_T/ravel/broadcast_to/unflatten and
//    atleast_1d/2d/3d (permutes, transposes, views, expands).
// Joins, indexing and sorting are in LegalizeShapeJoin.cpp,
// LegalizeShapeIndex.cpp and LegalizeShapeSort.cpp; the builders they share
// in LegalizeShape.h (LegalizeShapeBuilders.cpp).
//
//===----------------------------------------------------------------------===//

#include "passes/LegalizeShape.h"

#include <cmath>
#include <limits>

namespace ptec::legalize {

namespace {
using namespace shape;

//===----------------------------------------------------------------------===//
// Padding
//===----------------------------------------------------------------------===//

enum class PadMode { Constant, Reflect, Replicate, Circular };

/// Slices off the negative pads of `pad` (pairs from the last dim).
FailureOr<Value> cropNegative(Legalizer &L, Value x, ArrayRef<int64_t> pad) {
  int64_t rank = tensorType(x).getRank();
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    int64_t l = pad[2 * i], r = pad[2 * i + 1];
    if (l >= 0 && r >= 0)
      continue;
    // A negative end counts from the end (run-time sizes too).
    FailureOr<Value> s = slice(L, x, rank - 1 - i, l < 0 ? std::optional<int64_t>(-l) : std::nullopt,
                               r < 0 ? std::optional<int64_t>(r) : std::nullopt);
    if (failed(s))
      return failure();
    x = *s;
  }
  return x;
}

/// Circular padding of (non-negative) `pad`: each dim gets its last `l`
/// elements before it and its first `r` after it.
FailureOr<Value> circularPad(Legalizer &L, Value x, ArrayRef<int64_t> pad) {
  int64_t rank = tensorType(x).getRank();
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    int64_t d = rank - 1 - i, l = pad[2 * i], r = pad[2 * i + 1];
    int64_t size = tensorType(x).getDimSize(d);
    if (l > size || r > size)
      return L.refuse("with circular pads (" + Twine(l) + ", " + Twine(r) + ") larger than dim " +
                      Twine(d) + " (" + Twine(size) + ") is not supported: the padding would "
                      "wrap around more than once");
    SmallVector<Value> parts;
    if (l > 0) {
      FailureOr<Value> s = slice(L, x, d, -l, std::nullopt);
      if (failed(s))
        return failure();
      parts.push_back(*s);
    }
    parts.push_back(x);
    if (r > 0) {
      FailureOr<Value> s = slice(L, x, d, 0, r);
      if (failed(s))
        return failure();
      parts.push_back(*s);
    }
    FailureOr<Value> c = cat(L, parts, d);
    if (failed(c))
      return failure();
    x = *c;
  }
  return x;
}

LogicalResult pad(Legalizer &L) {
  exir::AtenOp op = L.op;
  StringRef name = op.getOpName();
  Value x = L.operand("self");
  RankedTensorType t = tensorType(x);
  auto padAttr = op->getAttrOfType<DenseI64ArrayAttr>("pad");
  if (!t || !padAttr || padAttr.size() % 2 != 0 ||
      static_cast<int64_t>(padAttr.size() / 2) > t.getRank())
    return L.refuse("needs a ranked input and an even pad list of at most two entries per dim");
  if (!op.getSymOperands().empty())
    return L.refuse("with a pad size known only at run time is not supported: the padded "
                    "shape must be known when the program is planned");
  PadMode mode = PadMode::Constant;
  if (name == "aten::_pad_circular") {
    mode = PadMode::Circular;
  } else if (name == "aten::_pad_enum") {
    int64_t m = intArg(op, "mode", 0);
    if (m < 0 || m > 3)
      return L.refuse("with mode " + Twine(m) + " is not supported: not a padding mode");
    mode = static_cast<PadMode>(m);
  } else if (auto s = op->getAttrOfType<StringAttr>("mode")) {
    auto m = llvm::StringSwitch<std::optional<PadMode>>(s.getValue())
                 .Case("constant", PadMode::Constant)
                 .Case("reflect", PadMode::Reflect)
                 .Case("replicate", PadMode::Replicate)
                 .Case("circular", PadMode::Circular)
                 .Default(std::nullopt);
    if (!m)
      return L.refuse("with mode '" + s.getValue() + "' is not supported: not a padding mode");
    mode = *m;
  }
  ArrayRef<int64_t> pads = padAttr.asArrayRef();
  // An empty result needs no data (and upstream's pad kernels refuse some).
  if (!L.dynamic && L.resultType().getNumElements() == 0)
    return L.replaceWith(full(L, L.resultType().getShape(),
                              scalarFor(L, t.getElementType(), 0), t.getElementType()));
  SmallVector<int64_t> grow;
  bool grows = false;
  for (int64_t p : pads) {
    grow.push_back(std::max<int64_t>(p, 0));
    grows |= p > 0;
  }
  Type et = t.getElementType();

  if (mode == PadMode::Constant) {
    double value = 0;
    if (auto v = op->getAttrOfType<FloatAttr>("value"))
      value = v.getValueAsDouble();
    if (llvm::isa<IntegerType>(et) && !std::isfinite(value))
      return L.refuse("with a non-finite value on an integer tensor is not supported: "
                      "the value has no integer equivalent");
    FailureOr<Value> c = cropNegative(L, x, pads);
    if (failed(c) || !grows)
      return L.replaceWith(c);
    return L.replaceWith(L.make("aten::constant_pad_nd", {{*c}},
                                {L.ints("pad", grow), L.attr("value", scalarFor(L, et, value))}));
  }
  if (mode == PadMode::Circular) {
    FailureOr<Value> c = cropNegative(L, x, pads);
    if (failed(c))
      return failure();
    return L.replaceWith(circularPad(L, *c, grow));
  }
  // reflect / replicate: the kernels of 1, 2 or 3 padded dims, batched or not.
  int64_t n = pads.size() / 2;
  if (n < 1 || n > 3 || t.getRank() < n + 1 || t.getRank() > n + 2)
    return L.refuse("with mode '" + Twine(mode == PadMode::Reflect ? "reflect" : "replicate") +
                    "' and " + Twine(pads.size()) + " pads on a " + Twine(t.getRank()) +
                    "-dim input is not supported: PyTorch pads 1, 2 or 3 trailing dims of a "
                    "batched or unbatched input");
  Value padded = x;
  if (grows) {
    std::string kernel = (mode == PadMode::Reflect ? "aten::reflection_pad" : "aten::replication_pad") +
                         std::to_string(n) + "d";
    FailureOr<Value> p = L.make(kernel, {{x}}, {L.ints("padding", grow)});
    if (failed(p))
      return failure();
    padded = *p;
  }
  // Growing first, then cropping, is PyTorch's index arithmetic (output
  // element j reads input element j - before, reflected or clamped).
  return L.replaceWith(cropNegative(L, padded, pads));
}

/// constant_pad_nd (core, with a kernel) with negative pads: upstream's
/// kernel grows only, so the crop is a slice and the kernel pads the rest.
LogicalResult constantPadNd(Legalizer &L) {
  auto padAttr = L.op->getAttrOfType<DenseI64ArrayAttr>("pad");
  Value x = L.operand("self");
  RankedTensorType t = tensorType(x);
  if (!padAttr || !t || !L.op.getSymOperands().empty())
    return success(); // the kernel checks it
  bool crops = llvm::any_of(padAttr.asArrayRef(), [](int64_t p) { return p < 0; });
  bool empty = !L.dynamic && L.resultType().getNumElements() == 0;
  if (!crops && !empty)
    return success();
  if (empty)
    return L.replaceWith(full(L, L.resultType().getShape(),
                              scalarFor(L, t.getElementType(), 0), t.getElementType()));
  FailureOr<Value> c = cropNegative(L, x, padAttr.asArrayRef());
  if (failed(c))
    return failure();
  SmallVector<int64_t> grow;
  for (int64_t p : padAttr.asArrayRef())
    grow.push_back(std::max<int64_t>(p, 0));
  Attribute value = L.op->getAttr("value");
  if (!value)
    value = scalarFor(L, t.getElementType(), 0);
  return L.replaceWith(L.make("aten::constant_pad_nd", {{*c}},
                              {L.ints("pad", grow), L.attr("value", value)}));
}

//===----------------------------------------------------------------------===//
// Splitting and narrow
//===----------------------------------------------------------------------===//

/// The dim a split spelling cuts.
int64_t splitDim(Legalizer &L, RankedTensorType t) {
  StringRef name = L.op.getOpName();
  if (name.starts_with("aten::hsplit"))
    return t.getRank() == 1 ? 0 : 1;
  if (name.starts_with("aten::vsplit"))
    return 0;
  if (name.starts_with("aten::dsplit"))
    return 2;
  return wrapDim(intArg(L.op, "dim", 0), t.getRank());
}

/// Every split spelling: the pieces' (start, end) along the dim follow from
/// the index list (tensor_split / h-v-dsplit with indices: Python slice
/// bounds, possibly out of order) or from the declared piece sizes (the
/// shape rules checked them at import).
LogicalResult splitPieces(Legalizer &L) {
  exir::AtenOp op = L.op;
  Value x = L.operand("self");
  RankedTensorType t = tensorType(x);
  if (!t || t.getRank() == 0)
    return L.refuse("needs a tensor with at least one dim");
  int64_t dim = splitDim(L, t), size = t.getDimSize(dim);
  SmallVector<std::pair<int64_t, int64_t>> bounds;
  if (auto indices = op->getAttrOfType<DenseI64ArrayAttr>("indices")) {
    auto clampBound = [&](int64_t i) {
      if (i < 0)
        i += size;
      return std::clamp<int64_t>(i, 0, size);
    };
    int64_t start = 0;
    for (int64_t e : indices.asArrayRef()) {
      int64_t s = clampBound(start), end = clampBound(e);
      bounds.push_back({s, std::max(s, end)});
      start = e;
    }
    bounds.push_back({clampBound(start), size});
  } else {
    int64_t start = 0;
    for (Value r : op->getResults()) {
      RankedTensorType rt = tensorType(r);
      if (!rt || rt.getRank() != t.getRank())
        return L.refuse("has a piece that is not a tensor of the input's rank");
      bounds.push_back({start, start + rt.getDimSize(dim)});
      start += rt.getDimSize(dim);
    }
    if (start != size)
      return L.refuse("has pieces that do not add up to dim " + Twine(dim));
  }
  if (bounds.size() != op->getNumResults())
    return L.refuse("declares " + Twine(op->getNumResults()) + " pieces where " +
                    Twine(bounds.size()) + " are cut");
  bool partition = true;
  int64_t at = 0;
  SmallVector<int64_t> sizes;
  for (auto [s, e] : bounds) {
    partition &= s == at;
    at = e;
    sizes.push_back(e - s);
  }
  partition &= at == size;
  if (partition) {
    FailureOr<SmallVector<Value>> pieces =
        L.makeAll("aten::split_with_sizes_copy", {{x}}, {L.ints("split_sizes", sizes), L.i64("dim", dim)});
    if (failed(pieces))
      return failure();
    return L.replace(*pieces);
  }
  SmallVector<Value> pieces;
  for (auto [s, e] : bounds) {
    FailureOr<Value> p = slice(L, x, dim, s, e);
    if (failed(p))
      return failure();
    pieces.push_back(*p);
  }
  return L.replace(pieces);
}

/// narrow / narrow_copy(self, dim, start, length): self[start : start +
/// length] along dim, a negative start counting from the end. A start (or
/// length) known only at run time becomes the slice's symbolic bounds:
/// start' = (start + n) mod n, end = start' + length, with n the run-time
/// size (mod of a non-negative operand: Python's and C's agree).
LogicalResult narrow(Legalizer &L) {
  exir::AtenOp op = L.op;
  Value x = L.operand("self");
  RankedTensorType t = tensorType(x);
  if (!t || t.getRank() == 0)
    return L.refuse("needs a tensor with at least one dim");
  int64_t dim = wrapDim(intArg(op, "dim", 0), t.getRank());
  int64_t start = intArg(op, "start", 0), length = intArg(op, "length", 0);
  int64_t size = t.getDimSize(dim);
  if (!L.dynamic) {
    if (start < 0)
      start += size;
    return L.replaceWith(slice(L, x, dim, start, start + length));
  }
  Value symStart, symLength;
  if (ArrayAttr binds = op.getSymArgs())
    for (auto [a, v] : llvm::zip(binds, op.getSymOperands())) {
      StringRef n = llvm::cast<StringAttr>(a).getValue();
      if (n == "start")
        symStart = v;
      else if (n == "length")
        symLength = v;
      else
        return L.refuse("with a run-time '" + n + "' is not supported");
    }
  OpBuilder &b = L.b;
  Location loc = L.loc;
  Type i64 = b.getI64Type();
  auto constant = [&](int64_t v) -> Value {
    return b.create<exir::SymConstOp>(loc, i64, b.getI64IntegerAttr(v));
  };
  auto sym = [&](StringRef fn, Value a, Value c) -> Value {
    return b.create<exir::SymOp>(loc, i64, b.getStringAttr(fn), ValueRange{a, c});
  };
  Value n = b.create<exir::SymSizeOp>(loc, i64, x, b.getI64IntegerAttr(dim));
  Value s = symStart ? symStart : constant(start);
  Value atLeast1 = sym("max", n, constant(1));
  Value wrapped = sym("mod", sym("add", s, n), atLeast1);
  Value end = sym("add", wrapped, symLength ? symLength : constant(length));
  // The attributes hold the bounds' values: the slice at the upper bound.
  int64_t startAtBound = start < 0 ? start + size : start;
  FailureOr<Value> r = slice(L, x, dim, startAtBound, startAtBound + length);
  if (failed(r))
    return failure();
  Operation *sliceOp = r->getDefiningOp();
  bindSyms(sliceOp, {{"start", wrapped}, {"end", end}});
  if (Attribute a = op->getAttr(exir::kStaticShapeAttrName))
    sliceOp->setAttr(exir::kStaticShapeAttrName, a);
  return L.replace({*r});
}

//===----------------------------------------------------------------------===//
// Rearranging
//===----------------------------------------------------------------------===//

LogicalResult flipLrUd(Legalizer &L) {
  int64_t dim = L.op.getOpName() == "aten::fliplr" ? 1 : 0;
  return L.replaceWith(L.make("aten::flip", {{L.operand("self")}}, {L.ints("dims", {dim})}));
}

/// rot90(self, k, dims): k mod 4 quarter turns from dims[0] towards dims[1]:
/// flip + transpose (torch's reference).
LogicalResult rot90(Legalizer &L) {
  Value x = L.operand("self");
  RankedTensorType t = tensorType(x);
  auto dims = L.op->getAttrOfType<DenseI64ArrayAttr>("dims");
  if (!t || !dims || dims.size() != 2)
    return L.refuse("needs two rotation dims");
  int64_t d0 = wrapDim(dims[0], t.getRank()), d1 = wrapDim(dims[1], t.getRank());
  int64_t k = ((intArg(L.op, "k", 1) % 4) + 4) % 4;
  if (k == 0)
    return L.replaceWith(L.make("aten::clone", {{x}}));
  if (k == 2)
    return L.replaceWith(L.make("aten::flip", {{x}}, {L.ints("dims", {d0, d1})}));
  FailureOr<Value> f = L.make("aten::flip", {{x}}, {L.ints("dims", {k == 1 ? d1 : d0})});
  if (failed(f))
    return failure();
  return L.replaceWith(L.make("aten::transpose_copy.int", {{*f}}, {L.i64("dim0", d0), L.i64("dim1", d1)}));
}

/// roll without dims rolls the flattened tensor (upstream's roll kernel
/// needs one dim per shift): view flat, roll dim 0, view back.
LogicalResult roll(Legalizer &L) {
  auto dims = L.op->getAttrOfType<DenseI64ArrayAttr>("dims");
  if (dims && !dims.empty())
    return success(); // the roll kernel
  if (!L.op.getSymOperands().empty())
    return L.refuse("with a shift known only at run time and no dims is not supported");
  Value x = L.operand("self");
  int64_t r = tensorType(x).getRank();
  FailureOr<Value> flat = L.reshape(x, {L.foldDims(x, 0, r)});
  if (failed(flat))
    return failure();
  SmallVector<NamedAttribute> attrs = {L.attr("shifts", L.op->getAttr("shifts")),
                                       L.ints("dims", {0})};
  FailureOr<Value> rolled = L.make("aten::roll", tensorType(*flat), {{*flat}}, attrs);
  if (failed(rolled))
    return failure();
  if (r == 0)
    return L.replaceWith(L.view(*rolled, {}));
  return L.replaceWith(L.reshape(*rolled, L.dimsOf(x, 0, r)));
}

/// triu(x, d) keeps j - i >= d: x with zeros where tril(ones, d - 1) is
/// true. masked_fill writes the zero whatever x holds (NaN, inf), and every
/// op here reads the run-time shape.
LogicalResult triu(Legalizer &L) {
  Value x = L.operand("self");
  RankedTensorType t = tensorType(x);
  if (!t || t.getRank() < 2)
    return L.refuse("needs at least 2 dims");
  Type i1 = L.b.getI1Type();
  FailureOr<Value> ones = L.make("aten::full_like", {{x}},
                                 {L.attr("fill_value", L.b.getBoolAttr(true)), L.dtype("dtype", i1)});
  if (failed(ones))
    return failure();
  FailureOr<Value> lower =
      L.make("aten::tril", {{*ones}}, {L.i64("diagonal", intArg(L.op, "diagonal", 0) - 1)});
  if (failed(lower))
    return failure();
  return L.replaceWith(L.make("aten::masked_fill.Scalar", {{x}, {*lower}},
                              {L.attr("value", scalarFor(L, t.getElementType(), 0))}));
}

/// channel_shuffle(x, g): [N, C, *] viewed [N, g, C/g, *], dims 1 and 2
/// swapped, viewed back.
LogicalResult channelShuffle(Legalizer &L) {
  Value x = L.operand("self");
  RankedTensorType t = tensorType(x);
  int64_t g = intArg(L.op, "groups", 1);
  if (!t || t.getRank() < 3 || g <= 0 || t.getDimSize(1) % g != 0)
    return L.refuse("needs at least 3 dims and groups that divide the channels");
  SmallVector<int64_t> shape = {t.getDimSize(0), g, t.getDimSize(1) / g};
  SmallVector<int64_t> perm = {0, 2, 1};
  for (int64_t d = 2; d < t.getRank(); ++d) {
    shape.push_back(t.getDimSize(d));
    perm.push_back(d + 1);
  }
  FailureOr<Value> v = L.view(x, shape);
  if (succeeded(v))
    v = permute(L, *v, perm);
  if (failed(v))
    return failure();
  return L.replaceWith(L.view(*v, t.getShape()));
}

/// movedim / moveaxis: the permutation that puts `source` at `destination`.
LogicalResult movedim(Legalizer &L) {
  Value x = L.operand("self");
  int64_t r = tensorType(x).getRank();
  auto list = [&](StringRef name) {
    SmallVector<int64_t> out;
    Attribute a = L.op->getAttr(name);
    if (auto l = llvm::dyn_cast_or_null<DenseI64ArrayAttr>(a))
      for (int64_t d : l.asArrayRef())
        out.push_back(wrapDim(d, r));
    else if (auto i = llvm::dyn_cast_or_null<IntegerAttr>(a))
      out.push_back(wrapDim(i.getInt(), r));
    return out;
  };
  if (r == 0)
    return L.replace({x});
  SmallVector<int64_t> src = list("source"), dst = list("destination"), perm(r, -1);
  SmallVector<bool> used(r, false);
  for (auto [s, d] : llvm::zip(src, dst)) {
    perm[d] = s;
    used[s] = true;
  }
  int64_t next = 0;
  for (int64_t &p : perm) {
    if (p >= 0)
      continue;
    while (used[next])
      ++next;
    p = next++;
  }
  return L.replaceWith(L.make("aten::permute_copy", {{x}}, {L.ints("dims", perm)}));
}

/// numpy_T (Tensor.T): the dims reversed.
LogicalResult numpyT(Legalizer &L) {
  Value x = L.operand("self");
  int64_t r = tensorType(x).getRank();
  if (r < 2)
    return L.replace({x});
  SmallVector<int64_t> perm;
  for (int64_t d = r - 1; d >= 0; --d)
    perm.push_back(d);
  return L.replaceWith(L.make("aten::permute_copy", {{x}}, {L.ints("dims", perm)}));
}

/// mT / mH / matrix_H of a real tensor: the last two dims swapped (the
/// conjugate of mH / matrix_H is the tensor itself on real dtypes).
LogicalResult matrixTranspose(Legalizer &L) {
  Value x = L.operand("self");
  RankedTensorType t = tensorType(x);
  if (!t)
    return success();
  if (llvm::isa<ComplexType>(t.getElementType()))
    return L.refuse("of a complex tensor is not supported: ExecuTorch's portable kernels "
                    "have no complex dtype");
  if (L.op.getOpName() == "aten::matrix_H" && t.getRank() != 2)
    return L.refuse("of a tensor of rank " + std::to_string(t.getRank()) +
                    " is not supported: matrix_H takes a matrix (use mH for batches)");
  return L.replaceWith(L.transposeLast2(x));
}

/// linalg_diagonal: diagonal_copy with its defaults (dim1 -2, dim2 -1).
LogicalResult linalgDiagonal(Legalizer &L) {
  Value a = L.operand("A");
  RankedTensorType rt = L.resultType();
  if (!a || !rt)
    return success();
  return L.replaceWith(L.make("aten::diagonal_copy", rt, {{a}},
                              {L.i64("offset", intArg(L.op, "offset", 0)),
                               L.i64("dim1", intArg(L.op, "dim1", -2)),
                               L.i64("dim2", intArg(L.op, "dim2", -1))}));
}

LogicalResult swapDims(Legalizer &L) {
  bool axes = static_cast<bool>(L.op->getAttr("axis0"));
  return L.replaceWith(L.make("aten::transpose_copy.int", {{L.operand("self")}},
                              {L.i64("dim0", intArg(L.op, axes ? "axis0" : "dim0", 0)),
                               L.i64("dim1", intArg(L.op, axes ? "axis1" : "dim1", 0))}));
}

/// unflatten(self, dim, sizes): a view. On run-time shapes its size list
/// reads the other dims' run-time sizes, keeps the sizes' own symbolic
/// entries, and leaves a -1 for the kernel to infer.
LogicalResult unflatten(Legalizer &L) {
  Value x = L.operand("self");
  RankedTensorType t = tensorType(x);
  auto sizes = L.op->getAttrOfType<DenseI64ArrayAttr>("sizes");
  if (!L.dynamic || !sizes || t.getRank() == 0)
    return L.replaceWith(L.view(x, L.resultType().getShape()));
  int64_t d = wrapDim(intArg(L.op, "dim", 0), t.getRank());
  llvm::StringMap<Value> sizeSyms;
  if (ArrayAttr binds = L.op.getSymArgs())
    for (auto [a, v] : llvm::zip(binds, L.op.getSymOperands()))
      sizeSyms[llvm::cast<StringAttr>(a).getValue()] = v;
  SmallVector<int64_t> size;
  SmallVector<std::pair<std::string, Value>> syms;
  Type i64 = L.b.getI64Type();
  auto runtimeDim = [&](int64_t k) {
    syms.push_back({"size[" + std::to_string(size.size()) + "]",
                    L.b.create<exir::SymSizeOp>(L.loc, i64, x, L.b.getI64IntegerAttr(k))});
    size.push_back(t.getDimSize(k));
  };
  for (int64_t k = 0; k < d; ++k)
    runtimeDim(k);
  for (auto [i, s] : llvm::enumerate(sizes.asArrayRef())) {
    if (Value v = sizeSyms.lookup("sizes[" + std::to_string(i) + "]"))
      syms.push_back({"size[" + std::to_string(size.size()) + "]", v});
    size.push_back(s);
  }
  for (int64_t k = d + 1; k < t.getRank(); ++k)
    runtimeDim(k);
  FailureOr<Value> v = L.make("aten::view_copy", L.resultType(), {{x}}, {L.ints("size", size)});
  if (failed(v))
    return failure();
  bindSyms(v->getDefiningOp(), syms);
  return L.replace({*v});
}

LogicalResult ravel(Legalizer &L) {
  Value x = L.operand("self");
  return L.replaceWith(L.reshape(x, {L.foldDims(x, 0, tensorType(x).getRank())}));
}

/// broadcast_to is expand (run-time sizes bind to `size` as before).
LogicalResult broadcastTo(Legalizer &L) { return L.rename("aten::expand_copy"); }

/// atleast_1d/2d/3d (and their list forms): views to the results' shapes.
LogicalResult atLeast(Legalizer &L) {
  SmallVector<Value> outs;
  for (auto [v, r] : llvm::zip(L.op.getTensorInputs(), L.op->getResults())) {
    FailureOr<Value> o = L.view(v, tensorType(r).getShape());
    if (failed(o))
      return failure();
    outs.push_back(*o);
  }
  return L.replace(outs);
}

} // namespace

void addShapeLegalizations(LegalizeTable &t) {
  // Kernels read run-time sizes; crops are slices with ends counted from
  // the end of the dim.
  addLegalizations(t, {"aten::pad", "aten::_pad_enum", "aten::_pad_circular"}, pad,
                   Dynamic::Handled);
  addLegalizations(t,
                   {"aten::chunk", "aten::unsafe_chunk", "aten::tensor_split.sections",
                    "aten::tensor_split.indices", "aten::unsafe_split.Tensor",
                    "aten::unsafe_split_with_sizes", "aten::split.sizes", "aten::hsplit.int",
                    "aten::hsplit.array", "aten::vsplit.int", "aten::vsplit.array",
                    "aten::dsplit.int", "aten::dsplit.array"},
                   splitPieces);
  addRefusals(t, {"aten::tensor_split.tensor_indices_or_sections"},
              "its split points are the values of a tensor, known only from the data; pass "
              "them as Python ints");
  addLegalizations(t, {"aten::constant_pad_nd"}, constantPadNd, Dynamic::Handled);
  addLegalizations(t, {"aten::narrow", "aten::narrow_copy"}, narrow, Dynamic::Handled);
  addLegalizations(t, {"aten::fliplr", "aten::flipud"}, flipLrUd, Dynamic::Handled);
  addLegalizations(t, {"aten::rot90"}, rot90, Dynamic::Handled);
  addLegalizations(t, {"aten::triu"}, triu, Dynamic::Handled);
  addLegalizations(t, {"aten::roll"}, roll, Dynamic::Handled);
  addLegalizations(t, {"aten::channel_shuffle", "aten::native_channel_shuffle"}, channelShuffle);
  addLegalizations(t, {"aten::movedim.int", "aten::movedim.intlist", "aten::moveaxis.int",
                       "aten::moveaxis.intlist"},
                   movedim, Dynamic::Handled);
  addLegalizations(t, {"aten::numpy_T"}, numpyT, Dynamic::Handled);
  addLegalizations(t, {"aten::linalg_diagonal"}, linalgDiagonal);
  addLegalizations(t, {"aten::mT", "aten::mH", "aten::matrix_H"}, matrixTranspose,
                   Dynamic::Handled);
  addLegalizations(t, {"aten::swapaxes", "aten::swapdims"}, swapDims, Dynamic::Handled);
  addRefusals(t, {"aten::resize_"},
              "it changes a tensor's size in place, and every tensor of a program has a "
              "planned size; build a new tensor of the size (torch.empty, reshape) instead");
  addLegalizations(t, {"aten::ravel"}, ravel, Dynamic::Handled);
  addLegalizations(t, {"aten::unflatten.int"}, unflatten, Dynamic::Handled);
  addLegalizations(t, {"aten::broadcast_to"}, broadcastTo, Dynamic::Handled);
  addLegalizations(t, {"aten::atleast_1d", "aten::atleast_2d", "aten::atleast_3d",
                       "aten::atleast_1d.Sequence", "aten::atleast_2d.Sequence",
                       "aten::atleast_3d.Sequence"},
                   atLeast);
  addShapeJoinLegalizations(t);
  addShapeIndexLegalizations(t);
  addShapeSortLegalizations(t);
}

} // namespace ptec::legalize
