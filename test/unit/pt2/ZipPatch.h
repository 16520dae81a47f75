// Reading and patching the little-endian fields of a zip archive held in a
// string, for tests that damage an archive on purpose.
#ifndef PTEC_TEST_UNIT_PT2_ZIPPATCH_H
#define PTEC_TEST_UNIT_PT2_ZIPPATCH_H

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>

namespace ptec::pt2::test {

inline uint32_t get32(const std::string &z, size_t at) {
  uint32_t v;
  std::memcpy(&v, z.data() + at, 4);
  return v;
}
inline void set32(std::string &z, size_t at, uint32_t v) { std::memcpy(&z[at], &v, 4); }

/// Offset of the central directory header of `name` (fails the test when
/// absent). Only for archives without ZIP64 extra fields.
inline size_t centralHeader(const std::string &zip, const std::string &name) {
  for (size_t at = 0; at + 46 <= zip.size(); ++at) {
    if (get32(zip, at) != 0x02014b50)
      continue;
    uint16_t nameLen = static_cast<uint16_t>(get32(zip, at + 28) & 0xFFFF);
    if (nameLen == name.size() && zip.compare(at + 46, nameLen, name) == 0)
      return at;
  }
  FAIL("no central directory header for " << name);
  return 0;
}

}  // namespace ptec::pt2::test

#endif  // PTEC_TEST_UNIT_PT2_ZIPPATCH_H
