// The importer on small in-memory programs (compiler/Import.h): argument
// matching, defaults, tensor lists, multi-result ops, weights, errors.

#include "compiler/Import.h"
#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace mlir;
namespace pt2 = ptec::pt2;
namespace exir = ptec::exir;
using AK = pt2::Argument::Kind;

namespace {

pt2::TensorMeta meta(std::vector<int64_t> sizes, pt2::DType dtype = pt2::DType::Float) {
  pt2::TensorMeta m;
  m.dtype = dtype;
  m.sizes = std::move(sizes);
  return m;
}

/// An argument of `kind` whose `field` holds `value`.
template <typename T> pt2::Argument argument(AK kind, T pt2::Argument::*field, T value) {
  pt2::Argument a;
  a.kind = kind;
  a.*field = std::move(value);
  return a;
}

pt2::Argument tensor(const std::string &name) {
  return argument(AK::Tensor, &pt2::Argument::name, name);
}

pt2::Argument tensors(std::vector<std::string> names) {
  return argument(AK::Tensors, &pt2::Argument::names, std::move(names));
}

pt2::Argument ints(std::vector<int64_t> v) {
  return argument(AK::Ints, &pt2::Argument::ints, std::move(v));
}

pt2::NamedArgument named(const std::string &name, pt2::Argument arg) {
  return pt2::NamedArgument{name, std::move(arg), 1};
}

/// x: 2x3 f32 user input, plus whatever a test adds.
pt2::ExportedProgram baseProgram() {
  pt2::ExportedProgram p;
  p.path = "test.pt2";
  p.graph.tensorValues["x"] = meta({2, 3});
  p.graph.inputs.push_back(tensor("x"));
  pt2::InputSpec in;
  in.kind = pt2::InputKind::UserInput;
  in.arg = tensor("x");
  p.inputSpecs.push_back(in);
  return p;
}

void addOutput(pt2::ExportedProgram &p, const std::string &name,
               pt2::OutputKind kind = pt2::OutputKind::UserOutput,
               const std::string &target = "") {
  p.graph.outputs.push_back(tensor(name));
  pt2::OutputSpec out;
  out.kind = kind;
  out.arg = tensor(name);
  out.target = target;
  p.outputSpecs.push_back(out);
}

void addWeight(pt2::ExportedProgram &p, const std::string &fqn, pt2::InputKind kind,
               std::vector<float> values) {
  std::string placeholder = "p_" + fqn;
  p.graph.tensorValues[placeholder] = meta({static_cast<int64_t>(values.size())});
  p.graph.inputs.insert(p.graph.inputs.begin(), tensor(placeholder));
  pt2::InputSpec in;
  in.kind = kind;
  in.arg = tensor(placeholder);
  in.target = fqn;
  p.inputSpecs.insert(p.inputSpecs.begin(), in);
  pt2::WeightTensor w;
  w.fqn = fqn;
  w.meta = meta({static_cast<int64_t>(values.size())});
  w.data.resize(values.size() * sizeof(float));
  std::memcpy(w.data.data(), values.data(), w.data.size());
  w.storage = std::make_shared<const pt2::ByteStorage>(w.data);
  p.weights[fqn] = w;
}

struct Importer {
  Importer() {
    handler = std::make_unique<ScopedDiagnosticHandler>(&ctx, [this](Diagnostic &d) {
      errors += d.str() + "\n";
      return success();
    });
  }
  OwningOpRef<ModuleOp> run(std::vector<pt2::ExportedProgram> programs,
                            std::vector<std::string> names = {"forward"}) {
    std::vector<ptec::MethodSource> sources;
    for (size_t i = 0; i < programs.size(); ++i)
      sources.push_back({std::move(programs[i]), names[i]});
    return ptec::importPrograms(ctx, sources);
  }
  /// run(), failing the test with the diagnostics when it gives no module.
  OwningOpRef<ModuleOp> runOk(std::vector<pt2::ExportedProgram> programs,
                              std::vector<std::string> names = {"forward"}) {
    OwningOpRef<ModuleOp> m = run(std::move(programs), std::move(names));
    INFO(errors);
    REQUIRE(m);
    return m;
  }
  MLIRContext ctx;
  std::string errors;
  std::unique_ptr<ScopedDiagnosticHandler> handler;
};

std::vector<exir::AtenOp> atenOps(ModuleOp m) {
  std::vector<exir::AtenOp> ops;
  m.walk([&](exir::AtenOp op) { ops.push_back(op); });
  return ops;
}

} // namespace

TEST_CASE("omitted arguments get their schema defaults", "[import]") {
  pt2::ExportedProgram p = baseProgram();
  p.graph.tensorValues["x"] = meta({1, 1, 4, 4});
  pt2::Node n;
  n.target = "torch.ops.aten.max_pool2d_with_indices.default";
  n.name = "pool";
  n.inputs = {named("self", tensor("x")), named("kernel_size", ints({2, 2}))};
  n.outputs = {tensor("pool"), tensor("idx")};
  p.graph.nodes.push_back(n);
  p.graph.tensorValues["pool"] = meta({1, 1, 2, 2});
  p.graph.tensorValues["idx"] = meta({1, 1, 2, 2}, pt2::DType::Long);
  addOutput(p, "pool");

  Importer im;
  auto m = im.runOk({std::move(p)});
  auto ops = atenOps(*m);
  REQUIRE(ops.size() == 1);
  exir::AtenOp op = ops.front();
  CHECK(op.getOpName() == "aten::max_pool2d_with_indices");
  CHECK(op.getNumResults() == 2);
  CHECK(op.getArgAttr("stride") == DenseI64ArrayAttr::get(&im.ctx, {}));
  CHECK(op.getArgAttr("padding") == DenseI64ArrayAttr::get(&im.ctx, {0, 0}));
  CHECK(op.getArgAttr("dilation") == DenseI64ArrayAttr::get(&im.ctx, {1, 1}));
  CHECK(op.getArgAttr("ceil_mode") == BoolAttr::get(&im.ctx, false));
  auto indices = llvm::cast<RankedTensorType>(op->getResult(1).getType());
  CHECK(indices.getElementType().isInteger(64));
}

TEST_CASE("tensor lists and optional tensor lists", "[import]") {
  pt2::ExportedProgram p = baseProgram();
  // cat([x, x], 0) then index(cat, [None, idx])
  pt2::Node cat;
  cat.target = "torch.ops.aten.cat.default";
  cat.name = "cat";
  cat.inputs = {named("tensors", tensors({"x", "x"}))};
  cat.outputs = {tensor("cat")};
  p.graph.tensorValues["cat"] = meta({4, 3});

  p.graph.tensorValues["idx"] = meta({2}, pt2::DType::Long);
  p.graph.inputs.push_back(tensor("idx"));
  pt2::InputSpec idxSpec;
  idxSpec.arg = tensor("idx");
  p.inputSpecs.push_back(idxSpec);

  pt2::Node index;
  index.target = "torch.ops.aten.index.Tensor";
  index.name = "index";
  pt2::Argument opt;
  opt.kind = AK::OptionalTensors;
  opt.optTensors = {pt2::OptionalTensor{true, ""}, pt2::OptionalTensor{false, "idx"}};
  index.inputs = {named("self", tensor("cat")), named("indices", opt)};
  index.outputs = {tensor("index")};
  p.graph.tensorValues["index"] = meta({4, 2});
  p.graph.nodes = {cat, index};
  addOutput(p, "index");

  Importer im;
  auto m = im.runOk({std::move(p)});
  auto ops = atenOps(*m);
  REQUIRE(ops.size() == 2);
  CHECK(ops[0].getInputs().size() == 2);
  CHECK(ops[0].getOperandSegments() == ArrayRef<int32_t>{2});
  CHECK(ops[0].getArgAttr("dim") == IntegerAttr::get(IntegerType::get(&im.ctx, 64), 0));
  CHECK(ops[1].getOperandSegments() == ArrayRef<int32_t>{1, 1});
  CHECK(ops[1].getArgAttr("indices") == DenseBoolArrayAttr::get(&im.ctx, {false, true}));
}

TEST_CASE("list returns give one result per element", "[import]") {
  pt2::ExportedProgram p = baseProgram();
  pt2::Node split;
  split.target = "torch.ops.aten.split_with_sizes.default";
  split.name = "split";
  split.inputs = {named("self", tensor("x")), named("split_sizes", ints({1, 1}))};
  split.outputs = {tensors({"a", "b"})};
  p.graph.tensorValues["a"] = meta({1, 3});
  p.graph.tensorValues["b"] = meta({1, 3});
  p.graph.nodes = {split};
  addOutput(p, "b");

  Importer im;
  auto m = im.runOk({std::move(p)});
  auto ops = atenOps(*m);
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].getNumResults() == 2);
  auto func = *m->getOps<func::FuncOp>().begin();
  auto ret = llvm::cast<func::ReturnOp>(func.getBody().front().getTerminator());
  CHECK(ret.getOperand(0) == ops[0]->getResult(1));
}

TEST_CASE("weights are shared by fqn and mutable when written", "[import]") {
  auto program = [](float first) {
    pt2::ExportedProgram p = baseProgram();
    addWeight(p, "state", pt2::InputKind::Buffer, {first, 2, 3});
    pt2::Node n;
    n.target = "torch.ops.aten.add.Tensor";
    n.name = "next";
    pt2::Argument one;
    one.kind = AK::Int;
    one.i = 1;
    n.inputs = {named("self", tensor("p_state")), named("other", one)};
    n.outputs = {tensor("next")};
    p.graph.tensorValues["next"] = meta({3});
    p.graph.nodes = {n};
    addOutput(p, "next", pt2::OutputKind::BufferMutation, "state");
    return p;
  };

  SECTION("identical weights: one exir.weight, marked mutable") {
    Importer im;
    auto m = im.runOk({program(1), program(1)}, {"a", "b"});
    auto weights = llvm::to_vector(m->getOps<exir::WeightOp>());
    REQUIRE(weights.size() == 1);
    CHECK(weights[0].getSymName() == "state");
    CHECK(weights[0].getKind() == "buffer");
    CHECK(weights[0].getIsMutable());
    auto blob = llvm::cast<DenseResourceElementsAttr>(weights[0].getValue());
    REQUIRE(blob.getRawHandle().getBlob());
    ArrayRef<char> bytes = blob.getRawHandle().getBlob()->getData();
    REQUIRE(bytes.size() == 12);
    float first;
    std::memcpy(&first, bytes.data(), 4);
    CHECK(first == 1.0f);
    // A number passed for a Tensor argument selects the Scalar overload.
    CHECK(atenOps(*m).front().getOpName() == "aten::add.Scalar");
  }
  SECTION("same fqn, different bytes: an error naming both files") {
    auto a = program(1), b = program(5);
    a.path = "a.pt2";
    b.path = "b.pt2";
    Importer im;
    auto m = im.run({std::move(a), std::move(b)}, {"a", "b"});
    CHECK(!m);
    CHECK(im.errors.find("buffer 'state' differs between 'a.pt2' and 'b.pt2' (bytes)") !=
          std::string::npos);
  }
}

TEST_CASE("unknown operators are reported with the node", "[import]") {
  pt2::ExportedProgram p = baseProgram();
  pt2::Node n;
  n.target = "torch.ops.mylib.frobnicate.default";
  n.name = "frob";
  n.sourceFile = "model.py";
  n.sourceLine = 7;
  n.inputs = {named("self", tensor("x"))};
  n.outputs = {tensor("frob")};
  p.graph.tensorValues["frob"] = meta({2, 3});
  p.graph.nodes = {n};
  addOutput(p, "frob");

  Importer im;
  std::string where, inputHandles;
  im.handler = std::make_unique<ScopedDiagnosticHandler>(&im.ctx, [&](Diagnostic &d) {
    im.errors += d.str();
    // NameLoc(node, FusedLoc<[file.pt2, method, handle]>[FileLineColLoc]).
    if (auto name = llvm::dyn_cast<NameLoc>(d.getLocation()))
      if (auto tag = llvm::dyn_cast<FusedLoc>(name.getChildLoc()))
        if (auto file = llvm::dyn_cast<FileLineColLoc>(tag.getLocations().front()))
          where = name.getName().str() + "@" + file.getFilename().str() + ":" +
                  std::to_string(file.getLine());
    if (auto input = ptec::exir::inputOfLoc(d.getLocation()))
      for (int64_t h : ptec::exir::debugHandlesOf(d.getLocation()))
        inputHandles = input->second + "#" + std::to_string(h);
    return success();
  });
  CHECK(!im.run({std::move(p)}));
  CHECK(im.errors == "unknown operator 'torch.ops.mylib.frobnicate.default' (node 'frob'): "
                     "ptec does not know it (a custom operator, or one newer than this ptec)");
  CHECK(where == "frob@model.py:7");
  // ... and names the input and the node's debug handle.
  CHECK(inputHandles == "forward#1");
}
