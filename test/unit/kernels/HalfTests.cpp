// float16 / bfloat16 conversions (runtime/core/Half.h): exact widening,
// round-to-nearest-even narrowing, overflow, subnormals and NaN.
#include "runtime/core/Half.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

using namespace ptec::rt;

TEST_CASE("float16 widening is exact and narrowing round-trips every value", "[kernels][half]") {
  size_t nans = 0;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = halfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      ++nans;
      CHECK(std::isnan(halfToFloat(floatToHalf(f))));
      continue;
    }
    INFO("half bits " << h);
    CHECK(floatToHalf(f) == h);
  }
  CHECK(nans == 2 * 1023); // both signs, every nonzero payload
  CHECK(halfToFloat(0x3C00) == 1.0f);
  CHECK(halfToFloat(0xC000) == -2.0f);
  CHECK(halfToFloat(0x7BFF) == 65504.0f);
  CHECK(halfToFloat(0x0001) == std::ldexp(1.0f, -24)); // smallest subnormal
  CHECK(halfToFloat(0x7C00) == std::numeric_limits<float>::infinity());
}

TEST_CASE("float16 narrowing rounds to nearest even", "[kernels][half]") {
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties go to the even 1.
  CHECK(floatToHalf(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);
  // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9: up.
  CHECK(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3C02);
  // Just above the tie rounds up.
  CHECK(floatToHalf(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)) == 0x3C01);
  CHECK(floatToHalf(65519.0f) == 0x7BFF);  // below the overflow threshold
  CHECK(floatToHalf(65520.0f) == 0x7C00);  // the tie rounds to even: inf
  CHECK(floatToHalf(-1e9f) == 0xFC00);
  CHECK(floatToHalf(std::ldexp(1.0f, -25)) == 0x0000); // tie with 0: even
  CHECK(floatToHalf(std::ldexp(3.0f, -26)) == 0x0001);
  CHECK(floatToHalf(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26)) == 0x0400); // up to normal
  CHECK(floatToHalf(-0.0f) == 0x8000);
  CHECK((floatToHalf(std::numeric_limits<float>::quiet_NaN()) & 0x7FFF) > 0x7C00);
}

TEST_CASE("bfloat16 conversions", "[kernels][half]") {
  CHECK(bf16ToFloat(0x3F80) == 1.0f);
  CHECK(bf16ToFloat(0xC0A0) == -5.0f);
  CHECK(floatToBf16(1.0f) == 0x3F80);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even.
  CHECK(floatToBf16(1.0f + std::ldexp(1.0f, -8)) == 0x3F80);
  CHECK(floatToBf16(1.0f + 3 * std::ldexp(1.0f, -8)) == 0x3F82);
  CHECK(floatToBf16(std::numeric_limits<float>::max()) == 0x7F80); // rounds to inf
  CHECK(std::isnan(bf16ToFloat(floatToBf16(std::numeric_limits<float>::quiet_NaN()))));
  for (uint32_t b = 0; b < 0x10000; ++b) {
    float f = bf16ToFloat(static_cast<uint16_t>(b));
    if (!std::isnan(f))
      REQUIRE(floatToBf16(f) == b);
  }
}
