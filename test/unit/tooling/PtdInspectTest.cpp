// pte-inspect's .ptd listing (tooling/PtdInspect.h) over files the .ptd
// writer makes.
#include "tooling/PtdInspect.h"

#include "serde/pte/PtdWriter.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace ptec::tooling;
using Catch::Matchers::Contains;

namespace {
std::vector<uint8_t> twoEntries() {
  std::map<std::string, ptec::pte::PtdEntry> entries;
  entries["fc.weight"].bytes.assign(24, 1);
  entries["fc.weight"].scalarType = 6; // float32
  entries["fc.weight"].sizes = {2, 3};
  entries["raw"].bytes.assign(5, 2);
  return ptec::pte::serializePtd(entries, 64);
}
} // namespace

TEST_CASE("alignmentOf: the largest power of two dividing the offset", "[tooling]") {
  REQUIRE(alignmentOf(1) == 1);
  REQUIRE(alignmentOf(96) == 32);
  REQUIRE(alignmentOf(128) == 128);
  REQUIRE(alignmentOf(0) == 4096);
  REQUIRE(alignmentOf(1u << 20) == 4096);
}

TEST_CASE("inspectPtd lists the header and every key", "[tooling]") {
  std::vector<uint8_t> bytes = twoEntries();
  REQUIRE(looksLikePtd(bytes));
  std::string out, err;
  REQUIRE(inspectPtd(bytes, "w.ptd", false, &out, &err));
  REQUIRE_THAT(out, Contains("w.ptd: " + std::to_string(bytes.size()) +
                             " bytes, identifier FT01"));
  REQUIRE_THAT(out, Contains("header: magic FH01, length 40, flatbuffer_offset 64"));
  REQUIRE_THAT(out, Contains("named data (2):"));
  REQUIRE_THAT(out, Contains("'fc.weight': float32 [2, 3] dim order [0, 1], segment 0"));
  REQUIRE_THAT(out, Contains("24 bytes, aligned 64"));
  REQUIRE_THAT(out, Contains("'raw': no tensor layout, segment 1"));

  REQUIRE(inspectPtd(bytes, "w.ptd", true, &out, &err));
  auto j = nlohmann::json::parse(out);
  REQUIRE(j["header"]["length"] == 40);
  REQUIRE(j["named_data"].size() == 2);
  REQUIRE(j["named_data"][0]["key"] == "fc.weight");
  REQUIRE(j["named_data"][0]["dtype"] == "float32");
  REQUIRE(j["named_data"][0]["sizes"] == nlohmann::json::array({2, 3}));
  REQUIRE(j["named_data"][0]["size"] == 24);
  REQUIRE(j["named_data"][0]["file_offset"].get<uint64_t>() % 64 == 0);
  REQUIRE(j["named_data"][1]["size"] == 5);
  REQUIRE(j["named_data"][1].count("dtype") == 0);
}

TEST_CASE("inspectPtd refuses a damaged .ptd with the reader's reason", "[tooling]") {
  std::vector<uint8_t> bytes = twoEntries();
  bytes[8] = 'X'; // the FH01 magic
  std::string out, err;
  REQUIRE(looksLikePtd(bytes));
  REQUIRE_FALSE(inspectPtd(bytes, "w.ptd", false, &out, &err));
  REQUIRE_THAT(err, Contains("w.ptd: error: the .ptd header magic at byte 8 is not FH01"));
  REQUIRE_FALSE(looksLikePtd(std::vector<uint8_t>(64, 0)));
}

namespace {
void putLE(std::vector<uint8_t> &b, size_t at, uint64_t v, int n) {
  for (int i = 0; i < n; ++i)
    b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
size_t checkErrors(const std::vector<uint8_t> &bytes, std::string *out) {
  out->clear();
  return checkPtd(bytes, out);
}
} // namespace

TEST_CASE("checkPtd: a .ptd the writer made passes every rule", "[tooling]") {
  std::string out;
  CHECK(checkErrors(twoEntries(), &out) == 0);
  CHECK(out.empty());
}

TEST_CASE("checkPtd: every header field is checked against the file", "[tooling]") {
  // Fields at byte 8: magic, uint32 length (+4), flatbuffer_offset (+8),
  // flatbuffer_size (+16), segment_base_offset (+24), segment_data_size (+32).
  const uint64_t huge = UINT64_MAX;
  const struct {
    size_t at;
    int width;
    uint64_t value;
    const char *says;
  } cases[] = {
      {12, 4, 0xffffffffu, "header length 4294967295 runs past the file"},
      {12, 4, 39, "header length 39 < 40"},
      {16, 8, huge, "flatbuffer_offset 18446744073709551615 + flatbuffer_size"},
      {16, 8, 8, "flatbuffer_offset 8 is smaller than the header (40 bytes)"},
      {24, 8, huge, "flatbuffer_size 18446744073709551615) runs past the file"},
      {32, 8, huge, "segment data [18446744073709551615"},
  };
  for (const auto &c : cases) {
    std::vector<uint8_t> bytes = twoEntries();
    putLE(bytes, c.at, c.value, c.width);
    std::string out;
    INFO("field at " << c.at << " = " << c.value);
    CHECK(checkErrors(bytes, &out) >= 1);
    CHECK_THAT(out, Contains("error: [ptd.header]") && Contains(c.says));
  }
}

TEST_CASE("checkPtd: data not aligned to its elements is what a load refuses", "[tooling]") {
  // Alignment 1: a 3-byte entry puts the float32 entry after it at an odd
  // offset; the runtime's reader takes the file, a method's load would not.
  std::map<std::string, ptec::pte::PtdEntry> entries;
  entries["a.bytes"].bytes.assign(3, 7);
  entries["b.weight"].bytes.assign(8, 1);
  entries["b.weight"].scalarType = 6; // float32
  entries["b.weight"].sizes = {2};
  std::vector<uint8_t> bytes = ptec::pte::serializePtd(entries, 1);
  std::string out;
  REQUIRE(checkErrors(bytes, &out) == 1);
  CHECK_THAT(out, Contains("error: [ptd.align] named_data[1] 'b.weight': float32 data at file "
                           "offset") &&
                      Contains("is not aligned to its 4-byte elements"));
}
