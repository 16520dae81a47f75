// The shape a tensor input may take (Method::setInput). A STATIC input takes
// exactly its declared shape. A DYNAMIC_BOUND input's declared sizes are
// upper bounds (spec 3.3): it takes any shape of the same rank whose every
// dimension is at most its bound, and the method's kernels then resize what
// depends on it.
#pragma once

#include "runtime/core/Span.h"
#include "serde/pte/program_generated.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace ptec::rt {

/// Empty when a tensor of shape `given` may be set as input `index`,
/// declared as `decl`; otherwise the reason, e.g. "input 0: dimension 1 is
/// 33, above its bound 32".
std::string inputShapeProblem(size_t index, const executorch_flatbuffer::Tensor &decl,
                              Span<const int64_t> given);

} // namespace ptec::rt
