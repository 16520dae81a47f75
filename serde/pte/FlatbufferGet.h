//===- FlatbufferGet.h - read FlatBuffers vectors of 8-byte scalars -------===//
//
// The FlatBuffers verifier checks only the 4-byte alignment of a vector's
// length, so a crafted .pte can put the 8-byte elements of an int64, uint64 or
// double vector on a 4-byte boundary, where Vector<T>::Get() is a misaligned
// load (undefined behaviour; pte_fuzz findings in PteCheck and in the
// runtime). Every reader of such a vector goes through get8.
//
//===----------------------------------------------------------------------===//
#ifndef PTEC_SERDE_PTE_FLATBUFFERGET_H
#define PTEC_SERDE_PTE_FLATBUFFERGET_H

#include "flatbuffers/flatbuffers.h"

#include <cstring>

namespace ptec::pte {

/// Element `i` of a vector of 8-byte scalars, copied byte-wise.
template <typename T>
T get8(const flatbuffers::Vector<T> *v, flatbuffers::uoffset_t i) {
  static_assert(sizeof(T) == 8, "for 8-byte elements");
  T x;
  std::memcpy(&x, v->Data() + static_cast<size_t>(i) * sizeof(T), sizeof(T));
  return flatbuffers::EndianScalar(x);
}

} // namespace ptec::pte

#endif // PTEC_SERDE_PTE_FLATBUFFERGET_H
