//===- AtenBuilder.cpp - build exir.aten ops by schema --------------------===//

#include "passes/AtenBuilder.h"

#include "dialects/exir/IR/ShapeRules.h"

namespace ptec {
using namespace mlir;

Attribute defaultAttr(MLIRContext *ctx, const schema::Argument &arg) {
  if (!arg.defaultValue)
    return {};
  const schema::DefaultValue &d = *arg.defaultValue;
  Builder b(ctx);
  using K = schema::DefaultValue::Kind;
  switch (d.kind) {
  case K::None:
    return exir::NoneAttr::get(ctx);
  case K::Bool:
    return b.getBoolAttr(d.b);
  case K::Int: {
    const schema::SchemaType *t = &arg.type;
    if (t->kind == schema::TypeKind::Optional)
      t = &t->elems.front();
    if (t->kind == schema::TypeKind::Float)
      return b.getF64FloatAttr(static_cast<double>(d.i));
    if (t->kind == schema::TypeKind::List)
      return b.getDenseI64ArrayAttr(SmallVector<int64_t>(
          t->fixedSize.value_or(1), d.i));
    return b.getI64IntegerAttr(d.i);
  }
  case K::Double:
    return b.getF64FloatAttr(d.d);
  case K::String:
    return b.getStringAttr(d.s);
  case K::IntList:
    return b.getDenseI64ArrayAttr(d.ints);
  case K::DoubleList:
    return b.getDenseF64ArrayAttr(d.doubles);
  case K::BoolList:
    return b.getDenseBoolArrayAttr(
        SmallVector<bool>(d.bools.begin(), d.bools.end()));
  case K::Enum:
    if (arg.type.kind == schema::TypeKind::ScalarType ||
        (arg.type.kind == schema::TypeKind::Optional &&
         arg.type.elems.front().kind == schema::TypeKind::ScalarType))
      return TypeAttr::get(d.s == "long" ? Type(b.getI64Type())
                                         : Type(b.getF32Type()));
    return b.getStringAttr(d.s);
  case K::Complex:
    return {};
  }
  return {};
}

FailureOr<exir::AtenOp>
buildAten(OpBuilder &b, Location loc, StringRef name, TypeRange resultTypes,
          ArrayRef<SmallVector<Value, 1>> tensorArgs,
          ArrayRef<NamedAttribute> attrs) {
  const schema::FunctionSchema *s =
      schema::OperatorRegistry::builtin().lookup(name.str());
  if (!s)
    return emitError(loc, "internal: operator '") << name << "' is not in the registry";
  SmallVector<Value> operands;
  SmallVector<int32_t> segments;
  SmallVector<NamedAttribute> all(attrs.begin(), attrs.end());
  unsigned t = 0;
  for (const schema::Argument &a : s->arguments) {
    if (a.type.isTensorLike()) {
      if (t >= tensorArgs.size())
        return emitError(loc, "internal: '")
               << name << "' needs tensor argument '" << a.name << "'";
      segments.push_back(tensorArgs[t].size());
      operands.append(tensorArgs[t].begin(), tensorArgs[t].end());
      ++t;
      continue;
    }
    bool given = llvm::any_of(attrs, [&](NamedAttribute na) {
      return na.getName() == a.name;
    });
    if (!given)
      if (Attribute d = defaultAttr(b.getContext(), a))
        all.push_back(b.getNamedAttr(a.name, d));
  }
  if (t != tensorArgs.size())
    return emitError(loc, "internal: too many tensor arguments for '") << name << "'";
  return b.create<exir::AtenOp>(loc, name, resultTypes, operands, segments, all);
}

FailureOr<exir::AtenOp>
buildAtenInferred(OpBuilder &b, Location loc, StringRef name,
                  ArrayRef<SmallVector<Value, 1>> tensorArgs,
                  ArrayRef<NamedAttribute> attrs) {
  // The rule reads operands and attributes only: ask it on a result-less
  // probe, then build the op with what it says.
  FailureOr<exir::AtenOp> probe = buildAten(b, loc, name, TypeRange(), tensorArgs, attrs);
  if (failed(probe))
    return failure();
  FailureOr<SmallVector<Type>> types = exir::inferResultTypes(*probe);
  if (failed(types)) {
    probe->erase();
    return failure();
  }
  OperationState state(loc, exir::AtenOp::getOperationName());
  state.addOperands((*probe)->getOperands());
  state.addAttributes((*probe)->getAttrs());
  state.addTypes(*types);
  Operation *op = b.create(state);
  probe->erase();
  return llvm::cast<exir::AtenOp>(op);
}

FailureOr<Value> buildAtenValue(OpBuilder &b, Location loc, StringRef name,
                                Type resultType,
                                ArrayRef<SmallVector<Value, 1>> tensorArgs,
                                ArrayRef<NamedAttribute> attrs) {
  FailureOr<exir::AtenOp> op =
      buildAten(b, loc, name, TypeRange(resultType), tensorArgs, attrs);
  if (failed(op))
    return failure();
  return (*op)->getResult(0);
}

} // namespace ptec
