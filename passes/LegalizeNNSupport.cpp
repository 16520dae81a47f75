//===- LegalizeNNSupport.cpp - op builders the NN rewrites share ----------===//

#include "passes/LegalizeNNSupport.h"

#include <cmath>

namespace ptec::legalize {

bool NNOps::anyNull(ArrayRef<Operands> tensors) const {
  for (const Operands &o : tensors)
    for (Value v : o)
      if (!v)
        return true;
  return false;
}

Value NNOps::make(StringRef name, ArrayRef<Operands> tensors, ArrayRef<NamedAttribute> attrs) {
  if (failed || anyNull(tensors)) {
    failed = true;
    return {};
  }
  FailureOr<Value> v = L.make(name, tensors, attrs);
  if (mlir::failed(v)) {
    failed = true;
    return {};
  }
  return *v;
}

SmallVector<Value> NNOps::makeAll(StringRef name, ArrayRef<Operands> tensors,
                                  ArrayRef<NamedAttribute> attrs) {
  if (failed || anyNull(tensors)) {
    failed = true;
    return {};
  }
  FailureOr<SmallVector<Value>> v = L.makeAll(name, tensors, attrs);
  if (mlir::failed(v)) {
    failed = true;
    return {};
  }
  return *v;
}

NamedAttribute NNOps::scalar(StringRef name, double v, Value like) {
  Type e = like ? getElementTypeOrSelf(like.getType()) : Type();
  if (e && e.isInteger() && std::trunc(v) == v)
    return L.i64(name, static_cast<int64_t>(v));
  return L.f64(name, v);
}

Value NNOps::view(Value v, ArrayRef<int64_t> shape) {
  if (!v || failed)
    return failed = true, Value();
  if (typeOf(v).getShape() == shape)
    return v;
  return make("aten::view_copy", {{v}}, {L.ints("size", shape)});
}

Value NNOps::permute(Value v, ArrayRef<int64_t> dims) {
  bool identity = true;
  for (auto [i, d] : llvm::enumerate(dims))
    identity &= d == static_cast<int64_t>(i);
  if (identity && v)
    return v;
  return make("aten::permute_copy", {{v}}, {L.ints("dims", dims)});
}

Value NNOps::unsqueeze(Value v, int64_t dim) {
  return make("aten::unsqueeze_copy", {{v}}, {L.i64("dim", dim)});
}

Value NNOps::squeeze(Value v, int64_t dim) {
  return make("aten::squeeze_copy.dim", {{v}}, {L.i64("dim", dim)});
}

Value NNOps::slice(Value v, int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (v && start == 0 && step == 1 && end >= typeOf(v).getDimSize(dim))
    return v;
  return make("aten::slice_copy.Tensor", {{v}},
              {L.i64("dim", dim), L.i64("start", start), L.i64("end", end),
               L.i64("step", step)});
}

Value NNOps::select(Value v, int64_t dim, int64_t index) {
  return make("aten::select_copy.int", {{v}}, {L.i64("dim", dim), L.i64("index", index)});
}

Value NNOps::cat(ArrayRef<Value> vs, int64_t dim) {
  if (vs.size() == 1)
    return vs.front();
  return make("aten::cat", {Operands(vs.begin(), vs.end())}, {L.i64("dim", dim)});
}

Value NNOps::stack(ArrayRef<Value> vs, int64_t dim) {
  return make("aten::stack", {Operands(vs.begin(), vs.end())}, {L.i64("dim", dim)});
}

Value NNOps::indexSelect(Value v, int64_t dim, Value index) {
  return make("aten::index_select", {{v}, {index}}, {L.i64("dim", dim)});
}

Value NNOps::expand(Value v, ArrayRef<int64_t> shape) {
  if (v && typeOf(v).getShape() == shape)
    return v;
  return make("aten::expand_copy", {{v}}, {L.ints("size", shape)});
}

Value NNOps::pad(Value v, ArrayRef<int64_t> p, double value) {
  if (llvm::all_of(p, [](int64_t x) { return x == 0; }))
    return v;
  return make("aten::constant_pad_nd", {{v}}, {L.ints("pad", p), scalar("value", value, v)});
}

Value NNOps::add(Value a, Value b) { return make("aten::add.Tensor", {{a}, {b}}); }
Value NNOps::sub(Value a, Value b) { return make("aten::sub.Tensor", {{a}, {b}}); }
Value NNOps::mul(Value a, Value b) { return make("aten::mul.Tensor", {{a}, {b}}); }
Value NNOps::div(Value a, Value b) { return make("aten::div.Tensor", {{a}, {b}}); }

Value NNOps::addS(Value a, double s) {
  return make("aten::add.Scalar", {{a}}, {scalar("other", s, a)});
}

Value NNOps::mulS(Value a, double s) {
  return make("aten::mul.Scalar", {{a}}, {scalar("other", s, a)});
}

Value NNOps::divS(Value a, double s) {
  return make("aten::div.Scalar", {{a}}, {scalar("other", s, a)});
}

Value NNOps::rsubS(Value a, double s) {
  return make("aten::rsub.Scalar", {{a}}, {scalar("other", s, a)});
}

Value NNOps::clamp(Value v, std::optional<double> lo, std::optional<double> hi) {
  return make("aten::clamp", {{v}},
              {lo ? scalar("min", *lo, v) : L.none("min"),
               hi ? scalar("max", *hi, v) : L.none("max")});
}

Value NNOps::where(Value cond, Value a, Value b) {
  return make("aten::where.self", {{cond}, {a}, {b}});
}

Value NNOps::compareS(StringRef name, Value a, double s) {
  return make(name, {{a}}, {scalar("other", s, a)});
}

Value NNOps::mm(Value a, Value b) { return make("aten::mm", {{a}, {b}}); }

Value NNOps::addmm(Value bias, Value a, Value b) {
  if (!bias)
    return mm(a, b);
  return make("aten::addmm", {{bias}, {a}, {b}});
}

Value NNOps::toType(Value v, Type elem) {
  if (v && getElementTypeOrSelf(v.getType()) == elem)
    return v;
  return make("aten::_to_copy", {{v}}, {L.dtype("dtype", elem)});
}

Value NNOps::arange(int64_t start, int64_t end, int64_t step, Type elem) {
  return make("aten::arange.start_step", {},
              {L.i64("start", start), L.i64("end", end), L.i64("step", step),
               L.dtype("dtype", elem)});
}

Value NNOps::full(ArrayRef<int64_t> shape, double value, Type elem) {
  NamedAttribute fill = elem.isInteger() && std::trunc(value) == value
                            ? L.i64("fill_value", static_cast<int64_t>(value))
                            : L.f64("fill_value", value);
  return make("aten::full", {}, {L.ints("size", shape), fill, L.dtype("dtype", elem)});
}

LogicalResult NNOps::finish(ArrayRef<Value> values) {
  if (failed || llvm::any_of(values, [](Value v) { return !v; }))
    return failure();
  return L.replace(values);
}

SmallVector<int64_t> spatialList(exir::AtenOp op, StringRef name, size_t n,
                                 ArrayRef<int64_t> dflt) {
  SmallVector<int64_t> v;
  if (auto a = op->getAttrOfType<DenseI64ArrayAttr>(name))
    v.assign(a.asArrayRef().begin(), a.asArrayRef().end());
  if (v.empty())
    v.assign(dflt.begin(), dflt.end());
  if (v.size() == 1)
    v.assign(n, v.front());
  return v;
}

std::optional<double> optFloat(exir::AtenOp op, StringRef name) {
  if (auto f = op->getAttrOfType<FloatAttr>(name))
    return f.getValueAsDouble();
  if (auto i = op->getAttrOfType<IntegerAttr>(name))
    return static_cast<double>(i.getInt());
  return std::nullopt;
}

std::optional<SmallVector<double>> optFloats(exir::AtenOp op, StringRef name) {
  if (auto a = op->getAttrOfType<DenseF64ArrayAttr>(name))
    return SmallVector<double>(a.asArrayRef());
  return std::nullopt;
}

} // namespace ptec::legalize
