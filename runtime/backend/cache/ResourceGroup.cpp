#include "runtime/backend/cache/ResourceGroup.h"

#include <new>

namespace ptec::rt::cache {

void GroupMembership::reset() {
  if (registry_ != nullptr && group_ != nullptr)
    registry_->leave(group_);
  registry_ = nullptr;
  group_ = nullptr;
}

GroupMembership GroupMembership::duplicate() const {
  if (registry_ == nullptr || group_ == nullptr)
    return GroupMembership();
  registry_->addMember(group_);
  return GroupMembership(registry_, group_);
}

void ResourceGroupRegistry::addMember(ResourceGroup *group) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++group->members_;
}

ResourceGroupRegistry::~ResourceGroupRegistry() {
  ResourceGroup *g = head_;
  while (g != nullptr) {
    ResourceGroup *next = g->next_;
    delete g;
    destroyed_.fetch_add(1);
    g = next;
  }
}

ResourceGroup *ResourceGroupRegistry::findLocked(const GroupKey &key) const {
  for (ResourceGroup *g = head_; g != nullptr; g = g->next_)
    if (g->key_ == key)
      return g;
  return nullptr;
}

Result<GroupMembership> ResourceGroupRegistry::join(MemoryAllocator *allocator,
                                                   size_t bytes) {
  if (allocator == nullptr)
    return Error::InvalidArgument;
  GroupKey key{allocator, bytes};
  std::lock_guard<std::mutex> lock(mutex_);
  ResourceGroup *g = findLocked(key);
  if (g == nullptr) {
    // The allocator belongs to the program that loads this member; the
    // registry lock serializes its use by group creation.
    uint8_t *workspace = nullptr;
    if (bytes != 0) {
      workspace = static_cast<uint8_t *>(allocator->allocate(bytes, 64));
      if (workspace == nullptr)
        return Error::MemoryAllocationFailed;
    }
    g = new (std::nothrow) ResourceGroup(key);
    if (g == nullptr)
      return Error::MemoryAllocationFailed;
    g->workspace_ = workspace;
    g->next_ = head_;
    head_ = g;
    ++size_;
    created_.fetch_add(1);
  }
  ++g->members_;
  return GroupMembership(this, g);
}

void ResourceGroupRegistry::leave(ResourceGroup *group) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--group->members_ != 0)
      return;
    ResourceGroup **link = &head_;
    while (*link != nullptr && *link != group)
      link = &(*link)->next_;
    if (*link == group)
      *link = group->next_;
    --size_;
  }
  // The last member is gone: the owner goes too (outside the lock).
  delete group;
  destroyed_.fetch_add(1);
}

bool ResourceGroupRegistry::contains(const GroupKey &key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return findLocked(key) != nullptr;
}

size_t ResourceGroupRegistry::memberCount(const GroupKey &key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const ResourceGroup *g = findLocked(key);
  return g != nullptr ? g->members_ : 0;
}

size_t ResourceGroupRegistry::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return size_;
}

} // namespace ptec::rt::cache
