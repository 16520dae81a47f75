// Internal: the nested torch.save zips of legacy (torch 2.1-2.7) archives:
// data.pkl through the restricted unpickler, storages from data/<key>.
#ifndef PTEC_SERDE_PT2_TORCHSAVE_H
#define PTEC_SERDE_PT2_TORCHSAVE_H

#include "serde/pt2/ExportedProgram.h"

#include <map>
#include <string>
#include <vector>

namespace ptec::pt2 {

/// Reads a torch.save zip holding a dict of plain tensors. `entryName` names
/// the outer archive member in errors. Tied tensors share one storage object.
std::map<std::string, WeightTensor> readTorchSaveTensors(const std::vector<uint8_t> &zipBytes,
                                                         const std::string &entryName);

}  // namespace ptec::pt2

#endif  // PTEC_SERDE_PT2_TORCHSAVE_H
