// as_strided materialization rules and their bounds checks.
#include "serde/pt2/Pt2Error.h"
#include "serde/pt2/Weights.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace ptec::pt2;

namespace {
std::vector<uint8_t> floats(std::vector<float> v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}
std::vector<float> asFloats(const std::vector<uint8_t> &b) {
  std::vector<float> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}
TensorMeta meta(std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset = 0) {
  TensorMeta m;
  m.dtype = DType::Float;
  m.sizes = std::move(sizes);
  m.strides = std::move(strides);
  m.storageOffset = offset;
  return m;
}
std::string errorOf(const std::vector<uint8_t> &storage, const TensorMeta &m) {
  try {
    materializeStrided(storage, m, "w");
  } catch (const Pt2Error &e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("as_strided views are materialized contiguously", "[pt2][weights]") {
  std::vector<uint8_t> s = floats({0, 1, 2, 3, 4, 5});
  CHECK(asFloats(materializeStrided(s, meta({2, 3}, {3, 1}), "w")) == std::vector<float>{0, 1, 2, 3, 4, 5});
  CHECK(asFloats(materializeStrided(s, meta({3, 2}, {1, 3}), "w")) == std::vector<float>{0, 3, 1, 4, 2, 5});
  CHECK(asFloats(materializeStrided(s, meta({2}, {2}, 1), "w")) == std::vector<float>{1, 3});
  CHECK(asFloats(materializeStrided(s, meta({2, 2}, {0, 1}, 4), "w")) == std::vector<float>{4, 5, 4, 5});
  CHECK(asFloats(materializeStrided(s, meta({}, {}, 5), "w")) == std::vector<float>{5});
  CHECK(asFloats(materializeStrided(s, meta({2, 3}, {}), "w")) == std::vector<float>{0, 1, 2, 3, 4, 5});
  CHECK(materializeStrided(s, meta({0, 3}, {3, 1}), "w").empty());
  // An empty payload is only right for a tensor without elements.
  CHECK(materializeStrided({}, meta({0, 3}, {3, 1}), "w").empty());
  CHECK(contiguousStrides({2, 3, 4}) == std::vector<int64_t>{12, 4, 1});
}

TEST_CASE("as_strided bounds are checked", "[pt2][weights]") {
  std::vector<uint8_t> s = floats({0, 1, 2, 3, 4, 5});
  CHECK(errorOf(s, meta({2, 3}, {3, 1}, 1)) ==
        "w: as_strided view (sizes [2, 3], strides [3, 1], offset 1) reaches element 6 but the payload "
        "holds only 6 elements");
  CHECK(errorOf(s, meta({2, 3}, {3, -1})) == "w: negative stride in [3, -1]");
  CHECK(errorOf(s, meta({-1}, {1})) == "w: negative size in [-1]");
  CHECK(errorOf(s, meta({2}, {1}, -1)) == "w: negative storage offset -1");
  CHECK(errorOf(s, meta({2, 3}, {1})) == "w: 2 sizes but 1 strides");
  CHECK(errorOf(s, meta({3}, {INT64_MAX})).find("reaches element") != std::string::npos);
  CHECK(errorOf(s, meta({INT64_MAX, 4}, {1, 1})).find("overflows") != std::string::npos);
  CHECK(errorOf(s, meta({1 << 30}, {0})).find("refusing to expand it") != std::string::npos);
  CHECK(errorOf({1, 2, 3}, meta({1}, {1})) ==
        "w: payload of 3 bytes is not a multiple of the float32 element size 4");
  TensorMeta unknown = meta({1}, {1});
  unknown.dtype = DType::Unknown;
  CHECK(errorOf(s, unknown) == "w: dtype unknown has no element size");
  CHECK(errorOf({}, meta({1ll << 40}, {1})).find("refusing to expand it") != std::string::npos);
  CHECK(errorOf({}, meta({3}, {1})) ==
        "w: the payload is empty (0 bytes), but float32[3] needs 12 bytes: the archive holds no "
        "values for it (was a fake tensor saved?); export the program with its real weights");
}

TEST_CASE("expanded views share one budget per archive", "[pt2][weights]") {
  std::vector<uint8_t> one = floats({7});
  uint64_t used = kMaxExpandedBytes - 16;
  CHECK(materializeStrided(one, meta({4}, {0}), "a", &used).size() == 16);
  CHECK(used == kMaxExpandedBytes);
  CHECK_THROWS_WITH(materializeStrided(one, meta({2}, {0}), "b", &used),
                    Catch::Contains("b: view float32[2] needs 8 bytes") &&
                        Catch::Contains("refusing to expand it"));
  // Views within their storage cost nothing.
  CHECK(materializeStrided(floats({1, 2}), meta({2}, {1}), "c", &used).size() == 8);
}
