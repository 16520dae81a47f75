// Symbolic size expressions: a recursive-descent parser for sympy srepr and
// str text, checked int64 evaluation, interval bounds and a monotonicity check.
// Recursion everywhere follows the tree, whose depth is capped at parse time.
#include "serde/pt2/SymExpr.h"

#include <algorithm>
#include <limits>
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

}  // namespace detail

using detail::SymKind;
using detail::SymNode;
using NodeP = std::shared_ptr<const SymNode>;

namespace {

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();

void setError(std::string *error, const std::string &msg) {
  if (error)
    *error = msg;
}

bool isIdentStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }

bool isIdentifier(const std::string &s) {
  if (s.empty() || !isIdentStart(s[0]))
    return false;
  return std::all_of(s.begin(), s.end(), isIdentChar);
}

NodeP makeInt(int64_t v) {
  auto n = std::make_shared<SymNode>();
  n->kind = SymKind::Integer;
  n->value = v;
  return n;
}

NodeP makeSym(const std::string &name) {
  auto n = std::make_shared<SymNode>();
  n->kind = SymKind::Symbol;
  n->name = name;
  return n;
}

// --------------------------------------------------------------- arithmetic
// Values are __int128 so that sums and products of int64 are exact; PINF/NINF
// stand for anything past int64: an overflow when evaluating, an unbounded end
// of an interval.

using X = __int128;
constexpr X PINF = X(1) << 100;
constexpr X NINF = -PINF;

bool isInf(X v) { return v == PINF || v == NINF; }
X norm(X v) { return v > kI64Max ? PINF : v < kI64Min ? NINF : v; }
// An exact sum of int64 values (or an infinity), so the order of terms never
// matters. A sum never mixes PINF and NINF: lower ends are never PINF, upper
// ends never NINF.
template <typename F>
X xsum(size_t n, F term) {
  X sum = 0;
  for (size_t i = 0; i < n; ++i) {
    if (isInf(term(i)))
      return term(i);
    sum += term(i);
  }
  return norm(sum);
}
X xmul(X a, X b) {
  if (a == 0 || b == 0)
    return 0;
  if (isInf(a) || isInf(b))
    return ((a < 0) != (b < 0)) ? NINF : PINF;
  return norm(a * b);
}
X xpow(X v, int64_t e) {  // e >= 1
  bool neg = v < 0 && (e % 2);
  if (isInf(v))
    return neg ? NINF : PINF;
  const X big = X(1) << 63;  // |r| <= 2^63 keeps r * a exact; past it nothing fits
  X a = v < 0 ? -v : v, r = a;
  for (int64_t i = 1; i < e && a > 1 && r <= big; ++i)
    r *= a;
  if (r > big)
    return neg ? NINF : PINF;
  return norm(neg ? -r : r);
}
// floor/ceil of a/b with b >= 1 (b may be PINF); a and b never both infinite.
X xdiv(X a, X b, bool ceil) {
  if (b == PINF)
    return a > 0 ? (ceil ? 1 : 0) : a == 0 ? 0 : (ceil ? 0 : -1);
  if (isInf(a))
    return a;
  X q = a / b;  // truncates; b > 0
  if (a % b != 0) {
    if (!ceil && a < 0)
      --q;
    if (ceil && a > 0)
      ++q;
  }
  return norm(q);
}
X xdivAny(X a, X b, bool ceil) { return b < 0 ? xdiv(-a, -b, ceil) : xdiv(a, b, ceil); }  // finite b != 0
X xmod(X a, X b) {  // finite b != 0; Python: the result has b's sign
  X r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// ------------------------------------------------------------------- parser

std::optional<int64_t> eval(const NodeP &n, const std::map<std::string, int64_t> &env, std::string *error);
void collectSymbols(const NodeP &n, std::set<std::string> &out);

class Parser {
public:
  explicit Parser(const std::string &text) : s_(text) {}

  NodeP run() {
    skipSpace();
    if (pos_ == s_.size())
      return fail("empty expression");
    NodeP n = parseSum();
    if (!n)
      return nullptr;
    skipSpace();
    if (pos_ != s_.size())
      return fail("unexpected " + describeHere() + " after the expression");
    return n;
  }
  const std::string &error() const { return error_; }

private:
  const std::string &s_;
  size_t pos_ = 0;
  int recursion_ = 0;
  std::string error_;
  // A parenthesis or call costs two guarded frames (sum + unary) and str()
  // nests them no deeper than the tree, so this admits every tree of depth
  // kMaxDepth; make() enforces the tree depth itself.
  static constexpr int kMaxRecursion = 2 * SymExpr::kMaxDepth + 8;

  // Bounds the parser's own recursion (nested parentheses, calls, unary signs).
  struct Guard {
    Parser &p;
    explicit Guard(Parser &parser) : p(parser) { ++p.recursion_; }
    ~Guard() { --p.recursion_; }
    bool tooDeep() const { return p.recursion_ > kMaxRecursion; }
  };
  NodeP tooDeep(size_t at) {
    return failAt(at, "expression nested deeper than " + std::to_string(SymExpr::kMaxDepth));
  }
  size_t identEnd(size_t p) const {
    while (p < s_.size() && isIdentChar(s_[p]))
      ++p;
    return p;
  }

  NodeP fail(const std::string &msg) { return failAt(pos_, msg); }
  NodeP failAt(size_t at, const std::string &msg) {
    if (error_.empty()) {
      std::string near;
      for (size_t i = at; i < s_.size() && near.size() < 24; ++i) {
        unsigned char c = static_cast<unsigned char>(s_[i]);
        near += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
      }
      error_ = msg + " at offset " + std::to_string(at);
      if (!near.empty())
        error_ += " (near '" + near + (at + near.size() < s_.size() ? "...')" : "')");
    }
    return nullptr;
  }

  std::string describeHere() const {
    if (pos_ >= s_.size())
      return "end of text";
    unsigned char c = static_cast<unsigned char>(s_[pos_]);
    if (c >= 0x20 && c < 0x7f)
      return std::string("'") + static_cast<char>(c) + "'";
    static const char *hex = "0123456789abcdef";
    return std::string("byte 0x") + hex[c >> 4] + hex[c & 15];
  }

  void skipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  bool peek(const char *tok) {
    skipSpace();
    size_t n = std::char_traits<char>::length(tok);
    return s_.compare(pos_, n, tok) == 0;
  }
  bool accept(const char *tok) {
    if (!peek(tok))
      return false;
    pos_ += std::char_traits<char>::length(tok);
    return true;
  }

  NodeP make(SymKind kind, std::vector<NodeP> kids, int64_t value, size_t at) {
    auto n = std::make_shared<SymNode>();
    n->kind = kind;
    n->value = value;
    int depth = 0;
    for (const NodeP &k : kids)
      depth = std::max(depth, k->depth);
    n->depth = depth + 1;
    n->kids = std::move(kids);
    if (n->depth > SymExpr::kMaxDepth)
      return tooDeep(at);
    return n;
  }

  NodeP negate(NodeP x, size_t at) {
    if (x->kind == SymKind::Integer) {
      if (x->value == kI64Min)
        return failAt(at, "integer overflow negating " + std::to_string(x->value));
      return makeInt(-x->value);
    }
    return make(SymKind::Mul, {makeInt(-1), std::move(x)}, 0, at);
  }

  // sum := term (('+' | '-') term)*   -- one n-ary Add, so long sums stay shallow
  NodeP parseSum() {
    Guard g(*this);
    if (g.tooDeep())
      return tooDeep(pos_);
    size_t start = pos_;
    NodeP first = parseTerm();
    if (!first)
      return nullptr;
    std::vector<NodeP> terms{first};
    for (;;) {
      bool minus;
      if (accept("+"))
        minus = false;
      else if (accept("-"))
        minus = true;
      else
        break;
      size_t at = pos_;
      NodeP t = parseTerm();
      if (!t)
        return nullptr;
      if (minus && !(t = negate(t, at)))
        return nullptr;
      terms.push_back(std::move(t));
    }
    if (terms.size() == 1)
      return terms[0];
    return make(SymKind::Add, std::move(terms), 0, start);
  }

  // term := unary (('*' | '//' | '%') unary)*   -- '/' is true division: refused
  NodeP parseTerm() {
    size_t start = pos_;
    NodeP first = parseUnary();
    if (!first)
      return nullptr;
    std::vector<NodeP> factors{first};
    auto product = [&]() -> NodeP {
      if (factors.size() == 1)
        return factors[0];
      return make(SymKind::Mul, std::move(factors), 0, start);
    };
    for (;;) {
      SymKind op;
      if (accept("//"))
        op = SymKind::FloorDiv;
      else if (accept("*"))
        op = SymKind::Mul;
      else if (accept("%"))
        op = SymKind::Mod;
      else if (peek("/"))
        return fail("true division '/' is not supported (only '//')");
      else
        break;
      NodeP rhs = parseUnary();
      if (!rhs)
        return nullptr;
      if (op == SymKind::Mul) {
        factors.push_back(std::move(rhs));
        continue;
      }
      NodeP lhs = product();
      if (!lhs)
        return nullptr;
      NodeP n = make(op, {lhs, rhs}, 0, start);
      if (!n)
        return nullptr;
      factors = {n};
    }
    return product();
  }

  // unary := ('-' | '+')* power   -- signs in a loop: a long run costs no recursion
  NodeP parseUnary() {
    Guard g(*this);
    if (g.tooDeep())
      return tooDeep(pos_);
    std::vector<size_t> minus;
    for (;;) {
      if (accept("-"))
        minus.push_back(pos_ - 1);
      else if (!accept("+"))
        break;
    }
    NodeP x = parsePower();
    for (size_t k = minus.size(); x && k-- > 0;)
      x = negate(x, minus[k]);
    return x;
  }

  // power := atom ('**' unary)?   (Python: -a**b is -(a**b); a**-b parses, then is refused)
  NodeP parsePower() {
    size_t start = pos_;
    NodeP base = parseAtom();
    if (!base)
      return nullptr;
    if (!accept("**"))
      return base;
    size_t at = pos_;
    NodeP e = parseUnary();
    if (!e)
      return nullptr;
    return makePow(base, e, at, start);
  }

  NodeP makePow(NodeP base, const NodeP &e, size_t expAt, size_t start) {
    std::set<std::string> syms;
    collectSymbols(e, syms);
    if (!syms.empty())
      return failAt(expAt, "exponent must be a non-negative integer constant");
    std::string why;
    std::optional<int64_t> v = eval(e, {}, &why);
    if (!v)
      return failAt(expAt, "exponent: " + why);
    if (*v < 0)
      return failAt(expAt, "negative exponent " + std::to_string(*v) + " (a rational) is not supported");
    return make(SymKind::Pow, {std::move(base)}, *v, start);
  }

  NodeP parseNumber() {
    size_t start = pos_;
    int64_t v = 0;
    while (pos_ < s_.size() && isDigit(s_[pos_])) {
      int d = s_[pos_] - '0';
      if (__builtin_mul_overflow(v, int64_t(10), &v) || __builtin_add_overflow(v, int64_t(d), &v))
        return failAt(start, "integer literal out of int64 range");
      ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E' || isIdentStart(s_[pos_])))
      return failAt(start, "float or malformed number literal is not supported");
    return makeInt(v);
  }

  NodeP parseAtom() {
    skipSpace();
    if (pos_ >= s_.size())
      return fail("unexpected end of text");
    char c = s_[pos_];
    if (isDigit(c))
      return parseNumber();
    if (c == '(') {
      ++pos_;
      NodeP n = parseSum();
      if (!n)
        return nullptr;
      if (!accept(")"))
        return fail("expected ')' but found " + describeHere());
      return n;
    }
    if (c == '.')
      return fail("float literal is not supported");
    if (!isIdentStart(c))
      return fail("unexpected " + describeHere());
    size_t start = pos_;
    pos_ = identEnd(pos_);
    std::string name = s_.substr(start, pos_ - start);
    if (accept("("))
      return parseCall(name, start);
    static const char *const kReserved[] = {"True", "False", "None", "oo", "zoo", "nan"};
    for (const char *r : kReserved)
      if (name == r)
        return failAt(start, "'" + name + "' is not an integer expression");
    return makeSym(name);
  }

  // After "name(": the arguments, then ')'.
  NodeP parseCall(const std::string &name, size_t start) {
    if (name == "Symbol")
      return parseSymbolCall();
    struct Fn {
      const char *name;
      SymKind kind;
      int arity;  // -1: one or more
    };
    static const Fn kFns[] = {{"Integer", SymKind::Integer, 1}, {"Add", SymKind::Add, -1},
                              {"Mul", SymKind::Mul, -1},         {"Pow", SymKind::Pow, 2},
                              {"PowByNatural", SymKind::Pow, 2}, {"FloorDiv", SymKind::FloorDiv, 2},
                              {"CleanDiv", SymKind::FloorDiv, 2}, {"CeilDiv", SymKind::CeilDiv, 2},
                              {"Mod", SymKind::Mod, 2},          {"PythonMod", SymKind::Mod, 2},
                              {"Max", SymKind::Max, -1},         {"Min", SymKind::Min, -1}};
    const Fn *fn = std::find_if(std::begin(kFns), std::end(kFns), [&](const Fn &f) { return name == f.name; });
    if (fn == std::end(kFns))
      return failAt(start, "unsupported function '" + name + "'");
    SymKind kind = fn->kind;
    int arity = fn->arity;
    std::vector<size_t> argAt;
    std::vector<NodeP> args;
    if (!accept(")")) {
      for (;;) {
        skipSpace();
        argAt.push_back(pos_);
        size_t p = identEnd(pos_);  // a keyword argument: only Symbol() has them
        while (p < s_.size() && s_[p] == ' ')
          ++p;
        if (p > pos_ && p < s_.size() && s_[p] == '=' && s_.compare(p, 2, "==") != 0)
          return fail("keyword argument in '" + name + "' is not supported");
        NodeP a = parseSum();
        if (!a)
          return nullptr;
        args.push_back(std::move(a));
        if (accept(")"))
          break;
        if (!accept(","))
          return fail("expected ',' or ')' in '" + name + "' but found " + describeHere());
      }
    }
    if (args.empty())
      return failAt(start, "'" + name + "' needs arguments");
    if (arity > 0 && static_cast<int>(args.size()) != arity)
      return failAt(start, "'" + name + "' takes " + std::to_string(arity) + " argument" +
                               (arity == 1 ? "" : "s") + ", got " + std::to_string(args.size()));
    if (kind == SymKind::Integer) {
      if (args[0]->kind != SymKind::Integer)
        return failAt(argAt[0], "Integer() needs an integer literal");
      return args[0];
    }
    if (kind == SymKind::Pow)
      return makePow(args[0], args[1], argAt[1], start);
    if (args.size() == 1 && (kind == SymKind::Add || kind == SymKind::Mul || kind == SymKind::Max ||
                             kind == SymKind::Min))
      return args[0];
    return make(kind, std::move(args), 0, start);
  }

  // Symbol('name', key=value, ...): the keywords (assumptions) are ignored.
  NodeP parseSymbolCall() {
    skipSpace();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"'))
      return fail("Symbol() needs a quoted name");
    char q = s_[pos_++];
    size_t nameStart = pos_;
    while (pos_ < s_.size() && s_[pos_] != q)
      ++pos_;
    if (pos_ >= s_.size())
      return failAt(nameStart - 1, "unterminated string");
    std::string name = s_.substr(nameStart, pos_ - nameStart);
    ++pos_;
    if (!isIdentifier(name))
      return failAt(nameStart, "symbol name '" + name.substr(0, 40) + "' is not an identifier");
    while (accept(",")) {  // key=value: an identifier and an identifier or number
      skipSpace();
      size_t k = pos_;
      pos_ = identEnd(pos_);
      if (k == pos_ || !isIdentStart(s_[k]))
        return fail("expected a keyword argument in Symbol()");
      if (!accept("="))
        return fail("expected '=' after '" + s_.substr(k, pos_ - k) + "' in Symbol()");
      skipSpace();
      size_t v = pos_;
      if ((pos_ = identEnd(pos_)) == v)
        return fail("expected a value for '" + s_.substr(k, v - k) + "' in Symbol()");
    }
    if (!accept(")"))
      return fail("expected ')' after Symbol() arguments but found " + describeHere());
    return makeSym(name);
  }
};

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

std::string shortText(const NodeP &n) {
  std::string s = print(n).text;
  return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

// --------------------------------------------------------------- evaluation

std::optional<int64_t> eval(const NodeP &n, const std::map<std::string, int64_t> &env, std::string *error) {
  if (n->kind == SymKind::Integer)
    return n->value;
  if (n->kind == SymKind::Symbol) {
    auto it = env.find(n->name);
    if (it == env.end()) {
      setError(error, "symbol '" + n->name + "' has no value");
      return std::nullopt;
    }
    return it->second;
  }
  std::vector<X> v;
  for (const NodeP &k : n->kids) {
    std::optional<int64_t> x = eval(k, env, error);
    if (!x)
      return std::nullopt;
    v.push_back(*x);
  }
  X r = v[0];
  switch (n->kind) {
  case SymKind::Add:
    r = xsum(v.size(), [&](size_t i) { return v[i]; });
    break;
  case SymKind::Mul:  // |partial products| only grow unless a factor is 0, and xmul(inf, 0) = 0
    for (size_t i = 1; i < v.size(); ++i)
      r = xmul(r, v[i]);
    break;
  case SymKind::Pow:
    r = n->value == 0 ? 1 : xpow(r, n->value);
    break;
  case SymKind::Max:
    r = *std::max_element(v.begin(), v.end());
    break;
  case SymKind::Min:
    r = *std::min_element(v.begin(), v.end());
    break;
  default:  // FloorDiv, CeilDiv, Mod
    if (v[1] == 0) {
      setError(error, "division by zero in '" + shortText(n) + "'");
      return std::nullopt;
    }
    r = n->kind == SymKind::Mod ? xmod(r, v[1]) : xdivAny(r, v[1], n->kind == SymKind::CeilDiv);
  }
  if (isInf(r)) {
    setError(error, "int64 overflow in '" + shortText(n) + "'");
    return std::nullopt;
  }
  return static_cast<int64_t>(r);
}

// ----------------------------------------------------------------- intervals

struct Iv {
  X lo, hi;
};

// a / b for b entirely >= 1: both ends come from known corners (a/b rises
// with a, and with b falls for a >= 0 and rises for a < 0).
Iv divPositive(Iv a, Iv b, bool ceil) {
  return {xdiv(a.lo, a.lo >= 0 ? b.hi : b.lo, ceil), xdiv(a.hi, a.hi >= 0 ? b.lo : b.hi, ceil)};
}

struct Info {
  Iv iv;
  bool mono;   // non-decreasing in every symbol
  bool konst;  // no symbols
};

std::optional<Info> analyze(const NodeP &n, const std::map<std::string, SymRange> &ranges, std::string *error) {
  auto fail = [&](const std::string &msg) -> std::optional<Info> {
    setError(error, msg);
    return std::nullopt;
  };
  if (n->kind == SymKind::Integer)
    return Info{{n->value, n->value}, true, true};
  if (n->kind == SymKind::Symbol) {
    auto it = ranges.find(n->name);
    if (it == ranges.end())
      return fail("symbol '" + n->name + "' has no range");
    const SymRange &r = it->second;
    if (r.max && *r.max < r.min)
      return fail("symbol '" + n->name + "' has an empty range [" + std::to_string(r.min) + ", " +
                  std::to_string(*r.max) + "]");
    return Info{{r.min, r.max ? X(*r.max) : PINF}, true, false};
  }
  std::vector<Info> k;
  bool allMono = true, allConst = true;
  for (const NodeP &kid : n->kids) {
    std::optional<Info> i = analyze(kid, ranges, error);
    if (!i)
      return std::nullopt;
    allMono = allMono && i->mono;
    allConst = allConst && i->konst;
    k.push_back(*i);
  }
  if (allConst) {  // exact, so that a monotone expression reaches its upper bound
    std::optional<int64_t> v = eval(n, {}, error);
    if (!v)
      return std::nullopt;
    return Info{{*v, *v}, true, true};
  }
  Info out{k[0].iv, false, false};
  switch (n->kind) {
  case SymKind::Add:
    out.iv = {xsum(k.size(), [&](size_t i) { return k[i].iv.lo; }),
              xsum(k.size(), [&](size_t i) { return k[i].iv.hi; })};
    out.mono = allMono;
    break;
  case SymKind::Mul: {
    for (size_t i = 1; i < k.size(); ++i) {
      Iv a = out.iv, b = k[i].iv;
      X c[4] = {xmul(a.lo, b.lo), xmul(a.lo, b.hi), xmul(a.hi, b.lo), xmul(a.hi, b.hi)};
      out.iv = {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
    }
    // Monotone when every factor is monotone and >= 0, or when the only factor
    // that may be negative is multiplied by non-negative constants alone.
    size_t negative = 0;
    bool othersConstNonNeg = true;
    for (const Info &i : k)
      negative += i.iv.lo < 0;
    if (negative == 1)
      for (const Info &i : k)
        if (i.iv.lo >= 0 && !i.konst)
          othersConstNonNeg = false;
    out.mono = allMono && (negative == 0 || (negative == 1 && othersConstNonNeg));
    break;
  }
  case SymKind::Pow: {
    int64_t e = n->value;
    Iv b = k[0].iv;
    if (e == 0)
      out.iv = {1, 1};
    else if (b.lo >= 0 || e % 2)
      out.iv = {xpow(b.lo, e), xpow(b.hi, e)};
    else if (b.hi <= 0)
      out.iv = {xpow(b.hi, e), xpow(b.lo, e)};
    else
      out.iv = {0, std::max(xpow(b.lo, e), xpow(b.hi, e))};
    out.mono = e == 0 || (allMono && (b.lo >= 0 || e % 2));
    break;
  }
  case SymKind::FloorDiv:
  case SymKind::CeilDiv:
  case SymKind::Mod: {  // the divisor's positive and negative parts, zero left out
    bool ceil = n->kind == SymKind::CeilDiv, mod = n->kind == SymKind::Mod;
    Iv a = k[0].iv, b = k[1].iv;
    std::optional<Iv> r;
    auto unite = [&](Iv x) { r = r ? Iv{std::min(r->lo, x.lo), std::max(r->hi, x.hi)} : x; };
    X plo = std::max<X>(b.lo, 1), nhi = std::min<X>(b.hi, -1);
    if (b.hi >= 1 && !mod)
      unite(divPositive(a, {plo, b.hi}, ceil));
    if (b.lo <= -1 && !mod)  // a/b = (-a)/(-b)
      unite(divPositive({-a.hi, -a.lo}, {-nhi, -b.lo}, ceil));
    // a % p for p in [plo, hi]: in [0, p-1], at most a when a >= 0, a itself when 0 <= a < p.
    if (b.hi >= 1 && mod)
      unite(a.lo >= 0 && a.hi < plo ? a : Iv{0, std::min(b.hi == PINF ? PINF : b.hi - 1, a.lo >= 0 ? a.hi : PINF)});
    // a % q for q in [lo, nhi]: in [q+1, 0], at least a when a <= 0, a itself when q < a <= 0.
    if (b.lo <= -1 && mod)
      unite(a.hi <= 0 && a.lo > nhi ? a : Iv{std::max(b.lo == NINF ? NINF : b.lo + 1, a.hi <= 0 ? a.lo : NINF), 0});
    if (!r)
      return fail("division by zero in '" + shortText(n) + "'");
    out.iv = *r;
    out.mono = !mod && k[0].mono && k[1].konst && b.lo >= 1;
    break;
  }
  case SymKind::Max:
  case SymKind::Min:
    for (size_t i = 1; i < k.size(); ++i)
      out.iv = n->kind == SymKind::Max
                   ? Iv{std::max(out.iv.lo, k[i].iv.lo), std::max(out.iv.hi, k[i].iv.hi)}
                   : Iv{std::min(out.iv.lo, k[i].iv.lo), std::min(out.iv.hi, k[i].iv.hi)};
    out.mono = allMono;
    break;
  default:
    break;
  }
  if (out.iv.lo == PINF || out.iv.hi == NINF)
    return fail("int64 overflow for every value of '" + shortText(n) + "'");
  return out;
}

void collectSymbols(const NodeP &n, std::set<std::string> &out) {
  if (n->kind == SymKind::Symbol)
    out.insert(n->name);
  for (const NodeP &k : n->kids)
    collectSymbols(k, out);
}

}  // namespace

// ---------------------------------------------------------------- public API

SymExpr::SymExpr(std::shared_ptr<const detail::SymNode> root) : root_(std::move(root)) {}

std::optional<SymExpr> SymExpr::parse(const std::string &text, std::string *error) {
  if (text.size() > kMaxTextLength) {
    setError(error, "symbolic expression of " + std::to_string(text.size()) + " bytes is longer than " +
                        std::to_string(kMaxTextLength));
    return std::nullopt;
  }
  Parser p(text);
  NodeP root = p.run();
  if (!root) {
    setError(error, "symbolic expression: " + p.error());
    return std::nullopt;
  }
  return SymExpr(std::move(root));
}

SymExpr SymExpr::constant(int64_t value) { return SymExpr(makeInt(value)); }

std::optional<SymExpr> SymExpr::symbol(const std::string &name, std::string *error) {
  if (!isIdentifier(name)) {
    setError(error, "symbol name '" + name.substr(0, 40) + "' is not an identifier");
    return std::nullopt;
  }
  return SymExpr(makeSym(name));
}

std::optional<int64_t> SymExpr::evaluate(const std::map<std::string, int64_t> &env, std::string *error) const {
  return eval(root_, env, error);
}

std::optional<SymInterval> SymExpr::bounds(const std::map<std::string, SymRange> &ranges, std::string *error) const {
  std::optional<Info> info = analyze(root_, ranges, error);
  if (!info)
    return std::nullopt;
  SymInterval out;
  out.loUnbounded = info->iv.lo == NINF;
  out.hiUnbounded = info->iv.hi == PINF;
  out.lo = out.loUnbounded ? kI64Min : static_cast<int64_t>(info->iv.lo);
  out.hi = out.hiUnbounded ? kI64Max : static_cast<int64_t>(info->iv.hi);
  return out;
}

bool SymExpr::isMonotone(const std::map<std::string, SymRange> &ranges) const {
  std::optional<Info> info = analyze(root_, ranges, nullptr);
  return info && info->mono;
}

void SymExpr::symbols(std::set<std::string> &out) const { collectSymbols(root_, out); }

bool SymExpr::isSymbol() const { return root_->kind == SymKind::Symbol; }

std::string SymExpr::symbolName() const { return isSymbol() ? root_->name : std::string(); }

std::optional<int64_t> SymExpr::asConstant() const {
  std::set<std::string> syms;
  symbols(syms);
  if (!syms.empty())
    return std::nullopt;
  return evaluate({}, nullptr);
}

std::string SymExpr::str() const { return print(root_).text; }

}  // namespace ptec::pt2
