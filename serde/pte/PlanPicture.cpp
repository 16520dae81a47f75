// The memory plan as an SVG picture (pte-inspect --plan-svg, aot-compile
// --plan-svg): per method, one band per arena, time (instruction index) to
// the right and byte offset downwards, both with labelled axes; a band's
// height follows its arena's size; the lower bound of PlanBound as a dashed
// line inside the band.
#include "serde/pte/PlanBound.h"
#include "serde/pte/PteListing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ptec::pte {
namespace fb = executorch_flatbuffer;

namespace {

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

/// About `want` round tick values in [0, max]: steps of 1, 2 or 5 x 10^k.
std::vector<uint64_t> ticks(uint64_t max, int want) {
  std::vector<uint64_t> out;
  if (max == 0)
    return {0};
  double raw = static_cast<double>(max) / want;
  double mag = std::pow(10.0, std::floor(std::log10(std::max(raw, 1.0))));
  uint64_t step = static_cast<uint64_t>(mag);
  for (double f : {1.0, 2.0, 5.0, 10.0})
    if (mag * f >= raw) {
      step = static_cast<uint64_t>(mag * f);
      break;
    }
  step = std::max<uint64_t>(step, 1);
  for (uint64_t v = 0; v <= max; v += step)
    out.push_back(v);
  return out;
}

/// The axis unit for an arena of `bytes`: B, KiB or MiB, so that ticks
/// read "512 KiB" rather than "524288".
struct Unit {
  uint64_t bytes;
  const char *name;
};
Unit unitFor(uint64_t bytes) {
  if (bytes >= (4ull << 20))
    return {1ull << 20, "MiB"};
  if (bytes >= (4ull << 10))
    return {1ull << 10, "KiB"};
  return {1, "B"};
}

/// "53152 B" as "51.9 KiB" (exact bytes stay in the tooltips and data-*).
std::string human(uint64_t bytes) {
  char buf[32];
  if (bytes < 1024)
    std::snprintf(buf, sizeof buf, "%llu B", (unsigned long long)bytes);
  else if (bytes < (1ull << 20))
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024);
  else
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

/// Drawn later is drawn on top: plain tensors (and the views that share
/// their bytes) first, then what a reader looks for.
int drawOrder(PlannedRange::Kind k) {
  switch (k) {
  case PlannedRange::Kind::Tensor: return 0;
  case PlannedRange::Kind::Scratch: return 1;
  case PlannedRange::Kind::Output: return 2;
  case PlannedRange::Kind::State: return 3;
  case PlannedRange::Kind::Input: return 4;
  }
  return 0;
}

std::string methodName(const fb::ExecutionPlan *plan) {
  return plan->name() ? plan->name()->str() : "<unnamed>";
}

constexpr double kWidth = 900, kLeft = 110, kRight = 30, kMaxBand = 360, kMinBand = 60,
                 kBandGap = 70, kMethodHead = 50;
const char *kColors[] = {"#7aa6d6", "#8cc68c", "#f0a35e", "#b08fd8", "#e06666"};

/// One method's bands, from `y0`; returns the height used.
double drawMethod(std::ostringstream &os, const PteView &view, uint32_t m, double y0,
                  uint64_t largestArena) {
  const fb::ExecutionPlan *plan = view.program->execution_plan()->Get(m);
  std::vector<PlannedRange> ranges = plannedRanges(view, m);
  PlanBound bound = planLowerBound(view, m, ranges);
  std::stable_sort(ranges.begin(), ranges.end(), [](const auto &a, const auto &b) {
    return drawOrder(a.kind) < drawOrder(b.kind);
  });
  const auto *chains = plan->chains();
  const auto *instrs = chains && chains->size() ? chains->Get(0)->instructions() : nullptr;
  int64_t steps = std::max<int64_t>(1, instrs ? instrs->size() : 0);
  std::string name = xmlEscape(methodName(plan));
  os << "<g class=\"method\" id=\"method-" << name << "\" data-planned=\"" << bound.planned
     << "\" data-lower-bound=\"" << bound.lowerBound << "\">\n";
  std::vector<std::string> states;
  for (const PlannedRange &r : ranges)
    if (r.kind == PlannedRange::Kind::State)
      states.push_back(r.stateName.empty() ? "?" : r.stateName);
  std::sort(states.begin(), states.end());
  os << "<text class=\"method-title\" x=\"" << kLeft << "\" y=\"" << y0 + 20
     << "\" font-size=\"15\">Method '" << name << "': " << ranges.size() << " ranges, "
     << steps << " instructions, plan " << human(bound.planned) << ", lower bound "
     << human(bound.lowerBound) << "</text>\n";
  if (!states.empty()) {
    // Named by aot-compile --emit-state-names; "?" when the program has no names.
    std::string list;
    for (size_t k = 0; k < states.size() && k < 8; ++k)
      list += (k ? ", " : "") + states[k];
    if (states.size() > 8)
      list += ", +" + std::to_string(states.size() - 8) + " more";
    os << "<text class=\"state-list\" x=\"" << kLeft << "\" y=\"" << y0 + 38
       << "\" font-size=\"11\">state: " << xmlEscape(list)
       << (std::count(states.begin(), states.end(), "?") > 0 ? " (aot-compile --emit-state-names names them)" : "")
       << "</text>\n";
  }
  double y = y0 + kMethodHead;
  for (auto &[mem, bytes] : bound.arenaBytes) {
    double band = largestArena ? kMaxBand * static_cast<double>(bytes) /
                                     static_cast<double>(largestArena)
                               : kMinBand;
    band = std::max(band, kMinBand);
    double scale = bytes ? band / static_cast<double>(bytes) : 0;
    os << "<g class=\"arena\" id=\"" << name << "-arena" << mem << "\" data-bytes=\"" << bytes
       << "\">\n";
    os << "<text x=\"4\" y=\"" << y + 14 << "\">arena " << mem << "</text>\n";
    os << "<rect class=\"frame\" x=\"" << kLeft << "\" y=\"" << y << "\" width=\"" << kWidth
       << "\" height=\"" << band << "\" fill=\"none\" stroke=\"#444\"/>\n";
    // y axis: offsets, in the arena's unit.
    const Unit unit = unitFor(bytes);
    os << "<g class=\"axis y\" data-unit=\"" << unit.name << "\">\n";
    for (uint64_t t : ticks(bytes / unit.bytes, 4)) {
      double ty = y + scale * static_cast<double>(t * unit.bytes);
      os << "<line x1=\"" << kLeft - 5 << "\" y1=\"" << ty << "\" x2=\"" << kLeft << "\" y2=\""
         << ty << "\" stroke=\"#444\"/><text x=\"" << kLeft - 8 << "\" y=\"" << ty + 4
         << "\" text-anchor=\"end\" font-size=\"10\">" << t << " " << unit.name
         << "</text>\n";
    }
    os << "<text class=\"axis-label\" x=\"4\" y=\"" << y + 30
       << "\" font-size=\"10\">offset</text>\n</g>\n";
    for (const PlannedRange &r : ranges) {
      if (r.memId != mem)
        continue;
      double x = kLeft + kWidth * static_cast<double>(r.first) / steps;
      double w = std::max(1.0, kWidth * static_cast<double>(r.last - r.first + 1) / steps);
      double ry = y + scale * static_cast<double>(r.offset);
      double h = std::max(1.0, scale * static_cast<double>(r.size));
      os << "<rect class=\"" << kindName(r.kind) << "\" x=\"" << x << "\" y=\"" << ry
         << "\" width=\"" << w << "\" height=\"" << h << "\" fill=\""
         << kColors[static_cast<int>(r.kind)]
         << "\" fill-opacity=\"0.85\" stroke=\"#222\" stroke-width=\"0.5\"><title>"
         << xmlEscape(r.label) << ", live [" << r.first << ", " << r.last << "], offset "
         << r.offset << ", " << r.size << " B</title></rect>\n";
      if (!r.stateName.empty()) // the name on the box, at its top left
        os << "<text class=\"state-name\" x=\"" << x + 3 << "\" y=\"" << ry + std::min(h, 11.0) - 1
           << "\" font-size=\"9\">" << xmlEscape(r.stateName) << "</text>\n";
    }
    if (bound.peakBytes.count(mem) && bytes) {
      uint64_t peak = std::min(bound.peakBytes[mem], bytes);
      double ly = y + scale * static_cast<double>(peak);
      os << "<line class=\"lower-bound\" x1=\"" << kLeft << "\" y1=\"" << ly << "\" x2=\""
         << kLeft + kWidth << "\" y2=\"" << ly
         << "\" stroke=\"#c00\" stroke-dasharray=\"6,4\"/>\n";
      // Above the line, or below it when the line is at the band's top.
      double ty = ly - y < 16 ? ly + 14 : ly - 4;
      os << "<text class=\"lower-bound-label\" x=\"" << kLeft + kWidth - 4 << "\" y=\"" << ty
         << "\" text-anchor=\"end\" fill=\"#c00\">lower bound " << human(bound.peakBytes[mem])
         << " of " << human(bytes) << "</text>\n";
    }
    // x axis: instruction indices, under the band.
    double by = y + band;
    os << "<g class=\"axis x\">\n";
    for (uint64_t t : ticks(static_cast<uint64_t>(steps), 10)) {
      double tx = kLeft + kWidth * static_cast<double>(t) / steps;
      os << "<line x1=\"" << tx << "\" y1=\"" << by << "\" x2=\"" << tx << "\" y2=\""
         << by + 5 << "\" stroke=\"#444\"/><text x=\"" << tx << "\" y=\"" << by + 17
         << "\" text-anchor=\"middle\" font-size=\"10\">" << t << "</text>\n";
    }
    os << "<text class=\"axis-label\" x=\"" << kLeft + kWidth / 2 << "\" y=\"" << by + 32
       << "\" text-anchor=\"middle\" font-size=\"10\">instruction</text>\n</g>\n";
    os << "</g>\n";
    y += band + kBandGap;
  }
  os << "</g>\n";
  return y - y0;
}

} // namespace

bool planSvg(const PteView &view, const std::string &method, std::string *svg,
             std::string *err) {
  auto *plans = view.program->execution_plan();
  std::vector<uint32_t> drawn;
  for (uint32_t m = 0; plans && m < plans->size(); ++m)
    if (method.empty() || methodName(plans->Get(m)) == method)
      drawn.push_back(m);
  if (drawn.empty()) {
    *err = method.empty() ? "the program has no methods" : "no method named '" + method + "'";
    return false;
  }
  // Band heights compare across the whole picture: the largest arena of any
  // drawn method gets the full height.
  uint64_t largest = 0;
  double height = 70;
  for (uint32_t m : drawn) {
    PlanBound b = planLowerBound(view, m, {});
    for (auto &[mem, bytes] : b.arenaBytes)
      largest = std::max(largest, bytes);
  }
  std::ostringstream body;
  for (uint32_t m : drawn)
    height += drawMethod(body, view, m, height, largest);
  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kLeft + kWidth + kRight
     << "\" height=\"" << height + 30 << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  os << "<title>memory plan</title>\n";
  os << "<text x=\"" << kLeft << "\" y=\"20\" font-size=\"15\">Memory plan: " << drawn.size()
     << (drawn.size() == 1 ? " method" : " methods")
     << "; time: instruction index (left to right), offset in the arena (top to "
        "bottom)</text>\n";
  const char *names[] = {"tensor", "input", "output", "state", "scratch"};
  for (int k = 0; k < 5; ++k)
    os << "<g class=\"legend\"><rect x=\"" << kLeft + 110 * k
       << "\" y=\"32\" width=\"12\" height=\"12\" fill=\"" << kColors[k] << "\"/><text x=\""
       << kLeft + 110 * k + 16 << "\" y=\"43\">" << names[k] << "</text></g>\n";
  os << "<g class=\"legend\"><line x1=\"" << kLeft + 550 << "\" y1=\"38\" x2=\"" << kLeft + 580
     << "\" y2=\"38\" stroke=\"#c00\" stroke-dasharray=\"6,4\"/><text x=\"" << kLeft + 584
     << "\" y=\"43\">lower bound</text></g>\n";
  os << body.str() << "</svg>\n";
  *svg = os.str();
  return true;
}

} // namespace ptec::pte
