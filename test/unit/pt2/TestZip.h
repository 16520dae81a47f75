// Test-only zip writers: libzip (stored or deflate, like Python's zipfile)
// and a byte-exact imitation of PyTorch's stream writer (64-byte aligned
// data, data descriptors, flags 0x0808, ZIP64 end records).
#ifndef PTEC_TEST_UNIT_PT2_TESTZIP_H
#define PTEC_TEST_UNIT_PT2_TESTZIP_H

#include <cstdint>
#include <string>
#include <vector>

namespace ptec::pt2::test {

struct ZipEntry {
  std::string name;
  std::string data;
  bool deflate = false;   // libzip writer only
  int methodOverride = -1;  // torch-style writer: method written into the headers
};

enum class ZipStyle {
  Libzip,          // stored unless ZipEntry::deflate
  LibzipDeflate,   // every entry deflated
  Torch,           // PyTorch stream-writer layout
  TorchZip64Extra  // same, with every central size/offset in ZIP64 extra fields
};

std::string writeZip(const std::vector<ZipEntry> &entries, ZipStyle style);
uint32_t crc32(const std::string &data);

}  // namespace ptec::pt2::test

#endif  // PTEC_TEST_UNIT_PT2_TESTZIP_H
