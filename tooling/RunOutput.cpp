// pte-run's text lines and JSON document (see RunOutput.h).
#include "tooling/RunOutput.h"

#include "tooling/Profile.h"
#include "tooling/ValueFormat.h"

#include <algorithm>
#include <charconv>
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

namespace {

/// "[0, 3]" for an element index.
std::string indexText(const std::vector<int64_t> &index) {
  std::string s = "[";
  for (size_t d = 0; d < index.size(); ++d)
    s += (d ? ", " : "") + std::to_string(index[d]);
  return s + "]";
}

std::string g3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

/// An element as text: the shortest that reads back, as a float unless
/// float64 is involved.
std::string elementText(double v, bool float64) {
  if (float64 || !std::isfinite(v))
    return formatDouble(v);
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v));
  return ec == std::errc() ? std::string(buf, end) : formatDouble(v);
}

} // namespace

bool RunOutput::compare(const std::string &label, const EValue &v, const NpyArray &want,
                        ToleranceRequest tol, std::string &problem) {
  Comparison c;
  if (!compareWithExpected(v, want, tol, c, problem)) {
    problem = label + (problem.front() == ':' ? "" : " ") + problem;
    return false;
  }
  // NaN and inf have no JSON number: null says "no tolerance passes".
  auto number = [](double x) {
    return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json();
  };
  if (json_) {
    nlohmann::ordered_json bad = nlohmann::ordered_json::array();
    for (const BadElement &b : c.badShown)
      bad.push_back({{"index", b.index},
                     {"expected", number(b.expected)},
                     {"actual", number(b.actual)},
                     {"abs_err", number(b.absErr)},
                     {"rel_err", number(b.relErr)}});
    nlohmann::ordered_json entry = {{"label", label},
                                    {"ok", c.ok()},
                                    {"rtol", c.tol.rtol},
                                    {"atol", c.tol.atol},
                                    {"tolerance", c.toleranceSource()},
                                    {"max_abs_err", number(c.maxAbs)},
                                    {"max_rel_err", number(c.maxRel)},
                                    {"max_abs_expected", c.maxAbsExpected},
                                    {"bad_elements", c.bad},
                                    {"elements", c.elements},
                                    {"first_bad", c.firstBad},
                                    {"first_bad_values", bad},
                                    {"passing_atol", number(c.passingAtol)},
                                    {"passing_rtol", number(c.passingRtol)},
                                    {"vacuous", c.vacuous()}};
    if (c.vacuous())
      entry["warning"] = c.vacuousAdvice();
    doc_["comparisons"].push_back(entry);
    return c.ok();
  }
  // Every line says what "ok" meant: the tolerances and where they came from.
  const std::string within = "atol " + g3(c.tol.atol) + " + rtol " + g3(c.tol.rtol) +
                             " * |expected|, " + c.toleranceSource();
  std::string text = label + " vs expected: max abs err " + g3(c.maxAbs) + ", max rel err " +
                     g3(c.maxRel) + ": ";
  if (c.ok())
    text += "ok (within " + within + ")";
  else {
    text += "MISMATCH: " + std::to_string(c.bad) + " of " + std::to_string(c.elements) +
            " elements outside " + within;
    for (const BadElement &b : c.badShown)
      text += "\n  at " + indexText(b.index) + ": expected " + elementText(b.expected, c.float64) +
              ", actual " + elementText(b.actual, c.float64) + " (abs err " + g3(b.absErr) +
              ", rel err " + g3(b.relErr) + ")";
    if (c.bad > static_cast<int64_t>(c.badShown.size()))
      text += "\n  ... " + std::to_string(c.bad - static_cast<int64_t>(c.badShown.size())) +
              " more";
    if (std::isinf(c.passingAtol))
      text += "\n  no tolerance passes: NaN or infinity where the other side has none";
    else
      text += "\n  would pass with --atol " + g3(c.passingAtol) + " (at rtol " +
              g3(c.tol.rtol) + ")" +
              (std::isinf(c.passingRtol)
                   ? std::string(" (no rtol would: an expected 0 is off by more than atol)")
                   : " or --rtol " + g3(c.passingRtol) + " (at atol " + g3(c.tol.atol) + ")");
  }
  if (c.vacuous())
    text += "\n  warning: " + c.vacuousAdvice();
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
                        double peakRssMiB, size_t xnnpackThreads) {
  Percentiles s = percentiles(runMs);
  if (json_) {
    doc_["timings"] = {{"load_ms", loadMs},
                       {"method_init_ms", initMs},
                       {"runs", runMs.size()},
                       {"run_ms", {{"p50", s.p50}, {"p90", s.p90}, {"p99", s.p99}}},
                       {"peak_rss_mib", peakRssMiB}};
    if (xnnpackThreads > 0)
      doc_["timings"]["xnnpack_threads"] = xnnpackThreads;
    return;
  }
  std::fprintf(text_,
               "load %.3f ms, method init %.3f ms, run (%zu) p50 %.3f ms p90 %.3f ms p99 %.3f "
               "ms, peak RSS %.1f MiB",
               loadMs, initMs, runMs.size(), s.p50, s.p90, s.p99, peakRssMiB);
  if (xnnpackThreads > 0)
    std::fprintf(text_, ", XNNPACK threads %zu", xnnpackThreads);
  std::fprintf(text_, "\n");
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
