// SymExpr parsing: a recursive-descent parser for sympy srepr and str text,
// which also folds constants and caps the tree's depth. Separate from
// evaluation and printing because it is the part that reads untrusted text.
#include "serde/pt2/SymExprInternal.h"

namespace ptec::pt2 {
using namespace detail;

namespace {

// ------------------------------------------------------------------- parser

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

}  // namespace

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

std::optional<SymExpr> SymExpr::symbol(const std::string &name, std::string *error) {
  if (!isIdentifier(name)) {
    setError(error, "symbol name '" + name.substr(0, 40) + "' is not an identifier");
    return std::nullopt;
  }
  return SymExpr(makeSym(name));
}

}  // namespace ptec::pt2
