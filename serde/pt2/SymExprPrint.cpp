// SymExpr printing: the tree as sympy str text with the fewest parentheses
// that keep its meaning (the form ExportedProgram writes back), and the
// shortened form error messages quote.
#include "serde/pt2/SymExprInternal.h"

namespace ptec::pt2 {
namespace detail {
namespace {

// ------------------------------------------------------------------ printing

// Precedence of the printed form: 1 sum, 2 product / // / %, 3 leading minus,
// 4 power, 5 atom.
struct Printed {
  std::string text;
  int prec;
};

Printed print(const NodeP &n);

std::string wrap(const Printed &p, int minPrec) {
  return p.prec < minPrec ? "(" + p.text + ")" : p.text;
}

// A product's factors, constants first. If negateCoefficient, the leading
// constant is negated (its caller writes " - ").
Printed printMul(const NodeP &n, bool negateCoefficient) {
  std::vector<NodeP> consts, rest;
  for (const NodeP &k : n->kids)
    (k->kind == SymKind::Integer ? consts : rest).push_back(k);
  std::vector<NodeP> factors = consts;
  factors.insert(factors.end(), rest.begin(), rest.end());
  if (negateCoefficient)
    factors[0] = makeInt(-factors[0]->value);
  std::string out;
  size_t i = 0;
  bool leadingMinus = false;
  if (factors.size() > 1 && factors[0]->kind == SymKind::Integer &&
      (factors[0]->value == 1 || factors[0]->value == -1)) {
    leadingMinus = factors[0]->value == -1;
    out = leadingMinus ? "-" : "";
    i = 1;
  }
  size_t printed = 0;
  for (; i < factors.size(); ++i, ++printed) {
    Printed p = print(factors[i]);
    bool divLike = factors[i]->kind == SymKind::FloorDiv || factors[i]->kind == SymKind::Mod;
    if (printed)
      out += "*";
    // -a//b would be (-a)//b and a*b//c would be (a*b)//c: parenthesize.
    int minPrec = (printed || leadingMinus) ? 4 : 2;
    out += (divLike || p.prec < minPrec) ? "(" + p.text + ")" : p.text;
  }
  // Reporting a lower precedence than the text has only adds parentheses.
  return {out, leadingMinus && printed == 1 ? 3 : 2};
}

bool isNegativeTerm(const NodeP &t) {
  if (t->kind == SymKind::Integer)
    return t->value < 0 && t->value != kI64Min;
  if (t->kind != SymKind::Mul)
    return false;
  for (const NodeP &k : t->kids)
    if (k->kind == SymKind::Integer)
      return k->value < 0 && k->value != kI64Min;  // printMul puts the first constant first
  return false;
}

Printed print(const NodeP &n) {
  switch (n->kind) {
  case SymKind::Integer:
    return {std::to_string(n->value), n->value < 0 ? 3 : 5};
  case SymKind::Symbol:
    return {n->name, 5};
  case SymKind::Add: {
    std::vector<NodeP> terms;
    for (const NodeP &k : n->kids)
      if (k->kind != SymKind::Integer)
        terms.push_back(k);
    for (const NodeP &k : n->kids)
      if (k->kind == SymKind::Integer)
        terms.push_back(k);
    std::string out = wrap(print(terms[0]), 1);
    for (size_t i = 1; i < terms.size(); ++i) {
      const NodeP &t = terms[i];
      if (isNegativeTerm(t)) {
        Printed p = t->kind == SymKind::Integer ? Printed{std::to_string(-t->value), 5} : printMul(t, true);
        out += " - " + wrap(p, 2);
      } else {
        out += " + " + wrap(print(t), 2);
      }
    }
    return {out, 1};
  }
  case SymKind::Mul:
    return printMul(n, false);
  case SymKind::Pow:
    return {wrap(print(n->kids[0]), 5) + "**" + std::to_string(n->value), 4};
  case SymKind::FloorDiv:
  case SymKind::Mod: {
    const char *op = n->kind == SymKind::FloorDiv ? "//" : " % ";
    return {wrap(print(n->kids[0]), 2) + op + wrap(print(n->kids[1]), 4), 2};
  }
  case SymKind::CeilDiv:
  case SymKind::Max:
  case SymKind::Min: {
    std::string out = n->kind == SymKind::CeilDiv ? "CeilDiv(" : n->kind == SymKind::Max ? "Max(" : "Min(";
    for (size_t i = 0; i < n->kids.size(); ++i)
      out += (i ? ", " : "") + print(n->kids[i]).text;
    return {out + ")", 5};
  }
  }
  return {"?", 5};
}

}  // namespace

std::string shortText(const NodeP &n) {
  std::string s = print(n).text;
  return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

}  // namespace detail

using namespace detail;

std::string SymExpr::str() const { return print(root_).text; }

}  // namespace ptec::pt2
