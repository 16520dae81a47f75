// Element types, numbered as the .pte schema's ScalarType enum (c10 numbering).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ptec::rt {

enum class ScalarType : int8_t {
  Byte = 0,
  Char = 1,
  Short = 2,
  Int = 3,
  Long = 4,
  Half = 5,
  Float = 6,
  Double = 7,
  Bool = 11,
  QInt8 = 12,
  QUInt8 = 13,
  QInt32 = 14,
  BFloat16 = 15,
  UInt16 = 27,
  UInt32 = 28,
  UInt64 = 29,
};

/// Bytes per element, or 0 for a value that is not a supported dtype.
inline size_t elementSize(ScalarType t) {
  switch (t) {
  case ScalarType::Byte: case ScalarType::Char: case ScalarType::Bool:
  case ScalarType::QInt8: case ScalarType::QUInt8:
    return 1;
  case ScalarType::Short: case ScalarType::Half: case ScalarType::BFloat16:
  case ScalarType::UInt16:
    return 2;
  case ScalarType::Int: case ScalarType::Float: case ScalarType::QInt32:
  case ScalarType::UInt32:
    return 4;
  case ScalarType::Long: case ScalarType::Double: case ScalarType::UInt64:
    return 8;
  }
  return 0;
}

inline bool isValidScalarType(int v) {
  return v >= 0 && v <= 127 && elementSize(static_cast<ScalarType>(v)) != 0;
}

inline const char *toString(ScalarType t) {
  switch (t) {
  case ScalarType::Byte: return "uint8";
  case ScalarType::Char: return "int8";
  case ScalarType::Short: return "int16";
  case ScalarType::Int: return "int32";
  case ScalarType::Long: return "int64";
  case ScalarType::Half: return "float16";
  case ScalarType::Float: return "float32";
  case ScalarType::Double: return "float64";
  case ScalarType::Bool: return "bool";
  case ScalarType::QInt8: return "qint8";
  case ScalarType::QUInt8: return "quint8";
  case ScalarType::QInt32: return "qint32";
  case ScalarType::BFloat16: return "bfloat16";
  case ScalarType::UInt16: return "uint16";
  case ScalarType::UInt32: return "uint32";
  case ScalarType::UInt64: return "uint64";
  }
  return "unknown";
}

inline bool isFloatingType(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double ||
         t == ScalarType::Half || t == ScalarType::BFloat16;
}
inline bool isIntegralType(ScalarType t, bool includeBool) {
  switch (t) {
  case ScalarType::Byte: case ScalarType::Char: case ScalarType::Short:
  case ScalarType::Int: case ScalarType::Long: case ScalarType::UInt16:
  case ScalarType::UInt32: case ScalarType::UInt64:
    return true;
  case ScalarType::Bool:
    return includeBool;
  default:
    return false;
  }
}

} // namespace ptec::rt
