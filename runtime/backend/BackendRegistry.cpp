// The process-wide backend registry: a fixed table of kMaxBackends slots
// under one mutex, plus per-id init counters that tests read to observe how
// often a method initialised a backend.
#include "runtime/backend/BackendInterface.h"

#include <cstring>
#include <mutex>

namespace ptec::rt {
namespace {

constexpr size_t kMaxIdLength = 128;

struct Slot {
  char id[kMaxIdLength] = {};
  Backend *backend = nullptr;
  size_t initCount = 0;
};

struct Registry {
  std::mutex mutex;
  Slot slots[kMaxBackends];
  // Init counters outlive registrations so a test can unregister and still
  // read them; keyed by id like the slots.
  Slot counters[kMaxBackends * 2];
};

Registry &registry() {
  static Registry r;
  return r;
}

bool validId(const char *id) {
  return id != nullptr && id[0] != '\0' && std::strlen(id) < kMaxIdLength;
}

} // namespace

Error registerBackend(const char *id, Backend *backend) {
  if (!validId(id) || backend == nullptr)
    return Error::InvalidArgument;
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  Slot *free = nullptr;
  for (Slot &s : r.slots) {
    if (s.backend != nullptr && std::strcmp(s.id, id) == 0)
      return Error::InvalidArgument;
    if (s.backend == nullptr && free == nullptr)
      free = &s;
  }
  if (free == nullptr)
    return Error::OutOfResources;
  std::strcpy(free->id, id);
  free->backend = backend;
  return Error::Ok;
}

Backend *findBackend(const char *id) {
  if (id == nullptr)
    return nullptr;
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (Slot &s : r.slots)
    if (s.backend != nullptr && std::strcmp(s.id, id) == 0)
      return s.backend;
  return nullptr;
}

Error unregisterBackend(const char *id) {
  if (id == nullptr)
    return Error::InvalidArgument;
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (Slot &s : r.slots) {
    if (s.backend != nullptr && std::strcmp(s.id, id) == 0) {
      s.backend = nullptr;
      s.id[0] = '\0';
      return Error::Ok;
    }
  }
  return Error::NotFound;
}

void recordBackendInit(const char *id) {
  if (!validId(id))
    return;
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  Slot *free = nullptr;
  for (Slot &s : r.counters) {
    if (s.id[0] != '\0' && std::strcmp(s.id, id) == 0) {
      ++s.initCount;
      return;
    }
    if (s.id[0] == '\0' && free == nullptr)
      free = &s;
  }
  if (free != nullptr) {
    std::strcpy(free->id, id);
    free->initCount = 1;
  }
}

size_t backendInitCount(const char *id) {
  if (id == nullptr)
    return 0;
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (Slot &s : r.counters)
    if (s.id[0] != '\0' && std::strcmp(s.id, id) == 0)
      return s.initCount;
  return 0;
}

void resetBackendInitCounts() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (Slot &s : r.counters) {
    s.id[0] = '\0';
    s.initCount = 0;
  }
}

} // namespace ptec::rt
