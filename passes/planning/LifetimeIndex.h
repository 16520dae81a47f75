// LifetimeIndex: the lifetimes [first, last] of placed tensors, indexed by
// time so that the planners ask "which placed tensors are live together with
// this one" in O(log T + answer) instead of scanning every placed tensor (a
// 100k-op chain used to spend half a minute there). A segment tree over the
// time range, nodes made on demand; each lifetime is stored in the O(log T)
// nodes that exactly cover it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ptec::planning {

class LifetimeIndex {
public:
  /// Times are in [lo, hi]; ids are below `numIds` (0 when collect() is
  /// not used: only maxTop() queries).
  LifetimeIndex(int64_t lo, int64_t hi, size_t numIds);

  /// Stores lifetime [first, last] of tensor `id`, whose bytes end at `top`
  /// (top >= 0).
  void insert(uint32_t id, int64_t first, int64_t last, int64_t top);
  /// Appends the ids of stored lifetimes that overlap [a, b], each once.
  void collect(int64_t a, int64_t b, std::vector<uint32_t> &out);
  /// The largest `top` among stored lifetimes overlapping [a, b]; -1 if none.
  int64_t maxTop(int64_t a, int64_t b) const;

private:
  struct Node {
    int64_t lo, hi;
    int32_t kid[2] = {-1, -1};
    int32_t ids = -1;    // list (in entries_) of lifetimes covering [lo, hi]
                         // but not the parent's range
    int64_t top = -1;    // max top of those
    int64_t subTop = -1; // max top in the subtree; -1: nothing stored
  };
  struct Entry {
    uint32_t id;
    int32_t next;
  };
  int32_t child(int32_t n, int side);
  void insertAt(int32_t n, uint32_t id, int64_t first, int64_t last, int64_t top);
  void collectAt(int32_t n, int64_t a, int64_t b, std::vector<uint32_t> &out);
  int64_t maxTopAt(int32_t n, int64_t a, int64_t b) const;

  std::vector<Node> nodes_;
  std::vector<Entry> entries_; // one pool for every node's list: no allocation per node
  std::vector<uint32_t> seen_; // query stamp per id (dedupe in collect)
  uint32_t query_ = 0;
};

} // namespace ptec::planning
