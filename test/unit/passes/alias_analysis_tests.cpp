// Unit tests of passes/analysis/AliasAnalysis: alias sets from schema
// annotations, readers and writers, opaque ops, exir.inplace_of.
#include "passes/analysis/AliasAnalysis.h"

#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <catch2/catch.hpp>

#include <string>

using namespace mlir;
using ptec::AliasAnalysis;

namespace {

/// Parses a module whose ops carry `test.tag = "name"` so tests can find them.
struct Ir {
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;

  explicit Ir(const std::string &text) {
    DialectRegistry registry;
    registry.insert<ptec::exir::ExirDialect, func::FuncDialect>();
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    ctx.allowUnregisteredDialects();
    module = parseSourceString<ModuleOp>(text, &ctx);
    REQUIRE(module);
  }
  func::FuncOp func(StringRef name = "f") {
    return module->lookupSymbol<func::FuncOp>(name);
  }
  Operation *op(StringRef tag) {
    Operation *found = nullptr;
    module->walk([&](Operation *o) {
      if (auto t = o->getAttrOfType<StringAttr>("test.tag"))
        if (t.getValue() == tag)
          found = o;
    });
    REQUIRE(found);
    return found;
  }
  Value res(StringRef tag, unsigned i = 0) { return op(tag)->getResult(i); }
  Value arg(unsigned i, StringRef f = "f") { return func(f).getArgument(i); }
};

bool contains(ArrayRef<Operation *> ops, Operation *op) {
  return llvm::is_contained(ops, op);
}

/// `func.func @f(args) -> (results) { body; return ret }`.
std::string fn(const std::string &args, const std::string &body,
               const std::string &results = "", const std::string &ret = "") {
  std::string sig = results.empty() ? "" : " -> (" + results + ")";
  std::string r = ret.empty() ? "" : " " + ret + " : " + results;
  return "func.func @f(" + args + ")" + sig + " {\n" + body + "\n  return" + r +
         "\n}\n";
}

// Shorthands for the IR text.
const std::string T = "tensor<4xf32>";
std::string unary(const std::string &res, const std::string &op,
                  const std::string &x, const std::string &attrs = "") {
  return "  %" + res + " = exir.aten \"" + op + "\"(%" + x + ") {" + attrs +
         (attrs.empty() ? "" : ", ") +
         "operand_segments = array<i32: 1>, test.tag = \"" + res + "\"} : (" +
         T + ") -> " + T + "\n";
}
std::string binary(const std::string &res, const std::string &op,
                   const std::string &x, const std::string &y,
                   const std::string &attrs = "") {
  return "  %" + res + " = exir.aten \"" + op + "\"(%" + x + ", %" + y +
         ") {" + attrs + (attrs.empty() ? "" : ", ") +
         "operand_segments = array<i32: 1, 1>, test.tag = \"" + res +
         "\"} : (" + T + ", " + T + ") -> " + T + "\n";
}

} // namespace

TEST_CASE("views join their base's set; functional results are fresh",
          "[alias]") {
  Ir ir(fn("%a: tensor<4xf32>, %b: tensor<4xf32>",
           unary("v", "aten::view", "a", "size = array<i64: 4>") +
               unary("t", "aten::alias", "v") +
               binary("s", "aten::add.Tensor", "a", "b")));
  AliasAnalysis aa(ir.func());
  Value a = ir.arg(0), b = ir.arg(1);
  CHECK(aa.mayAlias(ir.res("v"), a));
  CHECK(aa.mayAlias(ir.res("t"), a));
  CHECK_FALSE(aa.mayAlias(a, b));
  CHECK_FALSE(aa.mayAlias(ir.res("s"), a));
  CHECK_FALSE(aa.mayAlias(ir.res("s"), b));
  CHECK(aa.getAliasSet(ir.res("t")) == aa.getAliasSet(a));
  SmallVector<Value> aliases = aa.getAliases(ir.res("v"));
  REQUIRE(aliases.size() == 3);
  CHECK(aliases[0] == a); // arguments first, then program order
  CHECK(aliases[1] == ir.res("v"));
  CHECK(aliases[2] == ir.res("t"));
  CHECK_FALSE(aa.isOpaque(ir.op("v")));
  // A view is not a write: no storage is written into.
  CHECK_FALSE(AliasAnalysis::getWrittenOperand(
      llvm::cast<OpResult>(ir.res("v"))));
}

TEST_CASE("readers see through aliases; the return is not a reader",
          "[alias]") {
  Ir ir(fn("%a: tensor<4xf32>, %b: tensor<4xf32>",
           unary("v", "aten::view", "a", "size = array<i64: 4>") +
               unary("r", "aten::relu", "v") + unary("n", "aten::neg", "b"),
           T + ", " + T, "%a, %r"));
  AliasAnalysis aa(ir.func());
  Value a = ir.arg(0), b = ir.arg(1);
  SmallVector<Operation *> readers = aa.getReaders(a);
  REQUIRE(readers.size() == 2);
  CHECK(readers[0] == ir.op("v"));
  CHECK(readers[1] == ir.op("r"));
  CHECK(aa.getWriters(a).empty());
  CHECK(aa.getReaders(b).size() == 1);
  CHECK(aa.reads(ir.op("r"), a));
  CHECK_FALSE(aa.reads(ir.op("n"), a));
  // Nothing reads %r but the return.
  CHECK(aa.getReaders(ir.res("r")).empty());
}

TEST_CASE("in-place and out-variant results are writes into their operand",
          "[alias]") {
  Ir ir(fn("%a: tensor<4xf32>, %b: tensor<4xf32>, %o: tensor<4xf32>",
           unary("i", "aten::add_.Scalar", "a", "other = 1.0 : f64") +
               unary("j", "aten::relu_", "i") +
               "  %w = exir.aten \"aten::add.out\"(%a, %b, %o) "
               "{operand_segments = array<i32: 1, 1, 1>, test.tag = \"w\"} : "
               "(tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"));
  AliasAnalysis aa(ir.func());
  Value a = ir.arg(0), b = ir.arg(1), o = ir.arg(2);
  CHECK(aa.mayAlias(ir.res("i"), a));
  CHECK(aa.mayAlias(ir.res("j"), a));
  CHECK(aa.mayAlias(ir.res("w"), o));
  CHECK_FALSE(aa.mayAlias(ir.res("w"), a));
  SmallVector<Operation *> writers = aa.getWriters(a);
  REQUIRE(writers.size() == 2);
  CHECK(writers[0] == ir.op("i"));
  CHECK(writers[1] == ir.op("j"));
  CHECK(aa.getWriters(o).size() == 1);
  CHECK(aa.writes(ir.op("w"), o));
  CHECK_FALSE(aa.writes(ir.op("w"), b));
  // The out argument is written, not read.
  CHECK_FALSE(aa.reads(ir.op("w"), o));
  CHECK(aa.reads(ir.op("w"), a));
  CHECK(AliasAnalysis::getWrittenOperand(llvm::cast<OpResult>(ir.res("w"))) == o);
  CHECK(AliasAnalysis::getInPlaceRoot(ir.res("j")) == a);
  CHECK(AliasAnalysis::getInPlaceRoot(ir.res("w")) == o);
  CHECK(AliasAnalysis::getInPlaceRoot(b) == b);
}

TEST_CASE("exir.inplace_of joins the operand's set and writes it", "[alias]") {
  Ir ir(fn("%a: tensor<4xf32>, %b: tensor<4xf32>",
           binary("s", "aten::slice_scatter", "a", "b",
                  "dim = 0 : i64, exir.inplace_of = 0 : i64") +
               binary("m", "aten::mul.Tensor", "s", "b",
                      "exir.inplace_of = 1 : i64") +
               binary("f", "aten::mul.Tensor", "a", "b")));
  AliasAnalysis aa(ir.func());
  Value a = ir.arg(0), b = ir.arg(1);
  // exir.inplace_of = 1: the result of "m" is operand 1's storage.
  struct {
    const char *tag;
    Value into, other;
  } inPlace[] = {{"s", a, b}, {"m", b, a}};
  for (const auto &[tag, into, other] : inPlace) {
    CAPTURE(tag);
    CHECK(aa.mayAlias(ir.res(tag), into));
    CHECK(aa.writes(ir.op(tag), into));
    CHECK_FALSE(aa.writes(ir.op(tag), other));
    CHECK(AliasAnalysis::getInPlaceRoot(ir.res(tag)) == into);
  }
  CHECK(aa.reads(ir.op("s"), a));
  CHECK_FALSE(aa.mayAlias(ir.res("f"), a));
  CHECK(AliasAnalysis::getInPlaceRoot(ir.res("f")) == ir.res("f"));
}

TEST_CASE("a Tensor(a!)[] argument writes every tensor of the list",
          "[alias]") {
  Ir ir(fn("%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>",
           "  exir.aten \"aten::_foreach_add_.Scalar\"(%a, %b) {scalar = 1.0 : "
           "f64, operand_segments = array<i32: 2>, test.tag = \"fe\"} : "
           "(tensor<4xf32>, tensor<4xf32>) -> ()\n"));
  AliasAnalysis aa(ir.func());
  Value a = ir.arg(0), b = ir.arg(1), c = ir.arg(2);
  CHECK(contains(aa.getWriters(a), ir.op("fe")));
  CHECK(contains(aa.getWriters(b), ir.op("fe")));
  CHECK(aa.getWriters(c).empty());
  // List elements keep their own storage.
  CHECK_FALSE(aa.mayAlias(a, b));
}

TEST_CASE("wildcard annotations: results alias everything they touched",
          "[alias]") {
  Ir ir(fn("%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>",
           "  %p:2 = exir.aten \"aten::split.Tensor\"(%a) {split_size = 2 : i64, "
           "operand_segments = array<i32: 1>, test.tag = \"p\"} : "
           "(tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>)\n"
           "  %q:2 = exir.aten \"aten::chunk\"(%b) {chunks = 2 : i64, "
           "operand_segments = array<i32: 1>, test.tag = \"q\"} : "
           "(tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>)\n"));
  AliasAnalysis aa(ir.func());
  Value a = ir.arg(0), b = ir.arg(1), c = ir.arg(2);
  CHECK(aa.mayAlias(ir.res("p", 0), a));
  CHECK(aa.mayAlias(ir.res("p", 1), a));
  CHECK(aa.mayAlias(ir.res("p", 0), ir.res("p", 1)));
  // Both went through a wildcard: they may alias each other.
  CHECK(aa.mayAlias(ir.res("q", 0), a));
  CHECK(aa.mayAlias(a, b));
  CHECK_FALSE(aa.mayAlias(a, c));
  // A wildcard is not a write.
  CHECK(aa.getWriters(a).empty());
}

TEST_CASE("calls, delegate calls and other dialects are opaque", "[alias]") {
  Ir ir(R"(
exir.lowered_module @lm {backend = "BackendWithCompilerDemo", blob = "",
    compile_specs = [], function_type = (tensor<4xf32>) -> tensor<4xf32>, scratch = []}
func.func private @g(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>, %d: tensor<4xf32>, %e: tensor<4xf32>) {
  %0 = func.call @g(%a, %b) {test.tag = "call"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = exir.delegate_call @lm(%c) {test.tag = "dc"} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "other.op"(%d) {test.tag = "other"} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = exir.aten "aten::neg"(%e) {operand_segments = array<i32: 1>, test.tag = "neg"} : (tensor<4xf32>) -> tensor<4xf32>
  return
}
)");
  AliasAnalysis aa(ir.func());
  Value a = ir.arg(0), b = ir.arg(1), c = ir.arg(2), d = ir.arg(3),
        e = ir.arg(4);
  for (const char *tag : {"call", "dc", "other"})
    CHECK(aa.isOpaque(ir.op(tag)));
  CHECK_FALSE(aa.isOpaque(ir.op("neg")));
  // An opaque op's result may alias every operand, and it writes each.
  std::pair<const char *, Value> touched[] = {
      {"call", a}, {"call", b}, {"dc", c}, {"other", d}};
  for (const auto &[tag, operand] : touched) {
    CAPTURE(tag);
    CHECK(aa.mayAlias(ir.res(tag), operand));
    CHECK(aa.writes(ir.op(tag), operand));
  }
  CHECK(aa.mayAlias(a, b)); // the call may have made them share storage
  CHECK(aa.reads(ir.op("call"), b));
  CHECK_FALSE(aa.mayAlias(c, a));
  CHECK_FALSE(aa.writes(ir.op("neg"), e));
  CHECK_FALSE(aa.mayAlias(ir.res("neg"), e));
  // An opaque result is not the product of a write the analysis can name.
  CHECK(AliasAnalysis::getInPlaceRoot(ir.res("dc")) == ir.res("dc"));
}

TEST_CASE("copy_ writes its destination and reads its source", "[alias]") {
  Ir ir(fn("%a: tensor<4xf32>, %b: tensor<4xf32>",
           unary("v", "aten::view", "a", "size = array<i64: 4>") +
               "  exir.copy_ %v, %b {test.tag = \"cp\"} : tensor<4xf32>, "
               "tensor<4xf32>\n"));
  AliasAnalysis aa(ir.func());
  Value a = ir.arg(0), b = ir.arg(1);
  CHECK(aa.writes(ir.op("cp"), a)); // through the view
  CHECK_FALSE(aa.writes(ir.op("cp"), b));
  CHECK(aa.reads(ir.op("cp"), b));
  CHECK_FALSE(aa.reads(ir.op("cp"), a));
  CHECK_FALSE(aa.mayAlias(a, b));
  CHECK(aa.getAccesses(a).size() == 2);
}

TEST_CASE("delegate regions: nested ops are listed, yields join results",
          "[alias]") {
  Ir ir(R"(
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  %r = exir.delegate_region "BackendWithCompilerDemo" attributes {test.tag = "region"} {
    %v = exir.aten "aten::view"(%a) {size = array<i64: 4>, operand_segments = array<i32: 1>, test.tag = "v"} : (tensor<4xf32>) -> tensor<4xf32>
    exir.yield %v : tensor<4xf32>
  } : tensor<4xf32>
  %n = exir.aten "aten::neg"(%b) {operand_segments = array<i32: 1>, test.tag = "n"} : (tensor<4xf32>) -> tensor<4xf32>
  return
}
)");
  AliasAnalysis aa(ir.func());
  Value a = ir.arg(0);
  CHECK(aa.mayAlias(ir.res("region"), a));
  SmallVector<Operation *> readers = aa.getReaders(a);
  REQUIRE(readers.size() == 1);
  CHECK(readers[0] == ir.op("v"));
}

TEST_CASE("values outside the function and functions without inputs",
          "[alias]") {
  Ir ir(R"(
func.func @f() -> tensor<4xf32> {
  %z = exir.aten "aten::zeros"() {size = array<i64: 4>, operand_segments = array<i32>, test.tag = "z"} : () -> tensor<4xf32>
  return %z : tensor<4xf32>
}
func.func @g(%x: tensor<4xf32>) {
  return
}
)");
  AliasAnalysis aa(ir.func("f"));
  Value outside = ir.arg(0, "g");
  CHECK(aa.getAliasSet(outside) == AliasAnalysis::kNoSet);
  CHECK_FALSE(aa.mayAlias(outside, ir.res("z")));
  CHECK(aa.mayAlias(outside, outside));
  CHECK(aa.getReaders(outside).empty());
  CHECK(aa.getReaders(ir.res("z")).empty());
  CHECK(aa.getAliases(ir.res("z")).size() == 1);
}

TEST_CASE("an exir.aten op without a schema is opaque", "[alias]") {
  // The verifier rejects unknown operators in text; passes can still meet
  // one built in memory.
  Ir ir(fn("%a: tensor<4xf32>, %b: tensor<4xf32>", ""));
  func::FuncOp f = ir.func();
  OpBuilder b(f.getBody().front().getTerminator());
  auto unknown = b.create<ptec::exir::AtenOp>(
      f.getLoc(), "aten::not_an_op", TypeRange{f.getArgument(0).getType()},
      ValueRange{f.getArgument(0), f.getArgument(1)}, ArrayRef<int32_t>{1, 1},
      ArrayRef<NamedAttribute>{});
  AliasAnalysis aa(f);
  CHECK(aa.isOpaque(unknown));
  CHECK(aa.mayAlias(unknown->getResult(0), f.getArgument(0)));
  CHECK(aa.mayAlias(unknown->getResult(0), f.getArgument(1)));
  CHECK(aa.writes(unknown, f.getArgument(0)));
  CHECK(aa.writes(unknown, f.getArgument(1)));
  CHECK(AliasAnalysis::getWrittenOperand(unknown->getResult(0)) == Value());
}
