// Result<T>: a value or an Error, ExecuTorch-runtime style (no exceptions).
#pragma once

#include "runtime/core/Error.h"

#include <new>
#include <type_traits>
#include <utility>

namespace ptec::rt {

template <typename T> class [[nodiscard]] Result {
public:
  Result(const T &v) : hasValue_(true) { new (&value_) T(v); }
  Result(T &&v) : hasValue_(true) { new (&value_) T(std::move(v)); }
  Result(Error e) : error_(e == Error::Ok ? Error::Internal : e), hasValue_(false) {}
  Result(Result &&o) noexcept : error_(o.error_), hasValue_(o.hasValue_) {
    if (hasValue_)
      new (&value_) T(std::move(o.value_));
  }
  Result(const Result &) = delete;
  Result &operator=(const Result &) = delete;
  ~Result() {
    if (hasValue_)
      value_.~T();
  }

  bool ok() const { return hasValue_; }
  Error error() const { return hasValue_ ? Error::Ok : error_; }
  T &get() { return value_; }
  const T &get() const { return value_; }
  T &operator*() { return value_; }
  T *operator->() { return &value_; }
  const T *operator->() const { return &value_; }

private:
  union {
    T value_;
  };
  Error error_ = Error::Ok;
  bool hasValue_;
};

} // namespace ptec::rt

/// `PTEC_ASSIGN_OR_RETURN(auto x, f())`: unwrap a Result or return its Error.
#define PTEC_CONCAT_INNER_(a, b) a##b
#define PTEC_CONCAT_(a, b) PTEC_CONCAT_INNER_(a, b)
#define PTEC_ASSIGN_OR_RETURN(lhs, expr)                                       \
  auto PTEC_CONCAT_(ptec_res_, __LINE__) = (expr);                             \
  if (!PTEC_CONCAT_(ptec_res_, __LINE__).ok())                                 \
    return PTEC_CONCAT_(ptec_res_, __LINE__).error();                          \
  lhs = std::move(PTEC_CONCAT_(ptec_res_, __LINE__).get())
