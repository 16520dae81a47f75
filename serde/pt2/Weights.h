// Internal: turning a raw storage payload into a tensor's contiguous bytes.
#ifndef PTEC_SERDE_PT2_WEIGHTS_H
#define PTEC_SERDE_PT2_WEIGHTS_H

#include "serde/pt2/ExportedProgram.h"

#include <string>
#include <vector>

namespace ptec::pt2 {

/// Most bytes that views larger than their storage (broadcast strides or an
/// empty "fake" payload) may materialize, per view and per archive. Stops tiny
/// files from asking for huge allocations.
constexpr uint64_t kMaxExpandedBytes = uint64_t(1) << 30;

/// Contiguous bytes of as_strided(meta.sizes, meta.strides, meta.storageOffset)
/// over `storage`, a flat array of meta.dtype elements (little-endian). An
/// empty storage for a tensor with elements is refused: the archive holds no
/// values for it (a fake tensor was saved), and zeros would compile into a
/// wrong model. Empty strides mean contiguous. `what` names the tensor and its file in
/// errors; every index is bounds-checked. `expandedSoFar`, when given,
/// accumulates expanded bytes across calls against kMaxExpandedBytes.
std::vector<uint8_t> materializeStrided(ByteView storage,
                                        const TensorMeta &meta, const std::string &what,
                                        uint64_t *expandedSoFar = nullptr,
                                        bool *wholeStorage = nullptr);

/// Row-major strides for `sizes`.
std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &sizes);

/// "float32[2, 3]" for messages.
std::string describeTensor(DType dtype, const std::vector<int64_t> &sizes);

}  // namespace ptec::pt2

#endif  // PTEC_SERDE_PT2_WEIGHTS_H
