// Internal: a read-only view of a zip file (libzip underneath). Navigates by
// the central directory, so torch's stream-writer archives (zero sizes in
// local headers, 64-byte aligned data, ZIP64 records) read like any other.
// Opening walks the directory itself first (ZipDirectory.h): a malformed
// directory, a name used twice or entries sharing bytes are refused there.
// Every method throws Pt2Error with a message naming the entry.
#ifndef PTEC_SERDE_PT2_ZIPARCHIVE_H
#define PTEC_SERDE_PT2_ZIPARCHIVE_H

#include "serde/pt2/ExportedProgram.h"
#include "serde/pt2/ZipDirectory.h"

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

  /// Checks the CRC-32 of every entry that no read so far has checked
  /// (sample inputs, extra files: entries the reader does not use), so that
  /// every entry of an accepted archive matches its checksum. Call it when
  /// reading is done; errors name the entry.
  void checkUnreadEntries() const;

private:
  ZipArchive(struct zip *z, uint64_t archiveSize, std::vector<ZipDirEntry> entries);
  static std::unique_ptr<ZipArchive> open(const uint8_t *data, uint64_t size);
  uint64_t indexOf(const std::string &name) const;
  /// The STORED entry `name` in place in the archive's bytes, CRC-checked;
  /// nullopt when it cannot be served that way (then read() decides, with
  /// its own messages).
  std::optional<ByteView> inPlace(const std::string &name) const;
  /// CRC-32 of a STORED entry's bytes; *ok false when they cannot be read.
  uint32_t storedCrc(const ZipDirEntry &e, bool *ok) const;

  struct zip *zip_;
  uint64_t archiveSize_;
  // Our own reading of the central directory (readZipDirectory), in
  // directory order: entry i is libzip's index i.
  std::vector<ZipDirEntry> entries_;
  std::vector<std::string> names_;
  std::map<std::string, uint64_t> index_;
  // The archive's bytes: the caller's buffer, or the whole file mapped.
  const uint8_t *bytes_ = nullptr;
  std::shared_ptr<const io::MappedFile> map_;
  // Entries whose CRC has been checked (by a read or checkUnreadEntries).
  mutable std::vector<bool> verified_;
};

}  // namespace ptec::pt2

#endif  // PTEC_SERDE_PT2_ZIPARCHIVE_H
