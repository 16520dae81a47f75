#include "passes/planning/MemoryPlanner.h"
#include "passes/planning/LifetimeIndex.h"

#include <algorithm>
#include <climits>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

namespace ptec::planning {
namespace {

constexpr int64_t kMinAlign = 16;

int64_t alignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }
int64_t plannedSize(const PlanRequest &r) {
  return alignUp(std::max<int64_t>(r.size, 0), kMinAlign);
}
int64_t plannedAlign(const PlanRequest &r) {
  return std::max<int64_t>(r.alignment, kMinAlign);
}
bool livesOverlap(const PlanRequest &a, const PlanRequest &b) {
  return a.firstUse <= b.lastUse && b.firstUse <= a.lastUse;
}

// Request indices grouped by arena, in index order.
std::map<int32_t, std::vector<size_t>>
byArena(const std::vector<PlanRequest> &reqs) {
  std::map<int32_t, std::vector<size_t>> m;
  for (size_t i = 0; i < reqs.size(); ++i)
    m[reqs[i].memId].push_back(i);
  return m;
}

void sortLargestFirst(const std::vector<PlanRequest> &reqs,
                      std::vector<size_t> &idx) {
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    return plannedSize(reqs[a]) > plannedSize(reqs[b]);
  });
}

/// A LifetimeIndex over the lifetimes of `idx`.
LifetimeIndex indexFor(const std::vector<PlanRequest> &reqs, const std::vector<size_t> &idx,
                       bool collects) {
  int64_t lo = 0, hi = 0;
  for (size_t k = 0; k < idx.size(); ++k) {
    lo = k ? std::min(lo, reqs[idx[k]].firstUse) : reqs[idx[k]].firstUse;
    hi = k ? std::max(hi, reqs[idx[k]].lastUse) : reqs[idx[k]].lastUse;
  }
  return LifetimeIndex(lo, hi, collects ? reqs.size() : 0);
}

/// Merges [offset, end) into `ranges` (start -> end, disjoint).
void mergeRange(std::map<int64_t, int64_t> &ranges, int64_t offset, int64_t end) {
  auto at = ranges.upper_bound(offset);
  if (at != ranges.begin() && std::prev(at)->second >= offset)
    --at;
  while (at != ranges.end() && at->first <= end) {
    offset = std::min(offset, at->first);
    end = std::max(end, at->second);
    at = ranges.erase(at);
  }
  ranges.emplace(offset, end);
}

/// Placed requests, for the gap searches. The searches depend only on the
/// union of the busy byte ranges (a range that starts below the cursor
/// leaves no gap), which is what makes the two shortcuts here exact:
/// requests live over the whole time range (state that lives as long as the
/// method) overlap every request, so they are kept as the merged ranges
/// they cover instead of being collected for every query; and a query that
/// spans the whole range overlaps every placed request, so it gets the
/// merged ranges of all of them. Queries then cost the requests live around
/// them plus a few ranges, not every state or every placed request.
class Placed {
public:
  Placed(const std::vector<PlanRequest> &reqs, const std::vector<size_t> &order)
      : index_(indexFor(reqs, order, /*collects=*/true)) {
    for (size_t k = 0; k < order.size(); ++k) {
      lo_ = k ? std::min(lo_, reqs[order[k]].firstUse) : reqs[order[k]].firstUse;
      hi_ = k ? std::max(hi_, reqs[order[k]].lastUse) : reqs[order[k]].lastUse;
    }
  }

  void insert(uint32_t id, const PlanRequest &r, int64_t offset, int64_t end) {
    mergeRange(all_, offset, end);
    if (spansAll(r))
      mergeRange(whole_, offset, end);
    else
      index_.insert(id, r.firstUse, r.lastUse, end);
  }

  /// The byte ranges [offset, end) of placed requests whose lifetimes
  /// overlap `r` (merged where that changes no search), sorted: where `r`
  /// may not go.
  void busy(const std::vector<PlanRequest> &reqs, const std::vector<int64_t> &offsets,
            const PlanRequest &r, std::vector<uint32_t> &ids,
            std::vector<std::pair<int64_t, int64_t>> &out) {
    ids.clear();
    out.clear();
    if (spansAll(r)) {
      out.assign(all_.begin(), all_.end());
      return;
    }
    index_.collect(r.firstUse, r.lastUse, ids);
    for (uint32_t p : ids)
      out.emplace_back(offsets[p], offsets[p] + plannedSize(reqs[p]));
    std::sort(out.begin(), out.end());
    if (whole_.empty())
      return;
    size_t local = out.size();
    out.insert(out.end(), whole_.begin(), whole_.end());
    std::inplace_merge(out.begin(), out.begin() + local, out.end());
  }

private:
  bool spansAll(const PlanRequest &r) const { return r.firstUse <= lo_ && r.lastUse >= hi_; }

  LifetimeIndex index_;
  int64_t lo_ = 0, hi_ = 0;
  std::map<int64_t, int64_t> whole_, all_; // merged byte ranges
};

using Ranges = std::vector<std::pair<int64_t, int64_t>>; // [offset, end), sorted

// Places each request of `order` in turn at the offset `choose(size, align,
// busy)` picks, given the ranges of the placed requests whose lifetimes
// overlap it. Returns the arena's end.
template <typename Choose>
int64_t placeInOrder(const std::vector<PlanRequest> &reqs, const std::vector<size_t> &order,
                     std::vector<int64_t> &offsets, Choose choose) {
  Placed placed(reqs, order);
  Ranges busy;
  std::vector<uint32_t> ids;
  int64_t arenaEnd = 0;
  for (size_t i : order) {
    const PlanRequest &r = reqs[i];
    int64_t size = plannedSize(r), align = plannedAlign(r);
    if (size == 0) {
      offsets[i] = 0;
      continue;
    }
    placed.busy(reqs, offsets, r, ids, busy);
    const int64_t chosen = choose(size, align, busy);
    offsets[i] = chosen;
    arenaEnd = std::max(arenaEnd, chosen + size);
    placed.insert(static_cast<uint32_t>(i), r, chosen, chosen + size);
  }
  return arenaEnd;
}

// Places requests one by one, in `order`, below/between already placed
// lifetime-overlapping requests. bestFit picks the smallest fitting gap,
// otherwise the lowest one.
int64_t placeInGaps(const std::vector<PlanRequest> &reqs,
                    const std::vector<size_t> &order, bool bestFit,
                    std::vector<int64_t> &offsets) {
  return placeInOrder(reqs, order, offsets, [&](int64_t size, int64_t align, Ranges &busy) {
    int64_t cursor = 0, chosen = -1, chosenGap = 0;
    for (const auto &[start, end] : busy) {
      int64_t at = alignUp(cursor, align);
      if (at + size <= start) {
        int64_t gap = start - at;
        if (chosen < 0 || (bestFit && gap < chosenGap)) {
          chosen = at;
          chosenGap = gap;
          if (!bestFit)
            break;
        }
      }
      cursor = std::max(cursor, end);
    }
    return chosen < 0 ? alignUp(cursor, align) : chosen;
  });
}

// One arena with the upstream greedy shared-object scheme (section 6).
int64_t placeGreedy(const std::vector<PlanRequest> &reqs,
                    std::vector<size_t> order, std::vector<int64_t> &offsets) {
  sortLargestFirst(reqs, order);
  struct SharedObject {
    int64_t size = 0, align = kMinAlign;
    LifetimeIndex members; // tops are inner offsets + sizes
    int64_t wholeTop = -1; // the highest top of a member live over the whole range
  };
  std::vector<SharedObject> objects;
  std::vector<size_t> objectOf(reqs.size(), 0);
  const LifetimeIndex empty = indexFor(reqs, order, /*collects=*/false);
  int64_t lo = 0, hi = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    lo = k ? std::min(lo, reqs[order[k]].firstUse) : reqs[order[k]].firstUse;
    hi = k ? std::max(hi, reqs[order[k]].lastUse) : reqs[order[k]].lastUse;
  }
  // Objects that may still take a tensor of non-zero size, in order. One
  // whose top is held by a member live over the whole range (state) never
  // can: both tests below fail for it forever, so it leaves the scans.
  std::set<size_t> open;
  std::vector<size_t> all;
  for (size_t i : order) {
    const PlanRequest &r = reqs[i];
    int64_t size = plannedSize(r), align = plannedAlign(r);
    int64_t pick = -1, inner = 0;
    auto scan = [&](auto &&candidates) {
      // 1. First object whose members are all lifetime-disjoint: offset 0.
      for (size_t o : candidates)
        if (objects[o].members.maxTop(r.firstUse, r.lastUse) < 0) {
          pick = static_cast<int64_t>(o), inner = 0;
          return;
        }
      // 2. First object with room above its highest overlapping member.
      for (size_t o : candidates) {
        int64_t top = std::max<int64_t>(0, objects[o].members.maxTop(r.firstUse, r.lastUse));
        int64_t at = alignUp(top, align);
        if (at + size <= objects[o].size) {
          pick = static_cast<int64_t>(o), inner = at;
          return;
        }
      }
    };
    if (size > 0) {
      scan(open);
    } else {
      all.resize(objects.size());
      std::iota(all.begin(), all.end(), size_t{0});
      scan(all);
    }
    // 3. A new object of this tensor's size.
    if (pick < 0) {
      objects.push_back({0, kMinAlign, empty});
      pick = static_cast<int64_t>(objects.size() - 1);
      open.insert(objects.size() - 1);
    }
    SharedObject &obj = objects[static_cast<size_t>(pick)];
    obj.size = std::max(obj.size, inner + size);
    obj.align = std::max(obj.align, align);
    obj.members.insert(static_cast<uint32_t>(i), r.firstUse, r.lastUse, inner + size);
    obj.wholeTop = r.firstUse <= lo && r.lastUse >= hi ? std::max(obj.wholeTop, inner + size)
                                                       : obj.wholeTop;
    if (obj.wholeTop >= obj.size)
      open.erase(static_cast<size_t>(pick));
    objectOf[i] = static_cast<size_t>(pick);
    offsets[i] = inner;
  }
  // Objects back to back; each starts at its strictest member alignment.
  int64_t cursor = 0;
  std::vector<int64_t> base(objects.size(), 0);
  for (size_t o = 0; o < objects.size(); ++o) {
    base[o] = alignUp(cursor, objects[o].align);
    cursor = base[o] + objects[o].size;
  }
  for (size_t i : order)
    offsets[i] += base[objectOf[i]];
  return cursor;
}

// Tensors of the busiest instruction first (largest first within it), then
// the next busiest, each into its best-fitting gap: the peaks decide the
// layout, and everything else fills in around them.
void orderByBreadth(const std::vector<PlanRequest> &reqs,
                    std::vector<size_t> &idx) {
  // Live bytes at each change point (a time where some lifetime starts or
  // has just ended), in time order.
  std::map<int64_t, int64_t> delta;
  for (size_t i : idx) {
    delta[reqs[i].firstUse] += plannedSize(reqs[i]);
    delta[reqs[i].lastUse + 1] -= plannedSize(reqs[i]);
  }
  std::vector<int64_t> times, live;
  int64_t running = 0;
  for (auto &[t, d] : delta) {
    running += d;
    times.push_back(t);
    live.push_back(running);
  }
  // Rank of each change point, busiest first (earlier first among equals).
  std::vector<size_t> byLive(times.size());
  std::iota(byLive.begin(), byLive.end(), 0);
  std::stable_sort(byLive.begin(), byLive.end(),
                   [&](size_t a, size_t b) { return live[a] > live[b]; });
  std::vector<int64_t> rank(times.size());
  for (size_t r = 0; r < byLive.size(); ++r)
    rank[byLive[r]] = static_cast<int64_t>(r);
  // Each tensor goes with the best-ranked change point in its lifetime
  // (a range minimum, from a sparse table): busiest instant first, largest
  // first within it.
  std::vector<std::vector<int64_t>> table{rank};
  for (size_t w = 1; 2 * w <= rank.size(); w *= 2) {
    const std::vector<int64_t> &prev = table.back();
    std::vector<int64_t> next(rank.size() - 2 * w + 1);
    for (size_t k = 0; k < next.size(); ++k)
      next[k] = std::min(prev[k], prev[k + w]);
    table.push_back(std::move(next));
  }
  auto rangeMin = [&](size_t lo, size_t hi) { // inclusive, lo <= hi
    size_t level = 0;
    while ((size_t{2} << level) <= hi - lo + 1)
      ++level;
    return std::min(table[level][lo], table[level][hi + 1 - (size_t{1} << level)]);
  };
  std::vector<size_t> bySize = idx;
  sortLargestFirst(reqs, bySize);
  std::vector<std::tuple<int64_t, size_t, size_t>> keyed; // rank, size order, index
  for (size_t k = 0; k < bySize.size(); ++k) {
    const PlanRequest &r = reqs[bySize[k]];
    size_t lo = std::lower_bound(times.begin(), times.end(), r.firstUse) - times.begin();
    size_t hi = std::upper_bound(times.begin(), times.end(), r.lastUse) - times.begin();
    int64_t key = lo < hi ? rangeMin(lo, hi - 1) : INT64_MAX;
    keyed.emplace_back(key, k, bySize[k]);
  }
  std::sort(keyed.begin(), keyed.end());
  idx.clear();
  for (const auto &entry : keyed)
    idx.push_back(std::get<2>(entry));
}

// In first-use order, under a target arena size (starting at the lower
// bound): each tensor goes to the lowest or the highest place that fits,
// preferring one flush against an edge of the arena (0 or the target) over
// one flush against a neighbour. On a chain this alternates bottom and top,
// which is optimal; the target grows only when nothing fits.
int64_t placeTwoSided(const std::vector<PlanRequest> &reqs,
                      std::vector<size_t> order, int64_t target,
                      std::vector<int64_t> &offsets) {
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return reqs[a].firstUse < reqs[b].firstUse;
  });
  return placeInOrder(reqs, order, offsets, [&](int64_t size, int64_t align, Ranges &busy) {
    busy.emplace_back(std::max(target, int64_t{0}), INT64_MAX); // the ceiling
    int64_t low = -1, high = -1, cursor = 0;
    bool lowAtEdge = false, highAtEdge = false;
    for (size_t k = 0; k < busy.size(); ++k) {
      int64_t start = busy[k].first;
      int64_t at = alignUp(cursor, align);
      if (at + size <= start) {
        if (low < 0) {
          low = at;
          lowAtEdge = cursor == 0;
        }
        int64_t top = (start - size) / align * align;
        if (top >= at) {
          high = top;
          highAtEdge = k + 1 == busy.size() && top + size == target;
        }
      }
      cursor = std::max(cursor, busy[k].second == INT64_MAX ? cursor : busy[k].second);
    }
    if (low < 0) {
      // Nothing fits under the target: on top of everything it overlaps.
      int64_t top = 0;
      for (size_t k = 0; k + 1 < busy.size(); ++k)
        top = std::max(top, busy[k].second);
      const int64_t chosen = alignUp(top, align);
      target = std::max(target, chosen + size);
      return chosen;
    }
    return highAtEdge && !lowAtEdge ? high : low;
  });
}

// Peak live bytes of one arena's requests.
int64_t arenaLowerBound(const std::vector<PlanRequest> &reqs,
                        const std::vector<size_t> &idx) {
  std::vector<PlanRequest> sub;
  for (size_t i : idx)
    sub.push_back(reqs[i]);
  return peakLiveLowerBound(sub);
}

enum class Algo { Greedy, BestFit, FirstFit, Breadth, TwoSided };

const char *algoName(Algo a) {
  switch (a) {
  case Algo::Greedy:
    return "greedy-by-size";
  case Algo::BestFit:
    return "best-fit";
  case Algo::FirstFit:
    return "in-order-first-fit";
  case Algo::Breadth:
    return "greedy-by-breadth";
  case Algo::TwoSided:
    return "two-sided";
  }
  return "?";
}

PlanResult runPlanner(const std::vector<PlanRequest> &reqs, Algo algo) {
  PlanResult res;
  res.algorithm = algoName(algo);
  res.offsets.assign(reqs.size(), -1);
  res.arenaSizes.assign(2, 0);
  if (!validateRequests(reqs, &res.error))
    return res;
  res.peakLiveLowerBound = peakLiveLowerBound(reqs);
  for (auto &[memId, idx] : byArena(reqs)) {
    std::vector<size_t> order = idx;
    int64_t size = 0;
    switch (algo) {
    case Algo::Greedy:
      size = placeGreedy(reqs, order, res.offsets);
      break;
    case Algo::BestFit:
      sortLargestFirst(reqs, order);
      size = placeInGaps(reqs, order, /*bestFit=*/true, res.offsets);
      break;
    case Algo::FirstFit:
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return reqs[a].firstUse < reqs[b].firstUse;
      });
      size = placeInGaps(reqs, order, /*bestFit=*/false, res.offsets);
      break;
    case Algo::Breadth:
      orderByBreadth(reqs, order);
      size = placeInGaps(reqs, order, /*bestFit=*/true, res.offsets);
      break;
    case Algo::TwoSided:
      size = placeTwoSided(reqs, order, arenaLowerBound(reqs, order),
                           res.offsets);
      break;
    }
    if (res.arenaSizes.size() <= static_cast<size_t>(memId))
      res.arenaSizes.resize(static_cast<size_t>(memId) + 1, 0);
    res.arenaSizes[static_cast<size_t>(memId)] = size;
  }
  return res;
}

} // namespace

int64_t PlanResult::totalSize() const {
  return std::accumulate(arenaSizes.begin(), arenaSizes.end(), int64_t{0});
}

PlanResult planGreedyBySize(const std::vector<PlanRequest> &r) {
  return runPlanner(r, Algo::Greedy);
}
PlanResult planBestFit(const std::vector<PlanRequest> &r) {
  return runPlanner(r, Algo::BestFit);
}
PlanResult planInOrderFirstFit(const std::vector<PlanRequest> &r) {
  return runPlanner(r, Algo::FirstFit);
}

PlanResult planGreedyByBreadth(const std::vector<PlanRequest> &r) {
  return runPlanner(r, Algo::Breadth);
}

PlanResult planTwoSided(const std::vector<PlanRequest> &r) {
  return runPlanner(r, Algo::TwoSided);
}

PlanResult planBest(const std::vector<PlanRequest> &r) {
  PlanResult best = planGreedyBySize(r);
  if (!best.error.empty())
    return best;
  for (Algo a : {Algo::BestFit, Algo::FirstFit, Algo::Breadth, Algo::TwoSided}) {
    PlanResult next = runPlanner(r, a);
    if (next.totalSize() < best.totalSize())
      best = std::move(next);
  }
  return best;
}

int64_t peakLiveLowerBound(const std::vector<PlanRequest> &reqs) {
  int64_t total = 0;
  for (auto &[memId, idx] : byArena(reqs)) {
    (void)memId;
    // (time, delta): a lifetime [f, l] adds at f and ends before l + 1;
    // ends sort before starts at the same time (negative delta first).
    std::vector<std::pair<int64_t, int64_t>> events;
    for (size_t i : idx) {
      int64_t s = plannedSize(reqs[i]);
      if (s == 0 || reqs[i].lastUse < reqs[i].firstUse)
        continue;
      events.emplace_back(reqs[i].firstUse, s);
      events.emplace_back(reqs[i].lastUse + 1, -s);
    }
    std::sort(events.begin(), events.end());
    int64_t live = 0, peak = 0;
    for (const auto &e : events) {
      live += e.second;
      peak = std::max(peak, live);
    }
    total += peak;
  }
  return total;
}

bool validateRequests(const std::vector<PlanRequest> &reqs, std::string *why) {
  for (size_t i = 0; i < reqs.size(); ++i) {
    const PlanRequest &r = reqs[i];
    std::string what;
    if (r.memId < 1)
      what = "memId " + std::to_string(r.memId) + " (0 is reserved)";
    else if (r.size < 0)
      what = "negative size " + std::to_string(r.size);
    else if (r.lastUse < r.firstUse)
      what = "lastUse " + std::to_string(r.lastUse) + " before firstUse " +
             std::to_string(r.firstUse);
    else if (r.alignment <= 0 || (r.alignment & (r.alignment - 1)) != 0)
      what = "alignment " + std::to_string(r.alignment) +
             " is not a power of two";
    else if (r.size > (int64_t{1} << 60))
      what = "size " + std::to_string(r.size) + " is too large";
    if (!what.empty()) {
      if (why)
        *why = "request " + std::to_string(i) + ": " + what;
      return false;
    }
  }
  return true;
}

bool verifyPlan(const std::vector<PlanRequest> &reqs, const PlanResult &res,
                std::string *why) {
  auto fail = [&](std::string msg) {
    if (why)
      *why = std::move(msg);
    return false;
  };
  if (!validateRequests(reqs, why))
    return false;
  if (res.offsets.size() != reqs.size())
    return fail("plan has " + std::to_string(res.offsets.size()) +
                " offsets for " + std::to_string(reqs.size()) + " requests");
  if (res.arenaSizes.empty() || res.arenaSizes[0] != 0)
    return fail("arenaSizes[0] must exist and be 0 (memory id 0 is reserved)");
  for (size_t i = 0; i < reqs.size(); ++i) {
    const PlanRequest &r = reqs[i];
    std::string name = "request " + std::to_string(i);
    int64_t off = res.offsets[i];
    if (static_cast<size_t>(r.memId) >= res.arenaSizes.size())
      return fail(name + ": memId " + std::to_string(r.memId) +
                  " has no arena size");
    if (off < 0 || off % plannedAlign(r) != 0)
      return fail(name + ": offset " + std::to_string(off) +
                  " is not a non-negative multiple of " +
                  std::to_string(plannedAlign(r)));
    if (off + plannedSize(r) > res.arenaSizes[static_cast<size_t>(r.memId)])
      return fail(name + ": bytes [" + std::to_string(off) + ", " +
                  std::to_string(off + plannedSize(r)) + ") exceed arena " +
                  std::to_string(r.memId) + " of size " +
                  std::to_string(res.arenaSizes[static_cast<size_t>(r.memId)]));
  }
  // Sweep over time within each arena, keeping the live requests ordered by
  // offset: a valid plan keeps them byte-disjoint, so a new one need only be
  // compared with its neighbours in that order. O(n log n).
  for (auto &[memId, idx] : byArena(reqs)) {
    (void)memId;
    std::vector<size_t> order;
    for (size_t i : idx)
      if (plannedSize(reqs[i]) > 0)
        order.push_back(i);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return reqs[a].firstUse != reqs[b].firstUse ? reqs[a].firstUse < reqs[b].firstUse
                                                  : a < b;
    });
    std::set<std::pair<int64_t, size_t>> live;          // (offset, request)
    std::set<std::pair<int64_t, size_t>> endsAt;        // (lastUse, request)
    for (size_t b : order) {
      while (!endsAt.empty() && endsAt.begin()->first < reqs[b].firstUse) {
        size_t gone = endsAt.begin()->second;
        live.erase({res.offsets[gone], gone});
        endsAt.erase(endsAt.begin());
      }
      int64_t start = res.offsets[b], end = start + plannedSize(reqs[b]);
      auto next = live.lower_bound({start, 0});
      size_t clash = SIZE_MAX;
      if (next != live.end() && next->first < end)
        clash = next->second;
      if (clash == SIZE_MAX && next != live.begin()) {
        auto prev = std::prev(next);
        if (prev->first + plannedSize(reqs[prev->second]) > start)
          clash = prev->second;
      }
      if (clash != SIZE_MAX)
        return fail("requests " + std::to_string(std::min(clash, b)) + " and " +
                    std::to_string(std::max(clash, b)) +
                    " are live together and share bytes at offset " +
                    std::to_string(std::max(start, res.offsets[clash])));
      live.insert({start, b});
      endsAt.insert({reqs[b].lastUse, b});
    }
  }
  return true;
}

} // namespace ptec::planning
