//===- ShapeRulesSplitJoin.cpp - splits, joins and repeats ----------------===//
//
// Ops that cut a tensor into pieces (split, chunk, tensor_split, unbind) or
// put pieces together (cat, stack, hstack/vstack, broadcast_tensors,
// meshgrid), and the repeats, flips and rolls. Like the views of
// ShapeRulesView.cpp they compute nothing and keep the dtype (cat and stack
// promote); splits add up to the dim. Their shapes follow from several
// tensors or pieces, so they are a family of their own.
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ShapeRulesSupport.h"

#include <algorithm>

using namespace mlir;

namespace ptec::exir::rules {
namespace {

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

/// Pieces of `each` along `dim`, the last one taking the rest; at least one
/// piece (`each` is 0 only for an empty dim). split.Tensor and chunk.
LogicalResult produceEqualPieces(RuleContext &c, RankedTensorType t, int64_t dim,
                                 int64_t each) {
  int64_t size = t.getDimSize(dim);
  int64_t n = each == 0 ? 1 : std::max<int64_t>(addSat(size, each - 1) / each, 1);
  if (failed(c.checkPieces(n)))
    return failure();
  Shape sizes(n, each);
  sizes.back() = size - each * (n - 1);
  producePieces(c, t, dim, sizes);
  return success();
}

LogicalResult split(RuleContext &c, RankedTensorType t, int64_t dim) {
  int64_t size = t.getDimSize(dim);
  if (std::optional<int64_t> each = c.optInt("split_size")) {
    if (*each < 0 || (*each == 0 && size != 0))
      return c.fail("split_size " + llvm::Twine(*each) + " cannot split dim " +
                    llvm::Twine(dim) + " of size " + llvm::Twine(size));
    return produceEqualPieces(c, t, dim, *each);
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

LogicalResult chunk(RuleContext &c, RankedTensorType t, int64_t dim) {
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
  return produceEqualPieces(c, t, dim, each);
}

LogicalResult tensorSplit(RuleContext &c, RankedTensorType t, int64_t dim) {
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

LogicalResult unbind(RuleContext &c, RankedTensorType t, int64_t dim) {
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
  if (kept.empty())
    return c.succeed({0}, rt.get());
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
  return c.succeed(shape, rt.get());
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
  return c.succeed(shape, rt.get());
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

LogicalResult repeat(RuleContext &c, RankedTensorType t) {
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
  return c.succeed(shape, t.getElementType());
}

LogicalResult repeatInterleave(RuleContext &c) {
  std::optional<int64_t> outputSize = c.optInt("output_size");
  if (RankedTensorType reps = c.type("repeats")) { // the Tensor overload
    if (failed(c.requireRank("repeats", reps, 0, 1)))
      return failure();
    if (!isIntegral(reps.getElementType(), false))
      return c.fail("'repeats' must be an integer tensor, got " + describe(reps));
    return c.succeed({outputSize.value_or(kDataDependent)}, reps.getElementType());
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
  return c.succeed(shape, t.getElementType());
}

LogicalResult flip(RuleContext &c, RankedTensorType t) {
  Shape dims;
  if (failed(c.wrapDims(c.getInts("dims"), t.getRank(), "dims", dims)))
    return failure();
  return c.succeed(Spec::like(t));
}

LogicalResult roll(RuleContext &c, RankedTensorType t) {
  Shape shifts = c.getInts("shifts"), dims = c.getInts("dims"), wrapped;
  if (dims.empty() ? shifts.size() != 1 : shifts.size() != dims.size())
    return c.fail("shifts " + describeShape(shifts) + " and dims " +
                  describeShape(dims) + " must align");
  if (failed(c.wrapDims(dims, t.getRank(), "dims", wrapped, /*allowDuplicates=*/true)))
    return failure();
  return c.succeed(Spec::like(t));
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

void addSplitJoinRules(RuleTable &t) {

  addRules(t, {"split.Tensor", "split.sizes", "split_copy.Tensor", "split_with_sizes",
               "split_with_sizes_copy", "unsafe_split.Tensor"},
           onSelfAndDim<split>);
  addRules(t, {"chunk"}, onSelfAndDim<chunk>);
  addRules(t, {"tensor_split.sections", "tensor_split.indices"}, onSelfAndDim<tensorSplit>);
  addRules(t, {"unbind.int", "unbind_copy.int"}, onSelfAndDim<unbind>);
  addRules(t, {"cat", "concat", "concatenate"}, cat);
  addRules(t, {"stack"}, stack);
  addRules(t, {"hstack", "vstack"}, hvstack);
  addRules(t, {"repeat", "tile"}, onSelf<repeat>);
  addRules(t, {"repeat_interleave.self_int", "repeat_interleave.Tensor"},
           repeatInterleave);
  addRules(t, {"flip"}, onSelf<flip>);
  addRules(t, {"roll"}, onSelf<roll>);
  addRules(t, {"broadcast_tensors"}, broadcastTensors);
  addRules(t, {"meshgrid.indexing"}, meshgrid);
}

} // namespace ptec::exir::rules
