// Internal: our own reading of a zip's central directory and local headers,
// checked field by field before libzip sees the archive. libzip reports a
// damaged directory as "inconsistent" without saying where, keeps the first
// of two entries of one name (Python's zipfile keeps the last), and reads
// entries whose bytes overlap; here each of those is an error naming the
// record, the entry, the field and the values.
#ifndef PTEC_SERDE_PT2_ZIPDIRECTORY_H
#define PTEC_SERDE_PT2_ZIPDIRECTORY_H

#include <cstdint>
#include <string>
#include <vector>

namespace ptec::pt2 {

struct ZipDirEntry {
  std::string name;
  uint16_t flags = 0;
  uint16_t method = 0;
  uint32_t crc = 0;
  uint64_t compressedSize = 0;
  uint64_t size = 0;
  uint64_t localHeader = 0;  ///< offset of the local file header
  uint64_t dataStart = 0;    ///< first byte of the (compressed) data
  bool isDirectory() const { return !name.empty() && name.back() == '/'; }
};

/// Every central directory entry of the archive [d, d + n), in directory
/// order, with its data located through its local header. Throws Pt2Error
/// (via fail) when the end records, an entry or a local header is
/// malformed or out of bounds, when a name appears twice, or when two
/// entries' bytes overlap (each other, or the central directory).
std::vector<ZipDirEntry> readZipDirectory(const uint8_t *d, uint64_t n);

}  // namespace ptec::pt2

#endif  // PTEC_SERDE_PT2_ZIPDIRECTORY_H
