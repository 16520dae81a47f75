// Usage errors in the tools' style (tooling/ToolCli.h).
#include "tooling/ToolCli.h"

#include "tooling/CrashHandler.h"

#include <CLI/CLI.hpp>
#include <csignal>
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

TEST_CASE("parseFinite: NaN and infinities are not numbers a tool takes", "[tooling]") {
  double v = -1;
  CHECK(parseFinite("1.5", &v) == "");
  CHECK(v == 1.5);
  CHECK(parseFinite("0", &v) == "");
  CHECK(parseFinite("1e-320", &v) == ""); // a denormal is a number
  for (const char *nan : {"nan", "NaN", "-nan", "NAN(123)"})
    CHECK(parseFinite(nan, &v) == "'" + std::string(nan) + "' is not a number (NaN)");
  for (const char *inf : {"inf", "-inf", "Infinity", "1e999"})
    CHECK(parseFinite(inf, &v) == "'" + std::string(inf) + "' is not a finite number");
  CHECK(parseFinite("", &v) == "'' is not a number");
  CHECK(parseFinite("5s", &v) == "'5s' is not a number");
}

TEST_CASE("requireFinite: a flag refuses NaN before its range check", "[tooling]") {
  auto parse = [](const char *value, bool nonNegative) {
    CLI::App app{"test tool"};
    double limit = 0;
    requireFinite(app.add_option("--limit", limit), nonNegative)->check(CLI::Range(0.0, 10.0));
    const char *argv[] = {"tool", "--limit", value};
    return parseCommandLine(app, 3, argv, "tool");
  };
  CHECK(parse("5", false) == -1);
  CHECK(parse("nan", false) == 2); // CLI::Range alone lets NaN through
  CHECK(parse("inf", false) == 2);
  CHECK(parse("-1", true) == 2);
}

TEST_CASE("crashHeadline: the tool, the signal and what it was working on", "[tooling]") {
  setCrashContext("compiling model.pt2");
  CHECK(crashHeadline(SIGSEGV) ==
        "ptec: internal error: crashed (SIGSEGV: segmentation fault) while compiling "
        "model.pt2\n");
  CHECK(crashHeadline(0) == "ptec: internal error: uncaught exception while compiling "
                            "model.pt2\n");
  setCrashContext(std::string(2000, 'x')); // cut to the buffer, not past it
  CHECK(crashHeadline(SIGABRT).size() < 1024);
  setCrashContext("");
}
