// The tools' --help layout (tooling/ToolHelp.h) and executor_runner's flags
// in pte-run (tooling/RunnerSpellings.h).
#include "tooling/RunSession.h"
#include "tooling/RunnerSpellings.h"
#include "tooling/ToolHelp.h"

#include <CLI/CLI.hpp>
#include <catch2/catch.hpp>

using namespace ptec::tooling;
using Catch::Matchers::Contains;

TEST_CASE("renderRows wraps under a hanging indent", "[help]") {
  std::string text = renderRows({{"-o, --output FILE", "Where to write"},
                                 {"--x", std::string(100, 'a') + " b"},
                                 {"--a-very-long-option-name VALUE-NAME", "text"}});
  CHECK(text.rfind("  -o, --output FILE  Where to write\n", 0) == 0);
  CHECK_THAT(text, Contains("\n  --x                " + std::string(100, 'a') + "\n" +
                            std::string(21, ' ') + "b\n"));
  // A name longer than the column gets its text on the next line.
  CHECK_THAT(text, Contains("  --a-very-long-option-name VALUE-NAME\n" + std::string(21, ' ') +
                            "text\n"));
}

TEST_CASE("installHelp: the layout, without CLI11's notation", "[help]") {
  CLI::App app{"tool"};
  ToolHelp h;
  h.tool = "tool";
  h.usage = {"[options] FILE"};
  h.description = "Does a thing.";
  h.groups = {"Inputs"};
  h.sections = {{"Backends", {{"none", "nothing"}}}};
  h.examples = {{"tool x", "what it does"}};
  h.failedMeans = "it failed";
  h.usageMeans = "a bad flag";
  h.docs = "docs/tools/tool.md";
  installHelp(app, h);
  std::string report, file;
  bool progress = false;
  app.add_option("file", file, "The file")->type_name("FILE")->group("Inputs");
  app.add_flag("--report{text}", report, "A report")->type_name("[=text|json]")->group("Inputs");
  app.add_flag("--progress,!--no-progress", progress, "A status line")->group("Inputs");
  std::string help = app.help();
  CHECK(help.rfind("Usage: tool [options] FILE\n\nDoes a thing.\n\nInputs:\n", 0) == 0);
  CHECK_THAT(help, Contains("  FILE                       The file\n"));
  CHECK_THAT(help, Contains("--report[=text|json]"));
  CHECK_THAT(help, Contains("--progress, --no-progress"));
  CHECK_THAT(help, Contains("Backends:\n  none  nothing\n"));
  CHECK_THAT(help, Contains("Examples:\n  tool x\n      what it does\n"));
  CHECK_THAT(help, Contains("Exit status:\n  0  success (also --help and --version)\n  1  it "
                            "failed\n  2  usage error: a bad flag\n  3  internal error:"));
  CHECK_THAT(help, Contains("\nDocumentation: docs/tools/tool.md\n"));
  for (const char *artifact : {"{text}", "{false}", ":{", "TEXT", "Positionals"})
    CHECK(help.find(artifact) == std::string::npos);
}

TEST_CASE("translateRunnerSpellings: executor_runner's flags as pte-run's", "[help]") {
  auto translate = [](std::vector<std::string> args, std::string *error = nullptr) {
    std::vector<std::string> out;
    std::string e;
    bool ok = translateRunnerSpellings(args, &out, &e);
    if (error)
      *error = e;
    return ok ? out : std::vector<std::string>{"FAILED"};
  };
  using V = std::vector<std::string>;
  CHECK(translate({"--model_path=m.pte", "--num_executions", "5"}) == V{"m.pte", "--repeat", "5"});
  CHECK(translate({"-model_path", "m.pte", "--inputs=a.bin,b.bin"}) ==
        V{"m.pte", "--input", "a.bin", "--input", "b.bin"});
  CHECK(translate({"--method_name", "decode", "--data_path=w.ptd"}) ==
        V{"--method", "decode", "--data", "w.ptd"});
  CHECK(translate({"--cpu_threads=-1"}).empty()); // executor_runner's "you choose"
  CHECK(translate({"--cpu_threads", "2"}) == V{"--xnnpack-threads", "2"});
  CHECK(translate({"m.pte", "--repeat", "2", "--", "--model_path"}) ==
        V{"m.pte", "--repeat", "2", "--", "--model_path"});
  std::string error;
  CHECK(translate({"--input_shapes", "1x2"}, &error) == V{"FAILED"});
  CHECK(error.rfind("--input_shapes is executor_runner's; pte-run takes each input's shape", 0) ==
        0);
  CHECK(translate({"--model_path"}, &error) == V{"FAILED"});
  CHECK(error == "--model_path (executor_runner's MODEL.pte) needs a value");
  CHECK(translate({"--noserver_mode"}, &error) == V{"FAILED"});
}

TEST_CASE("inUserWords: the runtime's error codes as words", "[help]") {
  CHECK(inUserWords("delegate 1: backend 'XnnpackBackend' init failed (NotSupported): node 3") ==
        "delegate 1: backend 'XnnpackBackend' init failed (not supported): node 3");
  CHECK(inUserWords("instruction 4 (aten::add.out) failed: InvalidArgument: shapes") ==
        "instruction 4 (aten::add.out) failed: invalid argument: shapes");
  CHECK(inUserWords("a NotSupported word stays") == "a NotSupported word stays");
}
