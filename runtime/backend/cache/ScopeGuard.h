// ScopeGuard: runs a cleanup when the scope ends unless dismissed. Backends
// use it in init() so that every early error return undoes the partial work.
#pragma once

#include <utility>

namespace ptec::rt::cache {

template <typename Fn> class ScopeGuard {
public:
  explicit ScopeGuard(Fn fn) : fn_(std::move(fn)) {}
  ScopeGuard(const ScopeGuard &) = delete;
  ScopeGuard &operator=(const ScopeGuard &) = delete;
  ~ScopeGuard() {
    if (active_)
      fn_();
  }
  /// Success: keep the work, skip the cleanup.
  void dismiss() { active_ = false; }

private:
  Fn fn_;
  bool active_ = true;
};

template <typename Fn> ScopeGuard<Fn> makeScopeGuard(Fn fn) {
  return ScopeGuard<Fn>(std::move(fn));
}

} // namespace ptec::rt::cache
