// The signature header a backend writes ahead of time at the start of a blob
// whose runtime context is cached (see docs/backend-context-cache.md):
//
//   offset  size  field
//        0     4  magic "PTCX"
//        4     4  header version, uint32 little-endian (currently 1)
//        8     8  context signature, uint64 little-endian
//       16     8  payload size in bytes, uint64 little-endian
//       24     -  payload (backend-defined); padding after it is ignored
//
// The signature names the context the payload builds: equal signatures must
// mean interchangeable contexts. The AOT writer computes it over everything
// that shapes the context (weights and configuration); fnv1a64() over the
// payload is the default. The runtime trusts it and does not rehash, so a
// cache hit costs no pass over the weights.
// Header-only so the ahead-of-time half can use it without the runtime.
#pragma once

#include "runtime/core/Error.h"
#include "runtime/core/Result.h"

#include <cstddef>
#include <cstdint>

namespace ptec::rt::cache {

constexpr char kContextBlobMagic[4] = {'P', 'T', 'C', 'X'};
constexpr uint32_t kContextBlobHeaderVersion = 1;
constexpr size_t kContextBlobHeaderSize = 24;

struct ContextBlobHeader {
  uint64_t signature = 0;
  const uint8_t *payload = nullptr;
  size_t payloadSize = 0;
};

namespace detail {
inline uint64_t loadLE(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}
inline void storeLE(uint8_t *p, uint64_t v, int n) {
  for (int i = 0; i < n; ++i)
    p[i] = static_cast<uint8_t>(v >> (8 * i));
}
} // namespace detail

/// FNV-1a, 64 bit: the default signature of a payload.
inline uint64_t fnv1a64(const void *data, size_t size) {
  const uint8_t *p = static_cast<const uint8_t *>(data);
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

/// Writes the 24 header bytes.
inline void writeContextBlobHeader(uint64_t signature, uint64_t payloadSize,
                                   uint8_t out[kContextBlobHeaderSize]) {
  for (int i = 0; i < 4; ++i)
    out[i] = static_cast<uint8_t>(kContextBlobMagic[i]);
  detail::storeLE(out + 4, kContextBlobHeaderVersion, 4);
  detail::storeLE(out + 8, signature, 8);
  detail::storeLE(out + 16, payloadSize, 8);
}

/// Reads and checks the header. InvalidArgument for a short blob, a wrong
/// magic or a payload that runs past the blob; DelegateInvalidCompatibility
/// for another header version.
inline Result<ContextBlobHeader> parseContextBlobHeader(const void *blob,
                                                        size_t size) {
  if (blob == nullptr || size < kContextBlobHeaderSize)
    return Error::InvalidArgument;
  const uint8_t *p = static_cast<const uint8_t *>(blob);
  for (int i = 0; i < 4; ++i)
    if (p[i] != static_cast<uint8_t>(kContextBlobMagic[i]))
      return Error::InvalidArgument;
  if (detail::loadLE(p + 4, 4) != kContextBlobHeaderVersion)
    return Error::DelegateInvalidCompatibility;
  uint64_t payloadSize = detail::loadLE(p + 16, 8);
  if (payloadSize > size - kContextBlobHeaderSize)
    return Error::InvalidArgument;
  ContextBlobHeader h;
  h.signature = detail::loadLE(p + 8, 8);
  h.payload = p + kContextBlobHeaderSize;
  h.payloadSize = static_cast<size_t>(payloadSize);
  return h;
}

} // namespace ptec::rt::cache
