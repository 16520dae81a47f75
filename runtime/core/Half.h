// float16 (IEEE binary16) and bfloat16 conversions. Tensors store both as raw
// 16-bit patterns; kernels widen to float to compute and narrow the result
// once, rounding to nearest even, as upstream's Half/BFloat16 types do.
#pragma once

#include <cstdint>
#include <cstring>

namespace ptec::rt {

inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
inline float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

/// binary16 -> float (exact: every half value is a float).
inline float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t man = h & 0x3FFu;
  if (exp == 0x1F) // inf / NaN (payload kept, quiet bit set)
    return bitsFloat(sign | 0x7F800000u | (man << 13) | (man ? 0x400000u : 0));
  if (exp == 0) {
    if (man == 0)
      return bitsFloat(sign);
    // Subnormal: value = man * 2^-24, exact in float.
    float v = static_cast<float>(man) * (1.0f / 16777216.0f);
    return sign ? -v : v;
  }
  return bitsFloat(sign | ((exp + 112) << 23) | (man << 13));
}

/// float -> binary16, round to nearest even; overflow gives inf, NaN stays NaN.
inline uint16_t floatToHalf(float f) {
  uint32_t u = floatBits(f);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  uint32_t abs = u & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) // inf or NaN
    return static_cast<uint16_t>(sign | 0x7C00u | (abs > 0x7F800000u ? 0x200u : 0));
  if (abs >= 0x477FF000u) // rounds to >= 65520: overflow to inf
    return static_cast<uint16_t>(sign | 0x7C00u);
  if (abs < 0x38800000u) {
    // Result is subnormal (or zero): scale so that the float adder rounds
    // to nearest even at the half subnormal spacing 2^-24.
    float v = bitsFloat(abs) + 0.5f; // 0.5 = 2^-1: its ulp is 2^-24
    return static_cast<uint16_t>(sign | (floatBits(v) - floatBits(0.5f)));
  }
  uint32_t mantOdd = (abs >> 13) & 1u;
  abs += 0xC8000FFFu + mantOdd; // rebias exponent (-112 << 23) and round
  return static_cast<uint16_t>(sign | (abs >> 13));
}

/// bfloat16 -> float: the top half of a float.
inline float bf16ToFloat(uint16_t b) { return bitsFloat(static_cast<uint32_t>(b) << 16); }

/// float -> bfloat16, round to nearest even; NaN stays NaN.
inline uint16_t floatToBf16(float f) {
  uint32_t u = floatBits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40u);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

} // namespace ptec::rt
