// Listings of a checked .pte for people (pte-inspect --instructions, --plan,
// --plan-svg): every instruction with its operator and argument values, and
// the memory plan as a table and as a picture (tensors as boxes over time x
// arena offset). Lifetimes are read back from the instructions, so the
// listings work on any .pte, ours or upstream's.
#pragma once

#include "serde/pte/PlanBound.h"
#include "serde/pte/PteInspect.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ptec::pte {

/// Every instruction of every method (or of `method` only): index, kind,
/// operator or delegate, and each argument value.
std::string listInstructions(const PteView &view, const std::string &method = "");
/// Per method (or `method` only), per planned tensor: lifetime, arena,
/// offset, size and kind, plus each arena's size against its lower bound
/// and the method's total against its bound (PlanBound.h).
std::string listPlan(const PteView &view, const std::string &method = "");
/// The plan of method `method` (empty: every method) as an SVG picture
/// (PlanPicture.cpp); false with *err when there is no such method.
bool planSvg(const PteView &view, const std::string &method, std::string *svg,
             std::string *err);

} // namespace ptec::pte
