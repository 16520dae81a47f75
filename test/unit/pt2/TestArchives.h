// Test-only builders of small .pt2 archives, valid and malformed. Shared by
// pt2_tests and the pt2_fuzz_corpus driver (which feeds them all through the
// fuzz entry point).
#ifndef PTEC_TEST_UNIT_PT2_TESTARCHIVES_H
#define PTEC_TEST_UNIT_PT2_TESTARCHIVES_H

#include "test/unit/pt2/TestZip.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ptec::pt2::test {

using json = nlohmann::json;

/// {"dtype": d, "sizes": [{"as_int": n}...], "strides": ..., ...}; empty
/// strides mean contiguous.
json tensorMeta(int dtype, const std::vector<int64_t> &sizes, std::vector<int64_t> strides = {},
                int64_t offset = 0, bool requiresGrad = false);

/// Graph JSON of a tiny model: parameter fc.weight float32[2,3] (p_fc_weight),
/// persistent buffer count int64[] (b_count), user input x float32[4,3];
/// nodes permute, mm, add.Scalar; outputs: buffer mutation of count, mm.
json basicModel();

/// PayloadConfig JSON of basicModel's weights: weight_0 = fc.weight
/// (0, 1, ..., 5 as float32), weight_1 = count (int64 41).
json basicWeightsConfig();

std::string floatBytes(const std::vector<float> &v);
std::string int64Bytes(const std::vector<int64_t> &v);

/// Every record of a PT2 archive of basicModel under `root` ("m/" or "").
std::vector<ZipEntry> basicEntries(const std::string &root = "m/");

/// Replace (or add) / remove one entry.
void setEntry(std::vector<ZipEntry> &entries, const std::string &name, const std::string &data);
void removeEntry(std::vector<ZipEntry> &entries, const std::string &name);

/// A protocol-2 pickle of OrderedDict(w=<float32 tensor [2,3] in storage "0">),
/// the same shape torch.save writes.
std::string stateDictPickle();
/// A torch.save zip (root "archive/") around `pickle` with storage "0" = 0..5.
std::string torchSaveZip(const std::string &pickle);

/// Graph JSON for the legacy tests: parameter w float32[2,3] (p_w), input x
/// float32[3,2], one mm node.
json legacyModel();
/// A legacy (torch 2.1-2.7) zip around legacyModel and `stateDict` bytes.
std::string legacyZip(const std::string &stateDict, const std::string &stateDictName =
                                                        "serialized_state_dict.pt");

struct MalformedCase {
  std::string name;
  std::string bytes;
  std::string expect;  // substring of the error message
};
/// The malformed-input suite: each must fail with `expect` in the message.
std::vector<MalformedCase> malformedCases();

/// Valid archives of several layouts (for the corpus driver's mutations).
std::vector<std::string> validSamples();

}  // namespace ptec::pt2::test

#endif  // PTEC_TEST_UNIT_PT2_TESTARCHIVES_H
