// Loader for the conformance case files written by gen_cases.py, and the
// boxing helpers shared with kernel_tests. Test-only code: it may allocate
// and throw.
//
// File: "PTKC" u32 version(1) str kernel u32 ncases, then per case:
//   str name, f32 rtol, f32 atol, u32 nargs, args..., u32 nexpected,
//   expected: u32 argIndex, i32 listElem (-1: not a list), tensor.
// Arg: u8 tag then payload. 0 None, 1 Int i64, 2 Double f64, 3 Bool u8,
//   4 String str, 5 Tensor, 6 IntList (u32 n, i64 * n), 7 DoubleList (u32 n,
//   f64 * n), 8 BoolList (u32 n, u8 * n), 9 TensorList (u32 n,
//   tensor * n), 10 OptionalTensorList (u32 n, (u8 present, tensor) * n),
//   11 Out (shape, i64 capacityBytes, u8 noData), 12 Ref u32 argIndex,
//   13 RefList (u32 n, u32 * n), 14 OutList (u32 n, (shape, i64 cap, u8) * n).
// Tensor: i8 dtype, u8 rank, i64 sizes[rank], raw little-endian data.
// Shape: a tensor without data. str: u16 length, bytes.
#pragma once

#include "runtime/core/EValue.h"
#include "runtime/core/Tensor.h"

#include <cstdint>
#include <deque>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace ptec::test {

using rt::EValue;
using rt::ScalarType;
using rt::Tensor;

/// Owns every EValue, Tensor and buffer that a boxed argument list points to.
class Boxer {
public:
  EValue *none() { return add(EValue()); }
  EValue *i(int64_t v) { return add(EValue::fromInt(v)); }
  EValue *d(double v) { return add(EValue::fromDouble(v)); }
  EValue *b(bool v) { return add(EValue::fromBool(v)); }
  EValue *str(const std::string &s);
  EValue *intList(const std::vector<int64_t> &items);
  EValue *doubleList(const std::vector<double> &items);
  EValue *boolList(const std::vector<uint8_t> &items);
  EValue *tensorList(const std::vector<EValue *> &items);
  EValue *optTensorList(const std::vector<EValue *> &items);
  /// A tensor with `capacity` bytes of storage (defaults to its nbytes).
  Tensor *tensor(ScalarType dt, const std::vector<int64_t> &sizes, size_t capacity = SIZE_MAX);
  EValue *t(Tensor *t) { return add(EValue::fromTensor(t)); }
  /// Float tensor with the given values.
  EValue *f32(const std::vector<int64_t> &sizes, const std::vector<float> &values);
  EValue *i64(const std::vector<int64_t> &sizes, const std::vector<int64_t> &values);
  EValue *add(const EValue &v) {
    values_.push_back(v);
    return &values_.back();
  }
  void *buffer(size_t nbytes);

private:
  std::deque<EValue> values_;
  std::deque<Tensor> tensors_;
  std::deque<std::vector<EValue *>> lists_;
  std::deque<std::vector<double>> doubleLists_;
  std::deque<std::vector<uint8_t>> boolLists_;
  std::deque<std::unique_ptr<uint64_t[]>> buffers_;
  std::deque<std::string> strings_;
};

struct Case {
  std::string kernel, name;
  float rtol = 0, atol = 0;
  std::vector<EValue *> args;
  struct Expected {
    uint32_t arg;
    int32_t elem;
    Tensor *tensor;
  };
  std::vector<Expected> expected;
  Boxer box;
};

/// Parses one case file; throws std::runtime_error on malformed input.
std::vector<std::unique_ptr<Case>> loadCaseFile(const std::string &path);

/// Empty when equal within tolerance, else a description of the mismatch.
std::string compareTensors(const Tensor &actual, const Tensor &expected, double rtol,
                           double atol);

} // namespace ptec::test
