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
          "ptec-opt: error: unknown option '--bogus'\n"
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

TEST_CASE("editDistance and closestName: did you mean", "[tooling]") {
  CHECK(editDistance("", "abc") == 3);
  CHECK(editDistance("repeat", "repaet") == 2);
  CHECK(editDistance("kitten", "sitting") == 3);
  std::vector<std::string> known = {"--repeat", "--rtol", "--atol", "--input", "-o"};
  CHECK(closestName("--repaet", known) == "--repeat");
  CHECK(closestName("--rep", known) == "--repeat"); // a prefix
  CHECK(closestName("--inputs", known) == "--input");
  CHECK(closestName("--zzzzzzzz", known).empty());
  // '_' and '-' and case are the same to a user.
  CHECK(closestName("--model_path", {"--model-path", "--method"}) == "--model-path");
}

namespace {
/// A small app as the tools build them.
struct TestApp {
  CLI::App app{"tool"};
  std::string file, out, planner = "best";
  int repeat = 1;
  bool flag = false;
  TestApp() {
    app.add_option("file", file);
    app.add_option("-o,--output", out);
    app.add_flag("--flag", flag);
    ptec::tooling::oneOf(app.add_option("--planner", planner), {"best", "greedy", "first-fit"});
    ptec::tooling::wholeNumber(app.add_option("--repeat", repeat), 1, 100);
  }
  int parse(std::vector<const char *> argv) {
    argv.insert(argv.begin(), "tool");
    return parseCommandLine(app, static_cast<int>(argv.size()), argv.data(), "tool");
  }
  std::string unknown(std::vector<const char *> argv) {
    argv.insert(argv.begin(), "tool");
    return unknownOptionText(app, static_cast<int>(argv.size()), argv.data(), "tool");
  }
};
} // namespace

TEST_CASE("unknownOptionText: the first unknown option, with the closest known", "[tooling]") {
  TestApp t;
  CHECK(t.unknown({"x", "--flag", "-o", "y"}).empty());
  CHECK(t.unknown({"x", "--flg"}) ==
        "tool: error: unknown option '--flg'\ntool: note: did you mean '--flag'?\n"
        "run 'tool --help' for usage\n");
  CHECK(t.unknown({"x", "--nothing-like-it"}) ==
        "tool: error: unknown option '--nothing-like-it'\nrun 'tool --help' for usage\n");
  // Values are not options: an option's value, '-', negative numbers, "--x=v".
  CHECK(t.unknown({"-o", "-", "x"}).empty());
  CHECK(t.unknown({"-o", "-weird-name", "x"}).empty());
  CHECK(t.unknown({"--output=-z", "-1", "x"}).empty());
  CHECK(t.unknown({"--output=x", "--outptu=y"}).find("did you mean '--output'?") !=
        std::string::npos);
  // After "--" everything is a positional argument.
  CHECK(t.unknown({"--", "--anything"}).empty());
}

TEST_CASE("parseCommandLine: CLI11's messages in the tools' words", "[tooling]") {
  CHECK(TestApp().parse({"x", "--planner", "greedy"}) == -1);
  CHECK(TestApp().parse({"x", "--planner", "greedy-by-size"}) == 2);
  CHECK(TestApp().parse({"x", "--repeat", "0"}) == 2);
  CHECK(TestApp().parse({"x", "--repeat", "many"}) == 2);
  CHECK(TestApp().parse({"x", "--help", "--bogus"}) == 0); // help wins
  CHECK(cliMessage("--input: 1 required TEXT missing") == "--input needs a value");
  CHECK(cliMessage("--method excludes --sequence") ==
        "--method and --sequence cannot be used together");
  CHECK(cliMessage("The following argument was not expected: b.pte") ==
        "unexpected argument 'b.pte'");
  CHECK(cliMessage("The following arguments were not expected: a b") ==
        "unexpected arguments 'a b'");
  CHECK(cliMessage("Could not convert: --seed = x") == "--seed: 'x' is not a valid value");
  CHECK(cliMessage("--json: too many inputs for a flag") == "--json is a flag: it takes no value");
  CHECK(cliMessage("something else") == "something else");
}

TEST_CASE("oneOf and wholeNumber say what is wrong", "[tooling]") {
  CLI::App app{"tool"};
  std::string planner;
  int n = 0;
  oneOf(app.add_option("--planner", planner), {"best", "greedy"});
  wholeNumber(app.add_option("--n", n), 1, 10);
  auto message = [&](std::vector<const char *> argv) -> std::string {
    argv.insert(argv.begin(), "tool");
    try {
      app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::ParseError &e) {
      return e.what();
    }
    return "";
  };
  CHECK(message({"--planner", "gredy"}) ==
        "--planner: 'gredy' is not one of best, greedy (did you mean 'greedy'?)");
  CHECK(message({"--planner", "zzzzzz"}) == "--planner: 'zzzzzz' is not one of best, greedy");
  CHECK(message({"--n", "11"}) == "--n: 11 is out of range: 1 to 10");
  CHECK(message({"--n", "1.5"}) == "--n: '1.5' is not a whole number");
  CHECK(message({"--n", "10"}).empty());
}
