// Internal: ExportedProgram JSON (every schema major since torch 2.1, see
// SchemaHistory.h) and PayloadConfig JSON to the plain structs of
// ExportedProgram.h. Throws Pt2Error naming the JSON path.
#ifndef PTEC_SERDE_PT2_GRAPHJSON_H
#define PTEC_SERDE_PT2_GRAPHJSON_H

#include "serde/pt2/ExportedProgram.h"

#include <string>
#include <vector>

namespace ptec::pt2 {

/// A schema version recorded outside the JSON (a legacy zip's `version`).
struct ExternalSchemaVersion {
  int64_t major = 0, minor = 0;
};

/// Parses the graph JSON into `ep` (graph, signature, versions), upgrading
/// older schema forms. Errors name `entryName` and the JSON path; a symbolic
/// dimension gives the "dynamic shapes are not supported yet" message naming
/// the input. `external` stands in for a missing `schema_version`.
void parseExportedProgramJson(ByteView text, const std::string &entryName,
                              ExportedProgram &ep,
                              const ExternalSchemaVersion *external = nullptr);

struct PayloadMeta {
  std::string fqn;
  std::string pathName;
  bool isParam = false;
  bool usePickle = false;
  bool hasTensorMeta = false;
  TensorMeta meta;
};

/// Parses a PayloadConfig ({"config": {fqn: PayloadMeta}}), sorted by fqn.
std::vector<PayloadMeta> parsePayloadConfigJson(ByteView text,
                                                const std::string &entryName);

/// The file/line of the last `File "x.py", line N` frame; false if none.
bool parseStackTrace(const std::string &trace, std::string &file, int &line);

}  // namespace ptec::pt2

#endif  // PTEC_SERDE_PT2_GRAPHJSON_H
