#include "serde/pte/FlatbufferGet.h"
#include "serde/pte/PteListing.h"
#include "serde/pte/PlanBound.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace ptec::pte {
namespace fb = executorch_flatbuffer;

namespace {

const flatbuffers::Vector<flatbuffers::Offset<fb::Instruction>> *instructionsOf(
    const fb::ExecutionPlan *plan) {
  if (!plan->chains() || plan->chains()->size() == 0)
    return nullptr;
  return plan->chains()->Get(0)->instructions();
}

std::string methodName(const fb::ExecutionPlan *plan) {
  return plan->name() ? plan->name()->str() : "<unnamed>";
}

/// The indices of the plans named `method`, or of all plans when it is "".
std::vector<uint32_t> selectedPlans(const PteView &view, const std::string &method) {
  std::vector<uint32_t> selected;
  auto *plans = view.program->execution_plan();
  for (uint32_t m = 0; plans && m < plans->size(); ++m)
    if (method.empty() || methodName(plans->Get(m)) == method)
      selected.push_back(m);
  return selected;
}

} // namespace

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

std::string listInstructions(const PteView &view, const std::string &method) {
  std::ostringstream os;
  for (uint32_t m : selectedPlans(view, method)) {
    const fb::ExecutionPlan *plan = view.program->execution_plan()->Get(m);
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

std::string listPlan(const PteView &view, const std::string &method) {
  std::ostringstream os;
  for (uint32_t m : selectedPlans(view, method)) {
    const fb::ExecutionPlan *plan = view.program->execution_plan()->Get(m);
    std::vector<PlannedRange> ranges = plannedRanges(view, m);
    PlanBound bound = planLowerBound(view, m, ranges);
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
                    kindName(r.kind), r.memId, (unsigned long long)r.offset,
                    (unsigned long long)r.size, live.c_str());
      os << line << r.label << "\n";
    }
    auto ratio = [&](uint64_t plan, uint64_t lower) {
      if (lower == 0)
        return std::string();
      std::snprintf(line, sizeof line, " (plan / lower bound %.3f)",
                    static_cast<double>(plan) / static_cast<double>(lower));
      return std::string(line);
    };
    for (auto &[a, bytes] : bound.arenaBytes) {
      uint64_t peak = bound.peakBytes.count(a) ? bound.peakBytes[a] : 0;
      os << "  arena " << a << ": " << bytes << " bytes; lower bound " << peak << " bytes";
      if (peak > 0)
        os << " at instruction " << bound.peakAt[a];
      os << ratio(bytes, peak) << "\n";
    }
    os << "  plan: " << bound.planned << " bytes; lower bound " << bound.lowerBound
       << " bytes" << ratio(bound.planned, bound.lowerBound) << "\n";
  }
  return os.str();
}

} // namespace ptec::pte
