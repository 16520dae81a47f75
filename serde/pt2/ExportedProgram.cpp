#include "serde/pt2/ExportedProgram.h"

namespace ptec::pt2 {

namespace {
struct DTypeInfo {
  DType dtype;
  size_t size;
  const char *name;
};
constexpr DTypeInfo kDTypes[] = {
    {DType::Unknown, 0, "unknown"},        {DType::Byte, 1, "uint8"},
    {DType::Char, 1, "int8"},              {DType::Short, 2, "int16"},
    {DType::Int, 4, "int32"},              {DType::Long, 8, "int64"},
    {DType::Half, 2, "float16"},           {DType::Float, 4, "float32"},
    {DType::Double, 8, "float64"},         {DType::ComplexHalf, 4, "complex32"},
    {DType::ComplexFloat, 8, "complex64"}, {DType::ComplexDouble, 16, "complex128"},
    {DType::Bool, 1, "bool"},              {DType::BFloat16, 2, "bfloat16"},
    {DType::UInt16, 2, "uint16"},          {DType::Float8E4M3FN, 1, "float8_e4m3fn"},
    {DType::Float8E5M2, 1, "float8_e5m2"}, {DType::Float8E4M3FNUZ, 1, "float8_e4m3fnuz"},
    {DType::Float8E5M2FNUZ, 1, "float8_e5m2fnuz"},
    {DType::Float8E8M0FNU, 1, "float8_e8m0fnu"},
    {DType::UInt32, 4, "uint32"},          {DType::UInt64, 8, "uint64"},
};

const DTypeInfo *find(DType d) {
  for (const DTypeInfo &info : kDTypes)
    if (info.dtype == d)
      return &info;
  return nullptr;
}
}  // namespace

size_t dtypeSize(DType d) {
  const DTypeInfo *info = find(d);
  return info ? info->size : 0;
}

const char *dtypeName(DType d) {
  const DTypeInfo *info = find(d);
  return info ? info->name : "unknown";
}

bool isKnownDType(int64_t code) {
  for (const DTypeInfo &info : kDTypes)
    if (static_cast<int64_t>(info.dtype) == code)
      return true;
  return false;
}

}  // namespace ptec::pt2
