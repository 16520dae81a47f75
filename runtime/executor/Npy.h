// A small .npy (NumPy format 1.0/2.0/3.0) reader and writer for pte-run and
// tests: little-endian float32, float64, int64, int32, bool and uint8,
// C order only. Not used on the execute path.
#pragma once

#include "runtime/core/Error.h"
#include "runtime/core/Result.h"
#include "runtime/core/ScalarType.h"
#include "runtime/core/Span.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ptec::rt {

struct NpyArray {
  ScalarType dtype = ScalarType::Float;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data; ///< numel * elementSize(dtype) bytes, C order

  int64_t numel() const;
};

/// Parse .npy bytes. `detail` says what is wrong ("unsupported dtype '<c8'").
Result<NpyArray> parseNpy(const uint8_t *bytes, size_t size, std::string *detail = nullptr);
Result<NpyArray> readNpy(const char *path, std::string *detail = nullptr);

/// Encode as .npy version 1.0. NotSupported for dtypes .npy support lacks here.
Result<std::vector<uint8_t>> encodeNpy(ScalarType dtype, Span<const int64_t> shape,
                                       const void *data, size_t nbytes);
Error writeNpy(const char *path, ScalarType dtype, Span<const int64_t> shape, const void *data,
               size_t nbytes, std::string *detail = nullptr);

} // namespace ptec::rt
