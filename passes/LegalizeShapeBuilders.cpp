//===- LegalizeShapeBuilders.cpp - builders of the Shape legalizations ----===//
//
// The small builders LegalizeShape.h declares (slices, cats, permutes,
// aranges, fills, casts, scalars of a dtype), shared by LegalizeShape*.cpp.
//
//===----------------------------------------------------------------------===//

#include "passes/LegalizeShape.h"

#include <limits>

namespace ptec::legalize {
namespace shape {

Attribute scalarFor(Legalizer &L, Type dtype, double v) {
  if (dtype.isInteger(1))
    return L.b.getBoolAttr(v != 0);
  if (llvm::isa<IntegerType>(dtype))
    return L.b.getI64IntegerAttr(static_cast<int64_t>(v));
  return L.b.getF64FloatAttr(v);
}

Attribute lowestOf(Legalizer &L, Type dtype) {
  if (dtype.isInteger(1))
    return L.b.getBoolAttr(false);
  if (auto it = llvm::dyn_cast<IntegerType>(dtype))
    return L.b.getI64IntegerAttr(
        it.isUnsigned() ? 0 : llvm::APInt::getSignedMinValue(it.getWidth()).getSExtValue());
  return L.b.getF64FloatAttr(-std::numeric_limits<double>::infinity());
}

Attribute highestOf(Legalizer &L, Type dtype) {
  if (dtype.isInteger(1))
    return L.b.getBoolAttr(true);
  if (auto it = llvm::dyn_cast<IntegerType>(dtype))
    return L.b.getI64IntegerAttr(
        it.isUnsigned() ? static_cast<int64_t>(llvm::APInt::getMaxValue(it.getWidth()).getZExtValue())
                        : llvm::APInt::getSignedMaxValue(it.getWidth()).getSExtValue());
  return L.b.getF64FloatAttr(std::numeric_limits<double>::infinity());
}

FailureOr<Value> slice(Legalizer &L, Value v, int64_t dim, std::optional<int64_t> start,
                       std::optional<int64_t> end, int64_t step) {
  return L.make("aten::slice_copy.Tensor", {{v}},
                {L.i64("dim", dim), start ? L.i64("start", *start) : L.none("start"),
                 end ? L.i64("end", *end) : L.none("end"), L.i64("step", step)});
}

FailureOr<Value> cat(Legalizer &L, ArrayRef<Value> vs, int64_t dim) {
  if (vs.size() == 1)
    return vs.front();
  return L.make("aten::cat", {Operands(vs.begin(), vs.end())}, {L.i64("dim", dim)});
}

FailureOr<Value> permute(Legalizer &L, Value v, ArrayRef<int64_t> perm) {
  bool identity = true;
  for (auto [i, p] : llvm::enumerate(perm))
    identity &= static_cast<int64_t>(i) == p;
  if (identity)
    return v;
  return L.make("aten::permute_copy", {{v}}, {L.ints("dims", perm)});
}

FailureOr<Value> expand(Legalizer &L, Value v, ArrayRef<int64_t> shape) {
  if (tensorType(v).getShape() == shape)
    return v;
  return L.make("aten::expand_copy", {{v}}, {L.ints("size", shape)});
}

FailureOr<Value> unsqueeze(Legalizer &L, Value v, int64_t dim) {
  SmallVector<int64_t> shape(tensorType(v).getShape());
  shape.insert(shape.begin() + dim, 1);
  return L.view(v, shape);
}

FailureOr<Value> arange(Legalizer &L, int64_t n, int64_t start) {
  return L.make("aten::arange.start_step", {},
                {L.i64("start", start), L.i64("end", start + n), L.i64("step", 1),
                 L.dtype("dtype", L.b.getI64Type())});
}

FailureOr<Value> arangeAt(Legalizer &L, int64_t n, int64_t dim, int64_t rank) {
  FailureOr<Value> a = arange(L, n);
  if (failed(a))
    return failure();
  SmallVector<int64_t> shape(rank, 1);
  shape[dim] = n;
  return L.view(*a, shape);
}

FailureOr<Value> full(Legalizer &L, ArrayRef<int64_t> shape, Attribute value, Type dtype) {
  return L.make("aten::full", {},
                {L.ints("size", shape), L.attr("fill_value", value), L.dtype("dtype", dtype)});
}

FailureOr<Value> cast(Legalizer &L, Value v, Type dtype) {
  if (tensorType(v).getElementType() == dtype)
    return v;
  return L.make("aten::_to_copy", {{v}}, {L.dtype("dtype", dtype)});
}

FailureOr<Value> whereScalar(Legalizer &L, Value cond, Value a, Attribute b) {
  FailureOr<Value> s = full(L, {}, b, tensorType(a).getElementType());
  if (failed(s))
    return failure();
  return L.make("aten::where.self", {{cond}, {a}, {*s}});
}

FailureOr<Value> binary(Legalizer &L, StringRef name, Value a, Value b) {
  return L.make(name, {{a}, {b}});
}

void bindSyms(Operation *op, ArrayRef<std::pair<std::string, Value>> syms) {
  if (syms.empty())
    return;
  Builder b(op->getContext());
  SmallVector<Value> operands(op->getOperands());
  SmallVector<Attribute> binds;
  for (auto &[name, v] : syms) {
    operands.push_back(v);
    binds.push_back(b.getStringAttr(name));
  }
  op->setOperands(operands);
  op->setAttr(exir::kSymArgsAttrName, b.getArrayAttr(binds));
}

bool resultUsed(Legalizer &L, unsigned i) { return !L.op->getResult(i).use_empty(); }

LogicalResult replaceFirst(Legalizer &L, Value v) {
  Operation *op = L.op;
  for (unsigned i = 1; i < op->getNumResults(); ++i)
    if (resultUsed(L, i))
      return L.refuse("with result #" + Twine(i) + " read is not supported");
  if (op->getResult(0).getType() != v.getType())
    return op->emitError("internal: the rewrite of '")
           << L.op.getOpName() << "' computes " << v.getType()
           << " for result #0, which the graph declares " << op->getResult(0).getType();
  op->getResult(0).replaceAllUsesWith(v);
  op->erase();
  return success();
}

} // namespace shape

} // namespace ptec::legalize
