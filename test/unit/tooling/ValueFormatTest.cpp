// Text and JSON for values: doubles that read back exactly, strings quoted
// and escaped, lists with their items (tooling/ValueFormat.h, RunOutput.h).
#include "tooling/RunOutput.h"
#include "tooling/ValueFormat.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <limits>

using namespace ptec::rt;
using namespace ptec::tooling;

TEST_CASE("formatDouble writes the shortest text that reads back exactly", "[tooling]") {
  for (double v : {0.1, 1.0 / 3.0, 2.0 / 3.0, 1e-300, 123456789.123456789, -7.25, 1e22,
                   std::numeric_limits<double>::min(), std::numeric_limits<double>::max(),
                   std::nextafter(1.0, 2.0)}) {
    std::string text = formatDouble(v);
    INFO(text);
    REQUIRE(std::strtod(text.c_str(), nullptr) == v);
  }
  REQUIRE(formatDouble(0.1) == "0.1");
  REQUIRE(formatDouble(1.0 / 3.0) == "0.3333333333333333");
  REQUIRE(formatDouble(3.0) == "3");
  REQUIRE(formatDouble(-0.0) == "-0");
  REQUIRE(formatDouble(INFINITY) == "inf");
  REQUIRE(formatDouble(-INFINITY) == "-inf");
  REQUIRE(formatDouble(NAN) == "nan");
}

TEST_CASE("quoteString escapes quotes, backslashes and control bytes", "[tooling]") {
  REQUIRE(quoteString("plain") == "\"plain\"");
  REQUIRE(quoteString("a\"b\\c") == "\"a\\\"b\\\\c\"");
  REQUIRE(quoteString("line\nnext\ttab") == "\"line\\nnext\\ttab\"");
  REQUIRE(quoteString(std::string("\x01", 1)) == "\"\\u0001\"");
  REQUIRE(quoteString("") == "\"\"");
}

TEST_CASE("describeValue says each kind of value with its value", "[tooling]") {
  REQUIRE(describeValue(EValue::fromDouble(0.1)) == "double 0.1");
  REQUIRE(describeValue(EValue::fromDouble(1.0 / 3.0)) == "double 0.3333333333333333");
  REQUIRE(describeValue(EValue::fromInt(-4)) == "int -4");
  REQUIRE(describeValue(EValue::fromBool(true)) == "bool true");
  REQUIRE(describeValue(EValue()) == "None");
  const char text[] = "hi \"you\"";
  REQUIRE(describeValue(EValue::fromString(text, sizeof text - 1)) ==
          "string \"hi \\\"you\\\"\"");
  std::vector<double> ds = {0.5, 0.1};
  REQUIRE(describeValue(EValue::fromDoubleList(Span<const double>(ds.data(), ds.size()))) ==
          "double list [0.5, 0.1]");
  std::vector<uint8_t> bs = {1, 0};
  REQUIRE(describeValue(EValue::fromBoolList(Span<const uint8_t>(bs.data(), bs.size()))) ==
          "bool list [true, false]");
  EValue a = EValue::fromInt(2), b = EValue::fromInt(7);
  EValue *items[] = {&a, &b};
  REQUIRE(describeValue(EValue::fromIntList(Span<EValue *const>(items, 2))) ==
          "int list [2, 7]");
}

TEST_CASE("RunOutput prints doubles and strings as themselves, text and JSON", "[tooling]") {
  EValue third = EValue::fromDouble(1.0 / 3.0);
  REQUIRE(RunOutput::valueText("output 0", third) == "output 0: double 0.3333333333333333");
  nlohmann::ordered_json j = RunOutput::valueJson("output 0", third);
  REQUIRE(j["value"] == "double 0.3333333333333333");
  // The JSON number reads back as the same double.
  REQUIRE(nlohmann::json::parse(j.dump())["scalar"].get<double>() == 1.0 / 3.0);

  const char text[] = "a \"b\"\n";
  EValue s = EValue::fromString(text, sizeof text - 1);
  REQUIRE(RunOutput::valueText("output 1", s) == "output 1: string \"a \\\"b\\\"\\n\"");
  std::string dumped = RunOutput::valueJson("output 1", s).dump();
  REQUIRE(dumped.find("\"string\":\"a \\\"b\\\"\\n\"") != std::string::npos);
  REQUIRE(nlohmann::json::parse(dumped)["string"] == "a \"b\"\n");
}

TEST_CASE("RunOutput summarizes tensors; float64 elements read back", "[tooling]") {
  std::vector<double> data = {0.1, 1.0 / 3.0, -2};
  std::vector<int64_t> sizes = {3};
  Tensor t;
  REQUIRE(t.init(ScalarType::Double, Span<const int64_t>(sizes.data(), 1)) == Error::Ok);
  t.setData(data.data(), data.size() * sizeof(double));
  std::string line = RunOutput::valueText("output 0", EValue::fromTensor(&t));
  REQUIRE(line == "output 0: float64 [3]  min -2 max 0.333333 mean -0.522222  "
                  "[0.1, 0.3333333333333333, -2]");
  nlohmann::ordered_json j = RunOutput::valueJson("output 0", EValue::fromTensor(&t));
  REQUIRE(j["first"].size() == 3);
  REQUIRE(j["first"][1].get<double>() == 1.0 / 3.0);
  REQUIRE(j["min"].get<double>() == -2);
}
