//===- ShapeRulesView.cpp - views, reshapes, splits and joins -------------===//
//
// Ops that rearrange elements without computing: their result keeps the
// dtype (cat and stack promote) and its shape follows from the arguments:
// permutations are permutations of 0..rank-1, reshapes keep the element
// count, slices and selects index inside the dim, splits add up to it.
// The view forms, their _copy forms and in-place forms share one rule.
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

LogicalResult view(RuleContext &c) {
  RankedTensorType t;
  if (failed(c.require("self", t)))
    return failure();
  StringRef arg = c.has("shape") ? "shape" : "size";
  Shape shape;
  if (failed(inferSize(c, c.getInts(arg), numel(t.getShape()), arg, shape)))
    return failure();
  if (c.has("stride") && c.getInts("stride").size() != shape.size())
    return c.fail("'size' and 'stride' must have the same length");
  c.produce(shape, t.getElementType());
  return success();
}

LogicalResult viewAs(RuleContext &c) {
  RankedTensorType t, other;
  if (failed(c.require("self", t)) || failed(c.require("other", other)))
    return failure();
  if (numel(t.getShape()) != numel(other.getShape()))
    return c.fail("'self' " + describe(t) + " and 'other' " + describe(other) +
                  " have different element counts");
  c.produce(other.getShape(), t.getElementType());
  return success();
}

unsigned byteWidth(Type t) {
  if (auto c = llvm::dyn_cast<ComplexType>(t))
    return 2 * byteWidth(c.getElementType());
  return std::max(1u, t.getIntOrFloatBitWidth() / 8);
}

/// view.dtype: the last dim absorbs a change of element size.
LogicalResult viewDtype(RuleContext &c) {
  RankedTensorType t;
  if (failed(c.require("self", t)))
    return failure();
  Type to = c.dtype("dtype");
  if (!to) {
    c.produce(Spec::anyRank({}));
    return success();
  }
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
  c.produce(shape, to);
  return success();
}

LogicalResult permute(RuleContext &c) {
  RankedTensorType t;
  if (failed(c.require("self", t)))
    return failure();
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
  c.produce(shape, t.getElementType());
  return success();
}

LogicalResult transposeT(RuleContext &c) {
  RankedTensorType t;
  if (failed(c.require("self", t)) || failed(c.requireRank("self", t, 0, 2)))
    return failure();
  Shape shape(t.getShape());
  std::reverse(shape.begin(), shape.end());
  c.produce(shape, t.getElementType());
  return success();
}

LogicalResult numpyT(RuleContext &c) {
  RankedTensorType t;
  if (failed(c.require("self", t)))
    return failure();
  Shape shape(t.getShape());
  std::reverse(shape.begin(), shape.end());
  c.produce(shape, t.getElementType());
  return success();
}

LogicalResult transpose(RuleContext &c) {
  RankedTensorType t;
  int64_t a, b;
  if (failed(c.require("self", t)) || failed(c.dimArg("dim0", t.getRank(), a)) ||
      failed(c.dimArg("dim1", t.getRank(), b)))
    return failure();
  Shape shape(t.getShape());
  if (!shape.empty())
    std::swap(shape[a], shape[b]);
  c.produce(shape, t.getElementType());
  return success();
}

LogicalResult unsqueeze(RuleContext &c) {
  RankedTensorType t;
  int64_t dim;
  if (failed(c.require("self", t)) || failed(c.wrapDim(c.getInt("dim"), t.getRank() + 1,
                                                       "dim", dim)))
    return failure();
  Shape shape(t.getShape());
  shape.insert(shape.begin() + dim, 1);
  c.produce(shape, t.getElementType());
  return success();
}

LogicalResult squeeze(RuleContext &c) {
  RankedTensorType t;
  if (failed(c.require("self", t)))
    return failure();
  Shape dims;
  if (c.has("dim")) {
    Shape given;
    if (std::optional<int64_t> d = c.optInt("dim"))
      given.push_back(*d);
    else
      given = c.getInts("dim");
    if (failed(c.wrapDims(given, t.getRank(), "dim", dims)))
      return failure();
  } else {
    for (int64_t i = 0; i < t.getRank(); ++i)
      dims.push_back(i);
  }
  Shape shape;
  for (int64_t i = 0; i < t.getRank(); ++i)
    if (!(llvm::is_contained(dims, i) && t.getDimSize(i) == 1))
      shape.push_back(t.getDimSize(i));
  c.produce(shape, t.getElementType());
  return success();
}

LogicalResult select(RuleContext &c) {
  RankedTensorType t;
  int64_t dim;
  if (failed(c.require("self", t)) || failed(c.requireRank("self", t, 1, kMaxTensorRank)) ||
      failed(c.dimArg("dim", t.getRank(), dim)))
    return failure();
  int64_t size = t.getDimSize(dim), index = c.getInt("index");
  if (index < -size || index >= size)
    return c.fail("index " + llvm::Twine(index) + " is out of range for dim " +
                  llvm::Twine(dim) + " of size " + llvm::Twine(size));
  Shape shape(t.getShape());
  shape.erase(shape.begin() + dim);
  c.produce(shape, t.getElementType());
  return success();
}

/// The length of x[start:end:step] over a dim of `size` (Python's clamping).
int64_t sliceLength(int64_t size, std::optional<int64_t> start,
                    std::optional<int64_t> end, int64_t step) {
  int64_t s = start.value_or(0), e = end.value_or(size);
  if (s < 0)
    s += size;
  if (e < 0)
    e += size;
  s = std::clamp<int64_t>(s, 0, size);
  e = std::clamp<int64_t>(e, s, size);
  return e == s ? 0 : (e - s - 1) / step + 1;
}

LogicalResult slice(RuleContext &c) {
  RankedTensorType t;
  int64_t dim;
  if (failed(c.require("self", t)) || failed(c.requireRank("self", t, 1, kMaxTensorRank)) ||
      failed(c.dimArg("dim", t.getRank(), dim)))
    return failure();
  int64_t step = c.getInt("step");
  if (step <= 0)
    return c.fail("slice step must be positive, got " + llvm::Twine(step));
  Shape shape(t.getShape());
  shape[dim] = sliceLength(shape[dim], c.optInt("start"), c.optInt("end"), step);
  c.produce(shape, t.getElementType());
  return success();
}

LogicalResult narrow(RuleContext &c) {
  RankedTensorType t;
  int64_t dim;
  if (failed(c.require("self", t)) || failed(c.requireRank("self", t, 1, kMaxTensorRank)) ||
      failed(c.dimArg("dim", t.getRank(), dim)))
    return failure();
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
  c.produce(shape, t.getElementType());
  return success();
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
  c.produce(shape, t.getElementType());
  return success();
}

LogicalResult expand(RuleContext &c) {
  RankedTensorType t;
  if (failed(c.require("self", t)))
    return failure();
  if (RankedTensorType other = c.type("other"))
    return expandTo(c, t, other.getShape());
  return expandTo(c, t, c.getInts("size"));
}

LogicalResult identity(RuleContext &c) {
  RankedTensorType t;
  if (failed(c.require("self", t)))
    return failure();
  c.produce(Spec::like(t));
  return success();
}

LogicalResult diagonal(RuleContext &c) {
  RankedTensorType t;
  int64_t a, b;
  if (failed(c.require("self", t)) || failed(c.requireRank("self", t, 2, kMaxTensorRank)) ||
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
  c.produce(shape, t.getElementType());
  return success();
}

LogicalResult asStrided(RuleContext &c) {
  RankedTensorType t;
  if (failed(c.require("self", t)))
    return failure();
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
  c.produce(size, t.getElementType());
  return success();
}

LogicalResult unfold(RuleContext &c) {
  RankedTensorType t;
  int64_t dim;
  if (failed(c.require("self", t)) || failed(c.dimArg("dimension", t.getRank(), dim)))
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
  c.produce(shape, t.getElementType());
  return success();
}

LogicalResult flatten(RuleContext &c) {
  RankedTensorType t;
  int64_t s, e;
  if (failed(c.require("self", t)) ||
      failed(c.dimArg("start_dim", t.getRank(), s)) ||
      failed(c.dimArg("end_dim", t.getRank(), e)))
    return failure();
  if (s > e)
    return c.fail("start_dim (" + llvm::Twine(s) + ") comes after end_dim (" +
                  llvm::Twine(e) + ")");
  if (t.getRank() == 0) {
    c.produce({1}, t.getElementType());
    return success();
  }
  Shape shape(t.getShape().take_front(s));
  shape.push_back(numel(t.getShape().slice(s, e - s + 1)));
  shape.append(t.getShape().begin() + e + 1, t.getShape().end());
  c.produce(shape, t.getElementType());
  return success();
}

LogicalResult unflatten(RuleContext &c) {
  RankedTensorType t;
  int64_t dim;
  if (failed(c.require("self", t)) || failed(c.requireRank("self", t, 1, kMaxTensorRank)) ||
      failed(c.dimArg("dim", t.getRank(), dim)))
    return failure();
  Shape sizes = c.getInts("sizes"), inner;
  if (sizes.empty())
    return c.fail("sizes must not be empty");
  if (failed(inferSize(c, sizes, t.getDimSize(dim), "sizes", inner)))
    return failure();
  Shape shape(t.getShape().take_front(dim));
  shape.append(inner.begin(), inner.end());
  shape.append(t.getShape().begin() + dim + 1, t.getShape().end());
  c.produce(shape, t.getElementType());
  return success();
}

LogicalResult viewAsReal(RuleContext &c) {
  RankedTensorType t;
  if (failed(c.require("self", t)))
    return failure();
  if (!isComplex(t.getElementType()))
    return c.fail("view_as_real needs a complex tensor, got " + describe(t));
  Shape shape(t.getShape());
  shape.push_back(2);
  c.produce(shape, toRealType(t.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Splitting
//===----------------------------------------------------------------------===//

/// One result per entry of `sizes` along `dim`.
void producePieces(RuleContext &c, RankedTensorType t, int64_t dim,
                   ArrayRef<int64_t> sizes) {
  for (int64_t s : sizes) {
    Shape shape(t.getShape());
    shape[dim] = s;
    c.produce(shape, t.getElementType());
  }
}

LogicalResult splitDim(RuleContext &c, RankedTensorType &t, int64_t &dim) {
  if (failed(c.require("self", t)) || failed(c.requireRank("self", t, 1, kMaxTensorRank)))
    return failure();
  return c.dimArg("dim", t.getRank(), dim);
}

LogicalResult split(RuleContext &c) {
  RankedTensorType t;
  int64_t dim;
  if (failed(splitDim(c, t, dim)))
    return failure();
  int64_t size = t.getDimSize(dim);
  if (std::optional<int64_t> each = c.optInt("split_size")) {
    if (*each < 0 || (*each == 0 && size != 0))
      return c.fail("split_size " + llvm::Twine(*each) + " cannot split dim " +
                    llvm::Twine(dim) + " of size " + llvm::Twine(size));
    int64_t n = *each == 0 ? 1 : std::max<int64_t>(addSat(size, *each - 1) / *each, 1);
    if (failed(c.checkPieces(n)))
      return failure();
    Shape sizes(n, *each);
    sizes.back() = size - *each * (n - 1);
    producePieces(c, t, dim, sizes);
    return success();
  }
  Shape sizes = c.getInts(c.has("split_sizes") ? "split_sizes" : "split_size");
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return c.fail("split sizes must not be negative, got " + describeShape(sizes));
    total += s;
  }
  if (total != size)
    return c.fail("split sizes " + describeShape(sizes) + " add up to " +
                  llvm::Twine(total) + ", but dim " + llvm::Twine(dim) + " has size " +
                  llvm::Twine(size));
  producePieces(c, t, dim, sizes);
  return success();
}

LogicalResult chunk(RuleContext &c) {
  RankedTensorType t;
  int64_t dim;
  if (failed(splitDim(c, t, dim)))
    return failure();
  int64_t chunks = c.getInt("chunks"), size = t.getDimSize(dim);
  if (chunks <= 0)
    return c.fail("chunks must be positive, got " + llvm::Twine(chunks));
  int64_t each = addSat(size, chunks - 1) / chunks;
  if (each == 0) { // an empty dim still gives `chunks` pieces
    if (failed(c.checkPieces(chunks)))
      return failure();
    producePieces(c, t, dim, Shape(chunks, 0));
    return success();
  }
  int64_t n = std::max<int64_t>(addSat(size, each - 1) / each, 1);
  if (failed(c.checkPieces(n)))
    return failure();
  Shape sizes(n, each);
  sizes.back() = size - each * (n - 1);
  producePieces(c, t, dim, sizes);
  return success();
}

LogicalResult tensorSplit(RuleContext &c) {
  RankedTensorType t;
  int64_t dim;
  if (failed(splitDim(c, t, dim)))
    return failure();
  int64_t size = t.getDimSize(dim);
  Shape sizes;
  if (std::optional<int64_t> sections = c.optInt("sections")) {
    if (*sections <= 0)
      return c.fail("sections must be positive, got " + llvm::Twine(*sections));
    if (failed(c.checkPieces(*sections)))
      return failure();
    for (int64_t i = 0; i < *sections; ++i)
      sizes.push_back(size / *sections + (i < size % *sections ? 1 : 0));
  } else {
    int64_t start = 0;
    for (int64_t end : c.getInts("indices")) {
      sizes.push_back(sliceLength(size, start, end, 1));
      start = end;
    }
    sizes.push_back(sliceLength(size, start, size, 1));
  }
  producePieces(c, t, dim, sizes);
  return success();
}

LogicalResult unbind(RuleContext &c) {
  RankedTensorType t;
  int64_t dim;
  if (failed(splitDim(c, t, dim)))
    return failure();
  Shape shape(t.getShape());
  shape.erase(shape.begin() + dim);
  if (failed(c.checkPieces(t.getDimSize(dim))))
    return failure();
  for (int64_t i = 0; i < t.getDimSize(dim); ++i)
    c.produce(shape, t.getElementType());
  return success();
}

//===----------------------------------------------------------------------===//
// Joining and repeating
//===----------------------------------------------------------------------===//

LogicalResult rankedList(RuleContext &c, StringRef name,
                         SmallVectorImpl<RankedTensorType> &out) {
  for (Value v : c.tensors(name))
    if (auto t = v ? llvm::dyn_cast<RankedTensorType>(v.getType()) : nullptr)
      out.push_back(t);
  if (out.empty())
    return c.fail("'" + name + "' must not be empty");
  return success();
}

/// Concatenation of `ts` along `dimArg` (legacy 1-D empty tensors skipped).
LogicalResult catOf(RuleContext &c, ArrayRef<RankedTensorType> ts, int64_t dimArg) {
  ResultType rt;
  for (RankedTensorType t : ts)
    rt.add(t);
  SmallVector<std::pair<size_t, RankedTensorType>> kept;
  for (auto [i, t] : llvm::enumerate(ts))
    if (!(t.getRank() == 1 && t.getDimSize(0) == 0))
      kept.emplace_back(i, t);
  if (kept.empty()) {
    c.produce({0}, rt.get());
    return success();
  }
  RankedTensorType first = kept.front().second;
  if (first.getRank() == 0)
    return c.fail("a 0-dim tensor (entry " + llvm::Twine(kept.front().first) +
                  ") cannot be concatenated");
  int64_t dim;
  if (failed(c.wrapDim(dimArg, first.getRank(), "dim", dim)))
    return failure();
  Shape shape(first.getShape());
  shape[dim] = 0;
  for (auto [i, t] : kept) {
    if (t.getRank() != first.getRank())
      return c.fail("tensors must have the same number of dims, got " +
                    describe(first) + " and " + describe(t) + " (entry " +
                    llvm::Twine(i) + ")");
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != dim && t.getDimSize(d) != first.getDimSize(d))
        return c.fail("sizes must match except in dim " + llvm::Twine(dim) + ": " +
                      describe(first) + " and " + describe(t) + " (entry " +
                      llvm::Twine(i) + ")");
    shape[dim] = addSat(shape[dim], t.getDimSize(dim));
  }
  c.produce(shape, rt.get());
  return success();
}

LogicalResult cat(RuleContext &c) {
  SmallVector<RankedTensorType> ts;
  if (failed(rankedList(c, "tensors", ts)))
    return failure();
  return catOf(c, ts, c.getInt("dim"));
}

LogicalResult stack(RuleContext &c) {
  SmallVector<RankedTensorType> ts;
  if (failed(rankedList(c, "tensors", ts)))
    return failure();
  ResultType rt;
  for (auto [i, t] : llvm::enumerate(ts)) {
    rt.add(t);
    if (t.getShape() != ts.front().getShape())
      return c.fail("stack needs tensors of one shape, got " + describe(ts.front()) +
                    " and " + describe(t) + " (entry " + llvm::Twine(i) + ")");
  }
  int64_t dim;
  if (failed(c.wrapDim(c.getInt("dim"), ts.front().getRank() + 1, "dim", dim)))
    return failure();
  Shape shape(ts.front().getShape());
  shape.insert(shape.begin() + dim, ts.size());
  c.produce(shape, rt.get());
  return success();
}

/// hstack/vstack: atleast_1d/atleast_2d, then cat.
LogicalResult hvstack(RuleContext &c) {
  SmallVector<RankedTensorType> ts;
  if (failed(rankedList(c, "tensors", ts)))
    return failure();
  bool vertical = c.getOp().getOpName().contains("vstack");
  for (RankedTensorType &t : ts) {
    Shape s(t.getShape());
    if (s.empty())
      s.push_back(1);
    if (vertical && s.size() == 1)
      s.insert(s.begin(), 1);
    t = RankedTensorType::get(s, t.getElementType());
  }
  return catOf(c, ts, vertical || ts.front().getRank() == 1 ? 0 : 1);
}

LogicalResult repeat(RuleContext &c) {
  RankedTensorType t;
  if (failed(c.require("self", t)))
    return failure();
  bool tile = c.has("dims");
  Shape reps = c.getInts(tile ? "dims" : "repeats");
  if (tile && static_cast<int64_t>(reps.size()) < t.getRank())
    reps.insert(reps.begin(), t.getRank() - reps.size(), 1);
  if (static_cast<int64_t>(reps.size()) < t.getRank())
    return c.fail("repeats " + describeShape(reps) + " has fewer entries than " +
                  describe(t) + " has dims");
  Shape shape(reps.size());
  for (size_t i = 0; i < reps.size(); ++i) {
    if (reps[i] < 0)
      return c.fail("repeats must not be negative, got " + describeShape(reps));
    int64_t in = i - (reps.size() - t.getRank());
    shape[i] = mulSat(reps[i], in >= 0 ? t.getDimSize(in) : 1);
  }
  c.produce(shape, t.getElementType());
  return success();
}

LogicalResult repeatInterleave(RuleContext &c) {
  std::optional<int64_t> outputSize = c.optInt("output_size");
  if (RankedTensorType reps = c.type("repeats")) { // the Tensor overload
    if (failed(c.requireRank("repeats", reps, 0, 1)))
      return failure();
    if (!isIntegral(reps.getElementType(), false))
      return c.fail("'repeats' must be an integer tensor, got " + describe(reps));
    c.produce({outputSize.value_or(kDataDependent)}, reps.getElementType());
    return success();
  }
  RankedTensorType t;
  if (failed(c.require("self", t)))
    return failure();
  int64_t reps = c.getInt("repeats");
  if (reps < 0)
    return c.fail("repeats must not be negative, got " + llvm::Twine(reps));
  Shape shape;
  size_t repeated = 0; // the dim that grows
  if (std::optional<int64_t> d = c.optInt("dim")) {
    int64_t dim;
    if (failed(c.wrapDim(*d, t.getRank(), "dim", dim)))
      return failure();
    shape.assign(t.getShape().begin(), t.getShape().end());
    if (shape.empty())
      shape.push_back(1);
    repeated = dim;
    shape[dim] = mulSat(shape[dim], reps);
  } else {
    shape.push_back(mulSat(numel(t.getShape()), reps));
  }
  if (outputSize && *outputSize != shape[repeated])
    return c.fail("output_size " + llvm::Twine(*outputSize) + " does not match the "
                  "repeated size " + llvm::Twine(shape[repeated]));
  c.produce(shape, t.getElementType());
  return success();
}

LogicalResult flip(RuleContext &c) {
  RankedTensorType t;
  Shape dims;
  if (failed(c.require("self", t)) ||
      failed(c.wrapDims(c.getInts("dims"), t.getRank(), "dims", dims)))
    return failure();
  c.produce(Spec::like(t));
  return success();
}

LogicalResult roll(RuleContext &c) {
  RankedTensorType t;
  if (failed(c.require("self", t)))
    return failure();
  Shape shifts = c.getInts("shifts"), dims = c.getInts("dims"), wrapped;
  if (dims.empty() ? shifts.size() != 1 : shifts.size() != dims.size())
    return c.fail("shifts " + describeShape(shifts) + " and dims " +
                  describeShape(dims) + " must align");
  if (failed(c.wrapDims(dims, t.getRank(), "dims", wrapped, /*allowDuplicates=*/true)))
    return failure();
  c.produce(Spec::like(t));
  return success();
}

LogicalResult broadcastTensors(RuleContext &c) {
  SmallVector<RankedTensorType> ts;
  if (failed(rankedList(c, "tensors", ts)))
    return failure();
  SmallVector<ArrayRef<int64_t>> shapes;
  SmallVector<std::string> labels;
  for (auto [i, t] : llvm::enumerate(ts)) {
    shapes.push_back(t.getShape());
    labels.push_back("tensors[" + std::to_string(i) + "]");
  }
  SmallVector<StringRef> names(labels.begin(), labels.end());
  Shape shape;
  if (failed(c.broadcast(shapes, names, shape)))
    return failure();
  for (RankedTensorType t : ts)
    c.produce(shape, t.getElementType());
  return success();
}

LogicalResult meshgrid(RuleContext &c) {
  SmallVector<RankedTensorType> ts;
  if (failed(rankedList(c, "tensors", ts)))
    return failure();
  std::optional<std::string> indexing = c.str("indexing");
  if (indexing && *indexing != "ij" && *indexing != "xy")
    return c.fail("indexing must be 'ij' or 'xy', got '" + *indexing + "'");
  Shape shape;
  for (RankedTensorType t : ts) {
    if (t.getRank() > 1)
      return c.fail("meshgrid needs 0-dim or 1-dim tensors, got " + describe(t));
    if (t.getElementType() != ts.front().getElementType())
      return c.fail("meshgrid needs tensors of one dtype");
    shape.push_back(numel(t.getShape()));
  }
  if (indexing && *indexing == "xy" && shape.size() >= 2)
    std::swap(shape[0], shape[1]);
  for (RankedTensorType t : ts)
    c.produce(shape, t.getElementType());
  return success();
}

} // namespace

LogicalResult sliceRule(RuleContext &c) { return slice(c); }
LogicalResult selectRule(RuleContext &c) { return select(c); }
LogicalResult diagonalRule(RuleContext &c) { return diagonal(c); }
LogicalResult asStridedRule(RuleContext &c) { return asStrided(c); }

void addViewRules(RuleTable &t) {
  addRules(t, {"view", "view_copy", "_unsafe_view", "reshape", "_reshape_alias",
               "executorch_prim::et_view.default", "executorch_prim::et_view"},
           view);
  addRules(t, {"view.dtype", "view_copy.dtype"}, viewDtype);
  addRules(t, {"view_as", "reshape_as"}, viewAs);
  addRules(t, {"permute", "permute_copy"}, permute);
  addRules(t, {"t", "t_", "t_copy"}, transposeT);
  addRules(t, {"numpy_T"}, numpyT);
  addRules(t, {"transpose.int", "transpose_", "transpose_copy.int"}, transpose);
  addRules(t, {"unsqueeze", "unsqueeze_", "unsqueeze_copy"}, unsqueeze);
  addRules(t, {"squeeze", "squeeze.dim", "squeeze.dims", "squeeze_", "squeeze_.dim",
               "squeeze_.dims", "squeeze_copy", "squeeze_copy.dim", "squeeze_copy.dims"},
           squeeze);
  addRules(t, {"select.int", "select_copy.int"}, select);
  addRules(t, {"slice.Tensor", "slice_copy.Tensor"}, slice);
  addRules(t, {"narrow", "narrow_copy"}, narrow);
  addRules(t, {"expand", "expand_copy", "expand_as"}, expand);
  addRules(t, {"alias", "alias_copy", "detach", "detach_", "detach_copy",
               "contiguous", "lift_fresh", "lift", "lift_fresh_copy", "clone"},
           identity);
  addRules(t, {"diagonal", "diagonal_copy"}, diagonal);
  addRules(t, {"as_strided", "as_strided_", "as_strided_copy"}, asStrided);
  addRules(t, {"unfold", "unfold_copy"}, unfold);
  addRules(t, {"flatten.using_ints"}, flatten);
  addRules(t, {"unflatten.int"}, unflatten);
  addRules(t, {"view_as_real", "view_as_real_copy"}, viewAsReal);
  addRules(t, {"split.Tensor", "split.sizes", "split_copy.Tensor", "split_with_sizes",
               "split_with_sizes_copy", "unsafe_split.Tensor"},
           split);
  addRules(t, {"chunk"}, chunk);
  addRules(t, {"tensor_split.sections", "tensor_split.indices"}, tensorSplit);
  addRules(t, {"unbind.int", "unbind_copy.int"}, unbind);
  addRules(t, {"cat", "concat"}, cat);
  addRules(t, {"stack"}, stack);
  addRules(t, {"hstack", "vstack"}, hvstack);
  addRules(t, {"repeat", "tile"}, repeat);
  addRules(t, {"repeat_interleave.self_int", "repeat_interleave.Tensor"},
           repeatInterleave);
  addRules(t, {"flip"}, flip);
  addRules(t, {"roll"}, roll);
  addRules(t, {"broadcast_tensors"}, broadcastTensors);
  addRules(t, {"meshgrid.indexing"}, meshgrid);
}

} // namespace ptec::exir::rules
