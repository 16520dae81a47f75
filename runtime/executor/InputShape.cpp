#include "runtime/executor/InputShape.h"

namespace ptec::rt {

namespace fb = executorch_flatbuffer;

namespace {
template <typename N, typename At> std::string shapeText(N n, At at) {
  std::string out = "[";
  for (N k = 0; k < n; ++k)
    out += (k ? ", " : "") + std::to_string(at(k));
  return out + "]";
}
} // namespace

std::string inputShapeProblem(size_t index, const fb::Tensor &decl, Span<const int64_t> given) {
  const auto *sizes = decl.sizes();
  const size_t rank = sizes ? sizes->size() : 0;
  auto declared = [&](size_t k) {
    return static_cast<int64_t>(sizes->Get(static_cast<flatbuffers::uoffset_t>(k)));
  };
  const std::string pre = "input " + std::to_string(index) + ": ";
  const std::string givenText = shapeText(given.size(), [&](size_t k) { return given[k]; });
  const std::string declText = shapeText(rank, declared);
  if (decl.shape_dynamism() != fb::TensorShapeDynamism::DYNAMIC_BOUND) {
    bool same = rank == given.size();
    for (size_t k = 0; same && k < rank; ++k)
      same = declared(k) == given[k];
    return same ? std::string() : pre + "shape " + givenText + ", the method expects " + declText;
  }
  if (given.size() != rank)
    return pre + "shape " + givenText + " has rank " + std::to_string(given.size()) +
           ", the method expects rank " + std::to_string(rank) + " (upper bounds " + declText +
           ")";
  for (size_t k = 0; k < rank; ++k)
    if (given[k] > declared(k))
      return pre + "dimension " + std::to_string(k) + " is " + std::to_string(given[k]) +
             ", above its bound " + std::to_string(declared(k)) + " (upper bounds " + declText +
             ", given " + givenText + ")";
  return std::string();
}

} // namespace ptec::rt
