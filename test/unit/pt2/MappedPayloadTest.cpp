// Weights read in place from a mapped archive (never copied whole): a file-backed .pt2
// serves STORED payloads as windows of the mapping, CRC-checked without
// touching them. These cases check that reading from a file gives exactly
// what reading the same bytes from memory gives (values, or the error), for
// every zip layout the tests can write, valid and damaged.
#include "serde/io/MappedFile.h"
#include "serde/pt2/Pt2Reader.h"
#include "serde/pt2/ZipArchive.h"
#include "test/unit/pt2/TestArchives.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <unistd.h>

using namespace ptec::pt2;
using namespace ptec::pt2::test;

namespace {
struct TempFile {
  std::string path;
  explicit TempFile(const std::string &bytes) {
    char name[] = "/tmp/ptec_mapped_XXXXXX";
    int fd = ::mkstemp(name);
    REQUIRE(fd >= 0);
    ::close(fd);
    path = name;
    std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  }
  ~TempFile() { std::remove(path.c_str()); }
};

struct Outcome {
  std::optional<ExportedProgram> ep;
  std::string error;
};

Outcome fromFile(const std::string &bytes) {
  TempFile f(bytes);
  Outcome o;
  ReadError err;
  o.ep = readPt2(f.path, &err);
  o.error = err.message;
  // The file's own name leads file errors; memory errors name "m.pt2".
  if (!o.ep && o.error.rfind(f.path, 0) == 0)
    o.error = "m.pt2" + o.error.substr(f.path.size());
  return o;
}

Outcome fromMemory(const std::string &bytes) {
  Outcome o;
  ReadError err;
  o.ep = readPt2FromMemory(bytes.data(), bytes.size(), "m.pt2", &err);
  o.error = err.message;
  return o;
}

enum class Mapped { Yes, No, Either };

void checkSame(const std::string &zip, Mapped expect) {
  Outcome file = fromFile(zip), memory = fromMemory(zip);
  INFO("file: " << file.error << "\nmemory: " << memory.error);
  REQUIRE(file.ep.has_value() == memory.ep.has_value());
  if (!file.ep) {
    CHECK(file.error == memory.error);
    return;
  }
  REQUIRE(file.ep->weights.size() == memory.ep->weights.size());
  for (const auto &[fqn, w] : memory.ep->weights) {
    const WeightTensor &mine = file.ep->weights.at(fqn);
    CHECK(mine.bytes() == w.bytes());
    if (!w.bytes().empty()) {
      if (expect != Mapped::Either)
        CHECK(mine.storage->mapped() == (expect == Mapped::Yes));  // in place, not copied
      CHECK_FALSE(w.storage->mapped());
    }
  }
}

const char *kWeight = "m/data/weights/weight_0";
}  // namespace

TEST_CASE("a file-backed archive serves STORED payloads in place, equal to a memory read",
          "[pt2][mapped]") {
  for (ZipStyle style : {ZipStyle::Torch, ZipStyle::TorchZip64Extra, ZipStyle::Libzip}) {
    INFO("style " << int(style));
    checkSame(writeZip(basicEntries(), style), Mapped::Yes);
  }
  // DEFLATE entries cannot be mapped: read into memory, same values.
  checkSame(writeZip(basicEntries(), ZipStyle::LibzipDeflate), Mapped::No);
}

TEST_CASE("damaged payloads fail the same way from a file as from memory", "[pt2][mapped]") {
  const std::string original = floatBytes({0, 1, 2, 3, 4, 5});
  for (ZipStyle style : {ZipStyle::Torch, ZipStyle::TorchZip64Extra, ZipStyle::Libzip}) {
    INFO("style " << int(style));
    std::string zip = writeZip(basicEntries(), style);
    size_t at = zip.find(original);
    REQUIRE(at != std::string::npos);
    std::string flipped = zip;
    flipped[at + 5] = static_cast<char>(flipped[at + 5] ^ 0x10);
    checkSame(flipped, Mapped::Either);
    CHECK(fromFile(flipped).error.find("CRC") != std::string::npos);
    // A local header whose signature is gone: the in-place walk gives up and
    // libzip decides (it reads such an entry).
    size_t local = zip.rfind("PK\x03\x04", at);
    REQUIRE(local != std::string::npos);
    std::string noLocal = zip;
    noLocal[local + 2] = 'X';
    checkSame(noLocal, Mapped::Either);
    // Truncated inside the weight's data.
    checkSame(zip.substr(0, at + 8), Mapped::Either);
  }
}

TEST_CASE("every prefix and single-byte damage of a torch archive reads alike from a file",
          "[pt2][mapped]") {
  // A coarse sweep: every 7th byte flipped, so each header field gets hit.
  std::string zip = writeZip(basicEntries(), ZipStyle::TorchZip64Extra);
  for (size_t at = 0; at < zip.size(); at += 7) {
    std::string bad = zip;
    bad[at] = static_cast<char>(bad[at] ^ 0x41);
    INFO("byte " << at);
    checkSame(bad, Mapped::Either);
  }
}

TEST_CASE("MappedFile knows its pointers and gives pages back without changing bytes",
          "[pt2][mapped]") {
  std::string bytes(3 << 20, '\0');
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<char>(i * 131 + (i >> 12));
  TempFile f(bytes);
  std::string err;
  auto m = ptec::io::MappedFile::open(f.path, &err);
  REQUIRE(m);
  REQUIRE(m->size() == bytes.size());
  ptec::io::MappedSource src;
  REQUIRE(ptec::io::findMappedSource(m->data() + 12345, 1000, &src));
  CHECK(src.offset == 12345);
  CHECK(src.fd >= 0);
  CHECK_FALSE(ptec::io::findMappedSource(m->data() + m->size() - 10, 11, &src));  // runs past
  CHECK_FALSE(ptec::io::findMappedSource(bytes.data(), 10, &src));                // not mapped
  // Addresses above the mapping (large heap blocks often are) are not in it;
  // the lookup once wrapped around there and released heap pages.
  CHECK_FALSE(ptec::io::findMappedSource(m->data() + m->size() + 100, 10, &src));
  CHECK_FALSE(ptec::io::findMappedSource(m->data() + (size_t(1) << 40), 1, &src));
  CHECK(std::string(reinterpret_cast<const char *>(m->data()), m->size()) == bytes);
  uint64_t before = ptec::io::releasedBytes();
  ptec::io::releasePages(m->data() + 100, m->size() - 200);
  CHECK(ptec::io::releasedBytes() > before);
  ptec::io::releasePages(bytes.data(), bytes.size());  // not a mapping: no-op, no crash
  CHECK(std::string(reinterpret_cast<const char *>(m->data()), m->size()) == bytes);
  const uint8_t *base = m->data();
  m.reset();
  CHECK_FALSE(ptec::io::findMappedSource(base, 1, &src));  // unmapped: forgotten
}

TEST_CASE("a mapped weight outlives its archive", "[pt2][mapped]") {
  std::shared_ptr<const ByteStorage> kept;
  {
    TempFile f(writeZip(basicEntries(), ZipStyle::Torch));
    auto zip = ZipArchive::openFile(f.path);
    kept = zip->readPayload(kWeight, "weight");
    REQUIRE(kept->mapped());
  }  // archive closed, file removed: the mapping lives on in the storage
  CHECK(kept->view() == ByteView(reinterpret_cast<const uint8_t *>(floatBytes({0, 1, 2, 3, 4, 5}).data()), 24));
}
