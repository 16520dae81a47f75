// libFuzzer target for the .ptd reader (runtime/executor/FlatTensorData):
// any bytes are parsed as FlatTensor named data and every key's bytes read
// through get(). Any error return is fine; a crash, hang, leak or sanitizer
// report is a bug. Seeds: test/fuzz/corpus/ptd (aot-compile
// --external-weights output).
#include "runtime/executor/FlatTensorData.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string detail;
  auto ptd = ptec::rt::FlatTensorData::fromBuffer(data, size, &detail);
  if (!ptd.ok())
    return 0;
  // Touch every byte of a few keys the seeds use, and a missing one.
  unsigned sum = 0;
  for (const char *key : {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "absent"}) {
    auto span = ptd.get()->get(key);
    if (span.ok())
      for (size_t i = 0; i < span->size(); ++i)
        sum += span->data()[i];
  }
  return static_cast<int>(sum & 0);
}
