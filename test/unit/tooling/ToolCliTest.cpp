// Usage errors in the tools' style (tooling/ToolCli.h).
#include "tooling/ToolCli.h"

#include <CLI/CLI.hpp>
#include <catch2/catch.hpp>

using namespace ptec::tooling;
using Catch::Matchers::Contains;

TEST_CASE("usageErrorText: the error line and the hint", "[tooling]") {
  REQUIRE(usageErrorText("pte-run", "model is required") ==
          "pte-run: error: model is required\nrun 'pte-run --help' for usage\n");
}

TEST_CASE("parseCommandLine: go on, help, or a usage error", "[tooling]") {
  auto parse = [](std::vector<const char *> argv) {
    CLI::App app{"test tool"};
    std::string file;
    bool flag = false;
    app.add_option("file", file)->required();
    app.add_flag("--flag", flag);
    argv.insert(argv.begin(), "tool");
    return parseCommandLine(app, static_cast<int>(argv.size()), argv.data(), "tool");
  };
  REQUIRE(parse({"x", "--flag"}) == -1);
  REQUIRE(parse({"x", "--bogus"}) == 2);
  REQUIRE(parse({}) == 2);
  REQUIRE(parse({"--help"}) == 0);
}

TEST_CASE("rewriteLlvmUsageErrors: cl's lines in the tools' style", "[tooling]") {
  std::string cl = "ptec-opt: Unknown command line argument '--bogus'.  Try: 'ptec-opt "
                   "--help'\nptec-opt: Did you mean '--exir-verify-each'?\n";
  REQUIRE(rewriteLlvmUsageErrors("ptec-opt", cl) ==
          "ptec-opt: error: Unknown command line argument '--bogus'.\n"
          "ptec-opt: note: did you mean '--exir-verify-each'?\n"
          "run 'ptec-opt --help' for usage\n");
  REQUIRE(rewriteLlvmUsageErrors("ptec-opt", "") ==
          "ptec-opt: error: bad command line\nrun 'ptec-opt --help' for usage\n");
  // A line that does not start with the program's name is kept whole.
  REQUIRE_THAT(rewriteLlvmUsageErrors("ptec-opt", "for the -o option: may only occur zero "
                                                  "or one times!\n"),
               Contains("ptec-opt: error: for the -o option: may only occur zero or one "
                        "times!\n"));
}
