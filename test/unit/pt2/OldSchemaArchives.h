// Test-only builders of legacy-zip archives in each ExportedProgram schema
// major that torch.export.save has written (1: torch 2.1, 2: torch 2.2, 3-4:
// development builds, 5-7: torch 2.3 to ~2.5, 8: current), spelled the way
// each wrote them: unions with every field (1-2) or "$type"/"$value" (3-4) or
// one key (5+), name-map signatures and call_spec (1), integer versions (1-2),
// `dialect` (2-6), bare-name optional tensors, integer storage offsets.
#ifndef PTEC_TEST_UNIT_PT2_OLDSCHEMAARCHIVES_H
#define PTEC_TEST_UNIT_PT2_OLDSCHEMAARCHIVES_H

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ptec::pt2::test {

/// The one program every schema form below describes:
///   inputs   parameter w float32[2,3], persistent buffer count int64[],
///            user input x float32[3,2]
///   mm      = aten.mm(w, x)                          float32[2,2]
///   clamp   = aten.clamp(mm, min=None, max=6.0)
///   index   = aten.index.Tensor(clamp, [clamp, None])
///   to_copy = aten._to_copy(index, dtype=float32, layout=strided, device=cpu)
///   add     = aten.add.Scalar(count, 1)              int64[]
///   outputs  buffer mutation count <- add, user output to_copy
/// Placeholder names follow the writer: arg0_1/arg1_1/arg2_1 in schema 1,
/// l_w_/l_count_/l_x_ in 2-4, p_w/b_count/x from 5 on.
struct HistoryNames {
  std::string w, count, x;
};
HistoryNames historyNames(int major);

/// Minor version written with each major (1 and 2 have none: 0).
int historyMinor(int major);

/// The program's ExportedProgram JSON as schema `major` (1-8) spelled it.
nlohmann::json historyModel(int major);

/// A legacy zip (Python zipfile layout) around `model`, with the state dict
/// w = 0..5, count = 41 (torch.save zip, hand-written pickle) and `version`
/// record `version` (omitted when empty). Schema 1 archives name the state
/// dict serialized_state_dict.json like torch 2.1 did.
std::string historyZip(const nlohmann::json &model, const std::string &version, int major);
std::string historyZip(int major);  // historyModel(major) with its own version record

/// The version record each major's writer put next to the JSON ("1", "2", "3.1", ...).
std::string historyVersionRecord(int major);

/// Every field name of a union as schema 1-2 wrote it (dataclasses.asdict),
/// for Argument, SymInt, OptionalTensorArgument, InputSpec and OutputSpec.
const std::vector<std::string> &legacyUnionFields(const std::string &unionName);

/// A union as schema `major` spells it: every field (1-2), tagged (3-4) or
/// one key (5+). `unionName` picks the field list for the every-field form.
nlohmann::json unionAs(int major, const std::string &unionName, const std::string &key,
                       nlohmann::json value);

}  // namespace ptec::pt2::test

#endif  // PTEC_TEST_UNIT_PT2_OLDSCHEMAARCHIVES_H
