// JsonDom (the graph reader's JSON parser) against nlohmann::json, which it
// replaced and must match: the same documents accepted, the same values
// (integer kinds, floats bit for bit, key order, duplicate keys), the same
// message for a rejected one. Random documents and mutations of them, plus
// the corner cases of the grammar one by one.
#include "serde/pt2/JsonDom.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstring>
#include <random>
#include <string>

using ptec::pt2::JsonDocument;
using ptec::pt2::JsonMember;
using ptec::pt2::JsonValue;
using nl = nlohmann::json;

namespace {

// Empty when `ours` holds exactly what nlohmann made of the same text;
// otherwise where and how they differ.
std::string difference(const JsonValue &ours, const nl &theirs, const std::string &at = "$") {
  using T = JsonValue::Type;
  auto differs = [&](const std::string &what) { return at + ": " + what; };
  switch (theirs.type()) {
  case nl::value_t::null:
    return ours.isNull() ? "" : differs("expected null");
  case nl::value_t::boolean:
    return ours.isBool() && ours.boolValue() == theirs.get<bool>() ? "" : differs("boolean");
  case nl::value_t::number_integer:
    return ours.type() == T::Int && ours.intValue() == theirs.get<int64_t>() ? ""
                                                                            : differs("integer");
  case nl::value_t::number_unsigned:
    return ours.type() == T::UInt && ours.uintValue() == theirs.get<uint64_t>()
               ? ""
               : differs("unsigned integer");
  case nl::value_t::number_float: {
    double a = ours.number(), b = theirs.get<double>();
    return ours.type() == T::Float && std::memcmp(&a, &b, sizeof a) == 0 ? "" : differs("float");
  }
  case nl::value_t::string:
    return ours.isString() && ours.str() == theirs.get_ref<const std::string &>() ? ""
                                                                                 : differs("string");
  case nl::value_t::array: {
    if (!ours.isArray() || ours.size() != theirs.size())
      return differs("array size");
    for (size_t k = 0; k < theirs.size(); ++k)
      if (std::string d = difference(ours[k], theirs[k], at + "[" + std::to_string(k) + "]"); !d.empty())
        return d;
    return "";
  }
  case nl::value_t::object: {
    if (!ours.isObject() || ours.size() != theirs.size())
      return differs("object size");
    const JsonMember *m = ours.begin();
    for (auto it = theirs.begin(); it != theirs.end(); ++it, ++m) {
      if (m->key != it.key())
        return differs("key '" + std::string(m->key) + "' where nlohmann has '" + it.key() + "'");
      if (std::string d = difference(m->value, *it, at + "." + it.key()); !d.empty())
        return d;
      if (ours.find(it.key()) != &m->value)
        return differs("find('" + it.key() + "')");
    }
    return "";
  }
  default:
    return differs("unexpected nlohmann type");
  }
}

// Parses with both; checks they agree. Returns whether nlohmann accepted it.
bool agree(const std::string &text) {
  const auto *bytes = reinterpret_cast<const uint8_t *>(text.data());
  JsonDocument doc;
  std::string error;
  bool ok = doc.parse(bytes, text.size(), error);
  nl theirs;
  std::string theirError;
  try {
    theirs = nl::parse(text.begin(), text.end());
  } catch (const nl::exception &e) {
    theirError = e.what();
  }
  INFO("text: " << text.substr(0, 400));
  REQUIRE(ok == theirError.empty());
  if (!ok) {
    CHECK(error == theirError);
    return false;
  }
  std::string d = difference(doc.root(), theirs);
  INFO("difference: " << d);
  CHECK(d.empty());
  return true;
}

class Generator {
public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  std::string document() {
    std::string out;
    value(out, 0);
    return out;
  }

  std::string mutate(std::string text) {
    static const char kBytes[] = "{}[],:\" \\/0123456789-+.eEtrufalsn\x01\x1f\x7f\x80\xbf\xc0\xc3\xe0\xed\xf0\xf4\xf5\xff";
    int edits = 1 + pick(3);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      size_t at = pick(static_cast<int>(text.size()));
      char c = kBytes[pick(sizeof kBytes - 1)];
      switch (pick(4)) {
      case 0: text[at] = c; break;
      case 1: text.insert(text.begin() + at, c); break;
      case 2: text.erase(at, 1); break;
      default: text.resize(at); break;
      }
    }
    return text;
  }

private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  void space(std::string &out) {
    static const char *kSpaces[] = {"", "", "", " ", "\n", "\t", "\r\n  "};
    out += kSpaces[pick(7)];
  }

  void string(std::string &out) {
    static const char *kPieces[] = {
        "a", "name", "as_tensor", "x", " ", "\\\"", "\\\\", "\\/", "\\n", "\\t", "\\b", "\\f", "\\r",
        "\\u0041", "\\u00e9", "\\u0000", "\\ud83d\\ude00", "\\uD834\\uDD1E", "\xc3\xa9", "\xe2\x82\xac",
        "\xf0\x9f\x98\x80", "\xed\x9f\xbf", "\x7f", "File \\\"m.py\\\", line 3"};
    out += '"';
    for (int k = pick(5); k > 0; --k)
      out += kPieces[pick(sizeof kPieces / sizeof *kPieces)];
    out += '"';
  }

  void number(std::string &out) {
    static const char *kNumbers[] = {
        "0", "-0", "1", "-1", "7", "123456789", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "18446744073709551615",
        "18446744073709551616", "100000000000000000000000", "0.5", "-0.0", "1e3", "1E+3", "2.5e-3",
        "1e308", "1.7976931348623157e308", "4.9e-324", "1e-400", "123.456e7", "-1.5E-10",
        "0.1000000000000000055511151231257827"};
    out += kNumbers[pick(sizeof kNumbers / sizeof *kNumbers)];
  }

  void value(std::string &out, int depth) {
    space(out);
    int kind = pick(depth > 5 ? 6 : 9);
    switch (kind) {
    case 0: out += "null"; break;
    case 1: out += pick(2) ? "true" : "false"; break;
    case 2:
    case 3: number(out); break;
    case 4:
    case 5: string(out); break;
    case 6:
    case 7: {
      out += '{';
      int n = pick(6);
      for (int k = 0; k < n; ++k) {
        space(out);
        // Few distinct keys, so duplicates are common.
        static const char *kKeys[] = {"\"a\"", "\"b\"", "\"as_int\"", "\"\"", "\"a\\u0062\"", "\"\xc3\xa9\""};
        out += kKeys[pick(6)];
        space(out);
        out += ':';
        value(out, depth + 1);
        if (k + 1 < n)
          out += ',';
      }
      space(out);
      out += '}';
      break;
    }
    default: {
      out += '[';
      int n = pick(5);
      for (int k = 0; k < n; ++k) {
        value(out, depth + 1);
        if (k + 1 < n)
          out += ',';
      }
      space(out);
      out += ']';
    }
    }
    space(out);
  }

  std::mt19937 rng_;
};

}  // namespace

TEST_CASE("JsonDom agrees with nlohmann on random and mutated documents", "[pt2][json]") {
  Generator gen(20240601);
  int accepted = 0, rejected = 0;
  for (int k = 0; k < 4000; ++k) {
    std::string doc = gen.document();
    REQUIRE(agree(doc));
    for (int m = 0; m < 4; ++m)
      (agree(gen.mutate(doc)) ? accepted : rejected)++;
  }
  // Both outcomes must be well represented for the comparison to mean anything.
  CHECK(accepted > 1000);
  CHECK(rejected > 4000);
}

TEST_CASE("JsonDom corner cases match nlohmann", "[pt2][json]") {
  const char *cases[] = {
      // numbers: integer kinds, overflow to float, float overflow, underflow
      "0", "-0", "[-0, 0, -0.0]", "18446744073709551615", "18446744073709551616",
      "-9223372036854775808", "-9223372036854775809", "1e400", "-1e400", "1e-400", "4e-320",
      "01", "-", "1.", ".5", "+1", "1e", "1e+", "-a", "1.5e3x", "2.",
      // strings: escapes, surrogates, UTF-8, control characters
      "\"\\u0000\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\ud800x\"",
      "\"\\uD83D\\uDE00\"", "\"\\u00g0\"", "\"\\x\"", "\"\\", "\"abc", "\"a\x01\"", "\"a\x7f\"",
      "\"\xc0\xaf\"", "\"\xe0\x80\x80\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xf5\"",
      "\"\xc3\"", "\"\xe2\x82\"", "\"\xe2\x82\xac\"", "\"\xf0\x9f\x98\x80\"",
      // structure
      "", " ", "{}", "[]", "{", "[", "]", "}", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "[1,]", "[,1]",
      "{\"a\":1 \"b\":2}", "{1:2}", "[1 2]", "null x", "nul", "truex", "tru", "falsey", "[true,false,null]",
      "{\"b\":1,\"a\":2,\"b\":3}", "{\"a\":{\"x\":1},\"a\":[2]}", "{\"\":0,\"\":1}",
      "\xef\xbb\xbf{}", "\xef\xbb{}", "\xef{}", " \t\r\n[ 1 , 2 ]\n ", "/* c */ 1", "[1] // c",
      "\x00", "[\"a\"\x00]", "1 2",
  };
  for (const char *c : cases)
    agree(c);
  agree(std::string("[\"a\0b\"]", 7));
  // A wide object is sorted and searched like a small one.
  std::string wide = "{";
  for (int k = 0; k < 300; ++k)
    wide += (k ? ",\"k" : "\"k") + std::to_string((k * 7919) % 250) + "\":" + std::to_string(k);
  agree(wide + "}");
}

TEST_CASE("JsonDom nesting costs no stack", "[pt2][json]") {
  // nlohmann has no depth limit either; 200k levels would overflow a recursive parser.
  const size_t depth = 200000;
  std::string deep = std::string(depth, '[') + std::string(depth, ']');
  JsonDocument doc;
  std::string error;
  REQUIRE(doc.parse(reinterpret_cast<const uint8_t *>(deep.data()), deep.size(), error));
  CHECK(doc.root().size() == 1);
  std::string open = std::string(depth, '[') + "{\"a\":" + std::string(depth, '[');
  CHECK_FALSE(doc.parse(reinterpret_cast<const uint8_t *>(open.data()), open.size(), error));
  CHECK(error.find("parse error") != std::string::npos);
}

TEST_CASE("JsonDom dumps primitives as nlohmann does", "[pt2][json]") {
  for (const char *text : {"1", "-5", "0.1", "1e100", "2.0", "-0.0", "true", "null", "18446744073709551615"}) {
    std::string s = text;
    JsonDocument doc;
    std::string error;
    REQUIRE(doc.parse(reinterpret_cast<const uint8_t *>(s.data()), s.size(), error));
    CHECK(doc.root().dump() == nl::parse(s).dump());
  }
}
