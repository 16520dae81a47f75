// Delegation: AOT registry and demo preprocess; ten_calls lowered once and
// called ten times, shared vs unshared at runtime; a delegate call inside
// control flow.
#include "backends/AotBackend.h"
#include "backends/demo/aot/DemoAot.h"
#include "backends/demo/runtime/DemoBackend.h"
#include "compiler/Session.h"
#include "dialects/exir/IR/ExirDialect.h"
#include "runtime/backend/BackendInterface.h"
#include "runtime/executor/Module.h"
#include "runtime/kernels/KernelRegistry.h"
#include "test/unit/runtime/ModuleTestUtil.h"
#include "test/unit/runtime/PteTestUtil.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <iterator>

using namespace ptec;

namespace {

mlir::OwningOpRef<mlir::ModuleOp> parse(mlir::MLIRContext &ctx, const char *text) {
  ctx.loadDialect<exir::ExirDialect, mlir::func::FuncDialect>();
  return mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
}

mlir::func::FuncOp firstFunc(mlir::ModuleOp m) {
  return *m.getOps<mlir::func::FuncOp>().begin();
}

constexpr const char *kSinRegion = R"mlir(
func.func private @r(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = exir.aten "aten::sin"(%x) {operand_segments = array<i32: 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
)mlir";

constexpr const char *kMmAddRegion = R"mlir(
func.func private @r(%a: tensor<2x2xf32>, %x: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = exir.aten "aten::mm"(%a, %x) {operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = exir.aten "aten::add.Tensor"(%0, %b) {alpha = 1 : i64, operand_segments = array<i32: 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}
)mlir";

std::string tempPath(const std::string &name) {
  llvm::SmallString<128> dir;
  llvm::sys::fs::createUniqueDirectory("delegation", dir);
  return (dir + "/" + name).str();
}

std::vector<uint8_t> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

/// Compiles ten_calls with `backend`; returns the .pte bytes.
std::vector<uint8_t> compileTenCalls(const std::string &backend, bool share,
                                     const std::vector<std::string> &methods = {"forward"}) {
  CompileOptions o;
  for (const std::string &m : methods)
    o.inputs.push_back(CompileInput{std::string(PTEC_MODELS_DIR) + "/ten_calls/model.pt2", m});
  o.backends = {backend};
  o.shareDelegates = share;
  o.outputPath = tempPath("ten_calls.pte");
  std::string errors;
  llvm::raw_string_ostream es(errors);
  CompileSession session(o, es);
  bool ok = mlir::succeeded(session.run());
  INFO(errors);
  REQUIRE(ok);
  return readFile(o.outputPath);
}

/// A backend that does not opt in: the demo's capability, grouping and blob
/// under its own id, with the defaults (no share flag, no scratch).
class OptOutBackend final : public aot::AotBackend {
public:
  OptOutBackend() {
    std::string error;
    demo_ = aot::createAotBackend("demo", &error);
  }
  llvm::StringRef id() const override { return "PtecOptOutDemo"; }
  llvm::StringRef name() const override { return "optout"; }
  std::optional<std::string> refuse(mlir::Operation *op) const override {
    return demo_->refuse(op);
  }
  llvm::SmallVector<aot::OpGroup> group(llvm::ArrayRef<mlir::Operation *> ops) const override {
    return demo_->group(ops);
  }
  mlir::FailureOr<aot::PreprocessResult> preprocess(mlir::func::FuncOp region) const override {
    auto r = demo_->preprocess(region);
    if (mlir::failed(r))
      return mlir::failure();
    aot::PreprocessResult result; // defaults for the flag and scratch
    result.blob = r->blob;
    result.compileSpecs = r->compileSpecs;
    return result;
  }

private:
  std::unique_ptr<aot::AotBackend> demo_;
};

void registerOptOut() {
  aot::registerAotBackend("optout", "PtecOptOutDemo",
                          [](llvm::StringRef, std::string *) {
                            return std::make_unique<OptOutBackend>();
                          });
  if (!rt::findBackend("PtecOptOutDemo"))
    REQUIRE(rt::registerBackend("PtecOptOutDemo", &demo::demoBackend()) == rt::Error::Ok);
}

struct RunResult {
  size_t delegates = 0;
  size_t inits = 0;
  std::vector<float> out;
};

RunResult runTenCalls(const std::vector<uint8_t> &pte, const char *method = "forward") {
  demo::registerDemoBackend();
  auto m = rt::test::loadModuleWith(pte, rt::test::portableOptions());
  rt::Module &module = *m;
  size_t before = rt::backendInitCount(demo::kDemoBackendId) +
                  rt::backendInitCount("PtecOptOutDemo");
  REQUIRE(module.loadMethod(method) == rt::Error::Ok);
  RunResult r;
  r.inits = rt::backendInitCount(demo::kDemoBackendId) +
            rt::backendInitCount("PtecOptOutDemo") - before;
  r.delegates = module.method(method)->delegatesSize();
  std::vector<float> x = {0.5f, -0.25f, 1.0f, 0.125f};
  int64_t sizes[] = {2, 2};
  rt::Tensor t;
  REQUIRE(t.init(rt::ScalarType::Float, sizes) == rt::Error::Ok);
  t.setData(x.data(), x.size() * sizeof(float));
  REQUIRE(module.setInput(method, 0, t) == rt::Error::Ok);
  REQUIRE(module.execute(method) == rt::Error::Ok);
  const rt::Tensor &y = module.output(method, 0)->toTensor();
  r.out.assign(y.dataAs<const float>(), y.dataAs<const float>() + y.numel());
  return r;
}

} // namespace

TEST_CASE("AOT registry: demo by name and by runtime id, options, unknown names", "[delegation]") {
  std::string error;
  auto demoBackend = aot::createAotBackend("demo", &error);
  REQUIRE(demoBackend);
  CHECK(demoBackend->id() == "BackendWithCompilerDemo");
  CHECK(demoBackend->name() == "demo");
  CHECK(aot::createAotBackendForId("BackendWithCompilerDemo", "", &error));
  CHECK_FALSE(aot::createAotBackend("nosuch", &error));
  CHECK(error.find("unknown backend 'nosuch'") != std::string::npos);
  CHECK_FALSE(aot::createAotBackend("demo:scratch=0", &error));
  CHECK(error.find("scratch=N") != std::string::npos);
  CHECK_FALSE(aot::createAotBackend("demo:ops=conv", &error));
  auto names = aot::registeredAotBackends();
  CHECK(std::find(names.begin(), names.end(), "demo") != names.end());
  CHECK(aot::demo::dottedOpName("aten::sin") == "aten.sin.default");
  CHECK(aot::demo::dottedOpName("aten::add.Tensor") == "aten.add.Tensor");
}

TEST_CASE("demo preprocess: upstream blob grammar, max_value byte, share flag", "[delegation]") {
  mlir::MLIRContext ctx;
  std::string error;
  auto backend = aot::createAotBackend("demo", &error);

  auto sin = parse(ctx, kSinRegion);
  REQUIRE(sin);
  auto r = backend->preprocess(firstFunc(*sin));
  REQUIRE(mlir::succeeded(r));
  CHECK(r->blob == "1version:0#op:demo::aten.sin.default, numel:4, "
                   "dtype:torch.float32<debug_handle>-1#");
  REQUIRE(r->compileSpecs.size() == 1);
  CHECK(r->compileSpecs[0].key == "max_value");
  CHECK(r->compileSpecs[0].value == std::string(1, '\x02'));
  CHECK(r->shareHandleAcrossCalls);
  CHECK(r->scratch.empty());

  auto mm = parse(ctx, kMmAddRegion);
  r = backend->preprocess(firstFunc(*mm));
  REQUIRE(mlir::succeeded(r));
  CHECK(r->blob == "2version:0#op:demo::aten.mm.default, numel:4, "
                   "dtype:torch.float32<debug_handle>-1#op:demo::aten.add.Tensor, "
                   "numel:4, dtype:torch.float32<debug_handle>-1#");
}

TEST_CASE("demo preprocess: scratch mode declares scratch after max_value", "[delegation]") {
  mlir::MLIRContext ctx;
  std::string error;
  auto backend = aot::createAotBackend("demo:scratch=64", &error);
  REQUIRE(backend);
  auto sin = parse(ctx, kSinRegion);
  auto r = backend->preprocess(firstFunc(*sin));
  REQUIRE(mlir::succeeded(r));
  REQUIRE(r->compileSpecs.size() == 2);
  CHECK(r->compileSpecs[0].key == "max_value"); // spec 0 stays max_value
  CHECK(r->compileSpecs[1].key == "scratch_bytes");
  CHECK(r->compileSpecs[1].value == std::string("\x40\0\0\0", 4));
  REQUIRE(r->scratch.size() == 1);
  CHECK(r->scratch[0].size == 64);
}

TEST_CASE("demo capability: reasons for refusals, patterns from the grouping hook", "[delegation]") {
  mlir::MLIRContext ctx;
  std::string error;
  auto backend = aot::createAotBackend("demo", &error);
  auto m = parse(ctx, kMmAddRegion);
  mlir::func::FuncOp f = firstFunc(*m);
  llvm::SmallVector<mlir::Operation *> ops;
  for (mlir::Operation &op : f.getBody().front().without_terminator()) {
    CHECK_FALSE(backend->refuse(&op));
    ops.push_back(&op);
  }
  auto groups = backend->group(ops);
  REQUIRE(groups.size() == 1);
  CHECK(groups[0].size() == 2);
  // The return is not an ATen op.
  auto why = backend->refuse(f.getBody().front().getTerminator());
  REQUIRE(why);
  CHECK(*why == "not an ATen operator");
  // ops=sin: mm and add are refused.
  auto sinOnly = aot::createAotBackend("demo:ops=sin", &error);
  CHECK(sinOnly->refuse(ops[0]));
}

TEST_CASE("ten_calls: one lowered module per pattern, shared handle, same outputs", "[delegation]") {
  std::vector<uint8_t> shared = compileTenCalls("demo", true);
  std::vector<uint8_t> unshared = compileTenCalls("demo", false);
  RunResult s = runTenCalls(shared), u = runTenCalls(unshared);
  CHECK(s.delegates == 2); // mm-then-add and sin, 10 calls each
  CHECK(s.inits == 2);
  CHECK(u.delegates == 20);
  CHECK(u.inits == 20);
  CHECK(s.out == u.out);
  // Deterministic: the same input and options give the same bytes.
  CHECK(compileTenCalls("demo", true) == shared);
}

TEST_CASE("ten_calls with sin only: 10 call sites, 1 delegate entry, 1 init", "[delegation]") {
  RunResult s = runTenCalls(compileTenCalls("demo:ops=sin", true));
  RunResult u = runTenCalls(compileTenCalls("demo:ops=sin", false));
  CHECK(s.delegates == 1);
  CHECK(s.inits == 1);
  CHECK(u.delegates == 10);
  CHECK(u.inits == 10);
  CHECK(s.out == u.out);
  // Portable mm + add compute what the demo's mm-then-add computes.
  CHECK(s.out == runTenCalls(compileTenCalls("demo", true)).out);
}

TEST_CASE("a backend that does not opt in keeps one delegate per call", "[delegation]") {
  registerOptOut();
  std::vector<uint8_t> pte = compileTenCalls("optout", true);
  RunResult r = runTenCalls(pte);
  CHECK(r.delegates == 20);
  CHECK(r.inits == 20);
  CHECK(r.out == runTenCalls(compileTenCalls("demo", true)).out);
}

TEST_CASE("ten_calls with scratch: never shared, same outputs", "[delegation]") {
  RunResult sc = runTenCalls(compileTenCalls("demo:scratch=64", true));
  CHECK(sc.delegates == 20);
  CHECK(sc.inits == 20);
  CHECK(sc.out == runTenCalls(compileTenCalls("demo", true)).out);
}

TEST_CASE("ten_calls as two methods: each method shares its own entries", "[delegation]") {
  std::vector<uint8_t> pte = compileTenCalls("demo", true, {"forward", "second"});
  RunResult f = runTenCalls(pte, "forward");
  RunResult s = runTenCalls(pte, "second");
  CHECK(f.delegates == 2);
  CHECK(s.delegates == 2);
  CHECK(f.inits == 2);
  CHECK(s.inits == 2);
  CHECK(f.out == s.out);
}

TEST_CASE("a shared delegate call inside control flow", "[delegation][runtime]") {
  namespace fb = rt::test::fb;
  // y = sin(x); if (cond) z = sin(y): both calls use ONE demo entry.
  auto build = [](bool cond) {
    fb::ProgramT p;
    uint32_t blob = rt::test::addInlineBlob(
        p, "1version:0#op:demo::aten.sin.default, numel:2, dtype:torch.float32<debug_handle>1#");
    rt::test::PlanBuilder b(rt::test::addPlan(p, "forward"));
    int x = b.plannedTensor({2}, 1, 0);
    int y = b.plannedTensor({2}, 1, 16);
    int z = b.plannedTensor({2}, 1, 32);
    int c = b.boolValue(cond);
    int d = b.delegate(demo::kDemoBackendId, blob, {{"max_value", {2}}});
    b.delegateCall(d, {x, y}); // 0
    b.jumpFalse(c, 3);         // 1
    b.delegateCall(d, {y, z}); // 2
    b.plan().inputs = {x, z};
    b.plan().outputs = {y, z};
    rt::test::emptyConstantSegment(p);
    return rt::test::serialize(p, {{}});
  };
  demo::registerDemoBackend();
  for (bool cond : {true, false}) {
    auto m = rt::test::loadModuleWith(build(cond), {});
    size_t before = rt::backendInitCount(demo::kDemoBackendId);
    REQUIRE(m->loadMethod("forward") == rt::Error::Ok);
    CHECK(rt::backendInitCount(demo::kDemoBackendId) - before == 1);
    std::vector<float> x = {1.0f, 2.0f}, z = {-7.0f, -7.0f};
    int64_t sizes[] = {2};
    rt::Tensor tx, tz;
    REQUIRE(tx.init(rt::ScalarType::Float, sizes) == rt::Error::Ok);
    REQUIRE(tz.init(rt::ScalarType::Float, sizes) == rt::Error::Ok);
    tx.setData(x.data(), 8);
    tz.setData(z.data(), 8);
    REQUIRE(m->setInput("forward", 0, tx) == rt::Error::Ok);
    REQUIRE(m->setInput("forward", 1, tz) == rt::Error::Ok);
    REQUIRE(m->execute("forward") == rt::Error::Ok);
    const float *y = m->output("forward", 0)->toTensor().dataAs<const float>();
    const float *zo = m->output("forward", 1)->toTensor().dataAs<const float>();
    // The worked example of the spec: sin-Taylor of [1, 2].
    CHECK(y[0] == Approx(0.833333f));
    CHECK(y[1] == Approx(0.666667f));
    if (cond) {
      CHECK(zo[0] == Approx(0.833333f - 0.833333f * 0.833333f * 0.833333f / 6));
    } else {
      CHECK(zo[0] == -7.0f); // the call was jumped over
    }
  }
}
