// Internal: a read-only view of a zip file (libzip underneath). Navigates by
// the central directory, so torch's stream-writer archives (zero sizes in
// local headers, 64-byte aligned data, ZIP64 records) read like any other.
// Every method throws Pt2Error with a message naming the entry.
#ifndef PTEC_SERDE_PT2_ZIPARCHIVE_H
#define PTEC_SERDE_PT2_ZIPARCHIVE_H

#include "serde/pt2/ExportedProgram.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct zip;

namespace ptec::io {
class MappedFile;
}

namespace ptec::pt2 {

class ZipArchive {
public:
  /// `data` must stay alive as long as the archive.
  static std::unique_ptr<ZipArchive> openMemory(const void *data, size_t size);
  static std::unique_ptr<ZipArchive> openFile(const std::string &path);
  ~ZipArchive();
  ZipArchive(const ZipArchive &) = delete;
  ZipArchive &operator=(const ZipArchive &) = delete;

  /// Entry names in central-directory order, directories excluded.
  const std::vector<std::string> &names() const { return names_; }
  bool has(const std::string &name) const { return index_.count(name) != 0; }
  /// Uncompressed size as the central directory states it.
  uint64_t size(const std::string &name) const;
  /// Whole entry; only STORED and DEFLATE entries are accepted, and the
  /// bytes must match the central directory's CRC-32.
  std::vector<uint8_t> read(const std::string &name) const;
  /// The same for a tensor's payload: errors start with `what` (which names
  /// the tensor and the entry) instead of the entry name alone.
  std::vector<uint8_t> readFor(const std::string &name, const std::string &what) const;
  /// A tensor payload, as readFor checks it. From a file-backed archive a
  /// STORED entry (what torch writes) is not copied: the result is a window
  /// of the mapped file, its CRC checked through pread() so that no page of
  /// it becomes resident. Anything else is read into memory.
  std::shared_ptr<const ByteStorage> readPayload(const std::string &name,
                                                 const std::string &what) const;
  /// Whole entry as text, leading/trailing whitespace removed.
  std::string readTrimmedText(const std::string &name) const;

private:
  ZipArchive(struct zip *z, uint64_t archiveSize);
  uint64_t indexOf(const std::string &name) const;
  /// The STORED entry `name` in place in the archive's bytes, CRC-checked;
  /// nullopt when it cannot be served that way (then read() decides, with
  /// its own messages).
  std::optional<ByteView> inPlace(const std::string &name) const;

  struct zip *zip_;
  uint64_t archiveSize_;
  std::vector<std::string> names_;
  std::map<std::string, uint64_t> index_;
  // The archive's bytes (the caller's buffer, or the whole file mapped; null
  // when a file could not be mapped), and each entry's local header offset
  // from our own walk of the central directory (built on first use; empty
  // when the directory is laid out in a way the walk does not follow).
  const uint8_t *bytes_ = nullptr;
  std::shared_ptr<const io::MappedFile> map_;
  mutable std::map<std::string, uint64_t> localHeaders_;
  mutable bool localHeadersRead_ = false;
};

}  // namespace ptec::pt2

#endif  // PTEC_SERDE_PT2_ZIPARCHIVE_H
