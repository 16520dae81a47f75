//===- LegalizeElementwise.cpp - conversions, factories, other names ------===//
//
// legalize-to-core-aten rewrites of the pointwise family that are not math:
//  - dtype and device conversions (`to.*`, `type_as`, `_cast_*`): the
//    input itself when nothing changes, else `_to_copy` to the declared dtype
//    (one memory space: devices and memory formats change no value);
//  - `view_as`/`reshape_as`/`expand_as`: the view copy with the other
//    tensor's sizes (read at run time on dynamic shapes);
//  - `new_*`, `empty_like`, `empty_strided`, `rand_like`, `randn_like`: the
//    factory with a portable kernel (`full`, `empty.memory_format`, `rand`);
//  - other names of core operators: `__and__` is `bitwise_and`, `divide` is
//    `div`, `greater` is `gt`, `arccos` is `acos`, `clip` is `clamp`, ...;
//  - a number first (`bitwise_and.Scalar_Tensor`, `remainder.Scalar_Tensor`,
//    the shifts): the number as a 0-dim tensor, then the `.Tensor` overload.
// The math decompositions are in LegalizeElementwiseMath.cpp.
//
//===----------------------------------------------------------------------===//

#include "passes/LegalizeElementwise.h"

namespace ptec::legalize {
namespace elementwise {

// ---- Chain.

Value Chain::op(StringRef name, ArrayRef<Operands> tensors, ArrayRef<NamedAttribute> attrs) {
  for (const Operands &o : tensors)
    for (Value v : o)
      if (!v)
        return {};
  FailureOr<Value> r = L.make(name, tensors, attrs);
  return succeeded(r) ? *r : Value();
}

Value Chain::constant(Attribute v, Type dtype) {
  return op("aten::scalar_tensor", {}, {L.attr("s", v), L.dtype("dtype", dtype)});
}

Value Chain::cast(Value x, Type dtype) {
  if (!x || elementType(x) == dtype)
    return x;
  return op("aten::_to_copy", {{x}}, {L.dtype("dtype", dtype)});
}

Value Chain::filledLike(Value x, Attribute v, Type dtype) {
  return op("aten::full_like", {{x}}, {L.attr("fill_value", v), L.dtype("dtype", dtype)});
}

Type Chain::opmath(Type t) {
  return t.isF16() || t.isBF16() ? L.b.getF32Type() : t;
}

bool wellFormed(exir::AtenOp op) {
  const schema::FunctionSchema *s = op.getSchema();
  if (!s || op->getNumResults() == 0)
    return false;
  for (Value v : op.getTensorInputs())
    if (!llvm::isa<RankedTensorType>(v.getType()))
      return false;
  for (Value r : op->getResults())
    if (!llvm::isa<RankedTensorType>(r.getType()))
      return false;
  for (auto [i, a] : llvm::enumerate(s->arguments))
    if (a.type.kind == schema::TypeKind::Tensor && op.getArgOperands(i).size() != 1)
      return false;
  return true;
}

bool isFloatType(Type t) { return llvm::isa<FloatType>(t); }

bool isIntegerOrBool(Type t) { return llvm::isa<IntegerType>(t); }

namespace {

// ---- Conversions.

/// to.dtype / to.dtype_layout / to.device / to.other / type_as / _cast_*:
/// the declared result (its shape rule checked it) is the input's shape in
/// the target dtype. No change is the input itself (PyTorch returns an
/// alias; functionalization already treated it as one); otherwise
/// `_to_copy`. Devices and memory formats change no value here: one memory
/// space, and layouts are the planner's business.
LogicalResult convert(Legalizer &L) {
  Value x = L.operand("self");
  RankedTensorType rt = L.resultType();
  if (!x || !rt)
    return success(); // malformed: left for the verifier to name
  if (auto layout = L.op->getAttrOfType<StringAttr>("layout");
      layout && layout.getValue() != "strided")
    return L.refuse("with layout '" + layout.getValue() +
                    "' is not supported: ExecuTorch tensors are dense (strided)");
  if (x.getType() == rt)
    return L.replace({x});
  return L.replaceWith(
      L.make("aten::_to_copy", rt, {{x}}, {L.dtype("dtype", rt.getElementType())}));
}

// ---- *_as.

LogicalResult viewAs(Legalizer &L) {
  Value x = L.operand("self"), other = L.operand("other");
  RankedTensorType ot = other ? tensorType(other) : RankedTensorType();
  if (!x || !ot)
    return success();
  if (!L.dynamic)
    return L.replaceWith(L.view(x, ot.getShape()));
  return L.replaceWith(L.reshape(x, L.dimsOf(other, 0, ot.getRank())));
}

/// Appends `sizes` (i64 values) to `made`'s operands, bound to `arg[i]`.
void bindSymInts(Operation *made, ArrayRef<std::pair<Value, std::string>> sizes) {
  if (sizes.empty())
    return;
  SmallVector<Value> operands(made->getOperands());
  SmallVector<Attribute> binds;
  Builder b(made->getContext());
  for (const auto &[v, name] : sizes) {
    operands.push_back(v);
    binds.push_back(b.getStringAttr(name));
  }
  made->setOperands(operands);
  made->setAttr(exir::kSymArgsAttrName, b.getArrayAttr(binds));
}

/// expand_as(self, other): expand_copy to other's sizes; on dynamic shapes
/// each size is read from `other` at run time.
LogicalResult expandAs(Legalizer &L) {
  Value x = L.operand("self"), other = L.operand("other");
  RankedTensorType rt = L.resultType();
  if (!x || !other || !rt)
    return success();
  if (!L.dynamic && x.getType() == rt)
    return L.replace({x});
  SmallVector<std::pair<Value, std::string>> sizes; // before their user
  for (int64_t i = 0; L.dynamic && i < rt.getRank(); ++i)
    sizes.push_back({L.b.create<exir::SymSizeOp>(L.loc, L.b.getI64Type(), other,
                                                 L.b.getI64IntegerAttr(i)),
                     "size[" + std::to_string(i) + "]"});
  FailureOr<Value> e = L.make("aten::expand_copy", rt, {{x}}, {L.ints("size", rt.getShape())});
  if (failed(e))
    return failure();
  bindSymInts(e->getDefiningOp(), sizes);
  return L.replace({*e});
}

// ---- Factories.

/// The op's run-time elements of its `size` argument, carried over to `made`
/// (whose argument is also `size`); `stride` elements are dropped.
void carrySizes(Legalizer &L, Value made) {
  ArrayAttr binds = L.op.getSymArgs();
  if (!binds)
    return;
  SmallVector<std::pair<Value, std::string>> sizes;
  for (auto [v, a] : llvm::zip(L.op.getSymOperands(), binds)) {
    StringRef name = llvm::cast<StringAttr>(a).getValue();
    if (name.starts_with("size["))
      sizes.push_back({v, name.str()});
  }
  bindSymInts(made.getDefiningOp(), sizes);
}

/// new_zeros / new_ones / new_full / new_empty / new_empty_strided /
/// empty_strided / empty_permuted: `full` or `empty.memory_format` of the declared dtype.
/// Strides (or empty_permuted's physical layout) give no values: an empty
/// tensor's contents are unspecified.
LogicalResult sizedFactory(Legalizer &L) {
  StringRef name = L.op.getOpName();
  RankedTensorType rt = L.resultType();
  Attribute size = L.op->getAttr("size");
  if (!rt || !size)
    return success();
  SmallVector<NamedAttribute> attrs = {L.attr("size", size),
                                       L.dtype("dtype", rt.getElementType())};
  StringRef target = "aten::full";
  if (name == "aten::new_zeros")
    attrs.push_back(L.i64("fill_value", 0));
  else if (name == "aten::new_ones")
    attrs.push_back(L.i64("fill_value", 1));
  else if (name == "aten::new_full")
    attrs.push_back(L.attr("fill_value", L.op->getAttr("fill_value")));
  else
    target = "aten::empty.memory_format";
  FailureOr<Value> made = L.make(target, rt, {}, attrs);
  if (failed(made))
    return failure();
  carrySizes(L, *made);
  return L.replace({*made});
}

/// empty_like: `empty.memory_format` of self's sizes; on run-time shapes
/// `full_like` (zeros), whose kernel takes the input's run-time sizes.
LogicalResult emptyLike(Legalizer &L) {
  RankedTensorType rt = L.resultType();
  Value x = L.operand("self");
  if (!rt || !x)
    return success();
  if (L.dynamic)
    return L.replaceWith(L.make("aten::full_like", rt, {{x}},
                                {L.i64("fill_value", 0), L.dtype("dtype", rt.getElementType())}));
  return L.replaceWith(L.make("aten::empty.memory_format", rt, {},
                              {L.ints("size", rt.getShape()),
                               L.dtype("dtype", rt.getElementType())}));
}

/// rand_like / randn_like: rand / randn of self's (static) sizes.
LogicalResult randomLike(Legalizer &L) {
  RankedTensorType rt = L.resultType();
  if (!rt)
    return success();
  StringRef target = L.op.getOpName() == "aten::rand_like" ? "aten::rand" : "aten::randn";
  return L.replaceWith(L.make(target, rt, {},
                              {L.ints("size", rt.getShape()),
                               L.dtype("dtype", rt.getElementType())}));
}

LogicalResult randintLike(Legalizer &L) {
  return L.refuse("is not supported: it draws random integers, and ExecuTorch's portable "
                  "kernels have no randint");
}

// ---- Other names.

/// Operators that are another name of a core one with the same arguments.
const llvm::StringMap<StringRef> &otherNames() {
  static const llvm::StringMap<StringRef> m = {
      {"aten::__and__.Tensor", "aten::bitwise_and.Tensor"},
      {"aten::__and__.Scalar", "aten::bitwise_and.Scalar"},
      {"aten::__or__.Tensor", "aten::bitwise_or.Tensor"},
      {"aten::__or__.Scalar", "aten::bitwise_or.Scalar"},
      {"aten::__xor__.Tensor", "aten::bitwise_xor.Tensor"},
      {"aten::__xor__.Scalar", "aten::bitwise_xor.Scalar"},
      {"aten::__lshift__.Tensor", "aten::bitwise_left_shift.Tensor"},
      {"aten::__lshift__.Scalar", "aten::bitwise_left_shift.Tensor_Scalar"},
      {"aten::__rshift__.Tensor", "aten::bitwise_right_shift.Tensor"},
      {"aten::__rshift__.Scalar", "aten::bitwise_right_shift.Tensor_Scalar"},
      {"aten::divide.Tensor", "aten::div.Tensor"},
      {"aten::divide.Scalar", "aten::div.Scalar"},
      {"aten::divide.Tensor_mode", "aten::div.Tensor_mode"},
      {"aten::divide.Scalar_mode", "aten::div.Scalar_mode"},
      {"aten::true_divide.Tensor", "aten::div.Tensor"},
      {"aten::true_divide.Scalar", "aten::div.Scalar"},
      {"aten::multiply.Tensor", "aten::mul.Tensor"},
      {"aten::multiply.Scalar", "aten::mul.Scalar"},
      {"aten::subtract.Tensor", "aten::sub.Tensor"},
      {"aten::subtract.Scalar", "aten::sub.Scalar"},
      {"aten::greater.Tensor", "aten::gt.Tensor"},
      {"aten::greater.Scalar", "aten::gt.Scalar"},
      {"aten::greater_equal.Tensor", "aten::ge.Tensor"},
      {"aten::greater_equal.Scalar", "aten::ge.Scalar"},
      {"aten::less.Tensor", "aten::lt.Tensor"},
      {"aten::less.Scalar", "aten::lt.Scalar"},
      {"aten::less_equal.Tensor", "aten::le.Tensor"},
      {"aten::less_equal.Scalar", "aten::le.Scalar"},
      {"aten::not_equal.Tensor", "aten::ne.Tensor"},
      {"aten::not_equal.Scalar", "aten::ne.Scalar"},
      {"aten::absolute", "aten::abs"},
      {"aten::negative", "aten::neg"},
      {"aten::arccos", "aten::acos"},
      {"aten::arcsin", "aten::asin"},
      {"aten::arctan", "aten::atan"},
      {"aten::arccosh", "aten::acosh"},
      {"aten::arcsinh", "aten::asinh"},
      {"aten::arctanh", "aten::atanh"},
      {"aten::arctan2", "aten::atan2"},
      {"aten::clip", "aten::clamp"},
      {"aten::clip.Tensor", "aten::clamp.Tensor"},
      {"aten::fix", "aten::trunc"},
      {"aten::sgn", "aten::sign"}, // real tensors: complex ones are not supported at all
      {"aten::special_expit", "aten::sigmoid"},
      {"aten::special_erf", "aten::erf"},
      {"aten::special_expm1", "aten::expm1"},
      {"aten::special_log1p", "aten::log1p"},
      {"aten::special_logit", "aten::logit"},
  };
  return m;
}

LogicalResult otherName(Legalizer &L) { return L.rename(otherNames().lookup(L.op.getOpName())); }

LogicalResult identity(Legalizer &L) {
  Value x = L.operand("self");
  if (!x || x.getType() != L.op->getResult(0).getType())
    return success();
  return L.replace({x});
}

/// bitwise_{left,right}_shift.Scalar_Tensor(number, t): the number as a
/// 0-dim tensor of the result dtype, shifted by t.
LogicalResult shiftScalarTensor(Legalizer &L) {
  Chain c(L);
  Type dt = L.resultType().getElementType();
  StringRef target = L.op.getOpName().contains("left") ? "aten::bitwise_left_shift.Tensor"
                                                       : "aten::bitwise_right_shift.Tensor";
  Value other = c.cast(L.operand("other"), dt);
  Value self = c.constant(L.op->getAttr("self"), dt);
  return c.finish(c.binary(target, self, other));
}

/// bitwise_and/or/xor.Scalar_Tensor and remainder.Scalar_Tensor (number,
/// t): the number as a 0-dim tensor of the result dtype (the dtype PyTorch's
/// promotion gives, declared by the graph), then the `.Tensor` overload.
LogicalResult scalarTensor(Legalizer &L) {
  Chain c(L);
  Type dt = L.resultType().getElementType();
  StringRef name = L.op.getOpName();
  StringRef target = name.starts_with("aten::remainder") ? "aten::remainder.Tensor"
                     : name.contains("_and")             ? "aten::bitwise_and.Tensor"
                     : name.contains("_or")              ? "aten::bitwise_or.Tensor"
                                                         : "aten::bitwise_xor.Tensor";
  Value other = c.cast(L.operand("other"), dt);
  Value self = c.constant(L.op->getAttr("self"), dt);
  return c.finish(c.binary(target, self, other));
}

/// _conj_physical of a real tensor is the tensor.
LogicalResult conjPhysical(Legalizer &L) {
  if (llvm::isa<ComplexType>(L.resultType().getElementType()))
    return L.refuse("of a complex tensor is not supported: ExecuTorch's portable kernels "
                    "have no complex dtype");
  return identity(L);
}

/// angle of a real tensor: pi where x < 0, 0 where x >= 0, NaN where x is
/// NaN (PyTorch's real angle); integer inputs give the default float dtype.
LogicalResult angle(Legalizer &L) {
  RankedTensorType rt = L.resultType();
  if (llvm::isa<ComplexType>(rt.getElementType()) ||
      llvm::isa<ComplexType>(tensorType(L.operand("self")).getElementType()))
    return L.refuse("of a complex tensor is not supported: ExecuTorch's portable kernels "
                    "have no complex dtype");
  Chain c(L);
  Value x = c.cast(L.operand("self"), rt.getElementType());
  Value negative = c.withScalar("aten::lt.Scalar", x, 0);
  Value pi = c.constant(3.14159265358979323846, rt.getElementType());
  Value zero = c.constant(0.0, rt.getElementType());
  Value signAngle = c.where(negative, pi, zero);
  Value nan = c.unary("aten::isnan", x);
  return c.finish(c.where(nan, x, signAngle));
}

} // namespace
} // namespace elementwise

void addElementwiseLegalizations(LegalizeTable &t) {
  using namespace elementwise;
  // Pointwise: each kernel takes its inputs' run-time sizes.
  addLegalizations(t,
                   {"aten::to.dtype", "aten::to.dtype_layout", "aten::to.device",
                    "aten::to.other", "aten::type_as", "aten::_cast_Byte", "aten::_cast_Char",
                    "aten::_cast_Double", "aten::_cast_Float", "aten::_cast_Half",
                    "aten::_cast_Int", "aten::_cast_Long", "aten::_cast_Short"},
                   guarded<convert>, Dynamic::Handled);
  addLegalizations(t, {"aten::view_as", "aten::reshape_as"}, guarded<viewAs>, Dynamic::Handled);
  addLegalizations(t, {"aten::expand_as"}, guarded<expandAs>, Dynamic::Handled);
  addLegalizations(t,
                   {"aten::new_zeros", "aten::new_ones", "aten::new_full", "aten::new_empty",
                    "aten::new_empty_strided", "aten::empty_strided", "aten::empty_permuted"},
                   guarded<sizedFactory>, Dynamic::Handled);
  addLegalizations(t, {"aten::empty_like"}, guarded<emptyLike>, Dynamic::Handled);
  addLegalizations(t, {"aten::rand_like", "aten::randn_like"}, guarded<randomLike>);
  addLegalizations(t, {"aten::randint_like"}, guarded<randintLike>, Dynamic::Handled);
  for (const auto &e : otherNames())
    t[e.getKey()] = LegalizeRule{guarded<otherName>, Dynamic::Handled};
  addLegalizations(t, {"aten::positive"}, guarded<identity>, Dynamic::Handled);
  addLegalizations(t,
                   {"aten::bitwise_left_shift.Scalar_Tensor",
                    "aten::bitwise_right_shift.Scalar_Tensor"},
                   guarded<shiftScalarTensor>, Dynamic::Handled);
  addLegalizations(t,
                   {"aten::bitwise_and.Scalar_Tensor", "aten::bitwise_or.Scalar_Tensor",
                    "aten::bitwise_xor.Scalar_Tensor", "aten::remainder.Scalar_Tensor"},
                   guarded<scalarTensor>, Dynamic::Handled);
  addLegalizations(t, {"aten::_conj_physical", "aten::conj_physical", "aten::real"},
                   guarded<conjPhysical>, Dynamic::Handled);
  addLegalizations(t, {"aten::resolve_conj", "aten::resolve_neg"}, guarded<conjPhysical>,
                   Dynamic::Handled);
  addLegalizations(t, {"aten::angle"}, guarded<angle>, Dynamic::Handled);
  addRefusals(t,
              {"aten::special_airy_ai", "aten::special_ndtri", "aten::special_zeta",
               "aten::special_spherical_bessel_j0", "aten::special_scaled_modified_bessel_k0",
               "aten::special_scaled_modified_bessel_k1", "aten::special_chebyshev_polynomial_t",
               "aten::special_chebyshev_polynomial_u", "aten::special_chebyshev_polynomial_v",
               "aten::special_chebyshev_polynomial_w",
               "aten::special_shifted_chebyshev_polynomial_t",
               "aten::special_shifted_chebyshev_polynomial_u",
               "aten::special_shifted_chebyshev_polynomial_v",
               "aten::special_shifted_chebyshev_polynomial_w",
               "aten::special_hermite_polynomial_h", "aten::special_hermite_polynomial_he",
               "aten::special_laguerre_polynomial_l", "aten::special_legendre_polynomial_p"},
              "a special function (Airy, Bessel, zeta, inverse normal CDF or an orthogonal "
              "polynomial) that no ExecuTorch portable kernel computes; evaluate it outside the "
              "model and pass the result in");
  addRefusals(t, {"aten::frexp.Tensor"},
              "it splits floats into mantissa and exponent bits, which no ExecuTorch portable "
              "kernel does; compute it outside the model (or use log2/floor if an "
              "approximation serves)");
  addRefusals(t,
              {"aten::rand.generator", "aten::randn.generator", "aten::randint",
               "aten::randint.low", "aten::randperm", "aten::randint_like.low_dtype"},
              "random sampling: a compiled program cannot reproduce PyTorch's generator (and "
              "ExecuTorch's portable kernels have no randint or randperm); sample outside the "
              "model or pass the noise in as an input");
  addRefusals(t, {"aten::allclose", "aten::equal"},
              "it returns a Python bool, which a program's outputs cannot carry; compare with "
              "torch.isclose(...).all() or torch.eq(...).all(), which return tensors");
  addMathLegalizations(t);
}

} // namespace ptec::legalize
