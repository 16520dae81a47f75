// SymExpr: symbolic size expressions. The parts live by what they do:
// SymExprParse.cpp (text to tree), SymExprEval.cpp (values and bounds),
// SymExprPrint.cpp (tree to text), over the tree of SymExprInternal.h. This
// file holds the constructors and accessors that need none of them.
#include "serde/pt2/SymExprInternal.h"

namespace ptec::pt2 {
using namespace detail;

SymExpr::SymExpr(std::shared_ptr<const detail::SymNode> root) : root_(std::move(root)) {}

SymExpr SymExpr::constant(int64_t value) { return SymExpr(makeInt(value)); }

void SymExpr::symbols(std::set<std::string> &out) const { collectSymbols(root_, out); }

bool SymExpr::isSymbol() const { return root_->kind == SymKind::Symbol; }

std::string SymExpr::symbolName() const { return isSymbol() ? root_->name : std::string(); }

}  // namespace ptec::pt2
