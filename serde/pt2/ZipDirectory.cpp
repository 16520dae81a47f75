#include "serde/pt2/ZipDirectory.h"

#include "serde/pt2/Pt2Error.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>

namespace ptec::pt2 {

namespace {

constexpr uint32_t kEocdSig = 0x06054b50, kLocatorSig = 0x07064b50, kEocd64Sig = 0x06064b50,
                   kCentralSig = 0x02014b50, kLocalSig = 0x04034b50;
constexpr uint64_t kEocdSize = 22, kLocatorSize = 20, kEocd64Size = 56, kCentralSize = 46,
                   kLocalSize = 30, kMaxComment = 65535;
constexpr uint16_t kUtf8Flag = 0x0800;

uint16_t le16(const uint8_t *p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
uint32_t le32(const uint8_t *p) { return uint32_t(le16(p)) | uint32_t(le16(p + 2)) << 16; }
uint64_t le64(const uint8_t *p) { return uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32; }

std::string num(uint64_t v) { return std::to_string(v); }
std::string hex(uint64_t v, int digits) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%0*" PRIx64, digits, v);
  return text;
}

/// A name as it can be printed: bytes outside printable ASCII as \xNN.
std::string shown(const std::string &s) {
  std::string out = "'";
  for (unsigned char c : s) {
    if (c >= 32 && c < 127 && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\x%02x", c);
      out += esc;
    }
  }
  return out + "'";
}

/// Every directory error says what kind of problem the archive has.
[[noreturn]] void corrupt(const std::string &what) { fail("corrupt zip archive: " + what); }
[[noreturn]] void ambiguous(const std::string &what) { fail("ambiguous zip archive: " + what); }

/// Position of the first byte that breaks UTF-8 (the sequences libzip
/// accepts: 1 to 4 bytes, continuation bytes 10xxxxxx), or npos.
size_t badUtf8(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n;) {
    uint8_t c = p[i];
    size_t more = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2
                               : (c & 0xF8) == 0xF0 ? 3 : SIZE_MAX;
    if (more == SIZE_MAX || more >= n - i)
      return i;
    for (size_t k = 1; k <= more; ++k)
      if ((p[i + k] & 0xC0) != 0x80)
        return i;
    i += more + 1;
  }
  return std::string::npos;
}

struct Zip64Fields {
  bool size = false, comp = false, offset = false;
};

/// Walks an extra field's records; for the ZIP64 record (0x0001) fills the
/// fields the fixed part escapes with 0xFFFFFFFF, in the order the format
/// gives them. `who` names the entry and the header in messages.
void readExtra(const uint8_t *x, uint64_t len, const std::string &who, Zip64Fields want,
               uint64_t *size, uint64_t *comp, uint64_t *offset) {
  uint64_t at = 0;
  bool zip64 = false;
  while (len - at >= 4) {
    uint16_t id = le16(x + at), n = le16(x + at + 2);
    if (n > len - at - 4)
      corrupt(who + " extra field: record " + hex(id, 4) + " at byte " + num(at) + " claims " +
           num(n) + " bytes, only " + num(len - at - 4) + " are left of the field's " +
           num(len));
    if (id == 0x0001 && (want.size || want.comp || want.offset)) {
      const uint8_t *v = x + at + 4;
      uint64_t need = 8 * (uint64_t(want.size) + want.comp + want.offset);
      if (n < need)
        corrupt(who + " ZIP64 extra field has " + num(n) + " bytes; the sizes and offset escaped " +
             "as 0xFFFFFFFF need " + num(need));
      if (want.size) {
        *size = le64(v);
        v += 8;
      }
      if (want.comp) {
        *comp = le64(v);
        v += 8;
      }
      if (want.offset)
        *offset = le64(v);
      zip64 = true;
    }
    at += 4u + n;
  }
  // 1-3 trailing bytes are alignment padding some writers leave (Android).
  if ((want.size || want.comp || want.offset) && !zip64)
    corrupt(who + std::string(" has ") +
         (want.size ? "size" : want.comp ? "compressed size" : "local header offset") +
         " 0xFFFFFFFF but no ZIP64 extra field (0x0001) holding the real value");
}

}  // namespace

std::vector<ZipDirEntry> readZipDirectory(const uint8_t *d, uint64_t n) {
  // The end of central directory record: the last signature in the final
  // 22 + 65535 bytes (it may be followed by a comment).
  if (n < kEocdSize)
    fail("not a zip archive (" + num(n) + " bytes is too short)");
  const uint64_t lowest = n > kEocdSize + kMaxComment ? n - kEocdSize - kMaxComment : 0;
  uint64_t eocd = UINT64_MAX;
  for (uint64_t at = n - kEocdSize + 1; at-- > lowest;)
    if (le32(d + at) == kEocdSig) {
      eocd = at;
      break;
    }
  if (eocd == UINT64_MAX)
    fail("not a zip archive (no end of central directory record in its last " +
         num(n - lowest) + " bytes; truncated or corrupt?)");
  const std::string eocdAt = "end of central directory record (at offset " + num(eocd) + ")";
  const uint8_t *e = d + eocd;
  uint64_t disk = le16(e + 4), cdDisk = le16(e + 6), onDisk = le16(e + 8), count = le16(e + 10),
           cdSize = le32(e + 12), cdOff = le32(e + 16);
  // Bytes after the comment are tolerated (as libzip and Python's zipfile
  // do); a comment longer than the file is not.
  const uint64_t commentLen = le16(e + 20), tail = n - eocd - kEocdSize;
  if (commentLen > tail)
    corrupt(eocdAt + ": comment length " + num(commentLen) + ", but only " + num(tail) +
            " bytes follow the record (truncated?)");
  uint64_t limit = eocd;  // the central directory ends before this
  if (eocd >= kLocatorSize && le32(e - kLocatorSize) == kLocatorSig) {
    const uint64_t locator = eocd - kLocatorSize;
    const uint64_t rec = le64(d + locator + 8);
    const std::string locAt = "ZIP64 end of central directory locator (at offset " +
                              num(locator) + ")";
    const uint32_t recDisk = le32(d + locator + 4), disks = le32(d + locator + 16);
    if (recDisk != 0 || disks > 1)
      corrupt(locAt + ": ZIP64 end record on disk " + num(recDisk) + " of " + num(disks) +
              ": multi-disk archives are unsupported");
    if (rec > locator || locator - rec < kEocd64Size)
      corrupt(locAt + " points to offset " + num(rec) + ", where no " + num(kEocd64Size) +
           "-byte ZIP64 end record fits before the locator");
    if (le32(d + rec) != kEocd64Sig)
      corrupt(locAt + " points to offset " + num(rec) + ", which holds " + hex(le32(d + rec), 8) +
           ", not the ZIP64 end record signature " + hex(kEocd64Sig, 8));
    const uint8_t *z = d + rec;
    const std::string z64 = "ZIP64 end of central directory record (at offset " + num(rec) + ")";
    struct {
      const char *field;
      uint64_t classic, escape, wide;
    } pairs[] = {{"disk number", disk, 0xFFFF, le32(z + 16)},
                 {"central directory disk", cdDisk, 0xFFFF, le32(z + 20)},
                 {"entries on this disk", onDisk, 0xFFFF, le64(z + 24)},
                 {"entry count", count, 0xFFFF, le64(z + 32)},
                 {"central directory size", cdSize, 0xFFFFFFFF, le64(z + 40)},
                 {"central directory offset", cdOff, 0xFFFFFFFF, le64(z + 48)}};
    for (const auto &p : pairs)
      if (p.classic != p.escape && p.classic != p.wide)
        corrupt(eocdAt + " says " + p.field + " " + num(p.classic) + ", the " + z64 + " says " +
             num(p.wide));
    disk = pairs[0].wide;
    cdDisk = pairs[1].wide;
    onDisk = pairs[2].wide;
    count = pairs[3].wide;
    cdSize = pairs[4].wide;
    cdOff = pairs[5].wide;
    limit = rec;
  }
  if (disk != 0 || cdDisk != 0)
    corrupt(eocdAt + ": disk number " + num(disk) + ", central directory on disk " + num(cdDisk) +
         ": multi-disk archives are unsupported");
  if (onDisk != count)
    corrupt(eocdAt + " says " + num(onDisk) + " entries on this disk but " + num(count) +
         " in total: multi-disk archives are unsupported");
  if (cdOff > limit || cdSize > limit - cdOff)
    corrupt(eocdAt + ": central directory offset " + num(cdOff) + " + size " + num(cdSize) +
         " runs past offset " + num(limit) + ", where the end records start");
  // Each entry needs at least 46 bytes: a count the directory cannot hold
  // is refused before anything is allocated for it.
  if (count > cdSize / kCentralSize)
    corrupt(eocdAt + " says " + num(count) + " entries, but the central directory's " +
         num(cdSize) + " bytes hold at most " + num(cdSize / kCentralSize));

  std::vector<ZipDirEntry> entries;
  entries.reserve(static_cast<size_t>(count));
  const uint64_t cdEnd = cdOff + cdSize;
  uint64_t at = cdOff;
  std::map<std::string, uint64_t> seen;
  for (uint64_t i = 0; i < count; ++i) {
    const std::string entryAt = "central directory entry " + num(i) + " (at offset " + num(at) + ")";
    if (cdEnd - at < kCentralSize)
      corrupt(entryAt + ": " + num(cdEnd - at) + " bytes are left of the central directory, an " +
           "entry needs " + num(kCentralSize) + " (the end record says " + num(count) +
           " entries in " + num(cdSize) + " bytes)");
    const uint8_t *c = d + at;
    if (le32(c) != kCentralSig)
      corrupt(entryAt + ": signature " + hex(le32(c), 8) + ", expected " + hex(kCentralSig, 8));
    const uint16_t nameLen = le16(c + 28), extraLen = le16(c + 30), commentLen = le16(c + 32);
    const uint64_t need = kCentralSize + nameLen + extraLen + commentLen;
    if (cdEnd - at < need)
      corrupt(entryAt + ": its name (" + num(nameLen) + "), extra field (" + num(extraLen) +
           ") and comment (" + num(commentLen) + ") run past the end of the central directory at " +
           num(cdEnd));
    ZipDirEntry entry;
    entry.name.assign(reinterpret_cast<const char *>(c + kCentralSize), nameLen);
    entry.flags = le16(c + 8);
    entry.method = le16(c + 10);
    entry.crc = le32(c + 16);
    entry.compressedSize = le32(c + 20);
    entry.size = le32(c + 24);
    entry.localHeader = le32(c + 42);
    const std::string who = entryAt + " " + shown(entry.name);
    if (entry.flags & kUtf8Flag) {
      size_t bad = badUtf8(c + kCentralSize, nameLen);
      if (bad != std::string::npos)
        corrupt(who + ": the name is not UTF-8 (byte " + num(bad) + " of it), although flag 0x0800 " +
             "says it is");
      bad = badUtf8(c + kCentralSize + nameLen + extraLen, commentLen);
      if (bad != std::string::npos)
        corrupt(who + ": the comment is not UTF-8 (byte " + num(bad) + " of it), although flag " +
             "0x0800 says it is");
    }
    Zip64Fields want{entry.size == 0xFFFFFFFF, entry.compressedSize == 0xFFFFFFFF,
                     entry.localHeader == 0xFFFFFFFF};
    readExtra(c + kCentralSize + nameLen, extraLen, who, want, &entry.size, &entry.compressedSize,
              &entry.localHeader);
    // Every entry must be readable for its CRC to be checked; libzip would
    // call a WinZip AES entry (99) without its extra field "inconsistent".
    if (entry.method != 0 && entry.method != 8)
      fail(entry.name + ": compression method " + num(entry.method) +
              (entry.method == 99 ? " (WinZip AES encryption)" : "") +
              " is unsupported (only stored and deflate)");
    const uint16_t startDisk = le16(c + 34);
    if (startDisk != 0 && startDisk != 0xFFFF)
      corrupt(who + ": starts on disk " + num(startDisk) + ": multi-disk archives are unsupported");

    // The local header: where the data starts, and the same name.
    const uint64_t lh = entry.localHeader;
    if (lh > cdOff || cdOff - lh < kLocalSize)
      corrupt(who + ": local header offset " + num(lh) + " leaves no room for a local header " +
           "before the central directory at " + num(cdOff));
    const uint8_t *l = d + lh;
    if (le32(l) != kLocalSig)
      corrupt(who + ": local header offset " + num(lh) + " holds " + hex(le32(l), 8) +
           ", not the local header signature " + hex(kLocalSig, 8));
    const uint16_t localName = le16(l + 26), localExtra = le16(l + 28);
    entry.dataStart = lh + kLocalSize + localName + localExtra;
    if (entry.dataStart > cdOff)
      corrupt(who + ": its local header at " + num(lh) + " (name " + num(localName) + ", extra " +
           num(localExtra) + " bytes) runs into the central directory at " + num(cdOff));
    std::string nameThere(reinterpret_cast<const char *>(l + kLocalSize), localName);
    if (nameThere != entry.name)
      corrupt(who + ": its local header at " + num(lh) + " names it " + shown(nameThere) +
           ": the two names disagree");
    uint64_t unusedSize = 0, unusedComp = 0, unusedOffset = 0;
    readExtra(l + kLocalSize + localName, localExtra, who + ": local header", Zip64Fields{},
              &unusedSize, &unusedComp, &unusedOffset);
    if (entry.compressedSize > cdOff - entry.dataStart)
      corrupt(who + ": data at " + num(entry.dataStart) + " + compressed size " +
           num(entry.compressedSize) + " runs past the start of the central directory at " +
           num(cdOff));

    auto [prev, fresh] = seen.emplace(entry.name, i);
    if (!fresh)
      ambiguous("entry " + shown(entry.name) + " appears twice in the central directory (entries " +
           num(prev->second) + " and " + num(i) + "): which one is meant is ambiguous " +
           "(Python's zipfile reads the last, libzip the first)");
    entries.push_back(std::move(entry));
    at += need;
  }
  if (at != cdEnd)
    corrupt(eocdAt + " says " + num(count) + " entries in " + num(cdSize) +
         " bytes, but those entries end at offset " + num(at) + ", " + num(cdEnd - at) +
         " bytes before the central directory's end at " + num(cdEnd));

  // No byte may belong to two entries: a reader would otherwise take one
  // entry's data as another's.
  std::vector<const ZipDirEntry *> byOffset;
  for (const ZipDirEntry &entry : entries)
    byOffset.push_back(&entry);
  std::sort(byOffset.begin(), byOffset.end(), [](const ZipDirEntry *a, const ZipDirEntry *b) {
    return a->localHeader < b->localHeader;
  });
  for (size_t k = 1; k < byOffset.size(); ++k) {
    const ZipDirEntry &a = *byOffset[k - 1], &b = *byOffset[k];
    const uint64_t aEnd = a.dataStart + a.compressedSize;
    if (b.localHeader < aEnd)
      ambiguous("entries " + shown(a.name) + " (bytes " + num(a.localHeader) + " to " + num(aEnd) +
           ") and " + shown(b.name) + " (from byte " + num(b.localHeader) +
           ") overlap: the archive's entries share bytes");
  }
  return entries;
}

}  // namespace ptec::pt2
