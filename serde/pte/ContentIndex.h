// Finding equal byte strings among many large ones without reading them all.
//
// The writers deduplicate constants, delegate blobs and .ptd segments by
// content. Weights run to GiB and may be lent from a mapped .pt2, so the
// index files each entry under a sampled key (its size and a few words
// spread over it: a few pages of a large weight, not the weight). Only when
// two entries share a key are their full hashes computed (once each, cached)
// and, when those agree too, the bytes compared. Pages of a mapped file read
// on the way are given back (io::releasePages). Results depend only on
// content, never on addresses or hash values' order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ptec::pte {

class ContentIndex {
public:
  ContentIndex() = default;
  // Holds pointers to the bytes of its owner's entries: copying the owner
  // would leave the copy's index pointing into the original. Moving is fine
  // (a moved vector keeps its buffer).
  ContentIndex(const ContentIndex &) = delete;
  ContentIndex &operator=(const ContentIndex &) = delete;
  ContentIndex(ContentIndex &&) = default;
  ContentIndex &operator=(ContentIndex &&) = default;

  /// The id of an entry added earlier with the same bytes, or else adds
  /// [d, d + n) as `newId` (ids need not be dense) and returns newId. The
  /// bytes must stay at `d` as long as the index is used.
  uint32_t intern(const uint8_t *d, size_t n, uint32_t newId);

private:
  struct Entry {
    const uint8_t *data;
    size_t size;
    uint32_t id;
    uint64_t fullHash;  // 0 until needed
  };
  std::unordered_multimap<uint64_t, size_t> byKey_;  // sampled key -> entries_ index
  std::vector<Entry> entries_;
};

/// Hash of all of [d, d + n) (several GB/s; gives a mapping's pages back as
/// it goes).
uint64_t contentHash(const uint8_t *d, size_t n);

} // namespace ptec::pte
