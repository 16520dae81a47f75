// FlatTensorData: a .ptd file (ExecuTorch's FlatTensor named data) as a
// NamedDataMap, so programs whose tensors are EXTERNAL (aot-compile
// --external-weights, or upstream's external constants) find their bytes by
// name. The file is mapped; views stay valid while the object lives.
// Layout and rules: docs/external-weights.md.
#pragma once

#include "runtime/backend/BackendInterface.h"
#include "runtime/executor/DataLoader.h"

#include <memory>
#include <string>
#include <unordered_map>

namespace executorch_flatbuffer {
struct Tensor;
}

namespace ptec::rt {

class FlatTensorData final : public NamedDataMap {
public:
  /// Map and check `path`; on failure `detail` names the field at fault.
  static Result<std::unique_ptr<FlatTensorData>> load(const char *path,
                                                      std::string *detail = nullptr);
  /// Check bytes the caller keeps alive (tests, fuzzing).
  static Result<std::unique_ptr<FlatTensorData>> fromBuffer(const void *data, size_t size,
                                                            std::string *detail = nullptr);

  Result<Span<const uint8_t>> get(const char *key) const override;
  Result<TensorLayoutRef> layout(const char *key) const override;
  size_t size() const { return entries_.size(); }

  /// Why the layout `stored` under `key` is not the program's tensor
  /// (dtype, sizes, dim order; an empty dim order is contiguous): a message
  /// naming the key and both layouts, or "" when they agree. The runtime's
  /// loader and pte-inspect --check --data both use it.
  static std::string layoutMismatch(const char *key, const TensorLayoutRef &stored,
                                    const TensorLayoutRef &program);
  /// A program tensor's layout, as layoutMismatch compares it.
  static TensorLayoutRef programLayout(const executorch_flatbuffer::Tensor &t);

private:
  explicit FlatTensorData(DataLoader loader) : loader_(std::move(loader)) {}
  Error parse(std::string *detail);

  DataLoader loader_;
  std::unordered_map<std::string, Span<const uint8_t>> entries_;
  std::unordered_map<std::string, TensorLayoutRef> layouts_;
};

} // namespace ptec::rt
