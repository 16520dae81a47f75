#include "test/unit/runtime/RuntimeTestHelpers.h"
#include "test/unit/runtime/ModuleTestUtil.h"

#include <catch2/catch.hpp>

namespace ptec::rt::test {

std::unique_ptr<Module> loadModule(const std::vector<uint8_t> &bytes) {
  return loadModuleWith(bytes, testOptions());
}

Error loadMethodError(const std::vector<uint8_t> &bytes, const char *name, std::string &detail) {
  auto m = Module::fromBytes(bytes.data(), bytes.size(), testOptions(), &detail);
  if (!m.ok())
    return m.error();
  Error e = m.get()->loadMethod(name);
  detail = m.get()->errorDetail();
  return e;
}

} // namespace ptec::rt::test
