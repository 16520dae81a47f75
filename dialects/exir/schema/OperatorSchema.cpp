// Queries and canonical printing of parsed schemas. str() output always
// parses back to an equal schema (checked over the whole built-in table).
#include "dialects/exir/schema/OperatorSchema.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ptec::schema {

namespace {
template <typename T> std::string join(const std::vector<T> &v, const char *sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i)
      out += sep;
    out += v[i];
  }
  return out;
}

// Shortest spelling that reads back to the same double and still looks like
// a float to the parser (contains '.', 'e', inf or nan).
std::string formatDouble(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v < 0 ? "-inf" : "inf";
  char buf[64];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

bool sameDouble(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

// The chain of annotations from the outermost type inwards through List and
// Optional element types.
template <typename Fn> void forEachAliasLevel(const SchemaType &t, Fn fn) {
  const SchemaType *cur = &t;
  for (;;) {
    if (cur->alias && fn(*cur->alias))
      return;
    if ((cur->kind == TypeKind::List || cur->kind == TypeKind::Optional) && !cur->elems.empty())
      cur = &cur->elems[0];
    else
      return;
  }
}
} // namespace

// ---- AliasInfo ----

bool AliasInfo::isWildcardAfter() const {
  return std::find(afterSets.begin(), afterSets.end(), "*") != afterSets.end();
}
bool AliasInfo::isWildcardBefore() const {
  return std::find(beforeSets.begin(), beforeSets.end(), "*") != beforeSets.end();
}

std::string AliasInfo::str() const {
  if (beforeSets.empty())
    return isWrite ? "!" : "";
  std::string out = "(" + join(beforeSets, "|");
  if (isWrite)
    out += "!";
  if (afterSets != beforeSets)
    out += " -> " + join(afterSets, "|");
  return out + ")";
}

bool AliasInfo::operator==(const AliasInfo &o) const {
  return beforeSets == o.beforeSets && afterSets == o.afterSets && isWrite == o.isWrite;
}

// ---- SchemaType ----

const char *typeKindName(TypeKind kind) {
  switch (kind) {
  case TypeKind::Tensor: return "Tensor";
  case TypeKind::Int: return "int";
  case TypeKind::SymInt: return "SymInt";
  case TypeKind::Float: return "float";
  case TypeKind::Bool: return "bool";
  case TypeKind::SymBool: return "SymBool";
  case TypeKind::Str: return "str";
  case TypeKind::Scalar: return "Scalar";
  case TypeKind::ScalarType: return "ScalarType";
  case TypeKind::Layout: return "Layout";
  case TypeKind::MemoryFormat: return "MemoryFormat";
  case TypeKind::Device: return "Device";
  case TypeKind::DeviceIndex: return "DeviceIndex";
  case TypeKind::Generator: return "Generator";
  case TypeKind::Dimname: return "Dimname";
  case TypeKind::Storage: return "Storage";
  case TypeKind::Stream: return "Stream";
  case TypeKind::Complex: return "complex";
  case TypeKind::Any: return "Any";
  case TypeKind::NoneType: return "NoneType";
  case TypeKind::List:
  case TypeKind::Optional:
  case TypeKind::Tuple:
  case TypeKind::Other: return "";
  }
  return "";
}

bool SchemaType::isTensorLike() const {
  switch (kind) {
  case TypeKind::Tensor: return true;
  case TypeKind::Optional:
  case TypeKind::List:
    if (elems.empty())
      return false;
    if (elems[0].kind == TypeKind::Tensor)
      return true;
    // Tensor?[] and Tensor[]?
    return elems[0].kind != kind &&
           (elems[0].kind == TypeKind::Optional || elems[0].kind == TypeKind::List) &&
           !elems[0].elems.empty() && elems[0].elems[0].kind == TypeKind::Tensor;
  default: return false;
  }
}

std::string SchemaType::str() const {
  std::string a = alias ? alias->str() : "";
  switch (kind) {
  case TypeKind::List: {
    std::string e = elems.empty() ? "Any" : elems[0].str();
    return e + (fixedSize ? "[" + std::to_string(*fixedSize) + "]" : "[]") + a;
  }
  case TypeKind::Optional: return (elems.empty() ? "Any" : elems[0].str()) + "?";
  case TypeKind::Tuple: {
    std::vector<std::string> parts;
    for (const SchemaType &e : elems)
      parts.push_back(e.str());
    return "(" + join(parts, ", ") + ")";
  }
  case TypeKind::Other: {
    std::string out = name;
    if (!elems.empty()) {
      std::vector<std::string> parts;
      for (const SchemaType &e : elems)
        parts.push_back(e.str());
      out += "(" + join(parts, ", ") + ")";
    }
    return out + a;
  }
  case TypeKind::NoneType: return (name.empty() ? "NoneType" : name) + a;
  default: return typeKindName(kind) + a;
  }
}

bool SchemaType::equals(const SchemaType &o, bool withAlias) const {
  if (kind != o.kind || fixedSize != o.fixedSize || name != o.name ||
      elems.size() != o.elems.size())
    return false;
  if (withAlias && alias != o.alias)
    return false;
  for (size_t i = 0; i < elems.size(); ++i)
    if (!elems[i].equals(o.elems[i], withAlias))
      return false;
  return true;
}

// ---- DefaultValue ----

std::string DefaultValue::str() const {
  switch (kind) {
  case Kind::None: return "None";
  case Kind::Bool: return b ? "True" : "False";
  case Kind::Int: return std::to_string(i);
  case Kind::Double: return formatDouble(d);
  case Kind::String: {
    std::string out = "\"";
    for (char c : s) {
      switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\0': out += "\\0"; break;
      default: out += c;
      }
    }
    return out + "\"";
  }
  case Kind::IntList: {
    std::vector<std::string> parts;
    for (int64_t v : ints)
      parts.push_back(std::to_string(v));
    return "[" + join(parts, ", ") + "]";
  }
  case Kind::DoubleList: {
    std::vector<std::string> parts;
    for (double v : doubles)
      parts.push_back(formatDouble(v));
    return "[" + join(parts, ", ") + "]";
  }
  case Kind::BoolList: {
    std::vector<std::string> parts;
    for (bool v : bools)
      parts.push_back(v ? "True" : "False");
    return "[" + join(parts, ", ") + "]";
  }
  case Kind::Complex: {
    // The grammar has pure imaginary literals only; a real part is not spelled.
    std::string im = formatDouble(imag);
    return im + "j";
  }
  case Kind::Enum: return s;
  }
  return "None";
}

bool DefaultValue::operator==(const DefaultValue &o) const {
  if (kind != o.kind)
    return false;
  switch (kind) {
  case Kind::None: return true;
  case Kind::Bool: return b == o.b;
  case Kind::Int: return i == o.i;
  case Kind::Double: return sameDouble(d, o.d);
  case Kind::String: return s == o.s;
  case Kind::IntList: return ints == o.ints;
  case Kind::DoubleList:
    if (doubles.size() != o.doubles.size())
      return false;
    for (size_t k = 0; k < doubles.size(); ++k)
      if (!sameDouble(doubles[k], o.doubles[k]))
        return false;
    return true;
  case Kind::BoolList: return bools == o.bools;
  case Kind::Complex: return sameDouble(d, o.d) && sameDouble(imag, o.imag);
  case Kind::Enum: return s == o.s && i == o.i;
  }
  return false;
}

// ---- Argument ----

const AliasInfo *Argument::alias() const {
  const AliasInfo *found = nullptr;
  forEachAliasLevel(type, [&](const AliasInfo &a) {
    found = &a;
    return true;
  });
  return found;
}

bool Argument::isWrite() const {
  bool w = false;
  forEachAliasLevel(type, [&](const AliasInfo &a) {
    w = w || a.isWrite;
    return w;
  });
  return w;
}

bool Argument::isOut() const { return kwargOnly && isWrite(); }

bool Argument::operator==(const Argument &o) const {
  return name == o.name && type == o.type && defaultValue == o.defaultValue &&
         kwargOnly == o.kwargOnly;
}

// ---- FunctionSchema ----

std::string FunctionSchema::fullName() const {
  std::string out = ns + "::" + name;
  if (!overload.empty())
    out += "." + overload;
  return out;
}

std::string FunctionSchema::str() const {
  std::string out = fullName();
  if (!hasSignature)
    return out;
  std::vector<std::string> params;
  bool starred = false;
  for (const Argument &a : arguments) {
    if (a.kwargOnly && !starred) {
      params.push_back("*");
      starred = true;
    }
    std::string p = a.type.str() + " " + a.name;
    if (a.defaultValue)
      p += "=" + a.defaultValue->str();
    params.push_back(std::move(p));
  }
  if (varArgs)
    params.push_back("...");
  out += "(" + join(params, ", ") + ") -> ";

  std::vector<std::string> rets;
  for (const Argument &r : returns)
    rets.push_back(r.name.empty() ? r.type.str() : r.type.str() + " " + r.name);
  if (varRets && returns.empty())
    return out + "...";
  if (varRets)
    rets.push_back("...");
  // A lone return is printed bare unless it would read as a return list
  // (a tuple, or an optional tuple "(Tensor, int)?").
  if (returns.size() == 1 && !varRets && returns[0].name.empty() && rets[0][0] != '(')
    return out + rets[0];
  return out + "(" + join(rets, ", ") + ")";
}

bool FunctionSchema::isMutable() const {
  return std::any_of(arguments.begin(), arguments.end(),
                     [](const Argument &a) { return a.isWrite(); });
}

bool FunctionSchema::isOutVariant() const {
  return std::any_of(arguments.begin(), arguments.end(),
                     [](const Argument &a) { return a.isOut(); });
}

bool FunctionSchema::isInplace() const {
  if (arguments.empty() || arguments[0].kwargOnly || !arguments[0].isWrite())
    return false;
  const AliasInfo *self = arguments[0].alias();
  if (!self || self->beforeSets.empty())
    return false;
  for (const Argument &r : returns) {
    const AliasInfo *ra = r.alias();
    if (!ra)
      continue;
    for (const std::string &set : ra->beforeSets)
      if (set != "*" &&
          std::find(self->beforeSets.begin(), self->beforeSets.end(), set) !=
              self->beforeSets.end())
        return true;
  }
  return false;
}

int FunctionSchema::findArgument(std::string_view argName) const {
  for (size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].name == argName)
      return int(i);
  return -1;
}

std::vector<size_t> FunctionSchema::outArguments() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].isOut())
      out.push_back(i);
  return out;
}

bool FunctionSchema::operator==(const FunctionSchema &o) const {
  return ns == o.ns && name == o.name && overload == o.overload && arguments == o.arguments &&
         returns == o.returns && varArgs == o.varArgs && varRets == o.varRets &&
         hasSignature == o.hasSignature;
}

} // namespace ptec::schema
