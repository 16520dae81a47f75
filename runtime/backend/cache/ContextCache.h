// ContextCache: backend contexts shared by the methods of ONE loaded program.
//
// A backend whose context is expensive (packed weights, a compiled graph)
// caches it here. The key is (signature of the blob, runtime allocator of the
// loading program): methods of one program share a context; two programs
// loaded from identical bytes get independent contexts whose lifetimes follow
// their own allocators. Each entry counts the methods that use it.
//
// Protocol (one mutex guards every operation on the table):
//   lookup: a hit takes a reference and allocates nothing;
//   miss:   the caller builds a candidate outside the lock (a ScopeGuard or an
//           OwnedContext destroys it on every error path), then publishes it
//           with try-emplace semantics: the first published context for a key
//           wins; a losing caller gets the winner and destroys its candidate;
//   release: drops a reference; at zero the entry leaves the table first and
//           the context's destructor runs afterwards, outside the lock.
// See docs/backend-context-cache.md.
#pragma once

#include "runtime/core/Error.h"
#include "runtime/core/Result.h"

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <utility>

namespace ptec::rt::cache {

/// Identity of a cached context.
struct ContextKey {
  uint64_t signature = 0;          ///< from the blob's signature header
  const void *allocator = nullptr; ///< runtime allocator of the loading program

  bool operator==(const ContextKey &o) const {
    return signature == o.signature && allocator == o.allocator;
  }
  bool operator!=(const ContextKey &o) const { return !(*this == o); }
};

/// Sole ownership of a type-erased context: destroys it unless released.
class OwnedContext {
public:
  using DestroyFn = void (*)(void *);

  OwnedContext() = default;
  OwnedContext(void *context, DestroyFn destroy)
      : context_(context), destroy_(destroy) {}
  /// Adopt a heap object created with `new (std::nothrow) T`.
  template <typename T> static OwnedContext adopt(T *context) {
    return OwnedContext(context, [](void *p) { delete static_cast<T *>(p); });
  }
  OwnedContext(OwnedContext &&o) noexcept
      : context_(std::exchange(o.context_, nullptr)), destroy_(o.destroy_) {}
  OwnedContext &operator=(OwnedContext &&o) noexcept {
    if (this != &o) {
      reset();
      context_ = std::exchange(o.context_, nullptr);
      destroy_ = o.destroy_;
    }
    return *this;
  }
  OwnedContext(const OwnedContext &) = delete;
  OwnedContext &operator=(const OwnedContext &) = delete;
  ~OwnedContext() { reset(); }

  void *get() const { return context_; }
  explicit operator bool() const { return context_ != nullptr; }
  /// Runs the context's destructor now (no-op when empty).
  void reset() {
    if (context_ != nullptr && destroy_ != nullptr)
      destroy_(context_);
    context_ = nullptr;
  }
  /// Gives up ownership without destroying.
  void *release() { return std::exchange(context_, nullptr); }
  DestroyFn destroyFn() const { return destroy_; }

private:
  void *context_ = nullptr;
  DestroyFn destroy_ = nullptr;
};

/// How acquire() obtained its entry.
enum class AcquireOutcome : uint8_t {
  Hit,       ///< found in the table; nothing was built or allocated
  Built,     ///< built here and published
  LostRace,  ///< built here, but another initializer published first; the
             ///< candidate was destroyed and the winner is used
};

/// One cached context. Opaque to users except for its context and key; the
/// pointer doubles as a backend's delegate handle.
class CacheEntry {
public:
  void *context() const { return context_; }
  const ContextKey &key() const { return key_; }

private:
  friend class ContextCacheCore;
  CacheEntry(const ContextKey &key, OwnedContext context)
      : key_(key), destroy_(context.destroyFn()), context_(context.release()) {}
  ContextKey key_;
  OwnedContext::DestroyFn destroy_;
  void *context_;
  size_t users_ = 1;
  CacheEntry *prev_ = nullptr;
  CacheEntry *next_ = nullptr;
};

/// The type-erased table. Entries form an intrusive list: a cache holds the
/// few contexts of the programs loaded in a process, so a scan is cheap, and
/// the table itself never allocates (publication allocates the entry before
/// taking the lock, so a failed allocation is an ordinary error).
class ContextCacheCore {
public:
  ContextCacheCore() = default;
  ContextCacheCore(const ContextCacheCore &) = delete;
  ContextCacheCore &operator=(const ContextCacheCore &) = delete;
  /// Destroys contexts still cached (their users never released them).
  ~ContextCacheCore();

  /// Hit: takes a reference and returns the entry. Miss: nullptr.
  CacheEntry *lookup(const ContextKey &key);
  /// Try-emplace. When the key is free the candidate is moved into a new
  /// entry (`*won = true`). When another initializer published first, its
  /// entry gains a reference and is returned (`*won = false`); the candidate
  /// stays with the caller, who destroys it. MemoryAllocationFailed when no
  /// entry could be allocated (the candidate stays with the caller).
  Result<CacheEntry *> publish(const ContextKey &key, OwnedContext &candidate,
                               bool *won = nullptr);
  /// Drops one reference. At zero the entry is unlinked under the lock, then
  /// the context's destructor runs outside it. NotFound for a pointer that is
  /// not a live entry of this cache.
  Error release(CacheEntry *entry);

  bool contains(const ContextKey &key) const;
  /// References held on the entry for `key`; 0 when absent.
  size_t useCount(const ContextKey &key) const;
  /// Number of live entries.
  size_t size() const;

private:
  CacheEntry *findLocked(const ContextKey &key) const;
  bool isLiveLocked(const CacheEntry *entry) const;

  mutable std::mutex mutex_;
  CacheEntry *head_ = nullptr;
  size_t size_ = 0;
};

/// Typed front end: contexts of type `Context`, created by the caller with
/// `new (std::nothrow)` and deleted by the cache.
template <typename Context> class ContextCache {
public:
  /// Hit, or build-and-publish. `build` is `Result<Context *>()`; it returns a
  /// fully built context or an error after destroying what it built (use a
  /// ScopeGuard or std::unique_ptr). `beforePublish` (may be null) runs after
  /// a successful build and can veto publication; the candidate is then
  /// destroyed. On success the entry carries one reference for the caller.
  template <typename Build>
  Result<CacheEntry *> acquire(const ContextKey &key, Build &&build,
                               AcquireOutcome *outcome = nullptr) {
    return acquire(key, std::forward<Build>(build), [] { return Error::Ok; },
                   outcome);
  }
  template <typename Build, typename BeforePublish>
  Result<CacheEntry *> acquire(const ContextKey &key, Build &&build,
                               BeforePublish &&beforePublish,
                               AcquireOutcome *outcome = nullptr) {
    if (CacheEntry *hit = core_.lookup(key)) {
      if (outcome)
        *outcome = AcquireOutcome::Hit;
      return hit;
    }
    Result<Context *> built = build();
    if (!built.ok())
      return built.error();
    if (built.get() == nullptr)
      return Error::Internal;
    // From here the candidate is owned: any early return destroys it.
    OwnedContext candidate = OwnedContext::adopt(built.get());
    Error veto = beforePublish();
    if (veto != Error::Ok)
      return veto;
    bool won = false;
    Result<CacheEntry *> entry = core_.publish(key, candidate, &won);
    if (!entry.ok())
      return entry.error();
    if (outcome)
      *outcome = won ? AcquireOutcome::Built : AcquireOutcome::LostRace;
    return entry.get(); // a lost candidate is destroyed here
  }

  CacheEntry *lookup(const ContextKey &key) { return core_.lookup(key); }
  Result<CacheEntry *> publish(const ContextKey &key, OwnedContext &candidate,
                               bool *won = nullptr) {
    return core_.publish(key, candidate, won);
  }
  Error release(CacheEntry *entry) { return core_.release(entry); }
  bool contains(const ContextKey &key) const { return core_.contains(key); }
  size_t useCount(const ContextKey &key) const { return core_.useCount(key); }
  size_t size() const { return core_.size(); }

  static Context &context(const CacheEntry *entry) {
    return *static_cast<Context *>(entry->context());
  }

private:
  ContextCacheCore core_;
};

} // namespace ptec::rt::cache
