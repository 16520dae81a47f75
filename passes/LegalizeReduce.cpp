//===- LegalizeReduce.cpp - the reduce family: builders and registration --===//
//
// legalize-to-core-aten's family of norms, statistics, scans, products,
// distances, attention and losses (LegalizeReduce*.cpp). This file holds
// what the family's rules share: the Emit builder (a chain of core ops
// that stops at the first failure), argument helpers, torch.matmul for every
// rank, vector norms, logsumexp and the loss reductions; and the refusals of
// operators that need a factorization (SVD, LU, QR, eigen-decompositions),
// which ExecuTorch's portable library has no kernel for.
//
//===----------------------------------------------------------------------===//

#include "passes/LegalizeReduce.h"

#include <cmath>
#include <limits>

namespace ptec::legalize {
namespace reduce {

//===----------------------------------------------------------------------===//
// Emit
//===----------------------------------------------------------------------===//

Value Emit::op(StringRef name, ArrayRef<Value> tensors, ArrayRef<NamedAttribute> attrs) {
  if (failed)
    return {};
  SmallVector<Operands> args;
  for (Value v : tensors)
    args.push_back(v ? Operands{v} : Operands{});
  FailureOr<Value> r = L.make(name, args, attrs);
  if (::mlir::failed(r)) {
    failed = true;
    return {};
  }
  return *r;
}

SmallVector<Value> Emit::all(StringRef name, ArrayRef<Value> tensors,
                             ArrayRef<NamedAttribute> attrs) {
  if (failed)
    return {};
  SmallVector<Operands> args;
  for (Value v : tensors)
    args.push_back(v ? Operands{v} : Operands{});
  FailureOr<SmallVector<Value>> r = L.makeAll(name, args, attrs);
  if (::mlir::failed(r)) {
    failed = true;
    return {};
  }
  return *r;
}

Value Emit::list(StringRef name, ArrayRef<Value> elems, ArrayRef<NamedAttribute> attrs) {
  if (failed)
    return {};
  FailureOr<Value> r = L.make(name, {Operands(elems.begin(), elems.end())}, attrs);
  if (::mlir::failed(r)) {
    failed = true;
    return {};
  }
  return *r;
}

Value Emit::fail(const Twine &message) {
  if (!failed)
    (void)L.refuse(message);
  failed = true;
  return {};
}

LogicalResult Emit::done(ArrayRef<Value> results) {
  if (failed)
    return failure();
  return L.replace(results);
}

Value Emit::scalarOp(StringRef name, StringRef attr, Value x, double s, bool asFloat) {
  if (failed)
    return {};
  // An integral number stays an int for integer and bool tensors (PyTorch's
  // wrapped-number promotion keeps their dtype); floats promote to float.
  bool asInt = !asFloat && !isFloatType(dtypeOf(x)) && std::isfinite(s) && s == std::trunc(s) &&
               std::abs(s) < 9.0e18;
  NamedAttribute a = asInt ? L.i64(attr, static_cast<int64_t>(s)) : L.f64(attr, s);
  return op(name, {x}, {a});
}

Value Emit::clampMin(Value x, double lo) {
  return op("aten::clamp", {x}, {L.f64("min", lo), L.none("max")});
}

Value Emit::clampMax(Value x, double hi) {
  return op("aten::clamp", {x}, {L.none("min"), L.f64("max", hi)});
}

Value Emit::scalar(double v, Type t) { return full({}, v, t); }

Value Emit::full(ArrayRef<int64_t> shape, double v, Type t) {
  if (failed)
    return {};
  NamedAttribute fill = isFloatType(t) ? L.f64("fill_value", v)
                        : isBoolType(t) ? L.boolean("fill_value", v != 0)
                                        : L.i64("fill_value", static_cast<int64_t>(v));
  return op("aten::full", {}, {L.ints("size", shape), fill, L.dtype("dtype", t)});
}

Value Emit::cast(Value x, Type t) {
  if (failed || !t || dtypeOf(x) == t)
    return x;
  return op("aten::_to_copy", {x}, {L.dtype("dtype", t)});
}

Value Emit::sum(Value x, ArrayRef<int64_t> dims, bool keepdim, Type dtype) {
  if (failed)
    return {};
  SmallVector<int64_t> d(dims);
  if (d.empty())
    d = allDims(rankOf(x));
  return op("aten::sum.dim_IntList", {x},
            {L.ints("dim", d), L.boolean("keepdim", keepdim),
             dtype ? L.dtype("dtype", dtype) : L.none("dtype")});
}

/// A reduction over `dims` (empty: every dim) with keepdim and no dtype.
static Value reduceOver(Emit &e, StringRef name, Value x, ArrayRef<int64_t> dims,
                        bool keepdim) {
  if (e.failed)
    return {};
  SmallVector<int64_t> d(dims);
  if (d.empty())
    d = allDims(rankOf(x));
  return e.op(name, {x}, {e.L.ints("dim", d), e.L.boolean("keepdim", keepdim)});
}

Value Emit::mean(Value x, ArrayRef<int64_t> dims, bool keepdim) {
  return reduceOver(*this, "aten::mean.dim", x, dims, keepdim);
}

Value Emit::amax(Value x, ArrayRef<int64_t> dims, bool keepdim) {
  return reduceOver(*this, "aten::amax", x, dims, keepdim);
}

Value Emit::amin(Value x, ArrayRef<int64_t> dims, bool keepdim) {
  return reduceOver(*this, "aten::amin", x, dims, keepdim);
}

Value Emit::anyDims(Value x, ArrayRef<int64_t> dims, bool keepdim) {
  return reduceOver(*this, "aten::any.dims", x, dims, keepdim);
}

Value Emit::view(Value x, ArrayRef<int64_t> shape) {
  if (failed)
    return {};
  if (shapeOf(x) == shape)
    return x;
  return op("aten::view_copy", {x}, {L.ints("size", shape)});
}

Value Emit::permute(Value x, ArrayRef<int64_t> perm) {
  if (failed)
    return {};
  bool identity = true;
  for (auto [i, p] : llvm::enumerate(perm))
    identity &= static_cast<int64_t>(i) == p;
  if (identity)
    return x;
  return op("aten::permute_copy", {x}, {L.ints("dims", perm)});
}

Value Emit::expand(Value x, ArrayRef<int64_t> shape) {
  if (failed)
    return {};
  if (shapeOf(x) == shape)
    return x;
  return op("aten::expand_copy", {x}, {L.ints("size", shape)});
}

Value Emit::unsqueeze(Value x, int64_t dim) {
  return op("aten::unsqueeze_copy", {x}, {L.i64("dim", dim)});
}

Value Emit::squeeze(Value x, ArrayRef<int64_t> dims) {
  if (failed)
    return {};
  if (dims.empty())
    return x;
  return op("aten::squeeze_copy.dims", {x}, {L.ints("dim", dims)});
}

Value Emit::slice(Value x, int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (failed)
    return {};
  int64_t size = shapeOf(x)[dim];
  if (start == 0 && end >= size && step == 1)
    return x;
  return op("aten::slice_copy.Tensor", {x},
            {L.i64("dim", dim), L.i64("start", start), L.i64("end", end), L.i64("step", step)});
}

Value Emit::select(Value x, int64_t dim, int64_t index) {
  return op("aten::select_copy.int", {x}, {L.i64("dim", dim), L.i64("index", index)});
}

Value Emit::cat(ArrayRef<Value> xs, int64_t dim) {
  if (failed)
    return {};
  if (xs.size() == 1)
    return xs.front();
  return list("aten::cat", xs, {L.i64("dim", dim)});
}

static SmallVector<int64_t> moveToEndPerm(int64_t rank, int64_t d) {
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    if (i != d)
      perm.push_back(i);
  perm.push_back(d);
  return perm;
}

Value Emit::moveToEnd(Value x, int64_t d) {
  if (failed)
    return {};
  return permute(x, moveToEndPerm(rankOf(x), d));
}

Value Emit::moveFromEnd(Value x, int64_t d) {
  if (failed)
    return {};
  SmallVector<int64_t> perm = moveToEndPerm(rankOf(x), d), inv(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inv[p] = i;
  return permute(x, inv);
}

/// The broadcast of two shapes (already checked compatible by the rules).
static SmallVector<int64_t> broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t n = std::max(a.size(), b.size());
  SmallVector<int64_t> out(n, 1);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Value Emit::matmul(Value a, Value b) {
  if (failed)
    return {};
  int64_t ra = rankOf(a), rb = rankOf(b);
  if (ra == 0 || rb == 0)
    return fail("matmul of a 0-dim tensor is not valid");
  if (dtypeOf(a) != dtypeOf(b))
    return fail("matmul of different dtypes is not valid");
  if (ra == 1 && rb == 1)
    return sum(mul(a, b), {0}, false, dtypeOf(a));
  // Vectors become matrices (a row on the left, a column on the right) and
  // lose that dim again at the end.
  Value a2 = ra == 1 ? view(a, {1, shapeOf(a)[0]}) : a;
  Value b2 = rb == 1 ? view(b, {shapeOf(b)[0], 1}) : b;
  ArrayRef<int64_t> as = shapeOf(a2), bs = shapeOf(b2);
  int64_t n = as[as.size() - 2], k = as.back(), m = bs.back();
  SmallVector<int64_t> outShape;
  Value prod;
  if (as.size() == 2 && bs.size() == 2) {
    prod = mm(a2, b2);
    outShape = {n, m};
  } else if (bs.size() == 2) {
    // Fold a's batch dims into its rows: one mm.
    int64_t rows = 1;
    for (int64_t d : as.drop_back())
      rows *= d;
    prod = mm(view(a2, {rows, k}), b2);
    outShape.assign(as.begin(), as.end() - 1);
    outShape.push_back(m);
  } else {
    SmallVector<int64_t> batch =
        broadcastShapes(as.drop_back(2), bs.drop_back(2));
    int64_t nb = 1;
    for (int64_t d : batch)
      nb *= d;
    SmallVector<int64_t> ea(batch), eb(batch);
    ea.append({n, k});
    eb.append({k, m});
    Value a3 = view(expand(a2, ea), {nb, n, k});
    Value b3 = view(expand(b2, eb), {nb, k, m});
    prod = bmm(a3, b3);
    outShape = batch;
    outShape.append({n, m});
  }
  // Drop the dims the vectors added.
  SmallVector<int64_t> finalShape;
  for (size_t i = 0; i < outShape.size(); ++i) {
    if (ra == 1 && i == outShape.size() - 2)
      continue;
    if (rb == 1 && i == outShape.size() - 1)
      continue;
    finalShape.push_back(outShape[i]);
  }
  return view(prod, finalShape);
}

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

bool isFloatType(Type t) { return llvm::isa_and_nonnull<FloatType>(t); }
bool isBoolType(Type t) { return t && t.isInteger(1); }

std::string numStr(double v) {
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  if (v == std::trunc(v) && std::abs(v) < 1e15)
    return std::to_string(static_cast<int64_t>(v));
  std::string s = std::to_string(v);
  while (!s.empty() && s.back() == '0')
    s.pop_back();
  return s;
}
bool isIntegerType(Type t) {
  auto i = llvm::dyn_cast_or_null<IntegerType>(t);
  return i && i.getWidth() != 1;
}

std::optional<double> scalarArg(exir::AtenOp op, StringRef name) {
  Attribute a = op->getAttr(name);
  if (auto f = llvm::dyn_cast_or_null<FloatAttr>(a))
    return f.getValueAsDouble();
  if (auto b = llvm::dyn_cast_or_null<BoolAttr>(a))
    return b.getValue() ? 1.0 : 0.0;
  if (auto i = llvm::dyn_cast_or_null<IntegerAttr>(a))
    return static_cast<double>(i.getInt());
  if (a)
    return std::nullopt; // None
  // Absent: the schema default, when it is a number.
  const schema::FunctionSchema *s = op.getSchema();
  int idx = s ? s->findArgument(name) : -1;
  if (idx < 0)
    return std::nullopt;
  Attribute d = defaultAttr(op->getContext(), s->arguments[idx]);
  if (auto f = llvm::dyn_cast_or_null<FloatAttr>(d))
    return f.getValueAsDouble();
  if (auto i = llvm::dyn_cast_or_null<IntegerAttr>(d))
    return static_cast<double>(i.getInt());
  return std::nullopt;
}

std::optional<SmallVector<int64_t>> intsArg(exir::AtenOp op, StringRef name) {
  Attribute a = op->getAttr(name);
  if (!a) {
    const schema::FunctionSchema *s = op.getSchema();
    int idx = s ? s->findArgument(name) : -1;
    if (idx >= 0)
      a = defaultAttr(op->getContext(), s->arguments[idx]);
  }
  if (auto l = llvm::dyn_cast_or_null<DenseI64ArrayAttr>(a))
    return SmallVector<int64_t>(l.asArrayRef());
  if (auto i = llvm::dyn_cast_or_null<IntegerAttr>(a))
    return SmallVector<int64_t>{i.getInt()};
  return std::nullopt;
}

Type dtypeArg(exir::AtenOp op, StringRef name) {
  if (auto t = op->getAttrOfType<TypeAttr>(name))
    return t.getValue();
  return {};
}

std::optional<std::string> strArg(exir::AtenOp op, StringRef name) {
  Attribute a = op->getAttr(name);
  if (!a) {
    const schema::FunctionSchema *s = op.getSchema();
    int idx = s ? s->findArgument(name) : -1;
    if (idx >= 0)
      a = defaultAttr(op->getContext(), s->arguments[idx]);
  }
  if (auto s = llvm::dyn_cast_or_null<StringAttr>(a))
    return s.str();
  return std::nullopt;
}

int64_t wrapDim(int64_t d, int64_t rank) {
  int64_t r = std::max<int64_t>(rank, 1);
  return d < 0 ? d + r : d;
}

SmallVector<int64_t> allDims(int64_t rank) {
  SmallVector<int64_t> d;
  for (int64_t i = 0; i < rank; ++i)
    d.push_back(i);
  return d;
}

SmallVector<int64_t> reductionDims(exir::AtenOp op, StringRef name, int64_t rank) {
  std::optional<SmallVector<int64_t>> dims = intsArg(op, name);
  if (!dims || dims->empty())
    return allDims(rank);
  SmallVector<int64_t> out;
  for (int64_t d : *dims)
    out.push_back(wrapDim(d, rank));
  llvm::sort(out);
  if (rank == 0) // a 0-dim tensor's dim 0 is itself: nothing to reduce
    out.clear();
  return out;
}

SmallVector<int64_t> reducedShape(ArrayRef<int64_t> shape, ArrayRef<int64_t> dims,
                                  bool keepdim) {
  SmallVector<int64_t> out;
  for (int64_t i = 0, e = shape.size(); i < e; ++i) {
    if (!llvm::is_contained(dims, i))
      out.push_back(shape[i]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Shared pieces
//===----------------------------------------------------------------------===//

Value vectorNorm(Emit &e, Value x, double ord, ArrayRef<int64_t> dims, bool keepdim,
                 Type dtype) {
  if (e.failed)
    return {};
  Type resultType = dtype ? dtype : dtypeOf(x);
  if (!isFloatType(resultType))
    return e.fail("needs a floating-point input (complex norms are not supported)");
  if (ord == 0)
    return e.sum(e.cast(e.cmpS("aten::ne.Scalar", x, 0), resultType), dims, keepdim);
  if (std::isinf(ord)) {
    Value a = e.unary("aten::abs", x);
    return e.cast(ord > 0 ? e.amax(a, dims, keepdim) : e.amin(a, dims, keepdim), resultType);
  }
  x = e.cast(x, resultType);
  if (ord == 1)
    return e.sum(e.unary("aten::abs", x), dims, keepdim);
  if (ord == 2)
    return e.unary("aten::sqrt", e.sum(e.mul(x, x), dims, keepdim));
  bool even = std::fmod(ord, 2.0) == 0;
  Value base = even ? x : e.unary("aten::abs", x);
  return e.powS(e.sum(e.powS(base, ord), dims, keepdim), 1.0 / ord);
}

Value logsumexp(Emit &e, Value x, ArrayRef<int64_t> dims, bool keepdim) {
  if (e.failed)
    return {};
  if (!isFloatType(dtypeOf(x)))
    x = e.cast(x, Float32Type::get(x.getContext()));
  if (tensorType(x).getNumElements() == 0)
    return e.unary("aten::log", e.sum(e.unary("aten::exp", x), dims, keepdim));
  // The max is subtracted for stability; an infinite max is replaced by 0
  // so that inf - inf does not make a NaN (torch/_decomp).
  Value m = e.amax(x, dims, true);
  Value inf = e.unary("aten::isinf", m);
  m = e.op("aten::masked_fill.Scalar", {m, inf}, {e.L.f64("value", 0.0)});
  Value s = e.sum(e.unary("aten::exp", e.sub(x, m)), dims, keepdim);
  Value mk = keepdim ? m : e.squeeze(m, dims);
  return e.add(e.unary("aten::log", s), mk);
}

Value applyReduction(Emit &e, Value loss, int64_t reduction) {
  if (reduction == 0)
    return loss;
  if (reduction == 1)
    return e.mean(loss, {}, false);
  if (reduction == 2)
    return e.sum(loss, {}, false);
  return e.fail("with reduction " + Twine(reduction) +
                " is not supported: reduction is 0 (none), 1 (mean) or 2 (sum)");
}

//===----------------------------------------------------------------------===//
// Refusals
//===----------------------------------------------------------------------===//

namespace {

LogicalResult noKernel(Legalizer &L) {
  return L.refuse("is not supported: it needs a matrix factorization or solver (SVD, LU, "
                  "QR, Cholesky or an eigen-decomposition), and there is no kernel for it in "
                  "ExecuTorch's portable library");
}

/// matrix_power with n >= 0 is repeated squaring of mm; a negative n needs
/// an inverse.
LogicalResult matrixPower(Legalizer &L) {
  Emit e(L);
  Value x = L.operand("self");
  int64_t n = intArg(L.op, "n", 1);
  if (n < 0)
    return L.refuse("with a negative n is not supported: it needs the matrix inverse, and "
                    "there is no kernel for it in ExecuTorch's portable library");
  if (rankOf(x) < 2 || shapeOf(x)[rankOf(x) - 1] != shapeOf(x)[rankOf(x) - 2])
    return L.refuse("needs square matrices");
  if (n == 0) {
    // The identity, batched: diagonal ones.
    int64_t k = shapeOf(x).back();
    Type t = dtypeOf(x);
    Value i = e.op("aten::arange", {}, {L.i64("end", k), L.dtype("dtype", L.b.getI64Type())});
    Value eye = e.cast(e.op("aten::eq.Tensor", {e.view(i, {k, 1}), e.view(i, {1, k})}), t);
    return e.done({e.expand(eye, shapeOf(x))});
  }
  Value result, power = x;
  for (int64_t m = n; m > 0; m >>= 1) {
    if (m & 1)
      result = result ? e.matmul(result, power) : power;
    if (m > 1)
      power = e.matmul(power, power);
  }
  // matrix_power(x, 1) is a copy of x.
  if (result == x)
    result = e.op("aten::clone", {x});
  return e.done({result});
}

} // namespace

void addRefusals(LegalizeTable &t) {
  addLegalizations(
      t,
      {"aten::linalg_svd", "aten::svd", "aten::linalg_svdvals", "aten::linalg_eigh",
       "aten::linalg_eigvalsh", "aten::linalg_eigvals", "aten::linalg_eig", "aten::linalg_inv",
       "aten::linalg_inv_ex", "aten::inverse", "aten::linalg_det", "aten::det", "aten::logdet",
       "aten::slogdet", "aten::linalg_slogdet", "aten::linalg_solve", "aten::linalg_solve_ex",
       "aten::linalg_cholesky", "aten::linalg_cholesky_ex", "aten::cholesky_solve",
       "aten::cholesky_inverse", "aten::linalg_lu", "aten::linalg_lu_factor",
       "aten::linalg_lu_factor_ex", "aten::linalg_lu_solve", "aten::lu_solve", "aten::linalg_qr",
       "aten::linalg_pinv", "aten::linalg_pinv.atol_rtol_float",
       "aten::linalg_pinv.atol_rtol_tensor", "aten::linalg_pinv.rcond_tensor", "aten::pinverse",
       "aten::linalg_matrix_rank", "aten::linalg_matrix_rank.tol_tensor",
       "aten::linalg_matrix_rank.atol_rtol_tensor", "aten::linalg_matrix_rank.atol_rtol_float",
       "aten::linalg_matrix_exp", "aten::matrix_exp", "aten::linalg_lstsq", "aten::linalg_cond",
       "aten::linalg_cond.p_str", "aten::linalg_tensorinv", "aten::linalg_tensorsolve",
       "aten::orgqr", "aten::ormqr", "aten::linalg_householder_product",
       "aten::linalg_ldl_factor", "aten::linalg_solve_triangular", "aten::triangular_solve",
       "aten::geqrf", "aten::nuclear_norm", "aten::nuclear_norm.dim"},
      noKernel, Dynamic::Handled);
  addRefusals(t, {"aten::linalg_polar", "aten::linalg_matrix_sqrth"},
              "it needs a matrix factorization (an SVD or an eigen-decomposition), and there is "
              "no kernel for it in ExecuTorch's portable library");
  addLegalizations(t, {"aten::linalg_matrix_power", "aten::matrix_power"}, matrixPower);
  addRefusals(t, {"aten::histc"},
              "ptec has no decomposition of histc into ExecuTorch's portable kernels yet; "
              "compute the histogram outside the model");
  addRefusals(t, {"aten::hash_tensor"},
              "a hash of the tensor's bits (torch.hash_tensor), which no ExecuTorch portable "
              "kernel computes; hash outside the model");
  addRefusals(t, {"aten::segment_reduce"},
              "ptec has no decomposition of segment_reduce into ExecuTorch's portable kernels "
              "yet; use scatter_reduce with a segment id per element");
}

} // namespace reduce

void addReduceLegalizations(LegalizeTable &t) {
  reduce::addNormRules(t);
  reduce::addStatisticsRules(t);
  reduce::addProductRules(t);
  reduce::addLossRules(t);
  reduce::addRefusals(t);
}

} // namespace ptec::legalize
