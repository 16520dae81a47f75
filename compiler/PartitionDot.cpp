//===- PartitionDot.cpp - the partitioned graph as Graphviz DOT -----------===//

#include "compiler/PartitionDot.h"

#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

namespace ptec {
using namespace mlir;

namespace {

std::string label(Operation *op) {
  if (auto aten = llvm::dyn_cast<exir::AtenOp>(op))
    return aten.getOpName().str();
  if (auto call = llvm::dyn_cast<func::CallOp>(op))
    return "call @" + call.getCallee().str();
  return op->getName().getStringRef().str();
}

std::string quote(const std::string &s) {
  std::string out = "\"";
  for (char c : s)
    out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

} // namespace

std::string partitionGraphDot(ModuleOp module) {
  static const char *palette[] = {"#7aa6d6", "#f0a35e", "#8cc68c", "#b08fd8", "#e06666"};
  std::map<std::string, const char *> colors; // backend -> colour, in first-seen order
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "digraph partition {\n  rankdir=TB;\n  node [shape=box, fontname=\"sans-serif\", "
        "fontsize=10];\n";
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isDeclaration())
      continue;
    std::string fn = f.getSymName().str();
    os << "  subgraph " << quote("cluster_" + fn) << " {\n    label=" << quote("@" + fn)
       << ";\n";
    llvm::DenseMap<Operation *, std::string> id;
    llvm::DenseMap<Value, std::string> producer; // value -> node id
    int next = 0, regions = 0;
    for (BlockArgument a : f.getArguments()) {
      std::string n = fn + "_arg" + std::to_string(a.getArgNumber());
      exir::InputAttr in = exir::getInputAttr(f, a.getArgNumber());
      std::string text = in ? in.getKind().getValue().str() : "input";
      if (in && in.getFqn())
        text += " " + in.getFqn().getValue().str();
      os << "    " << quote(n) << " [label=" << quote(text)
         << ", shape=ellipse, style=filled, fillcolor=\"#eeeeee\"];\n";
      producer[a] = n;
    }
    auto node = [&](Operation *op, const std::string &indent, const char *fill) {
      std::string n = fn + "_op" + std::to_string(next++);
      id[op] = n;
      os << indent << quote(n) << " [label=" << quote(label(op)) << ", style=filled, fillcolor="
         << quote(fill) << "];\n";
      for (Value r : op->getResults())
        producer[r] = n;
    };
    for (Operation &op : f.getBody().front()) {
      if (auto region = llvm::dyn_cast<exir::DelegateRegionOp>(op)) {
        std::string backend = region.getBackend().str();
        auto [it, fresh] = colors.try_emplace(backend, palette[colors.size() % 5]);
        os << "    subgraph " << quote("cluster_" + fn + "_region" + std::to_string(regions++))
           << " {\n      label=" << quote(backend) << ";\n      style=filled;\n"
           << "      color=" << quote(it->second) << ";\n      class=\"delegate-region\";\n";
        for (Operation &inner : region.getBody().front().without_terminator())
          node(&inner, "      ", "#ffffff");
        os << "    }\n";
        // The region's results come from the ops that yield them.
        auto yield = region.getBody().front().getTerminator();
        for (auto [r, v] : llvm::zip(region.getResults(), yield->getOperands()))
          producer[r] = producer.lookup(v);
        continue;
      }
      node(&op, "    ", llvm::isa<func::ReturnOp>(op) ? "#eeeeee" : "#ffffff");
    }
    // Edges: producer -> every user (ops inside regions included).
    f.walk([&](Operation *user) {
      auto it = id.find(user);
      if (it == id.end())
        return;
      for (Value v : user->getOperands()) {
        std::string from = producer.lookup(v);
        if (!from.empty())
          os << "    " << quote(from) << " -> " << quote(it->second) << ";\n";
      }
    });
    os << "  }\n";
  }
  os << "}\n";
  return os.str();
}

} // namespace ptec
