//===- ReportFormat.cpp - the compile report as text and as JSON ----------===//
//
// The text is for a person reading a CI log: aggregated (segments by kind,
// delegate entries and regions per backend, op kinds and refusals by count)
// and cut to a few lines per section, so that it stays around 60 lines for
// any program; every cut says how much it left out and that the JSON lists
// every entry.
//
//===----------------------------------------------------------------------===//

#include "compiler/Report.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>

namespace ptec {

namespace {

// Lines each cut list shows in the text (the JSON has every entry).
constexpr size_t kShownMethods = 2;     // in full; then one line each
constexpr size_t kShortMethods = 3;     // one-line methods after those
constexpr size_t kShownCopies = 2;      // per method
constexpr size_t kShownRegions = 3;     // listed one by one only up to this many
constexpr size_t kShownOpKinds = 6;
constexpr size_t kShownRefusals = 4;    // (op, reason) groups
constexpr size_t kShownDiagnostics = 3; // errors, and warnings

/// "demo 3, xnnpack 2" or "-".
std::string perBackend(const std::map<std::string, int64_t> &m) {
  std::string s;
  for (auto &[backend, n] : m)
    s += (s.empty() ? "" : ", ") + backend + " " + std::to_string(n);
  return s.empty() ? "-" : s;
}

/// "1 op", "3 ops".
std::string count(int64_t n, const char *one, const char *many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

} // namespace

std::string humanBytes(uint64_t bytes) {
  char buf[32];
  if (bytes < 1024)
    std::snprintf(buf, sizeof buf, "%llu B", (unsigned long long)bytes);
  else if (bytes < (1ull << 20))
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024);
  else if (bytes < (1ull << 30))
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1 << 30));
  return buf;
}

/// Per op: count, delegated, portable and kernel (the op kinds with the
/// most portable ops first); then the portable ops grouped by op and
/// reason, largest groups first, each with a few of its source lines.
void CompileReport::writeOps(llvm::raw_ostream &os) const {
  if (!opsRecorded)
    return;
  int64_t total = 0, portable = 0;
  for (auto &[name, st] : ops) {
    total += st.count;
    portable += st.portable;
  }
  const bool noBackend = backendAsked.has_value() && !*backendAsked;
  os << "== ops: " << total << " ATen ops of "
     << count(static_cast<int64_t>(ops.size()), "kind", "kinds") << ", " << total - portable
     << " delegated, " << portable
     << " on portable kernels (a function's ops once, however often it is called)\n";
  std::vector<std::pair<std::string, const OpStats *>> rows;
  for (auto &[name, st] : ops)
    rows.push_back({name, &st});
  std::stable_sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
    return std::make_pair(a.second->portable, a.second->count) >
           std::make_pair(b.second->portable, b.second->count);
  });
  // The op column is as wide as the longest name shown.
  int width = 36;
  for (size_t k = 0; k < rows.size() && k < kShownOpKinds; ++k)
    width = std::max(width, static_cast<int>(rows[k].first.size()));
  const std::string row = "  {0,-" + std::to_string(width) + "} {1,7}  {2,-24} {3,8}  {4}\n";
  os << llvm::formatv(row.c_str(), "op", "count", "delegated", "portable", "kernel");
  for (size_t k = 0; k < rows.size() && k < kShownOpKinds; ++k) {
    const OpStats &st = *rows[k].second;
    os << llvm::formatv(row.c_str(), rows[k].first, st.count, perBackend(st.delegated), st.portable,
                        st.portable ? st.kernel : std::string("-"));
  }
  if (rows.size() > kShownOpKinds) {
    int64_t rest = 0;
    for (size_t k = kShownOpKinds; k < rows.size(); ++k)
      rest += rows[k].second->count;
    os << "  ... " << count(static_cast<int64_t>(rows.size() - kShownOpKinds), "more kind", "more kinds")
       << " (" << count(rest, "op", "ops") << "; the JSON lists every one)\n";
  }
  if (noBackend) {
    // One reason for every op: say it once instead of once per kind.
    os << "== refused: none; no backend requested, so every op runs on portable kernels "
          "(--backend xnnpack or demo delegates what it takes)\n";
    return;
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
  struct Group {
    const std::string *op, *reason;
    int64_t n;
  };
  std::vector<Group> groups;
  for (auto &[name, st] : ops)
    for (auto &[reason, n] : st.reasons)
      groups.push_back({&name, &reason, n});
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group &a, const Group &b) { return a.n > b.n; });
  for (size_t g = 0; g < groups.size() && g < kShownRefusals; ++g) {
    const Group &grp = groups[g];
    os << "  " << *grp.op << " x" << grp.n << ": " << *grp.reason;
    auto it = where.find({*grp.op, *grp.reason});
    if (it != where.end()) {
      os << " (at ";
      for (size_t k = 0; k < it->second.size(); ++k)
        os << (k ? ", " : "") << it->second[k]->method << ": " << it->second[k]->location;
      if (grp.n > static_cast<int64_t>(it->second.size()))
        os << ", ...";
      os << ")";
    }
    os << "\n";
  }
  if (groups.size() > kShownRefusals) {
    int64_t rest = 0;
    for (size_t g = kShownRefusals; g < groups.size(); ++g)
      rest += groups[g].n;
    os << "  ... " << groups.size() - kShownRefusals << " more (op, reason) groups ("
       << count(rest, "op", "ops") << "; the JSON lists every op with its line)\n";
  }
}

namespace {

/// The planner line: "--planner best, which chose greedy" or "greedy".
std::string plannerText(const std::string &asked, const std::string &algorithm) {
  std::string chose = plannerFlagName(algorithm);
  if (asked.empty())
    return chose;
  if (asked == chose)
    return "--planner " + asked;
  return "--planner " + asked + ", which chose " + chose;
}

} // namespace

/// One method: ops, delegation per backend, write-back, the memory plan and
/// what the plan leaves to the delegates. `full`: several lines; else one.
static void writeMethod(llvm::raw_ostream &os, const CompileReport &r,
                        const CompileReport::Method &m, bool full) {
  char buf[256];
  std::map<std::string, std::pair<int64_t, int64_t>> entries; // backend -> entries, calls
  std::map<std::string, int64_t> withoutScratch;
  uint64_t scratch = 0;
  for (const CompileReport::Delegate &d : m.delegates) {
    auto &e = entries[d.backend];
    ++e.first;
    e.second += d.callSites;
    for (uint64_t b : d.scratchBytes)
      scratch += b;
    if (d.scratchBytes.empty())
      ++withoutScratch[d.backend];
  }
  if (!full) {
    os << "== method " << m.name << ": " << m.atenOps << " ATen ops, " << m.instructions
       << " instructions";
    for (auto &[backend, n] : m.delegatedOps)
      os << ", " << backend << " " << n << " ops";
    os << ", " << m.copies.size() << " copies, plan " << m.planned << " bytes\n";
    return;
  }
  os << "== method " << m.name << "\n";
  if (r.loadedAfter.empty())
    os << "  " << m.atenOps << " ATen ops before partitioning, ";
  else
    os << "  " << m.atenOps << " ATen ops in the IR as loaded (saved after phase '"
       << r.loadedAfter << "'; ops already lowered into delegate blobs are not counted), ";
  os << m.instructions << " instructions in the program\n";
  for (auto &[backend, n] : m.delegatedOps) {
    std::snprintf(buf, sizeof buf, "  %s: %lld ops delegated (%.1f%% of the graph)",
                  backend.c_str(), (long long)n,
                  m.atenOps ? 100.0 * static_cast<double>(n) / m.atenOps : 0.0);
    os << buf;
    // The lowered module's id is the backend's runtime id, as here.
    auto it = entries.find(backend);
    if (it != entries.end()) {
      os << ", " << count(it->second.first, "delegate entry", "delegate entries") << " for "
         << count(it->second.second, "call site", "call sites");
      if (it->second.second > it->second.first)
        os << " (calls share handles)";
      entries.erase(it);
    }
    os << "\n";
  }
  for (auto &[backend, e] : entries) // entries of a backend with no op count
    os << "  " << backend << ": " << count(e.first, "delegate entry", "delegate entries")
       << " for " << count(e.second, "call site", "call sites")
       << (e.second > e.first ? " (calls share handles)\n" : "\n");
  int64_t atEnd = 0;
  for (const CompileReport::Copy &c : m.copies)
    atEnd += c.movedUp == 0;
  os << "  write-back: " << count(static_cast<int64_t>(m.copies.size()), "copy", "copies");
  if (!m.copies.empty())
    os << " (" << static_cast<int64_t>(m.copies.size()) - atEnd << " moved up, " << atEnd
       << " at the end)";
  os << ", " << m.inPlace << " in place, " << m.snapshots << " snapshots\n";
  for (size_t k = 0; k < m.copies.size() && k < kShownCopies; ++k) {
    const CompileReport::Copy &c = m.copies[k];
    os << "    copy into '" << c.state << "': "
       << (c.movedUp ? std::to_string(c.movedUp) + " ops before the end" : "at the end")
       << "\n";
  }
  if (m.copies.size() > kShownCopies)
    os << "    ... and " << m.copies.size() - kShownCopies
       << " more copies (the JSON lists every one)\n";
  std::string planner = plannerText(r.plannerAsked, m.planner);
  std::string withScratch =
      scratch > 0 ? ", delegate scratch in it: " + std::to_string(scratch) + " bytes" : "";
  if (r.fileSize > 0) {
    std::snprintf(buf, sizeof buf,
                  "  memory plan (%s): %lld bytes, lower bound %lld (ratio %.3f)%s\n",
                  planner.c_str(), (long long)m.planned, (long long)m.lowerBound,
                  m.lowerBound ? static_cast<double>(m.planned) / m.lowerBound : 1.0,
                  withScratch.c_str());
    os << buf;
  } else if (!m.planner.empty()) {
    os << "  memory plan (" << planner << "): " << m.planned << " bytes" << withScratch
       << " (the lower bound is measured on a written .pte; none was written)\n";
  }
  int64_t own = 0;
  for (auto &[backend, n] : withoutScratch)
    own += n;
  if (own > 0) {
    os << "  not in the plan: memory the delegates allocate themselves at init ("
       << count(own, "entry", "entries") << " without planned scratch";
    if (withoutScratch.count("XnnpackBackend"))
      os << "; XNNPACK: its workspace and packed weights, --backend xnnpack:scratch plans "
            "the workspace";
    os << ")\n";
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
  for (size_t k = 0; k < methods.size() && k < kShownMethods + kShortMethods; ++k)
    writeMethod(os, *this, methods[k], k < kShownMethods);
  if (methods.size() > kShownMethods + kShortMethods)
    os << "== ... " << methods.size() - kShownMethods - kShortMethods
       << " more methods (the JSON lists every one)\n";
  if (!regions.empty()) {
    std::map<std::string, std::pair<int64_t, int64_t>> perBackend; // regions, ops
    int64_t ops = 0;
    for (const Region &r : regions) {
      perBackend[r.backend].first += 1;
      perBackend[r.backend].second += r.ops;
      ops += r.ops;
    }
    os << "== delegate regions (numbered as in --partition-dot): "
       << count(static_cast<int64_t>(regions.size()), "region", "regions") << ", "
       << count(ops, "op", "ops");
    for (auto &[backend, n] : perBackend)
      os << "; " << backend << " " << n.first << " (" << count(n.second, "op", "ops") << ")";
    // A few are listed; many are counted (the JSON and the DOT have each).
    if (regions.size() > kShownRegions)
      os << "; the JSON lists every one";
    os << "\n";
    for (size_t k = 0; regions.size() <= kShownRegions && k < regions.size(); ++k) {
      const Region &r = regions[k];
      os << "  @" << r.function << " region " << r.index << " (" << r.backend
         << "): " << count(r.ops, "op", "ops") << "\n";
    }
  }
  writeOps(os);
  if (fileSize > 0) {
    // Segments by kind: a program with weights has one per tensor.
    std::map<std::string, std::pair<int64_t, uint64_t>> kinds; // count, bytes
    for (const Segment &seg : segments) {
      kinds[seg.kind].first += 1;
      kinds[seg.kind].second += seg.size;
    }
    os << "== output: " << fileSize << " bytes (" << humanBytes(fileSize) << "), program "
       << humanBytes(programSize) << ", "
       << count(static_cast<int64_t>(segments.size()), "segment", "segments") << "\n";
    for (auto &[kind, n] : kinds)
      os << "  " << kind << ": " << count(n.first, "segment", "segments") << ", "
         << humanBytes(n.second) << "\n";
  } else {
    os << "== output: none written\n";
  }
  auto list = [&](const char *title, const std::vector<std::string> &items) {
    os << "== " << title << ": " << items.size() << "\n";
    for (size_t k = 0; k < items.size() && k < kShownDiagnostics; ++k)
      os << "  " << items[k] << "\n";
    if (items.size() > kShownDiagnostics)
      os << "  ... " << items.size() - kShownDiagnostics
         << " more (the JSON lists every one)\n";
  };
  std::vector<std::string> errors;
  for (const Diagnostic &d : diagnostics)
    if (d.severity == "error")
      errors.push_back((d.location.empty() ? "" : d.location + ": ") +
                       (d.node.empty() ? "" : "node '" + d.node + "': ") + d.text);
  if (!errors.empty())
    list("errors", errors);
  list("warnings", warnings);
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
  Array ph, ms, rf, sg, wn, dg;
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
    int64_t scratch = 0, withoutScratch = 0;
    for (const Copy &c : m.copies)
      copies.push_back(Object{{"state", c.state}, {"moved_up", c.movedUp}});
    for (const Delegate &d : m.delegates) {
      Array bytes;
      for (uint64_t b : d.scratchBytes) {
        bytes.push_back(static_cast<int64_t>(b));
        scratch += static_cast<int64_t>(b);
      }
      withoutScratch += d.scratchBytes.empty();
      delegates.push_back(Object{{"backend", d.backend},
                                 {"call_sites", d.callSites},
                                 {"scratch_bytes", std::move(bytes)}});
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
        {"memory_plan", Object{{"algorithm", plannerFlagName(m.planner)},
                               {"planner", plannerAsked},
                               {"planned_bytes", m.planned},
                               {"lower_bound_bytes", m.lowerBound},
                               {"arena_sizes", std::move(arenas)},
                               {"delegate_scratch_bytes", scratch},
                               {"delegates_without_scratch", withoutScratch}}},
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
  std::map<std::string, std::pair<int64_t, int64_t>> kinds;
  for (const Segment &s : segments) {
    sg.push_back(Object{{"kind", s.kind}, {"bytes", static_cast<int64_t>(s.size)}});
    kinds[s.kind].first += 1;
    kinds[s.kind].second += static_cast<int64_t>(s.size);
  }
  Array kindsJson;
  for (auto &[kind, n] : kinds)
    kindsJson.push_back(Object{{"kind", kind}, {"segments", n.first}, {"bytes", n.second}});
  for (const std::string &w : warnings)
    wn.push_back(w);
  for (const Diagnostic &d : diagnostics) {
    Array notes;
    for (auto &[where, text] : d.notes)
      notes.push_back(Object{{"location", where}, {"text", text}});
    dg.push_back(Object{{"severity", d.severity},
                        {"location", d.location},
                        {"node", d.node},
                        {"text", d.text},
                        {"notes", std::move(notes)}});
  }
  Object root{{"schema", "ptec-compile-report"},
              {"version", kVersion},
              {"phases", std::move(ph)},
              {"methods", std::move(ms)},
              {"ops", std::move(opsJson)},
              {"regions", std::move(regionsJson)},
              {"refused", std::move(rf)},
              {"output", Object{{"file_bytes", static_cast<int64_t>(fileSize)},
                                {"program_bytes", static_cast<int64_t>(programSize)},
                                {"segments", std::move(sg)},
                                {"segment_kinds", std::move(kindsJson)}}},
              {"warnings", std::move(wn)},
              {"diagnostics", std::move(dg)},
              {"result", Object{{"ok", failedDuring.empty()}, {"failed_during", failedDuring}}}};
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return os.str();
}

} // namespace ptec
