// Dynamic shapes in the importer (compiler/ImportSymbolic.h): sizes at the
// symbols' upper bounds, symbolic-int nodes and their values at the bound,
// and argument bindings.

#include "compiler/ImportSymbolic.h"
#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <catch2/catch.hpp>

using namespace mlir;
namespace pt2 = ptec::pt2;
using ptec::import::SymbolicShapes;
using ptec::import::SymValue;

namespace {

const char *kS0 = "Symbol('s0', integer=True, positive=True)";

pt2::ExportedProgram programWith(std::optional<int64_t> max) {
  pt2::ExportedProgram p;
  p.rangeConstraints["s0"] = {2, max};
  return p;
}

pt2::TensorMeta metaOf(std::vector<int64_t> sizes, std::vector<std::string> sym) {
  pt2::TensorMeta m;
  m.dtype = pt2::DType::Float;
  m.sizes = std::move(sizes);
  m.symSizes = std::move(sym);
  return m;
}

pt2::NamedArgument symArg(const std::string &name) {
  pt2::NamedArgument a;
  a.arg.kind = pt2::Argument::Kind::SymInt;
  a.arg.name = name;
  return a;
}

pt2::NamedArgument intArg(int64_t v) {
  pt2::NamedArgument a;
  a.arg.kind = pt2::Argument::Kind::Int;
  a.arg.i = v;
  return a;
}

pt2::Node symNode(const std::string &target, std::vector<pt2::NamedArgument> in,
                  const std::string &out) {
  pt2::Node n;
  n.target = target;
  n.name = out;
  n.inputs = std::move(in);
  pt2::Argument o;
  o.kind = pt2::Argument::Kind::SymInt;
  o.name = out;
  n.outputs = {o};
  return n;
}

struct Fixture {
  Fixture() : b(&ctx) {
    ctx.loadDialect<ptec::exir::ExirDialect, func::FuncDialect>();
    module = ModuleOp::create(UnknownLoc::get(&ctx));
    b.setInsertionPointToEnd(module->getBody());
    auto fn = b.create<func::FuncOp>(UnknownLoc::get(&ctx), "f",
                                     b.getFunctionType({RankedTensorType::get({32, 4}, b.getF32Type())}, {}));
    Block *entry = fn.addEntryBlock();
    x = entry->getArgument(0);
    b.setInsertionPointToEnd(entry);
  }
  bool run(const pt2::Node &n, std::string *error) {
    auto tensor = [&](llvm::StringRef name) { return name == "x" ? x : Value(); };
    return ptec::import::importSymbolicNode(b, UnknownLoc::get(&ctx), n, tensor, syms, error);
  }
  MLIRContext ctx;
  OpBuilder b;
  OwningOpRef<ModuleOp> module;
  Value x;
  llvm::StringMap<SymValue> syms;
};

} // namespace

TEST_CASE("tensor sizes at the symbols' upper bounds", "[import][dynamic]") {
  SymbolicShapes shapes(programWith(32));
  llvm::SmallVector<int64_t> sizes, dyn;
  std::string error;
  REQUIRE(shapes.boundSizes(metaOf({1, -1, -1, 8}, {"", kS0, std::string("Mul(Integer(4), ") + kS0 + ")", ""}),
                            sizes, dyn, &error));
  CHECK(sizes == llvm::SmallVector<int64_t>{1, 32, 128, 8});
  CHECK(dyn == llvm::SmallVector<int64_t>{1, 2});
  // The older str spelling, and a floor division by a constant.
  sizes.clear();
  dyn.clear();
  REQUIRE(shapes.boundSizes(metaOf({-1}, {"(s0//3) + 1"}), sizes, dyn, &error));
  CHECK(sizes == llvm::SmallVector<int64_t>{11});
  // Static sizes pass through untouched.
  sizes.clear();
  dyn.clear();
  REQUIRE(shapes.boundSizes(metaOf({3, 4}, {}), sizes, dyn, &error));
  CHECK(sizes == llvm::SmallVector<int64_t>{3, 4});
  CHECK(dyn.empty());
}

TEST_CASE("sizes that cannot be bounded are refused", "[import][dynamic]") {
  llvm::SmallVector<int64_t> sizes, dyn;
  std::string error;
  SymbolicShapes unbounded(programWith(std::nullopt));
  CHECK_FALSE(unbounded.boundSizes(metaOf({-1}, {kS0}), sizes, dyn, &error));
  CHECK(error == "dimension 0 (size s0: symbol 's0' has no upper bound; export it with "
                 "Dim(..., max=N))");
  SymbolicShapes shapes(programWith(32));
  CHECK_FALSE(shapes.boundSizes(metaOf({2, -1}, {"", "Add(Integer(40), Mul(Integer(-1), " +
                                                         std::string(kS0) + "))"}),
                                sizes, dyn, &error));
  CHECK(error == "dimension 1 (size -s0 + 40 does not grow with its symbols, so its largest "
                 "value is not known)");
  CHECK_FALSE(shapes.boundSizes(metaOf({-1}, {"u0"}), sizes, dyn, &error));
  CHECK(error.find("symbol 'u0' has no range") != std::string::npos);
  CHECK_FALSE(shapes.boundSizes(metaOf({-1}, {"Rational(1, 2)"}), sizes, dyn, &error));
  CHECK(error.find("dimension 0 (size expression: ") == 0);
  // min > max is an empty range, named as such (it used to read as a size
  // that does not grow), whichever way the expression goes.
  SymbolicShapes empty(programWith(1));
  for (std::string text : {std::string(kS0), "Add(Integer(40), Mul(Integer(-1), " +
                                                  std::string(kS0) + "))"}) {
    CHECK_FALSE(empty.boundSizes(metaOf({-1}, {text}), sizes, dyn, &error));
    CHECK(error.find(": symbol 's0' has min 2 > max 1 in range_constraints") !=
          std::string::npos);
  }
  SymbolicShapes huge(programWith(int64_t(1) << 40));
  CHECK_FALSE(huge.boundSizes(metaOf({-1}, {kS0}), sizes, dyn, &error));
  CHECK(error.find("outside [0, 2^31]") != std::string::npos);
}

TEST_CASE("symbolic ints carry their value at the bound", "[import][dynamic]") {
  Fixture f;
  std::string error;
  pt2::NamedArgument self;
  self.name = "self";
  self.arg.kind = pt2::Argument::Kind::Tensor;
  self.arg.name = "x";
  REQUIRE(f.run(symNode("torch.ops.aten.sym_size.int", {self, intArg(0)}, "s"), &error));
  CHECK(f.syms["s"].bound == 32);
  // Python semantics: floor division and modulo round toward -infinity.
  REQUIRE(f.run(symNode("_operator.neg", {symArg("s")}, "n"), &error));
  CHECK(f.syms["n"].bound == -32);
  REQUIRE(f.run(symNode("_operator.floordiv", {symArg("n"), intArg(5)}, "q"), &error));
  CHECK(f.syms["q"].bound == -7);
  REQUIRE(f.run(symNode("_operator.mod", {symArg("n"), intArg(5)}, "r"), &error));
  CHECK(f.syms["r"].bound == 3);
  REQUIRE(f.run(symNode("torch.sym_max", {symArg("q"), symArg("r")}, "m"), &error));
  CHECK(f.syms["m"].bound == 3);
  REQUIRE(f.run(symNode("_operator.mul", {symArg("s"), intArg(4)}, "p"), &error));
  CHECK(f.syms["p"].bound == 128);
  // One exir.sym per arithmetic node, literals as exir.sym_const.
  int syms = 0, consts = 0;
  f.module->walk([&](Operation *op) {
    syms += llvm::isa<ptec::exir::SymOp>(op);
    consts += llvm::isa<ptec::exir::SymConstOp>(op);
  });
  CHECK(syms == 5);
  CHECK(consts == 3);
  f.b.create<func::ReturnOp>(UnknownLoc::get(&f.ctx));
  CHECK(succeeded(mlir::verify(*f.module)));

  CHECK_FALSE(f.run(symNode("_operator.floordiv", {symArg("s"), intArg(0)}, "z"), &error));
  CHECK(error == "divides by zero at the symbols' upper bounds");
  CHECK_FALSE(f.run(symNode("_operator.truediv", {symArg("s"), intArg(2)}, "t"), &error));
  CHECK(error.find("is not supported (size arithmetic:") != std::string::npos);
  CHECK_FALSE(f.run(symNode("_operator.add", {symArg("nope"), intArg(1)}, "a"), &error));
  CHECK(error == "uses 'nope', which is not a symbolic int defined before it");
}

TEST_CASE("comparisons only feed shape asserts", "[import][dynamic]") {
  Fixture f;
  std::string error;
  f.syms["s"] = SymValue{Value(), 32};
  pt2::Node ge = symNode("_operator.ge", {symArg("s"), intArg(2)}, "ok");
  ge.outputs[0].kind = pt2::Argument::Kind::SymBool;
  REQUIRE(f.run(ge, &error));
  CHECK(f.syms["ok"].checkOnly);
  pt2::Node assertNode = symNode("torch.ops.aten._assert_scalar.default", {}, "");
  REQUIRE(f.run(assertNode, &error));
  // Used as a value, the comparison is refused.
  CHECK_FALSE(f.run(symNode("_operator.add", {symArg("ok"), intArg(1)}, "v"), &error));
  CHECK(error.find("symbolic booleans are only supported in shape asserts") != std::string::npos);
}

TEST_CASE("arguments bind their symbolic ints", "[import][dynamic]") {
  Fixture f;
  std::string error;
  f.syms["s"] = SymValue{f.x, 32}; // any value stands in for the SSA value
  std::map<std::string, int64_t> concrete{{"five", 5}};
  pt2::Argument list;
  list.kind = pt2::Argument::Kind::SymInts;
  list.names = {"", "s", "five"};
  list.ints = {1, 0, 0};
  list.symIsName = {false, true, true};
  llvm::SmallVector<Value> operands;
  llvm::SmallVector<std::string> bindings;
  REQUIRE(ptec::import::bindSymbolicArgument("size", list, false, f.syms, concrete, operands,
                                             bindings, &error));
  // The concrete one is the attribute's; only the run-time one is bound.
  CHECK(bindings == llvm::SmallVector<std::string>{"size[1]"});
  CHECK(operands.size() == 1);
  pt2::Argument scalar;
  scalar.kind = pt2::Argument::Kind::SymInt;
  scalar.name = "s";
  CHECK_FALSE(ptec::import::bindSymbolicArgument("value", scalar, /*floatTyped=*/true, f.syms,
                                                 concrete, operands, bindings, &error));
  CHECK(error.find("is a float computed from sizes") != std::string::npos);
  scalar.name = "missing";
  CHECK_FALSE(ptec::import::bindSymbolicArgument("end", scalar, false, f.syms, concrete,
                                                 operands, bindings, &error));
  CHECK(error == "argument 'end' uses 'missing', which is not a symbolic int defined before it");
}
