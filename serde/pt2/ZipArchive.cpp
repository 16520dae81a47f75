#include "serde/pt2/ZipArchive.h"

#include "serde/io/MappedFile.h"
#include "serde/pt2/Pt2Error.h"
#include "serde/pt2/ZipDirectory.h"

#include <libdeflate.h>
#include <zip.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace ptec::pt2 {

namespace {
std::string libzipMessage(zip_error_t *error) {
  const char *text = zip_error_strerror(error);
  return text ? text : "unknown libzip error";
}

// libzip's own reason when it refuses an archive our directory walk
// accepted. The message comes from the error libzip filled in: re-making it
// from the code alone would read errno, which an unrelated call set.
std::string openErrorMessage(zip_error_t *error) {
  const int code = zip_error_code_zip(error);
  std::string text = libzipMessage(error);
  switch (code) {
  case ZIP_ER_NOZIP:
    return "not a zip archive (no valid end of central directory record or central "
           "directory; truncated or corrupt?)";
  case ZIP_ER_INCONS:
    return "corrupt zip archive: libzip finds it inconsistent (" + text +
           ") in a way the reader's own central directory checks did not name";
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


std::string tooShort(uint64_t size) {
  return "not a zip archive (" + std::to_string(size) + " bytes is too short)";
}
}  // namespace

ZipArchive::ZipArchive(struct zip *z, uint64_t archiveSize, std::vector<ZipDirEntry> entries)
    : zip_(z), archiveSize_(archiveSize), entries_(std::move(entries)),
      verified_(entries_.size(), false) {
  for (size_t i = 0; i < entries_.size(); ++i) {
    const std::string &entry = entries_[i].name;
    if (entry.empty() || entries_[i].isDirectory())
      continue;
    index_.emplace(entry, static_cast<uint64_t>(i));
    names_.push_back(entry);
  }
}

ZipArchive::~ZipArchive() {
  if (zip_)
    zip_discard(zip_);
}

std::unique_ptr<ZipArchive> ZipArchive::open(const uint8_t *data, uint64_t size) {
  if (size < kMinZipSize)
    fail(tooShort(size));
  // Our walk first: it names the field at fault, and refuses duplicate names
  // and overlapping entries, which libzip accepts.
  std::vector<ZipDirEntry> entries = readZipDirectory(data, size);
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t *src = zip_source_buffer_create(data, size, 0, &error);
  if (!src) {
    std::string msg = libzipMessage(&error);
    zip_error_fini(&error);
    fail("cannot open zip archive: " + msg);
  }
  zip_t *z = zip_open_from_source(src, ZIP_RDONLY, &error);
  if (!z) {
    std::string msg = openErrorMessage(&error);
    zip_error_fini(&error);
    zip_source_free(src);
    fail(msg);
  }
  zip_error_fini(&error);
  const zip_int64_t count = zip_get_num_entries(z, 0);
  if (count < 0 || static_cast<uint64_t>(count) != entries.size()) {
    zip_discard(z);
    fail("corrupt zip archive: the central directory holds " + std::to_string(entries.size()) +
         " entries, libzip reads " + std::to_string(count));
  }
  std::unique_ptr<ZipArchive> archive(new ZipArchive(z, size, std::move(entries)));
  archive->bytes_ = data;
  return archive;
}

std::unique_ptr<ZipArchive> ZipArchive::openMemory(const void *data, size_t size) {
  // libzip wants a non-null pointer even for an empty buffer.
  static const uint8_t kEmpty[1] = {0};
  return open(size ? static_cast<const uint8_t *>(data) : kEmpty, size);
}

std::unique_ptr<ZipArchive> ZipArchive::openFile(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    fail(std::string("cannot open file: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    fail("cannot open file: not a regular file");
  if (static_cast<uint64_t>(st.st_size) < kMinZipSize)
    fail(tooShort(static_cast<uint64_t>(st.st_size)));
  // The whole file is mapped and libzip reads the mapping: one view of the
  // bytes for our checks and for libzip, and no file I/O inside libzip whose
  // errors would come back as a code without the reason.
  std::string why;
  std::shared_ptr<const io::MappedFile> map = io::MappedFile::open(path, &why);
  if (!map)
    fail(why);
  std::unique_ptr<ZipArchive> archive = open(map->data(), map->size());
  archive->map_ = std::move(map);
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
  verified_[idx] = true;
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

uint32_t ZipArchive::storedCrc(const ZipDirEntry &e, bool *ok) const {
  // From a mapped file the bytes are read with pread() (one copy out of the
  // page cache into a small buffer): touching the mapping would fault every
  // page in and make the whole payload resident.
  *ok = true;
  const size_t size = static_cast<size_t>(e.size);
  if (!map_)
    return libdeflate_crc32(0, bytes_ + e.dataStart, size);
  uint32_t crc = 0;
  std::vector<uint8_t> buffer(std::min<size_t>(size, size_t(1) << 20));
  for (size_t at = 0; at < size;) {
    ssize_t got = ::pread(map_->fd(), buffer.data(), std::min(buffer.size(), size - at),
                          static_cast<off_t>(e.dataStart + at));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      *ok = false;
      return 0;
    }
    crc = libdeflate_crc32(crc, buffer.data(), static_cast<size_t>(got));
    at += static_cast<size_t>(got);
  }
  return crc;
}

std::optional<ByteView> ZipArchive::inPlace(const std::string &name) const {
  const uint64_t idx = indexOf(name);
  const ZipDirEntry &e = entries_[idx];
  // readZipDirectory has bounded the data to the archive.
  if (e.method != ZIP_CM_STORE || e.size != e.compressedSize || e.size == 0 ||
      e.size > SIZE_MAX / 2)
    return std::nullopt;
  if (!verified_[idx]) {
    bool ok = false;
    if (storedCrc(e, &ok) != e.crc || !ok)
      return std::nullopt;  // read() reports it
    verified_[idx] = true;
  }
  return ByteView(bytes_ + e.dataStart, static_cast<size_t>(e.size));
}

void ZipArchive::checkUnreadEntries() const {
  // The spec makes CRCs optional; we check every entry, read or not, so that
  // a damaged archive is refused whatever part of it the reader needs.
  for (size_t idx = 0; idx < entries_.size(); ++idx) {
    const ZipDirEntry &e = entries_[idx];
    if (verified_[idx] || e.isDirectory())
      continue;
    const std::string what = e.name + " (an entry the reader does not use)";
    if (e.method == ZIP_CM_STORE && e.size == e.compressedSize) {
      bool ok = false;
      uint32_t crc = storedCrc(e, &ok);
      if (!ok)
        fail(what + ": cannot read its data");
      if (crc != e.crc)
        fail(what + ": CRC-32 mismatch: the central directory records " + hex32(e.crc) +
             " for " + std::to_string(e.size) + " bytes, the data has " + hex32(crc) +
             " (corrupt or edited archive)");
      verified_[idx] = true;
      continue;
    }
    if (e.name.empty() || !has(e.name))
      fail(what + ": entry has no name the reader can look up");
    // DEFLATE (and anything read() refuses) goes through read(): it inflates,
    // checks the CRC and names what is wrong.
    readFor(e.name, what);
  }
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
