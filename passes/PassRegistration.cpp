//===- PassRegistration.cpp - register all ptec passes --------------------===//

#include "passes/Passes.h"

namespace ptec {
namespace {
#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"
} // namespace

void registerPasses() { registerPtecPasses(); }
} // namespace ptec
