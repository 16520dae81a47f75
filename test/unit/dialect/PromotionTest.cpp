// PyTorch's dtype promotion as the shape rules implement it
// (dialects/exir/IR/ShapeRulesSupport.h): promote_types, result_type's three
// priority groups (dimensioned tensors, 0-dim tensors, wrapped numbers) and
// canCast. Expected values are PyTorch's (torch.promote_types,
// torch.result_type, torch.can_cast).

#include "dialects/exir/IR/ShapeRulesSupport.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include <catch2/catch.hpp>

using namespace mlir;
namespace r = ptec::exir::rules;

namespace {

struct Types {
  MLIRContext ctx;
  Builder b{&ctx};
  Type b1 = b.getI1Type(), u8 = IntegerType::get(&ctx, 8, IntegerType::Unsigned),
       i8 = b.getI8Type(), i16 = b.getI16Type(), i32 = b.getI32Type(),
       i64 = b.getI64Type(), f16 = b.getF16Type(), bf16 = b.getBF16Type(),
       f32 = b.getF32Type(), f64 = b.getF64Type(), c64 = ComplexType::get(f32),
       c128 = ComplexType::get(f64), u16 = IntegerType::get(&ctx, 16, IntegerType::Unsigned),
       f8 = b.getFloat8E4M3FNType();
  RankedTensorType t(ArrayRef<int64_t> shape, Type e) { return RankedTensorType::get(shape, e); }
};

r::ScalarArg number(double v, bool isFloat) {
  r::ScalarArg s;
  s.kind = isFloat ? r::ScalarArg::Kind::Float : r::ScalarArg::Kind::Int;
  s.f = v;
  s.i = static_cast<int64_t>(v);
  return s;
}

} // namespace

TEST_CASE("promote_types", "[promotion]") {
  Types T;
  CHECK(r::promoteTypes(T.b1, T.i32) == T.i32);
  CHECK(r::promoteTypes(T.u8, T.i8) == T.i16);
  CHECK(r::promoteTypes(T.u8, T.i32) == T.i32);
  CHECK(r::promoteTypes(T.i16, T.i64) == T.i64);
  CHECK(r::promoteTypes(T.i64, T.f16) == T.f16);
  CHECK(r::promoteTypes(T.f16, T.bf16) == T.f32);
  CHECK(r::promoteTypes(T.bf16, T.f64) == T.f64);
  CHECK(r::promoteTypes(T.f64, T.c64) == T.c128);
  CHECK(r::promoteTypes(T.i64, T.c64) == T.c64);
  CHECK(r::promoteTypes(T.c64, T.c128) == T.c128);
  // PyTorch refuses these: no dtype to compare against.
  CHECK_FALSE(r::promoteTypes(T.u16, T.i32));
  CHECK_FALSE(r::promoteTypes(T.f8, T.f32));
  CHECK(r::promoteTypes(T.u16, T.b1) == T.u16);
}

TEST_CASE("result_type: tensors with dims win within a category", "[promotion]") {
  Types T;
  auto result = [&](std::initializer_list<RankedTensorType> ts,
                    std::initializer_list<r::ScalarArg> ss = {}) {
    r::ResultType rt;
    for (RankedTensorType t : ts)
      rt.add(t);
    for (const r::ScalarArg &s : ss)
      rt.add(s, &T.ctx);
    return rt.get();
  };
  // torch.result_type(torch.ones(3, dtype=float32), torch.tensor(1., dtype=float64))
  CHECK(result({T.t({3}, T.f32), T.t({}, T.f64)}) == T.f32);
  CHECK(result({T.t({3}, T.i32), T.t({}, T.i64)}) == T.i32);
  // A 0-dim tensor of a higher category counts.
  CHECK(result({T.t({3}, T.i64), T.t({}, T.f64)}) == T.f64);
  CHECK(result({T.t({3}, T.f16), T.t({}, T.c128)}) == ComplexType::get(T.f16));
  // Wrapped numbers: an int keeps int32, a float on ints is the default float.
  CHECK(result({T.t({3}, T.i32)}, {number(2, false)}) == T.i32);
  CHECK(result({T.t({3}, T.i64)}, {number(2.5, true)}) == T.f32);
  CHECK(result({T.t({3}, T.f16)}, {number(2.5, true)}) == T.f16);
  // Bool tensors take the number's category.
  CHECK(result({T.t({3}, T.b1)}, {number(1, false)}) == T.i64);
  // Only numbers (where.Scalar): int64 or the default float.
  CHECK(result({}, {number(1, false), number(2, true)}) == T.f32);
  // 0-dim tensors over numbers.
  CHECK(result({T.t({}, T.i32)}, {number(1, false)}) == T.i32);
  CHECK(result({T.t({}, T.i32), T.t({}, T.u8)}) == T.i32);
}

TEST_CASE("canCast", "[promotion]") {
  Types T;
  CHECK(r::canCast(T.i64, T.f32));
  CHECK(r::canCast(T.f64, T.f16));
  CHECK(r::canCast(T.b1, T.i8));
  CHECK_FALSE(r::canCast(T.f32, T.i64));
  CHECK_FALSE(r::canCast(T.c64, T.f64));
  CHECK_FALSE(r::canCast(T.i32, T.b1));
}

TEST_CASE("dtype names are PyTorch's", "[promotion]") {
  Types T;
  CHECK(r::dtypeName(T.f32) == "float32");
  CHECK(r::dtypeName(T.bf16) == "bfloat16");
  CHECK(r::dtypeName(T.u8) == "uint8");
  CHECK(r::dtypeName(T.b1) == "bool");
  CHECK(r::dtypeName(T.c64) == "complex64");
  CHECK(r::describe(r::Spec::of({2, r::kDataDependent}, T.i64)) == "int64[2, ?]");
  CHECK(r::dtypeNamed(&T.ctx, "long") == T.i64);
}
