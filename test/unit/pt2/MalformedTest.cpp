// The malformed-input suite: each case fails with a clear message that starts
// with the file name, and nothing crashes.
#include "serde/pt2/Pt2Reader.h"
#include "test/unit/pt2/TestArchives.h"

#include <catch2/catch.hpp>

using namespace ptec::pt2;
using namespace ptec::pt2::test;

TEST_CASE("malformed inputs give clear errors", "[pt2][malformed]") {
  for (const MalformedCase &c : malformedCases()) {
    SECTION(c.name) {
      ReadError err;
      std::optional<ExportedProgram> ep = readPt2FromMemory(c.bytes.data(), c.bytes.size(), "m.pt2", &err);
      INFO("case: " << c.name << "\nmessage: " << err.message);
      CHECK_FALSE(ep.has_value());
      CHECK(err.message.rfind("m.pt2: ", 0) == 0);
      CHECK(err.message.find(c.expect) != std::string::npos);
    }
  }
}

TEST_CASE("the malformed suite covers every required case", "[pt2][malformed]") {
  std::vector<std::string> names;
  for (const MalformedCase &c : malformedCases())
    names.push_back(c.name);
  for (const char *required :
       {"truncated zip", "bad central directory", "bad JSON", "missing weight file", "short weight file",
        "strides beyond payload", "unknown schema major", "pickled subclass entry",
        "legacy: hostile global os.system", "legacy: huge memo index", "legacy: deep nesting",
        "missing archive_format", "wrong dtype size", "schema 2: union with two fields set",
        "schema 3: tagged union without value", "schema 1: input in no name map"}) {
    INFO(required);
    CHECK(std::find(names.begin(), names.end(), required) != names.end());
  }
}
