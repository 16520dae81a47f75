// libFuzzer target for the restricted unpickler (serde/pt2/Unpickler.h):
// any bytes are parsed as data.pkl of a torch.save state dict. It must
// either build an object tree or throw Pt2Error with a message; a crash,
// hang, unbounded allocation or sanitizer report is a bug. The tree is
// walked (iteratively: memo cycles are legal) to read every field the
// reader would.
//
// Seeds: test/fuzz/corpus/unpickler (data.pkl of torch 1.13 zips and the
// state dicts the unit tests build).
#include "serde/pt2/Pt2Error.h"
#include "serde/pt2/Unpickler.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <unordered_set>
#include <vector>

using ptec::pt2::pickle::Object;

namespace {
/// Reads every reachable object once; returns a value so nothing is elided.
size_t walk(const Object *root) {
  std::vector<const Object *> todo{root};
  std::unordered_set<const Object *> seen;
  size_t sum = 0;
  while (!todo.empty()) {
    const Object *o = todo.back();
    todo.pop_back();
    if (!o || !seen.insert(o).second)
      continue;
    sum += static_cast<size_t>(o->kind) + o->s.size() + o->key.size() + o->sizes.size() +
           o->strides.size() + static_cast<size_t>(o->i) + (o->b ? 1 : 0);
    (void)ptec::pt2::pickle::kindName(o->kind);
    for (const Object *item : o->items)
      todo.push_back(item);
    todo.push_back(o->storage);
  }
  return sum;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ptec::pt2::pickle::Unpickler unpickler;
  try {
    const Object *top = unpickler.load(data, size);
    volatile size_t sink = walk(top);
    (void)sink;
  } catch (const ptec::pt2::Pt2Error &e) {
    if (e.what()[0] == '\0') {
      std::fprintf(stderr, "unpickler_fuzz: an error without a message\n");
      std::abort();
    }
  }
  return 0;
}
