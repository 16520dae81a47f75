// Structure-aware mutation of .pt2 archives (LLVMFuzzerCustomMutator of the
// pipeline fuzzer). Byte flips rarely get past the zip CRCs and the JSON
// parser; this mutator opens the archive, parses the graph JSON (or a
// weights config) with nlohmann-json, changes VALUES (integers near
// boundaries, dims, dtypes, tensor names, list lengths, node targets and
// arguments drawn from the ATen schema registry, node order, copied
// subtrees) and writes a valid archive again. It may also change a weight
// payload's bytes or the compile options the pipeline fuzzer reads from the
// zip comment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ptec::fuzz {

/// Byte-level mutation of data[0, size) within maxSize, returning the new
/// size (LLVMFuzzerMutate in a fuzzer; a simple flipper elsewhere).
using ByteMutator = std::function<size_t(uint8_t *data, size_t size, size_t maxSize)>;

/// Mutates the archive in place; returns the new size (<= maxSize). An
/// input that is not a readable archive gets a byte-level mutation.
size_t mutatePt2(uint8_t *data, size_t size, size_t maxSize, unsigned seed,
                 const ByteMutator &bytes);

/// Compile options carried in an archive's zip comment, e.g.
/// "ptec-fuzz backend=demo planner=greedy write-back=end reinplace=0".
struct PipelineOptions {
  std::string backend = "none"; ///< none, demo, cachetest
  std::string planner = "best";
  bool writeBackAtEnd = false;
  bool reinplace = true;
  bool shareDelegates = true;
  std::string str() const;
  /// The aot-compile flags that compile the same way.
  std::string flags() const;
};

/// Options from the comment of the zip in data[0, size); defaults when it
/// has none.
PipelineOptions readPipelineOptions(const uint8_t *data, size_t size);

/// A simple deterministic byte mutator for builds without libFuzzer.
size_t flipSomeBytes(uint8_t *data, size_t size, size_t maxSize, unsigned seed);

} // namespace ptec::fuzz
