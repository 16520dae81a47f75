// CompileSession end to end on a zoo model, and its diagnostics format.

#include "compiler/Session.h"

#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <string>

namespace {
std::string model(const char *name) {
  return std::string(PTEC_MODELS_DIR) + "/" + name + "/model.pt2";
}

/// A session over `options` that prints to `out` and reports to `err`.
struct CapturedSession {
  explicit CapturedSession(ptec::CompileOptions options)
      : session(std::move(options), errs, outs) {}
  std::string out, err;
  llvm::raw_string_ostream outs{out}, errs{err};
  ptec::CompileSession session;
};
} // namespace

TEST_CASE("a session imports a model and prints the IR", "[session]") {
  ptec::CompileOptions options;
  options.inputs.push_back({model("mlp"), "predict"});
  options.compileTo = ptec::Phase::Import;
  CapturedSession s(options);
  REQUIRE(mlir::succeeded(s.session.run()));
  CHECK(s.session.errorCount() == 0);
  CHECK(s.err.empty());
  CHECK(s.out.find("func.func @predict(") != std::string::npos);
  CHECK(s.out.find("exir.weight @fc1.weight \"parameter\"") != std::string::npos);
  // Weight blobs are elided unless asked for (--print-weights).
  CHECK(s.out.find("dialect_resources") == std::string::npos);
  REQUIRE(s.session.module());
  CHECK(s.session.module()->getAttr("exir.version"));
}

TEST_CASE("a session prints weight blobs when asked", "[session]") {
  ptec::CompileOptions options;
  options.inputs.push_back({model("mlp"), "predict"});
  options.compileTo = ptec::Phase::Import;
  options.printWeights = true;
  CapturedSession s(options);
  REQUIRE(mlir::succeeded(s.session.run()));
  CHECK(s.out.find("dialect_resources") != std::string::npos);
}

TEST_CASE("errors are printed as file: error: message and counted", "[session]") {
  ptec::CompileOptions options;
  options.inputs.push_back({"does-not-exist.pt2", "forward"});
  options.compileTo = ptec::Phase::Import;
  CapturedSession s(options);
  CHECK(mlir::failed(s.session.run()));
  CHECK(s.session.errorCount() == 1);
  CHECK(s.err.rfind("does-not-exist.pt2: error: ", 0) == 0);
  CHECK(s.out.empty());
}

TEST_CASE("a .pte needs an output path", "[session]") {
  ptec::CompileOptions options;
  options.inputs.push_back({model("mlp"), "forward"});
  CapturedSession s(options);
  CHECK(mlir::failed(s.session.run()));
  CHECK(s.err == "error: writing a .pte needs an output path (-o)\n");
}
