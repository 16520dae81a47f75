// How a compile says what went wrong (compiler/SessionDiagnostics.h): the
// node and operator read out of a message, what to do, the node list, and a
// session grouping identical errors and keeping the groups as data.
#include "compiler/SessionDiagnostics.h"

#include "compiler/Session.h"

#include "llvm/Support/MemoryBuffer.h"

#include <catch2/catch.hpp>

using ptec::hintFor;
using ptec::nodeList;
using ptec::subjectOf;

TEST_CASE("subjectOf reads the node and the operator", "[diagnostics]") {
  ptec::MessageSubject s = subjectOf("node 'chunk_3' (aten::chunk.default): not supported yet");
  CHECK(s.node == "chunk_3");
  CHECK(s.op == "aten::chunk.default");
  s = subjectOf("aten::square: not supported yet (aten::square.out).");
  CHECK(s.node.empty());
  CHECK(s.op == "aten::square");
  s = subjectOf("writing a .pte needs an output path (-o)");
  CHECK(s.node.empty());
  CHECK(s.op.empty());
}

TEST_CASE("hintFor says what to do, once", "[diagnostics]") {
  CHECK(hintFor("node 'c' (aten::chunk): not supported yet: ptec has no CPU kernel for this "
                "operator",
                {}) == "ptec does not support aten::chunk yet; 'aot-compile --list-ops "
                       "aten::chunk' says why, 'aot-compile --list-ops' lists every operator "
                       "ptec supports");
  CHECK(hintFor("node 's' (aten::square): not supported yet: ptec has no CPU kernel for this "
                "operator",
                {"xnnpack"}) == "--backend xnnpack takes aten::square here: an op given to a "
                                "backend needs no CPU kernel of ptec's");
  CHECK(hintFor("node 'bn' (aten::native_batch_norm): batch norm in training mode over one "
                "value per channel",
                {}) == "the model was exported for training; re-export it for inference: call "
                       "model.eval() and run torch.export.export under torch.no_grad()");
  // The message already says it: no second line.
  CHECK(hintFor("node 'd' (aten::dropout): dropout in training mode is random; export the "
                "model in eval mode (model.eval())",
                {})
            .empty());
  CHECK(hintFor("node 'p' (aten::permute): dims [0, 0] is not a permutation", {}).empty());
}

TEST_CASE("nodeList names a few and counts the rest", "[diagnostics]") {
  CHECK(nodeList({"a", "b"}) == "2 nodes (a and b)");
  CHECK(nodeList({"a", "b", "c", "d", "e", "f", "g", "h"}) ==
        "8 nodes (a, b, c, d, e, f, g and h)");
  CHECK(nodeList({"a", "b", "c", "d", "e", "f", "g", "h", "i"}) ==
        "9 nodes (a, b, c, d, e, f and 3 more)");
}

namespace {

/// Saved IR whose ops have the importer's locations: `n` nodes at one
/// Python line calling an operator with no CPU kernel, one more elsewhere.
std::string unsupportedIr(int n) {
  std::string ops, prev = "%x";
  for (int i = 0; i < n; ++i) {
    std::string v = "%v" + std::to_string(i);
    ops += "    " + v + " = exir.aten \"aten::lerp.Scalar\"(" + prev +
           ", %x) {weight = 5.000000e-01 : f64, operand_segments = array<i32: 1, 1>} : "
           "(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(\"lerp_" +
           std::to_string(i) + "\"(fused<[\"m.pt2\", \"forward\", " + std::to_string(i + 1) +
           "]>[\"model.py\":12:0]))\n";
    prev = v;
  }
  return "module attributes {exir.phase = \"outline\", exir.version = \"1.2\"} {\n"
         "  func.func @forward(%x: tensor<4xf32> {exir.input = #exir.input<user_input, "
         "\"x\">}) -> (tensor<4xf32> {exir.output = #exir.output<user_output>}) {\n" +
         ops +
         "    %s = exir.aten \"aten::square\"(" + prev +
         ") {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32> "
         "loc(\"square\"(fused<[\"m.pt2\", \"forward\", 99]>[\"model.py\":14:0]))\n"
         "    return %s : tensor<4xf32>\n  }\n}\n";
}

} // namespace

TEST_CASE("a session prints identical errors once and keeps the groups", "[diagnostics]") {
  ptec::CompileOptions options;
  options.compileTo = ptec::Phase::Plan;
  std::string out, err;
  llvm::raw_string_ostream outs(out), errs(err);
  ptec::CompileSession session(options, errs, outs);
  REQUIRE(mlir::succeeded(
      session.loadSavedIr(llvm::MemoryBuffer::getMemBufferCopy(unsupportedIr(13), "saved.mlir"))));
  CHECK(mlir::failed(session.runPhases()));
  errs.flush();
  CHECK(session.errorCount() == 14);
  CHECK(err == "In m.pt2, method forward:\n"
               "model.py:12: error: 13 nodes (lerp_0, lerp_1, lerp_2, lerp_3, lerp_4, lerp_5 "
               "and 7 more) (aten::lerp.Scalar): not supported yet: ptec has no CPU kernel for "
               "this operator (aten::lerp.Scalar_out)\n"
               "model.py:14: error: node 'square' (aten::square): not supported yet: ptec has "
               "no CPU kernel for this operator (aten::square.out)\n"
               "note: ptec does not support aten::lerp.Scalar, aten::square yet; 'aot-compile "
               "--list-ops aten::lerp.Scalar' says why, 'aot-compile --list-ops' lists every "
               "operator ptec supports\n");
  // The groups as data (the report prints them).
  const std::vector<ptec::DiagnosticGroup> &groups = session.diagnostics();
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].severity == "error");
  CHECK(groups[0].file == "model.py");
  CHECK(groups[0].line == 12);
  CHECK(groups[0].input == "m.pt2");
  CHECK(groups[0].method == "forward");
  CHECK(groups[0].count == 13);
  REQUIRE(groups[0].nodes.size() == 13);
  CHECK(groups[0].nodes[12] == "lerp_12");
  CHECK(groups[0].firstText == "node 'lerp_0' (aten::lerp.Scalar): not supported yet: ptec has "
                               "no CPU kernel for this operator (aten::lerp.Scalar_out)");
  CHECK(groups[0].text.rfind("13 nodes (lerp_0, ", 0) == 0);
  CHECK(groups[0].hint.find("'aot-compile --list-ops aten::lerp.Scalar'") != std::string::npos);
  CHECK(groups[1].count == 1);
  CHECK(groups[1].nodes == std::vector<std::string>{"square"});
}
