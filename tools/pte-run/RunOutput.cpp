#include "tools/pte-run/RunOutput.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ptec::pterun {
using namespace ptec::rt;

std::string shapeString(Span<const int64_t> sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i)
    s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

namespace {

/// Element i (row-major) of a tensor as double (every dtype pte-run reads or
/// writes), whatever the tensor's dim order.
bool elementAsDouble(const Tensor &t, int64_t i, double &out) {
  const void *p = t.data();
  i = t.offsetOf(i);
  switch (t.dtype()) {
  case ScalarType::Float: out = static_cast<const float *>(p)[i]; return true;
  case ScalarType::Double: out = static_cast<const double *>(p)[i]; return true;
  case ScalarType::Long: out = double(static_cast<const int64_t *>(p)[i]); return true;
  case ScalarType::Int: out = static_cast<const int32_t *>(p)[i]; return true;
  case ScalarType::Short: out = static_cast<const int16_t *>(p)[i]; return true;
  case ScalarType::Char: out = static_cast<const int8_t *>(p)[i]; return true;
  case ScalarType::Byte: out = static_cast<const uint8_t *>(p)[i]; return true;
  case ScalarType::Bool: out = static_cast<const uint8_t *>(p)[i] ? 1 : 0; return true;
  default: return false;
  }
}

struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0;
};
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

} // namespace

std::string describeValue(const EValue &v) {
  char buf[128];
  switch (v.tag()) {
  case EValue::Tag::Tensor: {
    const Tensor &t = v.toTensor();
    return std::string(toString(t.dtype())) + " " + shapeString(t.sizes());
  }
  case EValue::Tag::Int: std::snprintf(buf, sizeof buf, "int %lld", (long long)v.toInt()); return buf;
  case EValue::Tag::Double: std::snprintf(buf, sizeof buf, "double %g", v.toDouble()); return buf;
  case EValue::Tag::Bool: return v.toBool() ? "bool true" : "bool false";
  case EValue::Tag::None: return "None";
  default: return "list";
  }
}

void RunOutput::delegates(size_t entries,
                          const std::vector<std::pair<std::string, size_t>> &inits) {
  if (json_) {
    nlohmann::ordered_json calls = nlohmann::ordered_json::object();
    for (auto &[id, n] : inits)
      calls[id] = n;
    doc_["delegates"] = {{"entries", entries}, {"init_calls", calls}};
    return;
  }
  std::printf("delegates: %zu entries, init calls:", entries);
  for (auto &[id, n] : inits)
    std::printf(" %s=%zu", id.c_str(), n);
  std::printf("\n");
}

void RunOutput::value(const std::string &label, const EValue &v) {
  nlohmann::ordered_json entry = {{"label", label}, {"value", describeValue(v)}};
  std::string text = label + ": " + describeValue(v);
  if (v.isTensor() && v.toTensor().data() != nullptr && v.toTensor().numel() > 0) {
    const Tensor &t = v.toTensor();
    double mn = INFINITY, mx = -INFINITY, sum = 0, x = 0;
    int64_t n = t.numel();
    bool numeric = true;
    for (int64_t k = 0; k < n && numeric; ++k) {
      numeric = elementAsDouble(t, k, x);
      mn = std::min(mn, x);
      mx = std::max(mx, x);
      sum += x;
    }
    if (numeric) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "  min %.6g max %.6g mean %.6g  [", mn, mx, sum / double(n));
      text += buf;
      nlohmann::ordered_json first = nlohmann::ordered_json::array();
      for (int64_t k = 0; k < std::min<int64_t>(n, 6); ++k) {
        elementAsDouble(t, k, x);
        std::snprintf(buf, sizeof buf, "%s%.6g", k ? ", " : "", x);
        text += buf;
        first.push_back(x);
      }
      text += n > 6 ? ", ...]" : "]";
      entry["min"] = mn;
      entry["max"] = mx;
      entry["mean"] = sum / double(n);
      entry["first"] = first;
    }
  }
  if (json_)
    doc_["values"].push_back(entry);
  else
    std::printf("%s\n", text.c_str());
}

bool RunOutput::compare(const std::string &label, const EValue &v, const NpyArray &want,
                        Tolerance tol, std::string &problem) {
  if (!v.isTensor()) {
    problem = label + " is not a tensor";
    return false;
  }
  const Tensor &t = v.toTensor();
  if (t.numel() != want.numel() ||
      !std::equal(want.shape.begin(), want.shape.end(), t.sizes().begin(), t.sizes().end())) {
    problem = label + " has shape " + shapeString(t.sizes()) + ", expected " +
              shapeString(Span<const int64_t>(want.shape.data(), want.shape.size()));
    return false;
  }
  Tensor w;
  if (w.init(want.dtype, Span<const int64_t>(want.shape.data(), want.shape.size())) != Error::Ok) {
    problem = label + ": the expected shape " +
              shapeString(Span<const int64_t>(want.shape.data(), want.shape.size())) +
              " cannot be a tensor of this runtime";
    return false;
  }
  w.setData(const_cast<uint8_t *>(want.data.data()), want.data.size());
  double maxAbs = 0, maxRel = 0;
  int64_t bad = 0, firstBad = -1;
  for (int64_t k = 0; k < t.numel(); ++k) {
    double a = 0, e = 0;
    if (!elementAsDouble(t, k, a) || !elementAsDouble(w, k, e)) {
      problem = label + " has a dtype pte-run cannot compare";
      return false;
    }
    double diff = std::fabs(a - e);
    bool bothNan = std::isnan(a) && std::isnan(e);
    bool bothInf = std::isinf(a) && a == e;
    if (bothNan || bothInf)
      diff = 0;
    else if (std::isnan(diff))
      diff = INFINITY;
    maxAbs = std::max(maxAbs, diff);
    if (e != 0)
      maxRel = std::max(maxRel, diff / std::fabs(e));
    if (diff > tol.atol + tol.rtol * std::fabs(e)) {
      if (firstBad < 0)
        firstBad = k;
      ++bad;
    }
  }
  if (json_) {
    doc_["comparisons"].push_back({{"label", label},
                                   {"ok", bad == 0},
                                   {"max_abs_err", maxAbs},
                                   {"max_rel_err", maxRel},
                                   {"bad_elements", bad},
                                   {"elements", t.numel()},
                                   {"first_bad", firstBad}});
    return bad == 0;
  }
  std::printf("%s vs expected: max abs err %.3g, max rel err %.3g: %s", label.c_str(), maxAbs,
              maxRel, bad ? "MISMATCH" : "ok");
  if (bad)
    std::printf(" (%lld of %lld elements outside atol %.3g + rtol %.3g, first at %lld)",
                (long long)bad, (long long)t.numel(), tol.atol, tol.rtol, (long long)firstBad);
  std::printf("\n");
  return bad == 0;
}

void RunOutput::mismatch(const std::string &label, const std::string &why) {
  if (json_)
    doc_["comparisons"].push_back({{"label", label}, {"ok", false}, {"problem", why}});
  else
    std::printf("%s vs expected: MISMATCH: %s\n", label.c_str(), why.c_str());
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
  std::printf("load %.3f ms, method init %.3f ms, run (%zu) p50 %.3f ms p90 %.3f ms p99 %.3f ms, "
              "peak RSS %.1f MiB\n",
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
    std::printf("%s\n  %9s %6s %10s %7s  %s\n", title, "total ms", "share", "mean us", "calls",
                "what");
    for (size_t i = 0; i < v.size() && i < limit; ++i) {
      const ProfileRow &r = v[i];
      std::printf("  %9.3f %5.1f%% %10.2f %7llu  %s\n", r.totalMs,
                  totalMs > 0 ? 100.0 * r.totalMs / totalMs : 0.0,
                  r.calls ? 1000.0 * r.totalMs / static_cast<double>(r.calls) : 0.0,
                  (unsigned long long)r.calls, r.what.c_str());
    }
    if (v.size() > limit)
      std::printf("  ... %zu more\n", v.size() - limit);
  };
  std::printf("profile: %.3f ms in instructions\n", totalMs);
  table("by operator:", byOperator, byOperator.size());
  table("by instruction (slowest first):", byInstruction, 20);
}

std::string RunOutput::finish(bool ok) {
  if (!json_)
    return "";
  doc_["ok"] = ok;
  return doc_.dump(2) + "\n";
}

} // namespace ptec::pterun
