// Timing, percentiles and the per-instruction profile (see Profile.h).
#include "tooling/Profile.h"

#include "serde/pte/program_generated.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sys/resource.h>

namespace ptec::tooling {
using namespace ptec::rt;
namespace fb = executorch_flatbuffer;

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

long peakRssKiB() {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

Percentiles percentiles(std::vector<double> v) {
  Percentiles s;
  if (v.empty())
    return s;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) {
    size_t i = static_cast<size_t>(std::ceil(q * v.size())) - 1;
    return v[std::min(i, v.size() - 1)];
  };
  s.p50 = at(0.50);
  s.p90 = at(0.90);
  s.p99 = at(0.99);
  return s;
}

std::vector<std::string> instructionNames(const Program &program, const std::string &method) {
  std::vector<std::string> names;
  auto plan = program.plan(method.c_str());
  if (!plan.ok() || !plan.get()->chains() || plan.get()->chains()->size() == 0 ||
      !plan.get()->chains()->Get(0)->instructions())
    return names;
  const fb::ExecutionPlan *p = plan.get();
  for (const fb::Instruction *in : *p->chains()->Get(0)->instructions()) {
    std::string what = "other";
    if (auto *k = in->instr_args_as_KernelCall()) {
      const fb::Operator *op =
          p->operators() && k->op_index() >= 0 &&
                  static_cast<uint32_t>(k->op_index()) < p->operators()->size()
              ? p->operators()->Get(static_cast<uint32_t>(k->op_index()))
              : nullptr;
      what = op && op->name() ? op->name()->str() : "?";
      if (op && op->overload() && op->overload()->size())
        what += "." + op->overload()->str();
    } else if (auto *d = in->instr_args_as_DelegateCall()) {
      const fb::BackendDelegate *bd =
          p->delegates() && d->delegate_index() >= 0 &&
                  static_cast<uint32_t>(d->delegate_index()) < p->delegates()->size()
              ? p->delegates()->Get(static_cast<uint32_t>(d->delegate_index()))
              : nullptr;
      what = "delegate " + std::string(bd && bd->id() ? bd->id()->c_str() : "?");
    } else if (in->instr_args_as_MoveCall()) {
      what = "MoveCall";
    } else if (in->instr_args_as_JumpFalseCall()) {
      what = "JumpFalseCall";
    } else if (in->instr_args_as_FreeCall()) {
      what = "FreeCall";
    }
    names.push_back(what);
  }
  return names;
}

InstructionProfile::InstructionProfile(std::vector<std::string> names)
    : names_(std::move(names)), ns_(names_.size(), 0), calls_(names_.size(), 0) {}

void InstructionProfile::instructionDone(size_t pc, uint64_t ns) {
  if (pc < ns_.size()) {
    ns_[pc] += ns;
    ++calls_[pc];
  }
}

void InstructionProfile::rows(std::vector<ProfileRow> &byInstr, std::vector<ProfileRow> &byOp,
                              double &total) const {
  byInstr.clear();
  byOp.clear();
  total = 0;
  std::map<std::string, ProfileRow> ops;
  for (size_t i = 0; i < ns_.size(); ++i) {
    double ms = static_cast<double>(ns_[i]) / 1e6;
    total += ms;
    byInstr.push_back({"[" + std::to_string(i) + "] " + names_[i], calls_[i], ms});
    ProfileRow &r = ops[names_[i]];
    r.what = names_[i];
    r.calls += calls_[i];
    r.totalMs += ms;
  }
  for (auto &[name, r] : ops)
    byOp.push_back(r);
  auto slowest = [](const ProfileRow &a, const ProfileRow &b) { return a.totalMs > b.totalMs; };
  std::stable_sort(byInstr.begin(), byInstr.end(), slowest);
  std::stable_sort(byOp.begin(), byOp.end(), slowest);
}

void InstructionProfile::report(RunOutput &out) const {
  std::vector<ProfileRow> byInstr, byOp;
  double total = 0;
  rows(byInstr, byOp, total);
  out.profile(byInstr, byOp, total);
}

} // namespace ptec::tooling
