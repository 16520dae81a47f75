// Tensor: a dense tensor view over memory the runtime owns (planned arena,
// constant segment) or the caller supplies. Its dim order (spec 3.3) lists
// the dimensions from outermost to innermost in memory: 0..n-1 is contiguous,
// [0, 2, 3, 1] channels-last; strides follow from it. Sizes and dim order are
// stored inline so that resizing an output allocates nothing.
#pragma once

#include "runtime/core/Error.h"
#include "runtime/core/ScalarType.h"
#include "runtime/core/Span.h"

#include <cstdint>
#include <cstring>
#include <initializer_list>

namespace ptec::rt {

constexpr int kTensorMaxRank = 16;

/// Number of elements of a shape (1 for rank 0).
inline int64_t numelOf(Span<const int64_t> sizes) {
  int64_t n = 1;
  for (size_t i = 0; i < sizes.size(); ++i)
    n *= sizes[i];
  return n;
}

class Tensor {
public:
  Tensor() = default;

  ScalarType dtype() const { return dtype_; }
  int dim() const { return rank_; }
  int64_t size(int d) const { return sizes_[d]; }
  Span<const int64_t> sizes() const { return {sizes_, static_cast<size_t>(rank_)}; }
  Span<const uint8_t> dimOrder() const { return {dimOrder_, static_cast<size_t>(rank_)}; }

  /// Number of elements (1 for rank 0).
  int64_t numel() const { return numelOf(sizes()); }
  size_t elementSize() const { return ::ptec::rt::elementSize(dtype_); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * elementSize(); }
  /// Bytes available behind data(): a resize may not exceed it.
  size_t capacityBytes() const { return capacity_; }

  /// Stride of dimension d in elements: the product of the sizes of every
  /// dimension that is inner to d in the dim order.
  int64_t stride(int d) const {
    int64_t s = 1;
    for (int i = rank_ - 1; i >= 0 && dimOrder_[i] != d; --i)
      s *= sizes_[dimOrder_[i]];
    return s;
  }
  /// Dim order 0..n-1 (every rank-0 and rank-1 tensor).
  bool isContiguous() const {
    for (int i = 0; i < rank_; ++i)
      if (dimOrder_[i] != i)
        return false;
    return true;
  }
  /// Dim order [0, 2, 3, 1] (rank 4) or [0, 2, 3, 4, 1] (rank 5).
  bool isChannelsLast() const {
    if (rank_ != 4 && rank_ != 5)
      return false;
    if (dimOrder_[0] != 0 || dimOrder_[rank_ - 1] != 1)
      return false;
    for (int i = 1; i < rank_ - 1; ++i)
      if (dimOrder_[i] != i + 1)
        return false;
    return true;
  }
  bool sameSizes(const Tensor &o) const {
    return rank_ == o.rank_ && std::memcmp(sizes_, o.sizes_, rank_ * sizeof(int64_t)) == 0;
  }
  bool sameDimOrder(const Tensor &o) const {
    return rank_ == o.rank_ && std::memcmp(dimOrder_, o.dimOrder_, rank_) == 0;
  }
  /// Element offset in memory of the element at row-major (logical) index i.
  int64_t offsetOf(int64_t i) const {
    if (isContiguous())
      return i;
    int64_t off = 0;
    for (int d = rank_ - 1; d >= 0; --d) {
      int64_t n = sizes_[d];
      if (n == 0)
        return 0;
      off += (i % n) * stride(d);
      i /= n;
    }
    return off;
  }

  void *mutableData() const { return data_; }
  const void *data() const { return data_; }
  template <typename T> T *dataAs() const { return static_cast<T *>(data_); }

  // --- Set-up (loader and tests). ---
  /// Initialise metadata; dim order is contiguous. Returns InvalidArgument for
  /// rank > kTensorMaxRank or a negative size.
  Error init(ScalarType dtype, Span<const int64_t> sizes) {
    return init(dtype, sizes, Span<const uint8_t>());
  }
  /// Same, with a dim order (empty: contiguous). InvalidArgument unless it
  /// is a permutation of 0..rank-1.
  Error init(ScalarType dtype, Span<const int64_t> sizes, Span<const uint8_t> dimOrder) {
    if (sizes.size() > static_cast<size_t>(kTensorMaxRank))
      return Error::InvalidArgument;
    if (dimOrder.size() != 0 && dimOrder.size() != sizes.size())
      return Error::InvalidArgument;
    uint32_t seen = 0;
    for (size_t i = 0; i < dimOrder.size(); ++i) {
      if (dimOrder[i] >= sizes.size() || (seen & (1u << dimOrder[i])) != 0)
        return Error::InvalidArgument;
      seen |= 1u << dimOrder[i];
    }
    for (size_t i = 0; i < sizes.size(); ++i)
      if (sizes[i] < 0)
        return Error::InvalidArgument;
    dtype_ = dtype;
    rank_ = static_cast<int>(sizes.size());
    for (int i = 0; i < rank_; ++i) {
      sizes_[i] = sizes[i];
      dimOrder_[i] = dimOrder.size() ? dimOrder[i] : static_cast<uint8_t>(i);
    }
    return Error::Ok;
  }
  void setData(void *data, size_t capacityBytes) {
    data_ = data;
    capacity_ = capacityBytes;
  }

  /// Change the shape (kernels resize their outputs). Fails with
  /// InvalidArgument when the new shape needs more bytes than the capacity,
  /// when the rank is too large, or when a non-contiguous tensor would change
  /// rank (its dim order would lose its meaning). The dim order is kept.
  /// Does not move data.
  Error resize(Span<const int64_t> newSizes) {
    if (newSizes.size() > static_cast<size_t>(kTensorMaxRank))
      return Error::InvalidArgument;
    const bool keepOrder = static_cast<int>(newSizes.size()) == rank_;
    if (!keepOrder && !isContiguous())
      return Error::InvalidArgument;
    int64_t n = 1;
    for (size_t i = 0; i < newSizes.size(); ++i) {
      if (newSizes[i] < 0)
        return Error::InvalidArgument;
      n *= newSizes[i];
    }
    if (static_cast<size_t>(n) * elementSize() > capacity_ && data_ != nullptr)
      return Error::InvalidArgument;
    rank_ = static_cast<int>(newSizes.size());
    for (int i = 0; i < rank_; ++i) {
      sizes_[i] = newSizes[i];
      if (!keepOrder)
        dimOrder_[i] = static_cast<uint8_t>(i);
    }
    return Error::Ok;
  }
  Error resize(std::initializer_list<int64_t> newSizes) {
    return resize(Span<const int64_t>(newSizes.begin(), newSizes.size()));
  }

  /// Copy `src`'s elements into this tensor of the same dtype and shape,
  /// converting between dim orders (a plain byte copy when they agree).
  void copyElementsFrom(const Tensor &src) {
    const size_t es = elementSize();
    if (sameDimOrder(src)) {
      if (nbytes() > 0 && data_ != src.data_)
        std::memmove(data_, src.data_, nbytes());
      return;
    }
    const int64_t n = numel();
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(static_cast<uint8_t *>(data_) + offsetOf(i) * es,
                  static_cast<const uint8_t *>(src.data_) + src.offsetOf(i) * es, es);
  }

private:
  ScalarType dtype_ = ScalarType::Float;
  int rank_ = 0;
  int64_t sizes_[kTensorMaxRank] = {};
  uint8_t dimOrder_[kTensorMaxRank] = {};
  void *data_ = nullptr;
  size_t capacity_ = 0;
};

} // namespace ptec::rt
