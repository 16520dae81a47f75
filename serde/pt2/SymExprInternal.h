// The expression tree behind SymExpr and the helpers its parts share. Private
// to serde/pt2: SymExprParse.cpp builds trees, SymExprEval.cpp evaluates and
// bounds them, SymExprPrint.cpp writes them as sympy str text; SymExpr.cpp
// holds the small accessors. Recursion everywhere follows the tree, whose
// depth is capped at parse time.
#pragma once

#include "serde/pt2/SymExpr.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace ptec::pt2 {
namespace detail {

enum class SymKind { Integer, Symbol, Add, Mul, Pow, FloorDiv, CeilDiv, Mod, Max, Min };

struct SymNode {
  SymKind kind = SymKind::Integer;
  int64_t value = 0;  // Integer: the value; Pow: the exponent (>= 0)
  std::string name;   // Symbol
  std::vector<std::shared_ptr<const SymNode>> kids;
  int depth = 1;
};

using NodeP = std::shared_ptr<const SymNode>;

inline constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();

inline void setError(std::string *error, const std::string &msg) {
  if (error)
    *error = msg;
}

inline bool isIdentStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
inline bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }

inline bool isIdentifier(const std::string &s) {
  if (s.empty() || !isIdentStart(s[0]))
    return false;
  return std::all_of(s.begin(), s.end(), isIdentChar);
}

inline NodeP makeInt(int64_t v) {
  auto n = std::make_shared<SymNode>();
  n->kind = SymKind::Integer;
  n->value = v;
  return n;
}

inline NodeP makeSym(const std::string &name) {
  auto n = std::make_shared<SymNode>();
  n->kind = SymKind::Symbol;
  n->name = name;
  return n;
}

/// Checked int64 value of `n` under `env` (SymExprEval.cpp).
std::optional<int64_t> eval(const NodeP &n, const std::map<std::string, int64_t> &env, std::string *error);
/// Adds the names of `n`'s symbols to `out` (SymExprEval.cpp).
void collectSymbols(const NodeP &n, std::set<std::string> &out);
/// `n` as str text, cut to 80 characters, for messages (SymExprPrint.cpp).
std::string shortText(const NodeP &n);

}  // namespace detail
}  // namespace ptec::pt2
