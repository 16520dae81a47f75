// The writers' side of streaming weights (issue 15): chunks that lie in a
// mapped input file are copied file to file, and constants are deduplicated
// by content without reading large ones whole. Every byte written is checked.
#include "serde/io/MappedFile.h"
#include "serde/pte/ContentIndex.h"
#include "serde/pte/FileChunks.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ptec;

namespace {
std::vector<uint8_t> pattern(size_t n, unsigned seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<uint8_t>((i * 2654435761u + seed) >> 7);
  return v;
}

std::string tempPath() {
  char name[] = "/tmp/ptec_stream_XXXXXX";
  int fd = ::mkstemp(name);
  REQUIRE(fd >= 0);
  ::close(fd);
  return name;
}

std::vector<uint8_t> readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

TEST_CASE("chunks from a mapped file are copied file to file, byte for byte", "[writer][stream]") {
  const std::vector<uint8_t> source = pattern((5 << 20) + 333, 1);
  const std::string in = tempPath(), out = tempPath();
  std::ofstream(in, std::ios::binary).write(reinterpret_cast<const char *>(source.data()),
                                            std::streamsize(source.size()));
  std::string err;
  auto m = io::MappedFile::open(in, &err);
  REQUIRE(m);
  const std::vector<uint8_t> heap = pattern(1000, 2);
  // Mapped at odd offsets, heap bytes, zeros, the mapping's tail.
  std::vector<pte::FileChunk> chunks = {{m->data() + 17, 3 << 20},
                                        {heap.data(), heap.size()},
                                        {nullptr, 5000},
                                        {m->data() + (3 << 20) + 17, source.size() - (3 << 20) - 17},
                                        {m->data(), 1}};
  REQUIRE(pte::writeChunksAtomic(out, chunks, &err));
  std::vector<uint8_t> want(source.begin() + 17, source.begin() + 17 + (3 << 20));
  want.insert(want.end(), heap.begin(), heap.end());
  want.insert(want.end(), 5000, 0);
  want.insert(want.end(), source.begin() + (3 << 20) + 17, source.end());
  want.push_back(source[0]);
  CHECK(readAll(out) == want);
  std::remove(in.c_str());
  std::remove(out.c_str());
}

TEST_CASE("ContentIndex finds equal bytes and only equal bytes", "[writer][dedup]") {
  pte::ContentIndex index;
  const std::vector<uint8_t> a = pattern(1 << 20, 3);
  std::vector<uint8_t> aCopy = a;
  // Same size, equal at every sampled word (start of each 1/63 and the end),
  // different in between: the sampled key collides, the bytes do not.
  std::vector<uint8_t> nearA = a;
  nearA[(1 << 19) + 4097] ^= 1;
  std::vector<uint8_t> small = pattern(100, 4), smallCopy = small;
  std::vector<uint8_t> empty1, empty2;

  CHECK(index.intern(a.data(), a.size(), 10) == 10);
  CHECK(index.intern(a.data(), a.size(), 11) == 10);           // the same pointer again
  CHECK(index.intern(aCopy.data(), aCopy.size(), 12) == 10);   // equal bytes elsewhere
  CHECK(index.intern(nearA.data(), nearA.size(), 13) == 13);   // one byte differs
  CHECK(index.intern(a.data(), a.size() - 1, 14) == 14);       // a prefix is not equal
  CHECK(index.intern(small.data(), small.size(), 15) == 15);
  CHECK(index.intern(smallCopy.data(), smallCopy.size(), 16) == 15);
  CHECK(index.intern(empty1.data(), 0, 17) == 17);
  CHECK(index.intern(empty2.data(), 0, 18) == 17);
  std::vector<uint8_t> nearCopy = nearA;
  CHECK(index.intern(nearCopy.data(), nearCopy.size(), 19) == 13);
}

TEST_CASE("contentHash sees every byte", "[writer][dedup]") {
  std::vector<uint8_t> v = pattern(70001, 5);
  const uint64_t h = pte::contentHash(v.data(), v.size());
  for (size_t at : {size_t(0), size_t(31), size_t(32), size_t(4096), size_t(69999), size_t(70000)}) {
    v[at] ^= 0x80;
    CHECK(pte::contentHash(v.data(), v.size()) != h);
    v[at] ^= 0x80;
  }
  CHECK(pte::contentHash(v.data(), v.size()) == h);
  CHECK(pte::contentHash(v.data(), v.size() - 1) != h);
}
