//===- Passes.h - ptec passes -----------------------------------*- C++ -*-===//
#pragma once

#include "dialects/exir/IR/ExirDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace ptec {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

/// Register every ptec pass with the global registry (ptec-opt, pipelines).
void registerPasses();

} // namespace ptec
