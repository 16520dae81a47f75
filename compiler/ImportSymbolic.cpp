//===- ImportSymbolic.cpp - dynamic shapes in the importer ----------------===//

#include "compiler/ImportSymbolic.h"

#include "dialects/exir/IR/ExirDialect.h"

#include "llvm/ADT/StringSwitch.h"

#include <set>

using namespace mlir;
using AK = ptec::pt2::Argument::Kind;

namespace ptec::import {

namespace {

/// Sizes above this are refused: a bound is memory the program reserves.
constexpr int64_t kMaxBoundedDim = int64_t(1) << 31;

} // namespace

SymbolicShapes::SymbolicShapes(const pt2::ExportedProgram &program) {
  for (const auto &[name, r] : program.rangeConstraints) {
    ranges_[name] = pt2::SymRange{r.min, r.max};
    if (r.max)
      atBound_[name] = *r.max;
  }
}

std::optional<pt2::SymExpr> SymbolicShapes::parse(const std::string &text,
                                                  std::string *error) {
  if (auto it = parsed_.find(text); it != parsed_.end())
    return it->second;
  std::optional<pt2::SymExpr> e = pt2::SymExpr::parse(text, error);
  if (e)
    parsed_.emplace(text, *e);
  return e;
}

bool SymbolicShapes::upperBound(const std::string &text, int64_t &value, bool &symbolic,
                                std::string *error) {
  std::string why;
  std::optional<pt2::SymExpr> e = parse(text, &why);
  if (!e) {
    *error = "expression: " + why;
    return false;
  }
  symbolic = false;
  if (std::optional<int64_t> c = e->asConstant()) {
    value = *c;
    return true;
  }
  std::set<std::string> names;
  e->symbols(names);
  for (const std::string &n : names) {
    auto r = ranges_.find(n);
    if (r == ranges_.end()) {
      *error = e->str() + ": symbol '" + n +
               "' has no range in range_constraints; data-dependent sizes are not supported";
      return false;
    }
    if (!r->second.max) {
      *error = e->str() + ": symbol '" + n +
               "' has no upper bound; export it with Dim(..., max=N)";
      return false;
    }
    // An empty range would otherwise read as a size that does not grow.
    if (r->second.min > *r->second.max) {
      *error = e->str() + ": symbol '" + n + "' has min " + std::to_string(r->second.min) +
               " > max " + std::to_string(*r->second.max) +
               " in range_constraints: no value is allowed";
      return false;
    }
  }
  if (!e->isMonotone(ranges_)) {
    *error = e->str() + " does not grow with its symbols, so its largest value is not known";
    return false;
  }
  std::optional<int64_t> v = e->evaluate(atBound_, &why);
  if (!v) {
    *error = e->str() + ": " + why;
    return false;
  }
  value = *v;
  symbolic = true;
  return true;
}

bool SymbolicShapes::boundSizes(const pt2::TensorMeta &meta,
                                llvm::SmallVectorImpl<int64_t> &sizes,
                                llvm::SmallVectorImpl<int64_t> &dynamicDims,
                                std::string *error) {
  sizes.assign(meta.sizes.begin(), meta.sizes.end());
  for (size_t d = 0; d < meta.symSizes.size() && d < sizes.size(); ++d) {
    const std::string &text = meta.symSizes[d];
    if (text.empty())
      continue;
    auto fail = [&](const std::string &why) {
      *error = "dimension " + std::to_string(d) + " (" + why + ")";
      return false;
    };
    std::string why;
    int64_t v = 0;
    bool symbolic = false;
    if (!upperBound(text, v, symbolic, &why))
      return fail("size " + why);
    if (symbolic && (v < 0 || v > kMaxBoundedDim))
      return fail("size " + text + " is " + std::to_string(v) +
                  " at the symbols' upper bounds, outside [0, 2^31]");
    sizes[d] = v;
    if (symbolic)
      dynamicDims.push_back(static_cast<int64_t>(d));
  }
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] < 0) {
      *error = "dimension " + std::to_string(d) + " is symbolic without an expression";
      return false;
    }
  return true;
}

bool isSymbolicNode(StringRef target) {
  return target.starts_with("_operator.") || target.starts_with("operator.") ||
         target.starts_with("torch.sym_") || target.starts_with("math.") ||
         target == "torch.ops.aten.sym_size.int" ||
         target == "torch.ops.aten._assert_scalar.default" ||
         target == "torch.ops.aten.sym_constrain_range_for_size.default" ||
         target == "torch.ops.aten.sym_constrain_range.default" ||
         target == "torch.ops.aten._assert_tensor_metadata.default";
}

namespace {

/// Floor division and modulo with Python's rounding (toward -infinity).
int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

struct SymOperand {
  Value value;
  int64_t bound;
};

} // namespace

bool importSymbolicNode(OpBuilder &b, Location loc, const pt2::Node &node,
                        llvm::function_ref<Value(StringRef)> tensor,
                        llvm::StringMap<SymValue> &syms, std::string *error) {
  StringRef target = node.target;
  auto fail = [&](const std::string &why) {
    *error = why;
    return false;
  };
  // Shape asserts: the runtime refuses inputs above their bounds; lower
  // bounds and relations between symbols are not checked (docs/dynamic-shapes.md).
  if (target == "torch.ops.aten._assert_scalar.default" ||
      target == "torch.ops.aten.sym_constrain_range_for_size.default" ||
      target == "torch.ops.aten.sym_constrain_range.default" ||
      target == "torch.ops.aten._assert_tensor_metadata.default")
    return true;

  auto output = [&]() -> const pt2::Argument * {
    if (node.outputs.size() != 1)
      return nullptr;
    return &node.outputs.front();
  };
  const pt2::Argument *out = output();

  if (target == "torch.ops.aten.sym_size.int") {
    if (node.inputs.size() != 2 || node.inputs[0].arg.kind != AK::Tensor ||
        node.inputs[1].arg.kind != AK::Int || !out || out->kind != AK::SymInt ||
        out->name.empty())
      return fail("sym_size.int takes (Tensor self, int dim) and returns one symbolic int");
    Value x = tensor(node.inputs[0].arg.name);
    if (!x)
      return fail("uses '" + node.inputs[0].arg.name + "', which is not defined before it");
    auto type = llvm::dyn_cast<RankedTensorType>(x.getType());
    int64_t dim = node.inputs[1].arg.i;
    int64_t rank = type ? type.getRank() : 0;
    if (dim < 0)
      dim += rank;
    if (!type || dim < 0 || dim >= rank)
      return fail("dim " + std::to_string(node.inputs[1].arg.i) + " is out of range");
    Value s = b.create<exir::SymSizeOp>(loc, b.getI64Type(), x, b.getI64IntegerAttr(dim));
    syms[out->name] = SymValue{s, type.getDimSize(dim)};
    return true;
  }

  // Python size arithmetic: positional operands, symbolic ints or ints.
  StringRef fn = target.rsplit('.').second;
  StringRef kind = llvm::StringSwitch<StringRef>(fn)
                       .Cases("add", "sub", "mul", "floordiv", "mod", "neg", fn)
                       .Case("sym_max", "max")
                       .Case("sym_min", "min")
                       .Cases("eq", "ne", "ge", "gt", "le", "lt", "compare")
                       .Default("");
  bool python = target.starts_with("_operator.") || target.starts_with("operator.") ||
                target.starts_with("torch.sym_");
  if (!python || kind.empty())
    return fail("symbolic operation '" + target.str() +
                "' is not supported (size arithmetic: add, sub, mul, floordiv, mod, neg, "
                "sym_max, sym_min)");
  SmallVector<SymOperand> args;
  for (const pt2::NamedArgument &in : node.inputs) {
    const pt2::Argument &a = in.arg;
    if ((a.kind == AK::SymInt && a.name.empty()) || a.kind == AK::Int) {
      args.push_back({Value(), a.i});
      continue;
    }
    if (a.kind != AK::SymInt) {
      std::string which = in.name.empty() ? std::to_string(args.size()) : "'" + in.name + "'";
      std::string what = a.kind == AK::SymFloat ? "a symbolic float"
                         : a.kind == AK::Tensor ? "the tensor '" + a.name + "'"
                                                : "not an int";
      return fail("operand " + which + " is " + what +
                  "; only integer size arithmetic on symbolic ints is supported");
    }
    auto it = syms.find(a.name);
    if (it == syms.end())
      return fail("uses '" + a.name + "', which is not a symbolic int defined before it");
    if (it->second.checkOnly)
      return fail("uses the comparison '" + a.name +
                  "' as a value; symbolic booleans are only supported in shape asserts");
    args.push_back({it->second.value, it->second.bound});
  }
  if (!out || out->name.empty())
    return fail("has no symbolic result");
  if (kind == "compare") {
    if (out->kind != AK::SymBool)
      return fail("a comparison must return a symbolic bool");
    syms[out->name] = SymValue{Value(), 0, /*checkOnly=*/true};
    return true;
  }
  if (out->kind != AK::SymInt)
    return fail("must return a symbolic int");
  size_t want = kind == "neg" ? 1 : 2;
  if (args.size() != want)
    return fail("takes " + std::to_string(want) + " operands, got " +
                std::to_string(args.size()));
  // The value at the bound, by the op's own meaning.
  int64_t a = args[0].bound, c = want == 2 ? args[1].bound : 0, r = 0;
  bool overflow = false;
  if (kind == "add")
    overflow = __builtin_add_overflow(a, c, &r);
  else if (kind == "sub")
    overflow = __builtin_sub_overflow(a, c, &r);
  else if (kind == "mul")
    overflow = __builtin_mul_overflow(a, c, &r);
  else if (kind == "neg")
    overflow = __builtin_sub_overflow(int64_t(0), a, &r);
  else if (kind == "max")
    r = std::max(a, c);
  else if (kind == "min")
    r = std::min(a, c);
  else if (c == 0)
    return fail("divides by zero at the symbols' upper bounds");
  else if (kind == "floordiv")
    r = floorDiv(a, c);
  else
    r = a - floorDiv(a, c) * c;
  if (overflow)
    return fail("overflows int64 at the symbols' upper bounds");
  SmallVector<Value> operands;
  for (const SymOperand &o : args)
    operands.push_back(o.value ? o.value
                               : b.create<exir::SymConstOp>(loc, b.getI64Type(),
                                                            b.getI64IntegerAttr(o.bound))
                                     .getResult());
  Value v = b.create<exir::SymOp>(loc, b.getI64Type(), b.getStringAttr(kind), operands);
  syms[out->name] = SymValue{v, r};
  return true;
}

bool bindSymbolicArgument(StringRef argName, const pt2::Argument &value, bool floatTyped,
                          const llvm::StringMap<SymValue> &syms,
                          const std::map<std::string, int64_t> &concrete,
                          SmallVectorImpl<Value> &operands,
                          SmallVectorImpl<std::string> &bindings, std::string *error) {
  auto bind = [&](const std::string &name, const std::string &entry) {
    auto it = syms.find(name);
    if (it == syms.end() || it->second.checkOnly) {
      if (concrete.count(name))
        return true; // known at export time: the attribute holds it
      *error = "argument '" + argName.str() + "' uses '" + name +
               "', which is not a symbolic int defined before it";
      return false;
    }
    if (floatTyped) {
      *error = "argument '" + argName.str() + "' is a float computed from sizes ('" + name +
               "'); not supported";
      return false;
    }
    operands.push_back(it->second.value);
    bindings.push_back(entry);
    return true;
  };
  if (value.kind == AK::SymInt && !value.name.empty())
    return bind(value.name, argName.str());
  if (value.kind == AK::SymInts)
    for (size_t k = 0; k < value.symIsName.size(); ++k)
      if (value.symIsName[k] && k < value.names.size() &&
          !bind(value.names[k], argName.str() + "[" + std::to_string(k) + "]"))
        return false;
  if ((value.kind == AK::SymFloat || value.kind == AK::SymBool) && !value.name.empty()) {
    *error = "argument '" + argName.str() + "' is the symbolic " +
             (value.kind == AK::SymFloat ? "float" : "bool") + " '" + value.name +
             "'; only symbolic ints are supported";
    return false;
  }
  return true;
}

} // namespace ptec::import
