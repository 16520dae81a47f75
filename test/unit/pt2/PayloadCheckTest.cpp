// Payload integrity: every entry's bytes must match the CRC-32 its central
// directory records, and a weight's payload must hold what its tensor_meta
// declares. A failure names both the archive entry and the tensor. Each case
// here read "successfully" (zeros or garbage weights) before these checks.
#include "serde/pt2/Pt2Reader.h"
#include "test/unit/pt2/TestArchives.h"
#include "test/unit/pt2/ZipPatch.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace ptec::pt2;
using namespace ptec::pt2::test;

namespace {
/// Central directory CRC (+16), compressed size (+20), uncompressed size (+24).
void patchCentral(std::string &zip, const std::string &name, size_t field, uint32_t value) {
  set32(zip, centralHeader(zip, name) + field, value);
}

std::string errorOf(const std::string &bytes) {
  ReadError err;
  std::optional<ExportedProgram> ep = readPt2FromMemory(bytes.data(), bytes.size(), "m.pt2", &err);
  return ep ? "" : err.message;
}

const char *kWeight = "m/data/weights/weight_0";  // fc.weight, 24 bytes

/// The error reading `zip` names fc.weight, its archive entry and `why`.
void checkWeightError(const std::string &zip, const char *why) {
  std::string msg = errorOf(zip);
  INFO(msg);
  CHECK(msg.find("weight 'fc.weight'") != std::string::npos);
  CHECK(msg.find(kWeight) != std::string::npos);
  CHECK(msg.find(why) != std::string::npos);
}
}  // namespace

TEST_CASE("zeroed central-directory sizes do not read as an empty (all-zero) weight",
          "[pt2][payload]") {
  for (ZipStyle style : {ZipStyle::Torch, ZipStyle::Libzip}) {
    std::string zip = writeZip(basicEntries(), style);
    patchCentral(zip, kWeight, 20, 0);
    patchCentral(zip, kWeight, 24, 0);
    checkWeightError(zip, "CRC-32");
  }
}

TEST_CASE("a payload byte changed after writing fails the CRC check", "[pt2][payload]") {
  for (ZipStyle style : {ZipStyle::Torch, ZipStyle::Libzip, ZipStyle::TorchZip64Extra}) {
    std::vector<ZipEntry> entries = basicEntries();
    std::string original = floatBytes({0, 1, 2, 3, 4, 5});
    std::string zip = writeZip(entries, style);
    size_t at = zip.find(original);
    REQUIRE(at != std::string::npos);
    zip[at + 5] = static_cast<char>(zip[at + 5] ^ 0x10);
    checkWeightError(zip, "CRC");
  }
}

TEST_CASE("a central-directory CRC that disagrees with the data is refused", "[pt2][payload]") {
  std::string zip = writeZip(basicEntries(), ZipStyle::Torch);
  size_t h = centralHeader(zip, kWeight);
  set32(zip, h + 16, get32(zip, h + 16) ^ 1u);
  std::string msg = errorOf(zip);
  INFO(msg);
  CHECK(msg.find("weight 'fc.weight'") != std::string::npos);
  CHECK(msg.find("CRC-32") != std::string::npos);
}

TEST_CASE("a truncated payload with a matching CRC names the tensor and its storage",
          "[pt2][payload]") {
  // 20 of 24 bytes, written consistently (sizes and CRC agree): the zip layer
  // is fine, the tensor's declared storage is not.
  std::vector<ZipEntry> entries = basicEntries();
  setEntry(entries, kWeight, floatBytes({0, 1, 2, 3, 4}));
  std::string msg = errorOf(writeZip(entries, ZipStyle::Torch));
  INFO(msg);
  CHECK(msg.find("weight 'fc.weight' (" + std::string(kWeight) + ")") != std::string::npos);
  CHECK(msg.find("payload holds only 5 elements") != std::string::npos);
}

TEST_CASE("a 0-byte payload for a tensor with elements is refused, not read as zeros",
          "[pt2][payload]") {
  // Written consistently (the CRC of nothing is 0): pt2-format 3.1 reads it
  // as zeros (a fake tensor was saved), which would compile a model whose
  // weights are all zero without a word. The 4- and 20-byte payloads are
  // refused as too short; so is this one, naming the weight and its entry.
  std::vector<ZipEntry> entries = basicEntries();
  setEntry(entries, kWeight, "");
  checkWeightError(writeZip(entries, ZipStyle::Torch),
                   "the payload is empty (0 bytes), but float32[2, 3] needs 24 bytes");
}

TEST_CASE("an empty payload whose CRC says it had data is refused", "[pt2][payload]") {
  std::vector<ZipEntry> entries = basicEntries();
  setEntry(entries, kWeight, "");
  std::string zip = writeZip(entries, ZipStyle::Torch);
  patchCentral(zip, kWeight, 16, crc32(floatBytes({0, 1, 2, 3, 4, 5})));
  std::string msg = errorOf(zip);
  INFO(msg);
  CHECK(msg.find("weight 'fc.weight'") != std::string::npos);
  CHECK(msg.find("CRC-32") != std::string::npos);
}

TEST_CASE("the graph JSON and configs are CRC-checked too", "[pt2][payload]") {
  std::string zip = writeZip(basicEntries(), ZipStyle::Torch);
  const std::string json = "m/models/model.json";
  patchCentral(zip, json, 20, 0);
  patchCentral(zip, json, 24, 0);
  std::string msg = errorOf(zip);
  INFO(msg);
  CHECK(msg.find(json) != std::string::npos);
  CHECK(msg.find("CRC-32") != std::string::npos);
}

TEST_CASE("a legacy storage with zeroed sizes is refused naming the tensor", "[pt2][payload]") {
  std::string inner = torchSaveZip(stateDictPickle());
  // torchSaveZip writes torch-style records with 32-bit central sizes.
  patchCentral(inner, "archive/data/0", 20, 0);
  patchCentral(inner, "archive/data/0", 24, 0);
  std::string msg = errorOf(legacyZip(inner));
  INFO(msg);
  CHECK(msg.find("tensor 'w'") != std::string::npos);
  CHECK(msg.find("archive/data/0") != std::string::npos);
  CHECK(msg.find("CRC-32") != std::string::npos);
}
