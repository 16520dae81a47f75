// Text for values, shared by pte-run's text and JSON output.
#include "tooling/ValueFormat.h"

#include "runtime/core/Half.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace ptec::tooling {
using namespace ptec::rt;

std::string shapeString(Span<const int64_t> sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i)
    s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

namespace {
std::string shortest(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc())
    return "?";
  return std::string(buf, end);
}
} // namespace

std::string formatDouble(double v) { return shortest(v); }

std::string quoteString(const std::string &s) {
  std::string q = "\"";
  for (char c : s) {
    switch (c) {
    case '"': q += "\\\""; break;
    case '\\': q += "\\\\"; break;
    case '\n': q += "\\n"; break;
    case '\t': q += "\\t"; break;
    case '\r': q += "\\r"; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c & 0xff));
        q += buf;
      } else {
        q += c;
      }
    }
  }
  return q + "\"";
}

bool elementAsDouble(const Tensor &t, int64_t i, double &out) {
  const void *p = t.data();
  i = t.offsetOf(i);
  switch (t.dtype()) {
  case ScalarType::Float: out = static_cast<const float *>(p)[i]; return true;
  case ScalarType::Double: out = static_cast<const double *>(p)[i]; return true;
  case ScalarType::Long: out = double(static_cast<const int64_t *>(p)[i]); return true;
  case ScalarType::Int: out = static_cast<const int32_t *>(p)[i]; return true;
  case ScalarType::Short: out = static_cast<const int16_t *>(p)[i]; return true;
  case ScalarType::Char: out = static_cast<const int8_t *>(p)[i]; return true;
  case ScalarType::Byte: out = static_cast<const uint8_t *>(p)[i]; return true;
  case ScalarType::Bool: out = static_cast<const uint8_t *>(p)[i] ? 1 : 0; return true;
  case ScalarType::Half: out = halfToFloat(static_cast<const uint16_t *>(p)[i]); return true;
  case ScalarType::BFloat16: out = bf16ToFloat(static_cast<const uint16_t *>(p)[i]); return true;
  default: return false;
  }
}

std::string formatElement(const Tensor &t, int64_t i) {
  switch (t.dtype()) {
  case ScalarType::Float: {
    // A summary line: six digits, as min/max/mean (--output-dir has them all).
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", static_cast<const float *>(t.data())[t.offsetOf(i)]);
    return buf;
  }
  case ScalarType::Double:
    return formatDouble(static_cast<const double *>(t.data())[t.offsetOf(i)]);
  case ScalarType::Long:
    return std::to_string(static_cast<const int64_t *>(t.data())[t.offsetOf(i)]);
  default: {
    double x = 0;
    return elementAsDouble(t, i, x) ? formatDouble(x) : "";
  }
  }
}

std::string describeValue(const EValue &v) {
  auto items = [](size_t n, auto item) {
    std::string s = "[";
    for (size_t i = 0; i < n; ++i)
      s += (i ? ", " : "") + item(i);
    return s + "]";
  };
  switch (v.tag()) {
  case EValue::Tag::Tensor: {
    const Tensor &t = v.toTensor();
    return std::string(toString(t.dtype())) + " " + shapeString(t.sizes());
  }
  case EValue::Tag::Int: return "int " + std::to_string(v.toInt());
  case EValue::Tag::Double: return "double " + formatDouble(v.toDouble());
  case EValue::Tag::Bool: return v.toBool() ? "bool true" : "bool false";
  case EValue::Tag::None: return "None";
  case EValue::Tag::String:
    return "string " + quoteString(std::string(v.stringData(), v.stringSize()));
  case EValue::Tag::IntList:
    return "int list " + items(v.listSize(), [&](size_t i) {
             const EValue *e = v.listItems()[i];
             return e ? std::to_string(e->toInt()) : std::string("?");
           });
  case EValue::Tag::DoubleList:
    return "double list " +
           items(v.listSize(), [&](size_t i) { return formatDouble(v.doubleList()[i]); });
  case EValue::Tag::BoolList:
    return "bool list " + items(v.listSize(), [&](size_t i) {
             return std::string(v.boolList()[i] ? "true" : "false");
           });
  case EValue::Tag::TensorList: return "tensor list (" + std::to_string(v.listSize()) + ")";
  case EValue::Tag::OptionalTensorList:
    return "optional tensor list (" + std::to_string(v.listSize()) + ")";
  }
  return "unknown value";
}

} // namespace ptec::tooling
