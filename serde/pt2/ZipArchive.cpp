#include "serde/pt2/ZipArchive.h"

#include "serde/io/MappedFile.h"
#include "serde/pt2/Pt2Error.h"

#include <libdeflate.h>
#include <zip.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace ptec::pt2 {

namespace {
std::string libzipMessage(zip_error_t *error) {
  const char *text = zip_error_strerror(error);
  return text ? text : "unknown libzip error";
}

std::string openErrorMessage(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string text = libzipMessage(&error);
  zip_error_fini(&error);
  switch (code) {
  case ZIP_ER_NOZIP:
    return "not a zip archive (no valid end of central directory record or central "
           "directory; truncated or corrupt?)";
  case ZIP_ER_INCONS:
    return "corrupt zip archive: central directory is inconsistent (" + text + ")";
  default:
    return "cannot open zip archive: " + text;
  }
}

// A DEFLATE stream expands at most ~1032:1; a central directory claiming more
// is lying, and trusting it would let a tiny file ask for a huge allocation.
constexpr uint64_t kMaxDeflateRatio = 1100;

// An end of central directory record alone is 22 bytes; libzip would accept an
// empty buffer as an empty archive.
constexpr uint64_t kMinZipSize = 22;

std::string hex32(uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08" PRIx32, v);
  return text;
}

/// CRC-32 of `data` (libdeflate's: several times zlib's speed).
uint32_t crcOf(const uint8_t *data, size_t size) {
  return libdeflate_crc32(0, data, size);
}

uint16_t le16(const uint8_t *p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
uint32_t le32(const uint8_t *p) { return uint32_t(le16(p)) | uint32_t(le16(p + 2)) << 16; }
uint64_t le64(const uint8_t *p) { return uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32; }

/// Local header offset of every central directory entry, by name. libzip
/// does not expose it. Returns an empty map on anything unexpected: the
/// caller then reads through libzip, and every offset found here is only
/// trusted after the data's CRC matches libzip's record.
std::map<std::string, uint64_t> localHeaderOffsets(const uint8_t *d, uint64_t n) {
  std::map<std::string, uint64_t> out;
  constexpr uint64_t kEocd = 22, kMaxComment = 65535;
  if (n < kEocd)
    return out;
  uint64_t lowest = n > kEocd + kMaxComment ? n - kEocd - kMaxComment : 0;
  uint64_t eocd = UINT64_MAX;
  for (uint64_t at = n - kEocd + 1; at-- > lowest;)
    if (le32(d + at) == 0x06054b50) {
      eocd = at;
      break;
    }
  if (eocd == UINT64_MAX)
    return out;
  uint64_t count = le16(d + eocd + 10), cdSize = le32(d + eocd + 12), cdOff = le32(d + eocd + 16);
  if (count == 0xFFFF || cdSize == 0xFFFFFFFF || cdOff == 0xFFFFFFFF) {  // ZIP64
    if (eocd < 20 || le32(d + eocd - 20) != 0x07064b50)
      return out;
    uint64_t rec = le64(d + eocd - 20 + 8);
    if (rec > n || n - rec < 56 || le32(d + rec) != 0x06064b50)
      return out;
    count = le64(d + rec + 32);
    cdSize = le64(d + rec + 40);
    cdOff = le64(d + rec + 48);
  }
  if (cdOff > n || cdSize > n - cdOff)
    return out;
  const uint64_t end = cdOff + cdSize;
  uint64_t at = cdOff;
  for (uint64_t i = 0; i < count; ++i) {
    if (end - at < 46 || le32(d + at) != 0x02014b50)
      return {};
    const uint32_t comp = le32(d + at + 20), full = le32(d + at + 24);
    const uint16_t nameLen = le16(d + at + 28), extraLen = le16(d + at + 30),
                   commentLen = le16(d + at + 32);
    const uint64_t need = 46ull + nameLen + extraLen + commentLen;
    if (end - at < need)
      return {};
    uint64_t offset = le32(d + at + 42);
    if (offset == 0xFFFFFFFF) {  // in the ZIP64 extra field, after any 64-bit sizes
      const uint8_t *x = d + at + 46 + nameLen;
      uint64_t left = extraLen;
      bool found = false;
      while (left >= 4 && !found) {
        uint16_t id = le16(x), size = le16(x + 2);
        if (size > left - 4)
          break;
        if (id == 0x0001) {
          uint64_t skip = (full == 0xFFFFFFFF ? 8 : 0) + (comp == 0xFFFFFFFF ? 8 : 0);
          if (size < skip + 8)
            break;
          offset = le64(x + 4 + skip);
          found = true;
        }
        x += 4 + size;
        left -= 4 + size;
      }
      if (!found)
        return {};
    }
    out.emplace(std::string(reinterpret_cast<const char *>(d + at + 46), nameLen), offset);
    at += need;
  }
  return out;
}

std::string tooShort(uint64_t size) {
  return "not a zip archive (" + std::to_string(size) + " bytes is too short)";
}
}  // namespace

ZipArchive::ZipArchive(struct zip *z, uint64_t archiveSize) : zip_(z), archiveSize_(archiveSize) {
  zip_int64_t count = zip_get_num_entries(zip_, 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    const char *name = zip_get_name(zip_, static_cast<zip_uint64_t>(i), 0);
    if (!name)
      continue;
    std::string entry(name);
    if (entry.empty() || entry.back() == '/')
      continue;
    if (index_.emplace(entry, static_cast<uint64_t>(i)).second)
      names_.push_back(entry);
  }
}

ZipArchive::~ZipArchive() {
  if (zip_)
    zip_discard(zip_);
}

std::unique_ptr<ZipArchive> ZipArchive::openMemory(const void *data, size_t size) {
  if (size < kMinZipSize)
    fail(tooShort(size));
  zip_error_t error;
  zip_error_init(&error);
  // libzip wants a non-null pointer even for an empty buffer.
  static const char kEmpty[1] = {0};
  zip_source_t *src = zip_source_buffer_create(size ? data : kEmpty, size, 0, &error);
  if (!src) {
    std::string msg = libzipMessage(&error);
    zip_error_fini(&error);
    fail("cannot open zip archive: " + msg);
  }
  zip_t *z = zip_open_from_source(src, ZIP_RDONLY, &error);
  if (!z) {
    int code = zip_error_code_zip(&error);
    zip_error_fini(&error);
    zip_source_free(src);
    fail(openErrorMessage(code));
  }
  zip_error_fini(&error);
  std::unique_ptr<ZipArchive> archive(new ZipArchive(z, size));
  archive->bytes_ = static_cast<const uint8_t *>(data);  // the caller keeps it alive
  return archive;
}

std::unique_ptr<ZipArchive> ZipArchive::openFile(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    fail("cannot open file: no such file or not readable");
  if (!S_ISREG(st.st_mode))
    fail("cannot open file: not a regular file");
  if (static_cast<uint64_t>(st.st_size) < kMinZipSize)
    fail(tooShort(static_cast<uint64_t>(st.st_size)));
  int code = 0;
  zip_t *z = zip_open(path.c_str(), ZIP_RDONLY, &code);
  if (!z) {
    if (code == ZIP_ER_OPEN || code == ZIP_ER_READ)
      fail("cannot open file: not readable");
    fail(openErrorMessage(code));
  }
  std::unique_ptr<ZipArchive> archive(new ZipArchive(z, static_cast<uint64_t>(st.st_size)));
  // Payloads are read in place from a mapping when they can be; a file that
  // cannot be mapped is still read through libzip.
  std::string ignored;
  archive->map_ = io::MappedFile::open(path, &ignored);
  if (archive->map_ && archive->map_->size() != archive->archiveSize_)
    archive->map_.reset();  // changed under us: do not mix two versions
  if (archive->map_)
    archive->bytes_ = archive->map_->data();
  return archive;
}

uint64_t ZipArchive::indexOf(const std::string &name) const {
  auto it = index_.find(name);
  if (it == index_.end())
    fail(name + ": no such entry in the archive");
  return it->second;
}

uint64_t ZipArchive::size(const std::string &name) const {
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(zip_, indexOf(name), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
    fail(name + ": cannot read its central directory entry");
  return st.size;
}

std::vector<uint8_t> ZipArchive::read(const std::string &name) const {
  // A STORED entry of a mapped file is copied straight out of the mapping
  // (one CRC pass, ours); everything else goes through libzip.
  if (std::optional<ByteView> v = inPlace(name)) {
    std::vector<uint8_t> out(v->begin(), v->end());
    io::releasePages(v->data(), v->size());
    return out;
  }
  uint64_t idx = indexOf(name);
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(zip_, idx, 0, &st) != 0)
    fail(name + ": cannot read its central directory entry");
  if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
    fail(name + ": entry is encrypted; unsupported");
  if (!(st.valid & ZIP_STAT_COMP_METHOD) || !(st.valid & ZIP_STAT_SIZE) ||
      !(st.valid & ZIP_STAT_COMP_SIZE))
    fail(name + ": central directory entry lacks sizes or method");
  if (st.comp_size > archiveSize_)
    fail(name + ": compressed size " + std::to_string(st.comp_size) +
         " exceeds the archive size " + std::to_string(archiveSize_) + " (truncated?)");
  if (st.comp_method == ZIP_CM_STORE) {
    if (st.size != st.comp_size)
      fail(name + ": stored entry has size " + std::to_string(st.size) +
           " but compressed size " + std::to_string(st.comp_size));
  } else if (st.comp_method == ZIP_CM_DEFLATE) {
    if (st.size / kMaxDeflateRatio > st.comp_size + 1024)
      fail(name + ": deflated entry claims an impossible size " + std::to_string(st.size));
  } else {
    fail(name + ": compression method " + std::to_string(st.comp_method) +
         " is unsupported (only stored and deflate)");
  }
  if (st.size > SIZE_MAX / 2)
    fail(name + ": entry too large");

  zip_file_t *file = zip_fopen_index(zip_, idx, 0);
  if (!file)
    fail(name + ": cannot open entry (corrupt local header or data offset?): " +
         libzipMessage(zip_get_error(zip_)));
  // libzip checks the CRC only when it reads data: an entry whose central
  // directory says 0 bytes reads as empty unchecked, so the CRC is compared
  // here as well (a zeroed size must not turn a weight into zeros).
  const std::string crcMismatch = ": CRC-32 mismatch: the data does not match the checksum in the "
                                  "central directory (corrupt or edited archive)";
  std::vector<uint8_t> out(static_cast<size_t>(st.size));
  size_t done = 0;
  while (done < out.size()) {
    zip_int64_t n = zip_fread(file, out.data() + done, out.size() - done);
    if (n < 0) {
      zip_error_t *error = zip_file_get_error(file);
      bool crc = zip_error_code_zip(error) == ZIP_ER_CRC;
      std::string msg = libzipMessage(error);
      zip_fclose(file);
      fail(name + (crc ? crcMismatch : ": cannot read entry data: " + msg));
    }
    if (n == 0)
      break;
    done += static_cast<size_t>(n);
  }
  // Drain to the end so libzip checks the CRC, and catch entries longer than stated.
  uint8_t extra;
  zip_int64_t more = done == out.size() ? zip_fread(file, &extra, 1) : 0;
  std::string trailingError = more < 0 ? libzipMessage(zip_file_get_error(file)) : "";
  bool trailingCrc = more < 0 && zip_error_code_zip(zip_file_get_error(file)) == ZIP_ER_CRC;
  zip_fclose(file);
  if (trailingCrc)
    fail(name + crcMismatch);
  if (done != out.size())
    fail(name + ": entry data is truncated (" + std::to_string(done) + " of " +
         std::to_string(out.size()) + " bytes)");
  if (more < 0)
    fail(name + ": cannot read entry data: " + trailingError);
  if (more > 0)
    fail(name + ": entry holds more data than its central directory size");
  if (st.valid & ZIP_STAT_CRC) {
    uint32_t actual = crcOf(out.data(), out.size());
    if (actual != st.crc)
      fail(name + ": CRC-32 mismatch: the central directory records " + hex32(st.crc) +
           " for " + std::to_string(st.size) + " bytes, the data has " + hex32(actual) +
           " (corrupt or edited archive)");
  }
  return out;
}

std::vector<uint8_t> ZipArchive::readFor(const std::string &name, const std::string &what) const {
  try {
    return read(name);
  } catch (const Pt2Error &e) {
    std::string msg = e.what();
    if (msg.rfind(name + ": ", 0) == 0)
      msg.erase(0, name.size() + 2);
    fail(what + ": " + msg);
  }
}

std::optional<ByteView> ZipArchive::inPlace(const std::string &name) const {
  if (!bytes_)
    return std::nullopt;
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(zip_, indexOf(name), 0, &st) != 0)
    return std::nullopt;
  const unsigned need = ZIP_STAT_COMP_METHOD | ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_CRC;
  if ((st.valid & need) != need || st.comp_method != ZIP_CM_STORE || st.size != st.comp_size ||
      st.size == 0 || ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE))
    return std::nullopt;
  if (!localHeadersRead_) {
    localHeaders_ = localHeaderOffsets(bytes_, archiveSize_);
    localHeadersRead_ = true;
  }
  auto it = localHeaders_.find(name);
  const uint64_t n = archiveSize_;
  if (it == localHeaders_.end() || it->second > n || n - it->second < 30)
    return std::nullopt;
  const uint8_t *lh = bytes_ + it->second;
  if (le32(lh) != 0x04034b50)
    return std::nullopt;
  const uint64_t start = it->second + 30 + le16(lh + 26) + le16(lh + 28);
  if (start > n || st.size > n - start || st.size > SIZE_MAX / 2)
    return std::nullopt;
  // The CRC is computed on bytes read with pread() from a mapped file (one
  // copy out of the page cache into a small buffer): touching the mapping
  // would fault every page in and make the whole payload resident.
  const uint8_t *data = bytes_ + start;
  const size_t size = static_cast<size_t>(st.size);
  uint32_t crc = 0;
  if (map_) {
    std::vector<uint8_t> buffer(std::min<size_t>(size, size_t(1) << 20));
    for (size_t at = 0; at < size;) {
      ssize_t got = ::pread(map_->fd(), buffer.data(), std::min(buffer.size(), size - at),
                            static_cast<off_t>(start + at));
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        return std::nullopt;  // read() reports it
      crc = libdeflate_crc32(crc, buffer.data(), static_cast<size_t>(got));
      at += static_cast<size_t>(got);
    }
  } else {
    crc = libdeflate_crc32(0, data, size);
  }
  if (crc != st.crc)
    return std::nullopt;  // read() reports it (or finds this walk was wrong)
  return ByteView(data, size);
}

std::shared_ptr<const ByteStorage> ZipArchive::readPayload(const std::string &name,
                                                           const std::string &what) const {
  if (map_) {
    // The storage keeps the mapping alive, however long the archive lives.
    if (std::optional<ByteView> v = inPlace(name))
      return std::make_shared<const ByteStorage>(v->data(), v->size(), map_);
  }
  return std::make_shared<const ByteStorage>(readFor(name, what));
}

std::string ZipArchive::readTrimmedText(const std::string &name) const {
  std::vector<uint8_t> bytes = read(name);
  std::string text(bytes.begin(), bytes.end());
  const char *ws = " \t\r\n";
  size_t b = text.find_first_not_of(ws);
  if (b == std::string::npos)
    return "";
  size_t e = text.find_last_not_of(ws);
  return text.substr(b, e - b + 1);
}

}  // namespace ptec::pt2
