//===- ShapeRulesCompositeShape.cpp - composite shape ops -----------------===//
//
// The rules of the composite shape, split/join, padding, indexing and
// sorting ops that torch.export keeps in the training IR and that
// legalize-to-core-aten decomposes (passes/LegalizeShape*.cpp): the padding
// enum forms, the split spellings (unsafe_*, hsplit/vsplit/dsplit), flips,
// rotations, dim moves, the stacks and at-least forms, diagonals, and the
// counting and data-dependent index ops. Their schemas are in
// schema/aten/composite_shape.txt. They compute no new values, so the
// rules are about shapes: PyTorch's argument checks and result sizes.
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ShapeRulesSupport.h"

#include <algorithm>
#include <cstdlib>

using namespace mlir;

namespace ptec::exir::rules {
namespace {

//===----------------------------------------------------------------------===//
// Padding
//===----------------------------------------------------------------------===//

/// `_pad_enum` (mode 0 constant, 1 reflect, 2 replicate, 3 circular) and
/// `_pad_circular`: each (before, after) pair, from the last dim, grows or
/// (negative) crops its dim.
LogicalResult padEnum(RuleContext &c, RankedTensorType t) {
  int64_t mode = c.has("mode") ? c.getInt("mode") : 3;
  if (mode < 0 || mode > 3)
    return c.fail("padding mode " + llvm::Twine(mode) +
                  " is not 0 (constant), 1 (reflect), 2 (replicate) or 3 (circular)");
  if (mode != 0 && c.optFloat("value"))
    return c.fail("only constant padding takes a value");
  Shape pad = c.getInts("pad"), shape(t.getShape());
  if (pad.size() % 2 != 0 || static_cast<int64_t>(pad.size() / 2) > t.getRank())
    return c.fail("the pad list " + describeShape(pad) + " must have an even length of at "
                  "most twice the rank of " + describe(t));
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    int64_t d = t.getRank() - 1 - i;
    shape[d] = addSat(shape[d], addSat(pad[2 * i], pad[2 * i + 1]));
    if (shape[d] < 0)
      return c.fail("the pad list " + describeShape(pad) + " makes dim " + llvm::Twine(d) +
                    " of " + describe(t) + " negative");
  }
  return c.succeed(shape, t.getElementType());
}

//===----------------------------------------------------------------------===//
// Splitting
//===----------------------------------------------------------------------===//

void producePieces(RuleContext &c, RankedTensorType t, int64_t dim, ArrayRef<int64_t> sizes) {
  for (int64_t s : sizes) {
    Shape shape(t.getShape());
    shape[dim] = s;
    c.produce(shape, t.getElementType());
  }
}

LogicalResult splitWithSizes(RuleContext &c, RankedTensorType t, int64_t dim) {
  Shape sizes = c.getInts("split_sizes");
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return c.fail("split sizes must not be negative, got " + describeShape(sizes));
    total = addSat(total, s);
  }
  if (total != t.getDimSize(dim))
    return c.fail("split sizes " + describeShape(sizes) + " add up to " + llvm::Twine(total) +
                  ", but dim " + llvm::Twine(dim) + " has size " +
                  llvm::Twine(t.getDimSize(dim)));
  if (failed(c.checkPieces(sizes.size())))
    return failure();
  producePieces(c, t, dim, sizes);
  return success();
}

/// unsafe_chunk: chunk's pieces of ceil(size / chunks), the last one the rest.
LogicalResult unsafeChunk(RuleContext &c, RankedTensorType t, int64_t dim) {
  int64_t chunks = c.getInt("chunks"), size = t.getDimSize(dim);
  if (chunks <= 0)
    return c.fail("chunks must be positive, got " + llvm::Twine(chunks));
  int64_t each = addSat(size, chunks - 1) / chunks;
  Shape sizes;
  if (each == 0) {
    sizes.assign(chunks, 0);
  } else {
    for (int64_t start = 0; start < size; start += each)
      sizes.push_back(std::min(each, size - start));
  }
  if (failed(c.checkPieces(sizes.size())))
    return failure();
  producePieces(c, t, dim, sizes);
  return success();
}

/// hsplit (dim 1, or 0 for 1-dim tensors), vsplit (dim 0, at least 2 dims),
/// dsplit (dim 2, at least 3 dims): `sections` must divide the dim; `indices`
/// are tensor_split's.
LogicalResult hvdSplit(RuleContext &c, RankedTensorType t) {
  StringRef name = c.getOp().getOpName();
  int64_t minRank = name.contains("hsplit") ? 1 : name.contains("vsplit") ? 2 : 3;
  if (failed(c.requireRank("self", t, minRank, kMaxTensorRank)))
    return failure();
  int64_t dim = name.contains("hsplit") ? (t.getRank() == 1 ? 0 : 1)
                : name.contains("vsplit") ? 0
                                          : 2;
  int64_t size = t.getDimSize(dim);
  Shape sizes;
  if (std::optional<int64_t> sections = c.optInt("sections")) {
    if (*sections <= 0 || size % *sections != 0)
      return c.fail("dim " + llvm::Twine(dim) + " of " + describe(t) +
                    " does not split into " + llvm::Twine(*sections) + " equal sections");
    if (failed(c.checkPieces(*sections)))
      return failure();
    sizes.assign(*sections, size / *sections);
  } else {
    int64_t start = 0;
    for (int64_t end : c.getInts("indices")) {
      sizes.push_back(sliceLength(size, start, end, 1));
      start = end;
    }
    sizes.push_back(sliceLength(size, start, size, 1));
    if (failed(c.checkPieces(sizes.size())))
      return failure();
  }
  producePieces(c, t, dim, sizes);
  return success();
}

//===----------------------------------------------------------------------===//
// Rearranging and views
//===----------------------------------------------------------------------===//

LogicalResult fliplrud(RuleContext &c, RankedTensorType t) {
  int64_t minRank = c.getOp().getOpName().contains("fliplr") ? 2 : 1;
  if (failed(c.requireRank("self", t, minRank, kMaxTensorRank)))
    return failure();
  return c.succeed(Spec::like(t));
}

LogicalResult rot90(RuleContext &c, RankedTensorType t) {
  if (failed(c.requireRank("self", t, 2, kMaxTensorRank)))
    return failure();
  Shape dims = c.getInts("dims"), wrapped;
  if (dims.size() != 2)
    return c.fail("rot90 needs 2 dims, got " + describeShape(dims));
  if (failed(c.wrapDims(dims, t.getRank(), "dims", wrapped)))
    return failure();
  Shape shape(t.getShape());
  int64_t k = ((c.getInt("k") % 4) + 4) % 4;
  if (k % 2 == 1)
    std::swap(shape[wrapped[0]], shape[wrapped[1]]);
  return c.succeed(shape, t.getElementType());
}

LogicalResult channelShuffle(RuleContext &c, RankedTensorType t) {
  if (failed(c.requireRank("self", t, 3, kMaxTensorRank)))
    return failure();
  int64_t groups = c.getInt("groups");
  if (groups <= 0 || t.getDimSize(1) % groups != 0)
    return c.fail("channel_shuffle needs groups > 0 that divide the " +
                  llvm::Twine(t.getDimSize(1)) + " channels, got " + llvm::Twine(groups));
  return c.succeed(Spec::like(t));
}

/// movedim / moveaxis: dims `source` go to `destination`, the others keep
/// their order in the remaining places.
LogicalResult movedim(RuleContext &c, RankedTensorType t) {
  Shape src, dst;
  if (failed(c.dimListArg("source", t.getRank(), src)) ||
      failed(c.dimListArg("destination", t.getRank(), dst)))
    return failure();
  if (src.size() != dst.size())
    return c.fail("movedim: source " + describeShape(src) + " and destination " +
                  describeShape(dst) + " have different lengths");
  int64_t r = t.getRank();
  if (r == 0)
    return c.succeed(Spec::like(t));
  SmallVector<int64_t> perm(r, -1);
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
  Shape shape;
  for (int64_t p : perm)
    shape.push_back(t.getDimSize(p));
  return c.succeed(shape, t.getElementType());
}

LogicalResult swapDims(RuleContext &c, RankedTensorType t) {
  bool axes = c.has("axis0");
  int64_t a, b;
  if (failed(c.dimArg(axes ? "axis0" : "dim0", t.getRank(), a)) ||
      failed(c.dimArg(axes ? "axis1" : "dim1", t.getRank(), b)))
    return failure();
  Shape shape(t.getShape());
  if (!shape.empty())
    std::swap(shape[a], shape[b]);
  return c.succeed(shape, t.getElementType());
}

/// mT / mH (rank >= 2, MaxRank 2: matrix_H): the last two dims swapped.
template <int64_t MaxRank>
LogicalResult matrixTranspose(RuleContext &c, RankedTensorType t) {
  if (failed(c.requireRank("self", t, 2, MaxRank)))
    return failure();
  Shape shape(t.getShape());
  std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
  return c.succeed(shape, t.getElementType());
}

/// linalg_diagonal(A, offset=0, dim1=-2, dim2=-1): diagonal's rule with
/// these defaults.
LogicalResult linalgDiagonal(RuleContext &c) {
  RankedTensorType t;
  if (failed(c.require("A", t)) || failed(c.requireRank("A", t, 2, INT64_MAX)))
    return failure();
  int64_t r = t.getRank();
  int64_t a = c.optInt("dim1").value_or(-2), b = c.optInt("dim2").value_or(-1);
  if (a < -r || a >= r || b < -r || b >= r)
    return c.fail("linalg_diagonal dims out of range for rank " + llvm::Twine(r));
  a = a < 0 ? a + r : a;
  b = b < 0 ? b + r : b;
  if (a == b)
    return c.fail("diagonal dims cannot be the same (" + llvm::Twine(a) + ")");
  int64_t offset = c.getInt("offset"), sa = t.getDimSize(a), sb = t.getDimSize(b);
  int64_t len = offset >= 0 ? std::min(sa, subSat(sb, offset))
                            : std::min(addSat(sa, offset), sb);
  Shape shape;
  for (int64_t i = 0; i < r; ++i)
    if (i != a && i != b)
      shape.push_back(t.getDimSize(i));
  shape.push_back(std::max<int64_t>(len, 0));
  return c.succeed(shape, t.getElementType());
}

LogicalResult ravel(RuleContext &c, RankedTensorType t) {
  return c.succeed({numel(t.getShape())}, t.getElementType());
}

/// broadcast_to: expand's rules (new dims lead; -1 keeps a dim; only size-1
/// dims grow).
LogicalResult broadcastTo(RuleContext &c, RankedTensorType t) {
  Shape size = c.getInts("size");
  int64_t rank = t.getRank(), n = size.size();
  if (n < rank)
    return c.fail("broadcast_to " + describeShape(size) + " has fewer dims than " +
                  describe(t));
  Shape shape(size);
  for (int64_t i = 0; i < n; ++i) {
    int64_t in = i - (n - rank);
    if (in < 0) {
      if (size[i] < 0)
        return c.fail("size " + llvm::Twine(size[i]) + " is not allowed in new leading dim " +
                      llvm::Twine(i));
      continue;
    }
    int64_t have = t.getDimSize(in);
    if (size[i] == -1)
      shape[i] = have;
    else if (size[i] < 0 || (have != size[i] && have != 1))
      return c.fail("cannot broadcast " + describe(t) + " to " + describeShape(size));
  }
  return c.succeed(shape, t.getElementType());
}

/// The shape atleast_Nd gives (NumPy's: a vector becomes a row, a matrix
/// gets a trailing dim for 3).
Shape atLeast(ArrayRef<int64_t> s, int n) {
  Shape out(s.begin(), s.end());
  if (out.size() >= static_cast<size_t>(n))
    return out;
  if (out.empty())
    return Shape(n, 1);
  if (out.size() == 1)
    return n == 2 ? Shape{1, out[0]} : Shape{1, out[0], 1};
  out.push_back(1); // 2 dims to 3
  return out;
}

LogicalResult atLeastNd(RuleContext &c, RankedTensorType t) {
  StringRef name = c.getOp().getOpName();
  int n = name.ends_with("1d") ? 1 : name.ends_with("2d") ? 2 : 3;
  return c.succeed(atLeast(t.getShape(), n), t.getElementType());
}

/// atleast_Nd.Sequence: the same for every tensor of the list.
LogicalResult atLeastNdList(RuleContext &c) {
  StringRef name = c.getOp().getOpName();
  int n = name.contains("1d") ? 1 : name.contains("2d") ? 2 : 3;
  for (Value v : c.tensors("tensors")) {
    auto t = llvm::cast<RankedTensorType>(v.getType());
    c.produce(atLeast(t.getShape(), n), t.getElementType());
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Joining, repeating, diagonals
//===----------------------------------------------------------------------===//

LogicalResult rankedList(RuleContext &c, SmallVectorImpl<RankedTensorType> &out) {
  for (Value v : c.tensors("tensors"))
    if (auto t = v ? llvm::dyn_cast<RankedTensorType>(v.getType()) : nullptr)
      out.push_back(t);
  if (out.empty())
    return c.fail("'tensors' must not be empty");
  return success();
}

/// meshgrid without `indexing`: PyTorch's default, "ij".
LogicalResult meshgridIj(RuleContext &c) {
  SmallVector<RankedTensorType> ts;
  if (failed(rankedList(c, ts)))
    return failure();
  Shape shape;
  for (RankedTensorType t : ts) {
    if (t.getRank() > 1 || t.getElementType() != ts.front().getElementType())
      return c.fail("meshgrid needs 0-dim or 1-dim tensors of one dtype, got " + describe(t));
    shape.push_back(numel(t.getShape()));
  }
  for (RankedTensorType t : ts)
    c.produce(shape, t.getElementType());
  return success();
}

/// dstack (atleast_3d, cat on 2), row_stack (vstack: atleast_2d, cat on 0),
/// column_stack (0/1-dim tensors become columns, cat on 1).
LogicalResult stacks(RuleContext &c) {
  SmallVector<RankedTensorType> ts;
  if (failed(rankedList(c, ts)))
    return failure();
  StringRef name = c.getOp().getOpName();
  int64_t dim = name.contains("dstack") ? 2 : name.contains("row_stack") ? 0 : 1;
  ResultType rt;
  Shape shape;
  for (auto [i, t] : llvm::enumerate(ts)) {
    rt.add(t);
    Shape s = name.contains("dstack")      ? atLeast(t.getShape(), 3)
              : name.contains("row_stack") ? atLeast(t.getShape(), 2)
              : t.getRank() <= 1           ? Shape{numel(t.getShape()), 1}
                                           : Shape(t.getShape());
    if (i == 0) {
      shape = s;
      continue;
    }
    bool ok = s.size() == shape.size();
    for (size_t d = 0; ok && d < s.size(); ++d)
      ok = static_cast<int64_t>(d) == dim || s[d] == shape[d];
    if (!ok)
      return c.fail("tensors[" + llvm::Twine(i) + "] " + describe(t) +
                    " does not stack with the ones before it");
    shape[dim] = addSat(shape[dim], s[dim]);
  }
  return c.succeed(shape, rt.get());
}

/// repeat_interleave.self_Tensor: each element (of the flattened tensor, or
/// along `dim`) repeated by the matching entry of `repeats` (one entry
/// repeats all): the length is output_size, else data-dependent.
LogicalResult repeatInterleaveTensor(RuleContext &c, RankedTensorType t) {
  RankedTensorType reps;
  if (failed(c.require("repeats", reps)) || failed(c.requireRank("repeats", reps, 0, 1)))
    return failure();
  if (!isIntegral(reps.getElementType(), false))
    return c.fail("'repeats' must be an integer tensor, got " + describe(reps));
  int64_t size = kDataDependent;
  if (std::optional<int64_t> o = c.optInt("output_size"))
    size = *o;
  if (!c.optInt("dim"))
    return c.succeed({size}, t.getElementType());
  int64_t dim;
  if (failed(c.dimArg("dim", t.getRank(), dim)))
    return failure();
  Shape shape(t.getShape());
  if (shape.empty())
    shape.push_back(1);
  int64_t n = numel(reps.getShape());
  if (n != 1 && n != shape[dim])
    return c.fail("'repeats' " + describe(reps) + " must have one entry or one per element "
                  "of dim " + llvm::Twine(dim) + " of " + describe(t));
  shape[dim] = size;
  return c.succeed(shape, t.getElementType());
}

LogicalResult diag(RuleContext &c, RankedTensorType t) {
  int64_t o = c.getInt("diagonal");
  if (t.getRank() == 1) {
    int64_t n = addSat(t.getDimSize(0), std::abs(o));
    return c.succeed({n, n}, t.getElementType());
  }
  if (t.getRank() != 2)
    return c.fail("diag needs a 1-dim or 2-dim tensor, got " + describe(t));
  int64_t rows = t.getDimSize(0), cols = t.getDimSize(1);
  int64_t len = o >= 0 ? std::min(rows, cols - o) : std::min(rows + o, cols);
  return c.succeed({std::max<int64_t>(len, 0)}, t.getElementType());
}

/// diag_embed: the last dim becomes the diagonal (at `offset`) of the
/// planes (dim1, dim2) of a result one rank higher.
LogicalResult diagEmbed(RuleContext &c, RankedTensorType t) {
  if (failed(c.requireRank("self", t, 1, kMaxTensorRank - 1)))
    return failure();
  int64_t r = t.getRank() + 1, d1, d2;
  if (failed(c.wrapDim(c.getInt("dim1"), r, "dim1", d1)) ||
      failed(c.wrapDim(c.getInt("dim2"), r, "dim2", d2)))
    return failure();
  if (d1 == d2)
    return c.fail("diag_embed needs two different dims, got " + llvm::Twine(d1) + " twice");
  int64_t n = addSat(t.getShape().back(), std::abs(c.getInt("offset")));
  Shape shape(t.getShape().drop_back());
  for (int64_t d : {std::min(d1, d2), std::max(d1, d2)})
    shape.insert(shape.begin() + d, n);
  return c.succeed(shape, t.getElementType());
}

LogicalResult diagflat(RuleContext &c, RankedTensorType t) {
  int64_t n = addSat(numel(t.getShape()), std::abs(c.getInt("offset")));
  return c.succeed({n, n}, t.getElementType());
}

//===----------------------------------------------------------------------===//
// Indexing, sorting, counting
//===----------------------------------------------------------------------===//

/// take_along_dim: gather over `dim` after broadcasting self and indices in
/// every other dim; without `dim`, over the flattened self.
LogicalResult takeAlongDim(RuleContext &c, RankedTensorType t) {
  RankedTensorType idx;
  if (failed(c.require("indices", idx)))
    return failure();
  if (idx.getElementType() != c.i64())
    return c.fail("take_along_dim needs int64 indices, got " + describe(idx));
  if (!c.optInt("dim"))
    return c.succeed({numel(idx.getShape())}, t.getElementType());
  if (idx.getRank() != t.getRank())
    return c.fail("take_along_dim needs indices of the rank of self, got " + describe(idx) +
                  " for " + describe(t));
  int64_t dim;
  if (failed(c.dimArg("dim", t.getRank(), dim)))
    return failure();
  Shape a(t.getShape()), b(idx.getShape()), shape;
  if (!a.empty())
    a[dim] = b[dim] = 1;
  if (failed(c.broadcast({a, b}, {"self", "indices"}, shape)))
    return failure();
  if (!shape.empty())
    shape[dim] = idx.getDimSize(dim);
  return c.succeed(shape, t.getElementType());
}

LogicalResult argwhere(RuleContext &c, RankedTensorType t) {
  return c.succeed({kDataDependent, t.getRank()}, c.i64());
}

/// nonzero_static: [size, rank] int64.
LogicalResult nonzeroStatic(RuleContext &c, RankedTensorType t) {
  int64_t size = c.getInt("size");
  if (size < 0)
    return c.fail("nonzero_static needs a non-negative size, got " + llvm::Twine(size));
  return c.succeed({size, t.getRank()}, c.i64());
}

LogicalResult nonzeroNumpy(RuleContext &c, RankedTensorType t) {
  if (failed(c.checkPieces(std::max<int64_t>(t.getRank(), 1))))
    return failure();
  for (int64_t d = 0; d < std::max<int64_t>(t.getRank(), 1); ++d)
    c.produce({kDataDependent}, c.i64());
  return success();
}

} // namespace

void addCompositeShapeRules(RuleTable &t) {
  addRules(t, {"_pad_enum", "_pad_circular"}, onSelf<padEnum>);
  addRules(t, {"unsafe_split_with_sizes"}, onSelfAndDim<splitWithSizes>);
  addRules(t, {"unsafe_chunk"}, onSelfAndDim<unsafeChunk>);
  addRules(t, {"hsplit.int", "hsplit.array", "vsplit.int", "vsplit.array", "dsplit.int",
               "dsplit.array"},
           onSelf<hvdSplit>);
  addRules(t, {"fliplr", "flipud"}, onSelf<fliplrud>);
  addRules(t, {"rot90"}, onSelf<rot90>);
  addRules(t, {"channel_shuffle", "native_channel_shuffle"}, onSelf<channelShuffle>);
  addRules(t, {"movedim.int", "movedim.intlist", "moveaxis.int", "moveaxis.intlist"},
           onSelf<movedim>);
  addRules(t, {"swapaxes", "swapdims"}, onSelf<swapDims>);
  addRules(t, {"ravel"}, onSelf<ravel>);
  addRules(t, {"mT", "mH"}, onSelf<matrixTranspose<INT64_MAX>>);
  addRules(t, {"matrix_H"}, onSelf<matrixTranspose<2>>);
  addRules(t, {"linalg_diagonal"}, linalgDiagonal);
  addRules(t, {"broadcast_to"}, onSelf<broadcastTo>);
  addRules(t, {"atleast_1d", "atleast_2d", "atleast_3d"}, onSelf<atLeastNd>);
  addRules(t, {"atleast_1d.Sequence", "atleast_2d.Sequence", "atleast_3d.Sequence"},
           atLeastNdList);
  addRules(t, {"meshgrid"}, meshgridIj);
  addRules(t, {"dstack", "column_stack", "row_stack"}, stacks);
  addRules(t, {"repeat_interleave.self_Tensor"}, onSelf<repeatInterleaveTensor>);
  addRules(t, {"diag"}, onSelf<diag>);
  addRules(t, {"diag_embed"}, onSelf<diagEmbed>);
  addRules(t, {"diagflat"}, onSelf<diagflat>);
  addRules(t, {"take_along_dim"}, onSelf<takeAlongDim>);
  // Their decompositions check their types against the graph's.
  addRules(t, {"_unsafe_masked_index", "_unsafe_masked_index_put_accumulate", "embedding_bag",
               "embedding_bag.padding_idx", "tensor_split.tensor_indices_or_sections"},
           declaredResults);
  addRules(t, {"msort", "embedding_renorm"}, sameAsSelf);
  addRules(t, {"argwhere"}, onSelf<argwhere>);
  addRules(t, {"nonzero_numpy"}, onSelf<nonzeroNumpy>);
  addRules(t, {"nonzero_static"}, onSelf<nonzeroStatic>);
}

} // namespace ptec::exir::rules
