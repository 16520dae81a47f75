//===- GenModule.h - the module text of a generated program -----*- C++ -*-===//
//
// The frame every program generator (ProgramGen.cpp, DynamicGen.cpp,
// InplaceGen.cpp) writes around its body: the module, its weights and
// func @forward with its arguments, results and return.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace ptec::difftest {

/// One result of @forward: the value's name (without %), its type and its
/// exir.output attribute.
struct GenOutput {
  std::string name, type, kind;
};

/// An import-phase module of exir `version` holding `weights` and
/// func @forward(`args`) with `body`, returning `outputs`.
inline std::string forwardModule(const char *version, const std::vector<std::string> &weights,
                                 const std::vector<std::string> &args,
                                 const std::vector<std::string> &body,
                                 const std::vector<GenOutput> &outputs) {
  std::string text = std::string("module attributes {exir.phase = \"import\", exir.version = \"") +
                     version + "\"} {\n";
  for (const std::string &w : weights)
    text += "  " + w + "\n";
  text += "  func.func @forward(";
  for (size_t i = 0; i < args.size(); ++i)
    text += (i ? ", " : "") + args[i];
  text += ") -> (";
  for (size_t i = 0; i < outputs.size(); ++i)
    text += (i ? ", " : "") + outputs[i].type + " {exir.output = " + outputs[i].kind + "}";
  text += ") {\n";
  for (const std::string &line : body)
    text += line + "\n";
  text += "    return ";
  std::string types;
  for (size_t i = 0; i < outputs.size(); ++i) {
    text += (i ? ", %" : "%") + outputs[i].name;
    types += (i ? ", " : "") + outputs[i].type;
  }
  return text + " : " + types + "\n  }\n}\n";
}

} // namespace ptec::difftest
