// Internal: the graph reader's JSON document. A strict RFC 8259 parser that
// accepts exactly what nlohmann::json::parse accepts and yields the same
// values, built for the tens of MiB of a big model.json: one pass, no
// allocation per value (values live in blocks; strings without escapes point
// into the input), no recursion (nesting costs heap, never stack).
// Objects behave as nlohmann::json's std::map: members sorted by key
// (bytewise), a repeated key keeps its last value.
#ifndef PTEC_SERDE_PT2_JSONDOM_H
#define PTEC_SERDE_PT2_JSONDOM_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ptec::pt2 {

struct JsonMember;

class JsonValue {
public:
  // Int holds a negative integer, UInt a non-negative one (nlohmann's
  // number_integer / number_unsigned); integers past 64 bits are Float.
  enum class Type : uint8_t { Null, Bool, Int, UInt, Float, String, Array, Object };

  JsonValue() : u_(0) {}

  Type type() const { return type_; }
  bool isNull() const { return type_ == Type::Null; }
  bool isBool() const { return type_ == Type::Bool; }
  bool isString() const { return type_ == Type::String; }
  bool isArray() const { return type_ == Type::Array; }
  bool isObject() const { return type_ == Type::Object; }
  bool isInteger() const { return type_ == Type::Int || type_ == Type::UInt; }
  bool isUnsigned() const { return type_ == Type::UInt; }
  bool isNumber() const { return isInteger() || type_ == Type::Float; }
  bool isPrimitive() const { return !isArray() && !isObject(); }

  bool boolValue() const { return b_; }
  /// Int, or UInt as its two's complement (check isUnsigned() for range).
  int64_t intValue() const { return i_; }
  uint64_t uintValue() const { return u_; }
  /// Any number as a double.
  double number() const;
  std::string_view str() const { return {s_, n_}; }

  /// Items of an array, members of an object; 0 otherwise.
  size_t size() const { return isArray() || isObject() ? n_ : 0; }
  bool empty() const { return size() == 0; }
  const JsonValue &operator[](size_t k) const { return items_[k]; }
  const JsonValue *itemsBegin() const { return items_; }
  const JsonValue *itemsEnd() const { return items_ + n_; }
  const JsonMember *begin() const { return members_; }
  const JsonMember *end() const;
  /// The member `key` of an object, or null.
  const JsonValue *find(std::string_view key) const;

  /// A primitive as nlohmann's dump() writes it (strings quoted and escaped).
  std::string dump() const;

private:
  friend class JsonParser;
  Type type_ = Type::Null;
  bool b_ = false;
  uint32_t n_ = 0;  // string length, item or member count
  union {
    int64_t i_;
    uint64_t u_;
    double d_;
    const char *s_;
    const JsonValue *items_;
    const JsonMember *members_;
  };
};

struct JsonMember {
  std::string_view key;
  JsonValue value;
};

inline const JsonMember *JsonValue::end() const { return members_ + n_; }

/// Owns the values of one parsed document; string values and keys may point
/// into the parsed bytes, which must outlive it.
class JsonDocument {
public:
  /// False on anything nlohmann rejects, with nlohmann's message in `error`;
  /// also on a string or container of 2^32 or more bytes or items (then
  /// `error` gives the byte offset).
  bool parse(const uint8_t *data, size_t size, std::string &error);
  const JsonValue &root() const { return root_; }

private:
  friend class JsonParser;
  void *allocate(size_t bytes);

  JsonValue root_;
  struct BlockFree {
    void operator()(uint64_t *p) const;
  };
  std::vector<std::unique_ptr<uint64_t, BlockFree>> blocks_;
  uint64_t *next_ = nullptr;
  size_t left_ = 0;  // words
};

}  // namespace ptec::pt2

#endif  // PTEC_SERDE_PT2_JSONDOM_H
