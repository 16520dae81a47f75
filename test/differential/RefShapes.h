//===- RefShapes.h - shape and index arithmetic of the references -*- C++ -*-===//
//
// Row-major index arithmetic and numpy broadcasting as the reference
// evaluators (RefEval.cpp, AliasEval.cpp) and the in-place generator
// (InplaceGen.cpp) use them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "test/differential/RefEval.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace ptec::difftest {

/// "1, 2, 3": the ints of `v`, comma separated.
inline std::string commaList(const std::vector<int64_t> &v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

/// `x` rounded to float32.
inline double f32(double x) { return static_cast<double>(static_cast<float>(x)); }

inline int64_t numelOf(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Row-major strides of `sizes`, a size-0 dim counting as 1 (as PyTorch's).
inline std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &sizes) {
  std::vector<int64_t> st(sizes.size(), 1);
  for (int i = static_cast<int>(sizes.size()) - 2; i >= 0; --i)
    st[i] = st[i + 1] * std::max<int64_t>(sizes[i + 1], 1);
  return st;
}

/// A view's size with one -1 inferred from `numel`.
inline std::vector<int64_t> inferSize(std::vector<int64_t> size, int64_t numel) {
  int64_t known = 1, unknown = -1;
  for (size_t i = 0; i < size.size(); ++i)
    if (size[i] == -1)
      unknown = static_cast<int64_t>(i);
    else
      known *= size[i];
  if (unknown >= 0)
    size[unknown] = known ? numel / known : 0;
  return size;
}

/// Length of the diagonal at `offset` over dims d1 and d2 of `sizes` (<= 0
/// when there is none).
inline int64_t diagonalLength(const std::vector<int64_t> &sizes, int64_t d1, int64_t d2,
                              int64_t offset) {
  return offset >= 0 ? std::min(sizes[d1], sizes[d2] - offset)
                     : std::min(sizes[d1] + offset, sizes[d2]);
}

/// Makes the strided view `v` (sizes, strides, offset, in elements) its
/// diagonal at `offset` over dims d1 != d2: both dims go, a last one of the
/// diagonal's elements comes.
template <typename View> void takeDiagonal(View &v, int64_t d1, int64_t d2, int64_t offset) {
  const int64_t n = std::max<int64_t>(diagonalLength(v.sizes, d1, d2, offset), 0);
  if (n > 0)
    v.offset += offset >= 0 ? offset * v.strides[d2] : -offset * v.strides[d1];
  const int64_t stride = v.strides[d1] + v.strides[d2];
  for (int64_t d : {std::max(d1, d2), std::min(d1, d2)}) {
    v.sizes.erase(v.sizes.begin() + d);
    v.strides.erase(v.strides.begin() + d);
  }
  v.sizes.push_back(n);
  v.strides.push_back(stride);
}

/// Multi-index of flat position `flat` in `shape`.
inline std::vector<int64_t> unflatten(int64_t flat, const std::vector<int64_t> &shape) {
  std::vector<int64_t> idx(shape.size());
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    idx[i] = flat % shape[i];
    flat /= shape[i];
  }
  return idx;
}

/// Storage positions (in elements) of the elements of the strided view `v`
/// (sizes, strides, offset).
template <typename View> std::set<int64_t> positionsOf(const View &v) {
  std::set<int64_t> out;
  for (int64_t i = 0; i < numelOf(v.sizes); ++i) {
    std::vector<int64_t> idx = unflatten(i, v.sizes);
    int64_t p = v.offset;
    for (size_t d = 0; d < idx.size(); ++d)
      p += idx[d] * v.strides[d];
    out.insert(p);
  }
  return out;
}

/// Whether the strided views `a` and `b` of one storage share an element.
template <typename View> bool sharePosition(const View &a, const View &b) {
  std::set<int64_t> pa = positionsOf(a), pb = positionsOf(b);
  return std::any_of(pa.begin(), pa.end(), [&](int64_t p) { return pb.count(p) != 0; });
}

inline int64_t flatten(const std::vector<int64_t> &idx, const std::vector<int64_t> &shape) {
  int64_t f = 0;
  for (size_t i = 0; i < shape.size(); ++i)
    f = f * shape[i] + idx[i];
  return f;
}

/// Whether `src` broadcasts (numpy rules) to `dst`.
inline bool broadcastsTo(const std::vector<int64_t> &src, const std::vector<int64_t> &dst) {
  if (src.size() > dst.size())
    return false;
  size_t off = dst.size() - src.size();
  for (size_t i = 0; i < src.size(); ++i)
    if (src[i] != 1 && src[i] != dst[off + i])
      return false;
  return true;
}

/// Value of `src` broadcast (numpy rules) at multi-index `idx`.
inline double broadcastAt(const RefTensor &src, const std::vector<int64_t> &idx) {
  size_t off = idx.size() - src.shape.size();
  std::vector<int64_t> sidx(src.shape.size());
  for (size_t i = 0; i < src.shape.size(); ++i)
    sidx[i] = src.shape[i] == 1 ? 0 : idx[off + i];
  return src.data[flatten(sidx, src.shape)];
}

} // namespace ptec::difftest
