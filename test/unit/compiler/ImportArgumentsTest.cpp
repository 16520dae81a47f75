// Default filling and type checks of non-tensor arguments
// (compiler/ImportArguments.h).

#include "compiler/ImportArguments.h"
#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <catch2/catch.hpp>

using namespace mlir;
namespace pt2 = ptec::pt2;
namespace schema = ptec::schema;
using ptec::import::convertArgument;
using ptec::import::defaultArgument;

namespace {

struct Fixture {
  Fixture() { ctx.loadDialect<ptec::exir::ExirDialect>(); }
  MLIRContext ctx;
  std::map<std::string, int64_t> noSyms;
};

/// Argument `name` of a schema parsed from `text`.
schema::Argument arg(const std::string &text, const std::string &name) {
  schema::ParseError err;
  auto s = schema::parseSchema(text, &err);
  REQUIRE(s);
  int i = s->findArgument(name);
  REQUIRE(i >= 0);
  return s->arguments[i];
}

Attribute defaulted(MLIRContext &ctx, const schema::Argument &a) {
  std::string error;
  FailureOr<Attribute> attr = defaultArgument(&ctx, a, &error);
  INFO(error);
  REQUIRE(succeeded(attr));
  return *attr;
}

pt2::Argument intArg(int64_t v) {
  pt2::Argument a;
  a.kind = pt2::Argument::Kind::Int;
  a.i = v;
  return a;
}

} // namespace

TEST_CASE_METHOD(Fixture, "defaults become typed attributes", "[import][defaults]") {
  const char *pool = "max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], "
                     "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)";
  // `[]` stays empty (it means "same as kernel_size"); a bare scalar on a
  // sized list is repeated.
  CHECK(defaulted(ctx, arg(pool, "stride")) == DenseI64ArrayAttr::get(&ctx, {}));
  CHECK(defaulted(ctx, arg(pool, "padding")) == DenseI64ArrayAttr::get(&ctx, {0, 0}));
  CHECK(defaulted(ctx, arg(pool, "dilation")) == DenseI64ArrayAttr::get(&ctx, {1, 1}));
  CHECK(defaulted(ctx, arg(pool, "ceil_mode")) == BoolAttr::get(&ctx, false));

  const char *add = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor";
  auto alpha = llvm::dyn_cast<IntegerAttr>(defaulted(ctx, arg(add, "alpha")));
  REQUIRE(alpha);
  CHECK(alpha.getInt() == 1);
  CHECK(alpha.getType().isInteger(64));

  const char *copy = "_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
                     "bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor";
  CHECK(llvm::isa<ptec::exir::NoneAttr>(defaulted(ctx, arg(copy, "dtype"))));
  CHECK(llvm::isa<ptec::exir::NoneAttr>(defaulted(ctx, arg(copy, "memory_format"))));

  const char *hardtanh = "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor";
  CHECK(llvm::cast<IntegerAttr>(defaulted(ctx, arg(hardtanh, "min_val"))).getInt() == -1);

  const char *elu = "elu(Tensor self, Scalar alpha=1, Scalar scale=1, float input_scale=1) -> Tensor";
  auto inputScale = llvm::dyn_cast<FloatAttr>(defaulted(ctx, arg(elu, "input_scale")));
  REQUIRE(inputScale); // an int default on a float argument is a float
  CHECK(inputScale.getValueAsDouble() == 1.0);

  const char *gelu = "gelu(Tensor self, *, str approximate='none') -> Tensor";
  CHECK(defaulted(ctx, arg(gelu, "approximate")) == StringAttr::get(&ctx, "none"));
}

TEST_CASE_METHOD(Fixture, "identifier defaults", "[import][defaults]") {
  const char *f = "f(Tensor self, ScalarType dtype=float, Layout layout=strided, "
                  "MemoryFormat memory_format=contiguous_format, int reduction=Mean, "
                  "ScalarType other=long) -> Tensor";
  auto dtype = llvm::dyn_cast<TypeAttr>(defaulted(ctx, arg(f, "dtype")));
  REQUIRE(dtype);
  CHECK(dtype.getValue().isF32());
  CHECK(llvm::cast<TypeAttr>(defaulted(ctx, arg(f, "other"))).getValue().isInteger(64));
  CHECK(defaulted(ctx, arg(f, "layout")) == StringAttr::get(&ctx, "strided"));
  CHECK(defaulted(ctx, arg(f, "memory_format")) ==
        StringAttr::get(&ctx, "contiguous_format"));
  CHECK(llvm::cast<IntegerAttr>(defaulted(ctx, arg(f, "reduction"))).getInt() == 1);
}

TEST_CASE_METHOD(Fixture, "an argument without default is required", "[import][defaults]") {
  std::string error;
  auto a = arg("mm(Tensor self, Tensor mat2, int k) -> Tensor", "k");
  CHECK(failed(defaultArgument(&ctx, a, &error)));
  CHECK(error == "missing required argument 'k'");
}

TEST_CASE_METHOD(Fixture, "values are checked against the schema type", "[import][types]") {
  std::string error;
  auto alpha = arg("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", "alpha");
  auto dim = arg("cat(Tensor[] tensors, int dim=0) -> Tensor", "dim");
  auto keepdim = arg("mean.dim(Tensor self, int[1]? dim, bool keepdim=False) -> Tensor", "keepdim");
  auto dims = arg("mean.dim(Tensor self, int[1]? dim, bool keepdim=False) -> Tensor", "dim");
  auto eps = arg("native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, "
                 "Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)", "eps");

  SECTION("matching kinds convert") {
    auto a = convertArgument(&ctx, dim, intArg(3), noSyms, &error);
    REQUIRE(succeeded(a));
    CHECK(llvm::cast<IntegerAttr>(*a).getInt() == 3);
    // An int passed for a float parameter is coerced.
    auto e = convertArgument(&ctx, eps, intArg(0), noSyms, &error);
    REQUIRE(succeeded(e));
    CHECK(llvm::isa<FloatAttr>(*e));
    // Scalar takes ints, floats and bools.
    pt2::Argument f;
    f.kind = pt2::Argument::Kind::Float;
    f.f = 0.5;
    auto s = convertArgument(&ctx, alpha, f, noSyms, &error);
    REQUIRE(succeeded(s));
    CHECK(llvm::cast<FloatAttr>(*s).getValueAsDouble() == 0.5);
  }
  SECTION("mismatches fail with the expected and actual kinds") {
    pt2::Argument str;
    str.kind = pt2::Argument::Kind::String;
    str.s = "two";
    CHECK(failed(convertArgument(&ctx, alpha, str, noSyms, &error)));
    CHECK(error == "expected Scalar, got as_string");
    CHECK(failed(convertArgument(&ctx, keepdim, intArg(1), noSyms, &error)));
    CHECK(error == "expected bool, got as_int");
    pt2::Argument none;
    CHECK(failed(convertArgument(&ctx, dim, none, noSyms, &error)));
    CHECK(error == "expected int, got as_none");
  }
  SECTION("optional arguments take None") {
    pt2::Argument none;
    auto n = convertArgument(&ctx, dims, none, noSyms, &error);
    REQUIRE(succeeded(n));
    CHECK(llvm::isa<ptec::exir::NoneAttr>(*n));
  }
  SECTION("int lists, symbolic ints with known values, empty lists of any kind") {
    pt2::Argument ints;
    ints.kind = pt2::Argument::Kind::Ints;
    ints.ints = {-1, -2};
    auto l = convertArgument(&ctx, dims, ints, noSyms, &error);
    REQUIRE(succeeded(l));
    CHECK(*l == DenseI64ArrayAttr::get(&ctx, {-1, -2}));

    pt2::Argument sym;
    sym.kind = pt2::Argument::Kind::SymInts;
    sym.names = {"", "s0"};
    sym.ints = {4, 0};
    sym.symIsName = {false, true};
    CHECK(failed(convertArgument(&ctx, dims, sym, noSyms, &error)));
    CHECK(error == "symbolic value 's0' is not a symbolic int defined before this node (only "
                   "sym_size.int and integer size arithmetic make symbolic values)");
    std::map<std::string, int64_t> known{{"s0", 8}};
    auto resolved = convertArgument(&ctx, dims, sym, known, &error);
    REQUIRE(succeeded(resolved));
    CHECK(*resolved == DenseI64ArrayAttr::get(&ctx, {4, 8}));

    pt2::Argument empty;
    empty.kind = pt2::Argument::Kind::Tensors; // writers pick any key for []
    auto e = convertArgument(&ctx, dims, empty, noSyms, &error);
    REQUIRE(succeeded(e));
    CHECK(*e == DenseI64ArrayAttr::get(&ctx, {}));
  }
  SECTION("dtypes use the .pt2 numbering") {
    auto dtypeArg = arg("_to_copy(Tensor self, *, ScalarType? dtype=None) -> Tensor", "dtype");
    pt2::Argument dt;
    dt.kind = pt2::Argument::Kind::ScalarType;
    dt.i = 5; // LONG in the serialization numbering (c10 says 4)
    auto t = convertArgument(&ctx, dtypeArg, dt, noSyms, &error);
    REQUIRE(succeeded(t));
    CHECK(llvm::cast<TypeAttr>(*t).getValue().isInteger(64));
  }
}

TEST_CASE_METHOD(Fixture, "element types of the .pt2 dtypes", "[import][types]") {
  using ptec::import::elementTypeFor;
  CHECK(elementTypeFor(&ctx, pt2::DType::Float).isF32());
  CHECK(elementTypeFor(&ctx, pt2::DType::Double).isF64());
  CHECK(elementTypeFor(&ctx, pt2::DType::Half).isF16());
  CHECK(elementTypeFor(&ctx, pt2::DType::BFloat16).isBF16());
  CHECK(elementTypeFor(&ctx, pt2::DType::Long).isSignlessInteger(64));
  CHECK(elementTypeFor(&ctx, pt2::DType::Int).isSignlessInteger(32));
  CHECK(elementTypeFor(&ctx, pt2::DType::Short).isSignlessInteger(16));
  CHECK(elementTypeFor(&ctx, pt2::DType::Char).isSignlessInteger(8));
  CHECK(elementTypeFor(&ctx, pt2::DType::Byte).isUnsignedInteger(8));
  CHECK(elementTypeFor(&ctx, pt2::DType::Bool).isSignlessInteger(1));
  CHECK(!elementTypeFor(&ctx, pt2::DType::Unknown));
}
