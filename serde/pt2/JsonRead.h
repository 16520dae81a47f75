// Internal: typed access to the parsed JSON (JsonDom.h) for the pt2 reader.
// Every failure throws Pt2Error with the JSON path of the offending value
// ("graph_module.graph.nodes[3].inputs[0].arg: expected an object, got a
// string").
#ifndef PTEC_SERDE_PT2_JSONREAD_H
#define PTEC_SERDE_PT2_JSONREAD_H

#include "serde/pt2/JsonDom.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace ptec::pt2 {

using json = JsonValue;

// A JSON path, rendered only when an error needs it. Holds pointers to its
// parent and key: a Where must not outlive either.
struct Where {
  enum class Step : uint8_t { Root, Field, MapKey, Index };
  const Where *parent = nullptr;
  Step step = Step::Root;
  std::string_view key;  // Field: the field name; MapKey: the map key
  int64_t index = -1;

  Where operator[](const char *k) const { return Where{this, Step::Field, k, -1}; }
  Where operator[](size_t i) const { return Where{this, Step::Index, {}, static_cast<int64_t>(i)}; }
  /// A key of a JSON map (tensor_values, metadata, ...): rendered ['key'].
  Where at(std::string_view k) const { return Where{this, Step::MapKey, k, -1}; }
  /// A union's field, named by the file.
  Where field(std::string_view k) const { return Where{this, Step::Field, k, -1}; }

  std::string str() const;
};

[[noreturn]] void failAt(const Where &w, const std::string &msg);

/// "an object", "a string", ... for messages.
const char *typeName(const json &j);

// Missing keys and explicit nulls both mean "use the default".
const json *opt(const json &obj, const char *key);
const json &req(const json &obj, const char *key, const Where &w);

void expectObject(const json &j, const Where &w);
void expectArray(const json &j, const Where &w);

int64_t getInt(const json &j, const Where &w);
/// Numbers, and the strings "Infinity", "-Infinity", "NaN".
double getFloat(const json &j, const Where &w);
bool getBool(const json &j, const Where &w);
std::string_view getString(const json &j, const Where &w);

int64_t intField(const json &obj, const char *key, const Where &w, int64_t dflt);
bool boolField(const json &obj, const char *key, const Where &w, bool dflt);
std::string stringField(const json &obj, const char *key, const Where &w, const std::string &dflt);
std::string reqString(const json &obj, const char *key, const Where &w);

/// How a file spells a union (pt2-format.md section 4.1 and docs/pt2-reader.md).
enum class UnionStyle {
  SingleKey,  // {"as_tensor": {...}}: schema 5 onwards
  Legacy,     // schema 1-4: {"$type": "as_tensor", "$value": {...}} or every
              // field present with null for the inactive ones
};

/// The active field of a union and where its payload sits.
struct UnionValue {
  std::string_view key;        // "as_tensor"
  const json *value = nullptr;
  bool tagged = false;         // payload is under "$value"

  /// The path of the payload: `w.<key>` or, when tagged, `w.$value`. `w`
  /// and this object must outlive the result.
  Where payload(const Where &w) const { return tagged ? w["$value"] : w.field(key); }
};

UnionValue unionOf(const json &j, const Where &w, UnionStyle style);

}  // namespace ptec::pt2

#endif  // PTEC_SERDE_PT2_JSONREAD_H
