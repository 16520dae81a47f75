// Tensor: a dense tensor view over memory the runtime owns (planned arena,
// constant segment) or the caller supplies. Its dim order (spec 3.3) lists
// the dimensions from outermost to innermost in memory: 0..n-1 is contiguous,
// [0, 2, 3, 1] channels-last; strides follow from it. Sizes and dim order are
// stored inline so that resizing an output allocates nothing.
//
// A tensor loaded from a program keeps the program's shape dynamism, and
// resize() enforces it as upstream's runtime does: the rank never changes, a
// STATIC tensor only "resizes" to the shape it has, and a DYNAMIC_BOUND one
// to any shape with at most as many elements as it was declared with. A
// tensor a caller builds (tests, inputs) is `Free`: any shape within its
// capacity.
#pragma once

#include "runtime/core/Error.h"
#include "runtime/core/ScalarType.h"
#include "runtime/core/Span.h"

#include <cstdint>
#include <cstring>
#include <initializer_list>

namespace ptec::rt {

constexpr int kTensorMaxRank = 16;

/// How a tensor's shape may change (the program's TensorShapeDynamism, plus
/// `Free` for tensors built outside a program).
enum class ShapeDynamism : uint8_t {
  Free,    // any shape that fits the capacity (rank may change if contiguous)
  Static,  // exactly the declared shape
  Bounded, // the declared rank, at most the declared element count
};

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
  ShapeDynamism dynamism() const { return dynamism_; }
  /// The element count a Bounded tensor may not exceed (its declared one).
  int64_t numelBound() const { return numelBound_; }

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
  /// Initialise metadata (a Free tensor); dim order is contiguous. Returns InvalidArgument for
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
    dynamism_ = ShapeDynamism::Free;
    numelBound_ = numel();
    return Error::Ok;
  }
  /// The program's shape dynamism; a Bounded tensor's bound is its current
  /// (declared) element count.
  void setDynamism(ShapeDynamism d) {
    dynamism_ = d;
    numelBound_ = numel();
  }
  void setData(void *data, size_t capacityBytes) {
    data_ = data;
    capacity_ = capacityBytes;
  }

  /// Why resize(newSizes) would fail, or nullptr when it would succeed.
  /// Free tensors: the new shape needs at most the capacity, and a
  /// non-contiguous one keeps its rank (its dim order would lose its
  /// meaning). Program tensors (upstream's rules): the rank never changes, a
  /// Static tensor takes only its own shape, a Bounded one at most its
  /// declared element count; a rank-0 tensor always "resizes" to rank 0.
  const char *resizeProblem(Span<const int64_t> newSizes) const {
    if (newSizes.size() > static_cast<size_t>(kTensorMaxRank))
      return "the rank exceeds the limit";
    int64_t n = 1;
    for (size_t i = 0; i < newSizes.size(); ++i) {
      if (newSizes[i] < 0)
        return "a size is negative";
      if (__builtin_mul_overflow(n, newSizes[i], &n))
        return "the element count overflows";
    }
    const bool sameRank = static_cast<int>(newSizes.size()) == rank_;
    if (dynamism_ != ShapeDynamism::Free && !sameRank)
      return "the rank of a program's tensor cannot change";
    if (dynamism_ == ShapeDynamism::Free && !sameRank && !isContiguous())
      return "a non-contiguous tensor cannot change rank";
    if (dynamism_ == ShapeDynamism::Static && rank_ > 0 &&
        std::memcmp(sizes_, newSizes.data(), rank_ * sizeof(int64_t)) != 0)
      return "the tensor is STATIC and the shape differs";
    if (dynamism_ == ShapeDynamism::Bounded && n > numelBound_)
      return "the tensor is DYNAMIC_BOUND and the shape has more elements than its bound";
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(n), elementSize(), &bytes))
      return "the byte size overflows";
    if (bytes > capacity_ && data_ != nullptr)
      return "the shape needs more bytes than the tensor's memory";
    return nullptr;
  }
  /// Change the shape (kernels resize their outputs). InvalidArgument when
  /// resizeProblem() says why not. The dim order is kept (made contiguous
  /// when a Free tensor changes rank). Does not move data.
  Error resize(Span<const int64_t> newSizes) {
    if (resizeProblem(newSizes) != nullptr)
      return Error::InvalidArgument;
    const bool keepOrder = static_cast<int>(newSizes.size()) == rank_;
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
  ShapeDynamism dynamism_ = ShapeDynamism::Free;
  int64_t numelBound_ = 0;
};

} // namespace ptec::rt
