// pte-run's call order, labels and file patterns (tooling/CallSequence.h).
#include "tooling/CallSequence.h"

#include <catch2/catch.hpp>

using namespace ptec::tooling;

TEST_CASE("forCall and forMethod fill every placeholder", "[tooling]") {
  REQUIRE(forCall("x_{call}.npy", 3) == "x_3.npy");
  REQUIRE(forCall("{call}/{call}", 12) == "12/12");
  REQUIRE(forCall("plain.npy", 1) == "plain.npy");
  REQUIRE(forMethod("{method}_{call}.npy", "decode") == "decode_{call}.npy");
  REQUIRE(forMethod("{method}{method}", "m") == "mm");
  // A method name that contains the key does not loop.
  REQUIRE(forMethod("{method}", "{method}") == "{method}");
}

TEST_CASE("callSteps: a sequence, or one method several times", "[tooling]") {
  REQUIRE(callSteps({"prefill", "decode", "decode"}, "forward", 1) ==
          std::vector<std::string>{"prefill", "decode", "decode"});
  REQUIRE(callSteps({}, "forward", 3) == std::vector<std::string>(3, "forward"));
  REQUIRE(callSteps({}, "forward", 0) == std::vector<std::string>{"forward"});
}

TEST_CASE("call labels and file prefixes", "[tooling]") {
  REQUIRE(callLabel(1, false, 0, "forward") == "");
  REQUIRE(callLabel(3, false, 2, "forward") == "call 2 ");
  REQUIRE(callLabel(3, true, 1, "decode") == "call 1 decode ");
  REQUIRE(callFilePrefix(1, 0) == "");
  REQUIRE(callFilePrefix(4, 3) == "call3_");
}

TEST_CASE("parseStateSpec splits NAME=FILE", "[tooling]") {
  std::string name, file, problem;
  REQUIRE(parseStateSpec("cache=c_{call}.npy", name, file, problem));
  REQUIRE(name == "cache");
  REQUIRE(file == "c_{call}.npy");
  REQUIRE(parseStateSpec("a=b=c", name, file, problem));
  REQUIRE(name == "a");
  REQUIRE(file == "b=c");
  REQUIRE_FALSE(parseStateSpec("=x.npy", name, file, problem));
  REQUIRE(problem == "--expected-state '=x.npy': expected NAME=FILE.npy");
  REQUIRE_FALSE(parseStateSpec("cache", name, file, problem));
}
