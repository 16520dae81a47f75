#include "serde/pte/PlanBound.h"

#include "serde/pte/FlatbufferGet.h"

#include <algorithm>
#include <map>

namespace ptec::pte {
namespace fb = executorch_flatbuffer;

namespace {

size_t elementSize(fb::ScalarType t) {
  using S = fb::ScalarType;
  switch (t) {
  case S::BYTE: case S::CHAR: case S::BOOL: case S::QINT8: case S::QUINT8:
  case S::QUINT4X2: case S::QUINT2X4: case S::FLOAT8E5M2: case S::FLOAT8E4M3FN:
  case S::FLOAT8E5M2FNUZ: case S::FLOAT8E4M3FNUZ:
    return 1;
  case S::SHORT: case S::HALF: case S::BFLOAT16: case S::BITS16: case S::UINT16:
    return 2;
  case S::INT: case S::FLOAT: case S::QINT32: case S::UINT32:
    return 4;
  default:
    return 8;
  }
}

uint64_t tensorBytes(const fb::Tensor *t) {
  uint64_t n = elementSize(t->scalar_type());
  if (t->sizes())
    for (int32_t d : *t->sizes())
      n *= static_cast<uint64_t>(std::max(d, 0));
  return (n + 15) / 16 * 16;
}

const flatbuffers::Vector<flatbuffers::Offset<fb::Instruction>> *instructionsOf(
    const fb::ExecutionPlan *plan) {
  if (!plan->chains() || plan->chains()->size() == 0)
    return nullptr;
  return plan->chains()->Get(0)->instructions();
}

/// The value indices an instruction names (list elements included).
std::vector<int64_t> usedValues(const fb::ExecutionPlan *plan, const fb::Instruction *in) {
  std::vector<int64_t> out;
  auto addArgs = [&](const flatbuffers::Vector<int32_t> *args) {
    if (!args)
      return;
    for (int32_t a : *args) {
      out.push_back(a);
      auto *values = plan->values();
      if (!values || a < 0 || static_cast<uint32_t>(a) >= values->size())
        continue;
      const fb::EValue *ev = values->Get(static_cast<uint32_t>(a));
      if (auto *tl = ev->val_as_TensorList(); tl && tl->items())
        for (int32_t x : *tl->items())
          out.push_back(x);
      if (auto *ol = ev->val_as_OptionalTensorList(); ol && ol->items())
        for (int32_t x : *ol->items())
          if (x >= 0)
            out.push_back(x);
    }
  };
  if (auto *k = in->instr_args_as_KernelCall())
    addArgs(k->args());
  else if (auto *d = in->instr_args_as_DelegateCall())
    addArgs(d->args());
  else if (auto *mv = in->instr_args_as_MoveCall())
    out = {mv->move_from(), mv->move_to()};
  else if (auto *j = in->instr_args_as_JumpFalseCall())
    out = {j->cond_value_index()};
  else if (auto *f = in->instr_args_as_FreeCall())
    out = {f->value_index()};
  return out;
}

/// Covered length of a union of intervals under insertions and removals
/// (the classic segment tree over the intervals' sorted end points).
class IntervalUnion {
public:
  explicit IntervalUnion(std::vector<uint64_t> points) : xs(std::move(points)) {
    std::sort(xs.begin(), xs.end());
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
    size_t n = xs.size() > 1 ? xs.size() - 1 : 1;
    count.assign(4 * n, 0);
    covered.assign(4 * n, 0);
  }
  void add(uint64_t lo, uint64_t hi, int delta) {
    if (xs.size() < 2 || lo >= hi)
      return;
    size_t l = std::lower_bound(xs.begin(), xs.end(), lo) - xs.begin();
    size_t r = std::lower_bound(xs.begin(), xs.end(), hi) - xs.begin();
    update(1, 0, xs.size() - 1, l, r, delta);
  }
  uint64_t length() const { return xs.size() < 2 ? 0 : covered[1]; }

private:
  // Node `node` covers elementary segments [nl, nr) = [xs[nl], xs[nr]).
  void update(size_t node, size_t nl, size_t nr, size_t l, size_t r, int delta) {
    if (r <= nl || nr <= l)
      return;
    if (l <= nl && nr <= r) {
      count[node] += delta;
    } else {
      size_t mid = (nl + nr) / 2;
      update(2 * node, nl, mid, l, r, delta);
      update(2 * node + 1, mid, nr, l, r, delta);
    }
    if (count[node] > 0)
      covered[node] = xs[nr] - xs[nl];
    else if (nr - nl == 1)
      covered[node] = 0;
    else
      covered[node] = covered[2 * node] + covered[2 * node + 1];
  }
  std::vector<uint64_t> xs;
  std::vector<int> count;
  std::vector<uint64_t> covered;
};

} // namespace

std::vector<PlannedRange> plannedRanges(const PteView &view, uint32_t m) {
  std::vector<PlannedRange> out;
  auto *plans = view.program->execution_plan();
  const fb::ExecutionPlan *plan = plans && m < plans->size() ? plans->Get(m) : nullptr;
  if (!plan || !plan->values())
    return out;
  auto *instrs = instructionsOf(plan);
  int64_t n = instrs ? static_cast<int64_t>(instrs->size()) : 0;
  int64_t end = std::max<int64_t>(n - 1, 0);
  std::map<int64_t, std::pair<int64_t, int64_t>> uses; // value -> first, last
  std::vector<std::pair<int64_t, int64_t>> loops;      // [destination, jump]
  for (int64_t i = 0; i < n; ++i) {
    const fb::Instruction *in = instrs->Get(static_cast<uint32_t>(i));
    for (int64_t v : usedValues(plan, in)) {
      auto [it, fresh] = uses.try_emplace(v, i, i);
      if (!fresh)
        it->second.second = i;
    }
    if (auto *j = in->instr_args_as_JumpFalseCall(); j && j->destination_instruction() <= i)
      loops.emplace_back(j->destination_instruction(), i);
  }
  auto contains = [](const flatbuffers::Vector<int32_t> *vec, int64_t v) {
    return vec && std::find(vec->begin(), vec->end(), v) != vec->end();
  };
  std::vector<size_t> unnamed; // planned values no instruction names
  for (uint32_t v = 0; v < plan->values()->size(); ++v) {
    const fb::Tensor *t = plan->values()->Get(v)->val_as_Tensor();
    if (!t || !t->allocation_info())
      continue;
    PlannedRange r;
    r.value = v;
    r.memId = t->allocation_info()->memory_id();
    r.offset = (uint64_t{t->allocation_info()->memory_offset_high()} << 32) |
               t->allocation_info()->memory_offset_low();
    r.size = tensorBytes(t);
    auto it = uses.find(v);
    r.first = it != uses.end() ? it->second.first : 0;
    r.last = it != uses.end() ? it->second.second : r.first;
    bool input = contains(plan->inputs(), v), output = contains(plan->outputs(), v);
    if (t->data_buffer_idx() > 0) {
      r.kind = PlannedRange::Kind::State;
      r.first = 0;
      r.last = end;
    } else if (input) {
      r.kind = PlannedRange::Kind::Input;
      r.first = 0;
    } else if (output) {
      r.kind = PlannedRange::Kind::Output;
      r.last = end;
    }
    if (input && output)
      r.last = end;
    if (it == uses.end() && !input && t->data_buffer_idx() <= 0)
      unnamed.push_back(out.size());
    r.label = describeValue(plan, v);
    // aot-compile --emit-state-names writes a buffer's name here.
    if (r.kind == PlannedRange::Kind::State && t->extra_tensor_info() &&
        t->extra_tensor_info()->fully_qualified_name()) {
      r.stateName = t->extra_tensor_info()->fully_qualified_name()->str();
      r.label += " state '" + r.stateName + "'";
    }
    out.push_back(std::move(r));
  }
  // A value no instruction names (a returned static view) holds the bytes
  // of the last value defined at its place: it lives from that definition.
  std::map<std::pair<uint32_t, uint64_t>, int64_t> lastDefinedAt;
  for (const PlannedRange &o : out)
    if (uses.count(o.value)) {
      auto [it, fresh] = lastDefinedAt.try_emplace({o.memId, o.offset}, o.first);
      if (!fresh)
        it->second = std::max(it->second, o.first);
    }
  for (size_t u : unnamed) {
    PlannedRange &r = out[u];
    auto it = lastDefinedAt.find({r.memId, r.offset});
    r.first = it != lastDefinedAt.end() ? it->second : end;
    r.last = std::max(r.last, r.first);
  }
  // Delegate scratch (our extension): live for each call of its entry.
  if (auto *delegates = plan->delegates())
    for (int64_t i = 0; i < n; ++i) {
      auto *call = instrs->Get(static_cast<uint32_t>(i))->instr_args_as_DelegateCall();
      if (!call || call->delegate_index() < 0 ||
          static_cast<uint32_t>(call->delegate_index()) >= delegates->size())
        continue;
      const fb::BackendDelegate *d = delegates->Get(static_cast<uint32_t>(call->delegate_index()));
      if (!d->scratch())
        continue;
      for (const fb::DelegateScratch *s : *d->scratch()) {
        if (!s->allocation())
          continue;
        PlannedRange r;
        r.kind = PlannedRange::Kind::Scratch;
        r.value = call->delegate_index();
        r.memId = s->allocation()->memory_id();
        r.offset = (uint64_t{s->allocation()->memory_offset_high()} << 32) |
                   s->allocation()->memory_offset_low();
        r.size = (s->size() + 15) / 16 * 16;
        r.first = r.last = i;
        r.label = "scratch of delegate " + std::to_string(call->delegate_index()) + " (" +
                  (d->id() ? d->id()->str() : "?") + "), " + std::to_string(s->size()) +
                  " bytes";
        out.push_back(std::move(r));
      }
    }
  // Inside a loop a value read on one iteration may be read again on the
  // next: one that is live in the loop and defined before it lives until
  // the backward jump.
  for (auto [from, jump] : loops)
    for (PlannedRange &r : out)
      if (r.first < from && r.last >= from && r.last < jump)
        r.last = jump;
  return out;
}

PlanBound planLowerBound(const PteView &view, uint32_t m) {
  return planLowerBound(view, m, plannedRanges(view, m));
}

PlanBound planLowerBound(const PteView &view, uint32_t m,
                         const std::vector<PlannedRange> &ranges) {
  PlanBound b;
  auto *plans = view.program->execution_plan();
  const fb::ExecutionPlan *plan = plans && m < plans->size() ? plans->Get(m) : nullptr;
  if (!plan)
    return b;
  if (auto *sizes = plan->non_const_buffer_sizes())
    for (uint32_t a = 1; a < sizes->size(); ++a) {
      uint64_t bytes = static_cast<uint64_t>(std::max<int64_t>(get8(sizes, a), 0));
      b.arenaBytes[a] = bytes;
      b.planned += bytes;
    }
  std::map<uint32_t, std::vector<const PlannedRange *>> byArena;
  for (const PlannedRange &r : ranges)
    if (r.size > 0 && r.last >= r.first)
      byArena[r.memId].push_back(&r);
  for (auto &[mem, rs] : byArena) {
    // Sweep over time: at each instruction where a range starts, drop the
    // ranges that ended before it, add those that start, and measure.
    std::vector<uint64_t> points;
    for (const PlannedRange *r : rs) {
      points.push_back(r->offset);
      points.push_back(r->offset + r->size);
    }
    IntervalUnion live(std::move(points));
    std::vector<const PlannedRange *> byFirst = rs, byLast = rs;
    std::sort(byFirst.begin(), byFirst.end(),
              [](auto *x, auto *y) { return x->first < y->first; });
    std::sort(byLast.begin(), byLast.end(),
              [](auto *x, auto *y) { return x->last < y->last; });
    uint64_t peak = 0;
    int64_t peakAt = 0;
    size_t s = 0, e = 0;
    while (s < byFirst.size()) {
      int64_t t = byFirst[s]->first;
      for (; e < byLast.size() && byLast[e]->last < t; ++e)
        live.add(byLast[e]->offset, byLast[e]->offset + byLast[e]->size, -1);
      for (; s < byFirst.size() && byFirst[s]->first == t; ++s)
        live.add(byFirst[s]->offset, byFirst[s]->offset + byFirst[s]->size, +1);
      if (live.length() > peak) {
        peak = live.length();
        peakAt = t;
      }
    }
    b.peakBytes[mem] = peak;
    b.peakAt[mem] = peakAt;
    b.lowerBound += peak;
  }
  return b;
}

const char *kindName(PlannedRange::Kind k) {
  switch (k) {
  case PlannedRange::Kind::Input: return "input";
  case PlannedRange::Kind::Output: return "output";
  case PlannedRange::Kind::State: return "state";
  case PlannedRange::Kind::Scratch: return "scratch";
  default: return "tensor";
  }
}

} // namespace ptec::pte
