// Reads what torch.export.save wrote: PT2 archives (torch 2.8+) and legacy
// zips (torch 2.1-2.7). Never throws, never runs pickled code.
#ifndef PTEC_SERDE_PT2_PT2READER_H
#define PTEC_SERDE_PT2_PT2READER_H

#include "serde/pt2/ExportedProgram.h"

#include <cstddef>
#include <optional>
#include <string>

namespace ptec::pt2 {

struct ReadError {
  std::string message;  // always starts with the file path ("m.pt2: ...")
};

/// Reads a .pt2 file. On failure returns nullopt and, if err is set, fills it.
std::optional<ExportedProgram> readPt2(const std::string &path, ReadError *err);

/// Same, from bytes in memory (not copied; must outlive the call only).
/// nameForErrors stands in for the path in messages and in ExportedProgram::path.
std::optional<ExportedProgram> readPt2FromMemory(const void *data, size_t size,
                                                 const std::string &nameForErrors,
                                                 ReadError *err);

}  // namespace ptec::pt2

#endif  // PTEC_SERDE_PT2_PT2READER_H
