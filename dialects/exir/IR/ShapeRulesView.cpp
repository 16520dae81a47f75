//===- ShapeRulesView.cpp - views and reshapes ----------------------------===//
//
// Ops that rearrange elements without computing: their result keeps the
// dtype and its shape follows from the arguments: permutations are
// permutations of 0..rank-1, reshapes keep the element count, slices and
// selects index inside the dim. The view forms, their _copy forms and
// in-place forms share one rule. Splits, joins and repeats are in
// ShapeRulesSplitJoin.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ShapeRulesSupport.h"

#include <algorithm>

using namespace mlir;

namespace ptec::exir::rules {
namespace {

/// PyTorch's infer_size: `size` with at most one -1, filled in so that the
/// element count is `count`.
LogicalResult inferSize(RuleContext &c, ArrayRef<int64_t> size, int64_t count,
                        StringRef what, Shape &out) {
  out.assign(size.begin(), size.end());
  int64_t known = 1;
  std::optional<size_t> infer;
  for (auto [i, d] : llvm::enumerate(size)) {
    if (d == -1) {
      if (infer)
        return c.fail("only one dim of " + what + " " + describeShape(size) +
                      " can be -1");
      infer = i;
    } else if (d < 0) {
      return c.fail("invalid size " + llvm::Twine(d) + " in " + what + " " +
                    describeShape(size));
    } else {
      known = mulSat(known, d);
    }
  }
  if (infer) {
    if (known == 0 || count % known != 0)
      return c.fail(what + " " + describeShape(size) +
                    " does not fit a tensor of " + llvm::Twine(count) + " elements");
    out[*infer] = count / known;
    return success();
  }
  if (known != count)
    return c.fail(what + " " + describeShape(size) + " has " + llvm::Twine(known) +
                  " elements, but the input has " + llvm::Twine(count));
  return success();
}

LogicalResult view(RuleContext &c, RankedTensorType t) {
  StringRef arg = c.has("shape") ? "shape" : "size";
  Shape shape;
  if (failed(inferSize(c, c.getInts(arg), numel(t.getShape()), arg, shape)))
    return failure();
  if (c.has("stride") && c.getInts("stride").size() != shape.size())
    return c.fail("'size' and 'stride' must have the same length");
  return c.succeed(shape, t.getElementType());
}

LogicalResult viewAs(RuleContext &c) {
  RankedTensorType t, other;
  if (failed(c.require("self", t)) || failed(c.require("other", other)))
    return failure();
  if (numel(t.getShape()) != numel(other.getShape()))
    return c.fail("'self' " + describe(t) + " and 'other' " + describe(other) +
                  " have different element counts");
  return c.succeed(other.getShape(), t.getElementType());
}

unsigned byteWidth(Type t) {
  if (auto c = llvm::dyn_cast<ComplexType>(t))
    return 2 * byteWidth(c.getElementType());
  return std::max(1u, t.getIntOrFloatBitWidth() / 8);
}

/// view.dtype: the last dim absorbs a change of element size.
LogicalResult viewDtype(RuleContext &c, RankedTensorType t) {
  Type to = c.dtype("dtype");
  if (!to)
    return c.succeed(Spec::anyRank({}));
  unsigned from = byteWidth(t.getElementType()), size = byteWidth(to);
  Shape shape(t.getShape());
  if (from != size) {
    if (shape.empty())
      return c.fail("a 0-dim tensor cannot be viewed as a dtype of another size");
    if (from > size) {
      shape.back() = mulSat(shape.back(), from / size);
    } else {
      if (shape.back() % (size / from) != 0)
        return c.fail("the last dim (" + llvm::Twine(shape.back()) +
                      ") is not a multiple of the size ratio " +
                      llvm::Twine(size / from));
      shape.back() /= size / from;
    }
  }
  return c.succeed(shape, to);
}

LogicalResult permute(RuleContext &c, RankedTensorType t) {
  Shape dims = c.getInts("dims"), perm;
  int64_t rank = t.getRank();
  auto notPermutation = [&](const llvm::Twine &why) {
    return c.fail("dims " + describeShape(dims) + " is not a permutation of 0.." +
                  llvm::Twine(rank - 1) + " for " + describe(t) + ": " + why);
  };
  if (static_cast<int64_t>(dims.size()) != rank)
    return notPermutation(llvm::Twine(dims.size()) + " entries for " +
                          llvm::Twine(rank) + " dims");
  for (int64_t d : dims) {
    if (d < -rank || d >= rank)
      return notPermutation("dim " + llvm::Twine(d) + " is out of range");
    int64_t w = d < 0 ? d + rank : d;
    if (llvm::is_contained(perm, w))
      return notPermutation("dim " + llvm::Twine(w) + " appears twice");
    perm.push_back(w);
  }
  Shape shape;
  for (int64_t d : perm)
    shape.push_back(t.getDimSize(d));
  return c.succeed(shape, t.getElementType());
}

/// numpy_T: the dims in reverse order.
LogicalResult numpyT(RuleContext &c, RankedTensorType t) {
  Shape shape(t.getShape());
  std::reverse(shape.begin(), shape.end());
  return c.succeed(shape, t.getElementType());
}

/// t: numpy_T of a tensor of at most 2 dims.
LogicalResult transposeT(RuleContext &c, RankedTensorType t) {
  if (failed(c.requireRank("self", t, 0, 2)))
    return failure();
  return numpyT(c, t);
}

LogicalResult transpose(RuleContext &c, RankedTensorType t) {
  int64_t a, b;
  if (failed(c.dimArg("dim0", t.getRank(), a)) ||
      failed(c.dimArg("dim1", t.getRank(), b)))
    return failure();
  Shape shape(t.getShape());
  if (!shape.empty())
    std::swap(shape[a], shape[b]);
  return c.succeed(shape, t.getElementType());
}

LogicalResult unsqueeze(RuleContext &c, RankedTensorType t) {
  int64_t dim;
  if (failed(c.wrapDim(c.getInt("dim"), t.getRank() + 1, "dim", dim)))
    return failure();
  Shape shape(t.getShape());
  shape.insert(shape.begin() + dim, 1);
  return c.succeed(shape, t.getElementType());
}

LogicalResult squeeze(RuleContext &c, RankedTensorType t) {
  Shape dims;
  if (c.has("dim")) {
    if (failed(c.dimListArg("dim", t.getRank(), dims)))
      return failure();
  } else {
    for (int64_t i = 0; i < t.getRank(); ++i)
      dims.push_back(i);
  }
  Shape shape;
  for (int64_t i = 0; i < t.getRank(); ++i)
    if (!(llvm::is_contained(dims, i) && t.getDimSize(i) == 1))
      shape.push_back(t.getDimSize(i));
  return c.succeed(shape, t.getElementType());
}

LogicalResult select(RuleContext &c, RankedTensorType t, int64_t dim) {
  int64_t size = t.getDimSize(dim), index = c.getInt("index");
  if (index < -size || index >= size)
    return c.fail("index " + llvm::Twine(index) + " is out of range for dim " +
                  llvm::Twine(dim) + " of size " + llvm::Twine(size));
  Shape shape(t.getShape());
  shape.erase(shape.begin() + dim);
  return c.succeed(shape, t.getElementType());
}

} // namespace

/// The length of x[start:end:step] over a dim of `size` (Python's clamping).
int64_t sliceLength(int64_t size, std::optional<int64_t> start,
                    std::optional<int64_t> end, int64_t step) {
  // Negative bounds count from the end; both are clamped into the dim.
  int64_t s = start.value_or(0), e = end.value_or(size);
  s = std::clamp<int64_t>(s < 0 ? s + size : s, 0, size);
  e = std::clamp<int64_t>(e < 0 ? e + size : e, s, size);
  return e == s ? 0 : (e - s - 1) / step + 1;
}

namespace {

LogicalResult slice(RuleContext &c, RankedTensorType t, int64_t dim) {
  int64_t step = c.getInt("step");
  if (step <= 0)
    return c.fail("slice step must be positive, got " + llvm::Twine(step));
  Shape shape(t.getShape());
  shape[dim] = sliceLength(shape[dim], c.optInt("start"), c.optInt("end"), step);
  return c.succeed(shape, t.getElementType());
}

LogicalResult narrow(RuleContext &c, RankedTensorType t, int64_t dim) {
  int64_t size = t.getDimSize(dim), start = c.getInt("start"),
          length = c.getInt("length");
  if (length < 0)
    return c.fail("length must not be negative, got " + llvm::Twine(length));
  if (start < -size || start > size)
    return c.fail("start " + llvm::Twine(start) + " is out of range for dim " +
                  llvm::Twine(dim) + " of size " + llvm::Twine(size));
  if (start < 0)
    start += size;
  if (length > size - start)
    return c.fail("start (" + llvm::Twine(start) + ") + length (" +
                  llvm::Twine(length) + ") exceeds dim " + llvm::Twine(dim) +
                  " of size " + llvm::Twine(size));
  Shape shape(t.getShape());
  shape[dim] = length;
  return c.succeed(shape, t.getElementType());
}

/// expand's rules: new dims lead, existing dims are kept (-1) or grow from 1.
LogicalResult expandTo(RuleContext &c, RankedTensorType t, ArrayRef<int64_t> size) {
  int64_t rank = t.getRank(), n = size.size();
  if (n < rank)
    return c.fail("expand to " + describeShape(size) + " has fewer dims than " +
                  describe(t));
  Shape shape(size.begin(), size.end());
  for (int64_t i = 0; i < n; ++i) {
    int64_t in = i - (n - rank);
    if (in < 0) {
      if (size[i] < 0)
        return c.fail("expand size " + llvm::Twine(size[i]) +
                      " is not allowed in new leading dim " + llvm::Twine(i));
      continue;
    }
    int64_t have = t.getDimSize(in);
    if (size[i] == -1) {
      shape[i] = have;
    } else if (size[i] < 0) {
      return c.fail("invalid expand size " + llvm::Twine(size[i]));
    } else if (have != size[i] && have != 1) {
      return c.fail("cannot expand " + describe(t) + " to " + describeShape(size) +
                    ": dim " + llvm::Twine(in) + " has size " + llvm::Twine(have) +
                    ", not 1");
    }
  }
  return c.succeed(shape, t.getElementType());
}

LogicalResult expand(RuleContext &c, RankedTensorType t) {
  if (RankedTensorType other = c.type("other"))
    return expandTo(c, t, other.getShape());
  return expandTo(c, t, c.getInts("size"));
}

LogicalResult diagonal(RuleContext &c, RankedTensorType t) {
  int64_t a, b;
  if (failed(c.requireRank("self", t, 2, kMaxTensorRank)) ||
      failed(c.dimArg("dim1", t.getRank(), a)) || failed(c.dimArg("dim2", t.getRank(), b)))
    return failure();
  if (a == b)
    return c.fail("diagonal dims cannot be the same (" + llvm::Twine(a) + ")");
  int64_t offset = c.getInt("offset"), sa = t.getDimSize(a), sb = t.getDimSize(b);
  int64_t len = offset >= 0 ? std::min(sa, subSat(sb, offset))
                            : std::min(addSat(sa, offset), sb);
  Shape shape;
  for (int64_t i = 0; i < t.getRank(); ++i)
    if (i != a && i != b)
      shape.push_back(t.getDimSize(i));
  shape.push_back(std::max<int64_t>(len, 0));
  return c.succeed(shape, t.getElementType());
}

LogicalResult asStrided(RuleContext &c, RankedTensorType t) {
  Shape size = c.getInts("size"), stride = c.getInts("stride");
  if (size.size() != stride.size())
    return c.fail("'size' " + describeShape(size) + " and 'stride' " +
                  describeShape(stride) + " must have the same length");
  for (auto [s, st] : llvm::zip(size, stride))
    if (s < 0 || st < 0)
      return c.fail("as_strided needs non-negative sizes and strides, got size " +
                    describeShape(size) + " and stride " + describeShape(stride));
  if (std::optional<int64_t> off = c.optInt("storage_offset"); off && *off < 0)
    return c.fail("storage_offset must not be negative, got " + llvm::Twine(*off));
  return c.succeed(size, t.getElementType());
}

LogicalResult unfold(RuleContext &c, RankedTensorType t) {
  int64_t dim;
  if (failed(c.dimArg("dimension", t.getRank(), dim)))
    return failure();
  int64_t have = t.getRank() ? t.getDimSize(dim) : 1, size = c.getInt("size"),
          step = c.getInt("step");
  if (step <= 0)
    return c.fail("step must be positive, got " + llvm::Twine(step));
  if (size < 0 || size > have)
    return c.fail("size " + llvm::Twine(size) + " is out of range for dim " +
                  llvm::Twine(dim) + " of size " + llvm::Twine(have));
  Shape shape(t.getShape());
  if (!shape.empty())
    shape[dim] = (have - size) / step + 1;
  shape.push_back(size);
  return c.succeed(shape, t.getElementType());
}

LogicalResult flatten(RuleContext &c, RankedTensorType t) {
  int64_t s, e;
  if (failed(c.dimArg("start_dim", t.getRank(), s)) ||
      failed(c.dimArg("end_dim", t.getRank(), e)))
    return failure();
  if (s > e)
    return c.fail("start_dim (" + llvm::Twine(s) + ") comes after end_dim (" +
                  llvm::Twine(e) + ")");
  if (t.getRank() == 0)
    return c.succeed({1}, t.getElementType());
  Shape shape(t.getShape().take_front(s));
  shape.push_back(numel(t.getShape().slice(s, e - s + 1)));
  shape.append(t.getShape().begin() + e + 1, t.getShape().end());
  return c.succeed(shape, t.getElementType());
}

LogicalResult unflatten(RuleContext &c, RankedTensorType t, int64_t dim) {
  Shape sizes = c.getInts("sizes"), inner;
  if (sizes.empty())
    return c.fail("sizes must not be empty");
  if (failed(inferSize(c, sizes, t.getDimSize(dim), "sizes", inner)))
    return failure();
  Shape shape(t.getShape().take_front(dim));
  shape.append(inner.begin(), inner.end());
  shape.append(t.getShape().begin() + dim + 1, t.getShape().end());
  return c.succeed(shape, t.getElementType());
}

LogicalResult viewAsReal(RuleContext &c, RankedTensorType t) {
  if (!isComplex(t.getElementType()))
    return c.fail("view_as_real needs a complex tensor, got " + describe(t));
  Shape shape(t.getShape());
  shape.push_back(2);
  return c.succeed(shape, toRealType(t.getElementType()));
}

} // namespace

LogicalResult sliceRule(RuleContext &c) { return onSelfAndDim<slice>(c); }
LogicalResult selectRule(RuleContext &c) { return onSelfAndDim<select>(c); }
LogicalResult diagonalRule(RuleContext &c) { return onSelf<diagonal>(c); }
LogicalResult asStridedRule(RuleContext &c) { return onSelf<asStrided>(c); }

void addViewRules(RuleTable &t) {
  addRules(t, {"view", "view_copy", "_unsafe_view", "reshape", "_reshape_alias",
               "executorch_prim::et_view.default", "executorch_prim::et_view"},
           onSelf<view>);
  addRules(t, {"view.dtype", "view_copy.dtype"}, onSelf<viewDtype>);
  addRules(t, {"view_as", "reshape_as"}, viewAs);
  addRules(t, {"permute", "permute_copy"}, onSelf<permute>);
  addRules(t, {"t", "t_", "t_copy"}, onSelf<transposeT>);
  addRules(t, {"numpy_T"}, onSelf<numpyT>);
  addRules(t, {"transpose.int", "transpose_", "transpose_copy.int"}, onSelf<transpose>);
  addRules(t, {"unsqueeze", "unsqueeze_", "unsqueeze_copy"}, onSelf<unsqueeze>);
  addRules(t, {"squeeze", "squeeze.dim", "squeeze.dims", "squeeze_", "squeeze_.dim",
               "squeeze_.dims", "squeeze_copy", "squeeze_copy.dim", "squeeze_copy.dims"},
           onSelf<squeeze>);
  addRules(t, {"select.int", "select_copy.int"}, onSelfAndDim<select>);
  addRules(t, {"slice.Tensor", "slice_copy.Tensor"}, onSelfAndDim<slice>);
  addRules(t, {"narrow", "narrow_copy"}, onSelfAndDim<narrow>);
  addRules(t, {"expand", "expand_copy", "expand_as"}, onSelf<expand>);
  addRules(t, {"alias", "alias_copy", "detach", "detach_", "detach_copy",
               "contiguous", "lift_fresh", "lift", "lift_fresh_copy", "clone"},
           sameAsSelf);
  addRules(t, {"diagonal", "diagonal_copy"}, onSelf<diagonal>);
  addRules(t, {"as_strided", "as_strided_", "as_strided_copy"}, onSelf<asStrided>);
  addRules(t, {"unfold", "unfold_copy"}, onSelf<unfold>);
  addRules(t, {"flatten.using_ints"}, onSelf<flatten>);
  addRules(t, {"unflatten.int"}, onSelfAndDim<unflatten>);
  addRules(t, {"view_as_real", "view_as_real_copy"}, onSelf<viewAsReal>);
}

} // namespace ptec::exir::rules
