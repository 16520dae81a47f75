#include "serde/pt2/JsonDom.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include <sys/mman.h>

namespace ptec::pt2 {

double JsonValue::number() const {
  switch (type_) {
  case Type::Int: return static_cast<double>(i_);
  case Type::UInt: return static_cast<double>(u_);
  case Type::Float: return d_;
  default: return 0;
  }
}

const JsonValue *JsonValue::find(std::string_view key) const {
  if (!isObject())
    return nullptr;
  // Members are sorted and unique: a short scan for the small objects that
  // make up most of a graph, a binary search for maps of values.
  if (n_ <= 8) {
    for (const JsonMember &m : *this)
      if (m.key == key)
        return &m.value;
    return nullptr;
  }
  const JsonMember *it = std::lower_bound(begin(), end(), key,
                                          [](const JsonMember &m, std::string_view k) { return m.key < k; });
  return it != end() && it->key == key ? &it->value : nullptr;
}

std::string JsonValue::dump() const {
  // Rare (non-string metadata), so nlohmann's own number formatting is used.
  switch (type_) {
  case Type::Null: return "null";
  case Type::Bool: return b_ ? "true" : "false";
  case Type::Int: return nlohmann::json(i_).dump();
  case Type::UInt: return nlohmann::json(u_).dump();
  case Type::Float: return nlohmann::json(d_).dump();
  case Type::String: return nlohmann::json(std::string(str())).dump();
  default: return "";
  }
}

void JsonDocument::BlockFree::operator()(uint64_t *p) const { std::free(p); }

void *JsonDocument::allocate(size_t bytes) {
  size_t words = (bytes + 7) / 8;
  if (words > left_) {
    // Blocks of 4 MiB, a bigger request (a map of 100k values) its own, on
    // huge pages where the kernel offers them: a big graph's values run to
    // 100+ MiB, and faulting that in 4 KiB pages costs more than parsing.
    constexpr size_t kHugePage = size_t(2) << 20;
    constexpr size_t kBlockWords = (size_t(4) << 20) / 8;
    size_t size = std::max(words, kBlockWords);
    size_t bytesAligned = (size * 8 + kHugePage - 1) / kHugePage * kHugePage;
    auto *block = static_cast<uint64_t *>(std::aligned_alloc(kHugePage, bytesAligned));
    if (!block)
      throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    madvise(block, bytesAligned, MADV_HUGEPAGE);  // advice only: failure is harmless
#endif
    blocks_.emplace_back(block);
    size = bytesAligned / 8;
    if (size - words < left_)  // keep the current block's remainder for later
      return block;
    next_ = block;
    left_ = size;
  }
  uint64_t *out = next_;
  next_ += words;
  left_ -= words;
  return out;
}

// One pass over the bytes. Containers under construction keep their
// children on two stacks; a closed container moves them into the document.
class JsonParser {
public:
  JsonParser(JsonDocument &doc, const uint8_t *data, size_t size)
      : doc_(doc), begin_(reinterpret_cast<const char *>(data)), p_(begin_), end_(begin_ + size) {}

  bool run(std::string &error);

private:
  struct Frame {
    bool object;
    size_t start;  // index into members_ or items_
  };

  bool failHere(const char *what) {
    if (error_.empty())
      error_ = "at byte " + std::to_string(p_ - begin_) + ": " + what;
    return false;
  }
  void skipSpace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t'))
      ++p_;
  }
  bool literal(const char *word, size_t n) {
    if (static_cast<size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0)
      return failHere("invalid literal");
    p_ += n;
    return true;
  }
  bool parseString(std::string_view &out);
  bool parseEscaped(const char *start, std::string_view &out);
  size_t plainCharLength(unsigned char c);
  bool parseNumber(JsonValue &v);
  bool parseScalar(JsonValue &v);
  void deliver(const JsonValue &v);
  bool close();

  JsonDocument &doc_;
  const char *begin_, *p_, *end_;
  std::vector<Frame> frames_;
  std::vector<JsonValue> items_;
  std::vector<JsonMember> members_;
  std::string scratch_;
  std::string error_;
};

namespace {
constexpr uint64_t kOnes = 0x0101010101010101ull;
constexpr uint64_t kHighs = 0x8080808080808080ull;

// Bit 7 of some byte is set if the word holds a byte that ends a plain run of
// string characters: '"', '\\', a control character or a non-ASCII byte.
inline uint64_t specialBytes(uint64_t w) {
  uint64_t quote = w ^ (kOnes * '"');
  uint64_t slash = w ^ (kOnes * '\\');
  return ((quote - kOnes) & ~quote) | ((slash - kOnes) & ~slash) | ((w - kOnes * 0x20) & ~w) | w;
}

// Length of the well-formed UTF-8 sequence at p (its first byte >= 0x80), or 0.
size_t utf8Length(const unsigned char *p, const unsigned char *end) {
  auto cont = [&](size_t k, unsigned char lo, unsigned char hi) {
    return p + k < end && p[k] >= lo && p[k] <= hi;
  };
  unsigned char c = p[0];
  if (c >= 0xC2 && c <= 0xDF)
    return cont(1, 0x80, 0xBF) ? 2 : 0;
  if (c == 0xE0)
    return cont(1, 0xA0, 0xBF) && cont(2, 0x80, 0xBF) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF)
    return cont(1, 0x80, 0xBF) && cont(2, 0x80, 0xBF) ? 3 : 0;
  if (c == 0xED)  // no UTF-16 surrogates
    return cont(1, 0x80, 0x9F) && cont(2, 0x80, 0xBF) ? 3 : 0;
  if (c == 0xF0)
    return cont(1, 0x90, 0xBF) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3)
    return cont(1, 0x80, 0xBF) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) ? 4 : 0;
  if (c == 0xF4)
    return cont(1, 0x80, 0x8F) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) ? 4 : 0;
  return 0;
}

int hexValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

void appendUtf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

// Bytes of the string character at p_ (not a quote or backslash), whose
// first byte is c; 0 after reporting a control character or bad UTF-8.
size_t JsonParser::plainCharLength(unsigned char c) {
  if (c < 0x20)
    return failHere("control character in a string"), 0;
  if (c < 0x80)
    return 1;
  size_t n = utf8Length(reinterpret_cast<const unsigned char *>(p_),
                        reinterpret_cast<const unsigned char *>(end_));
  if (!n)
    failHere("invalid UTF-8 in a string");
  return n;
}

// At the opening quote. Plain strings (the vast majority) are views of the input.
bool JsonParser::parseString(std::string_view &out) {
  const char *start = ++p_;
  for (;;) {
    while (end_ - p_ >= 8) {
      uint64_t w;
      std::memcpy(&w, p_, 8);
      if (specialBytes(w) & kHighs)
        break;
      p_ += 8;
    }
    if (p_ >= end_)
      return failHere("unterminated string");
    unsigned char c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      if (static_cast<uint64_t>(p_ - start) > std::numeric_limits<uint32_t>::max())
        return failHere("string of 4 GiB or more");
      out = std::string_view(start, p_ - start);
      ++p_;
      return true;
    }
    if (c == '\\')
      return parseEscaped(start, out);
    size_t n = plainCharLength(c);
    if (!n)
      return false;
    p_ += n;
  }
}

// The rest of a string that has escapes, decoded into the document.
bool JsonParser::parseEscaped(const char *start, std::string_view &out) {
  scratch_.assign(start, p_);
  while (p_ < end_) {
    unsigned char c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      ++p_;
      if (scratch_.size() > std::numeric_limits<uint32_t>::max())
        return failHere("string of 4 GiB or more");
      char *copy = static_cast<char *>(doc_.allocate(scratch_.size()));
      std::memcpy(copy, scratch_.data(), scratch_.size());
      out = std::string_view(copy, scratch_.size());
      return true;
    }
    if (c < 0x20 || c >= 0x80) {
      size_t n = plainCharLength(c);
      if (!n)
        return false;
      scratch_.append(p_, n);
      p_ += n;
      continue;
    }
    if (c != '\\') {
      scratch_ += static_cast<char>(c);
      ++p_;
      continue;
    }
    if (++p_ >= end_)
      return failHere("unterminated string");
    char e = *p_++;
    switch (e) {
    case '"': scratch_ += '"'; continue;
    case '\\': scratch_ += '\\'; continue;
    case '/': scratch_ += '/'; continue;
    case 'b': scratch_ += '\b'; continue;
    case 'f': scratch_ += '\f'; continue;
    case 'n': scratch_ += '\n'; continue;
    case 'r': scratch_ += '\r'; continue;
    case 't': scratch_ += '\t'; continue;
    case 'u': break;
    default: return failHere("invalid escape");
    }
    auto hex4 = [&](uint32_t &cp) {
      if (end_ - p_ < 4)
        return false;
      cp = 0;
      for (int k = 0; k < 4; ++k) {
        int h = hexValue(p_[k]);
        if (h < 0)
          return false;
        cp = cp * 16 + static_cast<uint32_t>(h);
      }
      p_ += 4;
      return true;
    };
    uint32_t cp;
    if (!hex4(cp))
      return failHere("invalid \\u escape");
    if (cp >= 0xDC00 && cp <= 0xDFFF)
      return failHere("low surrogate without a high one");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      uint32_t lo;
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u')
        return failHere("high surrogate without a low one");
      p_ += 2;
      if (!hex4(lo))
        return failHere("invalid \\u escape");
      if (lo < 0xDC00 || lo > 0xDFFF)
        return failHere("high surrogate without a low one");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    appendUtf8(scratch_, cp);
  }
  return failHere("unterminated string");
}

// nlohmann's rules: an integer that fits int64 (negative) or uint64 (otherwise)
// is one; anything else is a double, and a double that overflows is an error.
bool JsonParser::parseNumber(JsonValue &v) {
  const char *start = p_;
  bool negative = *p_ == '-';
  if (negative)
    ++p_;
  if (p_ >= end_ || !isDigit(*p_))
    return failHere("invalid number");
  uint64_t value = 0;
  bool overflow = false;
  if (*p_ == '0') {
    ++p_;
  } else {
    while (p_ < end_ && isDigit(*p_)) {
      unsigned digit = static_cast<unsigned>(*p_ - '0');
      if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10)
        overflow = true;
      else
        value = value * 10 + digit;
      ++p_;
    }
  }
  bool isFloat = false;
  if (p_ < end_ && *p_ == '.') {
    isFloat = true;
    ++p_;
    if (p_ >= end_ || !isDigit(*p_))
      return failHere("invalid number");
    while (p_ < end_ && isDigit(*p_))
      ++p_;
  }
  if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
    isFloat = true;
    ++p_;
    if (p_ < end_ && (*p_ == '+' || *p_ == '-'))
      ++p_;
    if (p_ >= end_ || !isDigit(*p_))
      return failHere("invalid number");
    while (p_ < end_ && isDigit(*p_))
      ++p_;
  }
  if (!isFloat && !overflow) {
    if (!negative) {
      v.type_ = JsonValue::Type::UInt;
      v.u_ = value;
      return true;
    }
    if (value <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1) {
      v.type_ = JsonValue::Type::Int;
      v.i_ = static_cast<int64_t>(0 - value);
      return true;
    }
  }
  double d = 0;
  std::from_chars_result r = std::from_chars(start, p_, d);
  if (r.ec == std::errc::result_out_of_range) {
    // Underflow reads as strtod has it (zero or a denormal); overflow is refused below.
    std::string token(start, p_);
    d = std::strtod(token.c_str(), nullptr);
  } else if (r.ec != std::errc() || r.ptr != p_) {
    return failHere("invalid number");
  }
  if (!std::isfinite(d))
    return failHere("number overflow");
  v.type_ = JsonValue::Type::Float;
  v.d_ = d;
  return true;
}

bool JsonParser::parseScalar(JsonValue &v) {
  switch (*p_) {
  case '"': {
    std::string_view s;
    if (!parseString(s))
      return false;
    v.type_ = JsonValue::Type::String;
    v.s_ = s.data();
    v.n_ = static_cast<uint32_t>(s.size());
    return true;
  }
  case 't':
    v.type_ = JsonValue::Type::Bool;
    v.b_ = true;
    return literal("true", 4);
  case 'f':
    v.type_ = JsonValue::Type::Bool;
    return literal("false", 5);
  case 'n':
    return literal("null", 4);
  default:
    if (*p_ == '-' || isDigit(*p_))
      return parseNumber(v);
    return failHere("unexpected character");
  }
}

void JsonParser::deliver(const JsonValue &v) {
  if (frames_.empty())
    doc_.root_ = v;
  else if (frames_.back().object)
    members_.back().value = v;
  else
    items_.push_back(v);
}

// Moves the innermost container's children into the document and delivers it.
bool JsonParser::close() {
  Frame f = frames_.back();
  frames_.pop_back();
  JsonValue v;
  if (f.object) {
    size_t n = members_.size() - f.start;
    JsonMember *first = members_.data() + f.start;
    // nlohmann's std::map: sorted by key; of equal keys the last one stays.
    auto less = [](const JsonMember &a, const JsonMember &b) { return a.key < b.key; };
    if (n <= 16) {
      for (size_t k = 1; k < n; ++k)
        for (size_t j = k; j > 0 && less(first[j], first[j - 1]); --j)
          std::swap(first[j], first[j - 1]);
    } else if (!std::is_sorted(first, first + n, less)) {
      std::stable_sort(first, first + n, less);
    }
    size_t kept = 0;
    for (size_t k = 0; k < n; ++k) {
      if (k + 1 < n && first[k + 1].key == first[k].key)
        continue;
      first[kept++] = first[k];
    }
    if (kept > std::numeric_limits<uint32_t>::max())
      return failHere("object of 2^32 or more members");
    auto *out = static_cast<JsonMember *>(doc_.allocate(kept * sizeof(JsonMember)));
    std::uninitialized_copy(first, first + kept, out);
    members_.resize(f.start);
    v.type_ = JsonValue::Type::Object;
    v.members_ = out;
    v.n_ = static_cast<uint32_t>(kept);
  } else {
    size_t n = items_.size() - f.start;
    if (n > std::numeric_limits<uint32_t>::max())
      return failHere("array of 2^32 or more items");
    auto *out = static_cast<JsonValue *>(doc_.allocate(n * sizeof(JsonValue)));
    std::uninitialized_copy(items_.begin() + f.start, items_.end(), out);
    items_.resize(f.start);
    v.type_ = JsonValue::Type::Array;
    v.items_ = out;
    v.n_ = static_cast<uint32_t>(n);
  }
  deliver(v);
  return true;
}

bool JsonParser::run(std::string &error) {
  // A UTF-8 byte order mark is skipped, as nlohmann does.
  if (end_ - p_ >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0)
    p_ += 3;
  bool ok = [&] {
    for (;;) {
      // A value is expected.
      skipSpace();
      if (p_ >= end_)
        return failHere("unexpected end of input");
      if (*p_ == '{' || *p_ == '[') {
        bool object = *p_++ == '{';
        frames_.push_back({object, object ? members_.size() : items_.size()});
        skipSpace();
        if (p_ < end_ && *p_ == (object ? '}' : ']')) {
          ++p_;
          if (!close())
            return false;
        } else if (object) {
          goto key;
        } else {
          continue;
        }
      } else {
        JsonValue v;
        if (!parseScalar(v))
          return false;
        deliver(v);
      }
      // After a value: a separator, the end of containers, or of the input.
      for (;;) {
        skipSpace();
        if (frames_.empty()) {
          if (p_ != end_)
            return failHere("content after the document");
          return true;
        }
        if (p_ >= end_)
          return failHere("unexpected end of input");
        bool object = frames_.back().object;
        if (*p_ == ',') {
          ++p_;
          if (object)
            goto key;
          break;
        }
        if (*p_ != (object ? '}' : ']'))
          return failHere(object ? "expected ',' or '}'" : "expected ',' or ']'");
        ++p_;
        if (!close())
          return false;
      }
      continue;
    key:
      skipSpace();
      if (p_ >= end_ || *p_ != '"')
        return failHere("expected a key");
      {
        std::string_view k;
        if (!parseString(k))
          return false;
        skipSpace();
        if (p_ >= end_ || *p_ != ':')
          return failHere("expected ':'");
        ++p_;
        members_.push_back({k, JsonValue()});
      }
    }
  }();
  if (!ok)
    error = error_;
  return ok;
}

namespace {
// Reads a document and keeps nothing but nlohmann's description of its fault.
struct FaultFinder : nlohmann::json_sax<nlohmann::json> {
  using json = nlohmann::json;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(json::number_integer_t) override { return true; }
  bool number_unsigned(json::number_unsigned_t) override { return true; }
  bool number_float(json::number_float_t, const json::string_t &) override { return true; }
  bool string(json::string_t &) override { return true; }
  bool binary(json::binary_t &) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(json::string_t &) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &e) override {
    message = e.what();
    return false;
  }
  std::string message;
};
}  // namespace

bool JsonDocument::parse(const uint8_t *data, size_t size, std::string &error) {
  *this = JsonDocument();
  JsonParser parser(*this, data, size);
  if (parser.run(error))
    return true;
  // The reader's messages have always been nlohmann's ("[json.exception.
  // parse_error.101] parse error at line 1, column 5: ..."): on this cold path
  // nlohmann reads the bytes again to say what is wrong.
  FaultFinder finder;
  if (!nlohmann::json::sax_parse(data, data + size, &finder) && !finder.message.empty())
    error = finder.message;
  *this = JsonDocument();
  return false;
}

}  // namespace ptec::pt2
