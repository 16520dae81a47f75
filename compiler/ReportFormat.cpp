//===- ReportFormat.cpp - the compile report as text and as JSON ----------===//

#include "compiler/Report.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

namespace ptec {

namespace {

/// "demo 3, xnnpack 2" or "-".
std::string perBackend(const std::map<std::string, int64_t> &m) {
  std::string s;
  for (auto &[backend, n] : m)
    s += (s.empty() ? "" : ", ") + backend + " " + std::to_string(n);
  return s.empty() ? "-" : s;
}

} // namespace

/// Per op: count, delegated, portable and kernel; then the portable ops
/// grouped by op and reason, each with a few of its source lines (the JSON
/// lists every one).
void CompileReport::writeOps(llvm::raw_ostream &os) const {
  if (!opsRecorded)
    return;
  int64_t total = 0, portable = 0;
  for (auto &[name, st] : ops) {
    total += st.count;
    portable += st.portable;
  }
  os << "== ops: " << total << " ATen ops of " << ops.size() << " kinds, " << total - portable
     << " delegated, " << portable
     << " on portable kernels (a function's ops once, however often it is called)\n";
  char buf[256];
  std::snprintf(buf, sizeof buf, "  %-36s %7s  %-24s %8s  %s\n", "op", "count", "delegated",
                "portable", "kernel");
  os << buf;
  for (auto &[name, st] : ops) {
    std::snprintf(buf, sizeof buf, "  %-36s %7lld  %-24s %8lld  %s\n", name.c_str(),
                  (long long)st.count, perBackend(st.delegated).c_str(),
                  (long long)st.portable, st.portable ? st.kernel.c_str() : "-");
    os << buf;
  }
  os << "== refused (left on portable kernels): " << portable << " ops\n";
  // Where: up to three source lines per (op, reason), in program order.
  std::map<std::pair<std::string, std::string>, std::vector<const Refusal *>> where;
  for (const Refusal &r : refusals) {
    auto &v = where[{r.op, r.reasons}];
    bool seen = llvm::any_of(v, [&](const Refusal *o) {
      return o->method == r.method && o->location == r.location;
    });
    if (v.size() < 3 && !seen)
      v.push_back(&r);
  }
  for (auto &[name, st] : ops)
    for (auto &[reason, n] : st.reasons) {
      os << "  " << name << " x" << n << ": " << reason;
      auto it = where.find({name, reason});
      if (it != where.end()) {
        os << " (at ";
        for (size_t k = 0; k < it->second.size(); ++k)
          os << (k ? ", " : "") << it->second[k]->method << ": " << it->second[k]->location;
        if (n > static_cast<int64_t>(it->second.size()))
          os << ", ...";
        os << ")";
      }
      os << "\n";
    }
}

std::string CompileReport::toText() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  char buf[160];
  os << "== phases\n";
  for (const Phase &p : phases) {
    std::snprintf(buf, sizeof buf, "  %-13s %8.1f ms  %6lld aten ops  %4lld delegate calls  "
                                   "%4lld copies\n",
                  p.name.c_str(), p.ms, (long long)p.atenOps, (long long)p.delegateCalls,
                  (long long)p.copies);
    os << buf;
  }
  for (const Method &m : methods) {
    os << "== method " << m.name << "\n";
    if (loadedAfter.empty())
      os << "  " << m.atenOps << " ATen ops before partitioning, ";
    else
      os << "  " << m.atenOps << " ATen ops in the IR as loaded (saved after phase '"
         << loadedAfter << "'; ops already lowered into delegate blobs are not counted), ";
    os << m.instructions << " instructions in the program\n";
    for (auto &[backend, n] : m.delegatedOps) {
      std::snprintf(buf, sizeof buf, "  %s: %lld ops delegated (%.1f%% of the graph)\n",
                    backend.c_str(), (long long)n,
                    m.atenOps ? 100.0 * static_cast<double>(n) / m.atenOps : 0.0);
      os << buf;
    }
    for (size_t d = 0; d < m.delegates.size(); ++d) {
      const Delegate &del = m.delegates[d];
      os << "  delegate " << d << " (" << del.backend << "): " << del.callSites
         << (del.callSites == 1 ? " call site" : " call sites sharing one handle");
      for (uint64_t b : del.scratchBytes)
        os << ", scratch " << b << " B";
      os << "\n";
    }
    os << "  write-back: " << m.copies.size() << " copies, " << m.inPlace << " in place, "
       << m.snapshots << " snapshots\n";
    // A few copies by name; the JSON lists every one.
    constexpr size_t kShownCopies = 8;
    for (size_t k = 0; k < m.copies.size() && k < kShownCopies; ++k) {
      const Copy &c = m.copies[k];
      os << "    copy into '" << c.state << "': "
         << (c.movedUp ? std::to_string(c.movedUp) + " ops before the end" : "at the end")
         << "\n";
    }
    if (m.copies.size() > kShownCopies) {
      int64_t atEnd = 0;
      for (const Copy &c : m.copies)
        atEnd += c.movedUp == 0;
      os << "    ... and " << m.copies.size() - kShownCopies << " more ("
         << static_cast<int64_t>(m.copies.size()) - atEnd << " of all " << m.copies.size()
         << " copies moved up, " << atEnd << " at the end; the JSON lists every one)\n";
    }
    if (fileSize > 0) {
      std::snprintf(buf, sizeof buf,
                    "  memory plan (%s): %lld bytes, lower bound %lld (ratio %.3f)\n",
                    m.planner.c_str(), (long long)m.planned, (long long)m.lowerBound,
                    m.lowerBound ? static_cast<double>(m.planned) / m.lowerBound : 1.0);
      os << buf;
    } else if (!m.planner.empty()) {
      os << "  memory plan (" << m.planner << "): " << m.planned
         << " bytes (the lower bound is measured on a written .pte; none was written)\n";
    }
  }
  if (!regions.empty()) {
    os << "== delegate regions (as numbered in --partition-dot): " << regions.size() << "\n";
    for (const Region &r : regions)
      os << "  @" << r.function << " region " << r.index << " (" << r.backend << "): " << r.ops
         << (r.ops == 1 ? " op\n" : " ops\n");
  }
  writeOps(os);
  os << "== output: " << fileSize << " bytes (program " << programSize << ")\n";
  for (size_t i = 0; i < segments.size(); ++i)
    os << "  segment " << i << ": " << segments[i].size << " bytes, "
       << segments[i].kind << "\n";
  os << "== warnings: " << warnings.size() << "\n";
  for (const std::string &w : warnings)
    os << "  " << w << "\n";
  if (failedDuring.empty())
    os << "== result: compiled\n";
  else
    os << "== result: failed during '" << failedDuring
       << "' (the phases listed above completed)\n";
  return os.str();
}

std::string CompileReport::toJson() const {
  using llvm::json::Array;
  using llvm::json::Object;
  Array ph, ms, rf, sg, wn;
  for (const Phase &p : phases)
    ph.push_back(Object{{"name", p.name},
                        {"ms", p.ms},
                        {"aten_ops", p.atenOps},
                        {"delegate_calls", p.delegateCalls},
                        {"copies", p.copies}});
  for (const Method &m : methods) {
    Object delegated;
    for (auto &[backend, n] : m.delegatedOps)
      delegated[backend] = n;
    Array copies, delegates, arenas;
    for (const Copy &c : m.copies)
      copies.push_back(Object{{"state", c.state}, {"moved_up", c.movedUp}});
    for (const Delegate &d : m.delegates) {
      Array scratch;
      for (uint64_t b : d.scratchBytes)
        scratch.push_back(static_cast<int64_t>(b));
      delegates.push_back(Object{{"backend", d.backend},
                                 {"call_sites", d.callSites},
                                 {"scratch_bytes", std::move(scratch)}});
    }
    for (int64_t a : m.arenas)
      arenas.push_back(a);
    ms.push_back(Object{
        {"name", m.name},
        {"aten_ops", m.atenOps},
        {"instructions", m.instructions},
        {"delegated_ops", std::move(delegated)},
        {"delegates", std::move(delegates)},
        {"write_back", Object{{"copies", std::move(copies)},
                              {"in_place", m.inPlace},
                              {"snapshots", m.snapshots}}},
        {"memory_plan", Object{{"algorithm", m.planner},
                               {"planned_bytes", m.planned},
                               {"lower_bound_bytes", m.lowerBound},
                               {"arena_sizes", std::move(arenas)}}},
    });
  }
  Array regionsJson;
  for (const Region &r : regions)
    regionsJson.push_back(Object{{"function", r.function},
                                 {"index", r.index},
                                 {"backend", r.backend},
                                 {"ops", r.ops}});
  Array opsJson;
  for (auto &[name, st] : ops) {
    Object delegated;
    for (auto &[backend, n] : st.delegated)
      delegated[backend] = n;
    Array reasons;
    for (auto &[reason, n] : st.reasons)
      reasons.push_back(Object{{"reason", reason}, {"count", n}});
    opsJson.push_back(Object{{"op", name},
                             {"count", st.count},
                             {"delegated", std::move(delegated)},
                             {"portable", st.portable},
                             {"refused", std::move(reasons)},
                             {"kernel", st.portable ? st.kernel : ""}});
  }
  for (const Refusal &r : refusals)
    rf.push_back(Object{{"method", r.method},
                        {"op", r.op},
                        {"location", r.location},
                        {"reasons", r.reasons}});
  for (const Segment &s : segments)
    sg.push_back(Object{{"kind", s.kind}, {"bytes", static_cast<int64_t>(s.size)}});
  for (const std::string &w : warnings)
    wn.push_back(w);
  Object root{{"schema", "ptec-compile-report"},
              {"version", kVersion},
              {"phases", std::move(ph)},
              {"methods", std::move(ms)},
              {"ops", std::move(opsJson)},
              {"regions", std::move(regionsJson)},
              {"refused", std::move(rf)},
              {"output", Object{{"file_bytes", static_cast<int64_t>(fileSize)},
                                {"program_bytes", static_cast<int64_t>(programSize)},
                                {"segments", std::move(sg)}}},
              {"warnings", std::move(wn)},
              {"result", Object{{"ok", failedDuring.empty()}, {"failed_during", failedDuring}}}};
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return os.str();
}

} // namespace ptec
