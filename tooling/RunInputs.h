// pte-run's inputs and written files: a method's inputs from .npy files, raw
// files of the declared dtype and shape, or random values; outputs and
// state written back as .npy.
#pragma once

#include "runtime/core/EValue.h"
#include "runtime/executor/Method.h"
#include "runtime/executor/Npy.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace ptec::tooling {

/// Host storage for one input: random values or a file's bytes.
struct InputData {
  std::vector<uint8_t> bytes;
  std::vector<int64_t> sizes;
  rt::Tensor tensor;
};

/// `numel` random elements of `dtype` into `bytes`: reals in [-1, 1),
/// integers in [0, 9], bools 0 or 1.
void fillRandom(rt::ScalarType dtype, size_t numel, std::vector<uint8_t> &bytes,
                std::mt19937 &rng);

/// Reads (or generates) the inputs of call `call` into `data`, one source
/// per method input ("random", an .npy file, or a raw file; all random when
/// `sources` is empty). Paths may say "{call}". Random inputs are drawn once
/// and reused by later calls. False with `problem` and the exit `code` set.
bool readInputs(const std::vector<std::string> &sources, const rt::Method &method, int call,
                std::mt19937 &rng, std::vector<InputData> &data, std::string &problem,
                int &code);

/// Reads the .npy file `path` after checking it is a regular file that can
/// hold at most `maxElements` elements (a FIFO, device or directory is
/// refused before anything is read). On failure *why names the file.
rt::Result<rt::NpyArray> readNpyFile(const std::string &path, size_t maxElements,
                                     std::string *why);

/// Creates `dir` and its parents when missing (--output-dir, --state-dir).
bool makeDirs(const std::string &dir, std::string &why);

/// Writes a tensor value as .npy (row-major, whatever its dim order) with
/// the one writer of every tool's files (serde/pte/FileChunks.h);
/// non-tensors are skipped.
bool writeTensor(const std::string &path, const rt::EValue &v, std::string &why);

} // namespace ptec::tooling
