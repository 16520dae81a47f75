#include "passes/planning/LifetimeIndex.h"

#include <algorithm>

namespace ptec::planning {

LifetimeIndex::LifetimeIndex(int64_t lo, int64_t hi, size_t numIds) : seen_(numIds, 0) {
  Node root;
  root.lo = lo;
  root.hi = std::max(lo, hi);
  nodes_.push_back(std::move(root));
}

int32_t LifetimeIndex::child(int32_t n, int side) {
  if (nodes_[n].kid[side] >= 0)
    return nodes_[n].kid[side];
  int64_t lo = nodes_[n].lo, hi = nodes_[n].hi, mid = lo + (hi - lo) / 2;
  Node c;
  c.lo = side == 0 ? lo : mid + 1;
  c.hi = side == 0 ? mid : hi;
  nodes_.push_back(std::move(c)); // may move nodes_: index, not reference
  nodes_[n].kid[side] = static_cast<int32_t>(nodes_.size() - 1);
  return nodes_[n].kid[side];
}

void LifetimeIndex::insert(uint32_t id, int64_t first, int64_t last, int64_t top) {
  insertAt(0, id, first, last, top);
}

void LifetimeIndex::insertAt(int32_t n, uint32_t id, int64_t first, int64_t last,
                             int64_t top) {
  nodes_[n].subTop = std::max(nodes_[n].subTop, top);
  if (first <= nodes_[n].lo && nodes_[n].hi <= last) {
    entries_.push_back({id, nodes_[n].ids});
    nodes_[n].ids = static_cast<int32_t>(entries_.size() - 1);
    nodes_[n].top = std::max(nodes_[n].top, top);
    return;
  }
  int64_t mid = nodes_[n].lo + (nodes_[n].hi - nodes_[n].lo) / 2;
  if (first <= mid)
    insertAt(child(n, 0), id, first, last, top);
  if (last > mid)
    insertAt(child(n, 1), id, first, last, top);
}

void LifetimeIndex::collect(int64_t a, int64_t b, std::vector<uint32_t> &out) {
  if (++query_ == 0) { // stamps wrapped: start over
    std::fill(seen_.begin(), seen_.end(), 0);
    query_ = 1;
  }
  collectAt(0, a, b, out);
}

void LifetimeIndex::collectAt(int32_t n, int64_t a, int64_t b, std::vector<uint32_t> &out) {
  if (n < 0)
    return;
  const Node &node = nodes_[n];
  if (node.subTop < 0 || node.hi < a || b < node.lo)
    return;
  // Every lifetime stored here covers [lo, hi], which meets [a, b].
  for (int32_t e = node.ids; e >= 0; e = entries_[e].next) {
    uint32_t id = entries_[e].id;
    if (seen_[id] != query_) {
      seen_[id] = query_;
      out.push_back(id);
    }
  }
  collectAt(node.kid[0], a, b, out);
  collectAt(node.kid[1], a, b, out);
}

int64_t LifetimeIndex::maxTop(int64_t a, int64_t b) const { return maxTopAt(0, a, b); }

int64_t LifetimeIndex::maxTopAt(int32_t n, int64_t a, int64_t b) const {
  if (n < 0)
    return -1;
  const Node &node = nodes_[n];
  if (node.subTop < 0 || node.hi < a || b < node.lo)
    return -1;
  // Inside [a, b]: everything stored below overlaps it.
  if (a <= node.lo && node.hi <= b)
    return node.subTop;
  return std::max({node.top, maxTopAt(node.kid[0], a, b), maxTopAt(node.kid[1], a, b)});
}

} // namespace ptec::planning
