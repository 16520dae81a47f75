// pte-run's text lines and JSON document (see RunOutput.h).
#include "tooling/RunOutput.h"

#include "tooling/Profile.h"
#include "tooling/ValueFormat.h"

#include <algorithm>
#include <cmath>

namespace ptec::tooling {
using namespace ptec::rt;

namespace {

struct Summary {
  bool numeric = false;
  double min = INFINITY, max = -INFINITY, mean = 0;
  int64_t n = 0;
};

Summary summarize(const EValue &v) {
  Summary s;
  if (!v.isTensor() || v.toTensor().data() == nullptr || v.toTensor().numel() <= 0)
    return s;
  const Tensor &t = v.toTensor();
  s.n = t.numel();
  double sum = 0, x = 0;
  for (int64_t k = 0; k < s.n; ++k) {
    if (!elementAsDouble(t, k, x))
      return s;
    s.min = std::min(s.min, x);
    s.max = std::max(s.max, x);
    sum += x;
  }
  s.numeric = true;
  s.mean = sum / double(s.n);
  return s;
}

constexpr int64_t kFirstElements = 6;

} // namespace

std::string RunOutput::valueText(const std::string &label, const EValue &v) {
  std::string text = label + ": " + describeValue(v);
  Summary s = summarize(v);
  if (!s.numeric)
    return text;
  char buf[128];
  std::snprintf(buf, sizeof buf, "  min %.6g max %.6g mean %.6g  [", s.min, s.max, s.mean);
  text += buf;
  for (int64_t k = 0; k < std::min(s.n, kFirstElements); ++k)
    text += (k ? ", " : "") + formatElement(v.toTensor(), k);
  return text + (s.n > kFirstElements ? ", ...]" : "]");
}

nlohmann::ordered_json RunOutput::valueJson(const std::string &label, const EValue &v) {
  nlohmann::ordered_json entry = {{"label", label}, {"value", describeValue(v)}};
  switch (v.tag()) {
  case EValue::Tag::Int: entry["scalar"] = v.toInt(); break;
  case EValue::Tag::Double: entry["scalar"] = v.toDouble(); break;
  case EValue::Tag::Bool: entry["scalar"] = v.toBool(); break;
  case EValue::Tag::String: entry["string"] = std::string(v.stringData(), v.stringSize()); break;
  case EValue::Tag::DoubleList:
    entry["items"] = std::vector<double>(v.doubleList().begin(), v.doubleList().end());
    break;
  case EValue::Tag::IntList: {
    nlohmann::ordered_json items = nlohmann::ordered_json::array();
    for (size_t i = 0; i < v.listSize(); ++i)
      items.push_back(v.listItems()[i] ? v.listItems()[i]->toInt() : 0);
    entry["items"] = items;
    break;
  }
  case EValue::Tag::BoolList: {
    nlohmann::ordered_json items = nlohmann::ordered_json::array();
    for (size_t i = 0; i < v.listSize(); ++i)
      items.push_back(v.boolList()[i] != 0);
    entry["items"] = items;
    break;
  }
  default: break;
  }
  Summary s = summarize(v);
  if (!s.numeric)
    return entry;
  nlohmann::ordered_json first = nlohmann::ordered_json::array();
  for (int64_t k = 0; k < std::min(s.n, kFirstElements); ++k) {
    double x = 0;
    elementAsDouble(v.toTensor(), k, x);
    first.push_back(x);
  }
  entry["min"] = s.min;
  entry["max"] = s.max;
  entry["mean"] = s.mean;
  entry["first"] = first;
  return entry;
}

void RunOutput::line(const std::string &text) { std::fprintf(text_, "%s\n", text.c_str()); }

void RunOutput::delegates(size_t entries,
                          const std::vector<std::pair<std::string, size_t>> &inits) {
  if (json_) {
    nlohmann::ordered_json calls = nlohmann::ordered_json::object();
    for (auto &[id, n] : inits)
      calls[id] = n;
    doc_["delegates"] = {{"entries", entries}, {"init_calls", calls}};
    return;
  }
  std::string text = "delegates: " + std::to_string(entries) + " entries, init calls:";
  for (auto &[id, n] : inits)
    text += " " + id + "=" + std::to_string(n);
  line(text);
}

void RunOutput::value(const std::string &label, const EValue &v) {
  if (json_)
    doc_["values"].push_back(valueJson(label, v));
  else
    line(valueText(label, v));
}

bool RunOutput::compare(const std::string &label, const EValue &v, const NpyArray &want,
                        Tolerance tol, std::string &problem) {
  Comparison c;
  if (!compareWithExpected(v, want, tol, c, problem)) {
    problem = label + (problem.front() == ':' ? "" : " ") + problem;
    return false;
  }
  if (json_) {
    doc_["comparisons"].push_back({{"label", label},
                                   {"ok", c.ok()},
                                   {"max_abs_err", c.maxAbs},
                                   {"max_rel_err", c.maxRel},
                                   {"bad_elements", c.bad},
                                   {"elements", c.elements},
                                   {"first_bad", c.firstBad}});
    return c.ok();
  }
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s vs expected: max abs err %.3g, max rel err %.3g: %s",
                label.c_str(), c.maxAbs, c.maxRel, c.ok() ? "ok" : "MISMATCH");
  std::string text = buf;
  if (!c.ok()) {
    std::snprintf(buf, sizeof buf,
                  " (%lld of %lld elements outside atol %.3g + rtol %.3g, first at %lld)",
                  (long long)c.bad, (long long)c.elements, tol.atol, tol.rtol,
                  (long long)c.firstBad);
    text += buf;
  }
  line(text);
  return c.ok();
}

void RunOutput::mismatch(const std::string &label, const std::string &why) {
  if (json_)
    doc_["comparisons"].push_back({{"label", label}, {"ok", false}, {"problem", why}});
  else
    line(label + " vs expected: MISMATCH: " + why);
}

void RunOutput::timings(double loadMs, double initMs, std::vector<double> runMs,
                        double peakRssMiB) {
  Percentiles s = percentiles(runMs);
  if (json_) {
    doc_["timings"] = {{"load_ms", loadMs},
                       {"method_init_ms", initMs},
                       {"runs", runMs.size()},
                       {"run_ms", {{"p50", s.p50}, {"p90", s.p90}, {"p99", s.p99}}},
                       {"peak_rss_mib", peakRssMiB}};
    return;
  }
  std::fprintf(text_,
               "load %.3f ms, method init %.3f ms, run (%zu) p50 %.3f ms p90 %.3f ms p99 %.3f "
               "ms, peak RSS %.1f MiB\n",
               loadMs, initMs, runMs.size(), s.p50, s.p90, s.p99, peakRssMiB);
}

void RunOutput::profile(const std::vector<ProfileRow> &byInstruction,
                        const std::vector<ProfileRow> &byOperator, double totalMs) {
  if (json_) {
    auto rows = [](const std::vector<ProfileRow> &v) {
      nlohmann::ordered_json a = nlohmann::ordered_json::array();
      for (const ProfileRow &r : v)
        a.push_back({{"what", r.what}, {"calls", r.calls}, {"total_ms", r.totalMs}});
      return a;
    };
    doc_["profile"] = {{"total_ms", totalMs},
                       {"by_operator", rows(byOperator)},
                       {"by_instruction", rows(byInstruction)}};
    return;
  }
  auto table = [&](const char *title, const std::vector<ProfileRow> &v, size_t limit) {
    std::fprintf(text_, "%s\n  %9s %6s %10s %7s  %s\n", title, "total ms", "share", "mean us",
                 "calls", "what");
    for (size_t i = 0; i < v.size() && i < limit; ++i) {
      const ProfileRow &r = v[i];
      std::fprintf(text_, "  %9.3f %5.1f%% %10.2f %7llu  %s\n", r.totalMs,
                   totalMs > 0 ? 100.0 * r.totalMs / totalMs : 0.0,
                   r.calls ? 1000.0 * r.totalMs / static_cast<double>(r.calls) : 0.0,
                   (unsigned long long)r.calls, r.what.c_str());
    }
    if (v.size() > limit)
      std::fprintf(text_, "  ... %zu more\n", v.size() - limit);
  };
  std::fprintf(text_, "profile: %.3f ms in instructions\n", totalMs);
  table("by operator:", byOperator, byOperator.size());
  table("by instruction (slowest first):", byInstruction, 20);
}

std::string RunOutput::finish(bool ok) {
  if (!json_)
    return "";
  doc_["ok"] = ok;
  return doc_.dump(2) + "\n";
}

} // namespace ptec::tooling
