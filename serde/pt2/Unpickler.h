// A restricted, non-executing unpickler for torch.save state dicts of plain
// tensors (data.pkl of a torch.save zip). It builds a small object tree and
// never calls anything: the few allowed globals (OrderedDict, tensor and
// parameter rebuild, typed storage classes) are interpreted by name. Every
// other global or opcode is refused by name. Stack, memo and nesting are
// bounded. Errors are thrown as Pt2Error.
#ifndef PTEC_SERDE_PT2_UNPICKLER_H
#define PTEC_SERDE_PT2_UNPICKLER_H

#include "serde/pt2/ExportedProgram.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ptec::pt2::pickle {

struct Object {
  enum class Kind {
    None, Bool, Int, Float, String, Bytes, Tuple, List, Dict,
    Global,   // an allowed callable/class, see GlobalKind
    Storage,  // persistent id ('storage', type, key, location, numel)
    Tensor    // result of _rebuild_tensor_v2 / _rebuild_parameter
  };
  enum class GlobalKind { OrderedDict, RebuildTensorV2, RebuildParameter, StorageType };

  Kind kind = Kind::None;
  int depth = 0;  // container nesting, for the nesting bound
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;                // String, Bytes; Global: "module.name"
  std::vector<Object *> items;  // Tuple, List; Dict: key0, value0, key1, value1, ...
  GlobalKind global = GlobalKind::OrderedDict;
  DType dtype = DType::Unknown;  // StorageType global, Storage, Tensor
  // Storage
  std::string key, location;
  int64_t numel = 0;
  // Tensor
  const Object *storage = nullptr;
  int64_t storageOffset = 0;
  std::vector<int64_t> sizes, strides;
  bool requiresGrad = false, isParam = false;
};

struct Limits {
  size_t maxStack = 1u << 20;
  size_t maxMemo = 1u << 20;
  int maxDepth = 200;
};

class Unpickler {
public:
  explicit Unpickler(Limits limits = Limits()) : limits_(limits) {}
  /// Parses one pickle. The result lives as long as the Unpickler.
  const Object *load(const uint8_t *data, size_t size);

private:
  Object *make(Object::Kind kind);
  Limits limits_;
  // Objects are owned here, not by each other: cycles built through the memo
  // cannot leak and deep trees are freed without recursion.
  std::vector<std::unique_ptr<Object>> arena_;
};

/// Human-readable kind name ("tuple", "tensor") for messages.
const char *kindName(Object::Kind kind);

}  // namespace ptec::pt2::pickle

#endif  // PTEC_SERDE_PT2_UNPICKLER_H
