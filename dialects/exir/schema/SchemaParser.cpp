// Recursive-descent parser for ATen function schema strings (the grammar of
// spec/pt2-format.md section 7). Works directly on characters; every error
// carries the 0-based offset where parsing stopped.
#include "dialects/exir/schema/OperatorSchema.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace ptec::schema {
namespace {

bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isIdentChar(char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
// A character for an error message: itself when printable, else \xNN.
std::string printable(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f)
    return std::string(1, c);
  const char *hex = "0123456789abcdef";
  return std::string("\\x") + hex[u >> 4] + hex[u & 15];
}
bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

struct NamedKind {
  const char *name;
  TypeKind kind;
};
const NamedKind kBaseTypes[] = {
    {"Tensor", TypeKind::Tensor},       {"int", TypeKind::Int},
    {"SymInt", TypeKind::SymInt},       {"float", TypeKind::Float},
    {"bool", TypeKind::Bool},           {"SymBool", TypeKind::SymBool},
    {"str", TypeKind::Str},             {"Scalar", TypeKind::Scalar},
    {"ScalarType", TypeKind::ScalarType}, {"Layout", TypeKind::Layout},
    {"MemoryFormat", TypeKind::MemoryFormat}, {"Device", TypeKind::Device},
    {"DeviceIndex", TypeKind::DeviceIndex}, {"Generator", TypeKind::Generator},
    {"Dimname", TypeKind::Dimname},     {"Storage", TypeKind::Storage},
    {"Stream", TypeKind::Stream},       {"complex", TypeKind::Complex},
    {"Any", TypeKind::Any},             {"NoneType", TypeKind::NoneType},
    {"None", TypeKind::NoneType},
};
// Base types without a kind of their own: kept as Other, spelled by name.
const char *const kOtherBaseTypes[] = {"QScheme",   "Quantizer",   "ConstQuantizerPtr", "Capsule",
                                       "AnyClassType", "AnyEnumType", "number"};

struct NamedEnum {
  const char *name;
  int64_t value;
};
// Identifier defaults and their c10 numbers (ScalarType, Layout, MemoryFormat, Reduction).
const NamedEnum kEnumDefaults[] = {
    {"uint8", 0},        {"int8", 1},        {"int16", 2},         {"short", 2},
    {"int32", 3},        {"int", 3},         {"int64", 4},         {"long", 4},
    {"float16", 5},      {"half", 5},        {"float32", 6},       {"float", 6},
    {"float64", 7},      {"double", 7},      {"complex32", 8},     {"chalf", 8},
    {"complex64", 9},    {"cfloat", 9},      {"complex", 9},       {"complex128", 10},
    {"cdouble", 10},     {"bool", 11},       {"bfloat16", 15},     {"float8_e5m2", 23},
    {"float8_e4m3fn", 24}, {"float8_e5m2fnuz", 25}, {"float8_e4m3fnuz", 26}, {"uint16", 27},
    {"uint32", 28},      {"uint64", 29},
    {"strided", 0},      {"sparse_coo", 1},  {"sparse_csr", 2},    {"_mkldnn", 3},
    {"sparse_csc", 4},   {"sparse_bsr", 5},  {"sparse_bsc", 6},    {"jagged", 7},
    {"contiguous_format", 0}, {"preserve_format", 1}, {"channels_last", 2},
    {"channels_last_3d", 3},
    {"Mean", 1},         {"Sum", 2},
};

class Parser {
public:
  explicit Parser(std::string_view text) : s_(text) {}

  std::optional<FunctionSchema> parse(ParseError *err) {
    FunctionSchema fs;
    bool ok = parseDeclaration(&fs);
    if (ok) {
      skipWs();
      if (p_ < s_.size())
        ok = fail("unexpected text after the schema", p_);
    }
    if (!ok) {
      if (err)
        *err = err_;
      return std::nullopt;
    }
    return fs;
  }

private:
  std::string_view s_;
  size_t p_ = 0;
  ParseError err_;
  bool failed_ = false;
  int depth_ = 0;
  static constexpr int kMaxTypeDepth = 64;

  // Keeps the first error only: later ones follow from it.
  bool setError(size_t pos, std::string message) {
    if (!failed_) {
      failed_ = true;
      err_.position = pos;
      err_.message = std::move(message);
    }
    return false;
  }

  bool fail(const std::string &msg, size_t pos) {
    return setError(pos, msg + " at position " + std::to_string(pos));
  }

  // "expected X at position N, found 'Y'".
  bool failExpected(const std::string &what) {
    skipWs();
    size_t pos = p_;
    std::string msg = "expected " + what + " at position " + std::to_string(pos);
    if (pos >= s_.size())
      msg += ", found the end of the text";
    else
      msg += ", found '" + printable(s_[pos]) + "'";
    return setError(pos, std::move(msg));
  }

  void skipWs() {
    while (p_ < s_.size() && isSpace(s_[p_]))
      ++p_;
  }
  bool atEnd() {
    skipWs();
    return p_ >= s_.size();
  }
  bool peek(char c) {
    skipWs();
    return p_ < s_.size() && s_[p_] == c;
  }
  bool peekStr(std::string_view t) {
    skipWs();
    return s_.substr(p_, t.size()) == t;
  }
  bool accept(char c) {
    if (!peek(c))
      return false;
    ++p_;
    return true;
  }
  bool acceptStr(std::string_view t) {
    if (!peekStr(t))
      return false;
    p_ += t.size();
    return true;
  }
  bool expect(char c) {
    if (accept(c))
      return true;
    return failExpected(std::string("'") + c + "'");
  }
  bool peekIdent() {
    skipWs();
    return p_ < s_.size() && isIdentStart(s_[p_]);
  }
  // A whole identifier equal to `w` (not a prefix of a longer one).
  bool peekWord(std::string_view w) {
    if (!peekStr(w))
      return false;
    size_t e = p_ + w.size();
    return e >= s_.size() || !isIdentChar(s_[e]);
  }
  bool parseIdent(std::string *out, const char *what) {
    if (!peekIdent())
      return failExpected(what);
    size_t b = p_;
    while (p_ < s_.size() && isIdentChar(s_[p_]))
      ++p_;
    *out = std::string(s_.substr(b, p_ - b));
    return true;
  }

  // op_name ::= IDENT [ "::" IDENT ] [ "." IDENT ]
  bool parseDeclaration(FunctionSchema *fs) {
    std::string first;
    if (!parseIdent(&first, "an operator name"))
      return false;
    if (acceptStr("::")) {
      fs->ns = first;
      if (!parseIdent(&fs->name, "an operator name after '::'"))
        return false;
    } else {
      fs->ns = "aten";
      fs->name = first;
    }
    if (accept('.')) {
      if (!parseIdent(&fs->overload, "an overload name after '.'"))
        return false;
    }
    if (atEnd()) {
      fs->hasSignature = false;
      return true;
    }
    if (!expect('('))
      return false;
    if (!parseParams(fs))
      return false;
    if (!acceptStr("->"))
      return failExpected("'->'");
    return parseReturns(fs);
  }

  bool parseParams(FunctionSchema *fs) {
    if (accept(')'))
      return true;
    return parseArgumentList(&fs->arguments, &fs->varArgs, /*isReturn=*/false);
  }

  bool parseReturns(FunctionSchema *fs) {
    if (acceptStr("...")) {
      fs->varRets = true;
      return true;
    }
    if (!accept('(')) {
      Argument r;
      if (!parseArgument(&r, /*isReturn=*/true))
        return false;
      fs->returns.push_back(std::move(r));
      return true;
    }
    if (accept(')'))
      return true;
    return parseArgumentList(&fs->returns, &fs->varRets, /*isReturn=*/true);
  }

  // The rest of a parameter or return list after "(": arguments separated
  // by "," up to ")". A "..." (setting *var) must close the list; a "*"
  // makes the parameters after it keyword-only.
  bool parseArgumentList(std::vector<Argument> *out, bool *var, bool isReturn) {
    bool kwargOnly = false;
    do {
      if (acceptStr("...")) {
        *var = true;
        if (peek(','))
          return fail(std::string("'...' must be the last ") +
                          (isReturn ? "return" : "parameter"),
                      p_);
        break;
      }
      if (!isReturn && accept('*')) {
        kwargOnly = true;
        continue;
      }
      Argument a;
      a.kwargOnly = kwargOnly;
      if (!parseArgument(&a, isReturn))
        return false;
      out->push_back(std::move(a));
    } while (accept(','));
    return expect(')');
  }

  // param ::= type [ fixed_list ] IDENT [ "=" default ];  ret ::= type [ fixed_list ] [ IDENT ]
  bool parseArgument(Argument *a, bool isReturn) {
    if (!parseType(&a->type))
      return false;
    if (peek('[')) {
      // A sized list such as int[2] (argument level only).
      ++p_;
      skipWs();
      size_t numPos = p_;
      int64_t n = 0;
      if (!parseSize(&n))
        return false;
      if (n < 0)
        return fail("list size must not be negative", numPos);
      if (!expect(']'))
        return false;
      SchemaType list;
      list.kind = TypeKind::List;
      list.fixedSize = n;
      list.elems.push_back(std::move(a->type));
      if (!parseAliasOpt(&list.alias))
        return false;
      a->type = std::move(list);
      if (accept('?'))
        wrap(&a->type, TypeKind::Optional);
    }
    if (isReturn) {
      if (peekIdent())
        return parseIdent(&a->name, "a return name");
      return true;
    }
    if (!parseIdent(&a->name, "an argument name"))
      return false;
    if (accept('=')) {
      DefaultValue d;
      if (!parseDefault(a->type, &d))
        return false;
      a->defaultValue = std::move(d);
    }
    return true;
  }

  bool parseSize(int64_t *n) {
    skipWs();
    if (p_ >= s_.size() || !isDigit(s_[p_]))
      return failExpected("a list size");
    size_t b = p_;
    int64_t v = 0;
    while (p_ < s_.size() && isDigit(s_[p_])) {
      if (v > (INT64_MAX - 9) / 10)
        return fail("list size is too large", b);
      v = v * 10 + (s_[p_] - '0');
      ++p_;
    }
    *n = v;
    return true;
  }

  static void wrap(SchemaType *t, TypeKind kind) {
    SchemaType outer;
    outer.kind = kind;
    outer.elems.push_back(std::move(*t));
    *t = std::move(outer);
  }

  // type ::= primary { "[]" [ alias ] | "?" }
  bool parseType(SchemaType *t) {
    // Types nest through tuples and Dict/Union/...; bound the recursion so a
    // hostile string cannot exhaust the stack.
    struct DepthGuard {
      int &d;
      explicit DepthGuard(int &depth) : d(depth) { ++d; }
      ~DepthGuard() { --d; }
    } guard(depth_);
    if (depth_ > kMaxTypeDepth)
      return fail("types are nested too deeply", p_);
    if (!parsePrimary(t))
      return false;
    for (int wraps = 0;; ++wraps) {
      if (depth_ + wraps > kMaxTypeDepth)
        return fail("types are nested too deeply", p_);
      if (peek('[')) {
        size_t save = p_;
        ++p_;
        if (!accept(']')) {
          p_ = save; // a sized list: handled at argument level
          return true;
        }
        wrap(t, TypeKind::List);
        if (!parseAliasOpt(&t->alias))
          return false;
      } else if (accept('?')) {
        wrap(t, TypeKind::Optional);
      } else {
        return true;
      }
    }
  }

  // type { "," type } ")": the element types of a tuple, Dict, Union, ...
  bool parseTypeList(SchemaType *t) {
    do {
      SchemaType e;
      if (!parseType(&e))
        return false;
      t->elems.push_back(std::move(e));
    } while (accept(','));
    return expect(')');
  }

  bool parsePrimary(SchemaType *t) {
    if (accept('(')) {
      t->kind = TypeKind::Tuple;
      if (accept(')'))
        return true;
      return parseTypeList(t);
    }
    skipWs();
    size_t start = p_;
    std::string word;
    if (!parseIdent(&word, "a type"))
      return false;
    if (word == "__torch__") {
      // __torch__.torch.classes.<ns>.<Name>
      std::string full = word;
      int parts = 0;
      while (peek('.')) {
        ++p_;
        std::string part;
        if (!parseIdent(&part, "a class name part after '.'"))
          return false;
        full += "." + part;
        ++parts;
      }
      if (full.rfind("__torch__.torch.classes.", 0) != 0 || parts != 4)
        return fail("expected a custom class '__torch__.torch.classes.<ns>.<Name>'", start);
      t->kind = TypeKind::Other;
      t->name = full;
      return true;
    }
    if (word == "Dict" || word == "Union" || word == "Future" || word == "Await" ||
        word == "RRef") {
      t->kind = TypeKind::Other;
      t->name = word;
      if (!expect('(') || !parseTypeList(t))
        return false;
      size_t want = word == "Dict" ? 2 : (word == "Union" ? 0 : 1);
      if (want && t->elems.size() != want)
        return fail(word + " takes " + std::to_string(want) + " type(s)", start);
      return parseAliasOpt(&t->alias);
    }
    bool known = false;
    for (const NamedKind &nk : kBaseTypes) {
      if (word == nk.name) {
        t->kind = nk.kind;
        if (nk.kind == TypeKind::NoneType)
          t->name = word;
        known = true;
        break;
      }
    }
    if (!known) {
      for (const char *o : kOtherBaseTypes)
        if (word == o)
          known = true;
      if (!known && !(word[0] >= 'a' && word[0] <= 'z'))
        return fail("unknown type '" + word + "'", start);
      // Rare base types and lower-case type variables (`t`).
      t->kind = TypeKind::Other;
      t->name = word;
    }
    return parseAliasOpt(&t->alias);
  }

  // alias ::= "(" sets [ "!" ] [ "->" sets ] ")" | "!"
  bool parseAliasOpt(std::optional<AliasInfo> *out) {
    if (accept('!')) {
      AliasInfo a;
      a.isWrite = true;
      *out = std::move(a);
      return true;
    }
    if (!peek('('))
      return true;
    ++p_;
    AliasInfo a;
    if (!parseSets(&a.beforeSets))
      return false;
    if (accept('!'))
      a.isWrite = true;
    if (acceptStr("->")) {
      if (!parseSets(&a.afterSets))
        return false;
    } else {
      a.afterSets = a.beforeSets;
    }
    if (!expect(')'))
      return false;
    *out = std::move(a);
    return true;
  }

  bool parseSets(std::vector<std::string> *sets) {
    for (;;) {
      if (accept('*')) {
        sets->push_back("*");
      } else {
        std::string name;
        if (!parseIdent(&name, "an alias set name"))
          return false;
        sets->push_back(std::move(name));
      }
      if (!accept('|'))
        return true;
    }
  }

  // ---- default values ----

  static const SchemaType &unwrapOptional(const SchemaType &t) {
    return t.kind == TypeKind::Optional && !t.elems.empty() ? t.elems[0] : t;
  }

  bool parseDefault(const SchemaType &type, DefaultValue *d) {
    skipWs();
    size_t start = p_;
    if (peekWord("None")) {
      p_ += 4;
      d->kind = DefaultValue::Kind::None;
      return true;
    }
    const SchemaType &t = unwrapOptional(type);
    if (t.kind == TypeKind::Tensor || t.kind == TypeKind::Generator)
      return fail("only None is allowed as the default of a " + t.str(), start);
    if (t.kind == TypeKind::List)
      return parseListDefault(t, d);
    return parseScalarDefault(t.kind, d);
  }

  bool parseListDefault(const SchemaType &list, DefaultValue *d) {
    const SchemaType &elemT = unwrapOptional(list.elems.empty() ? list : list.elems[0]);
    bool floatElems = elemT.kind == TypeKind::Float;
    bool boolElems = elemT.kind == TypeKind::Bool || elemT.kind == TypeKind::SymBool;
    skipWs();
    size_t start = p_;
    if (!peek('[')) {
      if (peekIdent() && !peekWord("True") && !peekWord("False") && !peekWord("inf") &&
          !peekWord("nan")) {
        // A bare identifier on a list type means None.
        std::string ignored;
        parseIdent(&ignored, "an identifier");
        d->kind = DefaultValue::Kind::None;
        return true;
      }
      if (!list.fixedSize)
        return failExpected("'[' to start a list default");
      // A bare scalar on a sized list is repeated N times: int[2] padding=0.
      DefaultValue one;
      if (!parseScalarDefault(elemT.kind, &one))
        return false;
      if (*list.fixedSize > 4096)
        return fail("list size is too large for a repeated default", start);
      return fillList(std::vector<DefaultValue>(size_t(*list.fixedSize), one), floatElems,
                      boolElems, start, d);
    }
    ++p_;
    std::vector<DefaultValue> items;
    if (!accept(']')) {
      do {
        DefaultValue v;
        if (!parseScalarDefault(elemT.kind, &v))
          return false;
        items.push_back(std::move(v));
      } while (accept(','));
      if (!expect(']'))
        return false;
    }
    return fillList(items, floatElems, boolElems, start, d);
  }

  bool fillList(const std::vector<DefaultValue> &items, bool floatElems, bool boolElems,
                size_t start, DefaultValue *d) {
    bool anyDouble = floatElems, anyBool = false, anyInt = false;
    for (const DefaultValue &v : items) {
      switch (v.kind) {
      case DefaultValue::Kind::Double: anyDouble = true; break;
      case DefaultValue::Kind::Bool: anyBool = true; break;
      case DefaultValue::Kind::Int: anyInt = true; break;
      default:
        return fail("list defaults may hold only ints, floats or bools", start);
      }
    }
    if (anyBool && (anyInt || anyDouble))
      return fail("list default mixes bools and numbers", start);
    if (anyBool || (items.empty() && boolElems)) {
      d->kind = DefaultValue::Kind::BoolList;
      for (const DefaultValue &v : items)
        d->bools.push_back(v.b);
    } else if (anyDouble) {
      d->kind = DefaultValue::Kind::DoubleList;
      for (const DefaultValue &v : items)
        d->doubles.push_back(v.kind == DefaultValue::Kind::Double ? v.d : double(v.i));
    } else {
      d->kind = DefaultValue::Kind::IntList;
      for (const DefaultValue &v : items)
        d->ints.push_back(v.i);
    }
    return true;
  }

  bool parseScalarDefault(TypeKind kind, DefaultValue *d) {
    skipWs();
    size_t start = p_;
    if (p_ >= s_.size())
      return failExpected("a default value");
    char c = s_[p_];
    if (peekWord("True") || peekWord("False")) {
      d->kind = DefaultValue::Kind::Bool;
      d->b = s_[p_] == 'T';
      p_ += d->b ? 4 : 5;
      return true;
    }
    if (c == '\'' || c == '"')
      return parseString(d);
    if (c == '-' || c == '+' || isDigit(c) || peekWord("inf") || peekWord("nan"))
      return parseNumber(kind, d);
    if (isIdentStart(c)) {
      std::string word;
      parseIdent(&word, "an identifier");
      for (const NamedEnum &e : kEnumDefaults) {
        if (word == e.name) {
          d->kind = DefaultValue::Kind::Enum;
          d->s = word;
          d->i = e.value;
          return true;
        }
      }
      return fail("unknown default value '" + word + "'", start);
    }
    return failExpected("a default value");
  }

  bool parseString(DefaultValue *d) {
    size_t start = p_;
    char quote = s_[p_++];
    std::string out;
    while (p_ < s_.size() && s_[p_] != quote) {
      char c = s_[p_++];
      if (c == '\\') {
        if (p_ >= s_.size())
          break;
        char e = s_[p_++];
        switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case '0': out += '\0'; break;
        default: out += e; break; // \\ \' \" and anything else: the character itself
        }
      } else {
        out += c;
      }
    }
    if (p_ >= s_.size())
      return fail("unterminated string", start);
    ++p_; // closing quote
    d->kind = DefaultValue::Kind::String;
    d->s = std::move(out);
    return true;
  }

  // [ "-" ] NUMBER [ "j" ], or inf / nan (optionally negative).
  bool parseNumber(TypeKind kind, DefaultValue *d) {
    size_t start = p_;
    bool neg = false;
    if (s_[p_] == '-' || s_[p_] == '+') {
      neg = s_[p_] == '-';
      ++p_;
    }
    if (p_ < s_.size() && isIdentStart(s_[p_])) {
      std::string word;
      parseIdent(&word, "a number");
      if (word != "inf" && word != "nan")
        return fail("malformed number", start);
      if (kind == TypeKind::Int || kind == TypeKind::SymInt)
        return fail("'" + word + "' is not an integer", start);
      d->kind = DefaultValue::Kind::Double;
      d->d = word == "inf" ? HUGE_VAL : std::nan("");
      if (neg)
        d->d = -d->d;
      return true;
    }
    size_t digits = p_;
    while (p_ < s_.size() && isDigit(s_[p_]))
      ++p_;
    if (p_ == digits)
      return fail("malformed number", start);
    bool isFloat = false;
    if (p_ < s_.size() && s_[p_] == '.' && !(s_.substr(p_, 3) == "...")) {
      isFloat = true;
      ++p_;
      while (p_ < s_.size() && isDigit(s_[p_]))
        ++p_;
    }
    if (p_ < s_.size() && (s_[p_] == 'e' || s_[p_] == 'E')) {
      size_t q = p_ + 1;
      if (q < s_.size() && (s_[q] == '+' || s_[q] == '-'))
        ++q;
      if (q < s_.size() && isDigit(s_[q])) {
        isFloat = true;
        p_ = q;
        while (p_ < s_.size() && isDigit(s_[p_]))
          ++p_;
      }
    }
    std::string tok(s_.substr(digits, p_ - digits));
    bool imaginary = false;
    if (p_ < s_.size() && s_[p_] == 'j') {
      imaginary = true;
      ++p_;
    }
    if (p_ < s_.size() && isIdentChar(s_[p_]))
      return fail("malformed number", start);
    if (imaginary) {
      // Like a real literal: one past double's range is refused, not read as
      // inf (which no literal spells, so it would not print back).
      errno = 0;
      double v = std::strtod(tok.c_str(), nullptr);
      if (errno == ERANGE && std::isinf(v))
        return fail("number out of range", start);
      d->kind = DefaultValue::Kind::Complex;
      d->d = 0;
      d->imag = v * (neg ? -1 : 1);
      return true;
    }
    if (isFloat || kind == TypeKind::Float || kind == TypeKind::Complex) {
      if (isFloat && (kind == TypeKind::Int || kind == TypeKind::SymInt))
        return fail("expected an integer default", start);
      errno = 0;
      double v = std::strtod(tok.c_str(), nullptr);
      if (errno == ERANGE && std::isinf(v))
        return fail("number out of range", start);
      d->kind = DefaultValue::Kind::Double;
      d->d = neg ? -v : v;
      return true;
    }
    errno = 0;
    char *end = nullptr;
    unsigned long long u = std::strtoull(tok.c_str(), &end, 10);
    if (errno == ERANGE || u > (neg ? uint64_t(INT64_MAX) + 1 : uint64_t(INT64_MAX)))
      return fail("integer out of range", start);
    d->kind = DefaultValue::Kind::Int;
    d->i = neg ? int64_t(0 - u) : int64_t(u);
    return true;
  }
};

} // namespace

std::optional<FunctionSchema> parseSchema(std::string_view text, ParseError *err) {
  return Parser(text).parse(err);
}

} // namespace ptec::schema
