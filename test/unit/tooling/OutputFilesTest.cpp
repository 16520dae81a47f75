// The one writer of every file a tool writes (serde/pte/FileChunks.h, where
// the bytes go decided by serde/pte/OutputTarget.h), and the checks on input
// files (serde/io/InputFile.h). Everything happens in a fresh temporary
// folder: links, FIFOs and devices are made there, never under /dev.
#include "serde/io/InputFile.h"
#include "serde/pte/FileChunks.h"
#include "serde/pte/OutputTarget.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <thread>
#include <unistd.h>

using namespace ptec;
using Catch::Matchers::Contains;
using Kind = pte::OutputTarget::Kind;

namespace {

/// A temporary folder, removed with everything in it.
struct TempDir {
  std::string path;
  TempDir() {
    char pattern[] = "/tmp/ptec-outputs-XXXXXX";
    REQUIRE(::mkdtemp(pattern) != nullptr);
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string operator/(const std::string &name) const { return path + "/" + name; }
};

void writeText(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool write(const std::string &path, const std::string &text, std::string *err) {
  return pte::writeFileAtomic(path, std::vector<uint8_t>(text.begin(), text.end()), err);
}

std::vector<std::string> namesIn(const std::string &dir) {
  std::vector<std::string> names;
  for (const auto &entry : std::filesystem::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

} // namespace

TEST_CASE("resolveOutput: what each kind of name is written as", "[tooling][outputs]") {
  TempDir d;
  pte::OutputTarget t;
  std::string err;

  REQUIRE(pte::resolveOutput(d / "new.pte", &t, &err));
  CHECK(t.kind == Kind::Replace);
  CHECK(t.file == d / "new.pte");
  CHECK(!t.exists);
  CHECK(t.newName == "new.pte");

  writeText(d / "real.pte", "old");
  REQUIRE(::symlink((d / "real.pte").c_str(), (d / "link.pte").c_str()) == 0);
  REQUIRE(::symlink("link.pte", (d / "link2.pte").c_str()) == 0); // relative, two hops
  REQUIRE(pte::resolveOutput(d / "link2.pte", &t, &err));
  CHECK(t.kind == Kind::Replace);
  CHECK(t.file == d / "real.pte"); // the rename replaces the target, not the link
  CHECK(t.exists);

  REQUIRE(::symlink("missing.pte", (d / "dangling.pte").c_str()) == 0);
  REQUIRE(pte::resolveOutput(d / "dangling.pte", &t, &err));
  CHECK(t.kind == Kind::Replace);
  CHECK(t.file == d / "missing.pte");

  REQUIRE(::mkfifo((d / "fifo").c_str(), 0600) == 0);
  REQUIRE(::symlink((d / "fifo").c_str(), (d / "to-fifo").c_str()) == 0);
  REQUIRE(pte::resolveOutput(d / "to-fifo", &t, &err));
  CHECK(t.kind == Kind::InPlace);
  CHECK(t.file == d / "fifo");

  REQUIRE(pte::resolveOutput("-", &t, &err));
  CHECK(t.kind == Kind::Descriptor);
  CHECK(t.fd == 1);
  REQUIRE(pte::resolveOutput("/dev/stdout", &t, &err)); // looked at, never written here
  CHECK(t.kind == Kind::Descriptor);
  CHECK(t.fd == 1);
  REQUIRE(pte::resolveOutput("/proc/self/fd/2", &t, &err));
  CHECK(t.fd == 2);

  ::mkdir((d / "dir").c_str(), 0700);
  CHECK_FALSE(pte::resolveOutput(d / "dir", &t, &err));
  CHECK(err == "it is a directory");
  CHECK_FALSE(pte::resolveOutput(d / "missing/x.pte", &t, &err));
  CHECK(err == "No such file or directory");
  REQUIRE(::symlink("loop-b", (d / "loop-a").c_str()) == 0);
  REQUIRE(::symlink("loop-a", (d / "loop-b").c_str()) == 0);
  CHECK_FALSE(pte::resolveOutput(d / "loop-a", &t, &err));
  CHECK(err == "Too many levels of symbolic links");
  CHECK_FALSE(pte::resolveOutput("/proc/self/fd/987", &t, &err));
  CHECK(err == "descriptor 987 is not open");
}

TEST_CASE("a link to a regular file: the target is replaced, the link stays",
          "[tooling][outputs]") {
  TempDir d;
  writeText(d / "real.pte", "old");
  ::chmod((d / "real.pte").c_str(), 0640);
  REQUIRE(::symlink("real.pte", (d / "link.pte").c_str()) == 0);
  std::string err;
  REQUIRE(write(d / "link.pte", "new bytes", &err));
  struct stat st;
  REQUIRE(::lstat((d / "link.pte").c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  CHECK(readText(d / "real.pte") == "new bytes");
  REQUIRE(::stat((d / "real.pte").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0640); // the replaced file keeps its permission bits
  CHECK(namesIn(d.path) == std::vector<std::string>{"link.pte", "real.pte"});
}

TEST_CASE("a FIFO, directly or through a link, is written in place", "[tooling][outputs]") {
  TempDir d;
  REQUIRE(::mkfifo((d / "fifo").c_str(), 0600) == 0);
  REQUIRE(::symlink("fifo", (d / "link").c_str()) == 0);
  for (const char *name : {"fifo", "link"}) {
    std::string got;
    std::thread reader([&] { got = readText(d / "fifo"); });
    std::string err;
    bool ok = write(d / name, "streamed", &err);
    if (!ok) // let the reader go
      ::close(::open((d / "fifo").c_str(), O_WRONLY | O_NONBLOCK));
    reader.join();
    INFO(name << ": " << err);
    CHECK(ok);
    CHECK(got == "streamed");
    struct stat st;
    REQUIRE(::lstat((d / "fifo").c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
  }
  CHECK(namesIn(d.path) == std::vector<std::string>{"fifo", "link"});
}

TEST_CASE("a character device made in the folder is written in place", "[tooling][outputs]") {
  TempDir d;
  // A copy of /dev/null (1, 3); only where this user may make devices.
  if (::mknod((d / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    return;
  REQUIRE(::symlink("null", (d / "link").c_str()) == 0);
  std::string err;
  CHECK(write(d / "null", "gone", &err));
  CHECK(write(d / "link", "gone", &err));
  struct stat st;
  REQUIRE(::lstat((d / "null").c_str(), &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  REQUIRE(::lstat((d / "link").c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  // A device that keeps nothing may take several outputs of one command.
  CHECK(pte::checkDistinctFiles({{"-o", d / "null"}, {"--report-file", d / "link"}}, {}) == "");
}

TEST_CASE("a directory is refused and nothing is left behind", "[tooling][outputs]") {
  TempDir d;
  ::mkdir((d / "out").c_str(), 0700);
  std::string err;
  CHECK_FALSE(write(d / "out", "x", &err));
  CHECK_THAT(err, Contains("it is a directory"));
  CHECK(namesIn(d.path) == std::vector<std::string>{"out"});
  CHECK(namesIn(d / "out").empty());
}

TEST_CASE("a failed write leaves the existing file as it was", "[tooling][outputs]") {
  TempDir d;
  writeText(d / "keep.pte", "previous");
  pte::OutputFiles out;
  std::string err;
  REQUIRE(out.stage(d / "keep.pte", std::string("next"), &err));
  CHECK_FALSE(out.stage(d / "missing/other", std::string("x"), &err));
  out.abandon();
  CHECK(readText(d / "keep.pte") == "previous");
  CHECK(namesIn(d.path) == std::vector<std::string>{"keep.pte"});
}

TEST_CASE("checkDistinctFiles compares files, not spellings", "[tooling][outputs]") {
  TempDir d;
  writeText(d / "model.pt2", "input");
  REQUIRE(::symlink("model.pt2", (d / "alias.pt2").c_str()) == 0);
  REQUIRE(::link((d / "model.pt2").c_str(), (d / "hard.pt2").c_str()) == 0);
  std::vector<pte::NamedFile> inputs = {{"input", d / "model.pt2"}};
  CHECK(pte::checkDistinctFiles({{"-o", d / "out.pte"}, {"--report-file", d / "r.json"}},
                                inputs) == "");
  CHECK(pte::checkDistinctFiles({{"--debug-map", d / "alias.pt2"}}, inputs) ==
        "--debug-map " + (d / "alias.pt2") + " names the same file as input " +
            (d / "model.pt2") + ", which it would overwrite");
  CHECK_THAT(pte::checkDistinctFiles({{"--plan-svg", d / "hard.pt2"}}, inputs),
             Contains("names the same file as input"));
  // Two names of one new file.
  CHECK(pte::checkDistinctFiles({{"--report-file", d / "r.json"},
                                 {"--debug-map", d.path + "/./r.json"}},
                                {}) == "--report-file " + (d / "r.json") + " and --debug-map " +
                                           d.path + "/./r.json name the same file; each output "
                                                    "needs its own");
  CHECK_THAT(pte::checkDistinctFiles({{"-o", "-"}, {"--report-file", "-"}}, {}),
             Contains("-o - and --report-file - name the same file"));
  // An output that cannot be written at all is the writer's to report.
  CHECK(pte::checkDistinctFiles({{"-o", d / "missing/x.pte"}}, inputs) == "");
}

TEST_CASE("input files: regular files only, of a size the reader takes", "[tooling][inputs]") {
  TempDir d;
  writeText(d / "data.bin", "12345678");
  uint64_t size = 0;
  CHECK(io::checkInputFile(d / "data.bin", io::kAnySize, &size) == "");
  CHECK(size == 8);
  std::vector<uint8_t> bytes;
  std::string err;
  REQUIRE(io::readInputFile(d / "data.bin", 8, &bytes, &err));
  CHECK(std::string(bytes.begin(), bytes.end()) == "12345678");
  CHECK_FALSE(io::readInputFile(d / "data.bin", 7, &bytes, &err));
  CHECK(err == "the file has 8 bytes, more than the 7 it may have");
  CHECK(io::checkInputFile(d / "data.bin", 7) == err);

  ::mkdir((d / "dir").c_str(), 0700);
  CHECK(io::checkInputFile(d / "dir") == "not a regular file: it is a directory");
  CHECK_FALSE(io::readInputFile(d / "dir", io::kAnySize, &bytes, &err));
  CHECK(err == "not a regular file: it is a directory");
  // A FIFO nobody writes: refused at once, without waiting for a writer.
  REQUIRE(::mkfifo((d / "fifo").c_str(), 0600) == 0);
  CHECK(io::checkInputFile(d / "fifo") == "not a regular file: it is a FIFO (named pipe)");
  CHECK_FALSE(io::readInputFile(d / "fifo", io::kAnySize, &bytes, &err));
  CHECK(err == "not a regular file: it is a FIFO (named pipe)");
  // A device that never ends (a copy of /dev/zero, where this user may make one).
  if (::mknod((d / "zero").c_str(), S_IFCHR | 0666, makedev(1, 5)) == 0) {
    CHECK_FALSE(io::readInputFile(d / "zero", io::kAnySize, &bytes, &err));
    CHECK(err == "not a regular file: it is a character device");
    CHECK(bytes.empty());
  }
  CHECK(io::checkInputFile(d / "none") == "cannot open file: No such file or directory");
}
