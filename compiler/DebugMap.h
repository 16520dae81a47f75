//===- DebugMap.h - instructions to source nodes, as JSON -------*- C++ -*-===//
//
// The debug map of a compiled program (aot-compile --debug-map): per method,
// which exported nodes each instruction came from, by debug handle, and
// each node's name and Python line. It plays the part of upstream's ETRecord
// debug_handle_map / delegate_map for tools that match runtime events
// (instruction indices, delegate node debug handles) to the user's model.
// Schema: docs/report.md#debug-map.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "emitter/Emitter.h"

#include <string>

namespace ptec {

/// The debug map JSON of `stats` (emitProgram's, one entry per method).
std::string debugMapJson(const EmitStats &stats);

} // namespace ptec
