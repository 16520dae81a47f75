//===- AotBackend.h - the ahead-of-time half of a backend -------*- C++ -*-===//
//
// What a backend tells the compiler: which ops it takes (with a reason when it
// refuses one), how it wants a maximal group of accepted ops cut into regions
// it can lower (optional), and `preprocess`: one region, given as a func.func,
// to the blob, compile specs, handle-sharing flag and scratch specs that
// become an exir.lowered_module. The runtime half lives next to it under
// backends/<name>/runtime; see docs/backend-guide.md.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptec::aot {

/// One compile spec: key and raw value bytes (as in the .pte CompileSpec).
struct CompileSpec {
  std::string key;
  std::string value;
};

/// Scratch memory the delegate needs at each call, planned by the compiler.
struct ScratchSpec {
  int64_t size = 0;
  int64_t alignment = 16;
};

/// What `preprocess` returns; carried on the exir.lowered_module.
struct PreprocessResult {
  std::string blob;
  std::vector<CompileSpec> compileSpecs;
  /// Every call of the lowered module in one method may use ONE delegate
  /// entry. Set only when execute() reads all its arguments on every call,
  /// keeps no per-call state on the handle and writes only its outputs.
  bool shareHandleAcrossCalls = false;
  /// Non-empty scratch disables sharing (scratch is planned per call site).
  std::vector<ScratchSpec> scratch;
  /// Bytes the blob refers to by key, for the program's named_data (shared
  /// by every delegate and method naming the same key; a key always names
  /// the same bytes).
  std::vector<std::pair<std::string, std::string>> namedData;
  /// Region arguments (indices, ascending) the blob has baked in and the
  /// delegate never reads at run time: the call does not pass them, so its
  /// arguments are the other region arguments in order, then the results.
  /// Only arguments preprocess saw as constants (exir.weight_value) qualify.
  std::vector<unsigned> bakedArgs;
};

/// A group of ops, in program order.
using OpGroup = llvm::SmallVector<mlir::Operation *, 4>;

class AotBackend {
public:
  virtual ~AotBackend() = default;

  /// The runtime id written into BackendDelegate.id.
  virtual llvm::StringRef id() const = 0;
  /// Short name used on the command line and in lowered module symbols.
  virtual llvm::StringRef name() const = 0;

  /// Capability: std::nullopt when the backend takes `op` with its operand
  /// and result dtypes and shapes, otherwise why not (one line).
  virtual std::optional<std::string> refuse(mlir::Operation *op) const = 0;

  /// Grouping constraints: cuts a maximal group of accepted ops (program
  /// order, free of cycles through other ops) into the regions this backend
  /// can lower. Each returned group must be a subset of `ops` that is convex
  /// on its own (no path leaves it and comes back); ops left out stay
  /// portable. The default keeps the group whole.
  virtual llvm::SmallVector<OpGroup> group(llvm::ArrayRef<mlir::Operation *> ops) const {
    llvm::SmallVector<OpGroup> groups;
    groups.emplace_back(ops.begin(), ops.end());
    return groups;
  }

  /// Compiles one region. `region` is a private func.func whose arguments are
  /// the values the region captured (first use order) and whose results are
  /// what it yields; the delegate receives them as args [inputs..., outputs...].
  /// Reports errors on `region` and fails.
  virtual mlir::FailureOr<PreprocessResult> preprocess(mlir::func::FuncOp region) const = 0;
};

/// True for a scalar argument equal to 1 (`alpha`/`beta`), or when it is
/// absent and so takes its schema default of 1. Backends that only implement
/// the plain product/sum check this before accepting an op.
inline bool isScalarOne(mlir::Attribute a) {
  if (!a)
    return true;
  if (auto i = llvm::dyn_cast<mlir::IntegerAttr>(a))
    return i.getValue() == 1;
  if (auto f = llvm::dyn_cast<mlir::FloatAttr>(a))
    return f.getValueAsDouble() == 1.0;
  return false;
}

/// The bytes a value always holds when it is an immutable weight: a method
/// argument whose #exir.input names an exir.weight that no method writes, or
/// an argument of a private function (lower once, call many) every call of
/// which passes such an argument naming the same weight. Backends use it to
/// decide whether they can bake a weight into their blob; exir-outline-
/// delegates uses it to hand preprocess the value (`exir.weight_value`).
struct ConstantWeight {
  mlir::ElementsAttr value; ///< null when `v` is not such a weight
  std::string fqn;
  explicit operator bool() const { return static_cast<bool>(value); }
};
/// Null `value` and the reason in `why` (when given) otherwise.
ConstantWeight constantWeightOf(mlir::Value v, std::string *why = nullptr);

/// Builds a backend from its options (the text after ':' in "demo:scratch=64");
/// returns null and sets `error` when an option is not understood.
using AotBackendFactory = std::function<std::unique_ptr<AotBackend>(
    llvm::StringRef options, std::string *error)>;

/// Registers a backend under its short name and runtime id. Built-in backends
/// (demo) are registered on first use of the registry. Returns false when the
/// name is taken.
bool registerAotBackend(llvm::StringRef name, llvm::StringRef id, AotBackendFactory factory);

/// "demo" or "demo:scratch=64" -> a configured backend; null and `error` set
/// when the name is unknown or an option is wrong.
std::unique_ptr<AotBackend> createAotBackend(llvm::StringRef spec, std::string *error);

/// The backend whose runtime id is `id`, configured with `options`.
std::unique_ptr<AotBackend> createAotBackendForId(llvm::StringRef id,
                                                  llvm::StringRef options,
                                                  std::string *error);

/// Short names of every registered backend, sorted.
std::vector<std::string> registeredAotBackends();

} // namespace ptec::aot
