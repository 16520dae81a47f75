// Symbolic size expressions (serde/pt2/SymExpr.h): both spellings of
// expr_str, exact values, Python floor/mod semantics, interval bounds,
// monotonicity and the refusals (unknown functions, depth, length, overflow).
#include "serde/pt2/SymExpr.h"

#include <catch2/catch.hpp>

#include <limits>

using namespace ptec::pt2;

namespace {

const char *kS0 = "Symbol('s0', integer=True, positive=True)";
const char *kS1 = "Symbol('s1', integer=True, positive=True)";

SymExpr mustParse(const std::string &text) {
  std::string err;
  std::optional<SymExpr> e = SymExpr::parse(text, &err);
  INFO(text << " -> " << err);
  REQUIRE(e.has_value());
  return *e;
}

std::string parseError(const std::string &text) {
  std::string err;
  std::optional<SymExpr> e = SymExpr::parse(text, &err);
  INFO(text);
  CHECK_FALSE(e.has_value());
  CHECK_FALSE(err.empty());
  return err;
}

int64_t evalOr(const std::string &text, std::map<std::string, int64_t> env, int64_t fallback = -999999) {
  std::string err;
  std::optional<int64_t> v = mustParse(text).evaluate(env, &err);
  INFO(text << " -> " << err);
  REQUIRE(v.has_value());
  return v.value_or(fallback);
}

std::string evalError(const std::string &text, std::map<std::string, int64_t> env) {
  std::string err;
  std::optional<int64_t> v = mustParse(text).evaluate(env, &err);
  INFO(text);
  CHECK_FALSE(v.has_value());
  return err;
}

SymInterval boundsOf(const std::string &text, const std::map<std::string, SymRange> &ranges) {
  std::string err;
  std::optional<SymInterval> b = mustParse(text).bounds(ranges, &err);
  INFO(text << " -> " << err);
  REQUIRE(b.has_value());
  return *b;
}

SymRange upTo(int64_t lo, int64_t hi) { return SymRange{lo, hi}; }
SymRange from(int64_t lo) { return SymRange{lo, std::nullopt}; }

std::string s(const char *a) { return a; }

}  // namespace

TEST_CASE("srepr form parses and evaluates", "[symexpr]") {
  SymExpr sym = mustParse(kS0);
  CHECK(sym.isSymbol());
  CHECK(sym.symbolName() == "s0");
  CHECK(sym.str() == "s0");
  CHECK(sym.evaluate({{"s0", 7}}, nullptr) == 7);

  CHECK(mustParse("Integer(32)").asConstant() == 32);
  CHECK(mustParse("Integer(-3)").asConstant() == -3);
  CHECK_FALSE(mustParse("Integer(32)").isSymbol());

  std::string e = "Add(Mul(Integer(32), " + s(kS0) + "), Integer(1))";
  SymExpr x = mustParse(e);
  CHECK_FALSE(x.isSymbol());
  CHECK(x.symbolName().empty());
  CHECK(x.str() == "32*s0 + 1");
  CHECK(x.evaluate({{"s0", 5}}, nullptr) == 161);
  CHECK_FALSE(x.asConstant().has_value());

  std::set<std::string> syms;
  mustParse("Mul(" + s(kS0) + ", " + kS1 + ", Symbol('u3', integer=True))").symbols(syms);
  CHECK(syms == std::set<std::string>{"s0", "s1", "u3"});

  // Double quotes, spaces, no assumptions, every supported function.
  CHECK(evalOr("Symbol(\"s0\")", {{"s0", 4}}) == 4);
  CHECK(evalOr("FloorDiv(" + s(kS0) + ", Integer(2))", {{"s0", 7}}) == 3);
  CHECK(evalOr("CleanDiv(" + s(kS0) + ", Integer(2))", {{"s0", 8}}) == 4);
  CHECK(evalOr("CeilDiv(" + s(kS0) + ", Integer(2))", {{"s0", 7}}) == 4);
  CHECK(evalOr("Mod(" + s(kS0) + ", Integer(4))", {{"s0", 7}}) == 3);
  CHECK(evalOr("PythonMod(" + s(kS0) + ", Integer(4))", {{"s0", 9}}) == 1);
  CHECK(evalOr("Pow(" + s(kS0) + ", Integer(3))", {{"s0", 5}}) == 125);
  CHECK(evalOr("PowByNatural(" + s(kS0) + ", Integer(2))", {{"s0", 6}}) == 36);
  CHECK(evalOr("Max(Integer(1), " + s(kS0) + ", Integer(4))", {{"s0", 2}}) == 4);
  CHECK(evalOr("Min(Integer(1), " + s(kS0) + ")", {{"s0", 2}}) == 1);
  CHECK(evalOr("Add(" + s(kS0) + ", Mul(Integer(-1), " + kS1 + "))", {{"s0", 2}, {"s1", 10}}) == -8);
}

TEST_CASE("str form parses and evaluates like Python", "[symexpr]") {
  std::map<std::string, int64_t> env{{"s0", 10}, {"s1", 3}};
  CHECK(evalOr("s0 + 1", env) == 11);
  CHECK(evalOr("32*s0", env) == 320);
  CHECK(evalOr("(s0//2)", env) == 5);
  CHECK(evalOr("Max(1, s0)", env) == 10);
  CHECK(evalOr("Min(s0, s1, 7)", env) == 3);
  CHECK(evalOr("s0 - s1 - 1", env) == 6);  // left to right
  CHECK(evalOr("s0 - (s1 - 1)", env) == 8);
  CHECK(evalOr("2*s0 + 3*s1", env) == 29);
  CHECK(evalOr("s0*s1 % 7", env) == 2);     // (30) % 7
  CHECK(evalOr("s0 // s1 * s1", env) == 9);  // (10//3)*3
  CHECK(evalOr("s0 * (s1 // 2)", env) == 10);
  CHECK(evalOr("-s1**2", env) == -9);       // -(s1**2)
  CHECK(evalOr("(-s1)**2", env) == 9);
  CHECK(evalOr("2**3**2", env) == 512);     // right associative
  CHECK(evalOr("s1**(4 - 2)", env) == 9);   // a constant exponent may be an expression
  CHECK(evalOr("--s1", env) == 3);
  CHECK(evalOr("+s1", env) == 3);
  CHECK(evalOr("FloorDiv(s0 + 1, 4)", env) == 2);
  CHECK(evalOr("CeilDiv(s0, 4)", env) == 3);
  CHECK(evalOr("Mod(s0, 4) + PythonMod(s0, 3)", env) == 3);
  CHECK(evalOr("Symbol('s0') + s0", env) == 20);
  CHECK(evalOr("  s0\t+\n1 ", env) == 11);
  CHECK(evalOr("s0**0", env) == 1);
  CHECK(mustParse("Integer(1) + 2*3").asConstant() == 7);
}

TEST_CASE("floor division and modulo follow Python for negatives", "[symexpr]") {
  std::map<std::string, int64_t> none;
  CHECK(evalOr("-7//2", none) == -4);
  CHECK(evalOr("7//-2", none) == -4);
  CHECK(evalOr("-7//-2", none) == 3);
  CHECK(evalOr("-8//2", none) == -4);
  CHECK(evalOr("CeilDiv(-7, 2)", none) == -3);
  CHECK(evalOr("CeilDiv(7, -2)", none) == -3);
  CHECK(evalOr("CeilDiv(7, 2)", none) == 4);
  CHECK(evalOr("CeilDiv(-7, -2)", none) == 4);
  CHECK(evalOr("-7 % 3", none) == 2);
  CHECK(evalOr("7 % -3", none) == -2);
  CHECK(evalOr("-7 % -3", none) == -1);
  CHECK(evalOr("Mod(-6, 3)", none) == 0);
  CHECK(evalOr("PythonMod(-1, 5)", none) == 4);
  CHECK(evalOr("-9223372036854775807 % -1", none) == 0);
  std::map<std::string, int64_t> env{{"s0", -7}};
  CHECK(evalOr("FloorDiv(s0, 2)", env) == -4);
  CHECK(evalOr("Mod(s0, 2)", env) == 1);
}

TEST_CASE("evaluation refuses missing symbols, division by zero and overflow", "[symexpr]") {
  CHECK_THAT(evalError("s0 + s1", {{"s0", 1}}), Catch::Contains("'s1' has no value"));
  CHECK_THAT(evalError("s0 // (s1 - 4)", {{"s0", 1}, {"s1", 4}}), Catch::Contains("division by zero"));
  CHECK_THAT(evalError("Mod(s0, 0)", {{"s0", 1}}), Catch::Contains("division by zero"));
  CHECK_THAT(evalError("CeilDiv(s0, 0)", {{"s0", 1}}), Catch::Contains("division by zero"));
  CHECK_THAT(evalError("s0 * s0", {{"s0", int64_t(1) << 32}}), Catch::Contains("overflow"));
  CHECK_THAT(evalError("s0 + 1", {{"s0", std::numeric_limits<int64_t>::max()}}), Catch::Contains("overflow"));
  CHECK_THAT(evalError("s0 - 2", {{"s0", std::numeric_limits<int64_t>::min() + 1}}), Catch::Contains("overflow"));
  CHECK_THAT(evalError("2**63", {}), Catch::Contains("overflow"));
  CHECK_THAT(evalError("s0 // -1", {{"s0", std::numeric_limits<int64_t>::min()}}), Catch::Contains("overflow"));
  CHECK_THAT(evalError("-s0", {{"s0", std::numeric_limits<int64_t>::min()}}), Catch::Contains("overflow"));
  CHECK(evalOr("2**62", {}) == (int64_t(1) << 62));
  CHECK(evalOr("(-2)**63", {}) == std::numeric_limits<int64_t>::min());
  CHECK(evalOr("(-1)**1000000000001", {}) == -1);
  CHECK(evalOr("(-3)**3", {}) == -27);
  CHECK(evalOr("0**0", {}) == 1);
  CHECK_THAT(evalError("(-2)**64", {}), Catch::Contains("overflow"));
  // A sum is exact whatever the order of its terms; a product with a 0 is 0.
  CHECK(evalOr("9223372036854775807 + s0 - 10", {{"s0", 5}}) == std::numeric_limits<int64_t>::max() - 5);
  CHECK(evalOr("s0*s0*s0*0", {{"s0", int64_t(1) << 40}}) == 0);
  CHECK(evalOr("9223372036854775807", {}) == std::numeric_limits<int64_t>::max());
}

TEST_CASE("bounds over bounded and unbounded symbols", "[symexpr]") {
  std::map<std::string, SymRange> r{{"s0", upTo(2, 10)}, {"s1", from(1)}, {"s2", upTo(-4, 3)}};
  SymInterval b = boundsOf("32*s0 + 1", r);
  CHECK(b.lo == 65);
  CHECK(b.hi == 321);
  CHECK_FALSE(b.hiUnbounded);
  CHECK_FALSE(b.loUnbounded);

  b = boundsOf("s0 + s1", r);
  CHECK(b.lo == 3);
  CHECK(b.hiUnbounded);
  CHECK(b.hi == std::numeric_limits<int64_t>::max());

  b = boundsOf("32 - s1", r);
  CHECK(b.loUnbounded);
  CHECK(b.lo == std::numeric_limits<int64_t>::min());
  CHECK(b.hi == 31);
  CHECK_FALSE(b.hiUnbounded);

  // Bounded results: {expression, lo, hi}.
  const struct {
    const char *text;
    int64_t lo, hi;
  } closed[] = {
      {"32 - s0", 22, 30},
      {"s0*s2", -40, 30}, // corners: 2*-4, 10*-4, 2*3, 10*3
      {"s2**2", 0, 16},
      {"s2**3", -64, 27},
      {"s0//3", 0, 3},
      {"CeilDiv(s0, 3)", 1, 4},
      {"s2//2", -2, 1},
      {"100//s0", 10, 50}, // decreasing in the divisor
      {"s0//s1", 0, 10},
      {"s0//s2", -10, 10}, // divisor crosses zero: both sides, zero left out
      {"s0 % 4", 0, 3},
      {"Mod(s0, 16)", 2, 10}, // 0 <= s0 < 16: s0 itself
      {"Mod(s2, -5)", -4, 0},
      {"Mod(s1, s0)", 0, 9},
      {"Max(s0, s2, 5)", 5, 10},
      {"Min(s0, s1)", 1, 10},
  };
  for (const auto &c : closed) {
    INFO(c.text);
    b = boundsOf(c.text, r);
    CHECK(b.lo == c.lo);
    CHECK(b.hi == c.hi);
  }
  b = boundsOf("s1//2", r);
  CHECK(b.lo == 0);
  CHECK(b.hiUnbounded);
  b = boundsOf("7", {});
  CHECK(b.lo == 7);
  CHECK(b.hi == 7);
  // Past int64 becomes unbounded (sound), not wrong.
  b = boundsOf("s1*4611686018427387904", r);
  CHECK(b.lo == 4611686018427387904LL);
  CHECK(b.hiUnbounded);
  b = boundsOf("s2*4611686018427387904", r);
  CHECK(b.loUnbounded);
  CHECK(b.hiUnbounded);
  b = boundsOf("s1**70", r);
  CHECK(b.lo == 1);
  CHECK(b.hiUnbounded);

  std::string err;
  CHECK_FALSE(mustParse("s0 + s9").bounds(r, &err).has_value());
  CHECK_THAT(err, Catch::Contains("'s9' has no range"));
  CHECK_FALSE(mustParse("s0").bounds({{"s0", upTo(5, 4)}}, &err).has_value());
  CHECK_THAT(err, Catch::Contains("empty range"));
  CHECK_FALSE(mustParse("s0 // (s2 - s2)").bounds({{"s0", from(1)}, {"s2", upTo(0, 0)}}, &err).has_value());
  CHECK_THAT(err, Catch::Contains("division by zero"));
  CHECK_FALSE(mustParse("2**64").bounds({}, &err).has_value());
  CHECK_THAT(err, Catch::Contains("overflow"));
}

TEST_CASE("bounds contain every evaluated value", "[symexpr]") {
  const char *exprs[] = {"32*s0 + 1", "32 - s0", "s0*s1 - 3*s1", "(s0 - 3)**2", "(s0 - 5)**3",
                         "s0//s1", "CeilDiv(s0, s1)", "s0 % s1", "Mod(s0 - 6, s1)", "(s0 - 6)//(s1 - 2)",
                         "Max(s0 - 4, 2*s1) - Min(s0, s1)", "CeilDiv(5 - s0, -3)", "PythonMod(s0, -s1)"};
  std::map<std::string, SymRange> r{{"s0", upTo(-3, 9)}, {"s1", upTo(1, 4)}};
  for (const char *text : exprs) {
    SymExpr e = mustParse(text);
    SymInterval b = boundsOf(text, r);
    for (int64_t a = -3; a <= 9; ++a)
      for (int64_t c = 1; c <= 4; ++c) {
        std::optional<int64_t> v = e.evaluate({{"s0", a}, {"s1", c}}, nullptr);
        if (!v)
          continue;  // division by zero at this point
        INFO(text << " at s0=" << a << " s1=" << c << " = " << *v << " in [" << b.lo << ", " << b.hi << "]");
        CHECK(*v >= b.lo);
        CHECK(*v <= b.hi);
      }
  }
}

TEST_CASE("monotonicity is checked structurally", "[symexpr]") {
  std::map<std::string, SymRange> pos{{"s0", upTo(1, 100)}, {"s1", from(2)}, {"s2", upTo(-5, 5)}};
  for (const char *yes : {"s0", "7", "32*s0 + 1", "s0 + s1", "s0*s1", "s0**2", "s2**3", "s0//4",
                          "CeilDiv(s0 + s1, 8)", "Max(s0, s1)", "Min(s0, 16)", "2*(s2 - 5)", "s2 + s0",
                          "Max(1, s0) * 3", "Mod(17, 5) + s0", "s0 - 1", "(s0 - 1)*s1"})
    CHECK(mustParse(yes).isMonotone(pos));
  for (const char *no : {"32 - s0", "-s0", "s0 - s1", "s0 % 8", "Mod(s0, 8)", "64//s0", "s0//s1",
                         "s2*s0", "s2**2", "s0//-2", "Max(s0, -s1)", "s0*(s1 - s0)", "s9 + 1"})
    CHECK_FALSE(mustParse(no).isMonotone(pos));
  // For a monotone expression the value at all-max is the upper bound, also
  // when parts without symbols would have loose intervals (they are exact).
  SymExpr c = mustParse("Mod(1172, 1172) + s0 + CeilDiv(7, 2)*Mod(9, 4)");
  CHECK(c.isMonotone(pos));
  CHECK(boundsOf(c.str(), {{"s0", upTo(1, 100)}}).hi == 104);
  CHECK(boundsOf("9223372036854775807 + s0 - 10", {{"s0", upTo(5, 6)}}).lo == std::numeric_limits<int64_t>::max() - 5);
  std::map<std::string, SymRange> bounded{{"s0", upTo(1, 100)}, {"s1", upTo(2, 9)}};
  SymExpr m = mustParse("CeilDiv(s0*s1, 4) + Max(s0, 3)");
  REQUIRE(m.isMonotone(bounded));
  CHECK(m.evaluate({{"s0", 100}, {"s1", 9}}, nullptr) == boundsOf("CeilDiv(s0*s1, 4) + Max(s0, 3)", bounded).hi);
}

TEST_CASE("str() is readable, deterministic and re-parses to the same values", "[symexpr]") {
  CHECK(mustParse("1 + 32*s0").str() == "32*s0 + 1");
  CHECK(mustParse("s0*32 + 1").str() == "32*s0 + 1");
  CHECK(mustParse("32 - s0").str() == "-s0 + 32");
  CHECK(mustParse("Add(Integer(32), Mul(Integer(-1), " + s(kS0) + "))").str() == "-s0 + 32");
  CHECK(mustParse("s1 - 2*s0").str() == "s1 - 2*s0");
  CHECK(mustParse("s0 - (s1 + 1)").str() == "s0 - (s1 + 1)");
  CHECK(mustParse("s0 - 3").str() == "s0 - 3");
  CHECK(mustParse("(s0//2)").str() == "s0//2");
  CHECK(mustParse("FloorDiv(Add(" + s(kS0) + ", Integer(1)), Integer(2))").str() == "(s0 + 1)//2");
  CHECK(mustParse("Max(1, s0)").str() == "Max(1, s0)");
  CHECK(mustParse("Pow(Add(" + s(kS0) + ", Integer(1)), Integer(2))").str() == "(s0 + 1)**2");
  CHECK(mustParse("Mod(s0, 4)").str() == "s0 % 4");
  CHECK(mustParse("CleanDiv(s0, 4)").str() == "s0//4");

  const char *texts[] = {"32*s0 + 1", "-(s0//2)", "-s0//2", "s0*(s1//3)", "(s0*s1)//3", "s0 - (s1 - 2)",
                         "-(s0 + s1)", "(-2)**3 + s0", "-s0**2", "s1 % 3 * 2", "s0 - s1 % 4",
                         "CeilDiv(s0, -3)*Max(s1, 2)", "s0 // -3", "-(-s0)", "2*(s0 - 1)*(s1 + 1)",
                         "Mul(Integer(-1), FloorDiv(Symbol('s0'), Integer(3)))",
                         "Add(Mul(Integer(-2), Mod(Symbol('s0'), Integer(3))), Integer(5))"};
  for (const char *text : texts) {
    SymExpr a = mustParse(text);
    SymExpr b = mustParse(a.str());
    CHECK(b.str() == a.str());
    for (int64_t x = -7; x <= 7; ++x)
      for (int64_t y : {-5, 1, 4}) {
        INFO(text << " printed " << a.str() << " at s0=" << x << " s1=" << y);
        CHECK(a.evaluate({{"s0", x}, {"s1", y}}, nullptr) == b.evaluate({{"s0", x}, {"s1", y}}, nullptr));
      }
  }
}

TEST_CASE("unsupported functions and malformed text are refused", "[symexpr]") {
  CHECK_THAT(parseError("Rational(1, 2)"), Catch::Contains("unsupported function 'Rational'"));
  CHECK_THAT(parseError("Float('1.5', precision=53)"), Catch::Contains("unsupported function 'Float'"));
  CHECK_THAT(parseError("Add(Piecewise((Integer(1), True)), Integer(2))"),
             Catch::Contains("unsupported function 'Piecewise' at offset 4"));
  CHECK_THAT(parseError("TruncToInt(s0)"), Catch::Contains("'TruncToInt'"));
  CHECK_THAT(parseError("ModularIndexing(s0, 1, 4)"), Catch::Contains("'ModularIndexing'"));
  CHECK_THAT(parseError("floor(s0/2)"), Catch::Contains("'floor'"));
  CHECK_THAT(parseError("s0/2"), Catch::Contains("true division '/'"));
  CHECK_THAT(parseError("s0 + 1.5"), Catch::Contains("float"));
  CHECK_THAT(parseError("s0 + 1e3"), Catch::Contains("float"));
  CHECK_THAT(parseError("s0**-1"), Catch::Contains("negative exponent"));
  CHECK_THAT(parseError("Pow(Symbol('s0'), Integer(-1))"), Catch::Contains("negative exponent"));
  CHECK_THAT(parseError("2**s0"), Catch::Contains("exponent must be a non-negative integer constant"));
  CHECK_THAT(parseError("s0**(1 - 3)"), Catch::Contains("negative exponent -2"));
  CHECK_THAT(parseError("s0**(2**64)"), Catch::Contains("exponent: int64 overflow"));
  CHECK_THAT(parseError(""), Catch::Contains("empty expression"));
  CHECK_THAT(parseError("   "), Catch::Contains("empty expression"));
  CHECK_THAT(parseError("s0 +"), Catch::Contains("unexpected end of text"));
  CHECK_THAT(parseError("s0 s1"), Catch::Contains("unexpected 's' after the expression at offset 3"));
  CHECK_THAT(parseError("(s0 + 1"), Catch::Contains("expected ')'"));
  CHECK_THAT(parseError("Max(s0, 1"), Catch::Contains("expected ',' or ')'"));
  CHECK_THAT(parseError("Max()"), Catch::Contains("'Max' needs arguments"));
  CHECK_THAT(parseError("FloorDiv(s0)"), Catch::Contains("'FloorDiv' takes 2 arguments, got 1"));
  CHECK_THAT(parseError("Integer(s0)"), Catch::Contains("Integer() needs an integer literal"));
  CHECK_THAT(parseError("Max(s0, evaluate=False)"), Catch::Contains("keyword argument in 'Max'"));
  CHECK_THAT(parseError("Symbol('s0'"), Catch::Contains("expected ')'"));
  CHECK_THAT(parseError("Symbol('s0"), Catch::Contains("unterminated string"));
  CHECK_THAT(parseError("Symbol(s0)"), Catch::Contains("quoted name"));
  CHECK_THAT(parseError("Symbol('a b')"), Catch::Contains("not an identifier"));
  CHECK_THAT(parseError("Symbol('s0', integer)"), Catch::Contains("expected '='"));
  CHECK_THAT(parseError("s0 + True"), Catch::Contains("'True' is not an integer expression"));
  CHECK_THAT(parseError("oo"), Catch::Contains("'oo'"));
  CHECK_THAT(parseError("s0 $ 1"), Catch::Contains("unexpected '$'"));
  CHECK_THAT(parseError(std::string("s0\0", 3)), Catch::Contains("byte 0x00"));
  CHECK_THAT(parseError("s0 == 1"), Catch::Contains("unexpected '='"));
  CHECK_THAT(parseError("9223372036854775808"), Catch::Contains("out of int64 range"));
  CHECK_THAT(parseError("Integer(99999999999999999999)"), Catch::Contains("out of int64 range"));
  CHECK(SymExpr::parse("Rational(1, 2)", nullptr) == std::nullopt);  // error pointer may be null

  std::string err;
  CHECK_FALSE(SymExpr::symbol("a-b", &err).has_value());
  CHECK(SymExpr::symbol("s4", &err)->isSymbol());
  CHECK(SymExpr::constant(-5).str() == "-5");
}

TEST_CASE("hostile input: depth and length caps", "[symexpr]") {
  const int cap = SymExpr::kMaxDepth;
  auto nested = [](int n, const std::string &open, const std::string &inner, const std::string &close) {
    std::string t;
    for (int i = 0; i < n; ++i)
      t += open;
    t += inner;
    for (int i = 0; i < n; ++i)
      t += close;
    return t;
  };
  // Just inside the cap works; past it is refused, for calls, parentheses and signs.
  CHECK(mustParse(nested(cap - 1, "Max(1, ", "s0", ")")).evaluate({{"s0", 3}}, nullptr) == 3);
  CHECK_THAT(parseError(nested(cap + 1, "Max(1, ", "s0", ")")), Catch::Contains("nested deeper than 256"));
  CHECK_THAT(parseError(nested(60000 / 8, "Add(1, ", "s0", ")")), Catch::Contains("nested deeper"));
  CHECK(mustParse(nested(cap, "(", "s0", ")")).evaluate({{"s0", 3}}, nullptr) == 3);
  CHECK_THAT(parseError(nested(30000, "(", "s0", ")")), Catch::Contains("nested deeper"));
  CHECK_THAT(parseError(std::string(30000, '-') + "s0"), Catch::Contains("nested deeper"));
  CHECK(mustParse(std::string(30001, '-') + "1").asConstant() == -1);  // signs of a literal fold
  CHECK_THAT(parseError(nested(cap + 1, "-(", "s0", ")")), Catch::Contains("nested deeper"));
  std::string chain = "s0";
  for (int i = 0; i < cap + 5; ++i)
    chain += "//2";
  CHECK_THAT(parseError(chain), Catch::Contains("nested deeper"));

  // Long flat sums and products stay shallow (one n-ary node).
  std::string sum = "s0";
  for (int i = 0; i < 5000; ++i)
    sum += " + 1";
  CHECK(evalOr(sum, {{"s0", 1}}) == 5001);
  std::string product = "1";
  for (int i = 0; i < 5000; ++i)
    product += "*s0";
  CHECK(evalOr(product, {{"s0", 1}}) == 1);
  CHECK_THAT(evalError(product, {{"s0", 2}}), Catch::Contains("overflow"));

  std::string big(SymExpr::kMaxTextLength + 1, ' ');
  big[0] = '1';
  CHECK_THAT(parseError(big), Catch::Contains("longer than 65536"));
  std::string fits(SymExpr::kMaxTextLength, ' ');
  fits[0] = '1';
  CHECK(mustParse(fits).asConstant() == 1);

  // Truncations of a valid srepr string never crash and are refused.
  std::string full = "Add(Mul(Integer(32), FloorDiv(" + s(kS0) + ", Integer(2))), Max(Integer(1), " + kS1 + "))";
  for (size_t n = 4; n < full.size(); ++n)  // "Add" alone is a symbol
    CHECK_FALSE(SymExpr::parse(full.substr(0, n), nullptr).has_value());
  CHECK(SymExpr::parse(full, nullptr).has_value());
}
