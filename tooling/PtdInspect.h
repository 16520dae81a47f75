// pte-inspect for .ptd files (ExecuTorch's FlatTensor named data, as
// aot-compile --external-weights writes them): the header fields, the
// segments, and each key with its dtype, sizes, dim order, place and
// alignment; and --check --data, which checks a program's EXTERNAL tensors
// against a .ptd. The .ptd is checked by the runtime's reader
// (runtime/executor/FlatTensorData.h) first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ptec::tooling {

/// Whether the bytes carry the .ptd identifier ("FT" at byte 4).
bool looksLikePtd(const std::vector<uint8_t> &bytes);

/// The largest power of two (at most 4096) that divides `offset`: the
/// alignment a tensor at that file offset has.
uint64_t alignmentOf(uint64_t offset);

/// A summary (text, or JSON with `json`) of the .ptd `bytes` named
/// `fileName`. False with `err` set when the file is not a valid .ptd.
bool inspectPtd(const std::vector<uint8_t> &bytes, const std::string &fileName, bool json,
                std::string *out, std::string *err);

/// pte-inspect --check for a .ptd: every rule a reader relies on, one line
/// "error: [rule] message" per violation appended to `out`; returns their
/// count. The rules: the runtime's reader accepts it (the code pte-run
/// loads it with; [ptd.read]), the header fields are sound
/// (serde/pte/PtdHeader.h; [ptd.header]), and every entry with a tensor
/// layout starts at a multiple of its element size, as a method's load
/// requires of external data ([ptd.align]).
size_t checkPtd(const std::vector<uint8_t> &bytes, std::string *out);

/// Every EXTERNAL tensor of the program `pteBytes` found in the .ptd at
/// `dataPath` with at least its bytes, its layout and its alignment (as a
/// method's load checks them): one line per one that is not, then a count.
/// Returns how many are missing, or SIZE_MAX when the .ptd itself is bad
/// or cannot be read (`problems` says why).
size_t checkExternalData(const std::vector<uint8_t> &pteBytes, const std::string &dataPath,
                         std::string *problems);

} // namespace ptec::tooling
