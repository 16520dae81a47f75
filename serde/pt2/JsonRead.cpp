#include "serde/pt2/JsonRead.h"

#include "serde/pt2/Pt2Error.h"

#include <limits>
#include <vector>

namespace ptec::pt2 {

std::string Where::str() const {
  std::vector<std::string> parts;
  for (const Where *w = this; w; w = w->parent) {
    if (w->step == Step::Field)
      parts.push_back("." + std::string(w->key));
    else if (w->step == Step::MapKey)
      parts.push_back("['" + std::string(w->key) + "']");
    else if (w->step == Step::Index)
      parts.push_back("[" + std::to_string(w->index) + "]");
  }
  // Deep paths (nested subgraphs) keep their start and end.
  constexpr size_t kKeep = 12;
  std::string out;
  for (size_t k = parts.size(); k-- > 0;) {
    size_t fromStart = parts.size() - 1 - k;
    if (parts.size() > 2 * kKeep && fromStart >= kKeep && k >= kKeep) {
      if (fromStart == kKeep)
        out += "...";
      continue;
    }
    out += parts[k];
  }
  return out.empty() || out[0] != '.' ? out : out.substr(1);
}

void failAt(const Where &w, const std::string &msg) {
  std::string path = w.str();
  fail(path.empty() ? msg : path + ": " + msg);
}

const char *typeName(const json &j) {
  switch (j.type()) {
  case json::Type::Null: return "null";
  case json::Type::Object: return "an object";
  case json::Type::Array: return "an array";
  case json::Type::String: return "a string";
  case json::Type::Bool: return "a boolean";
  case json::Type::Int:
  case json::Type::UInt: return "an integer";
  case json::Type::Float: return "a float";
  }
  return "an unexpected value";
}

const json *opt(const json &obj, const char *key) {
  const json *v = obj.find(key);
  return v && !v->isNull() ? v : nullptr;
}

const json &req(const json &obj, const char *key, const Where &w) {
  const json *v = opt(obj, key);
  if (!v)
    failAt(w, std::string("missing required field '") + key + "'");
  return *v;
}

void expectObject(const json &j, const Where &w) {
  if (!j.isObject())
    failAt(w, std::string("expected an object, got ") + typeName(j));
}

void expectArray(const json &j, const Where &w) {
  if (!j.isArray())
    failAt(w, std::string("expected an array, got ") + typeName(j));
}

int64_t getInt(const json &j, const Where &w) {
  if (j.isUnsigned()) {
    uint64_t v = j.uintValue();
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      failAt(w, "integer " + std::to_string(v) + " does not fit in 64 bits");
    return static_cast<int64_t>(v);
  }
  if (j.isInteger())
    return j.intValue();
  failAt(w, std::string("expected an integer, got ") + typeName(j));
}

double getFloat(const json &j, const Where &w) {
  if (j.isNumber())
    return j.number();
  if (j.isString()) {
    std::string_view s = j.str();
    if (s == "Infinity")
      return std::numeric_limits<double>::infinity();
    if (s == "-Infinity")
      return -std::numeric_limits<double>::infinity();
    if (s == "NaN")
      return std::numeric_limits<double>::quiet_NaN();
    failAt(w, "expected a float, got the string '" + std::string(s) + "'");
  }
  failAt(w, std::string("expected a float, got ") + typeName(j));
}

bool getBool(const json &j, const Where &w) {
  if (!j.isBool())
    failAt(w, std::string("expected a boolean, got ") + typeName(j));
  return j.boolValue();
}

std::string_view getString(const json &j, const Where &w) {
  if (!j.isString())
    failAt(w, std::string("expected a string, got ") + typeName(j));
  return j.str();
}

int64_t intField(const json &obj, const char *key, const Where &w, int64_t dflt) {
  const json *v = opt(obj, key);
  return v ? getInt(*v, w[key]) : dflt;
}

bool boolField(const json &obj, const char *key, const Where &w, bool dflt) {
  const json *v = opt(obj, key);
  return v ? getBool(*v, w[key]) : dflt;
}

std::string stringField(const json &obj, const char *key, const Where &w, const std::string &dflt) {
  const json *v = opt(obj, key);
  return v ? std::string(getString(*v, w[key])) : dflt;
}

std::string reqString(const json &obj, const char *key, const Where &w) {
  return std::string(getString(req(obj, key, w), w[key]));
}

namespace {
std::string keyList(const json &j, bool nonNullOnly) {
  std::string keys;
  for (const JsonMember &m : j)
    if (!nonNullOnly || !m.value.isNull())
      keys += (keys.empty() ? "" : ", ") + std::string(m.key);
  return keys;
}

// Schema 3-4 wrote {"$type": field, "$value": payload}; schema 1-2 wrote
// every field of the union (dataclasses.asdict), null except the active one.
UnionValue legacyUnion(const json &j, const Where &w) {
  if (const json *type = j.find("$type")) {
    UnionValue u;
    u.key = getString(*type, w["$type"]);
    const json *value = j.find("$value");
    if (!value)
      failAt(w, "tagged union '" + std::string(u.key) + "' has no '$value'");
    u.value = value;
    u.tagged = true;
    return u;
  }
  size_t set = 0;
  UnionValue u;
  for (const JsonMember &m : j) {
    if (m.value.isNull())
      continue;
    ++set;
    u.key = m.key;
    u.value = &m.value;
  }
  if (set == 1)
    return u;
  if (set == 0)
    failAt(w, j.empty() ? std::string("a union must have one field set, found an empty object")
                        : "a union must have one field set, but all " + std::to_string(j.size()) +
                              " of its fields are null");
  failAt(w, "a union must have exactly one field set, found " + std::to_string(set) + " (" +
                keyList(j, true) + ")");
}
}  // namespace

UnionValue unionOf(const json &j, const Where &w, UnionStyle style) {
  expectObject(j, w);
  if (style == UnionStyle::Legacy)
    return legacyUnion(j, w);
  if (j.size() != 1) {
    std::string keys = keyList(j, false);
    failAt(w, "a union must have exactly one key, found " + std::to_string(j.size()) +
                  (keys.empty() ? "" : " (" + keys + ")"));
  }
  return UnionValue{j.begin()->key, &j.begin()->value, false};
}

}  // namespace ptec::pt2
