// Plain-data model of a torch.export ExportedProgram as read from a .pt2 file.
// No MLIR, no JSON types: the importer works on these structs only. Field
// meanings follow docs/pt2-reader.md and the pt2 format spec (section 4).
#ifndef PTEC_SERDE_PT2_EXPORTEDPROGRAM_H
#define PTEC_SERDE_PT2_EXPORTEDPROGRAM_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptec::pt2 {

// Serialization numbering of ScalarType (not c10's): pt2-format.md section 5.
enum class DType : int {
  Unknown = 0, Byte = 1, Char = 2, Short = 3, Int = 4, Long = 5, Half = 6, Float = 7,
  Double = 8, ComplexHalf = 9, ComplexFloat = 10, ComplexDouble = 11, Bool = 12,
  BFloat16 = 13, UInt16 = 28, Float8E4M3FN = 29, Float8E5M2 = 30, Float8E4M3FNUZ = 31,
  Float8E5M2FNUZ = 32, Float8E8M0FNU = 33, UInt32 = 34, UInt64 = 35
};

/// Bytes per element; 0 for Unknown.
size_t dtypeSize(DType);
/// torch name without the "torch." prefix ("float32", "bfloat16"); "unknown" for Unknown.
const char *dtypeName(DType);
/// True when `code` is one of the serialization values above (including 0).
bool isKnownDType(int64_t code);

struct TensorMeta {
  DType dtype = DType::Unknown;
  std::vector<int64_t> sizes;       // -1 where symbolic
  /// Symbolic sizes: the SymExpr text of each dim ("" for a static one);
  /// empty when every size is static.
  std::vector<std::string> symSizes;
  std::vector<int64_t> strides;     // -1 where symbolic (dense layout assumed)
  int64_t storageOffset = 0;
  bool requiresGrad = false;
  std::string device = "cpu";  // "cpu", "cuda:0", ...
  int layout = 7;              // serialization Layout; 7 = Strided (dense)
};

struct Graph;

struct OptionalTensor {
  bool isNone = true;
  std::string name;
};

struct Argument {
  enum class Kind {
    None, Tensor, Tensors, Int, Ints, Float, Floats, String, Strings, Bool, Bools,
    SymInt, SymInts, SymFloat, SymBool, ScalarType, MemoryFormat, Layout, Device,
    OptionalTensors, OptionalTensor, Graph, CustomObj, Operator, Complex, IntLists,
    // Added after the pinned list:
    SymFloats, SymBools, FloatLists, NestedTensors
  };
  Kind kind = Kind::None;
  std::string name;                // Tensor / SymInt,SymFloat,SymBool (as_name) / CustomObj /
                                   // Operator (target string) / Graph attr name / OptionalTensor
  std::vector<std::string> names;  // Tensors; Sym*s items that are names ("" otherwise)
  int64_t i = 0;                   // Int, SymInt (when name is empty), ScalarType, MemoryFormat, Layout
  double f = 0;                    // Float, SymFloat (when name is empty), Complex real part
  bool b = false;                  // Bool, SymBool (when name is empty)
  std::string s;                   // String; CustomObj class_fqn
  std::vector<int64_t> ints;       // Ints; SymInts (parallel to names, 0 where a name)
  std::vector<double> floats;      // Floats; SymFloats (parallel to names)
  std::vector<bool> bools;         // Bools; SymBools (parallel to names)
  std::vector<std::string> strings;
  std::vector<OptionalTensor> optTensors;  // OptionalTensors; OptionalTensor (exactly one item)
  std::vector<bool> symIsName;     // Sym*s: item k is names[k] if symIsName[k] else ints/floats/bools[k]
  std::shared_ptr<Graph> graph;    // as_graph
  std::string device;              // as_device: "cpu", "cuda:0"
  double imag = 0;                 // Complex: f real, imag
  std::vector<std::vector<int64_t>> intLists;      // IntLists
  std::vector<std::vector<double>> floatLists;     // FloatLists
  std::vector<std::vector<std::string>> nestedNames;  // NestedTensors
};

struct NamedArgument {
  std::string name;
  Argument arg;
  int kind = 0;  // 0 unknown, 1 positional, 2 keyword
};

struct Node {
  std::string target;  // "torch.ops.aten.add.Tensor"
  std::vector<NamedArgument> inputs;
  std::vector<Argument> outputs;
  std::map<std::string, std::string> metadata;
  std::string name;    // Node.name, else derived from the first output
  std::string sourceFile;
  int sourceLine = 0;  // last `File "x.py", line N` frame of stack_trace
  // HOP nodes: result is a bare tensor, not a 1-tuple. When the file does not
  // say, true iff there is exactly one Tensor output.
  bool isHopSingleTensorReturn = false;
};

struct Graph {
  std::vector<Argument> inputs, outputs;
  std::vector<Node> nodes;
  std::map<std::string, TensorMeta> tensorValues;
  std::map<std::string, int64_t> symIntValues;  // concrete ones only
  std::map<std::string, std::string> symIntExprs;  // symbolic ones: SymExpr text
  bool isSingleTensorReturn = false;
};

enum class InputKind { UserInput, Parameter, Buffer, TensorConstant, CustomObj, Token, ConstantInput };

// target: fqn for Parameter/Buffer/TensorConstant/CustomObj; the constant's
// name for ConstantInput (its value is in arg); empty otherwise. Token
// arguments are Kind::Tensor with the token's name.
struct InputSpec {
  InputKind kind = InputKind::UserInput;
  Argument arg;
  std::string target;
  bool persistent = true;
};

enum class OutputKind {
  UserOutput, LossOutput, BufferMutation, GradientToParameter, GradientToUserInput,
  UserInputMutation, Token, ParameterMutation
};

// target: buffer / parameter / user-input name the output refers to; empty otherwise.
struct OutputSpec {
  OutputKind kind = OutputKind::UserOutput;
  Argument arg;
  std::string target;
};

/// A read-only run of bytes: a pointer and a size, comparable by content.
struct ByteView {
  const uint8_t *ptr = nullptr;
  size_t len = 0;
  ByteView() = default;
  ByteView(const uint8_t *p, size_t n) : ptr(p), len(n) {}
  ByteView(const std::vector<uint8_t> &v) : ptr(v.data()), len(v.size()) {}  // NOLINT: implicit
  const uint8_t *data() const { return ptr; }
  size_t size() const { return len; }
  bool empty() const { return len == 0; }
  const uint8_t *begin() const { return ptr; }
  const uint8_t *end() const { return ptr + len; }
  uint8_t operator[](size_t i) const { return ptr[i]; }
  friend bool operator==(ByteView a, ByteView b);
  friend bool operator!=(ByteView a, ByteView b) { return !(a == b); }
};

/// A weight payload: bytes the reader owns, or a window of a memory-mapped
/// archive (a STORED entry read in place) that `keep` holds mapped. Either
/// way immutable; several tensors may share one.
class ByteStorage {
public:
  explicit ByteStorage(std::vector<uint8_t> owned)
      : owned_(std::move(owned)), ptr_(owned_.data()), len_(owned_.size()) {}
  ByteStorage(const uint8_t *data, size_t size, std::shared_ptr<const void> keep)
      : keep_(std::move(keep)), ptr_(data), len_(size) {}
  ByteStorage(const ByteStorage &) = delete;
  ByteStorage &operator=(const ByteStorage &) = delete;

  const uint8_t *data() const { return ptr_; }
  size_t size() const { return len_; }
  bool empty() const { return len_ == 0; }
  ByteView view() const { return {ptr_, len_}; }
  /// True when the bytes are a window of a mapped file, not a copy.
  bool mapped() const { return keep_ != nullptr; }

private:
  std::vector<uint8_t> owned_;
  std::shared_ptr<const void> keep_;
  const uint8_t *ptr_;
  size_t len_;
};

struct WeightTensor {
  std::string fqn;
  TensorMeta meta;
  bool isParam = false;
  // Whole payload; the same object for every fqn that shares a storage.
  std::shared_ptr<const ByteStorage> storage;
  // Contiguous numel*elemsize materialization of the as_strided view; left
  // empty when the view is its whole storage in order (wholeStorage), so a
  // reader never holds a weight twice. Read the bytes through bytes().
  std::vector<uint8_t> data;
  bool wholeStorage = false;
  /// The view's contiguous bytes (numel * element size).
  ByteView bytes() const { return wholeStorage ? storage->view() : ByteView(data); }
};

struct ExportedProgram {
  std::string path;
  Graph graph;
  std::vector<InputSpec> inputSpecs;
  std::vector<OutputSpec> outputSpecs;
  std::map<std::string, WeightTensor> weights;    // params + persistent buffers
  std::map<std::string, WeightTensor> constants;  // tensor constants + non-persistent buffers
  // The file's schema version: majors 1-8 are read (older forms upgraded on
  // read, docs/pt2-reader.md "Schema versions"); 0 is an unversioned build.
  int schemaMajor = 0, schemaMinor = 0;
  std::string torchVersion;
  std::map<std::string, int64_t> opsetVersion;
  std::vector<std::string> verifiers;
  std::string inSpec, outSpec;  // root module_call_graph entry's pytree specs (JSON strings)
  /// range_constraints: symbol -> [min, max]; max empty = unbounded.
  struct Range {
    int64_t min = 0;
    std::optional<int64_t> max;
  };
  std::map<std::string, Range> rangeConstraints;
  enum class Container { Pt2Archive, LegacyZip } container = Container::Pt2Archive;
  std::string archiveRoot;      // root folder of a PT2 archive ("" when none)
};

}  // namespace ptec::pt2

#endif  // PTEC_SERDE_PT2_EXPORTEDPROGRAM_H
