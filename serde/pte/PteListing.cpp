#include "serde/pte/FlatbufferGet.h"
#include "serde/pte/PteListing.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

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

const fb::ExecutionPlan *planAt(const PteView &v, uint32_t m) {
  auto *plans = v.program->execution_plan();
  return plans && m < plans->size() ? plans->Get(m) : nullptr;
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

std::string kindName(PlannedRange::Kind k) {
  switch (k) {
  case PlannedRange::Kind::Input: return "input";
  case PlannedRange::Kind::Output: return "output";
  case PlannedRange::Kind::State: return "state";
  case PlannedRange::Kind::Scratch: return "scratch";
  default: return "tensor";
  }
}

std::string xmlEscape(const std::string &s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '&': out += "&amp;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

/// Peak of live bytes per arena (the plan's lower bound).
std::map<uint32_t, uint64_t> peakLive(const std::vector<PlannedRange> &ranges) {
  std::map<uint32_t, std::map<int64_t, int64_t>> delta;
  for (const PlannedRange &r : ranges) {
    delta[r.memId][r.first] += static_cast<int64_t>(r.size);
    delta[r.memId][r.last + 1] -= static_cast<int64_t>(r.size);
  }
  std::map<uint32_t, uint64_t> peak;
  for (auto &[mem, d] : delta) {
    int64_t live = 0, best = 0;
    for (auto &[t, x] : d) {
      live += x;
      best = std::max(best, live);
    }
    peak[mem] = static_cast<uint64_t>(best);
  }
  return peak;
}

std::string methodName(const fb::ExecutionPlan *plan) {
  return plan->name() ? plan->name()->str() : "<unnamed>";
}

} // namespace

std::vector<PlannedRange> plannedRanges(const PteView &view, uint32_t m) {
  std::vector<PlannedRange> out;
  const fb::ExecutionPlan *plan = planAt(view, m);
  if (!plan || !plan->values())
    return out;
  auto *instrs = instructionsOf(plan);
  int64_t n = instrs ? static_cast<int64_t>(instrs->size()) : 0;
  int64_t end = std::max<int64_t>(n - 1, 0);
  std::map<int64_t, std::pair<int64_t, int64_t>> uses; // value -> first, last
  for (int64_t i = 0; i < n; ++i)
    for (int64_t v : usedValues(plan, instrs->Get(static_cast<uint32_t>(i)))) {
      auto [it, fresh] = uses.try_emplace(v, i, i);
      if (!fresh)
        it->second.second = i;
    }
  auto contains = [](const flatbuffers::Vector<int32_t> *vec, int64_t v) {
    return vec && std::find(vec->begin(), vec->end(), v) != vec->end();
  };
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
    if (t->data_buffer_idx() > 0) {
      r.kind = PlannedRange::Kind::State;
      r.first = 0;
      r.last = end;
    } else if (contains(plan->inputs(), v)) {
      r.kind = PlannedRange::Kind::Input;
      r.first = 0;
    } else if (contains(plan->outputs(), v)) {
      r.kind = PlannedRange::Kind::Output;
      r.last = end;
    }
    if (contains(plan->inputs(), v) && contains(plan->outputs(), v))
      r.last = end;
    r.label = describeValue(plan, v);
    out.push_back(std::move(r));
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
  return out;
}

/// "file:line (node name)" of instruction `i`'s innermost source frame
/// (Chain.stacktrace), or "" when the program carries none.
static std::string sourceOf(const fb::ExecutionPlan *plan, uint32_t i) {
  if (!plan->chains() || plan->chains()->size() == 0)
    return "";
  const auto *traces = plan->chains()->Get(0)->stacktrace();
  if (!traces || i >= traces->size())
    return "";
  const fb::FrameList *list = traces->Get(i);
  if (!list || !list->items() || list->items()->size() == 0)
    return "";
  const fb::Frame *f = list->items()->Get(list->items()->size() - 1);
  std::string node = f->name() ? f->name()->str() : "";
  if (!f->filename() || f->filename()->size() == 0)
    return node.empty() ? "" : "node " + node;
  std::string s = f->filename()->str() + ":" + std::to_string(f->lineno());
  return node.empty() ? s : s + " (node " + node + ")";
}

std::string listInstructions(const PteView &view) {
  std::ostringstream os;
  auto *plans = view.program->execution_plan();
  for (uint32_t m = 0; plans && m < plans->size(); ++m) {
    const fb::ExecutionPlan *plan = plans->Get(m);
    auto *instrs = instructionsOf(plan);
    uint32_t n = instrs ? instrs->size() : 0;
    os << "method " << methodName(plan) << ": " << n << " instructions\n";
    auto valueText = [&](int32_t idx) {
      std::string s = describeValue(plan, idx);
      auto *values = plan->values();
      if (!values || idx < 0 || static_cast<uint32_t>(idx) >= values->size())
        return s;
      const fb::EValue *ev = values->Get(static_cast<uint32_t>(idx));
      auto listOf = [&](const flatbuffers::Vector<int32_t> *items) {
        std::string t = " [";
        for (uint32_t k = 0; items && k < items->size(); ++k) {
          int32_t x = items->Get(k);
          t += (k ? ", " : "") + (x < 0 ? std::string("None") : "%" + std::to_string(x));
        }
        return t + "]";
      };
      if (auto *il = ev->val_as_IntList()) {
        // Items are value indices; show the integers they hold.
        s += " [";
        for (uint32_t k = 0; il->items() && k < il->items()->size(); ++k) {
          int64_t x = get8(il->items(), k);
          const fb::Int *iv = x >= 0 && static_cast<uint64_t>(x) < values->size()
                                  ? values->Get(static_cast<uint32_t>(x))->val_as_Int()
                                  : nullptr;
          s += (k ? ", " : "") + (iv ? std::to_string(iv->int_val()) : "%" + std::to_string(x));
        }
        s += "]";
      } else if (auto *tl = ev->val_as_TensorList()) {
        s += listOf(tl->items());
      } else if (auto *ol = ev->val_as_OptionalTensorList()) {
        s += listOf(ol->items());
      }
      return s;
    };
    for (uint32_t i = 0; i < n; ++i) {
      const fb::Instruction *in = instrs->Get(i);
      char head[32];
      std::snprintf(head, sizeof head, "  [%u] ", i);
      os << head;
      if (auto *k = in->instr_args_as_KernelCall()) {
        const fb::Operator *op = plan->operators() && k->op_index() >= 0 &&
                                         static_cast<uint32_t>(k->op_index()) <
                                             plan->operators()->size()
                                     ? plan->operators()->Get(static_cast<uint32_t>(k->op_index()))
                                     : nullptr;
        std::string name = op && op->name() ? op->name()->str() : "<bad operator>";
        if (op && op->overload() && op->overload()->size())
          name += "." + op->overload()->str();
        os << name << "\n";
        for (uint32_t a = 0; k->args() && a < k->args()->size(); ++a)
          os << "        " << valueText(k->args()->Get(a)) << "\n";
      } else if (auto *d = in->instr_args_as_DelegateCall()) {
        std::string id = "<bad delegate>";
        if (plan->delegates() && d->delegate_index() >= 0 &&
            static_cast<uint32_t>(d->delegate_index()) < plan->delegates()->size()) {
          const fb::BackendDelegate *bd =
              plan->delegates()->Get(static_cast<uint32_t>(d->delegate_index()));
          id = bd->id() ? bd->id()->str() : "?";
        }
        os << "DelegateCall delegate " << d->delegate_index() << " (" << id << ")\n";
        for (uint32_t a = 0; d->args() && a < d->args()->size(); ++a)
          os << "        " << valueText(d->args()->Get(a)) << "\n";
      } else if (auto *mv = in->instr_args_as_MoveCall()) {
        os << "MoveCall " << valueText(mv->move_from()) << " -> " << valueText(mv->move_to())
           << "\n";
      } else if (auto *j = in->instr_args_as_JumpFalseCall()) {
        os << "JumpFalseCall if not " << valueText(j->cond_value_index()) << " goto "
           << j->destination_instruction() << "\n";
      } else if (auto *f = in->instr_args_as_FreeCall()) {
        os << "FreeCall " << valueText(f->value_index()) << "\n";
      } else {
        os << "unknown instruction kind\n";
      }
      std::string from = sourceOf(plan, i);
      if (!from.empty())
        os << "        from " << from << "\n";
    }
  }
  return os.str();
}

std::string listPlan(const PteView &view) {
  std::ostringstream os;
  auto *plans = view.program->execution_plan();
  for (uint32_t m = 0; plans && m < plans->size(); ++m) {
    const fb::ExecutionPlan *plan = plans->Get(m);
    std::vector<PlannedRange> ranges = plannedRanges(view, m);
    std::stable_sort(ranges.begin(), ranges.end(), [](const auto &a, const auto &b) {
      return a.memId != b.memId ? a.memId < b.memId : a.offset < b.offset;
    });
    os << "method " << methodName(plan) << ": " << ranges.size() << " planned ranges\n";
    char line[160];
    std::snprintf(line, sizeof line, "  %-8s %5s %10s %10s  %-13s %s\n", "kind", "arena",
                  "offset", "size", "live", "value");
    os << line;
    for (const PlannedRange &r : ranges) {
      std::string live = "[" + std::to_string(r.first) + ", " + std::to_string(r.last) + "]";
      std::snprintf(line, sizeof line, "  %-8s %5u %10llu %10llu  %-13s ",
                    kindName(r.kind).c_str(), r.memId, (unsigned long long)r.offset,
                    (unsigned long long)r.size, live.c_str());
      os << line << r.label << "\n";
    }
    std::map<uint32_t, uint64_t> peak = peakLive(ranges);
    if (auto *sizes = plan->non_const_buffer_sizes())
      for (uint32_t a = 1; a < sizes->size(); ++a) {
        uint64_t bound = peak.count(a) ? peak[a] : 0;
        os << "  arena " << a << ": " << get8(sizes, a) << " bytes; peak live " << bound
           << " bytes";
        if (bound > 0) {
          std::snprintf(line, sizeof line, " (plan / lower bound %.3f)",
                        static_cast<double>(sizes->Get(a)) / static_cast<double>(bound));
          os << line;
        }
        os << "\n";
      }
  }
  return os.str();
}

bool planSvg(const PteView &view, const std::string &method, std::string *svg,
             std::string *err) {
  auto *plans = view.program->execution_plan();
  uint32_t m = 0;
  for (; plans && m < plans->size(); ++m)
    if (method.empty() || methodName(plans->Get(m)) == method)
      break;
  if (!plans || m >= plans->size()) {
    *err = "no method named '" + method + "'";
    return false;
  }
  const fb::ExecutionPlan *plan = plans->Get(m);
  std::vector<PlannedRange> ranges = plannedRanges(view, m);
  auto *instrs = instructionsOf(plan);
  int64_t steps = std::max<int64_t>(1, instrs ? instrs->size() : 0);
  std::map<uint32_t, uint64_t> arena; // memId -> bytes
  if (auto *sizes = plan->non_const_buffer_sizes())
    for (uint32_t a = 1; a < sizes->size(); ++a)
      arena[a] = static_cast<uint64_t>(std::max<int64_t>(get8(sizes, a), 0));
  std::map<uint32_t, uint64_t> peak = peakLive(ranges);

  // One band per arena, stacked; time to the right, offsets downwards.
  const double width = 900, left = 70, bandHeight = 260, gap = 50, top = 60;
  std::ostringstream os;
  double height = top + arena.size() * (bandHeight + gap) + 40;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width + left + 20
     << "\" height=\"" << height << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  os << "<title>memory plan of " << xmlEscape(methodName(plan)) << "</title>\n";
  os << "<text x=\"" << left << "\" y=\"20\" font-size=\"15\">Memory plan of method '"
     << xmlEscape(methodName(plan)) << "': " << ranges.size() << " ranges, " << steps
     << " instructions</text>\n";
  const char *colors[] = {"#7aa6d6", "#8cc68c", "#f0a35e", "#b08fd8", "#e06666"};
  const char *names[] = {"tensor", "input", "output", "state", "scratch"};
  for (int k = 0; k < 5; ++k)
    os << "<rect x=\"" << left + 110 * k << "\" y=\"32\" width=\"12\" height=\"12\" fill=\""
       << colors[k] << "\"/><text x=\"" << left + 110 * k + 16 << "\" y=\"43\">" << names[k]
       << "</text>\n";
  double y0 = top;
  for (auto &[mem, bytes] : arena) {
    double scale = bytes ? bandHeight / static_cast<double>(bytes) : 0;
    os << "<g class=\"arena\" id=\"arena" << mem << "\">\n";
    os << "<rect class=\"frame\" x=\"" << left << "\" y=\"" << y0 << "\" width=\"" << width
       << "\" height=\"" << bandHeight << "\" fill=\"none\" stroke=\"#444\"/>\n";
    os << "<text x=\"4\" y=\"" << y0 + 14 << "\">arena " << mem << "</text>\n";
    os << "<text x=\"4\" y=\"" << y0 + 28 << "\">" << bytes << " B</text>\n";
    for (const PlannedRange &r : ranges) {
      if (r.memId != mem)
        continue;
      double x = left + width * static_cast<double>(r.first) / steps;
      double w = std::max(1.0, width * static_cast<double>(r.last - r.first + 1) / steps);
      double y = y0 + scale * static_cast<double>(r.offset);
      double h = std::max(1.0, scale * static_cast<double>(r.size));
      os << "<rect class=\"" << kindName(r.kind) << "\" x=\"" << x << "\" y=\"" << y
         << "\" width=\"" << w << "\" height=\"" << h << "\" fill=\""
         << colors[static_cast<int>(r.kind)] << "\" stroke=\"#222\" stroke-width=\"0.5\">"
         << "<title>" << xmlEscape(r.label) << ", live [" << r.first << ", " << r.last
         << "], offset " << r.offset << ", " << r.size << " B</title></rect>\n";
    }
    if (peak.count(mem) && bytes) {
      double y = y0 + scale * static_cast<double>(peak[mem]);
      os << "<line class=\"lower-bound\" x1=\"" << left << "\" y1=\"" << y << "\" x2=\""
         << left + width << "\" y2=\"" << y
         << "\" stroke=\"#c00\" stroke-dasharray=\"6,4\"/>\n";
      os << "<text x=\"" << left + width - 220 << "\" y=\"" << y - 4
         << "\" fill=\"#c00\">lower bound " << peak[mem] << " B</text>\n";
    }
    os << "</g>\n";
    y0 += bandHeight + gap;
  }
  os << "<text x=\"" << left << "\" y=\"" << height - 10
     << "\">time: instruction index (left to right); offset: bytes (top to bottom)</text>\n";
  os << "</svg>\n";
  *svg = os.str();
  return true;
}

} // namespace ptec::pte
