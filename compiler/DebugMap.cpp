//===- DebugMap.cpp - instructions to source nodes, as JSON ---------------===//

#include "compiler/DebugMap.h"

#include "dialects/exir/IR/ExirDialect.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

namespace ptec {

std::string debugMapJson(const EmitStats &stats) {
  llvm::json::Object methods;
  for (const EmitStats::Method &m : stats.methods) {
    llvm::json::Array instructions;
    std::map<int64_t, exir::TaggedNode> nodes; // by handle: sorted output
    for (auto [index, loc] : llvm::enumerate(m.instructionLocs)) {
      llvm::SmallVector<exir::TaggedNode> tagged;
      exir::collectTaggedNodes(loc, tagged);
      std::vector<int64_t> handles;
      for (exir::TaggedNode &n : tagged) {
        handles.push_back(n.handle);
        nodes.emplace(n.handle, n);
      }
      std::sort(handles.begin(), handles.end());
      handles.erase(std::unique(handles.begin(), handles.end()), handles.end());
      llvm::json::Array list;
      for (int64_t h : handles)
        list.push_back(h);
      instructions.push_back(llvm::json::Object{{"instruction", int64_t(index)},
                                                {"debug_handles", std::move(list)}});
    }
    llvm::json::Array nodeList;
    for (const auto &[handle, n] : nodes) {
      llvm::json::Object o{{"debug_handle", handle}, {"name", n.name}};
      if (!n.source.empty())
        o["source"] = n.source;
      nodeList.push_back(std::move(o));
    }
    methods[m.name] = llvm::json::Object{{"instructions", std::move(instructions)},
                                         {"nodes", std::move(nodeList)}};
  }
  llvm::json::Object root{{"schema", "ptec-debug-map"},
                          {"version", 1},
                          {"methods", std::move(methods)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return text;
}

} // namespace ptec
