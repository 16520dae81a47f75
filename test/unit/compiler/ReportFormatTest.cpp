// The compile report's text stays around 60 lines whatever the program's
// size, and says what it left out; the JSON keeps every entry
// (compiler/ReportFormat.cpp).
#include "compiler/Report.h"

#include "llvm/Support/JSON.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

using namespace ptec;

namespace {

size_t lines(const std::string &s) { return std::count(s.begin(), s.end(), '\n'); }

/// A report as large as a program can make it: every list long.
CompileReport hugeReport(int methods) {
  CompileReport r;
  for (const char *p : {"import (load)", "functionalize", "legalize", "write-back", "partition",
                        "outline", "out-variants", "plan"})
    r.phases.push_back({p, 1.0, 100000, 500, 6000});
  for (int m = 0; m < methods; ++m) {
    CompileReport::Method &meth = r.method("method" + std::to_string(m));
    meth.atenOps = 100000;
    meth.instructions = 90000;
    meth.delegatedOps = {{"BackendWithCompilerDemo", 5000}, {"XnnpackBackend", 40000}};
    for (int c = 0; c < 200; ++c)
      meth.copies.push_back({"state" + std::to_string(c), c % 3});
    meth.planner = "greedy-by-size";
    meth.planned = meth.lowerBound = 1 << 20;
    for (int d = 0; d < 300; ++d)
      meth.delegates.push_back({d % 2 ? "XnnpackBackend" : "BackendWithCompilerDemo", 2,
                                d % 3 ? std::vector<uint64_t>{} : std::vector<uint64_t>{64}});
  }
  for (int k = 0; k < 600; ++k)
    r.regions.push_back({"forward", k, k % 2 ? "XnnpackBackend" : "BackendWithCompilerDemo", 3});
  r.opsRecorded = true;
  for (int k = 0; k < 120; ++k) {
    CompileReport::OpStats &st = r.ops["aten::op" + std::to_string(k)];
    st.count = 100 + k;
    st.portable = 50;
    for (int why = 0; why < 5; ++why)
      st.reasons["reason " + std::to_string(why)] = 10;
    st.kernel = "aten::op.out";
  }
  for (int k = 0; k < 2000; ++k)
    r.refusals.push_back({"forward", "aten::op" + std::to_string(k % 120),
                          "model.py:" + std::to_string(k), "reason " + std::to_string(k % 5)});
  r.fileSize = 200 << 20;
  r.programSize = 1 << 20;
  for (int k = 0; k < 400; ++k)
    r.segments.push_back({k % 4 == 0   ? "constants"
                          : k % 4 == 1 ? "delegate blob"
                          : k % 4 == 2 ? "named data"
                                       : "mutable state",
                          1000});
  for (int k = 0; k < 50; ++k)
    r.warnings.push_back("model.py:" + std::to_string(k) + ": a warning");
  return r;
}

} // namespace

TEST_CASE("the text report stays short for any program", "[report]") {
  for (int methods : {1, 2, 12}) {
    CompileReport r = hugeReport(methods);
    std::string text = r.toText();
    INFO(text);
    CHECK(lines(text) <= 60);
    CHECK_THAT(text, Catch::Contains("== delegate regions (numbered as in --partition-dot): 600 "
                                     "regions, 1800 ops; BackendWithCompilerDemo 300 (900 ops); "
                                     "XnnpackBackend 300 (900 ops); the JSON lists every one\n"));
    CHECK_THAT(text, Catch::Contains("... 114 more kinds"));
    CHECK_THAT(text, Catch::Contains("more (op, reason) groups"));
    CHECK_THAT(text, Catch::Contains("named data: 100 segments, 97.7 KiB"));
    CHECK_THAT(text, Catch::Contains("... 47 more (the JSON lists every one)"));
    CHECK_THAT(text, Catch::Contains("memory plan (greedy)"));
    CHECK_THAT(text, !Catch::Contains("greedy-by-size"));
    CHECK_THAT(text, Catch::Contains("XnnpackBackend: 40000 ops delegated (40.0% of the graph), "
                                     "150 delegate entries for 300 call sites"));
    if (methods > 5)
      CHECK_THAT(text, Catch::Contains("== ... 7 more methods (the JSON lists every one)"));
    // The JSON keeps everything.
    llvm::Expected<llvm::json::Value> json = llvm::json::parse(r.toJson());
    REQUIRE(static_cast<bool>(json));
    CHECK(json->getAsObject()->getArray("regions")->size() == 600);
    CHECK(json->getAsObject()->getArray("refused")->size() == 2000);
    CHECK(json->getAsObject()->getArray("methods")->size() == static_cast<size_t>(methods));
  }
}

TEST_CASE("a failed compile's report lists its errors, the JSON every one", "[report]") {
  CompileReport r;
  r.failedDuring = "import";
  for (int k = 0; k < 30; ++k)
    r.diagnostics.push_back({"error", "model.py:" + std::to_string(k), "node" + std::to_string(k),
                             "bad node", {{"model.py:1", "see here"}}});
  r.diagnostics.push_back({"warning", "", "", "a warning", {}});
  std::string text = r.toText();
  CHECK(lines(text) <= 12);
  CHECK_THAT(text, Catch::Contains("== errors: 30\n  model.py:0: node 'node0': bad node\n"));
  CHECK_THAT(text, Catch::Contains("  ... 27 more (the JSON lists every one)"));
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(r.toJson());
  REQUIRE(static_cast<bool>(json));
  const llvm::json::Array *d = json->getAsObject()->getArray("diagnostics");
  REQUIRE(d->size() == 31);
  const llvm::json::Object *first = (*d)[0].getAsObject();
  CHECK(first->getString("severity") == "error");
  CHECK(first->getString("location") == "model.py:0");
  CHECK(first->getString("node") == "node0");
  CHECK(first->getString("text") == "bad node");
  CHECK((*first->getArray("notes"))[0].getAsObject()->getString("text") == "see here");
}

TEST_CASE("no backend requested is one line", "[report]") {
  CompileReport r;
  r.opsRecorded = true;
  r.backendAsked = false;
  for (int k = 0; k < 33; ++k) {
    CompileReport::OpStats &st = r.ops["aten::op" + std::to_string(k)];
    st.count = st.portable = 2;
    st.reasons["no backend was given (--backend)"] = 2;
  }
  std::string text = r.toText();
  CHECK_THAT(text, Catch::Contains("== refused: none; no backend requested"));
  CHECK_THAT(text, !Catch::Contains("no backend was given"));
  CHECK(lines(text) <= 20);
}

TEST_CASE("planner names are the --planner values", "[report]") {
  CHECK(plannerFlagName("greedy-by-size") == "greedy");
  CHECK(plannerFlagName("in-order-first-fit") == "first-fit");
  CHECK(plannerFlagName("best-fit") == "best-fit");
  CHECK(plannerFlagName("two-sided") == "two-sided");
  CHECK(humanBytes(0) == "0 B");
  CHECK(humanBytes(1023) == "1023 B");
  CHECK(humanBytes(53152) == "51.9 KiB");
  CHECK(humanBytes(21036032) == "20.1 MiB");
}
