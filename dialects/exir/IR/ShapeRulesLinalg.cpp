//===- ShapeRulesLinalg.cpp - matrix products and attention ---------------===//
//
// Inner dims agree, batch dims agree (bmm) or broadcast (matmul), operands
// share a dtype, and the added term of addmm/baddbmm/addmv broadcasts to
// the product. einsum equations are parsed and checked against the operand
// ranks and sizes.
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ShapeRulesSupport.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace ptec::exir::rules {
namespace {

LogicalResult matrices(RuleContext &c, StringRef a, StringRef b, int64_t rank,
                       RankedTensorType &at, RankedTensorType &bt) {
  if (failed(c.require(a, at)) || failed(c.require(b, bt)) ||
      failed(c.requireRank(a, at, rank, rank)) || failed(c.requireRank(b, bt, rank, rank)) ||
      failed(c.sameDtype(a, at, b, bt)))
    return failure();
  if (rank == 3 && at.getDimSize(0) != bt.getDimSize(0))
    return c.fail("'" + a + "' " + describe(at) + " and '" + b + "' " + describe(bt) +
                  " must have the same number of batches");
  if (at.getShape().back() != bt.getDimSize(rank - 2))
    return c.fail("'" + a + "' " + describe(at) + " and '" + b + "' " + describe(bt) +
                  " cannot be multiplied: inner dims " +
                  llvm::Twine(at.getShape().back()) + " and " +
                  llvm::Twine(bt.getDimSize(rank - 2)) + " differ");
  return success();
}

/// `added` (the self of addmm/baddbmm/addmv) must broadcast to `shape`.
LogicalResult addedTerm(RuleContext &c, ArrayRef<int64_t> shape, Type dtype) {
  RankedTensorType self;
  if (failed(c.require("self", self)))
    return failure();
  Shape b;
  if (failed(c.broadcast({self.getShape(), shape}, {"self", "product"}, b)))
    return failure();
  if (ArrayRef<int64_t>(b) != shape)
    return c.fail("'self' " + describe(self) + " does not broadcast to the product shape " +
                  describeShape(shape));
  if (self.getElementType() != dtype)
    return c.fail("'self' " + describe(self) + " must have the dtype of the product, " +
                  dtypeName(dtype));
  return c.succeed(shape, dtype);
}

LogicalResult mm(RuleContext &c) {
  RankedTensorType a, b;
  if (failed(matrices(c, "self", "mat2", 2, a, b)))
    return failure();
  return c.succeed({a.getDimSize(0), b.getDimSize(1)}, a.getElementType());
}

LogicalResult bmm(RuleContext &c) {
  RankedTensorType a, b;
  if (failed(matrices(c, "self", "mat2", 3, a, b)))
    return failure();
  return c.succeed({a.getDimSize(0), a.getDimSize(1), b.getDimSize(2)}, a.getElementType());
}

LogicalResult addmm(RuleContext &c) {
  RankedTensorType a, b;
  if (failed(matrices(c, "mat1", "mat2", 2, a, b)))
    return failure();
  return addedTerm(c, {a.getDimSize(0), b.getDimSize(1)}, a.getElementType());
}

LogicalResult baddbmm(RuleContext &c) {
  RankedTensorType a, b;
  if (failed(matrices(c, "batch1", "batch2", 3, a, b)))
    return failure();
  return addedTerm(c, {a.getDimSize(0), a.getDimSize(1), b.getDimSize(2)},
                   a.getElementType());
}

LogicalResult matVec(RuleContext &c, StringRef m, StringRef v, RankedTensorType &mt) {
  RankedTensorType vt;
  if (failed(c.require(m, mt)) || failed(c.require(v, vt)) ||
      failed(c.requireRank(m, mt, 2, 2)) || failed(c.requireRank(v, vt, 1, 1)) ||
      failed(c.sameDtype(m, mt, v, vt)))
    return failure();
  if (mt.getDimSize(1) != vt.getDimSize(0))
    return c.fail("'" + m + "' " + describe(mt) + " and '" + v + "' " + describe(vt) +
                  " cannot be multiplied");
  return success();
}

LogicalResult mv(RuleContext &c) {
  RankedTensorType m;
  if (failed(matVec(c, "self", "vec", m)))
    return failure();
  return c.succeed({m.getDimSize(0)}, m.getElementType());
}

LogicalResult addmv(RuleContext &c) {
  RankedTensorType m;
  if (failed(matVec(c, "mat", "vec", m)))
    return failure();
  return addedTerm(c, {m.getDimSize(0)}, m.getElementType());
}

LogicalResult dot(RuleContext &c) {
  RankedTensorType a, b;
  if (failed(c.require("self", a)) || failed(c.require("tensor", b)) ||
      failed(c.requireRank("self", a, 1, 1)) || failed(c.requireRank("tensor", b, 1, 1)) ||
      failed(c.sameDtype("self", a, "tensor", b)))
    return failure();
  if (a.getDimSize(0) != b.getDimSize(0))
    return c.fail("dot needs vectors of one length, got " + describe(a) + " and " +
                  describe(b));
  return c.succeed({}, a.getElementType());
}

LogicalResult outer(RuleContext &c) {
  RankedTensorType a, b;
  if (failed(c.require("self", a)) || failed(c.require("vec2", b)) ||
      failed(c.requireRank("self", a, 1, 1)) || failed(c.requireRank("vec2", b, 1, 1)))
    return failure();
  ResultType rt;
  rt.add(a);
  rt.add(b);
  return c.succeed({a.getDimSize(0), b.getDimSize(0)}, rt.get());
}

LogicalResult matmul(RuleContext &c) {
  RankedTensorType a, b;
  if (failed(c.require("self", a)) || failed(c.require("other", b)) ||
      failed(c.requireRank("self", a, 1, kMaxTensorRank)) ||
      failed(c.requireRank("other", b, 1, kMaxTensorRank)) ||
      failed(c.sameDtype("self", a, "other", b)))
    return failure();
  Shape as(a.getShape()), bs(b.getShape());
  bool vecA = as.size() == 1, vecB = bs.size() == 1;
  if (vecA)
    as.insert(as.begin(), 1);
  if (vecB)
    bs.push_back(1);
  if (as.back() != bs[bs.size() - 2])
    return c.fail("'self' " + describe(a) + " and 'other' " + describe(b) +
                  " cannot be multiplied: inner dims " + llvm::Twine(as.back()) +
                  " and " + llvm::Twine(bs[bs.size() - 2]) + " differ");
  Shape batch;
  if (failed(c.broadcast({ArrayRef<int64_t>(as).drop_back(2),
                          ArrayRef<int64_t>(bs).drop_back(2)},
                         {"self", "other"}, batch)))
    return failure();
  Shape shape = batch;
  if (!vecA)
    shape.push_back(as[as.size() - 2]);
  if (!vecB)
    shape.push_back(bs.back());
  return c.succeed(shape, a.getElementType());
}

LogicalResult linear(RuleContext &c) {
  RankedTensorType in, w, bias = c.type("bias");
  if (failed(c.require("input", in)) || failed(c.require("weight", w)) ||
      failed(c.requireRank("input", in, 1, kMaxTensorRank)) ||
      failed(c.requireRank("weight", w, 1, 2)) || failed(c.sameDtype("input", in, "weight", w)))
    return failure();
  int64_t k = w.getShape().back();
  if (in.getShape().back() != k)
    return c.fail("'input' " + describe(in) + " and 'weight' " + describe(w) +
                  " cannot be multiplied: " + llvm::Twine(in.getShape().back()) +
                  " input features, weight takes " + llvm::Twine(k));
  Shape shape(in.getShape().drop_back());
  if (w.getRank() == 2)
    shape.push_back(w.getDimSize(0));
  if (bias) {
    Shape b;
    if (failed(c.sameDtype("input", in, "bias", bias)) ||
        failed(c.broadcast({bias.getShape(), shape}, {"bias", "product"}, b)))
      return failure();
    if (ArrayRef<int64_t>(b) != ArrayRef<int64_t>(shape))
      return c.fail("'bias' " + describe(bias) + " does not broadcast to the output " +
                    describeShape(shape));
  }
  return c.succeed(shape, in.getElementType());
}

/// einsum: one term of labels per operand ("..." stands for broadcast dims),
/// the output given after "->" or implied (ellipsis dims, then the labels
/// used once, in ASCII order).
LogicalResult einsum(RuleContext &c) {
  std::optional<std::string> eq = c.str("equation");
  SmallVector<Value> operands = c.tensors("tensors");
  if (!eq)
    return c.fail("einsum needs an equation");
  std::string text;
  for (char ch : *eq)
    if (ch != ' ')
      text += ch;
  StringRef lhs = text, rhs;
  bool explicitOut = StringRef(text).contains("->");
  if (explicitOut)
    std::tie(lhs, rhs) = StringRef(text).split("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != operands.size())
    return c.fail("the equation '" + *eq + "' has " + llvm::Twine(terms.size()) +
                  " operand terms, but " + llvm::Twine(operands.size()) +
                  " tensors are given");
  llvm::DenseMap<char, int64_t> sizes, uses;
  Shape ellipsis;
  bool anyEllipsis = false;
  ResultType rt;
  auto mergeSize = [&](int64_t &have, int64_t d) {
    if (have == 1 || have == d)
      have = d;
    else if (d != 1)
      return false;
    return true;
  };
  for (auto [term, v] : llvm::zip(terms, operands)) {
    auto t = llvm::cast<RankedTensorType>(v.getType());
    rt.add(t);
    bool hasEllipsis = term.contains("...");
    StringRef before = term, after;
    if (hasEllipsis)
      std::tie(before, after) = term.split("...");
    int64_t labels = before.size() + after.size();
    if (labels > t.getRank() || (!hasEllipsis && labels != t.getRank()))
      return c.fail("the term '" + term + "' does not fit the operand " + describe(t));
    int64_t ell = t.getRank() - labels;
    auto label = [&](char ch, int64_t d) -> LogicalResult {
      if (!llvm::isAlpha(ch))
        return c.fail("invalid label '" + llvm::Twine(ch) + "' in equation '" + *eq + "'");
      auto [it, fresh] = sizes.try_emplace(ch, d);
      ++uses[ch];
      if (!fresh && !mergeSize(it->second, d))
        return c.fail("label '" + llvm::Twine(ch) + "' has sizes " +
                      llvm::Twine(it->second) + " and " + llvm::Twine(d));
      return success();
    };
    for (auto [i, ch] : llvm::enumerate(before))
      if (failed(label(ch, t.getDimSize(i))))
        return failure();
    for (auto [i, ch] : llvm::enumerate(after))
      if (failed(label(ch, t.getDimSize(before.size() + ell + i))))
        return failure();
    if (hasEllipsis) {
      anyEllipsis = true;
      ArrayRef<int64_t> dims = t.getShape().slice(before.size(), ell);
      Shape merged;
      if (failed(c.broadcast({ellipsis, dims}, {"...", term}, merged)))
        return failure();
      ellipsis = merged;
    }
  }
  Shape shape;
  if (explicitOut) {
    StringRef before = rhs, after;
    bool outEllipsis = rhs.contains("...");
    if (outEllipsis)
      std::tie(before, after) = rhs.split("...");
    auto add = [&](StringRef part) -> LogicalResult {
      for (char ch : part) {
        if (!sizes.count(ch))
          return c.fail("output label '" + llvm::Twine(ch) + "' is not in any operand");
        shape.push_back(sizes[ch]);
      }
      return success();
    };
    if (failed(add(before)))
      return failure();
    if (outEllipsis)
      shape.append(ellipsis.begin(), ellipsis.end());
    if (failed(add(after)))
      return failure();
  } else {
    if (anyEllipsis)
      shape.append(ellipsis.begin(), ellipsis.end());
    SmallVector<char> once;
    for (auto &[ch, n] : uses)
      if (n == 1)
        once.push_back(ch);
    llvm::sort(once);
    for (char ch : once)
      shape.push_back(sizes[ch]);
  }
  return c.succeed(shape, rt.get());
}

LogicalResult cdist(RuleContext &c) {
  RankedTensorType a, b;
  if (failed(c.require("x1", a)) || failed(c.require("x2", b)) ||
      failed(c.requireRank("x1", a, 2, kMaxTensorRank)) ||
      failed(c.requireRank("x2", b, 2, kMaxTensorRank)))
    return failure();
  if (a.getShape().back() != b.getShape().back())
    return c.fail("'x1' " + describe(a) + " and 'x2' " + describe(b) +
                  " must have the same number of columns");
  if (c.getFloat("p") < 0)
    return c.fail("p must be non-negative");
  Shape batch;
  if (failed(c.broadcast({a.getShape().drop_back(2), b.getShape().drop_back(2)},
                         {"x1", "x2"}, batch)))
    return failure();
  batch.push_back(a.getDimSize(a.getRank() - 2));
  batch.push_back(b.getDimSize(b.getRank() - 2));
  return c.succeed(batch, a.getElementType());
}

LogicalResult pdist(RuleContext &c, RankedTensorType t) {
  if (failed(c.requireRank("self", t, 2, 2)))
    return failure();
  if (c.getFloat("p") < 0)
    return c.fail("p must be non-negative");
  int64_t n = t.getDimSize(0);
  return c.succeed({n <= 1 ? 0 : mulSat(n, n - 1) / 2}, t.getElementType());
}

LogicalResult fftR2c(RuleContext &c, RankedTensorType t) {
  Shape dims;
  if (failed(c.wrapDims(c.getInts("dim"), t.getRank(), "dim", dims)))
    return failure();
  if (!isFloating(t.getElementType()))
    return c.fail("_fft_r2c needs a floating tensor, got " + describe(t));
  Shape shape(t.getShape());
  if (c.getBool("onesided") && !dims.empty())
    shape[dims.back()] = shape[dims.back()] / 2 + 1;
  return c.succeed(shape, toComplexType(t.getElementType()));
}

LogicalResult attention(RuleContext &c) {
  RankedTensorType q, k, v, mask = c.type("attn_mask");
  if (failed(c.require("query", q)) || failed(c.require("key", k)) ||
      failed(c.require("value", v)) || failed(c.requireRank("query", q, 2, kMaxTensorRank)) ||
      failed(c.requireRank("key", k, 2, kMaxTensorRank)) ||
      failed(c.requireRank("value", v, 2, kMaxTensorRank)) ||
      failed(c.sameDtype("query", q, "key", k)) || failed(c.sameDtype("query", q, "value", v)))
    return failure();
  int64_t s = k.getDimSize(k.getRank() - 2);
  if (q.getShape().back() != k.getShape().back())
    return c.fail("'query' " + describe(q) + " and 'key' " + describe(k) +
                  " must have the same embedding size");
  if (v.getDimSize(v.getRank() - 2) != s)
    return c.fail("'key' " + describe(k) + " and 'value' " + describe(v) +
                  " must have the same sequence length");
  double p = c.getFloat("dropout_p");
  if (p < 0 || p >= 1)
    return c.fail("dropout_p must be in [0, 1), got " + num(p));
  Shape shape(q.getShape().drop_back());
  shape.push_back(v.getShape().back());
  if (mask) {
    Type e = mask.getElementType();
    if (!isBool(e) && e != q.getElementType())
      return c.fail("'attn_mask' must be bool or have the dtype of 'query', got " +
                    describe(mask));
    Shape scores(q.getShape().drop_back()), b;
    scores.push_back(s);
    if (failed(c.broadcast({mask.getShape(), scores}, {"attn_mask", "scores"}, b)))
      return failure();
  }
  c.produce(shape, q.getElementType());
  if (c.getOp().getOpName().contains("flash_attention")) {
    Type e = q.getElementType();
    c.produce(ArrayRef<int64_t>(shape).drop_back(), e.isF64() ? e : c.f32());
  }
  return success();
}

} // namespace

void addLinalgRules(RuleTable &t) {
  addRules(t, {"mm"}, mm);
  addRules(t, {"bmm"}, bmm);
  addRules(t, {"addmm"}, addmm);
  addRules(t, {"baddbmm"}, baddbmm);
  addRules(t, {"mv"}, mv);
  addRules(t, {"addmv"}, addmv);
  addRules(t, {"dot"}, dot);
  addRules(t, {"outer"}, outer);
  addRules(t, {"matmul"}, matmul);
  addRules(t, {"linear"}, linear);
  addRules(t, {"einsum"}, einsum);
  addRules(t, {"_cdist_forward"}, cdist);
  addRules(t, {"_pdist_forward"}, onSelf<pdist>);
  addRules(t, {"_fft_r2c"}, onSelf<fftR2c>);
  addRules(t, {"scaled_dot_product_attention",
               "_scaled_dot_product_flash_attention_for_cpu"},
           attention);
}

} // namespace ptec::exir::rules
