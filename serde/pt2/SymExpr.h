// Symbolic integer size expressions of a torch.export program (SymExpr
// `expr_str`): parsing both spellings, exact evaluation, interval bounds and a
// structural monotonicity check. Used by the importer for dynamic shapes.
//
// Two spellings are read by one grammar:
//   - sympy `srepr` (schema 8.1+): `Add(Mul(Integer(32), Symbol('s0',
//     integer=True, positive=True)), Integer(1))`;
//   - plain `str` (older files): `32*s0 + 1`, `(s0//2)`, `Max(1, s0)`.
// Supported: Symbol (assumption keywords ignored), Integer, Add, Mul, Pow and
// PowByNatural with a non-negative integer constant exponent, FloorDiv,
// CleanDiv (floor), CeilDiv, Mod / PythonMod (Python semantics: the result has
// the divisor's sign), Max, Min, and the operators + - * // % ** unary minus
// and parentheses. Everything else (Rational, Float, `/`, Piecewise,
// TruncToInt, ...) is refused naming what it is. Values are int64 and every
// operation checks overflow. Text length and nesting depth are capped so that
// hostile input cannot crash or recurse without bound. No exceptions.
#ifndef PTEC_SERDE_PT2_SYMEXPR_H
#define PTEC_SERDE_PT2_SYMEXPR_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

namespace ptec::pt2 {

/// Range of one symbol (ExportedProgram.range_constraints). max empty = unbounded.
struct SymRange {
  int64_t min = 0;
  std::optional<int64_t> max;
};

/// Interval of values an expression can take. An unbounded end reads as the
/// int64 extreme in lo/hi with its flag set.
struct SymInterval {
  int64_t lo = 0;
  int64_t hi = 0;
  bool hiUnbounded = false;
  bool loUnbounded = false;  // e.g. `32 - s0` with s0 unbounded
};

namespace detail {
struct SymNode;
}

class SymExpr {
public:
  /// Longest accepted text, in bytes.
  static constexpr size_t kMaxTextLength = 64 * 1024;
  /// Deepest accepted expression tree (nested calls, parentheses, operators).
  static constexpr int kMaxDepth = 256;

  /// Parses either form (srepr or str). nullopt + *error (names what is wrong
  /// and at which byte offset) on bad text. `error` may be null.
  static std::optional<SymExpr> parse(const std::string &text, std::string *error);
  /// A constant / a bare symbol (the name must be an identifier).
  static SymExpr constant(int64_t value);
  static std::optional<SymExpr> symbol(const std::string &name, std::string *error);

  /// Exact value with every symbol bound in env; nullopt + *error on a
  /// missing symbol, division by zero or int64 overflow.
  std::optional<int64_t> evaluate(const std::map<std::string, int64_t> &env,
                                  std::string *error) const;
  /// Interval of possible values over the symbol ranges (interval arithmetic;
  /// sound, may be loose). An end that would pass int64 becomes unbounded.
  /// nullopt + *error when a symbol has no range (or min > max), a divisor is
  /// always zero, or every value overflows.
  std::optional<SymInterval> bounds(const std::map<std::string, SymRange> &ranges,
                                    std::string *error) const;
  /// True when the expression is a non-decreasing function of every symbol
  /// over the ranges (so its value at all-max is its upper bound). Checked
  /// structurally: Add of monotone terms, Mul of monotone non-negative factors
  /// (or one monotone factor times non-negative constants), Pow with base >= 0
  /// or an odd exponent, FloorDiv/CeilDiv of a monotone term by a positive
  /// constant, Max/Min of monotone terms, anything without symbols. False when
  /// unsure (Mod of a symbol, division by a symbol, a missing range, ...).
  bool isMonotone(const std::map<std::string, SymRange> &ranges) const;

  /// Adds every symbol name to `out`.
  void symbols(std::set<std::string> &out) const;
  /// A bare symbol; symbolName() is its name (empty otherwise).
  bool isSymbol() const;
  std::string symbolName() const;
  /// The value when the expression has no symbols (and evaluates).
  std::optional<int64_t> asConstant() const;
  /// Readable infix, e.g. "32*s0 + 1", deterministic (constants last in a sum,
  /// first in a product), and parse(str()) gives the same values.
  std::string str() const;

private:
  explicit SymExpr(std::shared_ptr<const detail::SymNode> root);
  std::shared_ptr<const detail::SymNode> root_;
};

}  // namespace ptec::pt2

#endif  // PTEC_SERDE_PT2_SYMEXPR_H
