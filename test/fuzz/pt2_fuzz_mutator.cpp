// The custom mutator of pt2_fuzz (kept out of pt2_fuzz.cpp, which the
// pt2_fuzz_corpus driver also links): half the time libFuzzer's own byte
// mutations (zip structure, CRCs, truncations), half the time the
// structure-aware GraphMutator (valid archives with mutated JSON values,
// which reach the reader's semantic checks).
#include "test/fuzz/GraphMutator.h"

#include <cstddef>
#include <cstdint>

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize,
                                          unsigned int seed) {
  if (seed % 2 == 0)
    return LLVMFuzzerMutate(data, size, maxSize);
  return ptec::fuzz::mutatePt2(data, size, maxSize, seed / 2, &LLVMFuzzerMutate);
}
