//===- ImportArguments.cpp - schema-typed argument conversion -------------===//

#include "compiler/ImportArguments.h"

#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
namespace pt2 = ptec::pt2;
namespace schema = ptec::schema;
using K = schema::TypeKind;
using AK = pt2::Argument::Kind;

namespace ptec::import {

Type elementTypeFor(MLIRContext *ctx, pt2::DType dtype) {
  Builder b(ctx);
  switch (dtype) {
  case pt2::DType::Byte: return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case pt2::DType::Char: return b.getIntegerType(8);
  case pt2::DType::Short: return b.getIntegerType(16);
  case pt2::DType::Int: return b.getIntegerType(32);
  case pt2::DType::Long: return b.getIntegerType(64);
  case pt2::DType::Half: return b.getF16Type();
  case pt2::DType::Float: return b.getF32Type();
  case pt2::DType::Double: return b.getF64Type();
  case pt2::DType::ComplexHalf: return ComplexType::get(b.getF16Type());
  case pt2::DType::ComplexFloat: return ComplexType::get(b.getF32Type());
  case pt2::DType::ComplexDouble: return ComplexType::get(b.getF64Type());
  case pt2::DType::Bool: return b.getI1Type();
  case pt2::DType::BFloat16: return b.getBF16Type();
  case pt2::DType::UInt16: return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case pt2::DType::UInt32: return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case pt2::DType::UInt64: return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  case pt2::DType::Float8E4M3FN: return b.getFloat8E4M3FNType();
  case pt2::DType::Float8E5M2: return b.getFloat8E5M2Type();
  case pt2::DType::Float8E4M3FNUZ: return b.getFloat8E4M3FNUZType();
  case pt2::DType::Float8E5M2FNUZ: return b.getFloat8E5M2FNUZType();
  default:
    return {};
  }
}

Type elementTypeForName(MLIRContext *ctx, StringRef name) {
  auto dtype = llvm::StringSwitch<pt2::DType>(name)
                   .Cases("float", "float32", pt2::DType::Float)
                   .Cases("double", "float64", pt2::DType::Double)
                   .Cases("half", "float16", pt2::DType::Half)
                   .Case("bfloat16", pt2::DType::BFloat16)
                   .Cases("long", "int64", pt2::DType::Long)
                   .Cases("int", "int32", pt2::DType::Int)
                   .Cases("short", "int16", pt2::DType::Short)
                   .Cases("char", "int8", pt2::DType::Char)
                   .Cases("byte", "uint8", pt2::DType::Byte)
                   .Case("bool", pt2::DType::Bool)
                   .Cases("cfloat", "complex64", pt2::DType::ComplexFloat)
                   .Cases("cdouble", "complex128", pt2::DType::ComplexDouble)
                   .Default(pt2::DType::Unknown);
  return elementTypeFor(ctx, dtype);
}

StringRef layoutName(int64_t layout) {
  switch (layout) {
  case 1: return "sparse_coo";
  case 2: return "sparse_csr";
  case 3: return "sparse_csc";
  case 4: return "sparse_bsr";
  case 5: return "sparse_bsc";
  case 6: return "_mkldnn";
  case 7: return "strided";
  default: return "";
  }
}

StringRef memoryFormatName(int64_t format) {
  switch (format) {
  case 1: return "contiguous_format";
  case 2: return "channels_last";
  case 3: return "channels_last_3d";
  case 4: return "preserve_format";
  default: return "";
  }
}

bool appendTensorNames(const pt2::Argument &a, llvm::SmallVectorImpl<std::string> &out) {
  if (a.kind == AK::Tensor)
    out.push_back(a.name);
  else if (a.kind == AK::Tensors)
    out.append(a.names.begin(), a.names.end());
  else
    return false;
  return true;
}

const char *argumentKindName(AK kind) {
  switch (kind) {
  case AK::None: return "as_none";
  case AK::Tensor: return "as_tensor";
  case AK::Tensors: return "as_tensors";
  case AK::Int: return "as_int";
  case AK::Ints: return "as_ints";
  case AK::Float: return "as_float";
  case AK::Floats: return "as_floats";
  case AK::String: return "as_string";
  case AK::Strings: return "as_strings";
  case AK::Bool: return "as_bool";
  case AK::Bools: return "as_bools";
  case AK::SymInt: return "as_sym_int";
  case AK::SymInts: return "as_sym_ints";
  case AK::SymFloat: return "as_sym_float";
  case AK::SymBool: return "as_sym_bool";
  case AK::ScalarType: return "as_scalar_type";
  case AK::MemoryFormat: return "as_memory_format";
  case AK::Layout: return "as_layout";
  case AK::Device: return "as_device";
  case AK::OptionalTensors: return "as_optional_tensors";
  case AK::OptionalTensor: return "as_optional_tensor";
  case AK::Graph: return "as_graph";
  case AK::CustomObj: return "as_custom_obj";
  case AK::Operator: return "as_operator";
  case AK::Complex: return "as_complex";
  case AK::IntLists: return "as_int_lists";
  case AK::SymFloats: return "as_sym_floats";
  case AK::SymBools: return "as_sym_bools";
  case AK::FloatLists: return "as_float_lists";
  case AK::NestedTensors: return "as_nested_tensors";
  }
  return "unknown";
}

namespace {

bool isIntKind(K k) {
  return k == K::Int || k == K::SymInt || k == K::DeviceIndex;
}

/// Is `v` an empty list of any kind? An empty list carries no element type,
/// so writers pick any list key for it.
bool isEmptyList(const pt2::Argument &v) {
  switch (v.kind) {
  case AK::Tensors: return v.names.empty();
  case AK::Ints: return v.ints.empty();
  case AK::Floats: return v.floats.empty();
  case AK::Strings: return v.strings.empty();
  case AK::Bools: return v.bools.empty();
  case AK::SymInts:
  case AK::SymFloats:
  case AK::SymBools: return v.symIsName.empty() && v.names.empty();
  case AK::OptionalTensors: return v.optTensors.empty();
  case AK::IntLists: return v.intLists.empty();
  case AK::FloatLists: return v.floatLists.empty();
  default: return false;
  }
}

/// Converts `v` to a value of schema type `t` (never Optional: the caller
/// unwraps it). `what` names the argument in messages.
class Converter {
public:
  Converter(MLIRContext *ctx, const std::map<std::string, int64_t> &symInts,
            std::string *error)
      : b(ctx), symInts(symInts), error(error) {}

  FailureOr<Attribute> convert(const pt2::Argument &v, const schema::SchemaType &t) {
    if (v.kind == AK::None) {
      if (t.kind == K::Optional || t.kind == K::NoneType || t.kind == K::Any ||
          t.kind == K::Generator)
        return Attribute(exir::NoneAttr::get(b.getContext()));
      return mismatch(v, t);
    }
    if (t.kind == K::Optional)
      return convert(v, t.elems.front());

    // The scalar read from `v` (when it holds one) as an attribute.
    auto scalar = [&](auto read, auto attr) -> FailureOr<Attribute> {
      if (auto x = read())
        return Attribute(attr(*x));
      return mismatch(v, t);
    };
    if (isIntKind(t.kind))
      return scalar([&] { return asInt(v); }, [&](int64_t i) { return b.getI64IntegerAttr(i); });
    switch (t.kind) {
    case K::Float:
      return scalar([&] { return asDouble(v); }, [&](double d) { return b.getF64FloatAttr(d); });
    case K::Bool:
    case K::SymBool:
      return scalar([&] { return asBool(v); }, [&](bool f) { return b.getBoolAttr(f); });
    case K::Scalar:
    case K::Complex:
    case K::Any:
      return convertScalar(v, t);
    case K::Str:
    case K::Dimname:
      if (v.kind != AK::String)
        return mismatch(v, t);
      return Attribute(b.getStringAttr(v.s));
    case K::Device:
      if (v.kind == AK::Device)
        return Attribute(b.getStringAttr(v.device));
      if (v.kind == AK::String)
        return Attribute(b.getStringAttr(v.s));
      return mismatch(v, t);
    case K::ScalarType: {
      if (v.kind != AK::ScalarType)
        return mismatch(v, t);
      Type type = elementTypeFor(b.getContext(), static_cast<pt2::DType>(v.i));
      if (!type)
        return fail("dtype " + std::to_string(v.i) + " is not supported");
      return Attribute(TypeAttr::get(type));
    }
    case K::Layout: {
      if (v.kind != AK::Layout)
        return mismatch(v, t);
      StringRef name = layoutName(v.i);
      if (name.empty())
        return fail("unknown layout " + std::to_string(v.i));
      return Attribute(b.getStringAttr(name));
    }
    case K::MemoryFormat: {
      if (v.kind != AK::MemoryFormat)
        return mismatch(v, t);
      StringRef name = memoryFormatName(v.i);
      if (name.empty())
        return fail("unknown memory format " + std::to_string(v.i));
      return Attribute(b.getStringAttr(name));
    }
    case K::List:
      return convertList(v, t);
    default:
      return fail("arguments of type '" + t.str() + "' are not supported");
    }
  }

private:
  FailureOr<Attribute> fail(const std::string &message) {
    if (error)
      *error = message;
    return failure();
  }

  FailureOr<Attribute> mismatch(const pt2::Argument &v, const schema::SchemaType &t) {
    if (!v.name.empty() && (v.kind == AK::SymInt || v.kind == AK::SymFloat ||
                            v.kind == AK::SymBool))
      return fail("symbolic value '" + v.name +
                  "' is not a symbolic int defined before this node (only sym_size.int "
                  "and integer size arithmetic make symbolic values)");
    return fail(std::string("expected ") + t.str() + ", got " +
                argumentKindName(v.kind));
  }

  std::optional<int64_t> symInt(const std::string &name) {
    auto it = symInts.find(name);
    if (it == symInts.end())
      return std::nullopt;
    return it->second;
  }

  std::optional<int64_t> asInt(const pt2::Argument &v) {
    if (v.kind == AK::Int)
      return v.i;
    if (v.kind == AK::SymInt)
      return v.name.empty() ? std::optional<int64_t>(v.i) : symInt(v.name);
    return std::nullopt;
  }

  std::optional<double> asDouble(const pt2::Argument &v) {
    if (v.kind == AK::Float || (v.kind == AK::SymFloat && v.name.empty()))
      return v.f;
    if (std::optional<int64_t> i = asInt(v)) // a float parameter may get an int
      return static_cast<double>(*i);
    return std::nullopt;
  }

  std::optional<bool> asBool(const pt2::Argument &v) {
    if (v.kind == AK::Bool || (v.kind == AK::SymBool && v.name.empty()))
      return v.b;
    return std::nullopt;
  }

  FailureOr<Attribute> convertScalar(const pt2::Argument &v, const schema::SchemaType &t) {
    if (std::optional<bool> flag = asBool(v))
      return Attribute(b.getBoolAttr(*flag));
    if (std::optional<int64_t> i = asInt(v))
      return Attribute(b.getI64IntegerAttr(*i));
    if (v.kind == AK::Float || (v.kind == AK::SymFloat && v.name.empty()))
      return Attribute(b.getF64FloatAttr(v.f));
    if (v.kind == AK::Complex) {
      if (v.imag != 0)
        return fail("complex scalars are not supported");
      return Attribute(b.getF64FloatAttr(v.f));
    }
    if (t.kind == K::Any && v.kind == AK::String)
      return Attribute(b.getStringAttr(v.s));
    return mismatch(v, t);
  }

  /// Items of a SymInts/SymFloats/SymBools list, resolved or failed.
  FailureOr<Attribute> unresolved(const pt2::Argument &v, size_t k) {
    std::string name = k < v.names.size() ? v.names[k] : std::string();
    return fail("symbolic value '" + name +
                "' is not a symbolic int defined before this node (only sym_size.int "
                "and integer size arithmetic make symbolic values)");
  }

  FailureOr<Attribute> convertList(const pt2::Argument &v, const schema::SchemaType &t) {
    const schema::SchemaType &e = t.elems.front();
    K ek = e.kind == K::Optional ? e.elems.front().kind : e.kind;
    bool empty = isEmptyList(v);
    if (isIntKind(ek) && e.kind != K::Optional) {
      SmallVector<int64_t> ints;
      if (v.kind == AK::Ints) {
        ints.assign(v.ints.begin(), v.ints.end());
      } else if (v.kind == AK::SymInts) {
        for (size_t k = 0; k < v.symIsName.size(); ++k) {
          if (!v.symIsName[k]) {
            ints.push_back(k < v.ints.size() ? v.ints[k] : 0);
            continue;
          }
          std::optional<int64_t> i = symInt(v.names[k]);
          if (!i)
            return unresolved(v, k);
          ints.push_back(*i);
        }
      } else if (std::optional<int64_t> i = asInt(v); i && t.fixedSize) {
        ints.assign(*t.fixedSize, *i); // `int[2] stride=1` style scalar
      } else if (!empty) {
        return mismatch(v, t);
      }
      return Attribute(b.getDenseI64ArrayAttr(ints));
    }
    if (ek == K::Float && e.kind != K::Optional) {
      SmallVector<double> ds;
      if (v.kind == AK::Floats)
        ds.assign(v.floats.begin(), v.floats.end());
      else if (v.kind == AK::Ints)
        for (int64_t i : v.ints)
          ds.push_back(static_cast<double>(i));
      else if (v.kind == AK::SymFloats) {
        for (size_t k = 0; k < v.symIsName.size(); ++k) {
          if (v.symIsName[k])
            return unresolved(v, k);
          ds.push_back(k < v.floats.size() ? v.floats[k] : 0.0);
        }
      } else if (!empty)
        return mismatch(v, t);
      return Attribute(b.getDenseF64ArrayAttr(ds));
    }
    if ((ek == K::Bool || ek == K::SymBool) && e.kind != K::Optional) {
      SmallVector<bool> bs;
      if (v.kind == AK::Bools)
        bs.assign(v.bools.begin(), v.bools.end());
      else if (v.kind == AK::SymBools) {
        for (size_t k = 0; k < v.symIsName.size(); ++k) {
          if (v.symIsName[k])
            return unresolved(v, k);
          bs.push_back(k < v.bools.size() && v.bools[k]);
        }
      } else if (!empty)
        return mismatch(v, t);
      return Attribute(b.getDenseBoolArrayAttr(bs));
    }
    if (ek == K::Str || ek == K::Dimname) {
      SmallVector<Attribute> items;
      if (v.kind == AK::Strings)
        for (const std::string &s : v.strings)
          items.push_back(b.getStringAttr(s));
      else if (!empty)
        return mismatch(v, t);
      return Attribute(b.getArrayAttr(items));
    }
    if (empty)
      return Attribute(b.getArrayAttr({}));
    return fail("arguments of type '" + t.str() + "' are not supported");
  }

  Builder b;
  const std::map<std::string, int64_t> &symInts;
  std::string *error;
};

/// The schema type with any Optional wrapper removed.
const schema::SchemaType &unwrapOptional(const schema::SchemaType &t) {
  return t.kind == K::Optional ? t.elems.front() : t;
}

} // namespace

FailureOr<Attribute> convertArgument(MLIRContext *ctx, const schema::Argument &arg,
                                     const pt2::Argument &value,
                                     const std::map<std::string, int64_t> &symInts,
                                     std::string *error) {
  Converter c(ctx, symInts, error);
  return c.convert(value, arg.type);
}

FailureOr<Attribute> defaultArgument(MLIRContext *ctx, const schema::Argument &arg,
                                     std::string *error) {
  auto fail = [&](const std::string &message) -> FailureOr<Attribute> {
    if (error)
      *error = message;
    return failure();
  };
  if (!arg.defaultValue)
    return fail("missing required argument '" + arg.name + "'");
  const schema::DefaultValue &d = *arg.defaultValue;
  const schema::SchemaType &t = unwrapOptional(arg.type);
  using DK = schema::DefaultValue::Kind;
  Builder b(ctx);
  auto badDefault = [&]() {
    return fail("default '" + d.str() + "' of argument '" + arg.name +
                "' does not fit its type " + arg.type.str());
  };
  if (d.kind == DK::None)
    return Attribute(exir::NoneAttr::get(ctx));

  // Lists: a bare scalar on a sized list is repeated; an identifier means None.
  if (t.kind == K::List) {
    const schema::SchemaType &e = t.elems.front();
    int64_t n = t.fixedSize.value_or(1);
    if (isIntKind(e.kind)) {
      if (d.kind == DK::IntList)
        return Attribute(b.getDenseI64ArrayAttr(d.ints));
      if (d.kind == DK::Int)
        return Attribute(b.getDenseI64ArrayAttr(SmallVector<int64_t>(n, d.i)));
    } else if (e.kind == K::Float) {
      if (d.kind == DK::DoubleList)
        return Attribute(b.getDenseF64ArrayAttr(d.doubles));
      if (d.kind == DK::IntList)
        return Attribute(b.getDenseF64ArrayAttr(
            SmallVector<double>(d.ints.begin(), d.ints.end())));
      if (d.kind == DK::Double || d.kind == DK::Int)
        return Attribute(b.getDenseF64ArrayAttr(SmallVector<double>(
            n, d.kind == DK::Double ? d.d : static_cast<double>(d.i))));
    } else if (e.kind == K::Bool) {
      if (d.kind == DK::BoolList)
        return Attribute(b.getDenseBoolArrayAttr(
            SmallVector<bool>(d.bools.begin(), d.bools.end())));
      if (d.kind == DK::Bool)
        return Attribute(b.getDenseBoolArrayAttr(SmallVector<bool>(n, d.b)));
    }
    if (d.kind == DK::Enum)
      return Attribute(exir::NoneAttr::get(ctx));
    if (d.kind == DK::IntList && d.ints.empty())
      return Attribute(b.getArrayAttr({}));
    return badDefault();
  }

  switch (d.kind) {
  case DK::Bool:
    if (t.kind == K::Bool || t.kind == K::SymBool || t.kind == K::Scalar)
      return Attribute(b.getBoolAttr(d.b));
    return badDefault();
  case DK::Int:
    if (isIntKind(t.kind) || t.kind == K::Scalar)
      return Attribute(b.getI64IntegerAttr(d.i));
    if (t.kind == K::Float)
      return Attribute(b.getF64FloatAttr(static_cast<double>(d.i)));
    return badDefault();
  case DK::Double:
    if (t.kind == K::Float || t.kind == K::Scalar)
      return Attribute(b.getF64FloatAttr(d.d));
    return badDefault();
  case DK::Complex:
    if ((t.kind == K::Complex || t.kind == K::Scalar) && d.imag == 0)
      return Attribute(b.getF64FloatAttr(d.d));
    return fail("complex default of argument '" + arg.name + "' is not supported");
  case DK::String:
    if (t.kind == K::Str || t.kind == K::Device || t.kind == K::Dimname ||
        t.kind == K::Layout || t.kind == K::MemoryFormat)
      return Attribute(b.getStringAttr(d.s));
    return badDefault();
  case DK::Enum:
    if (t.kind == K::ScalarType) {
      Type type = elementTypeForName(ctx, d.s);
      if (!type)
        return fail("unknown dtype '" + d.s + "' in the default of argument '" +
                    arg.name + "'");
      return Attribute(TypeAttr::get(type));
    }
    if (t.kind == K::Layout || t.kind == K::MemoryFormat)
      return Attribute(b.getStringAttr(d.s));
    if (isIntKind(t.kind)) // `int reduction=Mean`
      return Attribute(b.getI64IntegerAttr(d.i));
    return badDefault();
  default:
    return badDefault();
  }
}

} // namespace ptec::import
