// The writers' side of streaming weights (weights never held whole in memory): chunks that lie in a
// mapped input file are copied file to file, and constants are deduplicated
// by content without reading large ones whole. Every byte written is checked.
#include "serde/io/MappedFile.h"
#include "serde/pte/ContentIndex.h"
#include "serde/pte/FileChunks.h"
#include "serde/pte/PteWriter.h"
#include "test/unit/emitter/TestPrograms.h"

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

/// Whether `path` holds exactly `want`; says where it first differs (Catch
/// would print MiB of vector otherwise).
bool fileIs(const std::string &path, const std::vector<uint8_t> &want) {
  std::vector<uint8_t> got = readAll(path);
  size_t at = 0;
  while (at < got.size() && at < want.size() && got[at] == want[at])
    ++at;
  if (at == got.size() && at == want.size())
    return true;
  UNSCOPED_INFO(path << ": " << got.size() << " bytes, expected " << want.size()
                     << "; first difference at byte " << at);
  return false;
}

/// `bytes` written to the file `path`, mapped; the test stops when the
/// mapping fails.
std::shared_ptr<const io::MappedFile> mappedCopy(const std::string &path,
                                                 const std::vector<uint8_t> &bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char *>(bytes.data()),
                                              std::streamsize(bytes.size()));
  std::string err;
  auto m = io::MappedFile::open(path, &err);
  INFO(err);
  REQUIRE(m);
  return m;
}
}  // namespace

TEST_CASE("chunks from a mapped file are copied file to file, byte for byte", "[writer][stream]") {
  const std::vector<uint8_t> source = pattern((5 << 20) + 333, 1);
  const std::string in = tempPath(), out = tempPath();
  auto m = mappedCopy(in, source);
  std::string err;
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
  CHECK(fileIs(out, want));
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

TEST_CASE("streamed .pte and .ptd files equal the in-memory serialization", "[writer][stream]") {
  // Constants owned, lent from a mapped file (copy_file_range) and lent from
  // the heap, with duplicates; mutable data; a delegate blob; external entries
  // from both kinds of memory. aot-compile only streams, so this is what keeps
  // the two writers honest.
  const std::vector<uint8_t> source = pattern((2 << 20) + 77, 9);
  const std::string in = tempPath(), pteOut = tempPath(), ptdOut = tempPath();
  auto m = mappedCopy(in, source);
  std::string err;
  const std::vector<uint8_t> heap = pattern(4099, 10);

  pte::ProgramBuilder b;
  b.program.execution_plan.push_back(pte::testing::addPlan("forward", 0));
  b.addConstant(pattern(100, 11));
  b.addConstantView(m->data() + 64, 1 << 20);
  b.addConstantView(heap.data(), heap.size());
  b.addConstantView(m->data() + (1 << 20) + 64, (1 << 20) + 13);
  std::vector<uint8_t> again(m->data() + 64, m->data() + 64 + (1 << 20));
  b.addConstant(std::move(again));  // equal to the first mapped one
  b.addMutableData(heap.data(), 300);
  b.addDelegateBlob(heap.data() + 7, 2000);
  b.external["a.weight"].lent = m->data() + 1000;
  b.external["a.weight"].lentSize = 500000;
  b.external["b.bias"].bytes = pattern(33, 12);
  b.external["c.tied"].lent = m->data() + 1000;  // same bytes as a.weight
  b.external["c.tied"].lentSize = 500000;

  std::vector<uint8_t> inMemory;
  REQUIRE(pte::trySerializeProgram(b, pte::WriteOptions{}, &inMemory, &err));
  REQUIRE(pte::writeProgramFile(b, pte::WriteOptions{}, pteOut, &err));
  CHECK(fileIs(pteOut, inMemory));
  CHECK(inMemory.size() > (2u << 20));  // the weights are in it, the duplicate once
  REQUIRE(pte::writePtdFile(b.external, ptdOut, &err));
  CHECK(fileIs(ptdOut, pte::serializePtd(b.external)));
  for (const std::string &p : {in, pteOut, ptdOut})
    std::remove(p.c_str());
}
