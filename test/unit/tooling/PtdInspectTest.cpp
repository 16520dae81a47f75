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
