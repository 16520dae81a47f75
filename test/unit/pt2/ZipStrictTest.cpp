// Zip archives that two readers would read differently are refused: a name
// used twice (Python's zipfile takes the last entry, libzip the first),
// entries that share bytes, a CRC that fails on an entry the reader never
// uses. A damaged central directory is named field by field, and a file
// error never reports an errno left over from another call.
#include "serde/pt2/Pt2Reader.h"
#include "test/unit/pt2/TestArchives.h"
#include "test/unit/pt2/ZipPatch.h"

#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>

using namespace ptec::pt2;
using namespace ptec::pt2::test;

namespace {
std::string errorOf(const std::string &bytes) {
  ReadError err;
  std::optional<ExportedProgram> ep = readPt2FromMemory(bytes.data(), bytes.size(), "m.pt2", &err);
  return ep ? "" : err.message;
}

bool has(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// Flips a bit of `entry`'s central directory CRC in a readable archive and
/// checks the reader refuses it, naming the entry.
void checkCrcMismatchNamed(std::string zip, const std::string &entry) {
  REQUIRE(errorOf(zip).empty());
  size_t h = centralHeader(zip, entry);
  set32(zip, h + 16, get32(zip, h + 16) ^ 1u);
  std::string msg = errorOf(zip);
  INFO(msg);
  CHECK(has(msg, entry));
  CHECK(has(msg, "CRC-32 mismatch"));
}
}  // namespace

TEST_CASE("a name used twice is refused, naming it", "[pt2][zip]") {
  for (const char *name : {"m/models/model.json", "m/data/weights/weight_0"}) {
    std::vector<ZipEntry> entries = basicEntries();
    // The second copy differs: which one a reader takes changes the model.
    for (const ZipEntry &e : basicEntries())
      if (e.name == name)
        entries.push_back({e.name, e.data + " "});
    std::string msg = errorOf(writeZip(entries, ZipStyle::Torch));
    INFO(msg);
    CHECK(has(msg, std::string("entry '") + name + "' appears twice in the central directory"));
  }
}

TEST_CASE("entries whose bytes overlap are refused, naming both", "[pt2][zip]") {
  // fc.weight's central sizes grow by 64 bytes: its data would run over the
  // next entry's local header and data.
  std::string zip = writeZip(basicEntries(), ZipStyle::Torch);
  const std::string weight = "m/data/weights/weight_0";
  size_t h = centralHeader(zip, weight);
  set32(zip, h + 20, get32(zip, h + 20) + 64);
  set32(zip, h + 24, get32(zip, h + 24) + 64);
  std::string msg = errorOf(zip);
  INFO(msg);
  CHECK(has(msg, "entries '" + weight + "'"));
  CHECK(has(msg, "overlap"));
}

TEST_CASE("a CRC mismatch in an entry the reader never uses is refused", "[pt2][zip]") {
  for (ZipStyle style : {ZipStyle::Torch, ZipStyle::Libzip}) {
    std::vector<ZipEntry> entries = basicEntries();
    entries.push_back({"m/extra/notes.txt", "not read by the reader"});
    checkCrcMismatchNamed(writeZip(entries, style), "m/extra/notes.txt");
  }
  // The same for a DEFLATE entry (inflated to be checked).
  std::vector<ZipEntry> entries = basicEntries();
  entries.push_back({"m/extra/notes.txt", std::string(300, 'n'), /*deflate=*/true});
  checkCrcMismatchNamed(writeZip(entries, ZipStyle::Libzip), "m/extra/notes.txt");
}

TEST_CASE("a damaged central directory is named field by field", "[pt2][zip]") {
  const std::string good = writeZip(basicEntries(), ZipStyle::Libzip);
  const size_t eocd = good.size() - 22;
  REQUIRE(get32(good, eocd) == 0x06054b50);
  SECTION("entry count") {
    std::string bad = good;
    bad[eocd + 10] = static_cast<char>(bad[eocd + 10] + 1);
    bad[eocd + 8] = bad[eocd + 10];
    std::string msg = errorOf(bad);
    INFO(msg);
    CHECK(has(msg, "the end record says " + std::to_string(uint8_t(bad[eocd + 10])) +
                       " entries"));
  }
  SECTION("central directory offset") {
    std::string bad = good;
    set32(bad, eocd + 16, get32(bad, eocd + 16) - 1);
    std::string msg = errorOf(bad);
    INFO(msg);
    CHECK(has(msg, "central directory entry 0"));
    CHECK(has(msg, "signature"));
  }
  SECTION("a name that is not the UTF-8 its flags promise") {
    std::string bad = writeZip(basicEntries(), ZipStyle::Torch);
    size_t h = centralHeader(bad, "m/archive_format");
    bad[h + 46 + 2] = '\xC3';
    std::string msg = errorOf(bad);
    INFO(msg);
    CHECK(has(msg, "the name is not UTF-8"));
  }
  SECTION("WinZip AES without its extra field") {
    std::string bad = writeZip(basicEntries(), ZipStyle::Torch);
    bad[centralHeader(bad, "m/archive_format") + 10] = 99;
    std::string msg = errorOf(bad);
    INFO(msg);
    CHECK(has(msg, "m/archive_format: compression method 99 (WinZip AES encryption) is "
                   "unsupported"));
  }
  SECTION("a ZIP64 end record on another disk") {
    std::string bad = writeZip(basicEntries(), ZipStyle::Torch);
    set32(bad, bad.size() - 22 - 20 + 16, 2);  // the locator's disk count
    std::string msg = errorOf(bad);
    INFO(msg);
    CHECK(has(msg, "ZIP64 end of central directory locator (at offset " +
                       std::to_string(bad.size() - 42) + "): ZIP64 end record on disk 0 of 2"));
  }
  // Every single-byte change of the directory and end records either reads
  // or names what is wrong: never libzip's bare "inconsistent", never an
  // errno of some other call.
  const std::string torch = writeZip(basicEntries(), ZipStyle::Torch);
  size_t cd = torch.find(std::string("PK\x01\x02", 4));
  REQUIRE(cd != std::string::npos);
  size_t refused = 0;
  for (size_t at = cd; at < torch.size(); ++at) {
    for (int flip : {0x01, 0x63, 0x80, 0xFF}) {
      std::string bad = torch;
      bad[at] = static_cast<char>(bad[at] ^ flip);
      std::string msg = errorOf(bad);
      INFO("byte " << at << " ^ " << flip << ": " << msg);
      CHECK_FALSE(has(msg, "inconsistent"));
      CHECK_FALSE(has(msg, "No such file"));
      refused += !msg.empty();
    }
  }
  CHECK(refused > 0);
}

TEST_CASE("file errors report their own reason", "[pt2][zip]") {
  // A file that exists and whose directory lies past its end: the message
  // names the field, whatever errno an earlier call left behind.
  std::string zip = writeZip(basicEntries(), ZipStyle::Libzip);
  set32(zip, zip.size() - 22 + 16, static_cast<uint32_t>(zip.size() + 100));
  char path[] = "/tmp/ptec_zipstrict_XXXXXX";
  int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  ::close(fd);
  std::ofstream(path, std::ios::binary).write(zip.data(), std::streamsize(zip.size()));
  errno = ENOENT;
  ReadError err;
  CHECK_FALSE(readPt2(path, &err).has_value());
  INFO(err.message);
  CHECK_FALSE(has(err.message, "No such file"));
  CHECK(has(err.message, "central directory offset " + std::to_string(zip.size() + 100)));
  std::remove(path);
  // A missing file says so, with the system's reason.
  CHECK_FALSE(readPt2(path, &err).has_value());
  CHECK(has(err.message, "cannot open file: No such file or directory"));
}
