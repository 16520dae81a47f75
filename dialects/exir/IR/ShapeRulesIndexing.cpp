//===- ShapeRulesIndexing.cpp - indexing, gathers and scatters ------------===//
//
// Index tensors must be integers (int64 where PyTorch insists), index lists
// may not index more dims than a tensor has, scattered sources must fit the
// slice they replace. Values of index tensors are not known here; sizes that
// depend on them (boolean masks, nonzero) are left open.
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ShapeRulesSupport.h"

using namespace mlir;

namespace ptec::exir::rules {
namespace {

bool isIndexDtype(Type t) { return t.isInteger(64) || t.isInteger(32); }

LogicalResult requireIndex(RuleContext &c, StringRef name, RankedTensorType t,
                           bool int64Only, int64_t maxRank = kMaxTensorRank) {
  Type e = t.getElementType();
  if (int64Only ? !e.isInteger(64) : !isIndexDtype(e))
    return c.fail("'" + name + "' must be an " +
                  (int64Only ? "int64" : "int32 or int64") + " tensor, got " +
                  describe(t));
  return c.requireRank(name, t, 0, maxRank);
}

/// The shape x[indices] has (advanced indexing), or failure.
LogicalResult indexedShape(RuleContext &c, RankedTensorType self, Shape &out) {
  SmallVector<Value> indices = c.tensors("indices");
  if (static_cast<int64_t>(indices.size()) > self.getRank())
    return c.fail("too many indices (" + llvm::Twine(indices.size()) +
                  ") for a tensor of rank " + llvm::Twine(self.getRank()));
  // Each index as (first dim it indexes, its shape); masks index as many
  // dims as they have and select a data-dependent number of elements.
  SmallVector<int64_t> positions;
  SmallVector<Shape> shapes;
  int64_t dim = 0;
  for (auto [k, v] : llvm::enumerate(indices)) {
    if (!v) {
      ++dim;
      continue;
    }
    auto t = llvm::cast<RankedTensorType>(v.getType());
    Type e = t.getElementType();
    bool mask = isBool(e) || e.isUnsignedInteger(8);
    if (!mask && !isIndexDtype(e))
      return c.fail("index " + llvm::Twine(k) + " must be an int64, int32, bool or "
                    "uint8 tensor, got " + describe(t));
    int64_t span = mask ? std::max<int64_t>(t.getRank(), 1) : 1;
    if (dim + span > self.getRank())
      return c.fail("too many indices for a tensor of rank " + llvm::Twine(self.getRank()));
    if (mask) {
      for (int64_t i = 0; i < t.getRank(); ++i)
        if (t.getDimSize(i) != self.getDimSize(dim + i))
          return c.fail("the shape of mask " + llvm::Twine(k) + " " + describe(t) +
                        " does not match the indexed dims of " + describe(self));
      for (int64_t i = 0; i < span; ++i)
        positions.push_back(dim + i);
      shapes.push_back({kDataDependent});
    } else {
      positions.push_back(dim);
      shapes.push_back(Shape(t.getShape()));
    }
    dim += span;
  }
  if (shapes.empty()) {
    out.assign(self.getShape().begin(), self.getShape().end());
    return success();
  }
  // Broadcast the index shapes; a data-dependent dim stays open.
  size_t rank = 0;
  for (const Shape &s : shapes)
    rank = std::max(rank, s.size());
  Shape b(rank, 1);
  for (auto [k, s] : llvm::enumerate(shapes)) {
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t &o = b[rank - s.size() + i];
      int64_t d = s[i];
      if (d == kDataDependent || o == kDataDependent) {
        o = kDataDependent;
      } else if (o == 1) {
        o = d;
      } else if (d != 1 && d != o) {
        return c.fail("index shapes do not broadcast: " + describeShape(s) +
                      " against " + describeShape(b));
      }
    }
  }
  bool adjacent = positions.back() - positions.front() + 1 ==
                  static_cast<int64_t>(positions.size());
  auto rest = [&](int64_t from, int64_t to) {
    for (int64_t i = from; i < to; ++i)
      if (!llvm::is_contained(positions, i))
        out.push_back(self.getDimSize(i));
  };
  out.clear();
  if (adjacent) {
    rest(0, positions.front());
    out.append(b.begin(), b.end());
    rest(positions.back() + 1, self.getRank());
  } else {
    out.append(b.begin(), b.end());
    rest(0, self.getRank());
  }
  return success();
}

LogicalResult index(RuleContext &c, RankedTensorType self) {
  Shape shape;
  if (failed(indexedShape(c, self, shape)))
    return failure();
  return c.succeed(shape, self.getElementType());
}

/// Can `from` broadcast to `to`? Leading 1-dims of `from` may be dropped.
bool expandableTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  while (from.size() > to.size() && from.front() == 1)
    from = from.drop_front();
  if (from.size() > to.size())
    return false;
  for (size_t i = 0; i < from.size(); ++i) {
    int64_t f = from[from.size() - 1 - i], t = to[to.size() - 1 - i];
    if (f != 1 && t != kDataDependent && f != t)
      return false;
  }
  return true;
}

LogicalResult indexPut(RuleContext &c) {
  RankedTensorType self, values;
  Shape target;
  if (failed(c.require("self", self)) || failed(c.require("values", values)) ||
      failed(c.sameDtype("self", self, "values", values)) ||
      failed(indexedShape(c, self, target)))
    return failure();
  if (!expandableTo(values.getShape(), target))
    return c.fail("'values' " + describe(values) +
                  " cannot be broadcast to the indexed shape " + describeShape(target));
  return c.succeed(Spec::like(self));
}

LogicalResult indexSelect(RuleContext &c) {
  RankedTensorType self, idx;
  int64_t dim;
  if (failed(c.require("self", self)) || failed(c.require("index", idx)) ||
      failed(requireIndex(c, "index", idx, false, 1)) ||
      failed(c.dimArg("dim", self.getRank(), dim)))
    return failure();
  Shape shape(self.getShape());
  if (!shape.empty())
    shape[dim] = numel(idx.getShape());
  else if (numel(idx.getShape()) != 1)
    return c.fail("indexing a 0-dim tensor takes exactly one index");
  return c.succeed(shape, self.getElementType());
}

/// index_add/index_copy: source has self's shape except that dim `dim` has
/// one entry per index.
LogicalResult indexAddCopy(RuleContext &c) {
  RankedTensorType self, idx, src;
  int64_t dim;
  if (failed(c.require("self", self)) || failed(c.require("index", idx)) ||
      failed(c.require("source", src)) ||
      failed(requireIndex(c, "index", idx, !c.getOp().getOpName().contains("index_add"),
                          1)) ||
      failed(c.sameDtype("self", self, "source", src)) ||
      failed(c.dimArg("dim", self.getRank(), dim)))
    return failure();
  int64_t n = numel(idx.getShape());
  if (src.getRank() != self.getRank() && !(src.getRank() == 0 && self.getRank() <= 1) &&
      !(self.getRank() == 0 && src.getRank() <= 1))
    return c.fail("'source' " + describe(src) + " must have as many dims as 'self' " +
                  describe(self));
  if (src.getRank() == self.getRank() && self.getRank() > 0) {
    for (int64_t d = 0; d < self.getRank(); ++d) {
      int64_t want = d == dim ? n : self.getDimSize(d);
      if (src.getDimSize(d) != want)
        return c.fail("'source' " + describe(src) + " must have size " +
                      llvm::Twine(want) + " in dim " + llvm::Twine(d) +
                      " ('self' " + describe(self) + ", " + llvm::Twine(n) + " indices)");
    }
  }
  return c.succeed(Spec::like(self));
}

LogicalResult indexFill(RuleContext &c) {
  RankedTensorType self, idx, value = c.type("value");
  int64_t dim;
  if (failed(c.require("self", self)) || failed(c.require("index", idx)) ||
      failed(requireIndex(c, "index", idx, true, 1)) ||
      failed(c.dimArg("dim", self.getRank(), dim)))
    return failure();
  if (value && value.getRank() != 0)
    return c.fail("'value' must be a 0-dim tensor, got " + describe(value));
  return c.succeed(Spec::like(self));
}

LogicalResult gather(RuleContext &c) {
  RankedTensorType self, idx;
  int64_t dim;
  if (failed(c.require("self", self)) || failed(c.require("index", idx)) ||
      failed(requireIndex(c, "index", idx, true)) ||
      failed(c.dimArg("dim", self.getRank(), dim)))
    return failure();
  if (std::max<int64_t>(idx.getRank(), 1) != std::max<int64_t>(self.getRank(), 1))
    return c.fail("'index' " + describe(idx) + " must have as many dims as 'self' " +
                  describe(self));
  for (int64_t d = 0; d < idx.getRank() && idx.getRank() == self.getRank(); ++d)
    if (d != dim && idx.getDimSize(d) > self.getDimSize(d))
      return c.fail("'index' " + describe(idx) + " is larger than 'self' " +
                    describe(self) + " in dim " + llvm::Twine(d));
  return c.succeed(idx.getShape(), self.getElementType());
}

LogicalResult scatter(RuleContext &c) {
  RankedTensorType self, idx, src = c.type("src");
  int64_t dim;
  if (failed(c.require("self", self)) || failed(c.require("index", idx)) ||
      failed(requireIndex(c, "index", idx, true)) ||
      failed(c.dimArg("dim", self.getRank(), dim)) ||
      (src && failed(c.sameDtype("self", self, "src", src))))
    return failure();
  if (std::optional<std::string> reduce = c.str("reduce")) {
    bool two = c.getOp().getOpName().contains("scatter_reduce");
    bool ok = two ? llvm::is_contained({"sum", "prod", "mean", "amax", "amin"}, *reduce)
                  : llvm::is_contained({"add", "multiply"}, *reduce);
    if (!ok)
      return c.fail("unknown reduce '" + *reduce + "'");
  }
  int64_t rank = std::max<int64_t>(self.getRank(), 1);
  if (numel(idx.getShape()) != 0) {
    if (std::max<int64_t>(idx.getRank(), 1) != rank ||
        (src && std::max<int64_t>(src.getRank(), 1) != rank))
      return c.fail("'self', 'index' and 'src' must have the same number of dims");
    for (int64_t d = 0; d < idx.getRank() && idx.getRank() == self.getRank(); ++d) {
      if (src && src.getRank() == idx.getRank() && idx.getDimSize(d) > src.getDimSize(d))
        return c.fail("'index' " + describe(idx) + " is larger than 'src' " +
                      describe(src) + " in dim " + llvm::Twine(d));
      if (d != dim && idx.getDimSize(d) > self.getDimSize(d))
        return c.fail("'index' " + describe(idx) + " is larger than 'self' " +
                      describe(self) + " in dim " + llvm::Twine(d));
    }
  }
  return c.succeed(Spec::like(self));
}

/// slice/select/diagonal/as_strided_scatter: `src` must have the shape of
/// the part of `self` it replaces, which the view op of the same arguments
/// computes. `view` is that op's rule.
template <LogicalResult (*View)(RuleContext &)>
LogicalResult viewScatter(RuleContext &c) {
  RankedTensorType self, src;
  if (failed(c.require("self", self)) || failed(c.require("src", src)) ||
      failed(View(c)))
    return failure();
  Spec part = c.results.pop_back_val();
  if (part.rankKnown && ArrayRef<int64_t>(part.shape) != src.getShape())
    return c.fail("'src' " + describe(src) + " must have the shape of the part of " +
                  describe(self) + " it replaces, " + describeShape(part.shape));
  return c.succeed(Spec::like(self));
}

LogicalResult take(RuleContext &c) {
  RankedTensorType self, idx;
  if (failed(c.require("self", self)) || failed(c.require("index", idx)) ||
      failed(requireIndex(c, "index", idx, true)))
    return failure();
  return c.succeed(idx.getShape(), self.getElementType());
}

/// put(self, index, source): int64 index, source of self's dtype with one
/// element per index; self's type.
LogicalResult put(RuleContext &c) {
  RankedTensorType self, idx, src;
  if (failed(c.require("self", self)) || failed(c.require("index", idx)) ||
      failed(c.require("source", src)) || failed(requireIndex(c, "index", idx, true)) ||
      failed(c.sameDtype("self", self, "source", src)))
    return failure();
  if (numel(idx.getShape()) != numel(src.getShape()))
    return c.fail("'source' " + describe(src) + " must have one element per index " +
                  describe(idx));
  return c.succeed(Spec::like(self));
}

LogicalResult nonzero(RuleContext &c, RankedTensorType self) {
  return c.succeed({kDataDependent, self.getRank()}, c.i64());
}

LogicalResult maskedSelect(RuleContext &c) {
  RankedTensorType self, mask;
  Shape unused;
  if (failed(c.require("self", self)) || failed(c.require("mask", mask)) ||
      failed(c.broadcast({self.getShape(), mask.getShape()}, {"self", "mask"}, unused)))
    return failure();
  if (!isBool(mask.getElementType()))
    return c.fail("'mask' must be a bool tensor, got " + describe(mask));
  return c.succeed({kDataDependent}, self.getElementType());
}

LogicalResult maskedScatter(RuleContext &c) {
  RankedTensorType self, mask, source;
  Shape shape;
  if (failed(c.require("self", self)) || failed(c.require("mask", mask)) ||
      failed(c.require("source", source)) ||
      failed(c.sameDtype("self", self, "source", source)) ||
      failed(c.broadcast({self.getShape(), mask.getShape()}, {"self", "mask"}, shape)))
    return failure();
  if (!isBool(mask.getElementType()))
    return c.fail("'mask' must be a bool tensor, got " + describe(mask));
  return c.succeed(shape, self.getElementType());
}

LogicalResult embedding(RuleContext &c) {
  RankedTensorType w, idx;
  if (failed(c.require("weight", w)) || failed(c.require("indices", idx)) ||
      failed(c.requireRank("weight", w, 2, 2)) ||
      failed(requireIndex(c, "indices", idx, false, kMaxTensorRank - 1)))
    return failure();
  Shape shape(idx.getShape());
  shape.push_back(w.getDimSize(1));
  return c.succeed(shape, w.getElementType());
}

LogicalResult embeddingBackward(RuleContext &c) {
  RankedTensorType g, idx;
  if (failed(c.require("grad_output", g)) || failed(c.require("indices", idx)) ||
      failed(c.requireRank("grad_output", g, 1, kMaxTensorRank)) ||
      failed(requireIndex(c, "indices", idx, false)))
    return failure();
  return c.succeed({c.getInt("num_weights"), g.getShape().back()}, g.getElementType());
}

LogicalResult embeddingBag(RuleContext &c) {
  RankedTensorType w, idx, offsets;
  if (failed(c.require("weight", w)) || failed(c.require("indices", idx)) ||
      failed(c.require("offsets", offsets)) || failed(c.requireRank("weight", w, 2, 2)) ||
      failed(requireIndex(c, "indices", idx, false, 2)) ||
      failed(c.requireRank("offsets", offsets, 1, 1)))
    return failure();
  int64_t mode = c.getInt("mode");
  if (mode < 0 || mode > 2)
    return c.fail("mode must be 0 (sum), 1 (mean) or 2 (max), got " + llvm::Twine(mode));
  int64_t bags = idx.getRank() == 2
                     ? idx.getDimSize(0)
                     : offsets.getDimSize(0) - (c.getBool("include_last_offset") ? 1 : 0);
  c.produce({bags, w.getDimSize(1)}, w.getElementType());
  for (int i = 0; i < 3; ++i) // offset2bag, bag_size, max_indices
    c.produce(Spec::anyRank(idx.getElementType()));
  return success();
}

LogicalResult oneHot(RuleContext &c, RankedTensorType self) {
  if (!self.getElementType().isInteger(64))
    return c.fail("one_hot needs an int64 tensor, got " + describe(self));
  int64_t n = c.getInt("num_classes");
  if (n < -1)
    return c.fail("num_classes must be -1 or non-negative, got " + llvm::Twine(n));
  Shape shape(self.getShape());
  shape.push_back(n == -1 ? kDataDependent : n);
  return c.succeed(shape, c.i64());
}

} // namespace

void addIndexingRules(RuleTable &t) {
  addRules(t, {"index.Tensor", "_unsafe_index.Tensor"}, onSelf<index>);
  addRules(t, {"index_put", "_unsafe_index_put", "_index_put_impl_"}, indexPut);
  addRules(t, {"index_select"}, indexSelect);
  addRules(t, {"index_add", "index_copy", "index_reduce"}, indexAddCopy);
  addRules(t, {"index_fill.int_Scalar", "index_fill.int_Tensor"}, indexFill);
  addRules(t, {"gather"}, gather);
  addRules(t, {"scatter.src", "scatter.value", "scatter.reduce", "scatter.value_reduce",
               "scatter_add", "scatter_reduce.two"},
           scatter);
  addRules(t, {"slice_scatter"}, viewScatter<sliceRule>);
  addRules(t, {"select_scatter"}, viewScatter<selectRule>);
  addRules(t, {"diagonal_scatter"}, viewScatter<diagonalRule>);
  addRules(t, {"as_strided_scatter"}, viewScatter<asStridedRule>);
  addRules(t, {"take"}, take);
  addRules(t, {"put"}, put);
  addRules(t, {"nonzero"}, onSelf<nonzero>);
  addRules(t, {"masked_select"}, maskedSelect);
  addRules(t, {"masked_scatter"}, maskedScatter);
  addRules(t, {"embedding"}, embedding);
  addRules(t, {"embedding_dense_backward"}, embeddingBackward);
  addRules(t, {"_embedding_bag"}, embeddingBag);
  addRules(t, {"one_hot"}, onSelf<oneHot>);
}

} // namespace ptec::exir::rules
