#include "test/unit/pt2/TestZip.h"

#include <zip.h>

#include <stdexcept>

namespace ptec::pt2::test {

uint32_t crc32(const std::string &data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char c : data) {
    crc ^= c;
    for (int k = 0; k < 8; ++k)
      crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

namespace {
void put16(std::string &out, uint32_t v) {
  out += static_cast<char>(v & 0xFF);
  out += static_cast<char>((v >> 8) & 0xFF);
}
void put32(std::string &out, uint32_t v) {
  put16(out, v & 0xFFFF);
  put16(out, v >> 16);
}
void put64(std::string &out, uint64_t v) {
  put32(out, static_cast<uint32_t>(v));
  put32(out, static_cast<uint32_t>(v >> 32));
}

std::string writeLibzip(const std::vector<ZipEntry> &entries, bool deflateAll) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t *src = zip_source_buffer_create(nullptr, 0, 0, &error);
  zip_t *z = src ? zip_open_from_source(src, ZIP_TRUNCATE, &error) : nullptr;
  if (!z)
    throw std::runtime_error("libzip: cannot create archive");
  zip_source_keep(src);
  for (const ZipEntry &e : entries) {
    zip_source_t *s = zip_source_buffer(z, e.data.data(), e.data.size(), 0);
    zip_int64_t idx = s ? zip_file_add(z, e.name.c_str(), s, ZIP_FL_ENC_UTF_8) : -1;
    if (idx < 0)
      throw std::runtime_error("libzip: cannot add " + e.name);
    zip_set_file_compression(z, static_cast<zip_uint64_t>(idx),
                             deflateAll || e.deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
  }
  if (zip_close(z) != 0)
    throw std::runtime_error("libzip: close failed");
  zip_stat_t st;
  zip_source_open(src);
  zip_source_stat(src, &st);
  std::string out(static_cast<size_t>(st.size), '\0');
  zip_source_read(src, out.data(), out.size());
  zip_source_close(src);
  zip_source_free(src);
  zip_error_fini(&error);
  return out;
}

std::string writeTorchStyle(const std::vector<ZipEntry> &entries, bool zip64Extra) {
  std::string out, central;
  for (const ZipEntry &e : entries) {
    const uint32_t crc = crc32(e.data);
    const uint64_t offset = out.size();
    const int method = e.methodOverride >= 0 ? e.methodOverride : 0;
    // Local header with zero sizes and CRC; the padding extra field puts the
    // data on a 64-byte boundary.
    size_t afterName = offset + 30 + e.name.size();
    size_t pad = (64 - (afterName + 4) % 64) % 64;
    put32(out, 0x04034b50);
    put16(out, 20);
    put16(out, 0x0808);
    put16(out, static_cast<uint32_t>(method));
    put16(out, 0);
    put16(out, 0x21);
    put32(out, 0);
    put32(out, 0);
    put32(out, 0);
    put16(out, static_cast<uint32_t>(e.name.size()));
    put16(out, static_cast<uint32_t>(4 + pad));
    out += e.name;
    out += "FB";
    put16(out, static_cast<uint32_t>(pad));
    out += std::string(pad, 'Z');
    out += e.data;
    put32(out, 0x08074b50);
    put32(out, crc);
    put32(out, static_cast<uint32_t>(e.data.size()));
    put32(out, static_cast<uint32_t>(e.data.size()));

    std::string extra;
    if (zip64Extra) {
      put16(extra, 0x0001);
      put16(extra, 24);
      put64(extra, e.data.size());
      put64(extra, e.data.size());
      put64(extra, offset);
    }
    const uint32_t big = 0xFFFFFFFFu;
    put32(central, 0x02014b50);
    put16(central, 0x031e);
    put16(central, zip64Extra ? 45 : 20);
    put16(central, 0x0808);
    put16(central, static_cast<uint32_t>(method));
    put16(central, 0);
    put16(central, 0x21);
    put32(central, crc);
    put32(central, zip64Extra ? big : static_cast<uint32_t>(e.data.size()));
    put32(central, zip64Extra ? big : static_cast<uint32_t>(e.data.size()));
    put16(central, static_cast<uint32_t>(e.name.size()));
    put16(central, static_cast<uint32_t>(extra.size()));
    put16(central, 0);
    put16(central, 0);
    put16(central, 0);
    put32(central, 0);
    put32(central, zip64Extra ? big : static_cast<uint32_t>(offset));
    central += e.name;
    central += extra;
  }
  const uint64_t cdOffset = out.size();
  out += central;
  const uint64_t eocd64Offset = out.size();
  put32(out, 0x06064b50);
  put64(out, 44);
  put16(out, 45);
  put16(out, 45);
  put32(out, 0);
  put32(out, 0);
  put64(out, entries.size());
  put64(out, entries.size());
  put64(out, central.size());
  put64(out, cdOffset);
  put32(out, 0x07064b50);
  put32(out, 0);
  put64(out, eocd64Offset);
  put32(out, 1);
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, zip64Extra ? 0xFFFF : static_cast<uint32_t>(entries.size()));
  put16(out, zip64Extra ? 0xFFFF : static_cast<uint32_t>(entries.size()));
  put32(out, zip64Extra ? 0xFFFFFFFFu : static_cast<uint32_t>(central.size()));
  put32(out, zip64Extra ? 0xFFFFFFFFu : static_cast<uint32_t>(cdOffset));
  put16(out, 0);
  return out;
}
}  // namespace

std::string writeZip(const std::vector<ZipEntry> &entries, ZipStyle style) {
  switch (style) {
  case ZipStyle::Libzip: return writeLibzip(entries, false);
  case ZipStyle::LibzipDeflate: return writeLibzip(entries, true);
  case ZipStyle::Torch: return writeTorchStyle(entries, false);
  case ZipStyle::TorchZip64Extra: return writeTorchStyle(entries, true);
  }
  return {};
}

}  // namespace ptec::pt2::test
