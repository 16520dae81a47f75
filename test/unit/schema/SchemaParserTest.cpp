// Grammar coverage of the ATen schema parser (spec/pt2-format.md section 7).
#include "dialects/exir/schema/OperatorSchema.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace ptec::schema;

namespace {

FunctionSchema mustParse(const std::string &text) {
  ParseError err;
  std::optional<FunctionSchema> fs = parseSchema(text, &err);
  INFO(text << " -> " << err.message);
  REQUIRE(fs.has_value());
  // Every accepted schema must print back to something that parses equal.
  std::optional<FunctionSchema> again = parseSchema(fs->str(), &err);
  INFO("reprinted: " << fs->str() << " -> " << err.message);
  REQUIRE(again.has_value());
  CHECK(*again == *fs);
  CHECK(again->str() == fs->str());
  return *fs;
}

ParseError mustFail(const std::string &text) {
  ParseError err;
  std::optional<FunctionSchema> fs = parseSchema(text, &err);
  INFO(text);
  REQUIRE_FALSE(fs.has_value());
  REQUIRE_FALSE(err.message.empty());
  CHECK(err.position <= text.size());
  CHECK(err.message.find("at position " + std::to_string(err.position)) != std::string::npos);
  return err;
}

} // namespace

TEST_CASE("operator names: namespace, name, overload", "[schema][parser]") {
  FunctionSchema a = mustParse("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  CHECK(a.ns == "aten");
  CHECK(a.name == "add");
  CHECK(a.overload == "Tensor");
  CHECK(a.fullName() == "aten::add.Tensor");

  FunctionSchema b = mustParse("relu(Tensor self) -> Tensor");
  CHECK(b.ns == "aten");
  CHECK(b.overload.empty());
  CHECK(b.fullName() == "aten::relu");

  FunctionSchema c = mustParse("mylib::foo.default(Tensor x) -> Tensor");
  CHECK(c.ns == "mylib");
  CHECK(c.overload == "default");

  FunctionSchema d = mustParse("aten::relu");
  CHECK_FALSE(d.hasSignature);
  CHECK(d.str() == "aten::relu");
}

TEST_CASE("base types and their kinds", "[schema][parser]") {
  FunctionSchema s = mustParse(
      "f(Tensor a, int b, SymInt c, float d, bool e, SymBool f, str g, Scalar h, ScalarType i, "
      "Layout j, MemoryFormat k, Device l, DeviceIndex m, Generator n, Dimname o, Storage p, "
      "Stream q, complex r, Any s, NoneType t, QScheme u) -> ()");
  std::vector<TypeKind> kinds = {
      TypeKind::Tensor, TypeKind::Int, TypeKind::SymInt, TypeKind::Float, TypeKind::Bool,
      TypeKind::SymBool, TypeKind::Str, TypeKind::Scalar, TypeKind::ScalarType, TypeKind::Layout,
      TypeKind::MemoryFormat, TypeKind::Device, TypeKind::DeviceIndex, TypeKind::Generator,
      TypeKind::Dimname, TypeKind::Storage, TypeKind::Stream, TypeKind::Complex, TypeKind::Any,
      TypeKind::NoneType, TypeKind::Other};
  REQUIRE(s.arguments.size() == kinds.size());
  for (size_t i = 0; i < kinds.size(); ++i)
    CHECK(s.arguments[i].type.kind == kinds[i]);
  CHECK(s.arguments[20].type.name == "QScheme");
  CHECK(s.returns.empty());
  CHECK_FALSE(s.varRets);
}

TEST_CASE("optional, list, sized list and their nesting", "[schema][parser]") {
  FunctionSchema s = mustParse("f(Tensor? a, int[] b, int[2] c, SymInt[1]? d, Tensor?[] e, "
                               "Tensor[]? f, float[]? g, bool[3] h) -> Tensor[]");
  const auto &args = s.arguments;
  CHECK(args[0].type.kind == TypeKind::Optional);
  CHECK(args[0].type.elems[0].kind == TypeKind::Tensor);
  CHECK(args[0].type.isTensorLike());
  CHECK(args[1].type.kind == TypeKind::List);
  CHECK_FALSE(args[1].type.fixedSize.has_value());
  CHECK(args[1].type.elems[0].kind == TypeKind::Int);
  CHECK_FALSE(args[1].type.isTensorLike());
  CHECK(args[2].type.kind == TypeKind::List);
  REQUIRE(args[2].type.fixedSize.has_value());
  CHECK(*args[2].type.fixedSize == 2);
  CHECK(args[2].type.str() == "int[2]");
  CHECK(args[3].type.kind == TypeKind::Optional);
  CHECK(args[3].type.elems[0].kind == TypeKind::List);
  CHECK(*args[3].type.elems[0].fixedSize == 1);
  CHECK(args[3].type.str() == "SymInt[1]?");
  CHECK(args[4].type.kind == TypeKind::List);
  CHECK(args[4].type.elems[0].kind == TypeKind::Optional);
  CHECK(args[4].type.isTensorLike());
  CHECK(args[4].type.str() == "Tensor?[]");
  CHECK(args[5].type.kind == TypeKind::Optional);
  CHECK(args[5].type.elems[0].kind == TypeKind::List);
  CHECK(args[5].type.isTensorLike());
  CHECK(args[5].type.str() == "Tensor[]?");
  CHECK(args[6].type.str() == "float[]?");
  CHECK(args[7].type.str() == "bool[3]");
  REQUIRE(s.returns.size() == 1);
  CHECK(s.returns[0].type.kind == TypeKind::List);
  CHECK(s.returns[0].type.isTensorLike());
}

TEST_CASE("tuple, Dict, Union, Future, custom class and type variables", "[schema][parser]") {
  FunctionSchema s = mustParse(
      "f((Tensor, int) a, Dict(str, Tensor) b, Union(int, float, str) c, Future(Tensor) d, "
      "__torch__.torch.classes.quantized.Conv2dPackedParamsBase e, t[] f, Await(t) g) -> "
      "((Tensor, Tensor))");
  CHECK(s.arguments[0].type.kind == TypeKind::Tuple);
  CHECK(s.arguments[0].type.elems.size() == 2);
  CHECK(s.arguments[0].type.elems[1].kind == TypeKind::Int);
  CHECK(s.arguments[1].type.kind == TypeKind::Other);
  CHECK(s.arguments[1].type.name == "Dict");
  CHECK(s.arguments[1].type.elems.size() == 2);
  CHECK(s.arguments[2].type.name == "Union");
  CHECK(s.arguments[2].type.elems.size() == 3);
  CHECK(s.arguments[3].type.name == "Future");
  CHECK(s.arguments[4].type.kind == TypeKind::Other);
  CHECK(s.arguments[4].type.name == "__torch__.torch.classes.quantized.Conv2dPackedParamsBase");
  CHECK(s.arguments[5].type.elems[0].name == "t");
  REQUIRE(s.returns.size() == 1);
  CHECK(s.returns[0].type.kind == TypeKind::Tuple);
  CHECK(s.str().find("-> ((Tensor, Tensor))") != std::string::npos);

  // An optional tuple return must stay parenthesised (found by the fuzzer).
  FunctionSchema o = mustParse("f(Tensor a) -> ((Tensor, int)?)");
  REQUIRE(o.returns.size() == 1);
  CHECK(o.returns[0].type.kind == TypeKind::Optional);
  CHECK(o.str() == "aten::f(Tensor a) -> ((Tensor, int)?)");
}

TEST_CASE("alias annotations", "[schema][parser][alias]") {
  FunctionSchema s = mustParse("f(Tensor(a) a, Tensor(a!) b, Tensor(a -> *) c, Tensor(a|b) d, "
                               "Tensor(a! -> a|b) e, Tensor! f, Tensor(*) g, Tensor h) -> Tensor(a)");
  const AliasInfo *a = s.arguments[0].alias();
  REQUIRE(a);
  CHECK(a->beforeSets == std::vector<std::string>{"a"});
  CHECK(a->afterSets == std::vector<std::string>{"a"});
  CHECK_FALSE(a->isWrite);
  CHECK_FALSE(s.arguments[0].isWrite());

  const AliasInfo *b = s.arguments[1].alias();
  REQUIRE(b);
  CHECK(b->isWrite);
  CHECK(s.arguments[1].isWrite());
  CHECK_FALSE(s.arguments[1].isOut()); // written but positional

  const AliasInfo *c = s.arguments[2].alias();
  REQUIRE(c);
  CHECK(c->beforeSets == std::vector<std::string>{"a"});
  CHECK(c->afterSets == std::vector<std::string>{"*"});
  CHECK(c->isWildcardAfter());
  CHECK_FALSE(c->isWrite);

  const AliasInfo *d = s.arguments[3].alias();
  REQUIRE(d);
  CHECK(d->beforeSets == std::vector<std::string>{"a", "b"});
  CHECK(d->afterSets == d->beforeSets);

  const AliasInfo *e = s.arguments[4].alias();
  REQUIRE(e);
  CHECK(e->isWrite);
  CHECK(e->beforeSets == std::vector<std::string>{"a"});
  CHECK(e->afterSets == std::vector<std::string>{"a", "b"});

  const AliasInfo *f = s.arguments[5].alias();
  REQUIRE(f);
  CHECK(f->isWrite);
  CHECK(f->beforeSets.empty());
  CHECK(s.arguments[5].type.str() == "Tensor!");

  const AliasInfo *g = s.arguments[6].alias();
  REQUIRE(g);
  CHECK(g->isWildcardBefore());

  CHECK(s.arguments[7].alias() == nullptr);
  CHECK(s.isMutable());

  CHECK(s.arguments[2].type.str() == "Tensor(a -> *)");
  CHECK(s.arguments[4].type.str() == "Tensor(a! -> a|b)");
}

TEST_CASE("alias annotations on list elements and containers", "[schema][parser][alias]") {
  FunctionSchema s = mustParse("f(Tensor(a!)[] a, Tensor(b)[](c) b, Tensor[](d!) c, "
                               "Tensor(e!)[2] d, t[](f) e) -> Tensor(a)[]");
  // Element annotation only: alias() finds it through the list.
  const Argument &a = s.arguments[0];
  CHECK_FALSE(a.type.alias.has_value());
  REQUIRE(a.type.elems[0].alias.has_value());
  CHECK(a.isWrite());
  REQUIRE(a.alias());
  CHECK(a.alias()->beforeSets == std::vector<std::string>{"a"});
  // Container annotation wins as the outermost one; the element keeps its own.
  const Argument &b = s.arguments[1];
  REQUIRE(b.type.alias.has_value());
  CHECK(b.alias()->beforeSets == std::vector<std::string>{"c"});
  CHECK(b.type.elems[0].alias->beforeSets == std::vector<std::string>{"b"});
  CHECK(b.type.str() == "Tensor(b)[](c)");
  CHECK(s.arguments[2].isWrite());
  CHECK(s.arguments[2].type.str() == "Tensor[](d!)");
  CHECK(s.arguments[3].isWrite());
  CHECK(s.arguments[3].type.str() == "Tensor(e!)[2]");
  CHECK(s.returns[0].alias()->beforeSets == std::vector<std::string>{"a"});
}

TEST_CASE("keyword-only marker, varargs and varrets", "[schema][parser]") {
  FunctionSchema s = mustParse("f(Tensor a, *, int b=1, Tensor(a!) out) -> Tensor(a!)");
  CHECK_FALSE(s.arguments[0].kwargOnly);
  CHECK(s.arguments[1].kwargOnly);
  CHECK(s.arguments[2].kwargOnly);
  CHECK(s.arguments[2].isOut());
  CHECK(s.isOutVariant());
  CHECK(s.str() == "aten::f(Tensor a, *, int b=1, Tensor(a!) out) -> Tensor(a!)");

  FunctionSchema v = mustParse("prim::Print(...) -> ...");
  CHECK(v.varArgs);
  CHECK(v.varRets);
  CHECK(v.arguments.empty());
  CHECK(v.str() == "prim::Print(...) -> ...");

  FunctionSchema w = mustParse("g(Tensor a, ...) -> (Tensor, ...)");
  CHECK(w.varArgs);
  CHECK(w.varRets);
  CHECK(w.returns.size() == 1);

  FunctionSchema k = mustParse("h(*, Tensor a) -> ()");
  CHECK(k.arguments[0].kwargOnly);
  CHECK(k.str() == "aten::h(*, Tensor a) -> ()");
}

TEST_CASE("multiple and named returns", "[schema][parser]") {
  FunctionSchema s = mustParse(
      "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  REQUIRE(s.returns.size() == 2);
  CHECK(s.returns[0].name == "values");
  CHECK(s.returns[1].name == "indices");
  CHECK(s.str() == "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> "
                   "(Tensor values, Tensor indices)");

  FunctionSchema n = mustParse("f(Tensor a) -> (Tensor named)");
  REQUIRE(n.returns.size() == 1);
  CHECK(n.returns[0].name == "named");
  CHECK(n.str() == "aten::f(Tensor a) -> (Tensor named)");

  FunctionSchema e = mustParse("f(Tensor a) -> ()");
  CHECK(e.returns.empty());
  FunctionSchema sc = mustParse("f(Tensor a) -> Scalar");
  CHECK(sc.returns[0].type.kind == TypeKind::Scalar);
  CHECK(sc.str() == "aten::f(Tensor a) -> Scalar");
}

TEST_CASE("default values: numbers", "[schema][parser][defaults]") {
  FunctionSchema s = mustParse(
      "f(int a=0, int b=-1, float c=1e-05, float d=0.5, float e=inf, float g=-inf, float h=nan, "
      "Scalar i=1, Scalar j=0.01, float k=1, float l=2.5E+3, complex m=2j, Scalar n=-1.5j, "
      "int o=9223372036854775807, int p=-9223372036854775808) -> ()");
  auto dv = [&](int i) -> const DefaultValue & {
    REQUIRE(s.arguments[i].defaultValue.has_value());
    return *s.arguments[i].defaultValue;
  };
  CHECK(dv(0).kind == DefaultValue::Kind::Int);
  CHECK(dv(0).i == 0);
  CHECK(dv(1).i == -1);
  CHECK(dv(2).kind == DefaultValue::Kind::Double);
  CHECK(dv(2).d == Approx(1e-05));
  CHECK(dv(3).d == 0.5);
  CHECK(std::isinf(dv(4).d));
  CHECK(dv(4).d > 0);
  CHECK(std::isinf(dv(5).d));
  CHECK(dv(5).d < 0);
  CHECK(std::isnan(dv(6).d));
  CHECK(dv(7).kind == DefaultValue::Kind::Int); // Scalar keeps the integer
  CHECK(dv(7).i == 1);
  CHECK(dv(8).kind == DefaultValue::Kind::Double);
  CHECK(dv(8).d == Approx(0.01));
  CHECK(dv(9).kind == DefaultValue::Kind::Double); // a float argument makes it a double
  CHECK(dv(9).d == 1.0);
  CHECK(dv(10).d == 2500.0);
  CHECK(dv(11).kind == DefaultValue::Kind::Complex);
  CHECK(dv(11).imag == 2.0);
  CHECK(dv(12).kind == DefaultValue::Kind::Complex);
  CHECK(dv(12).imag == -1.5);
  CHECK(dv(13).i == INT64_MAX);
  CHECK(dv(14).i == INT64_MIN);
  CHECK(s.str().find("float e=inf, float g=-inf, float h=nan") != std::string::npos);
  CHECK(s.str().find("float k=1.0") != std::string::npos);
}

TEST_CASE("default values: bools, strings, None, identifiers", "[schema][parser][defaults]") {
  FunctionSchema s = mustParse(
      "f(bool a=True, bool b=False, str c='none', str d=\"reflect\", Tensor? e=None, "
      "ScalarType? f=float, ScalarType g=long, Layout h=strided, "
      "MemoryFormat i=contiguous_format, int j=Mean, str k='it\\'s', Device l=\"cpu\", "
      "ScalarType m=bfloat16, MemoryFormat n=channels_last) -> ()");
  auto dv = [&](int i) -> const DefaultValue & {
    REQUIRE(s.arguments[i].defaultValue.has_value());
    return *s.arguments[i].defaultValue;
  };
  CHECK(dv(0).kind == DefaultValue::Kind::Bool);
  CHECK(dv(0).b);
  CHECK_FALSE(dv(1).b);
  CHECK(dv(2).kind == DefaultValue::Kind::String);
  CHECK(dv(2).s == "none");
  CHECK(dv(3).s == "reflect");
  CHECK(dv(4).kind == DefaultValue::Kind::None);
  CHECK(dv(5).kind == DefaultValue::Kind::Enum);
  CHECK(dv(5).s == "float");
  CHECK(dv(5).i == 6);
  CHECK(dv(6).i == 4);
  CHECK(dv(7).s == "strided");
  CHECK(dv(7).i == 0);
  CHECK(dv(8).s == "contiguous_format");
  CHECK(dv(8).i == 0);
  CHECK(dv(9).s == "Mean");
  CHECK(dv(9).i == 1);
  CHECK(dv(10).s == "it's");
  CHECK(dv(11).s == "cpu");
  CHECK(dv(12).i == 15);
  CHECK(dv(13).i == 2);
  CHECK(s.arguments[4].defaultValue->str() == "None");
}

TEST_CASE("default values: lists", "[schema][parser][defaults]") {
  FunctionSchema s = mustParse(
      "f(int[] a=[], int[2] b=[-2,-1], int[2] c=0, int[3] d=1, float[] e=[1.5, 2], "
      "bool[3] f=[True, False, True], int[1]? g=None, SymInt[2] h=[0, 0], float[] i=[], "
      "bool[2] j=False, int[]? k=[]) -> ()");
  auto dv = [&](int i) -> const DefaultValue & {
    REQUIRE(s.arguments[i].defaultValue.has_value());
    return *s.arguments[i].defaultValue;
  };
  CHECK(dv(0).kind == DefaultValue::Kind::IntList);
  CHECK(dv(0).ints.empty());
  CHECK(dv(1).ints == std::vector<int64_t>{-2, -1});
  CHECK(dv(2).kind == DefaultValue::Kind::IntList);
  CHECK(dv(2).ints == std::vector<int64_t>{0, 0});
  CHECK(dv(3).ints == std::vector<int64_t>{1, 1, 1});
  CHECK(dv(4).kind == DefaultValue::Kind::DoubleList);
  CHECK(dv(4).doubles == std::vector<double>{1.5, 2.0});
  CHECK(dv(5).kind == DefaultValue::Kind::BoolList);
  CHECK(dv(5).bools == std::vector<bool>{true, false, true});
  CHECK(dv(6).kind == DefaultValue::Kind::None);
  CHECK(dv(7).ints == std::vector<int64_t>{0, 0});
  CHECK(dv(8).kind == DefaultValue::Kind::DoubleList);
  CHECK(dv(9).bools == std::vector<bool>{false, false});
  CHECK(dv(10).kind == DefaultValue::Kind::IntList);
  CHECK(s.str().find("int[2] c=[0, 0]") != std::string::npos);
}

TEST_CASE("whitespace between tokens is insignificant", "[schema][parser]") {
  FunctionSchema a = mustParse("aten::add.Tensor(Tensor self,Tensor other,*,Scalar alpha=1)->Tensor");
  FunctionSchema b = mustParse("  aten :: add . Tensor ( Tensor ( a ! ) self , Tensor other , * , "
                               "Scalar alpha = 1 ) -> Tensor ( a ! )  ");
  CHECK(a.arguments.size() == b.arguments.size());
  CHECK(b.arguments[0].isWrite());
  CHECK(b.fullName() == "aten::add.Tensor");
}

TEST_CASE("str() is canonical and stable", "[schema][parser]") {
  const char *text = "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]";
  FunctionSchema s = mustParse(text);
  CHECK(s.str() == text);
  FunctionSchema t = mustParse("conv2d(Tensor input, Tensor weight, Tensor? bias=None, "
                               "SymInt[2] stride=1, SymInt[2] padding=0, SymInt[2] dilation=1, "
                               "SymInt groups=1) -> Tensor");
  CHECK(t.str() == "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, "
                   "SymInt[2] stride=[1, 1], SymInt[2] padding=[0, 0], "
                   "SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor");
}

TEST_CASE("malformed schemas report what and where", "[schema][parser][errors]") {
  // Each schema fails to parse; the message holds `part` (when given), the
  // error is at `position` (when not -1).
  struct Malformed {
    std::string text;
    const char *part;
    int position;
  };
  const Malformed cases[] = {
      {"aten::add(Tensor self", "expected ')'", 21},
      {"aten::add(Tensor self) Tensor", "expected '->'", 23},
      {"add(Tensor self) -> ", nullptr, 20},
      {"add(Tensor) -> Tensor", "argument name", 10},
      {"add(Tensr self) -> Tensor", "unknown type 'Tensr'", 4},
      {"add(Tensor(a self) -> Tensor", "expected ')'", 13},
      {"add(Tensor(! self) -> Tensor", "alias set", 11},
      {"f(int[2 a) -> ()", "expected ']'", 8},
      {"f(int[x] a) -> ()", "list size", -1},
      {"f(Tensor a=1) -> ()", "only None", 11},
      {"f(str a='abc) -> ()", "unterminated string", 8},
      {"f(int a=1.5) -> ()", "integer", -1},
      {"f(int a=12abc) -> ()", "malformed number", -1},
      {"f(int a=99999999999999999999) -> ()", "out of range", -1},
      // An imaginary literal past double's range (schema_fuzz: it read as inf,
      // which printed as "infj" and did not parse back).
      {"f(complex a=1e400j) -> ()", "number out of range", -1},
      {"f(int a=bogus) -> ()", "unknown default value 'bogus'", -1},
      {"f(int[] a=3) -> ()", "'['", -1},
      {"f(int[2] a=[1, True]) -> ()", "mixes", -1},
      {"f(..., Tensor a) -> ()", "'...' must be the last", -1},
      {"f(Tensor a) -> Tensor junk more", "unexpected text", -1},
      {"f(Dict(str) a) -> ()", "Dict takes 2", -1},
      {"f(__torch__.foo a) -> ()", "custom class", -1},
      {"", "operator name", 0},
      {"::add(Tensor a) -> ()", nullptr, 0},
      {"aten::.x(Tensor a) -> ()", nullptr, 6},
      {"f(Tensor a) -> (Tensor, ", nullptr, 24},
      {"f(Tensor a=) -> ()", nullptr, -1},
      {"f(int[2] a=[1,) -> ()", nullptr, -1},
      {"f(Tensor(a -> ) a) -> ()", nullptr, -1},
      {"f(Tensor a) -> Tensor(a", nullptr, -1},
      {"f(Tensor a) -> ((Tensor, Tensor)", nullptr, -1},
  };
  for (const Malformed &c : cases) {
    INFO(c.text);
    ParseError e = mustFail(c.text);
    if (c.part)
      CHECK(e.message.find(c.part) != std::string::npos);
    if (c.position >= 0)
      CHECK(e.position == static_cast<size_t>(c.position));
  }
  ParseError e = mustFail(std::string("f(Tensor a\0) -> ()", 17));
  CHECK(e.message.find("found '\\x00'") != std::string::npos);
  CHECK(e.message.find('\0') == std::string::npos);
}

TEST_CASE("deeply nested types are rejected, not a stack overflow", "[schema][parser][errors]") {
  std::string deep = "f(" + std::string(100000, '(') + "int" + std::string(100000, ')') + " a) -> ()";
  ParseError e = mustFail(deep);
  CHECK(e.message.find("nested too deeply") != std::string::npos);
  std::string manyLists = "f(int";
  for (int i = 0; i < 100000; ++i)
    manyLists += "[]";
  CHECK(mustFail(manyLists + " a) -> ()").message.find("nested too deeply") != std::string::npos);
  CHECK(mustFail("f(Tensor" + std::string(100000, '?') + " a) -> ()").message.find(
            "nested too deeply") != std::string::npos);
  // Moderate nesting is fine.
  mustParse("f(int[][][][]?[][]? a) -> ()");
  mustParse("f(" + std::string(20, '(') + "int" + std::string(20, ')') + " a) -> ()");
  std::string deepDict = "f(";
  for (int i = 0; i < 5000; ++i)
    deepDict += "Dict(str, ";
  CHECK(mustFail(deepDict + "int" + std::string(5000, ')') + " a) -> ()").message.find(
            "nested too deeply") != std::string::npos);
}

TEST_CASE("errors without an error sink do not crash", "[schema][parser][errors]") {
  CHECK_FALSE(parseSchema("f(", nullptr).has_value());
  CHECK(parseSchema("f() -> ()", nullptr).has_value());
}
