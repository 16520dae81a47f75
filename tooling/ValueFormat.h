// How the tools write values as text: shapes, numbers that read back
// exactly, quoted strings, one-line value descriptions ("float32 [2, 3]",
// "double 0.1", "string \"hi\""). pte-run's text and JSON output use these.
#pragma once

#include "runtime/core/EValue.h"

#include <cstdint>
#include <string>

namespace ptec::tooling {

/// "[2, 3]".
std::string shapeString(rt::Span<const int64_t> sizes);

/// The shortest decimal text that reads back as exactly `v` ("0.1",
/// "1e-300", "inf", "-inf", "nan").
std::string formatDouble(double v);

/// `s` between double quotes, with '"', '\\' and control bytes escaped
/// ("\n", "\t", "\u0001"); other bytes are kept as they are.
std::string quoteString(const std::string &s);

/// Element i (row-major) of a tensor as double (every dtype pte-run reads or
/// writes), whatever the tensor's dim order; false for other dtypes.
bool elementAsDouble(const rt::Tensor &t, int64_t i, double &out);
/// Element i as text: integers as integers, float64 so that it reads back
/// exactly, float32 with six significant digits (a summary); "" for a dtype
/// elementAsDouble does not read.
std::string formatElement(const rt::Tensor &t, int64_t i);

/// One value in a line: "float32 [2, 3]", "int 4", "double 0.1",
/// "bool true", "string \"hi\"", "int list [1, 2]", "double list [0.5]",
/// "bool list [true]", "tensor list (2)", "None".
std::string describeValue(const rt::EValue &v);

} // namespace ptec::tooling
