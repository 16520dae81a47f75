// Tensor: a dense, contiguous (dim order 0..n-1) tensor view over memory the
// runtime owns (planned arena, constant segment) or the caller supplies.
// Sizes are stored inline so that resizing an output allocates nothing.
#pragma once

#include "runtime/core/Error.h"
#include "runtime/core/ScalarType.h"
#include "runtime/core/Span.h"

#include <cstdint>
#include <cstring>
#include <initializer_list>

namespace ptec::rt {

constexpr int kTensorMaxRank = 16;

class Tensor {
public:
  Tensor() = default;

  ScalarType dtype() const { return dtype_; }
  int dim() const { return rank_; }
  int64_t size(int d) const { return sizes_[d]; }
  Span<const int64_t> sizes() const { return {sizes_, static_cast<size_t>(rank_)}; }
  Span<const uint8_t> dimOrder() const { return {dimOrder_, static_cast<size_t>(rank_)}; }

  /// Number of elements (1 for rank 0).
  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < rank_; ++i)
      n *= sizes_[i];
    return n;
  }
  size_t elementSize() const { return ::ptec::rt::elementSize(dtype_); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * elementSize(); }
  /// Bytes available behind data(): a resize may not exceed it.
  size_t capacityBytes() const { return capacity_; }

  /// Contiguous stride of dimension d, in elements.
  int64_t stride(int d) const {
    int64_t s = 1;
    for (int i = rank_ - 1; i > d; --i)
      s *= sizes_[i];
    return s;
  }

  void *mutableData() const { return data_; }
  const void *data() const { return data_; }
  template <typename T> T *dataAs() const { return static_cast<T *>(data_); }

  // --- Set-up (loader and tests). ---
  /// Initialise metadata; dim order is contiguous. Returns InvalidArgument for
  /// rank > kTensorMaxRank or a negative size.
  Error init(ScalarType dtype, Span<const int64_t> sizes) {
    if (sizes.size() > static_cast<size_t>(kTensorMaxRank))
      return Error::InvalidArgument;
    for (size_t i = 0; i < sizes.size(); ++i)
      if (sizes[i] < 0)
        return Error::InvalidArgument;
    dtype_ = dtype;
    rank_ = static_cast<int>(sizes.size());
    for (int i = 0; i < rank_; ++i) {
      sizes_[i] = sizes[i];
      dimOrder_[i] = static_cast<uint8_t>(i);
    }
    return Error::Ok;
  }
  void setData(void *data, size_t capacityBytes) {
    data_ = data;
    capacity_ = capacityBytes;
  }

  /// Change the shape (kernels resize their outputs). Fails with
  /// InvalidArgument when the new shape needs more bytes than the capacity, or
  /// when the rank is too large. Does not move data.
  Error resize(Span<const int64_t> newSizes) {
    if (newSizes.size() > static_cast<size_t>(kTensorMaxRank))
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
      dimOrder_[i] = static_cast<uint8_t>(i);
    }
    return Error::Ok;
  }
  Error resize(std::initializer_list<int64_t> newSizes) {
    return resize(Span<const int64_t>(newSizes.begin(), newSizes.size()));
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
