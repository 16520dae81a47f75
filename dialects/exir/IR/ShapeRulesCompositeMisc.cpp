//===- ShapeRulesCompositeMisc.cpp - factories, membership, list helpers --===//
//
// Rules of the composite ops legalize-to-core-aten decomposes in
// passes/LegalizeMisc.cpp: eye with two sizes, logspace, the Hann window,
// isin, sum_to_size, _dim_arange, pad_sequence, block_diag, vander and
// linalg_vander, combinations. Integer inputs of vander are computed in
// int64, as PyTorch's cumulative product does.
//
//===----------------------------------------------------------------------===//

#include "dialects/exir/IR/ShapeRulesSupport.h"

using namespace mlir;

namespace ptec::exir::rules {
namespace {

Type dtypeOrDefault(RuleContext &c, Type dflt) {
  Type d = c.has("dtype") ? c.dtype("dtype") : Type();
  return d ? d : dflt;
}

LogicalResult nonNegative(RuleContext &c, StringRef what, int64_t n) {
  if (n < 0)
    return c.fail(what + " must not be negative, got " + llvm::Twine(n));
  return success();
}

LogicalResult eyeM(RuleContext &c) {
  int64_t n = c.getInt("n"), m = c.getInt("m");
  if (failed(nonNegative(c, "n", n)) || failed(nonNegative(c, "m", m)))
    return failure();
  return c.succeed({n, m}, dtypeOrDefault(c, c.defaultFloat()));
}

/// linspace/logspace: `steps` elements; tensor bounds must have one element.
LogicalResult logspace(RuleContext &c) {
  for (StringRef bound : {"start", "end"})
    if (RankedTensorType t = c.type(bound); t && t.getNumElements() != 1)
      return c.fail("'" + bound + "' must be a tensor of one element, got " + describe(t));
  int64_t n = c.getInt("steps");
  if (failed(nonNegative(c, "the number of steps", n)))
    return failure();
  return c.succeed({n}, dtypeOrDefault(c, c.defaultFloat()));
}

LogicalResult hannWindow(RuleContext &c) {
  int64_t n = c.getInt("window_length");
  if (failed(nonNegative(c, "window_length", n)))
    return failure();
  return c.succeed({n}, dtypeOrDefault(c, c.defaultFloat()));
}

LogicalResult isin(RuleContext &c) {
  if (c.has("elements")) {
    RankedTensorType t;
    if (failed(c.require("elements", t)))
      return failure();
    return c.succeed(t.getShape(), c.boolType());
  }
  return c.succeed({}, c.boolType());
}

LogicalResult sumToSize(RuleContext &c, RankedTensorType self) {
  Shape size = c.getInts("size");
  // `self` must be expandable from `size`: trailing dims equal or size 1.
  if (size.size() > static_cast<size_t>(self.getRank()))
    return c.fail("size " + describeShape(size) + " has more dims than " + describe(self));
  int64_t lead = self.getRank() - static_cast<int64_t>(size.size());
  for (auto [i, d] : llvm::enumerate(size))
    if (d != 1 && d != self.getDimSize(lead + i))
      return c.fail(describe(self) + " cannot be summed to size " + describeShape(size));
  return c.succeed(size, self.getElementType());
}

LogicalResult dimArange(RuleContext &c) {
  RankedTensorType t;
  int64_t dim;
  if (failed(c.require("like", t)) || failed(c.dimArg("dim", t.getRank(), dim)))
    return failure();
  return c.succeed({t.getDimSize(dim)}, c.i64());
}

LogicalResult padSequence(RuleContext &c) {
  SmallVector<Value> seqs = c.tensors("sequences");
  if (seqs.empty())
    return c.fail("pad_sequence needs at least one sequence");
  auto first = llvm::cast<RankedTensorType>(seqs.front().getType());
  if (first.getRank() < 1)
    return c.fail("pad_sequence needs sequences of at least one dim");
  int64_t longest = 0;
  for (Value v : seqs) {
    auto t = llvm::cast<RankedTensorType>(v.getType());
    if (t.getRank() != first.getRank() ||
        t.getShape().drop_front() != first.getShape().drop_front() ||
        t.getElementType() != first.getElementType())
      return c.fail("pad_sequence needs sequences that differ only in their first dim, got " +
                    describe(first) + " and " + describe(t));
    longest = std::max(longest, t.getDimSize(0));
  }
  Shape shape = {longest, static_cast<int64_t>(seqs.size())};
  if (c.getBool("batch_first"))
    std::swap(shape[0], shape[1]);
  shape.append(first.getShape().begin() + 1, first.getShape().end());
  return c.succeed(shape, first.getElementType());
}

LogicalResult blockDiag(RuleContext &c) {
  int64_t rows = 0, cols = 0;
  ResultType rt;
  for (Value v : c.tensors("tensors")) {
    auto t = llvm::cast<RankedTensorType>(v.getType());
    if (t.getRank() > 2)
      return c.fail("block_diag takes tensors of at most 2 dims, got " + describe(t));
    rows += t.getRank() == 2 ? t.getDimSize(0) : 1;
    cols += t.getRank() == 0 ? 1 : t.getShape().back();
    rt.add(t);
  }
  Type dtype = rt.get();
  if (!dtype)
    return c.fail("block_diag needs at least one tensor of a promotable dtype");
  return c.succeed({rows, cols}, dtype);
}

/// cartesian_prod: 1-D tensors of one dtype; [N0 * N1 * ..., n] (one
/// tensor: that tensor's [N0]).
LogicalResult cartesianProd(RuleContext &c) {
  SmallVector<Value> ts = c.tensors("tensors");
  if (ts.empty())
    return c.fail("cartesian_prod needs at least one tensor");
  Type dtype = llvm::cast<RankedTensorType>(ts.front().getType()).getElementType();
  int64_t count = 1;
  for (Value v : ts) {
    auto t = llvm::cast<RankedTensorType>(v.getType());
    if (t.getRank() != 1)
      return c.fail("cartesian_prod takes 1-D tensors, got " + describe(t));
    if (t.getElementType() != dtype)
      return c.fail("cartesian_prod takes tensors of one dtype");
    count = mulSat(count, t.getDimSize(0));
  }
  if (ts.size() == 1)
    return c.succeed({count}, dtype);
  return c.succeed({count, static_cast<int64_t>(ts.size())}, dtype);
}

/// vander/linalg_vander compute integers in int64 (a cumulative product).
Type vanderDtype(RuleContext &c, Type t) {
  return isIntegral(t, /*includeBool=*/true) ? c.i64() : t;
}

LogicalResult vander(RuleContext &c) {
  RankedTensorType x;
  if (failed(c.require("x", x)))
    return failure();
  if (x.getRank() != 1)
    return c.fail("vander takes a 1-D tensor, got " + describe(x));
  int64_t n = c.optInt("N").value_or(x.getDimSize(0));
  if (failed(nonNegative(c, "N", n)))
    return failure();
  return c.succeed({x.getDimSize(0), n}, vanderDtype(c, x.getElementType()));
}

LogicalResult linalgVander(RuleContext &c) {
  RankedTensorType x;
  if (failed(c.require("x", x)) || failed(c.requireRank("x", x, 1, kMaxTensorRank - 1)))
    return failure();
  int64_t n = c.optInt("N").value_or(x.getShape().back());
  if (n <= 1)
    return c.fail("linalg_vander needs N > 1, got " + llvm::Twine(n));
  Shape shape(x.getShape());
  shape.push_back(n);
  return c.succeed(shape, vanderDtype(c, x.getElementType()));
}

/// Binomial coefficient, saturating.
int64_t choose(int64_t n, int64_t k) {
  if (k < 0 || k > n)
    return 0;
  int64_t r = 1;
  for (int64_t i = 1; i <= k; ++i)
    r = mulSat(r, n - k + i) / i;
  return r;
}

LogicalResult combinations(RuleContext &c, RankedTensorType self) {
  if (self.getRank() != 1)
    return c.fail("combinations takes a 1-D tensor, got " + describe(self));
  int64_t r = c.getInt("r"), n = self.getDimSize(0);
  if (r < 0)
    return c.fail("r must not be negative, got " + llvm::Twine(r));
  if (r == 0)
    return c.succeed({0}, self.getElementType());
  int64_t count = c.getBool("with_replacement") ? choose(n + r - 1, r) : choose(n, r);
  return c.succeed({count, r}, self.getElementType());
}

/// special_softmax / special_log_softmax: like self, in `dtype` when given.
LogicalResult softmaxAlias(RuleContext &c, RankedTensorType self, int64_t) {
  Type d = c.dtype("dtype");
  return c.succeed(self.getShape(), d ? d : self.getElementType());
}

} // namespace

void addCompositeMiscRules(RuleTable &t) {
  addRules(t, {"eye.m"}, eyeM);
  addRules(t, {"logspace", "logspace.Tensor_Tensor", "logspace.Tensor_Scalar",
               "logspace.Scalar_Tensor", "linspace.Tensor_Tensor", "linspace.Tensor_Scalar",
               "linspace.Scalar_Tensor"},
           logspace);
  addRules(t, {"hann_window", "hann_window.periodic"}, hannWindow);
  addRules(t, {"isin.Tensor_Tensor", "isin.Tensor_Scalar", "isin.Scalar_Tensor"}, isin);
  addRules(t, {"sum_to_size"}, onSelf<sumToSize>);
  addRules(t, {"_dim_arange"}, dimArange);
  addRules(t, {"pad_sequence"}, padSequence);
  addRules(t, {"block_diag"}, blockDiag);
  addRules(t, {"vander"}, vander);
  addRules(t, {"linalg_vander"}, linalgVander);
  addRules(t, {"combinations"}, onSelf<combinations>);
  addRules(t, {"cartesian_prod"}, cartesianProd);
  addRules(t, {"special_softmax", "special_log_softmax"}, onSelfAndDim<softmaxAlias>);
}

} // namespace ptec::exir::rules
