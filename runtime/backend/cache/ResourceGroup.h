// Resource groups: resources shared by several cached contexts of one program
// (a workspace or spill buffer), scoped by (runtime allocator, configured
// size). A registry lives in the backend instance (no process-global static);
// each context joins a group and holds its GroupMembership explicitly. The
// group object owns the shared resource and lives until its last member is
// gone. Initialization inside a group is serialized with initMutex().
#pragma once

#include "runtime/core/Error.h"
#include "runtime/core/MemoryAllocator.h"
#include "runtime/core/Result.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>

namespace ptec::rt::cache {

struct GroupKey {
  const void *allocator = nullptr; ///< runtime allocator of the program
  size_t bytes = 0;                ///< configured workspace size
  bool operator==(const GroupKey &o) const {
    return allocator == o.allocator && bytes == o.bytes;
  }
};

class ResourceGroupRegistry;

class ResourceGroup {
public:
  const GroupKey &key() const { return key_; }
  /// The shared workspace: `key().bytes` bytes from the program's runtime
  /// allocator (nullptr when the size is 0). Lives as long as the group.
  uint8_t *workspace() const { return workspace_; }
  size_t workspaceBytes() const { return key_.bytes; }
  /// Held by a member for the whole of its initialization.
  std::mutex &initMutex() { return initMutex_; }
  /// Held while a member uses the shared workspace (members may run on
  /// different threads).
  std::mutex &useMutex() { return useMutex_; }

private:
  friend class ResourceGroupRegistry;
  explicit ResourceGroup(const GroupKey &key) : key_(key) {}
  GroupKey key_;
  uint8_t *workspace_ = nullptr;
  size_t members_ = 0;
  ResourceGroup *next_ = nullptr;
  std::mutex initMutex_;
  std::mutex useMutex_;
};

/// A member's reference to its group. Move-only; leaving happens in the
/// destructor (or reset()).
class GroupMembership {
public:
  GroupMembership() = default;
  GroupMembership(GroupMembership &&o) noexcept
      : registry_(std::exchange(o.registry_, nullptr)),
        group_(std::exchange(o.group_, nullptr)) {}
  GroupMembership &operator=(GroupMembership &&o) noexcept {
    if (this != &o) {
      reset();
      registry_ = std::exchange(o.registry_, nullptr);
      group_ = std::exchange(o.group_, nullptr);
    }
    return *this;
  }
  GroupMembership(const GroupMembership &) = delete;
  GroupMembership &operator=(const GroupMembership &) = delete;
  ~GroupMembership() { reset(); }

  ResourceGroup *group() const { return group_; }
  ResourceGroup *operator->() const { return group_; }
  explicit operator bool() const { return group_ != nullptr; }
  /// Leave the group now (the last member destroys it).
  void reset();
  /// A second membership of the same group (empty when this one is empty).
  GroupMembership duplicate() const;

private:
  friend class ResourceGroupRegistry;
  GroupMembership(ResourceGroupRegistry *registry, ResourceGroup *group)
      : registry_(registry), group_(group) {}
  ResourceGroupRegistry *registry_ = nullptr;
  ResourceGroup *group_ = nullptr;
};

class ResourceGroupRegistry {
public:
  ResourceGroupRegistry() = default;
  ResourceGroupRegistry(const ResourceGroupRegistry &) = delete;
  ResourceGroupRegistry &operator=(const ResourceGroupRegistry &) = delete;
  /// Groups still alive here have members that outlived the registry; they
  /// are freed so nothing leaks.
  ~ResourceGroupRegistry();

  /// Join the group for (allocator, bytes), creating it (and allocating its
  /// workspace from `allocator`) when it does not exist. InvalidArgument for
  /// a null allocator; MemoryAllocationFailed when the group or its workspace
  /// cannot be allocated.
  Result<GroupMembership> join(MemoryAllocator *allocator, size_t bytes);

  bool contains(const GroupKey &key) const;
  /// Members of the group for `key`; 0 when absent.
  size_t memberCount(const GroupKey &key) const;
  size_t size() const;
  /// Groups created / destroyed since construction (tests balance them).
  size_t created() const { return created_.load(); }
  size_t destroyed() const { return destroyed_.load(); }

private:
  friend class GroupMembership;
  void addMember(ResourceGroup *group);
  void leave(ResourceGroup *group);
  ResourceGroup *findLocked(const GroupKey &key) const;

  mutable std::mutex mutex_;
  ResourceGroup *head_ = nullptr;
  size_t size_ = 0;
  std::atomic<size_t> created_{0};
  std::atomic<size_t> destroyed_{0};
};

} // namespace ptec::rt::cache
