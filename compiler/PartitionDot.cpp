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

const char *kPortableFill = "#fde2e2";
const char *kValueFill = "#eeeeee";

/// "f32[2, 16]" for a ranked tensor ("?" for a run-time size), the type
/// otherwise.
std::string shapeText(Type t) {
  auto ranked = llvm::dyn_cast<RankedTensorType>(t);
  std::string s;
  llvm::raw_string_ostream os(s);
  if (!ranked) {
    os << t;
    return os.str();
  }
  os << ranked.getElementType() << "[";
  for (auto [i, d] : llvm::enumerate(ranked.getShape())) {
    os << (i ? ", " : "");
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
  }
  os << "]";
  return os.str();
}

std::string label(Operation *op) {
  std::string s;
  if (auto aten = llvm::dyn_cast<exir::AtenOp>(op))
    s = aten.getOpName().str();
  else if (auto call = llvm::dyn_cast<func::CallOp>(op))
    s = "call @" + call.getCallee().str();
  else
    s = op->getName().getStringRef().str();
  for (Type t : op->getResultTypes())
    s += "\n" + shapeText(t);
  return s;
}

std::string quote(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n')
      out += "\\n";
    else
      out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  }
  return out + "\"";
}

/// At most `n` characters of `s`, "..." when cut.
std::string shorten(const std::string &s, size_t n) {
  return s.size() <= n ? s : s.substr(0, n - 3) + "...";
}

} // namespace

std::string partitionGraphDot(ModuleOp module) {
  static const char *palette[] = {"#7aa6d6", "#f0a35e", "#8cc68c", "#b08fd8", "#e06666"};
  std::map<std::string, const char *> colors; // backend -> colour, in first-seen order
  auto colorOf = [&](const std::string &backend) {
    return colors.try_emplace(backend, palette[colors.size() % 5]).first->second;
  };
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
      text += "\n" + shapeText(a.getType());
      os << "    " << quote(n) << " [label=" << quote(text)
         << ", shape=ellipse, style=filled, fillcolor=" << quote(kValueFill) << "];\n";
      producer[a] = n;
    }
    auto node = [&](Operation *op, const std::string &indent, const char *fill) {
      std::string n = fn + "_op" + std::to_string(next++);
      id[op] = n;
      std::string text = label(op), extra;
      // Left on portable kernels: say why (exir-partition's reason).
      if (auto why = op->getAttrOfType<StringAttr>("exir.refused")) {
        text += "\nportable: " + shorten(why.str(), 60);
        fill = kPortableFill;
        extra = ", class=\"refused\", tooltip=" + quote(why.str());
      }
      os << indent << quote(n) << " [label=" << quote(text) << ", style=filled, fillcolor="
         << quote(fill) << extra << "];\n";
      for (Value r : op->getResults())
        producer[r] = n;
    };
    for (Operation &op : f.getBody().front()) {
      if (auto region = llvm::dyn_cast<exir::DelegateRegionOp>(op)) {
        std::string backend = region.getBackend().str();
        Block &body = region.getBody().front();
        int64_t ops = static_cast<int64_t>(body.getOperations().size()) - 1;
        // "region k" numbers the regions of a function in program order,
        // as the compile report's delegate regions do.
        int index = regions++;
        os << "    subgraph " << quote("cluster_" + fn + "_region" + std::to_string(index))
           << " {\n      label="
           << quote("region " + std::to_string(index) + ": " + backend + " (" +
                    std::to_string(ops) + (ops == 1 ? " op)" : " ops)"))
           << ";\n      style=filled;\n      color=" << quote(colorOf(backend))
           << ";\n      class=\"delegate-region\";\n";
        for (Operation &inner : body.without_terminator())
          node(&inner, "      ", "#ffffff");
        os << "    }\n";
        // The region's results come from the ops that yield them.
        auto yield = body.getTerminator();
        for (auto [r, v] : llvm::zip(region.getResults(), yield->getOperands()))
          producer[r] = producer.lookup(v);
        continue;
      }
      node(&op, "    ", llvm::isa<func::ReturnOp>(op) ? kValueFill : "#ffffff");
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
  // What the colours and shapes mean.
  os << "  subgraph \"cluster_legend\" {\n    label=\"legend\";\n    class=\"legend\";\n"
     << "    \"legend_value\" [label=\"input, parameter, buffer\\n(kind, name, shape)\", "
        "shape=ellipse, style=filled, fillcolor="
     << quote(kValueFill) << "];\n"
     << "    \"legend_op\" [label=\"op\\n(result shapes)\", style=filled, "
        "fillcolor=\"#ffffff\"];\n"
     << "    \"legend_portable\" [label=\"op left on portable kernels\\n(portable: why)\", "
        "style=filled, fillcolor="
     << quote(kPortableFill) << "];\n";
  int k = 0;
  for (auto &[backend, color] : colors)
    os << "    " << quote("legend_backend" + std::to_string(k++))
       << " [label=" << quote("region k: " + backend + "\n(delegated to it)")
       << ", style=filled, fillcolor=" << quote(color) << "];\n";
  os << "  }\n}\n";
  return os.str();
}

} // namespace ptec
