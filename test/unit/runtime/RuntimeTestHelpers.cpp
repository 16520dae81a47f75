#include "test/unit/runtime/RuntimeTestHelpers.h"
#include "test/unit/runtime/ModuleTestUtil.h"

#include <catch2/catch.hpp>

namespace ptec::rt::test {

std::unique_ptr<Module> loadModule(const std::vector<uint8_t> &bytes) {
  return loadModuleWith(bytes, testOptions());
}

std::vector<float> runWithInput(Module &m, const char *method, std::vector<int64_t> sizes,
                                std::vector<float> values) {
  HostTensor x(std::move(sizes), std::move(values));
  REQUIRE(m.setInput(method, 0, x.t) == Error::Ok);
  REQUIRE(m.execute(method) == Error::Ok);
  return floatsOf(m.output(method, 0));
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
