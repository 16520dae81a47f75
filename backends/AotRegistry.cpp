//===- AotRegistry.cpp - ahead-of-time backends by name -------------------===//

#include "backends/AotBackend.h"
#include "backends/cachetest/aot/CacheTestAot.h"
#include "backends/demo/aot/DemoAot.h"
#if PTEC_HAVE_XNNPACK_AOT
#include "backends/xnnpack/aot/XnnpackAot.h"
#endif

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace ptec::aot {
namespace {

struct Entry {
  std::string id;
  AotBackendFactory factory;
};

struct Registry {
  std::mutex mutex;
  std::map<std::string, Entry, std::less<>> byName;
};

bool addLocked(Registry &r, llvm::StringRef name, llvm::StringRef id,
               AotBackendFactory factory) {
  return r.byName.emplace(name.str(), Entry{id.str(), std::move(factory)}).second;
}

/// The registry, with the built-in backends already in it.
Registry &registry() {
  static Registry *r = [] {
    auto *reg = new Registry;
    addLocked(*reg, demo::kDemoAotName, demo::kDemoAotId, demo::createDemoAotBackend);
    addLocked(*reg, cachetest::kCacheTestAotName, cachetest::kCacheTestAotId,
              cachetest::createCacheTestAotBackend);
#if PTEC_HAVE_XNNPACK_AOT
    addLocked(*reg, xnnpack::kXnnpackAotName, xnnpack::kXnnpackAotId,
              xnnpack::createXnnpackAotBackend);
#endif
    return reg;
  }();
  return *r;
}

/// Calls the factory without the registry lock held: a backend may build
/// others (e.g. wrap the demo) from its factory or constructor.
std::unique_ptr<AotBackend> create(AotBackendFactory factory, llvm::StringRef options,
                                   std::string *error) {
  std::string local;
  return factory(options, error ? error : &local);
}

} // namespace

bool registerAotBackend(llvm::StringRef name, llvm::StringRef id,
                        AotBackendFactory factory) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return addLocked(r, name, id, std::move(factory));
}

std::unique_ptr<AotBackend> createAotBackend(llvm::StringRef spec, std::string *error) {
  auto [name, options] = spec.split(':');
  Registry &r = registry();
  AotBackendFactory factory;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.byName.find(name);
    if (it == r.byName.end()) {
      if (error) {
        *error = "unknown backend '" + name.str() + "'; known:";
        for (const auto &[known, entry] : r.byName)
          *error += " " + known;
      }
      return nullptr;
    }
    factory = it->second.factory;
  }
  return create(factory, options, error);
}

std::unique_ptr<AotBackend> createAotBackendForId(llvm::StringRef id,
                                                  llvm::StringRef options,
                                                  std::string *error) {
  Registry &r = registry();
  AotBackendFactory factory;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const auto &[name, entry] : r.byName)
      if (entry.id == id) {
        factory = entry.factory;
        break;
      }
  }
  if (factory)
    return create(factory, options, error);
  if (error)
    *error = "no ahead-of-time backend has the runtime id '" + id.str() + "'";
  return nullptr;
}

std::vector<std::string> registeredAotBackends() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto &[name, entry] : r.byName)
    names.push_back(name);
  return names;
}

} // namespace ptec::aot
