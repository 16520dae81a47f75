// MethodState: the mutable state of a method, found by name. A program
// compiled with names for its mutable buffers (aot-compile
// --emit-state-names; upstream's emit_mutable_buffer_names) tags each planned
// tensor that has initial data with ExtraTensorInfo.fully_qualified_name.
// Tools and tests read those tensors between calls through Method::value().
#pragma once

#include "runtime/executor/Program.h"
#include "serde/pte/program_generated.h"

#include <cstddef>
#include <string>
#include <vector>

namespace ptec::rt {

struct NamedState {
  std::string name;  ///< the buffer's fully qualified name
  size_t valueIndex; ///< index in the plan's values (Method::value)
};

/// Named mutable buffers of method `method`, in value order; empty when the
/// method does not exist or names none.
inline std::vector<NamedState> listNamedState(const Program &program, const char *method) {
  std::vector<NamedState> out;
  auto plan = program.plan(method);
  if (!plan.ok() || plan.get()->values() == nullptr)
    return out;
  const auto *values = plan.get()->values();
  for (uint32_t i = 0; i < values->size(); ++i) {
    const executorch_flatbuffer::EValue *v = values->Get(i);
    const executorch_flatbuffer::Tensor *t = v ? v->val_as_Tensor() : nullptr;
    if (t == nullptr || t->allocation_info() == nullptr || t->data_buffer_idx() == 0 ||
        t->extra_tensor_info() == nullptr ||
        t->extra_tensor_info()->fully_qualified_name() == nullptr)
      continue;
    out.push_back({t->extra_tensor_info()->fully_qualified_name()->str(), i});
  }
  return out;
}

} // namespace ptec::rt
