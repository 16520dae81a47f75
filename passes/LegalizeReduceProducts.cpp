//===- LegalizeReduceProducts.cpp - matrix products, einsum, attention ----===//
//
// legalize-to-core-aten rewrites of the product family: the add*mm forms
// (baddbmm, addbmm, addmv, addr), vector and tensor products (outer, dot,
// mv, inner, tensordot, kron, bilinear, multi_dot, vecdot, cross), einsum
// (diagonals for repeated labels, sums for labels used once, then pairwise
// bmm over batch/free/contracted labels), the distances (cdist and pdist
// have kernels; cosine similarity, pairwise distance and the matmul-based
// euclidean distance are composed) and scaled dot-product attention (the
// math backend, with PyTorch's zeros for fully masked rows). Every product
// ends in mm or bmm, so XNNPACK can take it.
//
//===----------------------------------------------------------------------===//

#include "passes/LegalizeReduce.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <limits>

namespace ptec::legalize::reduce {
namespace {

//===----------------------------------------------------------------------===//
// add*mm forms
//===----------------------------------------------------------------------===//

/// beta * self + alpha * product (self ignored, NaNs included, when beta is
/// 0; integer results take integral beta/alpha), torch/_decomp's order.
Value addScaled(Emit &e, Value self, Value product, double beta, double alpha) {
  if (!isFloatType(dtypeOf(product))) {
    beta = std::trunc(beta);
    alpha = std::trunc(alpha);
  }
  if (alpha != 1)
    product = e.mulS(product, alpha);
  if (beta == 0)
    return e.expand(product, shapeOf(product));
  if (beta != 1)
    self = e.mulS(self, beta);
  return e.add(self, product);
}

double betaOf(Legalizer &L) { return scalarArg(L.op, "beta").value_or(1.0); }
double alphaOf(Legalizer &L) { return scalarArg(L.op, "alpha").value_or(1.0); }

LogicalResult baddbmm(Legalizer &L) {
  Emit e(L);
  Value p = e.bmm(L.operand("batch1"), L.operand("batch2"));
  return e.done({e.cast(addScaled(e, L.operand("self"), p, betaOf(L), alphaOf(L)),
                        L.resultType().getElementType())});
}

/// addbmm: the batch products summed over the batch. (ATen's CPU loop
/// accumulates one addmm per batch; the sums round differently, by a few
/// ulps of the largest partial sum.)
LogicalResult addbmm(Legalizer &L) {
  Emit e(L);
  Value p = e.sum(e.bmm(L.operand("batch1"), L.operand("batch2")), {0}, false,
                  dtypeOf(L.operand("batch1")));
  return e.done({addScaled(e, L.operand("self"), p, betaOf(L), alphaOf(L))});
}

LogicalResult addmv(Legalizer &L) {
  Emit e(L);
  Value p = e.matmul(L.operand("mat"), L.operand("vec"));
  return e.done({addScaled(e, L.operand("self"), p, betaOf(L), alphaOf(L))});
}

/// outer(a, b) = a[:, None] * b[None, :] (PyTorch's own definition).
Value outer(Emit &e, Value a, Value b) {
  if (e.failed)
    return {};
  Value row = e.view(b, {1, shapeOf(b)[0]});
  return e.mul(e.view(a, {shapeOf(a)[0], 1}), row);
}

LogicalResult addr(Legalizer &L) {
  Emit e(L);
  Value self = L.operand("self");
  Type rt = L.resultType().getElementType();
  Value p = outer(e, L.operand("vec1"), L.operand("vec2"));
  if (isBoolType(rt)) {
    // Booleans: beta and alpha are truth values (torch/_refs).
    bool beta = betaOf(L) != 0, alpha = alphaOf(L) != 0;
    ArrayRef<int64_t> shape = L.resultType().getShape();
    Value prod = alpha ? p : e.full(shape, 0, rt);
    if (!beta)
      return e.done({e.expand(prod, shape)});
    return e.done({e.op("aten::logical_or", {e.expand(self, shape), prod})});
  }
  Value pr = e.cast(p, rt);
  return e.done({e.cast(addScaled(e, e.cast(self, rt), pr, betaOf(L), alphaOf(L)), rt)});
}

//===----------------------------------------------------------------------===//
// Vector and tensor products
//===----------------------------------------------------------------------===//

LogicalResult outerRule(Legalizer &L) {
  Emit e(L);
  return e.done({outer(e, L.operand("self"), L.operand("vec2"))});
}

/// dot/vdot of real vectors: the sum of products in the vectors' dtype.
LogicalResult dot(Legalizer &L) {
  Emit e(L);
  Value a = L.operand("self"), b = L.operand("tensor") ? L.operand("tensor") : L.operand("other");
  return e.done({e.sum(e.mul(a, b), {0}, false, dtypeOf(a))});
}

LogicalResult mv(Legalizer &L) {
  Emit e(L);
  return e.done({e.matmul(L.operand("self"), L.operand("vec"))});
}

LogicalResult matmulRule(Legalizer &L) {
  Emit e(L);
  return e.done({e.matmul(L.operand("self"), L.operand("other"))});
}

/// Contracts dims `da` of `a` with dims `db` of `b`: the free dims of a,
/// then those of b (tensordot).
Value tensordot(Emit &e, Value a, Value b, ArrayRef<int64_t> da, ArrayRef<int64_t> db,
                Type rt) {
  if (e.failed)
    return {};
  a = e.cast(a, rt);
  b = e.cast(b, rt);
  // A contracted dim of size 1 against a larger one: the larger side is
  // summed first (keepdim), as ATen's tensordot does.
  for (auto [x, y] : llvm::zip(da, db)) {
    if (e.failed || shapeOf(a)[x] == shapeOf(b)[y])
      continue;
    if (shapeOf(b)[y] == 1)
      a = e.sum(a, {x}, true, rt);
    else
      b = e.sum(b, {y}, true, rt);
  }
  if (e.failed)
    return {};
  SmallVector<int64_t> permA, permB, shape;
  int64_t m = 1, n = 1, k = 1;
  for (int64_t i = 0; i < rankOf(a); ++i)
    if (!llvm::is_contained(da, i)) {
      permA.push_back(i);
      shape.push_back(shapeOf(a)[i]);
      m *= shapeOf(a)[i];
    }
  for (int64_t d : da) {
    permA.push_back(d);
    k *= shapeOf(a)[d];
  }
  permB.assign(db.begin(), db.end());
  for (int64_t i = 0; i < rankOf(b); ++i)
    if (!llvm::is_contained(db, i)) {
      permB.push_back(i);
      shape.push_back(shapeOf(b)[i]);
      n *= shapeOf(b)[i];
    }
  Value right = e.view(e.permute(b, permB), {k, n});
  Value p = e.mm(e.view(e.permute(a, permA), {m, k}), right);
  return e.view(p, shape);
}

LogicalResult tensordotRule(Legalizer &L) {
  Emit e(L);
  Value a = L.operand("self"), b = L.operand("other");
  SmallVector<int64_t> da, db;
  for (int64_t d : intsArg(L.op, "dims_self").value_or(SmallVector<int64_t>{}))
    da.push_back(wrapDim(d, rankOf(a)));
  for (int64_t d : intsArg(L.op, "dims_other").value_or(SmallVector<int64_t>{}))
    db.push_back(wrapDim(d, rankOf(b)));
  return e.done({tensordot(e, a, b, da, db, L.resultType().getElementType())});
}

LogicalResult inner(Legalizer &L) {
  Emit e(L);
  Value a = L.operand("self"), b = L.operand("other");
  if (rankOf(a) == 0 || rankOf(b) == 0)
    return e.done({e.mul(a, b)});
  return e.done({tensordot(e, a, b, {rankOf(a) - 1}, {rankOf(b) - 1},
                           L.resultType().getElementType())});
}

/// kron: each operand viewed with its dims interleaved with 1s, multiplied
/// (broadcast), and the pairs of dims merged.
LogicalResult kron(Legalizer &L) {
  Emit e(L);
  Value a = L.operand("self"), b = L.operand("other");
  int64_t r = std::max(rankOf(a), rankOf(b));
  SmallVector<int64_t> sa, sb, out;
  for (int64_t i = 0; i < r; ++i) {
    int64_t da = i < r - rankOf(a) ? 1 : shapeOf(a)[i - (r - rankOf(a))];
    int64_t db = i < r - rankOf(b) ? 1 : shapeOf(b)[i - (r - rankOf(b))];
    sa.append({da, 1});
    sb.append({1, db});
    out.push_back(da * db);
  }
  Value vb = e.view(b, sb);
  return e.done({e.view(e.mul(e.view(a, sa), vb), out)});
}

/// bilinear: y[.., o] = x1[.., i] W[o, i, j] x2[.., j] + b[o], as one mm
/// (x1 times W laid out [i, o*j]) and one bmm with x2.
LogicalResult bilinear(Legalizer &L) {
  Emit e(L);
  Value x1 = L.operand("input1"), x2 = L.operand("input2"), w = L.operand("weight"),
        bias = L.operand("bias");
  int64_t o = shapeOf(w)[0], i = shapeOf(w)[1], j = shapeOf(w)[2];
  int64_t rows = tensorType(x1).getNumElements() / std::max<int64_t>(i, 1);
  Value wl = e.view(e.permute(w, {1, 0, 2}), {i, o * j});
  Value t = e.view(e.mm(e.view(x1, {rows, i}), wl), {rows, o, j});
  Value y = e.view(e.bmm(t, e.view(x2, {rows, j, 1})), {rows, o});
  if (bias)
    y = e.add(y, bias);
  return e.done({e.view(y, L.resultType().getShape())});
}

/// linalg_multi_dot / chain_matmul: left to right (PyTorch picks the
/// cheapest order; only the rounding differs).
LogicalResult multiDot(Legalizer &L) {
  Emit e(L);
  SmallVector<Value> ts(L.op.getArgOperands(0));
  if (ts.size() == 1)
    return e.done({e.op("aten::clone", {ts.front()})});
  Value acc = ts.front();
  for (Value t : ArrayRef<Value>(ts).drop_front())
    acc = e.matmul(acc, t);
  return e.done({acc});
}

LogicalResult vecdot(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("x"), y = L.operand("y");
  Value p = e.mul(x, y);
  if (e.failed)
    return failure();
  int64_t d = wrapDim(intArg(L.op, "dim", -1), rankOf(p));
  return e.done({e.sum(p, {d}, false, L.resultType().getElementType())});
}

/// cross: a x b along a dim of size 3, from the rolled components:
/// c = roll(a, -1) * roll(b, -2) - roll(a, -2) * roll(b, -1).
LogicalResult cross(Legalizer &L) {
  Emit e(L);
  Value a = L.operand("self"), b = L.operand("other");
  ArrayRef<int64_t> shape = L.resultType().getShape();
  int64_t d = -1;
  Attribute dimAttr = L.op->getAttr("dim");
  if (L.op.getOpName() == "aten::cross" && (!dimAttr || llvm::isa<exir::NoneAttr>(dimAttr))) {
    // The first dim of size 3 of 'self' (before broadcasting), as PyTorch.
    for (int64_t i = 0, n = rankOf(a); i < n && d < 0; ++i)
      if (shapeOf(a)[i] == 3)
        d = i;
  } else {
    d = wrapDim(intArg(L.op, "dim", -1), shape.size());
  }
  Type rt = L.resultType().getElementType();
  a = e.cast(a, rt);
  b = e.cast(b, rt);
  auto roll = [&](Value x, int64_t s) {
    return e.op("aten::roll", {x}, {L.ints("shifts", {s}), L.ints("dims", {d})});
  };
  Value b1 = roll(b, -1);
  Value rhs = e.mul(roll(a, -2), b1);
  Value b2 = roll(b, -2);
  Value lhs = e.mul(roll(a, -1), b2);
  return e.done({e.sub(lhs, rhs)});
}

//===----------------------------------------------------------------------===//
// einsum
//===----------------------------------------------------------------------===//

/// Labels: 'A'-'Z' are 0-25, 'a'-'z' 26-51, ellipsis dims 52 and up
/// (right-aligned across operands, so that they broadcast).
constexpr int kEllipsisBase = 52;

int labelId(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' : c - 'a' + 26; }

struct Term {
  Value v;
  SmallVector<int> labels;
};

/// Parses `eq` for `operands`; fills the terms (labels per dim) and the
/// output labels. Fails (reported) on what the shape rule let through.
LogicalResult parseEinsum(Emit &e, StringRef eq, ArrayRef<Value> operands,
                          SmallVectorImpl<Term> &terms, SmallVectorImpl<int> &output) {
  std::string text;
  for (char c : eq)
    if (c != ' ')
      text += c;
  StringRef lhs = text, rhs;
  bool explicitOut = StringRef(text).contains("->");
  if (explicitOut)
    std::tie(lhs, rhs) = StringRef(text).split("->");
  SmallVector<StringRef> parts;
  lhs.split(parts, ',');
  if (parts.size() != operands.size()) {
    e.fail("equation '" + eq + "' does not match the operand count");
    return failure();
  }
  int64_t ellDims = 0;
  for (auto [p, v] : llvm::zip(parts, operands)) {
    int64_t letters = llvm::count_if(p, [](char c) { return llvm::isAlpha(c); });
    if (p.contains("..."))
      ellDims = std::max(ellDims, rankOf(v) - letters);
  }
  SmallVector<int> counts(kEllipsisBase + ellDims, 0);
  for (auto [p, v] : llvm::zip(parts, operands)) {
    Term t{v, {}};
    auto [before, after] = p.split("...");
    bool hasEll = p.contains("...");
    int64_t ell = hasEll ? rankOf(v) - static_cast<int64_t>(before.size() + after.size()) : 0;
    for (char c : before)
      t.labels.push_back(labelId(c));
    for (int64_t k = 0; k < ell; ++k)
      t.labels.push_back(kEllipsisBase + (ellDims - ell) + k);
    for (char c : after)
      t.labels.push_back(labelId(c));
    if (static_cast<int64_t>(t.labels.size()) != rankOf(v)) {
      e.fail("equation '" + eq + "' does not fit the operand ranks");
      return failure();
    }
    for (int l : t.labels)
      ++counts[l];
    terms.push_back(t);
  }
  if (explicitOut) {
    auto [before, after] = rhs.split("...");
    for (char c : before)
      output.push_back(labelId(c));
    if (rhs.contains("..."))
      for (int64_t k = 0; k < ellDims; ++k)
        output.push_back(kEllipsisBase + k);
    for (char c : after)
      output.push_back(labelId(c));
  } else {
    for (int64_t k = 0; k < ellDims; ++k)
      output.push_back(kEllipsisBase + k);
    for (int l = 0; l < kEllipsisBase; ++l)
      if (counts[l] == 1)
        output.push_back(l);
  }
  return success();
}

/// Takes the diagonal of every repeated label of `t` (it moves last).
void takeDiagonals(Emit &e, Term &t) {
  for (bool again = true; again && !e.failed;) {
    again = false;
    for (size_t p = 0; p < t.labels.size() && !again; ++p)
      for (size_t q = p + 1; q < t.labels.size() && !again; ++q)
        if (t.labels[p] == t.labels[q]) {
          t.v = e.op("aten::diagonal_copy", {t.v},
                     {e.L.i64("offset", 0), e.L.i64("dim1", p), e.L.i64("dim2", q)});
          int l = t.labels[p];
          t.labels.erase(t.labels.begin() + q);
          t.labels.erase(t.labels.begin() + p);
          t.labels.push_back(l);
          again = true;
        }
  }
}

/// Sums out the labels of `t` that `keep` does not contain.
void sumOut(Emit &e, Term &t, llvm::function_ref<bool(int)> keep) {
  SmallVector<int64_t> dims;
  SmallVector<int> rest;
  for (auto [i, l] : llvm::enumerate(t.labels)) {
    if (keep(l))
      rest.push_back(l);
    else
      dims.push_back(i);
  }
  if (dims.empty())
    return;
  t.v = e.sum(t.v, dims, false, dtypeOf(t.v));
  t.labels = rest;
}

/// `t` permuted to `order` (labels it has) and broadcast to `sizes`.
Value arrange(Emit &e, const Term &t, ArrayRef<int> order, ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> perm, shape;
  for (int l : order) {
    perm.push_back(llvm::find(t.labels, l) - t.labels.begin());
    shape.push_back(sizes[l]);
  }
  return e.expand(e.permute(t.v, perm), shape);
}

LogicalResult einsum(Legalizer &L) {
  Emit e(L);
  SmallVector<Value> operands(L.op.getArgOperands(L.op.getSchema()->findArgument("tensors")));
  std::optional<std::string> eq = strArg(L.op, "equation");
  if (!eq)
    return L.refuse("needs an equation");
  Type rt = L.resultType().getElementType();
  for (Value &v : operands)
    v = e.cast(v, rt);
  SmallVector<Term> terms;
  SmallVector<int> output;
  if (failed(parseEinsum(e, *eq, operands, terms, output)))
    return failure();
  // Each label's size: its size where it is not 1 (1s broadcast; a size 0
  // stays 0).
  SmallVector<int64_t> sizes(kEllipsisBase + 64, -1);
  for (const Term &t : terms)
    for (auto [i, l] : llvm::enumerate(t.labels))
      if (sizes[l] == -1 || sizes[l] == 1)
        sizes[l] = shapeOf(t.v)[i];
  auto inOutput = [&](int l) { return llvm::is_contained(output, l); };
  // Labels needed after operand i: the output's and later operands'.
  auto neededAfter = [&](size_t i, int l) {
    if (inOutput(l))
      return true;
    for (size_t j = i + 1; j < terms.size(); ++j)
      if (llvm::is_contained(terms[j].labels, l))
        return true;
    return false;
  };
  for (Term &t : terms)
    takeDiagonals(e, t);
  Term acc = terms.front();
  sumOut(e, acc, [&](int l) { return neededAfter(0, l); });
  for (size_t i = 1; i < terms.size() && !e.failed; ++i) {
    Term b = terms[i];
    auto inA = [&](int l) { return llvm::is_contained(acc.labels, l); };
    auto inB = [&](int l) { return llvm::is_contained(b.labels, l); };
    sumOut(e, acc, [&](int l) { return inB(l) || neededAfter(i, l); });
    sumOut(e, b, [&](int l) { return inA(l) || neededAfter(i, l); });
    SmallVector<int> batch, freeA, freeB, contracted;
    for (int l : acc.labels)
      (inB(l) ? (neededAfter(i, l) ? batch : contracted) : freeA).push_back(l);
    for (int l : b.labels)
      if (!inA(l))
        freeB.push_back(l);
    auto prod = [&](ArrayRef<int> ls) {
      int64_t n = 1;
      for (int l : ls)
        n *= sizes[l];
      return n;
    };
    SmallVector<int> orderA(batch), orderB(batch);
    orderA.append(freeA.begin(), freeA.end());
    orderA.append(contracted.begin(), contracted.end());
    orderB.append(contracted.begin(), contracted.end());
    orderB.append(freeB.begin(), freeB.end());
    int64_t nb = prod(batch), m = prod(freeA), k = prod(contracted), n = prod(freeB);
    Value a3 = e.view(arrange(e, acc, orderA, sizes), {nb, m, k});
    Value b3 = e.view(arrange(e, b, orderB, sizes), {nb, k, n});
    SmallVector<int> labels(batch);
    labels.append(freeA.begin(), freeA.end());
    labels.append(freeB.begin(), freeB.end());
    SmallVector<int64_t> shape;
    for (int l : labels)
      shape.push_back(sizes[l]);
    acc = Term{e.view(e.bmm(a3, b3), shape), labels};
  }
  if (e.failed)
    return failure();
  Value r = arrange(e, acc, output, sizes);
  // A result that is an operand itself ("ij->ij") is copied.
  if (llvm::is_contained(operands, r))
    r = e.op("aten::clone", {r});
  return e.done({r});
}

//===----------------------------------------------------------------------===//
// Distances
//===----------------------------------------------------------------------===//

LogicalResult cdist(Legalizer &L) {
  Emit e(L);
  SmallVector<NamedAttribute> attrs = {L.f64("p", scalarArg(L.op, "p").value_or(2.0))};
  Attribute mode = L.op->getAttr("compute_mode");
  attrs.push_back(mode ? L.attr("compute_mode", mode) : L.none("compute_mode"));
  return e.done({e.op("aten::_cdist_forward", {L.operand("x1"), L.operand("x2")}, attrs)});
}

LogicalResult pdist(Legalizer &L) {
  Emit e(L);
  return e.done({e.op("aten::_pdist_forward", {L.operand("self")},
                      {L.f64("p", scalarArg(L.op, "p").value_or(2.0))})});
}

/// cosine_similarity (ATen's Distance.cpp): each operand divided by its
/// norm clamped to eps, then the sum of products.
LogicalResult cosineSimilarity(Legalizer &L) {
  Emit e(L);
  Value a = L.operand("x1"), b = L.operand("x2");
  Value p = e.mul(a, b); // only for the broadcast shape
  if (e.failed)
    return failure();
  ArrayRef<int64_t> shape = shapeOf(p);
  int64_t d = wrapDim(intArg(L.op, "dim", 1), shape.size());
  double eps = scalarArg(L.op, "eps").value_or(1e-8);
  a = e.expand(a, shape);
  b = e.expand(b, shape);
  Value na = e.clampMin(vectorNorm(e, a, 2, {d}, true, {}), eps);
  Value nb = e.clampMin(vectorNorm(e, b, 2, {d}, true, {}), eps);
  Value unitB = e.div(b, nb);
  return e.done({e.sum(e.mul(e.div(a, na), unitB), {d}, false)});
}

/// pairwise_distance = ||x1 - x2 + eps||_p over the last dim.
LogicalResult pairwiseDistance(Legalizer &L) {
  Emit e(L);
  Value diff = e.addS(e.sub(L.operand("x1"), L.operand("x2")),
                      scalarArg(L.op, "eps").value_or(1e-6));
  if (e.failed)
    return failure();
  if (rankOf(diff) == 0)
    return L.refuse("of 0-dim tensors is not supported");
  return e.done({vectorNorm(e, diff, scalarArg(L.op, "p").value_or(2.0), {rankOf(diff) - 1},
                            boolArg(L.op, "keepdim", false), {})});
}

/// _euclidean_dist (ATen): [-2 x1, |x1|^2, 1] . [x2, 1, |x2|^2]^T, clamped
/// at 0, square-rooted.
LogicalResult euclideanDist(Legalizer &L) {
  Emit e(L);
  Value a = L.operand("x1"), b = L.operand("x2");
  int64_t last = rankOf(a) - 1;
  Value na = e.sum(e.mul(a, a), {last}, true), nb = e.sum(e.mul(b, b), {last}, true);
  Value oa = e.op("aten::full_like", {na}, {L.f64("fill_value", 1.0)});
  Value ob = e.op("aten::full_like", {nb}, {L.f64("fill_value", 1.0)});
  Value a2 = e.cat({e.mulS(a, -2), na, oa}, last), b2 = e.cat({b, ob, nb}, last);
  SmallVector<int64_t> perm = allDims(rankOf(b2));
  std::swap(perm[last], perm[last - 1]);
  Value r = e.matmul(a2, e.permute(b2, perm));
  return e.done({e.unary("aten::sqrt", e.clampMin(r, 0.0))});
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// [..., H, S, E] -> [..., H * g, S, E], each head repeated g times in a row
/// (repeat_interleave over the head dim).
Value repeatHeads(Emit &e, Value x, int64_t g) {
  if (e.failed || g == 1)
    return x;
  int64_t r = rankOf(x);
  SmallVector<int64_t> shape(shapeOf(x));
  shape.insert(shape.begin() + (r - 2), g);
  SmallVector<int64_t> merged(shapeOf(x));
  merged[r - 3] *= g;
  return e.view(e.expand(e.unsqueeze(x, r - 2), shape), merged);
}

/// softmax over the last dim that gives 0 (not NaN) on rows that are all
/// -inf: _safe_softmax, what PyTorch's math attention uses.
Value safeSoftmax(Emit &e, Value x, int64_t dim, bool safe) {
  Value p = e.op("aten::_softmax", {x}, {e.L.i64("dim", dim), e.L.boolean("half_to_float", false)});
  if (!safe)
    return p;
  Value live = e.op("aten::any.dim", {e.cmpS("aten::ne.Scalar", x, -INFINITY)},
                    {e.L.i64("dim", dim), e.L.boolean("keepdim", true)});
  return e.where(live, p, e.scalar(0, dtypeOf(p)));
}

LogicalResult safeSoftmaxRule(Legalizer &L) {
  Emit e(L);
  Value x = e.cast(L.operand("self"), L.resultType().getElementType());
  return e.done({safeSoftmax(e, x, wrapDim(intArg(L.op, "dim", -1), rankOf(x)), true)});
}

/// _scaled_dot_product_attention_math -> (output, weights);
/// _scaled_dot_product_flash_attention_for_cpu -> (output, logsumexp).
LogicalResult attentionVariant(Legalizer &L) {
  if (auto p = scalarArg(L.op, "dropout_p"); p && *p != 0)
    return L.refuse("with dropout is not supported: it is random; export in eval mode "
                    "with dropout_p=0");
  if (L.operand("dropout_mask"))
    return L.refuse("with a dropout mask is not supported");
  bool flash = L.op.getOpName().contains("flash");
  FailureOr<AttentionResult> r =
      attention(L, L.operand("query"), L.operand("key"), L.operand("value"),
                L.operand("attn_mask"), boolArg(L.op, "is_causal", false),
                scalarArg(L.op, "scale"), boolArg(L.op, "enable_gqa", false), flash);
  if (failed(r))
    return failure();
  return L.replace({r->output, flash ? r->logsumexp : r->weights});
}

} // namespace

FailureOr<AttentionResult> attention(Legalizer &L, Value q, Value k, Value v, Value mask,
                                     bool causal, std::optional<double> scale, bool gqa,
                                     bool wantLogsumexp) {
  Emit e(L);
  int64_t rq = rankOf(q), rk = rankOf(k);
  if (causal && mask)
    return L.refuse("with both is_causal and attn_mask is not valid (PyTorch refuses it)");
  if (gqa && rq >= 3 && rk >= 3 && rankOf(v) >= 3) {
    int64_t hq = shapeOf(q)[rq - 3], hk = shapeOf(k)[rk - 3], hv = shapeOf(v)[rankOf(v) - 3];
    if (hk == 0 || hv == 0 || hq % hk != 0 || hq % hv != 0)
      return L.refuse("with enable_gqa needs query heads (" + Twine(hq) +
                      ") divisible by key/value heads (" + Twine(hk) + ", " + Twine(hv) + ")");
    k = repeatHeads(e, k, hq / hk);
    v = repeatHeads(e, v, hq / hv);
  }
  double s = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(shapeOf(q).back()));
  SmallVector<int64_t> perm = allDims(rk);
  std::swap(perm[rk - 1], perm[rk - 2]);
  Value scores = e.mulS(e.matmul(q, e.permute(k, perm)), s);
  bool masked = false;
  if (mask && isBoolType(dtypeOf(mask))) {
    scores = e.op("aten::masked_fill.Scalar", {scores, e.unary("aten::logical_not", mask)},
                  {L.f64("value", -INFINITY)});
    masked = true;
  } else if (mask) {
    scores = e.add(scores, mask);
    masked = true;
  }
  if (causal && !e.failed) {
    // Key j is visible to query i iff j <= i (top-left aligned).
    int64_t n = shapeOf(scores)[rankOf(scores) - 2], m = shapeOf(scores).back();
    Type i64 = L.b.getI64Type();
    Value i = e.op("aten::arange", {}, {L.i64("end", n), L.dtype("dtype", i64)});
    Value j = e.op("aten::arange", {}, {L.i64("end", m), L.dtype("dtype", i64)});
    Value hidden = e.op("aten::lt.Tensor", {e.view(i, {n, 1}), e.view(j, {1, m})});
    scores = e.op("aten::masked_fill.Scalar", {scores, hidden}, {L.f64("value", -INFINITY)});
  }
  Value probs = safeSoftmax(e, scores, -1, masked);
  AttentionResult r;
  r.output = e.matmul(probs, v);
  r.weights = probs;
  if (wantLogsumexp) {
    Value lse = logsumexp(e, scores, {rankOf(scores) - 1}, false);
    r.logsumexp = e.cast(lse, L.resultType(1).getElementType());
  }
  if (e.failed)
    return failure();
  return r;
}

void addProductRules(LegalizeTable &t) {
  addLegalizations(t, {"aten::baddbmm"}, baddbmm, Dynamic::Handled);
  addLegalizations(t, {"aten::addbmm"}, addbmm, Dynamic::Handled);
  addLegalizations(t, {"aten::addmv"}, addmv);
  addLegalizations(t, {"aten::addr"}, addr);
  addLegalizations(t, {"aten::outer", "aten::ger"}, outerRule);
  addLegalizations(t, {"aten::dot", "aten::vdot"}, dot);
  addLegalizations(t, {"aten::mv"}, mv);
  addLegalizations(t, {"aten::linalg_matmul"}, matmulRule);
  addLegalizations(t, {"aten::tensordot"}, tensordotRule);
  addLegalizations(t, {"aten::inner"}, inner);
  addLegalizations(t, {"aten::kron"}, kron);
  addLegalizations(t, {"aten::bilinear"}, bilinear);
  addLegalizations(t, {"aten::chain_matmul", "aten::linalg_multi_dot"}, multiDot);
  addLegalizations(t, {"aten::linalg_vecdot"}, vecdot);
  addLegalizations(t, {"aten::cross", "aten::linalg_cross"}, cross);
  addLegalizations(t, {"aten::einsum"}, einsum);
  addLegalizations(t, {"aten::cdist"}, cdist);
  addLegalizations(t, {"aten::pdist"}, pdist);
  addLegalizations(t, {"aten::cosine_similarity"}, cosineSimilarity);
  addLegalizations(t, {"aten::pairwise_distance"}, pairwiseDistance);
  addLegalizations(t, {"aten::_euclidean_dist"}, euclideanDist);
  addLegalizations(t, {"aten::_safe_softmax"}, safeSoftmaxRule, Dynamic::Handled);
  addLegalizations(t,
                   {"aten::_scaled_dot_product_attention_math",
                    "aten::_scaled_dot_product_flash_attention_for_cpu"},
                   attentionVariant);
}

} // namespace ptec::legalize::reduce
