#include "runtime/core/Tensor.h"
#include "runtime/executor/Npy.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>

using namespace ptec::rt;
using Catch::Matchers::Contains;

TEST_CASE("npy round trip for every supported dtype", "[runtime][npy]") {
  int64_t shape[] = {2, 3};
  SECTION("float32") {
    float v[6] = {1, 2, 3, 4, 5, 6.5f};
    auto bytes = encodeNpy(ScalarType::Float, shape, v, sizeof(v));
    REQUIRE(bytes.ok());
    REQUIRE((bytes->size() - sizeof(v)) % 64 == 0);
    auto a = parseNpy(bytes->data(), bytes->size());
    REQUIRE(a.ok());
    REQUIRE(a->dtype == ScalarType::Float);
    REQUIRE(a->shape == std::vector<int64_t>{2, 3});
    REQUIRE(std::memcmp(a->data.data(), v, sizeof(v)) == 0);
  }
  for (ScalarType t : {ScalarType::Double, ScalarType::Long, ScalarType::Int, ScalarType::Bool,
                       ScalarType::Byte}) {
    std::vector<uint8_t> data(6 * elementSize(t), 1);
    auto bytes = encodeNpy(t, shape, data.data(), data.size());
    REQUIRE(bytes.ok());
    auto a = parseNpy(bytes->data(), bytes->size());
    REQUIRE(a.ok());
    REQUIRE(a->dtype == t);
    REQUIRE(a->data == data);
  }
}

TEST_CASE("npy scalars, 1-d shapes and files", "[runtime][npy]") {
  double d = 2.5;
  auto bytes = encodeNpy(ScalarType::Double, {}, &d, 8);
  REQUIRE(bytes.ok());
  auto a = parseNpy(bytes->data(), bytes->size());
  REQUIRE(a.ok());
  REQUIRE(a->shape.empty());
  REQUIRE(a->numel() == 1);

  int64_t shape[] = {4};
  int32_t v[4] = {1, -2, 3, -4};
  std::string path = "npy_test_tmp.npy";
  REQUIRE(writeNpy(path.c_str(), ScalarType::Int, shape, v, sizeof(v)) == Error::Ok);
  auto r = readNpy(path.c_str());
  REQUIRE(r.ok());
  REQUIRE(r->shape == std::vector<int64_t>{4});
  REQUIRE(std::memcmp(r->data.data(), v, sizeof(v)) == 0);
  std::remove(path.c_str());
}

TEST_CASE("bad npy input is an error with a reason", "[runtime][npy]") {
  std::string detail;
  uint8_t junk[16] = {1, 2, 3};
  REQUIRE(parseNpy(junk, sizeof(junk), &detail).error() == Error::InvalidArgument);
  REQUIRE_THAT(detail, Contains("bad magic"));

  float v[2] = {1, 2};
  int64_t shape[] = {2};
  auto bytes = encodeNpy(ScalarType::Float, shape, v, sizeof(v));
  std::vector<uint8_t> b = *bytes;
  b.resize(b.size() - 4); // data truncated
  REQUIRE(parseNpy(b.data(), b.size(), &detail).error() == Error::InvalidArgument);
  REQUIRE_THAT(detail, Contains("needs 8"));

  std::string h = std::string("\x93NUMPY\x01\x00", 8);
  std::string dict = "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }\n";
  h.push_back(static_cast<char>(dict.size()));
  h.push_back(0);
  h += dict;
  h.append(8, '\0');
  REQUIRE(parseNpy(reinterpret_cast<const uint8_t *>(h.data()), h.size(), &detail).error() ==
          Error::NotSupported);
  REQUIRE_THAT(detail, Contains("'<c8'"));
  REQUIRE(readNpy("does/not/exist.npy", &detail).error() == Error::AccessFailed);
}

TEST_CASE("npy arrays of more dimensions than a tensor holds are refused", "[runtime][npy]") {
  // A rank-17 array used to parse, and then bind as a tensor of another rank.
  std::vector<int64_t> shape(kTensorMaxRank + 1, 1);
  float v = 2;
  auto bytes = encodeNpy(ScalarType::Float, Span<const int64_t>(shape.data(), shape.size()), &v,
                         sizeof(v));
  REQUIRE(bytes.ok());
  std::string detail;
  REQUIRE(parseNpy(bytes->data(), bytes->size(), &detail).error() == Error::NotSupported);
  REQUIRE_THAT(detail, Contains("has rank 17; the runtime's tensors have at most 16"));
  // From a file, the message names the file.
  std::string path = "npy_rank17_tmp.npy";
  REQUIRE(writeNpy(path.c_str(), ScalarType::Float,
                   Span<const int64_t>(shape.data(), shape.size()), &v, sizeof(v)) == Error::Ok);
  REQUIRE(readNpy(path.c_str(), &detail).error() == Error::NotSupported);
  REQUIRE_THAT(detail, Contains(path + ": .npy shape"));
  REQUIRE_THAT(detail, Contains("rank 17"));
  std::remove(path.c_str());
  // Rank 16 is the largest that reads.
  shape.pop_back();
  auto rank16 = encodeNpy(ScalarType::Float, Span<const int64_t>(shape.data(), shape.size()), &v,
                          sizeof(v));
  REQUIRE(parseNpy(rank16->data(), rank16->size(), &detail).ok());
}
