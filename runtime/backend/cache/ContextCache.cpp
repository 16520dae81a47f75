#include "runtime/backend/cache/ContextCache.h"

namespace ptec::rt::cache {

ContextCacheCore::~ContextCacheCore() {
  CacheEntry *e = head_;
  while (e != nullptr) {
    CacheEntry *next = e->next_;
    if (e->destroy_ != nullptr)
      e->destroy_(e->context_);
    delete e;
    e = next;
  }
}

CacheEntry *ContextCacheCore::findLocked(const ContextKey &key) const {
  for (CacheEntry *e = head_; e != nullptr; e = e->next_)
    if (e->key_ == key)
      return e;
  return nullptr;
}

bool ContextCacheCore::isLiveLocked(const CacheEntry *entry) const {
  for (const CacheEntry *e = head_; e != nullptr; e = e->next_)
    if (e == entry)
      return true;
  return false;
}

CacheEntry *ContextCacheCore::lookup(const ContextKey &key) {
  std::lock_guard<std::mutex> lock(mutex_);
  CacheEntry *e = findLocked(key);
  if (e != nullptr)
    ++e->users_;
  return e;
}

Result<CacheEntry *> ContextCacheCore::publish(const ContextKey &key,
                                               OwnedContext &candidate,
                                               bool *won) {
  if (won)
    *won = false;
  if (!candidate)
    return Error::InvalidArgument;
  // Allocate before locking: the lock is never held across an allocation.
  // The entry only takes the candidate once it is known to be inserted.
  CacheEntry *fresh = new (std::nothrow) CacheEntry(key, OwnedContext());
  if (fresh == nullptr)
    return Error::MemoryAllocationFailed;
  CacheEntry *winner = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    winner = findLocked(key);
    if (winner != nullptr) {
      ++winner->users_;
    } else {
      fresh->destroy_ = candidate.destroyFn();
      fresh->context_ = candidate.release();
      fresh->next_ = head_;
      if (head_ != nullptr)
        head_->prev_ = fresh;
      head_ = fresh;
      ++size_;
    }
  }
  if (winner != nullptr) {
    delete fresh; // the candidate stays with the caller, who destroys it
    return winner;
  }
  if (won)
    *won = true;
  return fresh;
}

Error ContextCacheCore::release(CacheEntry *entry) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (entry == nullptr || !isLiveLocked(entry))
      return Error::NotFound;
    if (--entry->users_ != 0)
      return Error::Ok;
    // Last user: unlink first, so no lookup can find a dying context.
    if (entry->prev_ != nullptr)
      entry->prev_->next_ = entry->next_;
    else
      head_ = entry->next_;
    if (entry->next_ != nullptr)
      entry->next_->prev_ = entry->prev_;
    --size_;
  }
  // Then the full destructor, outside the lock (it may release other
  // resources that take their own locks).
  if (entry->destroy_ != nullptr)
    entry->destroy_(entry->context_);
  delete entry;
  return Error::Ok;
}

bool ContextCacheCore::contains(const ContextKey &key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return findLocked(key) != nullptr;
}

size_t ContextCacheCore::useCount(const ContextKey &key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const CacheEntry *e = findLocked(key);
  return e != nullptr ? e->users_ : 0;
}

size_t ContextCacheCore::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return size_;
}

} // namespace ptec::rt::cache
