// Internal: what differs between the ExportedProgram schema majors that
// torch.export.save has written (torch 2.1 onwards), and the upgrades from
// the older forms to the structs of ExportedProgram.h. The table with the
// torch versions is in docs/pt2-reader.md ("Schema versions").
#ifndef PTEC_SERDE_PT2_SCHEMAHISTORY_H
#define PTEC_SERDE_PT2_SCHEMAHISTORY_H

#include "serde/pt2/ExportedProgram.h"
#include "serde/pt2/JsonRead.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ptec::pt2 {

/// Majors this reader knows. 0 is an unversioned development build, read as
/// the current form (torch's own loader accepts it the same way).
constexpr int64_t kOldestSchemaMajor = 1;
constexpr int64_t kNewestSchemaMajor = 8;

/// How to read one document, decided by its schema version.
struct SchemaForm {
  int major = kNewestSchemaMajor;
  int minor = 0;
  UnionStyle unions = UnionStyle::SingleKey;
  /// Before schema 8 OptionalTensorArgument.as_tensor could be the bare
  /// tensor name (a string) instead of a TensorArgument.
  bool optionalTensorMayBeName = false;
  /// Schema 1-2 (torch 2.1, 2.2 and the development builds between): a
  /// GraphSignature of name maps (inputs_to_parameters, ...) with the pytree
  /// specs in GraphModule.call_spec, SymInt "as_symbol", output spec
  /// "loss_outout".
  bool oldSpellings = false;
};

/// The form of schema `major.minor`; fails naming `w` for an unknown major.
SchemaForm schemaFormFor(int64_t major, int64_t minor, const Where &w);

/// A legacy zip's `version` record: "1" (torch 2.1), "2" (2.2), "5.1", ...
/// False when the text is not <major> or <major>.<minor>.
bool parseVersionRecord(const std::string &text, int64_t &major, int64_t &minor);

/// Schema 1's GraphSignature (name maps, `w` is its path) to input and
/// output specs over the already parsed graph inputs and outputs.
void readNameMapSignature(const json &sig, const Where &w, const Graph &graph,
                          std::vector<InputSpec> &inputs, std::vector<OutputSpec> &outputs);

/// Why a dtype code outside the current ScalarType enum cannot be read.
std::string unknownDTypeMessage(int64_t code, const SchemaForm &form);

}  // namespace ptec::pt2

#endif  // PTEC_SERDE_PT2_SCHEMAHISTORY_H
