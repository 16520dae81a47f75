// Prim ops (runtime/kernels/portable/PrimOps.cpp): the table, Python scalar
// semantics of every executorch_prim op, sym_size / sym_numel, and clean
// failures (division by zero, overflow, wrong tags, bad dims).
#include "dialects/exir/schema/OperatorSchema.h"
#include "runtime/kernels/KernelRegistry.h"
#include "test/unit/kernels/KernelTestUtil.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace ptec;
using namespace ptec::test;

namespace {

const rt::KernelEntry *prim(const std::string &name) {
  const rt::KernelEntry *k = rt::findKernel(name.c_str());
  INFO(name);
  REQUIRE(k != nullptr);
  return k;
}

/// Run a prim op on boxed operands with a fresh Int(0) placeholder as the
/// return slot; the kernel must succeed, and the slot is returned.
EValue run(Boxer &b, const std::string &name, std::vector<EValue *> operands) {
  operands.push_back(b.i(0));
  rt::KernelContext ctx;
  Error e = prim(name)->fn(ctx, {operands.data(), operands.size()});
  INFO(name << ": " << ctx.message());
  REQUIRE(e == Error::Ok);
  return *operands.back();
}

/// Run and expect failure; returns the message.
std::string fails(Boxer &b, const std::string &name, std::vector<EValue *> operands) {
  operands.push_back(b.i(0));
  rt::KernelContext ctx;
  Error e = prim(name)->fn(ctx, {operands.data(), operands.size()});
  INFO(name);
  CHECK(e == Error::InvalidArgument);
  return ctx.message();
}

int64_t asInt(const EValue &v) {
  REQUIRE(v.isInt());
  return v.toInt();
}
double asDouble(const EValue &v) {
  REQUIRE(v.isDouble());
  return v.toDouble();
}
bool asBool(const EValue &v) {
  REQUIRE(v.isBool());
  return v.toBool();
}

std::string S(const char *op) { return std::string("executorch_prim::") + op + ".Scalar"; }

} // namespace

TEST_CASE("prim op table is sorted, found by findKernel, with upstream arities",
          "[kernels][prim]") {
  auto table = rt::primKernels();
  REQUIRE(table.size() == 25);
  for (size_t i = 1; i < table.size(); ++i)
    CHECK(std::strcmp(table[i - 1].name, table[i].name) < 0);
  for (const auto &k : table) {
    INFO(k.name);
    CHECK(rt::findPrimKernel(k.name) == &k);
    CHECK(rt::findKernel(k.name) == &k);
    // Not also in the portable table (findKernel would shadow it).
    for (const auto &p : rt::portableKernels())
      CHECK(std::strcmp(p.name, k.name) != 0);
  }
  CHECK(prim("aten::sym_size.int")->numArgs == 3);
  CHECK(prim("aten::sym_numel")->numArgs == 2);
  CHECK(prim("aten::_local_scalar_dense")->numArgs == 2);
  for (const char *op : {"add", "sub", "mul", "floordiv", "truediv", "mod", "eq", "gt", "lt",
                         "ge", "le", "sym_max", "sym_min"})
    CHECK(prim(S(op))->numArgs == 3);
  for (const char *op : {"neg", "sym_float", "sym_int", "ceil", "round", "trunc", "sym_not"})
    CHECK(prim(S(op))->numArgs == 2);
  CHECK(prim("executorch_prim::floordiv.int")->numArgs == 3);
  CHECK(prim("executorch_prim::mod.int")->numArgs == 3);
  CHECK(rt::findKernel("executorch_prim::add.out") == nullptr);
  CHECK(rt::findPrimKernel("aten::add.out") == nullptr);
  CHECK(rt::findPrimKernel(nullptr) == nullptr);
}

// Where the ATen schema registry knows a prim op, the arity must match it.
TEST_CASE("prim ops take schema arguments + 1 where the registry has the schema",
          "[kernels][prim]") {
  const auto &registry = schema::OperatorRegistry::builtin();
  size_t checked = 0;
  for (const auto &k : rt::primKernels()) {
    const schema::FunctionSchema *s = registry.lookup(k.name);
    if (s == nullptr)
      continue;
    INFO(k.name);
    CHECK(k.numArgs == static_cast<int>(s->arguments.size()) + 1);
    ++checked;
  }
  CHECK(checked >= 10);
}

TEST_CASE("prim arithmetic follows Python on Int and Double", "[kernels][prim]") {
  Boxer b;
  CHECK(asInt(run(b, S("add"), {b.i(3), b.i(4)})) == 7);
  CHECK(asDouble(run(b, S("add"), {b.i(3), b.d(0.5)})) == 3.5);
  CHECK(asInt(run(b, S("sub"), {b.i(3), b.i(10)})) == -7);
  CHECK(asDouble(run(b, S("sub"), {b.d(1.5), b.i(1)})) == 0.5);
  CHECK(asInt(run(b, S("mul"), {b.i(-6), b.i(7)})) == -42);
  CHECK(asDouble(run(b, S("mul"), {b.d(2.5), b.d(4)})) == 10.0);
  CHECK(asInt(run(b, S("add"), {b.b(true), b.i(1)})) == 2); // bool is 0/1

  // floordiv rounds toward -inf; mod takes the divisor's sign.
  CHECK(asInt(run(b, S("floordiv"), {b.i(7), b.i(2)})) == 3);
  CHECK(asInt(run(b, S("floordiv"), {b.i(-7), b.i(2)})) == -4);
  CHECK(asInt(run(b, S("floordiv"), {b.i(7), b.i(-2)})) == -4);
  CHECK(asInt(run(b, S("floordiv"), {b.i(-7), b.i(-2)})) == 3);
  CHECK(asInt(run(b, S("floordiv"), {b.i(-8), b.i(2)})) == -4);
  CHECK(asDouble(run(b, S("floordiv"), {b.d(-7.5), b.i(2)})) == -4.0);
  CHECK(asDouble(run(b, S("floordiv"), {b.d(7.5), b.d(-2)})) == -4.0);
  CHECK(asInt(run(b, S("mod"), {b.i(-7), b.i(3)})) == 2);
  CHECK(asInt(run(b, S("mod"), {b.i(7), b.i(-3)})) == -2);
  CHECK(asInt(run(b, S("mod"), {b.i(-7), b.i(-3)})) == -1);
  CHECK(asInt(run(b, S("mod"), {b.i(6), b.i(3)})) == 0);
  CHECK(asInt(run(b, S("mod"), {b.i(std::numeric_limits<int64_t>::min()), b.i(-1)})) == 0);
  CHECK(asDouble(run(b, S("mod"), {b.d(-7.5), b.i(2)})) == 0.5);
  CHECK(asDouble(run(b, S("mod"), {b.d(7.5), b.d(-2)})) == -0.5);
  CHECK(asInt(run(b, "executorch_prim::floordiv.int", {b.i(-9), b.i(4)})) == -3);
  CHECK(asInt(run(b, "executorch_prim::mod.int", {b.i(-9), b.i(4)})) == 3);

  // truediv of two Ints is a Double.
  CHECK(asDouble(run(b, S("truediv"), {b.i(7), b.i(2)})) == 3.5);
  CHECK(asDouble(run(b, S("truediv"), {b.i(-6), b.i(3)})) == -2.0);
  CHECK(asDouble(run(b, S("truediv"), {b.d(1), b.d(4)})) == 0.25);

  CHECK(asInt(run(b, S("sym_max"), {b.i(3), b.i(-5)})) == 3);
  CHECK(asInt(run(b, S("sym_min"), {b.i(3), b.i(-5)})) == -5);
  CHECK(asDouble(run(b, S("sym_max"), {b.i(3), b.d(2.5)})) == 3.0);
  CHECK(asDouble(run(b, S("sym_min"), {b.i(3), b.d(2.5)})) == 2.5);
}

TEST_CASE("prim comparisons give Bool", "[kernels][prim]") {
  Boxer b;
  CHECK(asBool(run(b, S("eq"), {b.i(3), b.i(3)})));
  CHECK_FALSE(asBool(run(b, S("eq"), {b.i(3), b.i(4)})));
  CHECK(asBool(run(b, S("eq"), {b.i(2), b.d(2.0)})));
  CHECK(asBool(run(b, S("eq"), {b.b(true), b.b(true)})));
  CHECK(asBool(run(b, S("gt"), {b.i(5), b.i(4)})));
  CHECK_FALSE(asBool(run(b, S("gt"), {b.i(4), b.i(4)})));
  CHECK(asBool(run(b, S("ge"), {b.i(4), b.i(4)})));
  CHECK_FALSE(asBool(run(b, S("ge"), {b.d(3.5), b.i(4)})));
  CHECK(asBool(run(b, S("lt"), {b.i(-1), b.i(0)})));
  CHECK_FALSE(asBool(run(b, S("lt"), {b.d(0.5), b.d(0.5)})));
  CHECK(asBool(run(b, S("le"), {b.d(0.5), b.d(0.5)})));
  CHECK_FALSE(asBool(run(b, S("le"), {b.i(1), b.d(0.5)})));
  // Large Ints compare exactly (not through double).
  const int64_t big = (int64_t(1) << 62) + 1;
  CHECK_FALSE(asBool(run(b, S("eq"), {b.i(big), b.i(big - 1)})));
  CHECK(asBool(run(b, S("gt"), {b.i(big), b.i(big - 1)})));
  // NaN is unordered.
  CHECK_FALSE(asBool(run(b, S("eq"), {b.d(NAN), b.d(NAN)})));
  CHECK_FALSE(asBool(run(b, S("le"), {b.d(NAN), b.d(1)})));
}

TEST_CASE("prim unary ops", "[kernels][prim]") {
  Boxer b;
  CHECK(asInt(run(b, S("neg"), {b.i(5)})) == -5);
  CHECK(asDouble(run(b, S("neg"), {b.d(-2.5)})) == 2.5);
  CHECK(asDouble(run(b, S("sym_float"), {b.i(3)})) == 3.0);
  CHECK(asDouble(run(b, S("sym_float"), {b.d(1.25)})) == 1.25);
  CHECK(asInt(run(b, S("sym_int"), {b.d(-2.7)})) == -2); // truncates
  CHECK(asInt(run(b, S("sym_int"), {b.i(9)})) == 9);
  CHECK(asInt(run(b, S("ceil"), {b.d(2.1)})) == 3);
  CHECK(asInt(run(b, S("ceil"), {b.d(-2.9)})) == -2);
  CHECK(asInt(run(b, S("ceil"), {b.i(4)})) == 4);
  CHECK(asInt(run(b, S("trunc"), {b.d(-2.9)})) == -2);
  CHECK(asInt(run(b, S("trunc"), {b.d(2.9)})) == 2);
  // round() halves to even.
  CHECK(asInt(run(b, S("round"), {b.d(2.5)})) == 2);
  CHECK(asInt(run(b, S("round"), {b.d(3.5)})) == 4);
  CHECK(asInt(run(b, S("round"), {b.d(-2.5)})) == -2);
  CHECK(asInt(run(b, S("round"), {b.d(2.6)})) == 3);
  CHECK(asInt(run(b, S("round"), {b.d(-0.4)})) == 0);
  CHECK_FALSE(asBool(run(b, S("sym_not"), {b.b(true)})));
  CHECK(asBool(run(b, S("sym_not"), {b.b(false)})));
}

TEST_CASE("prim ops overwrite the return placeholder with the result's tag",
          "[kernels][prim]") {
  Boxer b;
  for (EValue *slot : {b.i(0), b.d(0), b.b(false), b.none()}) {
    std::vector<EValue *> args = {b.i(7), b.i(2), slot};
    rt::KernelContext ctx;
    REQUIRE(prim(S("truediv"))->fn(ctx, {args.data(), args.size()}) == Error::Ok);
    CHECK(asDouble(*slot) == 3.5);
    REQUIRE(prim(S("lt"))->fn(ctx, {args.data(), args.size()}) == Error::Ok);
    CHECK_FALSE(asBool(*slot));
    REQUIRE(prim(S("floordiv"))->fn(ctx, {args.data(), args.size()}) == Error::Ok);
    CHECK(asInt(*slot) == 3);
  }
  // A value that feeds an IntList changes what the list reads afterwards.
  EValue *n = b.i(0);
  EValue *list = b.add(EValue::fromIntList({&n, 1}));
  std::vector<EValue *> args = {b.i(20), b.i(3), n};
  rt::KernelContext ctx;
  REQUIRE(prim(S("mul"))->fn(ctx, {args.data(), args.size()}) == Error::Ok);
  CHECK(list->intListAt(0) == 60);
}

TEST_CASE("prim ops fail cleanly instead of dividing by zero or overflowing",
          "[kernels][prim]") {
  Boxer b;
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  CHECK_THAT(fails(b, S("floordiv"), {b.i(1), b.i(0)}), Catch::Contains("division by zero"));
  CHECK_THAT(fails(b, S("floordiv"), {b.d(1), b.d(0)}), Catch::Contains("division by zero"));
  CHECK_THAT(fails(b, S("truediv"), {b.i(1), b.i(0)}), Catch::Contains("division by zero"));
  CHECK_THAT(fails(b, S("truediv"), {b.d(1), b.i(0)}), Catch::Contains("division by zero"));
  CHECK_THAT(fails(b, S("mod"), {b.i(1), b.i(0)}), Catch::Contains("modulo by zero"));
  CHECK_THAT(fails(b, S("mod"), {b.d(1), b.d(0)}), Catch::Contains("modulo by zero"));
  CHECK_THAT(fails(b, "executorch_prim::floordiv.int", {b.i(1), b.i(0)}),
             Catch::Contains("division by zero"));
  CHECK_THAT(fails(b, "executorch_prim::mod.int", {b.i(1), b.i(0)}),
             Catch::Contains("modulo by zero"));
  CHECK_THAT(fails(b, S("floordiv"), {b.i(lo), b.i(-1)}), Catch::Contains("overflows"));
  CHECK_THAT(fails(b, S("add"), {b.i(hi), b.i(1)}), Catch::Contains("overflow"));
  CHECK_THAT(fails(b, S("sub"), {b.i(lo), b.i(1)}), Catch::Contains("overflow"));
  CHECK_THAT(fails(b, S("mul"), {b.i(hi), b.i(2)}), Catch::Contains("overflow"));
  CHECK_THAT(fails(b, S("neg"), {b.i(lo)}), Catch::Contains("overflows"));
  CHECK_THAT(fails(b, S("sym_int"), {b.d(NAN)}), Catch::Contains("cannot be converted"));
  CHECK_THAT(fails(b, S("ceil"), {b.d(1e300)}), Catch::Contains("cannot be converted"));
  CHECK_THAT(fails(b, S("add"), {b.i(1), b.none()}),
             Catch::Contains("argument 1 (b): expected Int, Double or Bool, got None"));
  CHECK_THAT(fails(b, "executorch_prim::floordiv.int", {b.d(1), b.i(2)}),
             Catch::Contains("argument 0 (a): expected Int, got Double"));
  // The return slot may not be a tensor: overwriting it would break others.
  EValue *t = b.f32({2}, {1, 2});
  std::vector<EValue *> args = {b.i(1), b.i(2), t};
  rt::KernelContext ctx;
  CHECK(prim(S("add"))->fn(ctx, {args.data(), args.size()}) == Error::InvalidArgument);
  CHECK_THAT(ctx.message(), Catch::Contains("expected a scalar placeholder"));
  CHECK(t->isTensor());
  // Every prim op refuses a wrong count and all-None operands with a message.
  for (const auto &k : rt::primKernels()) {
    INFO(k.name);
    rt::KernelContext c0;
    CHECK(k.fn(c0, {}) == Error::InvalidArgument);
    CHECK_THAT(c0.message(), Catch::Contains("expected"));
    std::vector<EValue *> nones;
    for (int i = 0; i < k.numArgs; ++i)
      nones.push_back(b.none());
    rt::KernelContext c1;
    CHECK(k.fn(c1, {nones.data(), nones.size()}) == Error::InvalidArgument);
    CHECK(std::strlen(c1.message()) > 0);
  }
}

TEST_CASE("sym_size and sym_numel read the current shape", "[kernels][prim]") {
  Boxer b;
  rt::Tensor *t = b.tensor(ScalarType::Float, {2, 3, 5});
  EValue *x = b.t(t);
  CHECK(asInt(run(b, "aten::sym_size.int", {x, b.i(0)})) == 2);
  CHECK(asInt(run(b, "aten::sym_size.int", {x, b.i(2)})) == 5);
  CHECK(asInt(run(b, "aten::sym_size.int", {x, b.i(-1)})) == 5);
  CHECK(asInt(run(b, "aten::sym_size.int", {x, b.i(-3)})) == 2);
  CHECK(asInt(run(b, "aten::sym_numel", {x})) == 30);
  REQUIRE(t->resize({2, 1, 4}) == Error::Ok); // a kernel resized it
  CHECK(asInt(run(b, "aten::sym_size.int", {x, b.i(1)})) == 1);
  CHECK(asInt(run(b, "aten::sym_numel", {x})) == 8);
  CHECK_THAT(fails(b, "aten::sym_size.int", {x, b.i(3)}),
             Catch::Contains("dim 3 out of range for a tensor of rank 3"));
  CHECK_THAT(fails(b, "aten::sym_size.int", {x, b.i(-4)}),
             Catch::Contains("dim -4 out of range for a tensor of rank 3"));
  EValue *scalar = b.t(b.tensor(ScalarType::Float, {}));
  CHECK_THAT(fails(b, "aten::sym_size.int", {scalar, b.i(0)}), Catch::Contains("rank 0"));
  CHECK(asInt(run(b, "aten::sym_numel", {scalar})) == 1);
  CHECK_THAT(fails(b, "aten::sym_size.int", {b.i(1), b.i(0)}),
             Catch::Contains("expected Tensor, got Int"));
}

TEST_CASE("_local_scalar_dense reads the one element with the dtype's tag", "[kernels][prim]") {
  Boxer b;
  CHECK(asDouble(run(b, "aten::_local_scalar_dense", {b.f32({1}, {2.5f})})) == 2.5);
  CHECK(asInt(run(b, "aten::_local_scalar_dense", {b.i64({1, 1}, {-9})})) == -9);
  rt::Tensor *bt = b.tensor(ScalarType::Bool, {});
  bt->dataAs<uint8_t>()[0] = 1;
  CHECK(asBool(run(b, "aten::_local_scalar_dense", {b.t(bt)})));
  CHECK_THAT(fails(b, "aten::_local_scalar_dense", {b.f32({2}, {1, 2})}),
             Catch::Contains("2 elements"));
}
