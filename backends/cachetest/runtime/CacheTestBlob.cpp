// Test helper: writes a PtecCacheTestBackend blob (what the AOT half would).
#include "backends/cachetest/runtime/CacheTestBackend.h"

#include "runtime/backend/cache/ContextBlobHeader.h"

#include <cstring>

namespace ptec::cachetest {

namespace {
void putU32(std::vector<uint8_t> &out, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void putF32(std::vector<uint8_t> &out, float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  putU32(out, bits);
}
} // namespace

std::vector<uint8_t> makeCacheTestBlob(uint64_t signature,
                                       const std::vector<float> &weight,
                                       const std::vector<float> &bias,
                                       uint32_t inFeatures,
                                       uint32_t workspaceBytes) {
  const size_t n = bias.size();
  if (n == 0 || inFeatures == 0 || n > UINT32_MAX / 4 ||
      weight.size() != n * inFeatures)
    return {};
  if (workspaceBytes == 0)
    workspaceBytes = static_cast<uint32_t>(4 * n);
  std::vector<uint8_t> out(rt::cache::kContextBlobHeaderSize);
  putU32(out, static_cast<uint32_t>(n));
  putU32(out, inFeatures);
  putU32(out, workspaceBytes);
  putU32(out, 0);
  for (float w : weight)
    putF32(out, w);
  for (float b : bias)
    putF32(out, b);
  rt::cache::writeContextBlobHeader(
      signature, out.size() - rt::cache::kContextBlobHeaderSize, out.data());
  return out;
}

} // namespace ptec::cachetest
