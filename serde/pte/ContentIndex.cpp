#include "serde/pte/ContentIndex.h"

#include "serde/io/MappedFile.h"

#include <algorithm>
#include <cstring>

namespace ptec::pte {

// Four independent multiply-rotate lanes over 8-byte words: only speed
// matters (equal hashes are confirmed with memcmp).
uint64_t contentHash(const uint8_t *d, size_t n) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  constexpr size_t kSlice = size_t(32) << 20;
  uint64_t lane[4] = {n, n ^ 0x243F6A8885A308D3ull, n ^ 0x13198A2E03707344ull,
                      n ^ 0xA4093822299F31D0ull};
  auto mix = [](uint64_t h, uint64_t w) {
    h ^= w * kMul;
    return ((h << 31) | (h >> 33)) * kMul;
  };
  for (size_t base = 0; base < n; base += kSlice) {
    const size_t end = std::min(n, base + kSlice);
    size_t i = base;
    for (; i + 32 <= end; i += 32)
      for (int k = 0; k < 4; ++k) {
        uint64_t w;
        std::memcpy(&w, d + i + 8 * k, 8);
        lane[k] = mix(lane[k], w);
      }
    for (; i < end; ++i)
      lane[i & 3] = mix(lane[i & 3], d[i]);
    io::releasePages(d + base, end - base);
  }
  uint64_t h = lane[0] ^ mix(lane[1], lane[2]) ^ mix(lane[3], n);
  return h ^ (h >> 29);
}

namespace {
// The size and up to 65 words spread over the bytes (all of them when small).
uint64_t sampleKey(const uint8_t *d, size_t n) {
  constexpr size_t kWhole = 4096, kSamples = 64;
  if (n <= kWhole)
    return contentHash(d, n);
  uint64_t words[kSamples + 1];
  for (size_t k = 0; k < kSamples; ++k)
    std::memcpy(&words[k], d + (n - 8) / (kSamples - 1) * k, 8);
  std::memcpy(&words[kSamples], d + n - 8, 8);
  uint64_t h = contentHash(reinterpret_cast<const uint8_t *>(words), sizeof words) ^ n;
  io::releasePages(d, n);
  return h;
}
} // namespace

uint32_t ContentIndex::intern(const uint8_t *d, size_t n, uint32_t newId) {
  const uint64_t key = sampleKey(d, n);
  uint64_t full = 0;
  auto [lo, hi] = byKey_.equal_range(key);
  for (auto it = lo; it != hi; ++it) {
    Entry &e = entries_[it->second];
    if (e.size != n)
      continue;
    if (e.data == d || n == 0)
      return e.id;  // the same bytes lent twice (tied weights)
    if (!full)
      full = contentHash(d, n) | 1;
    if (!e.fullHash)
      e.fullHash = contentHash(e.data, e.size) | 1;
    if (e.fullHash != full)
      continue;
    bool same = std::memcmp(e.data, d, n) == 0;
    io::releasePages(e.data, e.size);
    io::releasePages(d, n);
    if (same)
      return e.id;
  }
  byKey_.emplace(key, entries_.size());
  entries_.push_back(Entry{d, n, newId, full});
  return newId;
}

} // namespace ptec::pte
