// ATen operator schemas: the parsed form of strings such as
//   add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
// and the registry of all operators the compiler knows. The registry is the
// single source of truth for argument names, defaults, aliasing and
// out-variants (see docs/schema-registry.md). Plain C++17, no exceptions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptec::schema {

/// An alias annotation: `(a)`, `(a!)`, `(a -> *)`, `(a|b)`, `(a! -> a|b)`, `!`.
/// A bare `!` is a fresh anonymous written set: both set lists are empty.
struct AliasInfo {
  std::vector<std::string> beforeSets; // e.g. {"a"}; "*" for wildcard
  std::vector<std::string> afterSets;  // equals beforeSets when no "->"
  bool isWrite = false;                // "!"
  bool isWildcardAfter() const;        // afterSets contains "*"
  bool isWildcardBefore() const;       // beforeSets contains "*"
  std::string str() const;             // "(a!)", "(a -> *)", "!"
  bool operator==(const AliasInfo &o) const;
  bool operator!=(const AliasInfo &o) const { return !(*this == o); }
};

enum class TypeKind {
  Tensor, Int, SymInt, Float, Bool, SymBool, Str, Scalar, ScalarType, Layout,
  MemoryFormat, Device, DeviceIndex, Generator, Dimname, Storage, Stream, Complex, Any,
  NoneType, List, Optional, Tuple, Other
};

/// A schema type. Dict/Union/Future/Await/RRef, custom classes
/// (`__torch__.torch.classes.ns.Name`), type variables and the rarer base
/// types (QScheme, Capsule, ...) are `Other`, spelled by `name`, with any
/// contained types in `elems`.
struct SchemaType {
  TypeKind kind = TypeKind::Other;
  std::vector<SchemaType> elems;     // List/Optional: 1 element; Tuple: n
  std::optional<int64_t> fixedSize;  // int[2]
  std::optional<AliasInfo> alias;    // annotation at this level
  std::string name;                  // spelled name for Other / custom class
  bool isTensorLike() const;         // Tensor, Tensor?, Tensor[], Tensor?[] (and Tensor[]?)
  std::string str() const;           // round-trip spelling
  /// Structural equality; `withAlias=false` ignores alias annotations.
  bool equals(const SchemaType &o, bool withAlias = true) const;
  bool operator==(const SchemaType &o) const { return equals(o, true); }
  bool operator!=(const SchemaType &o) const { return !equals(o, true); }
};

/// Spelling of a non-container kind ("Tensor", "SymInt", ...); "" for List,
/// Optional, Tuple and Other.
const char *typeKindName(TypeKind kind);

struct DefaultValue {
  enum class Kind { None, Bool, Int, Double, String, IntList, DoubleList, BoolList, Complex, Enum };
  Kind kind = Kind::None;
  bool b = false;
  int64_t i = 0;
  double d = 0;      // Double; Complex: real part
  double imag = 0;   // Complex: imaginary part (`2j`)
  std::string s;
  std::vector<int64_t> ints;
  std::vector<double> doubles;
  std::vector<bool> bools;
  // Enum: s holds the identifier (float, long, strided, contiguous_format, Mean); i holds the
  // .pte/c10 number: dtype float -> 6, long -> 4; strided -> 0; contiguous_format -> 0; Mean -> 1.
  std::string str() const; // the spelling used in a schema string
  bool operator==(const DefaultValue &o) const;
  bool operator!=(const DefaultValue &o) const { return !(*this == o); }
};

struct Argument {
  std::string name;
  SchemaType type;
  std::optional<DefaultValue> defaultValue;
  bool kwargOnly = false;
  const AliasInfo *alias() const; // annotation on the outermost type or its element, or null
  bool isWrite() const;           // some annotation on the type carries "!"
  bool isOut() const;             // written & kwarg-only
  bool operator==(const Argument &o) const;
  bool operator!=(const Argument &o) const { return !(*this == o); }
};

struct FunctionSchema {
  std::string ns, name, overload; // "aten","add","Tensor"; overload "" for default
  std::vector<Argument> arguments, returns;
  bool varArgs = false, varRets = false;
  /// False for a bare operator name ("aten::relu") without a signature.
  bool hasSignature = true;
  std::string fullName() const;   // "aten::add.Tensor" / "aten::relu"
  std::string str() const;        // canonical re-print (round-trips through the parser)
  bool isMutable() const;         // any argument written
  bool isOutVariant() const;      // has kwarg-only written args
  bool isInplace() const;         // first arg written and returned
  int findArgument(std::string_view name) const; // -1 when absent
  /// Indices of the out arguments (written and kwarg-only), in order.
  std::vector<size_t> outArguments() const;
  bool operator==(const FunctionSchema &o) const;
  bool operator!=(const FunctionSchema &o) const { return !(*this == o); }
};

struct ParseError {
  std::string message; // includes the position: "expected ')' at position 17"
  size_t position = 0; // 0-based character offset into the parsed text
};

/// Parses "aten::add.Tensor(Tensor self, ...) -> Tensor"; the namespace is
/// optional (defaults to aten). Returns nullopt and fills `err` (if given)
/// on malformed input.
std::optional<FunctionSchema> parseSchema(std::string_view text, ParseError *err);

/// Splits "ns::name.overload" (namespace optional, default aten; overload
/// "default" means the empty overload) into its parts. False when malformed.
bool splitOperatorName(std::string_view fullName, std::string *ns, std::string *name,
                       std::string *overload);

class OperatorRegistry {
public:
  OperatorRegistry();
  ~OperatorRegistry();
  OperatorRegistry(OperatorRegistry &&) noexcept;
  OperatorRegistry &operator=(OperatorRegistry &&) noexcept;
  OperatorRegistry(const OperatorRegistry &) = delete;
  OperatorRegistry &operator=(const OperatorRegistry &) = delete;

  /// The built-in table (dialects/exir/schema/aten/*.txt in the order of
  /// aten/ORDER, embedded at build time), parsed once (thread-safe).
  static const OperatorRegistry &builtin();

  /// Exact "ns::name.overload"; also accepts "ns::name.default" for the empty
  /// overload, a missing namespace (aten), and ".default" stored overloads
  /// looked up without it.
  const FunctionSchema *lookup(std::string_view fullName) const;
  /// An FX/.pt2 target such as "torch.ops.aten.add.Tensor" or "aten.relu.default".
  const FunctionSchema *lookupTarget(std::string_view target) const;
  /// add.Tensor -> add.out, max.dim -> max.dim_max; null when there is none.
  /// An in-place schema is first mapped to its functional form.
  const FunctionSchema *outVariantOf(const FunctionSchema &functional) const;
  /// add.out / add_.Tensor -> add.Tensor; null when there is none.
  const FunctionSchema *functionalOf(const FunctionSchema &inplaceOrOut) const;

  size_t size() const;
  std::vector<const FunctionSchema *> all() const; // sorted by fullName

  /// Adds one schema. Fails (with `err`) on a parse error, a bare name
  /// without signature, or a duplicate full name.
  bool add(std::string_view schemaText, ParseError *err);
  /// Records an explicit functional -> out-variant mapping (full names).
  /// Fails when either is unknown or `out` is not an out variant.
  bool addOutOverride(std::string_view functional, std::string_view out, ParseError *err);

  /// Loads a table: one schema per line, '#' comments, blank lines, and
  /// "@out <functional> <out>" override lines. Errors name the 1-based line.
  bool addTable(std::string_view table, std::vector<std::string> *errors);

  /// Errors met while loading the built-in table (empty when it is sound).
  const std::vector<std::string> &loadErrors() const { return loadErrors_; }

private:
  std::vector<std::unique_ptr<FunctionSchema>> schemas_;
  std::map<std::string, const FunctionSchema *, std::less<>> byName_;
  std::map<std::string, std::vector<const FunctionSchema *>, std::less<>> byOpName_; // "ns::name"
  std::map<std::string, const FunctionSchema *, std::less<>> outOverrides_;
  std::vector<std::string> loadErrors_;
};

/// The text of the built-in table, embedded at build time.
std::string_view builtinSchemaTable();

} // namespace ptec::schema
